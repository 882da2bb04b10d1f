// SPDX-License-Identifier: GPL-2.0
/*
 * Host registrations as dma-bufs (MEMREG_IOC_REG_EXPORT): register once,
 * pin once.
 *
 * What a user checks: another process that gets the fd sees and changes
 * the registration's bytes (mmap, and copies through a DMABUF
 * registration of it), and no page was pinned a second time for it; when
 * the exporter unregisters, closes or exits, the importer's mapping faults
 * and its copies are refused, and the pages are unpinned once the last
 * holder lets go; a user's exports cannot leave more than its
 * RLIMIT_MEMLOCK pinned behind processes that are gone; bad requests get
 * their errno and leave nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
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

/*
 * A dma-buf's last reference may go a moment after its holder did (an
 * exiting process's files are put by the kernel's delayed fput): wait up
 * to 5 s for this process's VmPin, and the system's pins, to be @kb and
 * @pins (-1: any).
 */
static void wait_unpinned(long long kb, long long pins)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (memtest_vmpin_kb() == kb &&
		    (pins < 0 || memtest_pins_held() == pins))
			return;
		usleep(10000);
	}
	assert_int_equal(memtest_vmpin_kb(), kb);
	if (pins >= 0)
		assert_int_equal(memtest_pins_held(), pins);
}

/* Nothing of the test is pinned any more, by any process. */
static int teardown(void **state)
{
	(void)state;
	wait_unpinned(0, pins_at_start);
	return 0;
}

/* ---- raw ioctls ---- */

static int reg_host(int fd, void *addr, uint64_t len, uint32_t access,
		    uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_HOST,
		.addr = (uintptr_t)addr, .len = len, .access = access,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	*handle = r.handle;
	return 0;
}

/* A dma-buf of [@off, @off + @len) of registration @handle; fd or -errno. */
static int reg_export(int fd, uint64_t handle, uint64_t off, uint64_t len)
{
	struct memreg_reg_export e = {
		.size = sizeof(e), .flags = MEMREG_EXPORT_CLOEXEC,
		.handle = handle, .offset = off, .len = len,
	};

	return ioctl(fd, MEMREG_IOC_REG_EXPORT, &e) ? -errno : e.fd;
}

static int reg_dmabuf(int fd, int dfd, uint64_t len, uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_DMABUF, .addr = 0,
		.len = len, .access = MEMREG_ACCESS_ALL, .fd = dfd,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	*handle = r.handle;
	return 0;
}

/* An import handle of this process's own registration @handle. */
static int self_import(int fd, uint64_t handle, uint64_t *import)
{
	struct memreg_grant g = {
		.size = sizeof(g), .access = MEMREG_ACCESS_ALL,
		.handle = handle,
	};
	struct memreg_import im = { .size = sizeof(im) };

	if (ioctl(fd, MEMREG_IOC_GRANT, &g))
		return -errno;
	memcpy(im.token, g.token, sizeof(im.token));
	if (ioctl(fd, MEMREG_IOC_IMPORT, &im))
		return -errno;
	*import = im.handle;
	return 0;
}

/* ---- the importing process ---- */

/* A child's exit status, 128 + the signal that ended it. */
static int reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* In a child: read every page of @view; a SIGBUS ends it. */
static int read_in_child(const volatile char *view, uint64_t len)
{
	pid_t pid = fork();
	uint64_t i;

	assert_true(pid >= 0);
	if (!pid) {
		/* cmocka's handler would carry on with the tests in here */
		signal(SIGBUS, SIG_DFL);
		for (i = 0; i < len; i += PAGE)
			(void)view[i];
		_exit(0);
	}
	return reap(pid);
}

/*
 * The second process: its own context, a DMABUF registration of @dfd and
 * a host buffer of its own, copies both ways, a CPU mapping; it answers
 * on @sock after each step the parent asks for.
 */
enum { STEP_COPY = 1, STEP_AFTER_REVOKE, STEP_QUIT };

static int importer_main(int sock, int dfd, uint64_t len)
{
	uint64_t dh = 0, imp = 0, lh = 0;
	char *own, *view;
	int fd = memtest_open(), err = 0;
	char step, ok;

	own = memtest_map(MEMTEST_ANON, len);
	view = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, dfd, 0);
	if (fd < 0 || !own || view == MAP_FAILED ||
	    reg_dmabuf(fd, dfd, len, &dh) || self_import(fd, dh, &imp) ||
	    reg_host(fd, own, len, MEMREG_ACCESS_ALL, &lh))
		return 10;
	while (read(sock, &step, 1) == 1) {
		ok = 0;
		switch (step) {
		case STEP_COPY:
			/* the exporter wrote seed 1; READ it, WRITE seed 2 */
			memset(own, 0, len);
			if (memtest_transfer(fd, MEMREG_XFER_READ, lh, own, imp, 0,
					     len) || !memtest_same(own, len, 1) ||
				    !memtest_same(view, len, 1))
					break;
			memtest_fill(own, len, 2);
			if (memtest_transfer(fd, MEMREG_XFER_WRITE, lh, own, imp, 0,
					     len))
					break;
			/* and one page through the mapping: seed 3 */
			memtest_fill(view + len - PAGE, PAGE, 3);
			ok = 1;
			break;
		case STEP_AFTER_REVOKE:
			/* copies refused, the mapping faults, no new one */
			err = memtest_transfer(fd, MEMREG_XFER_READ, lh, own, imp, 0,
					       PAGE);
			ok = err == -EKEYREVOKED &&
			     read_in_child(view, PAGE) == 128 + SIGBUS &&
			     mmap(NULL, PAGE, PROT_READ, MAP_SHARED, dfd, 0) ==
			     MAP_FAILED && errno == ENODEV &&
			     reg_dmabuf(fd, dfd, PAGE, &dh) == -ENODEV;
			if (!ok)
				fprintf(stderr, "importer: transfer %d\n", err);
			break;
		case STEP_QUIT:
			return 0;
		}
		if (write(sock, &ok, 1) != 1)
			return 11;
	}
	return 12;
}

struct importer {
	pid_t pid;
	int sock;
};

static void importer_start(struct importer *im, int dfd, uint64_t len)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	im->pid = fork();
	assert_true(im->pid >= 0);
	if (!im->pid) {
		close(sv[0]);
		_exit(importer_main(sv[1], dfd, len));
	}
	close(sv[1]);
	im->sock = sv[0];
}

/* Ask for @step: 1 if the importer says it went as it should. */
static int importer_step(struct importer *im, char step)
{
	char ok = 0;

	assert_int_equal(write(im->sock, &step, 1), 1);
	return read(im->sock, &ok, 1) == 1 && ok;
}

static void importer_stop(struct importer *im)
{
	char step = STEP_QUIT;

	assert_int_equal(write(im->sock, &step, 1), 1);
	assert_int_equal(reap(im->pid), 0);
	close(im->sock);
}

/* ---- the tests ---- */

/*
 * Export, import in a second process, bytes both ways; the pages pinned
 * once: the export and the importer's DMABUF registration and mapping
 * pin nothing (the importer's own host buffer is the only new pin), and
 * VmPin of the exporter does not move.  Unregistering revokes, and the
 * pages are unpinned only when the importer lets go.
 */
static void test_export_import_pins_once(void **state)
{
	const uint64_t len = memtest_pin_room(8 * MiB) / 2 & ~(PAGE - 1);
	long long acquired, vmpin;
	struct importer im;
	uint64_t h = 0;
	char *buf;
	int fd = memtest_open(), dfd;

	(void)state;
	buf = memtest_map(MEMTEST_ANON, len);
	assert_non_null(buf);
	assert_int_equal(reg_host(fd, buf, len, MEMREG_ACCESS_ALL, &h), 0);
	memtest_fill(buf, len, 1);
	vmpin = memtest_vmpin_kb();
	assert_int_equal(vmpin, (long long)(len >> 10));
	acquired = memtest_pins_acquired();

	dfd = reg_export(fd, h, 0, len);
	assert_true(dfd >= 0);
	importer_start(&im, dfd, len);
	assert_true(importer_step(&im, STEP_COPY));
	/* the importer's writes are in the registered memory itself */
	assert_true(memtest_same(buf, len - PAGE, 2));
	assert_true(memtest_same(buf + len - PAGE, PAGE, 3));
	/* one pin: the importer's own buffer, nothing for the export */
	print_message("%llu KiB exported and copied both ways by a second process: %lld pins taken (its own buffer: %llu pages), VmPin %lld kB before and after\n",
		      (unsigned long long)(len >> 10),
		      acquired >= 0 ? memtest_pins_acquired() - acquired : -1,
		      (unsigned long long)(len / PAGE), memtest_vmpin_kb());
	if (acquired >= 0)
		assert_int_equal(memtest_pins_acquired() - acquired,
				 (long long)(len / PAGE));
	assert_int_equal(memtest_vmpin_kb(), vmpin);

	/* unregistered: revoked for the importer, the pages still held */
	assert_int_equal(memtest_unregister(fd, h), 0);
	close(dfd);
	assert_true(importer_step(&im, STEP_AFTER_REVOKE));
	assert_int_equal(memtest_vmpin_kb(), vmpin);
	importer_stop(&im);
	/* the last holder is gone: unpinned and uncharged */
	wait_unpinned(0, -1);
	close(fd);
	memtest_unmap(buf, len);
}

/*
 * Part of a registration, of a slice registered inside another (a child,
 * which pinned nothing itself), at an unaligned address: the dma-buf is
 * the whole pages from the registration's first page at @offset.
 */
static void test_export_slice_pages(void **state)
{
	const uint64_t len = 2 * MiB;
	uint64_t whole = 0, slice = 0;
	long long acquired;
	char *buf, *view;
	int fd = memtest_open(), dfd, i;

	(void)state;
	buf = memtest_map(MEMTEST_ANON, len);
	assert_non_null(buf);
	memtest_fill(buf, len, 5);
	assert_int_equal(reg_host(fd, buf, len, MEMREG_ACCESS_ALL, &whole), 0);
	acquired = memtest_pins_acquired();
	/* bytes [64 KiB + 100, 64 KiB + 100 + 40 KiB): 11 pages spanned */
	assert_int_equal(reg_host(fd, buf + 64 * 1024 + 100, 40 * 1024,
				  MEMREG_ACCESS_ALL, &slice), 0);
	dfd = reg_export(fd, slice, 2 * PAGE, 3 * PAGE);
	assert_true(dfd >= 0);
	if (acquired >= 0)
		assert_int_equal(memtest_pins_acquired(), acquired);
	view = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, dfd,
		    0);
	assert_true(view != MAP_FAILED);
	assert_memory_equal(view, buf + 64 * 1024 + 2 * PAGE, 3 * PAGE);
	/* the last page spanned is inside, one more is not */
	i = reg_export(fd, slice, 10 * PAGE, PAGE);
	assert_true(i >= 0);
	close(i);
	assert_int_equal(reg_export(fd, slice, 11 * PAGE, PAGE), -ERANGE);
	/* unregistering the whole leaves the slice's export alone */
	assert_int_equal(memtest_unregister(fd, whole), 0);
	assert_int_equal(read_in_child(view, 3 * PAGE), 0);
	/* the slice's own unregistration revokes it */
	assert_int_equal(memtest_unregister(fd, slice), 0);
	assert_int_equal(read_in_child(view, PAGE), 128 + SIGBUS);
	munmap(view, 3 * PAGE);
	close(dfd);
	close(fd);
	memtest_unmap(buf, len);
}

/* Every refusal, and its errno; none leaves a file or a pin behind. */
static void test_refusals(void **state)
{
	uint64_t h = 0, ro = 0, dh = 0;
	char *buf = memtest_map(MEMTEST_ANON, 4 * PAGE);
	int fd = memtest_open(), dfd, before;
	struct memreg_reg_export e = {
		.size = sizeof(e), .len = PAGE,
	};

	(void)state;
	assert_non_null(buf);
	assert_int_equal(reg_host(fd, buf, 2 * PAGE, MEMREG_ACCESS_ALL, &h), 0);
	assert_int_equal(reg_host(fd, buf + 2 * PAGE, 2 * PAGE,
				  MEMREG_ACCESS_REMOTE_READ, &ro), 0);
	before = dup(0);
	close(before);

	assert_int_equal(reg_export(fd, h + (1ULL << 32), 0, PAGE), -ENOENT);
	assert_int_equal(reg_export(fd, ro, 0, PAGE), -EACCES);
	assert_int_equal(reg_export(fd, h, 100, PAGE), -EINVAL);
	assert_int_equal(reg_export(fd, h, 0, 0), -EINVAL);
	assert_int_equal(reg_export(fd, h, PAGE, 2 * PAGE), -ERANGE);
	assert_int_equal(reg_export(fd, h, 0, UINT64_MAX), -ERANGE);
	e.handle = h;
	e.flags = 1U << 5;
	assert_int_equal(ioctl(fd, MEMREG_IOC_REG_EXPORT, &e), -1);
	assert_int_equal(errno, EINVAL);
	e.flags = 0;
	e.reserved0 = 1;
	assert_int_equal(ioctl(fd, MEMREG_IOC_REG_EXPORT, &e), -1);
	assert_int_equal(errno, EINVAL);

	/* a DMABUF registration is a dma-buf already */
	dfd = reg_export(fd, h, 0, PAGE);
	assert_true(dfd >= 0);
	assert_int_equal(reg_dmabuf(fd, dfd, PAGE, &dh), 0);
	assert_int_equal(reg_export(fd, dh, 0, PAGE), -EOPNOTSUPP);
	/* another process's handle is unknown to it */
	{
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (!pid) {
			int own = memtest_open();

			_exit(reg_export(own, h, 0, PAGE) == -ENOENT ? 0 : 1);
		}
		assert_int_equal(reap(pid), 0);
	}
	close(dfd);
	/* no descriptor was left open by a refusal */
	dfd = dup(0);
	assert_int_equal(dfd, before);
	close(dfd);
	close(fd);
	memtest_unmap(buf, 4 * PAGE);
}

/*
 * The exporting process exits with the fd passed on: the export is
 * revoked at once, the pages stay pinned while it is held.  Without
 * CAP_IPC_LOCK, what a user's exports hold past their processes is
 * bounded by RLIMIT_MEMLOCK: exporters that each stay within their own
 * limit and exit cannot pile up more, ENOMEM says so, and a held fd let
 * go gives the room back.
 */
static void test_exit_revokes_and_user_bound(void **state)
{
	const uint64_t len = MiB;
	struct rlimit rl;
	int held[64], n = 0, i, limited, sv[2], err = 0;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	limited = geteuid() != 0 && rl.rlim_cur != RLIM_INFINITY &&
		  rl.rlim_cur / len < 32;
	for (i = 0; i < (limited ? 64 : 4); i++) {
		char msg = 0;
		struct msghdr mh = { 0 };
		struct iovec iov = { &msg, 1 };
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} c;
		pid_t pid;

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			/* an exporter: register, export, send it, exit */
			char *buf = memtest_map(MEMTEST_ANON, len);
			int fd = memtest_open(), dfd;
			uint64_t h = 0;

			if (!buf || reg_host(fd, buf, len, MEMREG_ACCESS_ALL,
					     &h))
				_exit(10);
			memtest_fill(buf, len, 7);
			dfd = reg_export(fd, h, 0, len);
			msg = dfd < 0 ? (char)-dfd : 0;
			mh.msg_iov = &iov;
			mh.msg_iovlen = 1;
			if (dfd >= 0) {
				mh.msg_control = c.buf;
				mh.msg_controllen = sizeof(c.buf);
				CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
				CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
				CMSG_FIRSTHDR(&mh)->cmsg_len =
					CMSG_LEN(sizeof(int));
				memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &dfd,
				       sizeof(int));
			}
			_exit(sendmsg(sv[1], &mh, 0) == 1 ? 0 : 11);
		}
		close(sv[1]);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		assert_int_equal(recvmsg(sv[0], &mh, 0), 1);
		close(sv[0]);
		assert_int_equal(reap(pid), 0);
		if (msg) {
			err = msg;
			break;
		}
		memcpy(&held[n++], CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
		/* its exporter is gone: revoked, no new mapping */
		assert_true(mmap(NULL, len, PROT_READ, MAP_SHARED,
				 held[n - 1], 0) == MAP_FAILED);
		assert_int_equal(errno, ENODEV);
	}
	if (limited) {
		/* the user's room ran out at its limit, not later */
		print_message("%d exports held at RLIMIT_MEMLOCK %llu\n", n,
			      (unsigned long long)rl.rlim_cur);
		assert_int_equal(err, ENOMEM);
		assert_true((uint64_t)n * len <= rl.rlim_cur);
		assert_true((uint64_t)(n + 2) * len > rl.rlim_cur);
	} else {
		assert_int_equal(err, 0);
	}
	/* their pages are still pinned for us; let go of them */
	if (memtest_pins_held() >= 0 && pins_at_start >= 0)
		assert_int_equal(memtest_pins_held() - pins_at_start,
				 (long long)(n * (len / PAGE)));
	for (i = 0; i < n; i++)
		close(held[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_export_import_pins_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_export_slice_pages,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_exit_revokes_and_user_bound, setup, teardown),
	};
	struct memreg_info info = { .size = sizeof(info) };
	int fd = memtest_open();

	if (fd < 0 || memtest_info(fd, &info) ||
	    !(info.features & MEMREG_FEATURE_REG_EXPORT)) {
		printf("1..0 # SKIP the module has no REG_EXPORT\n");
		return 0;
	}
	close(fd);
	return cmocka_run_group_tests_name("reg_export", tests, NULL, NULL);
}
