// SPDX-License-Identifier: GPL-2.0
/*
 * itest_dmabuf - the DMABUF memory type, memreg's dma-buf export and the
 * named dma-bufs (IPC_*), with raw ioctls.
 *
 * Exporters: memreg's own (DEV_EXPORT, on every kernel), udmabuf and the
 * dma-heap system heap where the kernel has them (Debian's 6.12 and the
 * debug kernel; Debian's 6.1 has neither, and those tests say so and
 * skip).  Every transfer is byte-checked; the registration of a dma-buf
 * lives in one process, the host memory it is copied to or from in
 * another.  Revocation (the exporting process frees or dies) stops
 * transfers in flight with EKEYREVOKED, never with bytes read after it,
 * and CPU mappings of the buffer fault.  Each hostile input has its own
 * errno.  Nothing is left pinned, registered or allocated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/dma-heap.h>
#include <linux/udmabuf.h>
#include <cmocka.h>
#include "memtest.h"

#define MiB (1ULL << 20)
#define PAGE 4096ULL

static long long pins_at_start;

static int setup(void **state)
{
	(void)state;
	pins_at_start = memtest_pins_held();
	return 0;
}

/* Nothing pinned, and no device byte left allocated by anyone. */
static void assert_no_leak(void)
{
	struct memreg_dev_info di = { .size = sizeof(di), .device = 0 };
	int fd = memtest_open();

	if (pins_at_start >= 0)
		assert_int_equal(memtest_pins_held(), pins_at_start);
	assert_int_equal(memtest_vmpin_kb(), 0);
	assert_true(fd >= 0);
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_INFO, &di), 0);
	assert_int_equal(di.used, 0);
	close(fd);
}

/* the byte pattern of memtest.h, by seed */
#define fill memtest_fill
#define same memtest_same

/* ---- raw ioctls ---- */

struct devbuf {
	uint64_t handle;
	char *map;		/* the exporter's own mapping */
	uint64_t len;
};

static int dev_alloc_map(int fd, uint64_t len, struct devbuf *b)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = len,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	b->handle = a.handle;
	b->len = a.alloc_len;
	b->map = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, a.mmap_offset);
	return b->map == MAP_FAILED ? -errno : 0;
}

static int dev_free_flags(int fd, uint64_t handle, uint32_t flags)
{
	struct memreg_dev_free f = {
		.size = sizeof(f), .handle = handle, .flags = flags,
	};

	return ioctl(fd, MEMREG_IOC_DEV_FREE, &f) ? -errno : 0;
}

static int dev_free(int fd, uint64_t handle)
{
	return dev_free_flags(fd, handle, 0);
}

/* A dma-buf of [@off, @off + @len) of allocation @handle; fd or -errno. */
static int dev_export(int fd, uint64_t handle, uint64_t off, uint64_t len,
		      uint32_t flags)
{
	struct memreg_dev_export e = {
		.size = sizeof(e), .flags = flags, .handle = handle,
		.offset = off, .len = len,
	};

	return ioctl(fd, MEMREG_IOC_DEV_EXPORT, &e) ? -errno : e.fd;
}

static int reg_dmabuf(int fd, int dfd, uint64_t off, uint64_t len,
		      uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_DMABUF, .addr = off,
		.len = len, .access = MEMREG_ACCESS_ALL, .fd = dfd,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	if (handle)
		*handle = r.handle;
	return 0;
}

/* DEVICE memory at @addr, which peers may read and write */
static int reg_device(int fd, void *addr, uint64_t len, uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_DEVICE,
		.addr = (uintptr_t)addr, .len = len,
		.access = MEMREG_ACCESS_ALL,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	*handle = r.handle;
	return 0;
}

static int grant(int fd, uint64_t handle, uint8_t *token)
{
	struct memreg_grant g = {
		.size = sizeof(g), .access = MEMREG_ACCESS_ALL,
		.handle = handle,
	};

	if (ioctl(fd, MEMREG_IOC_GRANT, &g))
		return -errno;
	memcpy(token, g.token, 16);
	return 0;
}

static int import(int fd, const uint8_t *token, uint64_t *handle)
{
	struct memreg_import im = { .size = sizeof(im) };

	memcpy(im.token, token, 16);
	if (ioctl(fd, MEMREG_IOC_IMPORT, &im))
		return -errno;
	*handle = im.handle;
	return 0;
}

static int ipc_export(int fd, int dfd, uint32_t flags, uint8_t *token)
{
	struct memreg_ipc_export e = {
		.size = sizeof(e), .flags = flags, .fd = dfd,
	};

	if (ioctl(fd, MEMREG_IOC_IPC_EXPORT, &e))
		return -errno;
	memcpy(token, e.token, 16);
	return 0;
}

static int ipc_allow(int fd, const uint8_t *token, int32_t pid)
{
	struct memreg_ipc_allow a = {
		.size = sizeof(a), .count = 1, .pids = (uintptr_t)&pid,
	};

	memcpy(a.token, token, 16);
	return ioctl(fd, MEMREG_IOC_IPC_ALLOW, &a) ? -errno : 0;
}

/* A new fd of the named dma-buf, or -errno. */
static int ipc_import(int fd, const uint8_t *token, uint64_t *len)
{
	struct memreg_ipc_import im = { .size = sizeof(im) };

	memcpy(im.token, token, 16);
	if (ioctl(fd, MEMREG_IOC_IPC_IMPORT, &im))
		return -errno;
	if (len)
		*len = im.len;
	return im.fd;
}

static int ipc_close(int fd, const uint8_t *token)
{
	struct memreg_ipc_close c = { .size = sizeof(c) };

	memcpy(c.token, token, 16);
	return ioctl(fd, MEMREG_IOC_IPC_CLOSE, &c) ? -errno : 0;
}

/* ---- processes ---- */

/* Pass an fd over a unix socket. */
static int send_fd(int sock, int fd)
{
	char byte = 'f', ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * A child that owns the memory: allocates @len device bytes filled with
 * seed 1, exports them and sends the dma-buf fd over @sock; then on 'f'
 * frees the allocation (revoking the export), on 'x' or EOF exits.
 */
struct exporter {
	pid_t pid;
	int sock;
};

static void exporter_main(int sock, uint64_t len)
{
	struct devbuf b;
	int fd = memtest_open(), dfd;
	char c = 0;

	if (fd < 0 || dev_alloc_map(fd, len, &b))
		_exit(10);
	fill(b.map, len, 1);
	dfd = dev_export(fd, b.handle, 0, len, MEMREG_EXPORT_CLOEXEC);
	if (dfd < 0 || send_fd(sock, dfd))
		_exit(11);
	close(dfd);
	while (read(sock, &c, 1) == 1 && c != 'x') {
		if (c == 'f') {
			munmap(b.map, b.len);
			c = dev_free(fd, b.handle) ? 'E' : 'F';
			if (write(sock, &c, 1) != 1)
				_exit(12);
		}
	}
	_exit(0);
}

static int exporter_start(struct exporter *e, uint64_t len)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
			 0);
	e->pid = fork();
	assert_true(e->pid >= 0);
	if (!e->pid) {
		close(sv[0]);
		exporter_main(sv[1], len);
	}
	close(sv[1]);
	e->sock = sv[0];
	return recv_fd(e->sock);
}

static void exporter_free(struct exporter *e)
{
	char c = 'f';

	assert_int_equal(write(e->sock, &c, 1), 1);
	assert_int_equal(read(e->sock, &c, 1), 1);
	assert_int_equal(c, 'F');
}

static void reap(pid_t pid, int want_sig)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (want_sig)
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == want_sig);
	else
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void exporter_stop(struct exporter *e)
{
	char c = 'x';

	assert_int_equal(write(e->sock, &c, 1), 1);
	reap(e->pid, 0);
	close(e->sock);
}

/*
 * A child that registers [0, @len) of the dma-buf @dfd (inherited) and
 * grants it; the token goes to the parent.  It stays until told 'x' (or
 * EOF), and exits 0 if it could unregister.
 */
struct holder {
	pid_t pid;
	int cmd, ans;
	uint8_t token[16];
};

static void holder_main(int cmd, int ans, int dfd, uint64_t len)
{
	uint8_t token[16] = { 0 };
	uint64_t h = 0;
	int fd = memtest_open(), err;
	char c;

	err = fd < 0 ? -ENODEV : reg_dmabuf(fd, dfd, 0, len, &h);
	if (!err)
		err = grant(fd, h, token);
	if (err) {
		/* the parent reads the errno instead of a token */
		memset(token, 0, sizeof(token));
		memcpy(token, &err, sizeof(err));
	}
	if (write(ans, token, 16) != 16)
		_exit(10);
	if (err)
		_exit(0);
	while (read(cmd, &c, 1) == 1 && c != 'x')
		;
	_exit(memtest_unregister(fd, h) ? 11 : 0);
}

static void holder_start(struct holder *hd, int dfd, uint64_t len)
{
	int c[2], a[2];

	assert_int_equal(pipe2(c, O_CLOEXEC), 0);
	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	hd->pid = fork();
	assert_true(hd->pid >= 0);
	if (!hd->pid) {
		close(c[1]);
		close(a[0]);
		holder_main(c[0], a[1], dfd, len);
	}
	close(c[0]);
	close(a[1]);
	hd->cmd = c[1];
	hd->ans = a[0];
	assert_int_equal(read(hd->ans, hd->token, 16), 16);
}

static void holder_stop(struct holder *hd)
{
	char c = 'x';

	assert_int_equal(write(hd->cmd, &c, 1), 1);
	reap(hd->pid, 0);
	close(hd->cmd);
	close(hd->ans);
}

/*
 * The parent's side of a copy: host memory of its own, registered, and
 * the holder's dma-buf registration imported.
 */
struct peer {
	int fd;
	char *host;
	uint64_t len;
	uint64_t lh, rh;
};

static void peer_open(struct peer *p, const uint8_t *token, uint64_t len)
{
	p->fd = memtest_open();
	assert_true(p->fd >= 0);
	p->len = len;
	p->host = memtest_map(MEMTEST_ANON, len);
	assert_non_null(p->host);
	assert_int_equal(memtest_register(p->fd, p->host, len, MEMREG_MEM_HOST,
					  &p->lh), 0);
	assert_int_equal(import(p->fd, token, &p->rh), 0);
}

static void peer_close(struct peer *p)
{
	close(p->fd);
	memtest_unmap(p->host, p->len);
}

/*
 * Read the whole dma-buf into host memory and check it holds seed 1;
 * write seed 2 into an unaligned window of it and check through @view
 * (a CPU mapping of the same memory).
 */
static void check_copies(struct peer *p, char *view)
{
	const uint64_t off = PAGE + 3, n = 3 * PAGE + 1000;

	memset(p->host, 0, p->len);
	assert_int_equal(memtest_transfer(p->fd, MEMREG_XFER_READ, p->lh, p->host,
					  p->rh, 0, p->len), 0);
	assert_true(same(p->host, p->len, 1));

	fill(p->host, n, 2);
	assert_int_equal(memtest_transfer(p->fd, MEMREG_XFER_WRITE, p->lh, p->host,
					  p->rh, off, n), 0);
	assert_true(same(view + off, n, 2));
	/* the bytes around the window are untouched */
	assert_int_equal(view[off - 1], (char)(31 + (off - 1) * 7 +
					       ((off - 1) >> 12)));
	/* past the registration: ERANGE */
	assert_int_equal(memtest_transfer(p->fd, MEMREG_XFER_READ, p->lh, p->host,
					  p->rh, p->len - 8, 16), -ERANGE);
}

/* ---- memreg's own export ---- */

static void test_export_roundtrip(void **state)
{
	const uint64_t len = MiB;
	struct holder hd;
	struct peer p;
	struct devbuf b;
	char *view;
	int fd = memtest_open(), dfd;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, len, &b), 0);
	fill(b.map, len, 1);
	dfd = dev_export(fd, b.handle, 0, len, MEMREG_EXPORT_CLOEXEC);
	assert_true(dfd >= 0);
	/* the dma-buf's own mapping shows the same bytes */
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	assert_true(view != MAP_FAILED);
	assert_true(same(view, len, 1));

	/* a second process registers it; a third copies to and from it */
	holder_start(&hd, dfd, len);
	peer_open(&p, hd.token, len);
	check_copies(&p, b.map);
	assert_true(same(view + PAGE + 3, 3 * PAGE + 1000, 2));
	peer_close(&p);
	holder_stop(&hd);

	/* and the exporting process itself may register its export */
	assert_int_equal(reg_dmabuf(fd, dfd, PAGE, 2 * PAGE, NULL), 0);

	munmap(view, len);
	munmap(b.map, b.len);
	assert_int_equal(dev_free(fd, b.handle), 0);
	close(dfd);
	close(fd);
	assert_no_leak();
}

/*
 * A CPU mapping of an export of the process's own allocation is device
 * memory to REGISTER (CANN's aclrtMapMem maps physical memory this way):
 * the registration reaches the allocation's pages at the export's offset
 * plus the mapping's, holds the allocation (DEV_FREE is EBUSY), and needs
 * a writable mapping.  Another process's export is not: ENXIO (it is a
 * dma-buf to this process, registered as DMABUF).
 */
static void test_register_export_mapping(void **state)
{
	const uint64_t len = 2 * MiB, win = 128 * 1024;
	const uint64_t at = MiB + 256 * 1024 + PAGE;	/* in the allocation */
	uint8_t token[16];
	uint64_t h, h2;
	struct exporter e;
	struct peer p;
	struct devbuf b;
	char *view, *ro, *foreign;
	int fd = memtest_open(), dfd, edfd;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, len, &b), 0);
	fill(b.map, len, 1);
	/* the second MiB, mapped from its 256 KiB on */
	dfd = dev_export(fd, b.handle, MiB, MiB, 0);
	assert_true(dfd >= 0);
	view = mmap(NULL, 512 * 1024, PROT_READ | PROT_WRITE, MAP_SHARED, dfd,
		    256 * 1024);
	assert_true(view != MAP_FAILED);
	assert_int_equal(reg_device(fd, view + PAGE, win, &h), 0);

	/* another file reads and writes it through a grant */
	assert_int_equal(grant(fd, h, token), 0);
	peer_open(&p, token, win);
	assert_int_equal(memtest_transfer(p.fd, MEMREG_XFER_READ, p.lh, p.host, p.rh,
					  (uintptr_t)view + PAGE, win), 0);
	assert_memory_equal(p.host, b.map + at, win);
	fill(p.host, win, 2);
	assert_int_equal(memtest_transfer(p.fd, MEMREG_XFER_WRITE, p.lh, p.host, p.rh,
					  (uintptr_t)view + PAGE, win), 0);
	assert_memory_equal(b.map + at, p.host, win);
	peer_close(&p);

	/* registered: the allocation cannot be freed */
	assert_int_equal(dev_free(fd, b.handle), -EBUSY);

	/* a read-only mapping cannot take peers' writes */
	ro = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, dfd, 0);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(reg_device(fd, ro, PAGE, &h2), -EACCES);
	munmap(ro, PAGE);

	/* another process's export: not our device memory */
	edfd = exporter_start(&e, MiB);
	assert_true(edfd >= 0);
	foreign = mmap(NULL, MiB, PROT_READ | PROT_WRITE, MAP_SHARED, edfd, 0);
	assert_true(foreign != MAP_FAILED);
	assert_int_equal(reg_device(fd, foreign, MiB, &h2), -ENXIO);
	munmap(foreign, MiB);
	close(edfd);
	exporter_stop(&e);

	assert_int_equal(memtest_unregister(fd, h), 0);
	assert_int_equal(dev_free(fd, b.handle), 0);
	/* revoked now: the old mapping is no device memory any more */
	assert_int_equal(reg_device(fd, view, PAGE, &h2), -ENXIO);
	munmap(view, 512 * 1024);
	munmap(b.map, b.len);
	close(dfd);
	close(fd);
	assert_no_leak();
}

/* A part of an allocation: offset and length are the dma-buf's own. */
static void test_export_part(void **state)
{
	struct devbuf b;
	char *view;
	int fd = memtest_open(), dfd;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, 4 * MiB, &b), 0);
	fill(b.map, b.len, 1);
	dfd = dev_export(fd, b.handle, MiB, 100, 0);
	assert_true(dfd >= 0);
	/* 100 bytes make one page */
	assert_int_equal(lseek(dfd, 0, SEEK_END), (off_t)PAGE);
	view = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, dfd, 0);
	assert_true(view != MAP_FAILED);
	assert_memory_equal(view, b.map + MiB, PAGE);
	/* registrations are checked against the dma-buf's size */
	assert_int_equal(reg_dmabuf(fd, dfd, 0, PAGE, NULL), 0);
	assert_int_equal(reg_dmabuf(fd, dfd, 0, PAGE + 1, NULL), -ERANGE);
	munmap(view, PAGE);
	munmap(b.map, b.len);
	close(fd);		/* frees, unregisters; the dma-buf stays */
	close(dfd);
	assert_no_leak();
}

/*
 * Freed with MEMREG_DEV_FREE_KEEP_EXPORTS: the handle is gone, the
 * dma-buf and what other processes made of it stay valid, and the device
 * bytes are given back only when the last of them goes.
 */
static void test_free_keep_exports(void **state)
{
	const uint64_t len = MiB;
	struct memreg_dev_info di = { .size = sizeof(di), .device = 0 };
	struct holder hd;
	struct peer p;
	struct devbuf b;
	char *view;
	int fd = memtest_open(), dfd;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, len, &b), 0);
	fill(b.map, len, 1);
	dfd = dev_export(fd, b.handle, 0, len, MEMREG_EXPORT_CLOEXEC);
	assert_true(dfd >= 0);
	munmap(b.map, b.len);
	holder_start(&hd, dfd, len);
	assert_int_equal(dev_free_flags(fd, b.handle, 1U << 5), -EINVAL);
	assert_int_equal(dev_free_flags(fd, b.handle,
					MEMREG_DEV_FREE_KEEP_EXPORTS), 0);
	/* the handle is gone, not the memory */
	assert_int_equal(dev_free(fd, b.handle), -ENOENT);
	assert_int_equal(dev_export(fd, b.handle, 0, len, 0), -ENOENT);
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	assert_true(view != MAP_FAILED);
	peer_open(&p, hd.token, len);
	check_copies(&p, view);
	peer_close(&p);
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_INFO, &di), 0);
	assert_int_equal(di.used, len);
	/* the exporting process's file may go too */
	close(fd);
	holder_stop(&hd);
	munmap(view, len);
	close(dfd);
	assert_no_leak();
}

/* ---- hostile input: one errno each ---- */

static void test_hostile(void **state)
{
	struct devbuf b;
	int fd = memtest_open(), dfd, closed, mfd;
	uint8_t token[16] = { 0 };

	(void)state;
	assert_int_equal(dev_alloc_map(fd, MiB, &b), 0);
	dfd = dev_export(fd, b.handle, 0, MiB, 0);
	assert_true(dfd >= 0);

	/* a closed fd (one no later open can take) */
	closed = 1000;
	close(closed);
	assert_int_equal(reg_dmabuf(fd, closed, 0, PAGE, NULL), -EBADF);
	/* an fd that is not a dma-buf */
	mfd = memfd_create("not-a-dmabuf", MFD_CLOEXEC);
	assert_true(mfd >= 0);
	assert_int_equal(ftruncate(mfd, MiB), 0);
	assert_int_equal(reg_dmabuf(fd, mfd, 0, PAGE, NULL), -EINVAL);
	/* an offset past the end, a range past the end, one that wraps */
	assert_int_equal(reg_dmabuf(fd, dfd, MiB, PAGE, NULL), -ERANGE);
	assert_int_equal(reg_dmabuf(fd, dfd, MiB - PAGE, 2 * PAGE, NULL),
			 -ERANGE);
	assert_int_equal(reg_dmabuf(fd, dfd, ~0ULL - 10, 20, NULL), -EINVAL);
	/* an fd for a type that takes none */
	{
		struct memreg_register r = {
			.size = sizeof(r), .type = MEMREG_MEM_HOST,
			.addr = (uintptr_t)b.map, .len = PAGE, .fd = dfd,
		};

		assert_int_equal(ioctl(fd, MEMREG_IOC_REGISTER, &r), -1);
		assert_int_equal(errno, EINVAL);
	}

	/* exports: unknown handle, unaligned, outside, unknown flag */
	assert_int_equal(dev_export(fd, b.handle ^ (1ULL << 40), 0, PAGE, 0),
			 -ENOENT);
	assert_int_equal(dev_export(fd, b.handle, 100, PAGE, 0), -EINVAL);
	assert_int_equal(dev_export(fd, b.handle, 0, 0, 0), -EINVAL);
	assert_int_equal(dev_export(fd, b.handle, PAGE, MiB, 0), -ERANGE);
	assert_int_equal(dev_export(fd, b.handle, 0, PAGE, 1U << 7), -EINVAL);

	/* names: of a non-dma-buf, of a closed fd, a pid that is not there */
	assert_int_equal(ipc_export(fd, mfd, 0, token), -EINVAL);
	assert_int_equal(ipc_export(fd, closed, 0, token), -EBADF);
	assert_int_equal(ipc_export(fd, dfd, 0, token), 0);
	assert_int_equal(ipc_allow(fd, token, 0x3ffffff0), -ESRCH);
	assert_int_equal(ipc_allow(fd, token, -1), -ESRCH);
	assert_int_equal(ipc_close(fd, token), 0);
	assert_int_equal(ipc_close(fd, token), -ENOENT);
	assert_int_equal(ipc_import(fd, token, NULL), -ENOENT);

	close(mfd);
	close(dfd);
	munmap(b.map, b.len);
	close(fd);
	assert_no_leak();
}

/* ---- named dma-bufs between processes ---- */

/* A child that tries to import @token; exits with the errno (0: it could). */
static pid_t try_import(const uint8_t *token, int go)
{
	pid_t pid = fork();
	char c;

	assert_true(pid >= 0);
	if (!pid) {
		int fd, dfd;
		uint64_t len = 0;
		char *p;

		if (go >= 0 && read(go, &c, 1) != 1)
			_exit(100);
		fd = memtest_open();
		dfd = ipc_import(fd, token, &len);
		if (dfd < 0)
			_exit(-dfd);
		/* it is the same memory: seed 1 from the exporter */
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, dfd, 0);
		if (p == MAP_FAILED || len != MiB || !same(p, len, 1))
			_exit(101);
		if (reg_dmabuf(fd, dfd, 0, len, NULL))
			_exit(102);
		_exit(0);
	}
	return pid;
}

static int import_status(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_ipc_names(void **state)
{
	struct devbuf b;
	int fd = memtest_open(), dfd, go[2];
	uint8_t token[16] = { 0 }, open_token[16] = { 0 };
	pid_t pid;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, MiB, &b), 0);
	fill(b.map, MiB, 1);
	dfd = dev_export(fd, b.handle, 0, MiB, MEMREG_EXPORT_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(ipc_export(fd, dfd, 0, token), 0);
	assert_int_equal(ipc_export(fd, dfd, MEMREG_IPC_ANY_PID, open_token),
			 0);
	/* the dma-buf lives on in the names: the exporter's fd may go */
	close(dfd);

	/* not named: EPERM; named: it gets its own fd of the buffer */
	assert_int_equal(import_status(try_import(token, -1)), EPERM);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	pid = try_import(token, go[0]);
	assert_int_equal(ipc_allow(fd, token, pid), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(import_status(pid), 0);
	close(go[0]);
	close(go[1]);
	/* anyone, with the open name */
	assert_int_equal(import_status(try_import(open_token, -1)), 0);
	/* a short token (64-bit handles): its last 8 bytes are zero */
	{
		uint8_t short_token[16], zero[8] = { 0 };
		int d2 = dev_export(fd, b.handle, 0, MiB, 0);

		assert_true(d2 >= 0);
		assert_int_equal(ipc_export(fd, d2, MEMREG_IPC_ANY_PID |
					    MEMREG_IPC_SHORT_TOKEN,
					    short_token), 0);
		close(d2);
		assert_memory_equal(short_token + 8, zero, 8);
		assert_int_equal(import_status(try_import(short_token, -1)),
				 0);
		assert_int_equal(ipc_close(fd, short_token), 0);
	}
	/* another process is still refused */
	assert_int_equal(import_status(try_import(token, -1)), EPERM);

	/* closed: no more imports */
	assert_int_equal(ipc_close(fd, open_token), 0);
	assert_int_equal(import_status(try_import(open_token, -1)), ENOENT);
	/* the other name goes with the file */
	munmap(b.map, b.len);
	close(fd);
	assert_int_equal(import_status(try_import(token, -1)), ENOENT);
	assert_no_leak();
}

/* ---- revocation and kill -9 in the middle of transfers ---- */

struct pump {
	struct peer *p;
	long ok;		/* transfers that succeeded, all checked */
	long bad;		/* succeeded with wrong bytes: must stay 0 */
	int err;		/* how the first failure ended it */
	volatile int stop;
};

/* Read the dma-buf over and over; every read that succeeds is checked. */
static void *pump_main(void *arg)
{
	struct pump *u = arg;
	struct peer *p = u->p;

	while (!u->stop) {
		memset(p->host, 0, p->len);
		u->err = memtest_transfer(p->fd, MEMREG_XFER_READ, p->lh, p->host,
					  p->rh, 0, p->len);
		if (u->err)
			break;
		if (same(p->host, p->len, 1))
			u->ok++;
		else
			u->bad++;
	}
	return NULL;
}

static void wait_for_copies(struct pump *u, long n)
{
	while (u->ok < n && !u->err)
		usleep(1000);
}

enum how { BY_FREE, BY_EXPORTER_KILL, BY_HOLDER_KILL };

static void revoke_during_transfers(enum how how)
{
	const uint64_t len = 4 * MiB;
	struct exporter e;
	struct holder hd;
	struct peer p;
	struct pump u = { .p = &p };
	pthread_t t;
	char *view;
	int dfd;

	dfd = exporter_start(&e, len);
	assert_true(dfd >= 0);
	view = mmap(NULL, len, PROT_READ, MAP_SHARED, dfd, 0);
	assert_true(view != MAP_FAILED);
	holder_start(&hd, dfd, len);
	peer_open(&p, hd.token, len);

	assert_int_equal(pthread_create(&t, NULL, pump_main, &u), 0);
	wait_for_copies(&u, 3);
	switch (how) {
	case BY_FREE:
		exporter_free(&e);
		break;
	case BY_EXPORTER_KILL:
		kill(e.pid, SIGKILL);
		reap(e.pid, SIGKILL);
		break;
	case BY_HOLDER_KILL:
		kill(hd.pid, SIGKILL);
		reap(hd.pid, SIGKILL);
		break;
	}
	/* the next transfer at the latest fails */
	pthread_join(t, NULL);
	assert_true(u.ok >= 3);
	assert_int_equal(u.bad, 0);
	if (how == BY_HOLDER_KILL) {
		/*
		 * the registration went with its process, the grant with it
		 * (EOWNERDEAD), unless the export's revocation was seen first
		 */
		assert_true(u.err == -EOWNERDEAD || u.err == -EKEYREVOKED ||
			    u.err == -ENOENT);
	} else {
		assert_int_equal(u.err, -EKEYREVOKED);
		/* new CPU mappings are refused, old ones fault */
		assert_true(mmap(NULL, len, PROT_READ, MAP_SHARED, dfd, 0) ==
			    MAP_FAILED);
		pid_t child = fork();

		assert_true(child >= 0);
		if (!child) {
			/* not cmocka's handler: the default, a death */
			signal(SIGBUS, SIG_DFL);
			_exit(view[PAGE] == 42 ? 1 : 2);
		}
		reap(child, SIGBUS);
	}
	peer_close(&p);
	munmap(view, len);
	close(dfd);
	if (how == BY_HOLDER_KILL) {
		close(hd.cmd);
		close(hd.ans);
		exporter_stop(&e);
	} else {
		holder_stop(&hd);
		if (how == BY_FREE)
			exporter_stop(&e);
		else
			close(e.sock);
	}
	assert_no_leak();
}

static void test_revoke_by_free(void **state)
{
	(void)state;
	revoke_during_transfers(BY_FREE);
}

static void test_kill_exporter(void **state)
{
	(void)state;
	revoke_during_transfers(BY_EXPORTER_KILL);
}

static void test_kill_importer(void **state)
{
	(void)state;
	revoke_during_transfers(BY_HOLDER_KILL);
}

/* ---- CPU faults racing a revocation ---- */

/*
 * A thread faults the pages of an export's CPU mapping in over and over
 * (MADV_DONTNEED drops them again) while the allocation is freed.  Once
 * DEV_FREE has returned, no page of the mapping may be readable: a fault
 * that checked before the revocation must not map its page after the
 * revocation's zap.  SIGBUS is caught (sigsetjmp) in both threads.
 */
#define FAULT_PAGES 16

static __thread sigjmp_buf *bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	if (bus_jmp)
		siglongjmp(*bus_jmp, 1);
	abort();
}

struct faulter {
	volatile char *view;
	volatile int stop;
	unsigned long faults;
	int revoked;		/* it saw SIGBUS */
};

static void *faulter_main(void *arg)
{
	struct faulter *f = arg;
	sigjmp_buf jb;
	unsigned long i;

	bus_jmp = &jb;
	if (sigsetjmp(jb, 1)) {
		f->revoked = 1;
		return NULL;
	}
	while (!f->stop) {
		madvise((void *)f->view, FAULT_PAGES * PAGE, MADV_DONTNEED);
		for (i = 0; i < FAULT_PAGES; i++)
			(void)f->view[i * PAGE];
		f->faults++;
	}
	return NULL;
}

/* Is the page at @p readable (not SIGBUS)? */
static int readable(volatile char *p)
{
	sigjmp_buf jb;
	int ok = 0;

	bus_jmp = &jb;
	if (!sigsetjmp(jb, 1)) {
		(void)*p;
		ok = 1;
	}
	bus_jmp = NULL;
	return ok;
}

static void test_fault_vs_revoke(void **state)
{
	const char *k = getenv("MEMREG_VM_KERNEL");
	/* the debug kernel (KASAN, lockdep) is several times slower */
	int rounds = k && !strcmp(k, "debug") ? 40 : 150;
	struct sigaction sa = { .sa_handler = on_bus }, old;
	unsigned long faults = 0;
	int fd, r, seen = 0;

	(void)state;
	fd = memtest_open();
	assert_int_equal(sigaction(SIGBUS, &sa, &old), 0);
	for (r = 0; r < rounds; r++) {
		struct faulter f = { 0 };
		struct devbuf b;
		pthread_t t;
		char *view;
		int dfd, i;

		assert_int_equal(dev_alloc_map(fd, FAULT_PAGES * PAGE, &b), 0);
		memset(b.map, 7, FAULT_PAGES * PAGE);
		munmap(b.map, b.len);
		dfd = dev_export(fd, b.handle, 0, FAULT_PAGES * PAGE, 0);
		assert_true(dfd >= 0);
		view = mmap(NULL, FAULT_PAGES * PAGE, PROT_READ, MAP_SHARED,
			    dfd, 0);
		assert_true(view != MAP_FAILED);
		f.view = view;
		assert_int_equal(pthread_create(&t, NULL, faulter_main, &f), 0);
		/* let it fault a while: 0 to ~2 ms, a different point each round */
		usleep((r * 137) % 2000);
		assert_int_equal(dev_free(fd, b.handle), 0);
		for (i = 0; i < FAULT_PAGES; i++)
			if (readable(view + i * PAGE))
				fail_msg("round %d: page %d of a revoked export is still mapped after DEV_FREE",
					 r, i);
		f.stop = 1;
		pthread_join(t, NULL);
		faults += f.faults;
		seen += f.revoked;
		munmap(view, FAULT_PAGES * PAGE);
		close(dfd);
	}
	sigaction(SIGBUS, &old, NULL);
	print_message("# %d rounds, %lu fault passes, the faulting thread got SIGBUS in %d\n",
		      rounds, faults, seen);
	/* the race was run: the faulter was inside its loop at the free */
	assert_true(seen > 0);
	close(fd);
	assert_no_leak();
}

/* ---- limits: dma-buf bytes are device bytes ---- */

static void test_limits(void **state)
{
	char cmd[128];
	struct devbuf b;
	int fd, dfd;

	(void)state;
	if (geteuid() != 0)
		skip();		/* only an administrator sets limits */
	fd = memtest_open();
	assert_int_equal(dev_alloc_map(fd, 4 * MiB, &b), 0);
	dfd = dev_export(fd, b.handle, 0, 4 * MiB, 0);
	assert_true(dfd >= 0);
	snprintf(cmd, sizeof(cmd), "memreg limits set pid %d dev 2M",
		 getpid());
	assert_int_equal(system(cmd), 0);
	assert_int_equal(reg_dmabuf(fd, dfd, 0, 3 * MiB, NULL), -ENOSPC);
	assert_int_equal(reg_dmabuf(fd, dfd, 0, MiB, NULL), 0);
	assert_int_equal(reg_dmabuf(fd, dfd, MiB, MiB, NULL), 0);
	/* the limit is full now: one more byte is refused */
	assert_int_equal(reg_dmabuf(fd, dfd, 2 * MiB, 1, NULL), -ENOSPC);
	close(dfd);
	munmap(b.map, b.len);
	close(fd);
	assert_no_leak();
}

/* ---- other drivers' dma-bufs ---- */

/* Does the running kernel's udmabuf give a kernel mapping (vmap)? */
static int udmabuf_has_vmap(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " vmap_udmabuf") != NULL;
	fclose(f);
	return found;
}

static void copies_across(int dfd, uint64_t len, char *view)
{
	struct holder hd;
	struct peer p;

	holder_start(&hd, dfd, len);
	peer_open(&p, hd.token, len);
	check_copies(&p, view);
	peer_close(&p);
	holder_stop(&hd);
}

static void test_udmabuf(void **state)
{
	const uint64_t len = MiB;
	struct udmabuf_create c = { .size = len };
	int ufd, mfd, dfd, vmap;
	struct holder hd;
	struct peer p;
	char *view;

	(void)state;
	ufd = open("/dev/udmabuf", O_RDWR | O_CLOEXEC);
	if (ufd < 0) {
		print_message("cannot open /dev/udmabuf (%s): the other "
			      "tests use memreg's own export\n",
			      strerror(errno));
		skip();
	}
	mfd = memfd_create("itest", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	assert_true(mfd >= 0);
	assert_int_equal(ftruncate(mfd, len), 0);
	assert_int_equal(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	assert_true(view != MAP_FAILED);
	fill(view, len, 1);
	c.memfd = mfd;
	c.flags = UDMABUF_FLAGS_CLOEXEC;
	dfd = ioctl(ufd, UDMABUF_CREATE, &c);
	assert_true(dfd >= 0);

	vmap = udmabuf_has_vmap();
	if (vmap) {
		copies_across(dfd, len, view);
	} else {
		/* registered and charged, but no CPU access: EOPNOTSUPP */
		print_message("udmabuf has no vmap on this kernel: TRANSFER "
			      "must be refused\n");
		holder_start(&hd, dfd, len);
		peer_open(&p, hd.token, len);
		assert_int_equal(memtest_transfer(p.fd, MEMREG_XFER_READ, p.lh, p.host,
						  p.rh, 0, PAGE), -EOPNOTSUPP);
		peer_close(&p);
		holder_stop(&hd);
	}
	munmap(view, len);
	close(dfd);
	close(mfd);
	close(ufd);
	assert_no_leak();
}

static void test_system_heap(void **state)
{
	const uint64_t len = MiB;
	struct dma_heap_allocation_data a = {
		.len = len, .fd_flags = O_RDWR | O_CLOEXEC,
	};
	int hfd;
	char *view;

	(void)state;
	hfd = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);
	if (hfd < 0) {
		print_message("cannot open /dev/dma_heap/system (%s): the other "
			      "exporter tests use memreg's own export\n",
			      strerror(errno));
		skip();
	}
	assert_int_equal(ioctl(hfd, DMA_HEAP_IOCTL_ALLOC, &a), 0);
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	assert_true(view != MAP_FAILED);
	fill(view, len, 1);
	copies_across(a.fd, len, view);
	munmap(view, len);
	close(a.fd);
	close(hfd);
	assert_no_leak();
}

/* The lowest free descriptor number: the one a new fd would take. */
static int next_fd(void)
{
	int fd = dup(0);

	assert_true(fd >= 0);
	close(fd);
	return fd;
}

/*
 * DEV_EXPORT and IPC_IMPORT put their descriptor in the table only once
 * the result has reached the caller: with a struct the kernel may read
 * but not write back, each fails with EFAULT and leaves no descriptor (a
 * program could not have learnt its number, nor closed it) and no
 * dma-buf; the same calls on a writable struct then succeed.
 */
static void test_fd_after_copy_out(void **state)
{
	struct memreg_ipc_import *im;
	struct memreg_dev_export *e;
	uint8_t token[16] = { 0 };
	struct devbuf b;
	int fd = memtest_open(), dfd, ifd, free_fd;
	char *ro;

	(void)state;
	assert_int_equal(dev_alloc_map(fd, MiB, &b), 0);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	e = (struct memreg_dev_export *)ro;
	e->size = sizeof(*e);
	e->handle = b.handle;
	e->len = MiB;
	im = (struct memreg_ipc_import *)(ro + 512);
	im->size = sizeof(*im);
	assert_int_equal(mprotect(ro, PAGE, PROT_READ), 0);

	free_fd = next_fd();
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_EXPORT, e), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(next_fd(), free_fd);

	dfd = dev_export(fd, b.handle, 0, MiB, MEMREG_EXPORT_CLOEXEC);
	assert_true(dfd >= 0);
	assert_int_equal(ipc_export(fd, dfd, MEMREG_IPC_ANY_PID, token), 0);
	assert_int_equal(mprotect(ro, PAGE, PROT_READ | PROT_WRITE), 0);
	memcpy(im->token, token, sizeof(token));
	assert_int_equal(mprotect(ro, PAGE, PROT_READ), 0);
	free_fd = next_fd();
	assert_int_equal(ioctl(fd, MEMREG_IOC_IPC_IMPORT, im), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(next_fd(), free_fd);

	/* the name is still there, and an import that can answer gets it */
	ifd = ipc_import(fd, token, NULL);
	assert_int_equal(ifd, free_fd);
	close(ifd);
	assert_int_equal(ipc_close(fd, token), 0);
	close(dfd);
	munmap(ro, PAGE);
	munmap(b.map, b.len);
	assert_int_equal(dev_free(fd, b.handle), 0);
	close(fd);
	assert_no_leak();
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_export_roundtrip),
		T(test_export_part),
		T(test_register_export_mapping),
		T(test_free_keep_exports),
		T(test_hostile),
		T(test_ipc_names),
		T(test_fd_after_copy_out),
		T(test_revoke_by_free),
		T(test_fault_vs_revoke),
		T(test_kill_exporter),
		T(test_kill_importer),
		T(test_limits),
		T(test_udmabuf),
		T(test_system_heap),
	};

	return cmocka_run_group_tests_name("dmabuf", tests, NULL, NULL);
}
