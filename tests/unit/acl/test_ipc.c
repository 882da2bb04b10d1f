// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtIpcMem* and aclrtDeviceGetBareTgid against the fake module, which
 * checks the importer's pid the way the module does (fake.ipc.pid plays
 * the other process).  The bytes go through one memfd, so the exporter's
 * allocation and the import's mapping show each other's writes as two
 * processes' would.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define KEY_LEN	65
#define EXP_DEFAULT	ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT
#define EXP_ANY		ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION
#define IMP_DEFAULT	ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT
#define IMP_PEER	ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void *dev_alloc(size_t size)
{
	void *p = NULL;

	assert_int_equal(aclrtMalloc(&p, size, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	return p;
}

static void test_ipc_pid_list(void **state)
{
	unsigned char in[10000], out[10000];
	struct memreg_dev_export e;
	struct memreg_ipc_export x;
	char key[KEY_LEN];
	int32_t other = getppid();
	size_t free_b, total;
	void *p, *q = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7);
	p = dev_alloc(sizeof(in));
	assert_int_equal(aclrtMemcpy(p, sizeof(in), in, sizeof(in),
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	memset(key, 'x', sizeof(key));
	assert_int_equal(aclrtIpcMemGetExportKey(p, sizeof(in), key, KEY_LEN,
						 EXP_DEFAULT), ACL_SUCCESS);
	assert_int_equal(strncmp(key, "memreg-ipc-", 11), 0);
	assert_true(strlen(key) < KEY_LEN);
	/* The allocation's range as asked, named with the pid check on. */
	memcpy(&e, fake.last[FAKE_DEV_EXPORT].bytes, sizeof(e));
	assert_int_equal(e.offset, 0);
	assert_int_equal(e.len, sizeof(in));
	memcpy(&x, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(x));
	assert_int_equal(x.flags, 0);

	/* Another process, not on the list: refused. */
	fake.ipc.pid = other;
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, IMP_DEFAULT),
			 ACL_ERROR_RT_NO_PERMISSION);
	assert_null(q);
	fake.ipc.pid = getpid();
	assert_int_equal(aclrtIpcMemSetImportPid(key, &other, 1), ACL_SUCCESS);
	assert_int_equal(fake.ipc.last_allow_pids[0], other);
	fake.ipc.pid = other;
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, IMP_DEFAULT),
			 ACL_SUCCESS);
	assert_non_null(q);
	assert_ptr_not_equal(q, p);

	/* Device memory to the copies: the exporter's bytes, both ways. */
	assert_int_equal(aclrtMemcpy(out, sizeof(out), q, sizeof(out),
				     ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(out, in, sizeof(in));
	memset(in, 0xee, 100);
	assert_int_equal(aclrtMemcpy(q, sizeof(in), in, 100,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)p)[99], 0xee);
	assert_int_equal(aclrtMemcpyAsync(out, sizeof(out), q, sizeof(out),
					  ACL_MEMCPY_DEVICE_TO_HOST, NULL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
	assert_memory_equal(out, in, sizeof(in));
	/* Not this process's allocation: aclrtIpcMemClose unmaps it. */
	assert_int_equal(aclrtFree(q), ACL_ERROR_INVALID_PARAM);

	/* The importer closes first: its address is no device memory now. */
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(out, sizeof(out), q, 1,
				     ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Then the exporter forgets the name, once. */
	fake.ipc.pid = getpid();
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	assert_int_equal(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fake.ipc.live_names, 0);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total),
			 ACL_SUCCESS);
	assert_int_equal(free_b, total);
}

static void test_ipc_any_pid(void **state)
{
	struct memreg_ipc_export x;
	char key[KEY_LEN];
	void *p, *q = NULL, *r = NULL;

	(void)state;
	p = dev_alloc(3 * 4096);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 4096, key, KEY_LEN,
						 EXP_ANY), ACL_SUCCESS);
	memcpy(&x, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(x));
	assert_int_equal(x.flags, MEMREG_IPC_ANY_PID);
	/* Any process, no list. */
	fake.ipc.pid = getppid();
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, IMP_PEER),
			 ACL_SUCCESS);
	/* One mapping per key and process. */
	assert_int_equal(aclrtIpcMemImportByKey(&r, key, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_null(r);
	((char *)p)[5] = 42;
	assert_int_equal(((char *)q)[5], 42);
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	fake.ipc.pid = getpid();
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_ipc_export_args(void **state)
{
	struct memreg_dev_export e;
	char key[KEY_LEN], *host;
	void *p;

	(void)state;
	/* Counted from here: the group shares one fake. */
	fake_kernel_forget();
	p = dev_alloc(3 * 4096);
	host = malloc(4096);
	assert_non_null(host);
	assert_int_equal(aclrtIpcMemGetExportKey(NULL, 1, key, KEY_LEN, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 0, key, KEY_LEN, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 1, NULL, KEY_LEN, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 1, key, KEY_LEN - 1, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 1, key, KEY_LEN, 0x2),
			 ACL_ERROR_INVALID_PARAM);
	/* Host memory, past the allocation's end, not on a page. */
	assert_int_equal(aclrtIpcMemGetExportKey(host, 1, key, KEY_LEN, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* (3 pages and CANN's 32 bytes of padding: 4 pages mapped) */
	assert_int_equal(aclrtIpcMemGetExportKey(p, 5 * 4096, key, KEY_LEN, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtIpcMemGetExportKey((char *)p + 64, 64, key,
						 KEY_LEN, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fake.calls[FAKE_DEV_EXPORT], 0);
	/* A page inside it is a range of its own. */
	assert_int_equal(aclrtIpcMemGetExportKey((char *)p + 4096, 100, key,
						 KEY_LEN, 0), ACL_SUCCESS);
	memcpy(&e, fake.last[FAKE_DEV_EXPORT].bytes, sizeof(e));
	assert_int_equal(e.offset, 4096);
	assert_int_equal(e.len, 100);
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	/* The module out of fds or names. */
	fake.fail_errno[FAKE_DEV_EXPORT] = EMFILE;
	assert_int_equal(aclrtIpcMemGetExportKey(p, 1, key, KEY_LEN, 0),
			 ACL_ERROR_RT_OVER_LIMIT);
	fake.fail_errno[FAKE_IPC_EXPORT] = EMFILE;
	assert_int_equal(aclrtIpcMemGetExportKey(p, 1, key, KEY_LEN, 0),
			 ACL_ERROR_RT_OVER_LIMIT);
	assert_int_equal(fake.ipc.live_names, 0);
	free(host);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_ipc_import_args(void **state)
{
	static const char *const bad[] = {
		"", "memreg-ipc-", "memreg-ipc-0123",
		"memreg-ipc-0123456789ABCDEF0123456789abcdef",
		"memreg-ipc-0123456789abcdef0123456789abcdef0",
		"other-ipc--0123456789abcdef0123456789abcdef",
	};
	const char *unknown = "memreg-ipc-0123456789abcdef0123456789abcdef";
	char key[KEY_LEN];
	void *p, *q = NULL;
	int fds;
	size_t i;

	(void)state;
	/* Counted from here: the group shares one fake. */
	fake_kernel_forget();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(aclrtIpcMemImportByKey(&q, bad[i], 0),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtIpcMemClose(bad[i]),
				 ACL_ERROR_INVALID_PARAM);
	}
	assert_int_equal(aclrtIpcMemImportByKey(NULL, unknown, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemImportByKey(&q, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemImportByKey(&q, unknown, 0x2),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(fake.calls[FAKE_IPC_IMPORT], 0);
	/* Well formed, but no such name. */
	assert_int_equal(aclrtIpcMemImportByKey(&q, unknown, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtIpcMemClose(unknown), ACL_ERROR_RT_PARAM_INVALID);

	/* The exporter freed the memory: the name is left, the memory not. */
	p = dev_alloc(4096);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 4096, key, KEY_LEN, 0),
			 ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	fds = count_fds();
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_null(q);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
}

static void test_ipc_set_pid_args(void **state)
{
	const char *unknown = "memreg-ipc-00000000000000000000000000000000";
	int32_t pids[2] = { getpid(), 0x7ffffff0 };
	char key[KEY_LEN];
	void *p;

	(void)state;
	/* Counted from here: the group shares one fake. */
	fake_kernel_forget();
	p = dev_alloc(4096);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 4096, key, KEY_LEN, 0),
			 ACL_SUCCESS);
	assert_int_equal(aclrtIpcMemSetImportPid(NULL, pids, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemSetImportPid(key, NULL, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemSetImportPid(key, pids, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcMemSetImportPid("memreg-ipc-zz", pids, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(fake.calls[FAKE_IPC_ALLOW], 0);
	/* No such name; a pid that is no process. */
	assert_int_equal(aclrtIpcMemSetImportPid(unknown, pids, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtIpcMemSetImportPid(key, pids, 2),
			 ACL_ERROR_RT_PARAM_INVALID);
	fake.fail_errno[FAKE_IPC_ALLOW] = E2BIG;
	assert_int_equal(aclrtIpcMemSetImportPid(key, pids, 1),
			 ACL_ERROR_RT_OVER_LIMIT);
	assert_int_equal(aclrtIpcMemSetImportPid(key, pids, 1), ACL_SUCCESS);
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_bare_tgid(void **state)
{
	int32_t pid = 0;

	(void)state;
	assert_int_equal(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceGetBareTgid(&pid), ACL_SUCCESS);
	assert_int_equal(pid, getpid());
}

/* aclFinalize unmaps imports and closes their fds, as it frees memory. */
static void test_ipc_finalize(void **state)
{
	char key[KEY_LEN];
	void *p, *q;
	int fds;

	(void)state;
	p = dev_alloc(4096);
	assert_int_equal(aclrtIpcMemGetExportKey(p, 4096, key, KEY_LEN, 1),
			 ACL_SUCCESS);
	fds = count_fds();
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
	assert_int_equal(count_fds(), fds + 1);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	/* The module's descriptor went too. */
	assert_int_equal(count_fds(), fds - 1);
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
}

void run_ipc_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipc_pid_list),
		cmocka_unit_test(test_ipc_any_pid),
		cmocka_unit_test(test_ipc_export_args),
		cmocka_unit_test(test_ipc_import_args),
		cmocka_unit_test(test_ipc_set_pid_args),
		cmocka_unit_test(test_bare_tgid),
		cmocka_unit_test(test_ipc_finalize),
	};

	RUN_GROUP("ipc", tests, acl_test_setup, acl_test_teardown, res);
}
