// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memreg_dev_export(), memreg_reg_export(), memreg_register_dmabuf() and
 * the IPC names against
 * the fake module: the exact structs sent, the fds handed back (and not
 * leaked on failure), the bytes a dma-buf maps, and each errno's code.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "layers.h"
#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

/* The fake's device memory must be mappable: no use_device() here. */
static int setup(void **state)
{
	struct memreg_ctx *ctx;

	if (fake_kernel_setup() || memreg_open(&ctx))
		return -1;
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	memreg_close(*state);
	fake_kernel_teardown();
	return 0;
}

static void alloc(struct memreg_ctx *ctx, size_t len, struct memreg_dev_mem *m)
{
	assert_int_equal(memreg_dev_alloc(ctx, 0, MEMREG_DEV_NORMAL_ONLY, len,
					  m), 0);
}

static void test_dev_export_maps_the_range(void **state)
{
	struct memreg_dev_export sent;
	struct memreg_dev_mem m;
	unsigned char *p;
	int fd = -1;

	alloc(*state, 4 * 4096, &m);
	memset(m.addr, 0x11, m.len);
	memset((char *)m.addr + 4096, 0x22, 4096);
	assert_int_equal(memreg_dev_export(*state, &m, 4096, 100, &fd), 0);
	assert_true(fd >= 0);
	/* An fd the library made does not survive exec. */
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);

	memcpy(&sent, fake.last[FAKE_DEV_EXPORT].bytes, sizeof(sent));
	assert_int_equal(sent.size, sizeof(sent));
	assert_int_equal(sent.flags, MEMREG_EXPORT_CLOEXEC);
	assert_int_equal(sent.handle, m.handle);
	assert_int_equal(sent.offset, 4096);
	assert_int_equal(sent.len, 100);

	/* The dma-buf is the allocation's bytes from the offset on, shared. */
	p = memreg__dmabuf_mmap(fd, 4096);
	assert_ptr_not_equal(p, MAP_FAILED);
	assert_int_equal(p[0], 0x22);
	assert_int_equal(p[4095], 0x22);
	p[7] = 0x77;
	assert_int_equal(((unsigned char *)m.addr)[4096 + 7], 0x77);
	munmap(p, 4096);
	close(fd);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
}

static void test_dev_export_errors(void **state)
{
	struct memreg_dev_mem m, gone;
	int fd = -1, fds;

	alloc(*state, 2 * 4096, &m);
	alloc(*state, 4096, &gone);
	assert_int_equal(memreg_dev_free(*state, &gone), 0);
	fds = count_fds();

	assert_int_equal(memreg_dev_export(*state, &gone, 0, 4096, &fd),
			 -MEMREG_E_NOENT);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(memreg_dev_export(*state, &m, 100, 4096, &fd),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_export(*state, &m, 0, 0, &fd),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_export(*state, &m, 4096, 4097, &fd),
			 -MEMREG_E_RANGE);
	assert_int_equal(errno, ERANGE);
	fake.fail_errno[FAKE_DEV_EXPORT] = EMFILE;
	assert_int_equal(memreg_dev_export(*state, &m, 0, 4096, &fd),
			 -MEMREG_E_NOFD);
	assert_int_equal(fd, -1);

	/* Refused before the module is asked. */
	fake_kernel_forget();
	assert_int_equal(memreg_dev_export(NULL, &m, 0, 4096, &fd),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_export(*state, NULL, 0, 4096, &fd),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_export(*state, &m, 0, 4096, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(fake.calls[FAKE_DEV_EXPORT], 0);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
}

/*
 * memreg_reg_export(): the struct sent, a close-on-exec fd back, and each
 * refusal of memreg_host_export.c as its code, with no fd left behind.
 */
static void test_reg_export(void **state)
{
	static char buf[4 * 4096] __attribute__((aligned(4096)));
	struct memreg_reg_export sent;
	uint64_t h = 0, ro = 0;
	int fd = -1, fds;

	assert_int_equal(memreg_register(*state, buf + 100, 2 * 4096,
					 MEMREG_MEM_HOST, MEMREG_ACCESS_ALL,
					 &h), 0);
	assert_int_equal(memreg_register(*state, buf, 4096, MEMREG_MEM_HOST,
					 MEMREG_ACCESS_REMOTE_READ, &ro), 0);
	/* 8292 bytes from byte 100: three pages spanned */
	assert_int_equal(memreg_reg_export(*state, h, 4096, 2 * 4096, &fd), 0);
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	memcpy(&sent, fake.last[FAKE_REG_EXPORT].bytes, sizeof(sent));
	assert_int_equal(sent.size, sizeof(sent));
	assert_int_equal(sent.flags, MEMREG_EXPORT_CLOEXEC);
	assert_int_equal(sent.handle, h);
	assert_int_equal(sent.offset, 4096);
	assert_int_equal(sent.len, 2 * 4096);
	close(fd);
	fds = count_fds();

	fd = -1;
	assert_int_equal(memreg_reg_export(*state, h, 4096, 3 * 4096, &fd),
			 -MEMREG_E_RANGE);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(memreg_reg_export(*state, ro, 0, 4096, &fd),
			 -MEMREG_E_PERM);
	assert_int_equal(errno, EACCES);
	assert_int_equal(memreg_reg_export(*state, h + 1, 0, 4096, &fd),
			 -MEMREG_E_NOENT);
	assert_int_equal(memreg_reg_export(*state, h, 100, 4096, &fd),
			 -MEMREG_E_INVAL);
	fake.fail_errno[FAKE_REG_EXPORT] = ENOMEM;
	assert_int_equal(memreg_reg_export(*state, h, 0, 4096, &fd),
			 -MEMREG_E_MEMLOCK);
	fake.fail_errno[FAKE_REG_EXPORT] = EOPNOTSUPP;
	assert_int_equal(memreg_reg_export(*state, h, 0, 4096, &fd),
			 -MEMREG_E_NOTSUP);
	fake.fail_errno[FAKE_REG_EXPORT] = EMFILE;
	assert_int_equal(memreg_reg_export(*state, h, 0, 4096, &fd),
			 -MEMREG_E_NOFD);
	assert_int_equal(fd, -1);
	fake_kernel_forget();
	assert_int_equal(memreg_reg_export(NULL, h, 0, 4096, &fd),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_reg_export(*state, h, 0, 4096, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(fake.calls[FAKE_REG_EXPORT], 0);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(memreg_unregister(*state, h), 0);
	assert_int_equal(memreg_unregister(*state, ro), 0);
}

static void test_register_dmabuf(void **state)
{
	struct memreg_register sent;
	struct memreg_dev_mem m;
	uint64_t h = 0;
	int fd;

	alloc(*state, 2 * 4096, &m);
	assert_int_equal(memreg_dev_export(*state, &m, 0, 8192, &fd), 0);
	assert_int_equal(memreg_register_dmabuf(*state, fd, 100, 5000,
						MEMREG_ACCESS_REMOTE_READ, &h),
			 0);
	assert_int_not_equal(h, 0);
	memcpy(&sent, fake.last[FAKE_REGISTER].bytes, sizeof(sent));
	assert_int_equal(sent.size, sizeof(sent));
	assert_int_equal(sent.type, MEMREG_MEM_DMABUF);
	assert_int_equal(sent.addr, 100);
	assert_int_equal(sent.len, 5000);
	assert_int_equal(sent.access, MEMREG_ACCESS_REMOTE_READ);
	assert_int_equal(sent.fd, fd);
	assert_int_equal(sent.flags, 0);
	assert_int_equal(sent.reserved0, 0);
	assert_int_equal(memreg_unregister(*state, h), 0);

	/* Outside the 8 KiB buffer. */
	assert_int_equal(memreg_register_dmabuf(*state, fd, 4096, 4097, 0, &h),
			 -MEMREG_E_RANGE);
	/* The limits of every registration. */
	fake.fail_errno[FAKE_REGISTER] = ENOSPC;
	assert_int_equal(memreg_register_dmabuf(*state, fd, 0, 4096, 0, &h),
			 -MEMREG_E_LIMIT_DEVICE);
	fake.fail_errno[FAKE_REGISTER] = EMFILE;
	assert_int_equal(memreg_register_dmabuf(*state, fd, 0, 4096, 0, &h),
			 -MEMREG_E_LIMIT_REGIONS);
	close(fd);
	/* Not open any more; then open but no dma-buf. */
	assert_int_equal(memreg_register_dmabuf(*state, fd, 0, 4096, 0, &h),
			 -MEMREG_E_BADF);
	assert_int_equal(errno, EBADF);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_int_equal(memreg_register_dmabuf(*state, fd, 0, 4096, 0, &h),
			 -MEMREG_E_INVAL);
	close(fd);
	assert_int_equal(memreg_register_dmabuf(*state, 0, 0, 1, 0, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
}

/* Export @m whole under a new name; the dma-buf fd is closed again. */
static void name(struct memreg_ctx *ctx, struct memreg_dev_mem *m,
		 unsigned int flags, uint8_t token[MEMREG_IPC_TOKEN_LEN])
{
	int fd;

	assert_int_equal(memreg_dev_export(ctx, m, 0, m->len, &fd), 0);
	assert_int_equal(memreg_ipc_export(ctx, fd, flags, token), 0);
	/* The name holds the buffer: the exporter's fd may go. */
	close(fd);
}

static void test_ipc_names(void **state)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN], any[MEMREG_IPC_TOKEN_LEN];
	struct memreg_ipc_export sent;
	struct memreg_ipc_import isent;
	struct memreg_dev_mem m;
	int32_t other = getppid();
	unsigned char *p;
	size_t len = 0;
	int fd = -1;

	alloc(*state, 3 * 4096, &m);
	memset(m.addr, 0x5c, m.len);
	name(*state, &m, 0, token);
	memcpy(&sent, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(sent));
	assert_int_equal(sent.size, sizeof(sent));
	assert_int_equal(sent.flags, 0);
	assert_memory_equal(sent.token, (uint8_t[16]){ 0 }, 16);

	/* Another process, not named: refused, no fd made. */
	fake.ipc.pid = other;
	assert_int_equal(memreg_ipc_import(*state, token, &fd, &len),
			 -MEMREG_E_PERM);
	assert_int_equal(errno, EPERM);
	assert_int_equal(fd, -1);
	/* Named by the exporter: imports. */
	fake.ipc.pid = getpid();
	assert_int_equal(memreg_ipc_allow(*state, token, &other, 1), 0);
	assert_int_equal(fake.ipc.last_allow_count, 1);
	assert_int_equal(fake.ipc.last_allow_pids[0], other);
	fake.ipc.pid = other;
	assert_int_equal(memreg_ipc_import(*state, token, &fd, &len), 0);
	memcpy(&isent, fake.last[FAKE_IPC_IMPORT].bytes, sizeof(isent));
	assert_int_equal(isent.flags, MEMREG_EXPORT_CLOEXEC);
	assert_memory_equal(isent.token, token, 16);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(len, 3 * 4096);
	p = memreg__dmabuf_mmap(fd, len);
	assert_ptr_not_equal(p, MAP_FAILED);
	assert_int_equal(p[len - 1], 0x5c);

	/* The exporter forgets the name: the import made stays. */
	fake.ipc.pid = getpid();
	assert_int_equal(memreg_ipc_close(*state, token), 0);
	assert_int_equal(memreg_ipc_close(*state, token), -MEMREG_E_NOENT);
	assert_int_equal(memreg_ipc_import(*state, token, &fd, &len),
			 -MEMREG_E_NOENT);
	p[0] = 0xab;
	assert_int_equal(((unsigned char *)m.addr)[0], 0xab);
	munmap(p, len);
	close(fd);

	/* ANY_PID: whoever has the token. */
	name(*state, &m, MEMREG_IPC_ANY_PID, any);
	memcpy(&sent, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(sent));
	assert_int_equal(sent.flags, MEMREG_IPC_ANY_PID);
	assert_memory_not_equal(any, token, 16);
	fake.ipc.pid = other;
	assert_int_equal(memreg_ipc_import(*state, any, &fd, NULL), 0);
	close(fd);
	fake.ipc.pid = getpid();
	assert_int_equal(memreg_ipc_close(*state, any), 0);
	assert_int_equal(fake.ipc.live_names, 0);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
}

static void test_ipc_errors(void **state)
{
	static const uint8_t bogus[MEMREG_IPC_TOKEN_LEN] = { 9, 9, 9 };
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct memreg_dev_mem m;
	int32_t pids[2] = { getpid(), 0x7ffffff0 };
	int fd = -1, nul, fds;

	alloc(*state, 4096, &m);
	name(*state, &m, 0, token);
	fds = count_fds();

	/* IPC_EXPORT: no fd, no dma-buf, unknown flags. */
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	assert_int_equal(memreg_ipc_export(*state, 1000, 0, token),
			 -MEMREG_E_BADF);
	assert_int_equal(memreg_ipc_export(*state, nul, 0, token),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_ipc_export(*state, nul, 0x80, token),
			 -MEMREG_E_INVAL);
	close(nul);
	fake.fail_errno[FAKE_IPC_EXPORT] = EMFILE;
	assert_int_equal(memreg_ipc_export(*state, 0, 0, token),
			 -MEMREG_E_TOO_MANY);

	/* IPC_ALLOW: a pid that does not exist, an unknown name, too many. */
	assert_int_equal(memreg_ipc_allow(*state, token, pids, 2),
			 -MEMREG_E_NOPROC);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(memreg_ipc_allow(*state, bogus, pids, 1),
			 -MEMREG_E_NOENT);
	fake.fail_errno[FAKE_IPC_ALLOW] = E2BIG;
	assert_int_equal(memreg_ipc_allow(*state, token, pids, 1),
			 -MEMREG_E_TOO_MANY);
	/* Nothing to allow: refused here (the module would say E2BIG). */
	fake_kernel_forget();
	assert_int_equal(memreg_ipc_allow(*state, token, pids, 0),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_ipc_allow(*state, token, NULL, 1),
			 -MEMREG_E_INVAL);
	assert_int_equal(fake.calls[FAKE_IPC_ALLOW], 0);

	/* IPC_IMPORT, IPC_CLOSE: unknown names; no fd left. */
	assert_int_equal(memreg_ipc_import(*state, bogus, &fd, NULL),
			 -MEMREG_E_NOENT);
	fake.fail_errno[FAKE_IPC_IMPORT] = EMFILE;
	assert_int_equal(memreg_ipc_import(*state, token, &fd, NULL),
			 -MEMREG_E_NOFD);
	assert_int_equal(fd, -1);
	assert_int_equal(memreg_ipc_close(*state, bogus), -MEMREG_E_NOENT);
	assert_int_equal(memreg_ipc_import(*state, NULL, &fd, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_ipc_import(*state, token, NULL, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_ipc_close(*state, NULL), -MEMREG_E_INVAL);
	assert_int_equal(memreg_ipc_export(*state, 0, 0, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(count_fds(), fds);

	/* The memory freed: the name's buffer is revoked, mmap fails. */
	assert_int_equal(memreg_dev_free(*state, &m), 0);
	assert_int_equal(memreg_ipc_import(*state, token, &fd, NULL), 0);
	assert_ptr_equal(memreg__dmabuf_mmap(fd, 4096), MAP_FAILED);
	assert_int_equal(errno, ENODEV);
	close(fd);
	assert_int_equal(memreg_ipc_close(*state, token), 0);
}

void run_dmabuf_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dev_export_maps_the_range,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_dev_export_errors,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_reg_export, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_register_dmabuf,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipc_names,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipc_errors,
						setup, teardown),
	};

	RUN_GROUP("dmabuf", tests, NULL, NULL, res);
}
