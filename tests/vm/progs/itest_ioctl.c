// SPDX-License-Identifier: GPL-2.0
/*
 * itest_ioctl - integration tests of /dev/memreg's ioctls, run in a VM with
 * memreg.ko loaded, as root and as an unprivileged user.
 *
 * Each test checks what a user would: the errno the UAPI header documents,
 * the pins the kernel counts (/proc/vmstat nr_foll_pin_*), VmPin, and that
 * nothing is left behind after an error, an exit or a kill -9.
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
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "memtest.h"

#define MiB (1ULL << 20)

static int is_root(void)
{
	return geteuid() == 0;
}

/* Every test starts and must end with the pins it found. */
static long long pins_at_start;

static int setup(void **state)
{
	(void)state;
	pins_at_start = memtest_pins_held();
	return 0;
}

/*
 * A failed assertion leaves its test's files open; close every /dev/memreg
 * file so that the next test starts with nothing registered.
 */
static int teardown(void **state)
{
	char path[64], target[64];
	ssize_t n;
	int fd;

	(void)state;
	for (fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = 0;
		if (!strcmp(target, "/dev/memreg"))
			close(fd);
	}
	return 0;
}

/*
 * Nothing left pinned: VmPin of this process is exact; the system-wide pin
 * counters are exact only after a vmstat refresh, which needs root (the
 * harness checks them again, as root, after every run).
 */
static void assert_no_leak(void)
{
	if (pins_at_start >= 0)
		assert_int_equal(memtest_pins_held(), pins_at_start);
	assert_int_equal(memtest_vmpin_kb(), 0);
}

static void test_info(void **state)
{
	struct memreg_info info;
	static const uint8_t zero[16];
	int fd = memtest_open();

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.abi_version, MEMREG_ABI_VERSION);
	assert_int_equal(info.page_size, sysconf(_SC_PAGESIZE));
	assert_true(info.features & MEMREG_FEATURE_HOST);
	assert_memory_not_equal(info.instance_id, zero, sizeof(zero));
	assert_true(info.max_regions > 0);
	assert_int_equal(info.regions, 0);
	if (is_root())
		assert_true(info.memlock_limit == MEMREG_UNLIMITED);
	close(fd);
}

/* The same instance id for every process of this boot. */
static void test_info_instance_id_shared(void **state)
{
	struct memreg_info a, b;
	int fd1 = memtest_open(), fd2;
	pid_t pid;
	int pfd[2], st;

	(void)state;
	assert_int_equal(memtest_info(fd1, &a), 0);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		fd2 = memtest_open();
		if (memtest_info(fd2, &b))
			_exit(1);
		_exit(write(pfd[1], b.instance_id, 16) == 16 ? 0 : 1);
	}
	assert_int_equal(read(pfd[0], b.instance_id, 16), 16);
	waitpid(pid, &st, 0);
	assert_memory_equal(a.instance_id, b.instance_id, 16);
	close(pfd[0]);
	close(pfd[1]);
	close(fd1);
}

static void check_kind(enum memtest_kind kind, size_t len,
		       unsigned long long max_pinned_pages)
{
	struct memreg_region r[4];
	struct memreg_query q = {
		.size = sizeof(q), .regions = (uintptr_t)r, .count = 4,
		.entry_size = sizeof(r[0]),
	};
	long long before_acq = memtest_pins_acquired();
	long pages = len / sysconf(_SC_PAGESIZE);
	uint64_t handle;
	int fd = memtest_open();
	char *p = memtest_map(kind, len);

	if (!p) {
		close(fd);
		print_message("# %s memory unavailable here\n",
			      memtest_kind_name(kind));
		skip();
	}
	assert_int_equal(memtest_register(fd, p, len, MEMREG_MEM_HOST,
					  &handle), 0);
	/*
	 * every 4 KiB page is charged once, and pinned once, but a hugetlbfs
	 * page is pinned once as a whole
	 */
	if (before_acq >= 0)
		assert_int_equal(memtest_pins_acquired() - before_acq,
				 kind == MEMTEST_HUGETLB ? len / (2 << 20) :
				 (unsigned long)pages);
	assert_int_equal(memtest_vmpin_kb(), len / 1024);
	assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), 0);
	assert_int_equal(q.count, 1);
	assert_int_equal(q.total, 1);
	assert_true(r[0].handle == handle);
	assert_true(r[0].addr == (uintptr_t)p);
	assert_int_equal(r[0].len, len);
	assert_int_equal(r[0].type, MEMREG_MEM_HOST);
	/* ... but a huge page is one pinned page */
	print_message("# %s: %zu bytes, %llu pinned pages\n",
		      memtest_kind_name(kind), len,
		      (unsigned long long)r[0].pinned_pages);
	assert_true(r[0].pinned_pages >= 1);
	assert_true(r[0].pinned_pages <= max_pinned_pages);

	/* the memory stays usable and shared with what the kernel pinned */
	memset(p, 0x5a, len);
	assert_int_equal(memtest_unregister(fd, handle), 0);
	assert_no_leak();
	memtest_unmap(p, len);
	close(fd);
}

static void test_register_anon(void **state)
{
	(void)state;
	check_kind(MEMTEST_ANON, 4 * MiB, 4 * MiB / 4096);
}

static void test_register_anon_unaligned(void **state)
{
	long long before = memtest_pins_acquired();
	int fd = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, 3 * 4096);
	uint64_t h;

	(void)state;
	/* 2 bytes across a page boundary: two pages */
	assert_int_equal(memtest_register(fd, p + 4095, 2, MEMREG_MEM_HOST,
					  &h), 0);
	if (before >= 0)
		assert_int_equal(memtest_pins_acquired() - before, 2);
	assert_int_equal(memtest_unregister(fd, h), 0);
	assert_no_leak();
	close(fd);
	memtest_unmap(p, 3 * 4096);
}

static int thp_enabled(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return !strstr(buf, "[never]");
}

static void test_register_thp(void **state)
{
	(void)state;
	if (!thp_enabled()) {
		print_message("# THP not enabled in this kernel\n");
		skip();
	}
	/* 4 MiB of THP: two huge pages (allow a few split ones) */
	check_kind(MEMTEST_THP, 4 * MiB, 8);
}

static void test_register_hugetlb(void **state)
{
	(void)state;
	check_kind(MEMTEST_HUGETLB, 4 * MiB, 2);
}

static void test_register_shm(void **state)
{
	(void)state;
	check_kind(MEMTEST_SHM, 4 * MiB, 4 * MiB / 4096);
}

static int reg_raw(int fd, struct memreg_register *r)
{
	return ioctl(fd, MEMREG_IOC_REGISTER, r) ? errno : 0;
}

static void test_bad_input(void **state)
{
	int fd = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, 4 * 4096);
	char *hole, *ro;
	struct memreg_register r;
	uint64_t h;

	(void)state;
	/* NULL */
	assert_int_equal(memtest_register(fd, NULL, 4096, MEMREG_MEM_HOST,
					  &h), -EFAULT);
	/* len 0 */
	assert_int_equal(memtest_register(fd, p, 0, MEMREG_MEM_HOST, &h),
			 -EINVAL);
	/* addr + len overflows */
	assert_int_equal(memtest_register(fd, p, UINT64_MAX, MEMREG_MEM_HOST,
					  &h), -EINVAL);
	/* kernel addresses */
	assert_int_equal(memtest_register(fd, (void *)0xffff888000000000ULL,
					  4096, MEMREG_MEM_HOST, &h), -EFAULT);
	/* unmapped: a hole in the middle fails, and pins nothing */
	hole = memtest_map(MEMTEST_ANON, 3 * 4096);
	munmap(hole + 4096, 4096);
	assert_int_equal(memtest_register(fd, hole, 3 * 4096,
					  MEMREG_MEM_HOST, &h), -EFAULT);
	assert_no_leak();
	/* read-only mapping */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(memtest_register(fd, ro, 4096, MEMREG_MEM_HOST, &h),
			 -EACCES);
	/* unknown type, flags, access bits, nonzero reserved */
	assert_int_equal(memtest_register(fd, p, 4096, 7, &h), -EINVAL);
	r = (struct memreg_register){ .size = sizeof(r), .addr =
		(uintptr_t)p, .len = 4096, .flags = 1 };
	assert_int_equal(reg_raw(fd, &r), EINVAL);
	r.flags = 0;
	r.access = 1U << 30;
	assert_int_equal(reg_raw(fd, &r), EINVAL);
	r.access = 0;
	r.reserved[2] = 1;
	assert_int_equal(reg_raw(fd, &r), EINVAL);
	r.reserved[2] = 0;
	r.reserved0 = 1;
	assert_int_equal(reg_raw(fd, &r), EINVAL);
	r.reserved0 = 0;
	/* an fd for a type that takes none */
	r.fd = 3;
	assert_int_equal(reg_raw(fd, &r), EINVAL);
	r.fd = 0;
	/* device memory does not exist yet */
	assert_int_equal(memtest_register(fd, p, 4096, MEMREG_MEM_DEVICE, &h),
			 -ENXIO);
	assert_no_leak();
	memtest_unmap(ro, 4096);
	memtest_unmap(hole, 4096);
	memtest_unmap(hole + 2 * 4096, 4096);
	memtest_unmap(p, 4 * 4096);
	close(fd);
}

static void test_struct_size(void **state)
{
	struct {
		struct memreg_info info;
		uint8_t tail[32];
	} big;
	struct memreg_info info;
	int fd = memtest_open();

	(void)state;
	/* smaller than the first version */
	memset(&info, 0, sizeof(info));
	info.size = 8;
	assert_int_equal(ioctl(fd, MEMREG_IOC_INFO, &info), -1);
	assert_int_equal(errno, EINVAL);
	/* bigger, zero tail: a newer program on an older kernel works */
	memset(&big, 0, sizeof(big));
	big.info.size = sizeof(big);
	assert_int_equal(ioctl(fd, MEMREG_IOC_INFO, &big), 0);
	assert_int_equal(big.info.abi_version, MEMREG_ABI_VERSION);
	/* ... also when the ioctl number encodes the bigger size */
	assert_int_equal(ioctl(fd, _IOWR(MEMREG_IOC_MAGIC, 0x00, big), &big),
			 0);
	/* bigger, with something the kernel does not know: refused */
	big.tail[5] = 1;
	assert_int_equal(ioctl(fd, MEMREG_IOC_INFO, &big), -1);
	assert_int_equal(errno, E2BIG);
	/* absurd sizes are refused without reading them */
	big.info.size = 1 << 30;
	assert_int_equal(ioctl(fd, MEMREG_IOC_INFO, &big), -1);
	assert_int_equal(errno, E2BIG);
	/* nonzero reserved in INFO */
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	info.reserved[0] = 1;
	assert_int_equal(ioctl(fd, MEMREG_IOC_INFO, &info), -1);
	assert_int_equal(errno, EINVAL);
	/* an ioctl number we do not have, or ours with the wrong direction */
	assert_int_equal(ioctl(fd, _IOWR(MEMREG_IOC_MAGIC, 0x7f, int), &info),
			 -1);
	assert_int_equal(errno, ENOTTY);
	assert_int_equal(ioctl(fd, _IOR(MEMREG_IOC_MAGIC, 0x00, info), &info),
			 -1);
	assert_int_equal(errno, ENOTTY);
	close(fd);
}

static void test_unknown_handle(void **state)
{
	int fd = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, 4096);
	uint64_t h;

	(void)state;
	assert_int_equal(memtest_unregister(fd, 0), -ENOENT);
	assert_int_equal(memtest_unregister(fd, 0x1234567812345678ULL),
			 -ENOENT);
	assert_int_equal(memtest_register(fd, p, 4096, MEMREG_MEM_HOST, &h),
			 0);
	/* the right id with a wrong cookie is not the handle */
	assert_int_equal(memtest_unregister(fd, h ^ (1ULL << 40)), -ENOENT);
	assert_int_equal(memtest_unregister(fd, h), 0);
	/* double unregister */
	assert_int_equal(memtest_unregister(fd, h), -ENOENT);
	assert_no_leak();
	memtest_unmap(p, 4096);
	close(fd);
}

/* A handle made on another file, even of the same process, is unknown. */
static void test_handle_other_file(void **state)
{
	int fd1 = memtest_open(), fd2 = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, 4096);
	struct memreg_info info;
	uint64_t h;

	(void)state;
	assert_int_equal(memtest_register(fd1, p, 4096, MEMREG_MEM_HOST, &h),
			 0);
	assert_int_equal(memtest_unregister(fd2, h), -ENOENT);
	/* both files share the process's context and its count */
	assert_int_equal(memtest_info(fd2, &info), 0);
	assert_int_equal(info.regions, 1);
	close(fd1);	/* closing drops the registration */
	assert_int_equal(memtest_info(fd2, &info), 0);
	assert_int_equal(info.regions, 0);
	assert_no_leak();
	close(fd2);
	memtest_unmap(p, 4096);
}

static void test_handle_other_process(void **state)
{
	int fd = memtest_open();
	int to_parent[2], to_child[2], st;
	uint64_t h;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(to_parent), 0);
	assert_int_equal(pipe(to_child), 0);
	pid = fork();
	if (pid == 0) {
		int cfd = memtest_open();
		char *p = memtest_map(MEMTEST_ANON, 4096);

		if (memtest_register(cfd, p, 4096, MEMREG_MEM_HOST, &h))
			_exit(1);
		if (write(to_parent[1], &h, sizeof(h)) != sizeof(h) ||
		    read(to_child[0], &c, 1) != 1)
			_exit(1);
		/* still ours after the other process tried */
		_exit(memtest_unregister(cfd, h) ? 2 : 0);
	}
	assert_int_equal(read(to_parent[0], &h, sizeof(h)), sizeof(h));
	assert_int_equal(memtest_unregister(fd, h), -ENOENT);
	assert_int_equal(write(to_child[1], "x", 1), 1);
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_no_leak();
	close(fd);
}

/* A child must not pin into its parent's context through an inherited fd. */
static void test_inherited_fd(void **state)
{
	int fd = open("/dev/memreg", O_RDWR);	/* no O_CLOEXEC: inherited */
	struct memreg_info info;
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (pid == 0)
		_exit(memtest_info(fd, &info) == -EPERM ? 0 : 1);
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(fd);
}

static void test_count_limit(void **state)
{
	struct memreg_info info;
	int fd = memtest_open();
	uint64_t *h;
	char *p;
	unsigned long i, max;

	(void)state;
	assert_int_equal(memtest_info(fd, &info), 0);
	max = info.max_regions;
	if (max > 4096) {
		print_message("# max_regions %lu too big to exhaust\n", max);
		close(fd);
		skip();
	}
	h = calloc(max, sizeof(*h));
	p = memtest_map(MEMTEST_ANON, (max + 1) * 4096);
	for (i = 0; i < max; i++)
		assert_int_equal(memtest_register(fd, p + i * 4096, 4096,
						  MEMREG_MEM_HOST, &h[i]), 0);
	assert_int_equal(memtest_register(fd, p + max * 4096, 4096,
					  MEMREG_MEM_HOST, NULL), -EMFILE);
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.regions, max);
	/* freeing one makes room for one */
	assert_int_equal(memtest_unregister(fd, h[0]), 0);
	assert_int_equal(memtest_register(fd, p + max * 4096, 4096,
					  MEMREG_MEM_HOST, &h[0]), 0);
	close(fd);
	assert_no_leak();
	memtest_unmap(p, (max + 1) * 4096);
	free(h);
}

static int write_param(const char *name, unsigned long long v)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/memreg/parameters/%s",
		 name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%llu\n", v);
	return fclose(f);
}

static void test_host_bytes_limit(void **state)
{
	struct memreg_info info;
	int fd;
	char *p;
	uint64_t h1, h2;

	(void)state;
	if (!is_root())
		skip();
	assert_int_equal(write_param("max_host_bytes", MiB), 0);
	fd = memtest_open();
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.max_host_bytes, MiB);
	p = memtest_map(MEMTEST_ANON, 2 * MiB);
	assert_int_equal(memtest_register(fd, p, MiB - 4096, MEMREG_MEM_HOST,
					  &h1), 0);
	/* exactly up to the limit ... */
	assert_int_equal(memtest_register(fd, p + MiB, 4096, MEMREG_MEM_HOST,
					  &h2), 0);
	/* ... and not one byte more */
	assert_int_equal(memtest_register(fd, p + MiB + 4096, 1,
					  MEMREG_MEM_HOST, NULL), -EDQUOT);
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.host_bytes, MiB);
	assert_int_equal(write_param("max_host_bytes", 20ULL << 30), 0);
	close(fd);
	assert_no_leak();
	memtest_unmap(p, 2 * MiB);
}

/* RLIMIT_MEMLOCK, for a process without CAP_IPC_LOCK. */
static int memlock_child(void)
{
	struct rlimit rl = { .rlim_cur = MiB, .rlim_max = MiB };
	struct memreg_info info;
	uint64_t h;
	char *p;
	int fd, err;

	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 10;
	fd = memtest_open();
	p = memtest_map(MEMTEST_ANON, 4 * MiB);
	if (memtest_info(fd, &info) || info.memlock_limit != MiB)
		return 11;
	err = memtest_register(fd, p, 2 * MiB, MEMREG_MEM_HOST, &h);
	if (err != -ENOMEM) {
		fprintf(stderr, "# 2 MiB over a 1 MiB RLIMIT_MEMLOCK: %s\n",
			strerror(-err));
		return 12;
	}
	if (memtest_vmpin_kb() != 0)	/* the refused charge was undone */
		return 13;
	if (memtest_register(fd, p, MiB / 2, MEMREG_MEM_HOST, &h))
		return 14;
	if (memtest_register(fd, p + MiB, MiB / 2, MEMREG_MEM_HOST, &h))
		return 15;
	/* the limit counts what this process has pinned already */
	if (memtest_register(fd, p + 2 * MiB, 4096, MEMREG_MEM_HOST, &h) !=
	    -ENOMEM)
		return 16;
	if (memtest_vmpin_kb() != 1024)
		return 17;
	return 0;
}

static void test_rlimit_memlock(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (pid == 0) {
		/* root: become an ordinary user, dropping CAP_IPC_LOCK */
		if (is_root() && (setgid(1000) || setuid(1000)))
			_exit(9);
		_exit(memlock_child());
	}
	waitpid(pid, &st, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_no_leak();
}

static void test_query_cursor(void **state)
{
	struct memreg_region r[2];
	struct memreg_query q;
	uint64_t h[5], seen[5];
	int fd = memtest_open(), n = 0, i, j;
	char *p = memtest_map(MEMTEST_ANON, 5 * 4096);

	(void)state;
	for (i = 0; i < 5; i++)
		assert_int_equal(memtest_register(fd, p + i * 4096, 4096,
						  MEMREG_MEM_HOST, &h[i]), 0);
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.entry_size = sizeof(r[0]);
	q.regions = (uintptr_t)r;
	for (;;) {
		q.count = 2;
		assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), 0);
		assert_int_equal(q.total, 5);
		if (!q.count)
			break;
		for (i = 0; i < (int)q.count; i++)
			seen[n++] = r[i].handle;
		assert_true(n <= 5);
	}
	assert_int_equal(n, 5);
	for (i = 0; i < 5; i++) {
		int found = 0;

		for (j = 0; j < 5; j++)
			found += seen[j] == h[i];
		assert_int_equal(found, 1);
	}
	/* a too-small entry size is refused */
	q.cursor = 0;
	q.entry_size = 8;
	q.count = 2;
	assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), -1);
	assert_int_equal(errno, EINVAL);
	/* a newer program's bigger entries: ours, then zeroes */
	{
		unsigned char big[2][96];
		struct memreg_region first;

		memset(big, 0xff, sizeof(big));
		q.cursor = 0;
		q.entry_size = sizeof(big[0]);
		q.regions = (uintptr_t)big;
		q.count = 2;
		assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), 0);
		assert_int_equal(q.count, 2);
		memcpy(&first, big[0], sizeof(first));
		assert_int_equal(first.len, 4096);
		assert_int_equal(first.type, MEMREG_MEM_HOST);
		for (i = sizeof(first); i < (int)sizeof(big[0]); i++) {
			assert_int_equal(big[0][i], 0);
			assert_int_equal(big[1][i], 0);
		}
	}
	close(fd);
	assert_no_leak();
	memtest_unmap(p, 5 * 4096);
}

static void wait_killed(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
}

static void test_exit_releases(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (pid == 0) {
		int fd = memtest_open();
		char *p = memtest_map(MEMTEST_ANON, 8 * MiB);

		_exit(-memtest_register(fd, p, 8 * MiB, MEMREG_MEM_HOST,
					NULL));
	}
	waitpid(pid, &st, 0);
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_no_leak();
}

static void test_kill9_releases(void **state)
{
	int pfd[2];
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		int fd = memtest_open();
		char *p = memtest_map(MEMTEST_THP, 8 * MiB);
		int err;

		err = memtest_register(fd, p, 4 * MiB, MEMREG_MEM_HOST, NULL);
		if (!err)
			err = memtest_register(fd, p + 4 * MiB, 4 * MiB,
					       MEMREG_MEM_HOST, NULL);
		c = -err;
		if (write(pfd[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	assert_int_equal(c, 0);
	if (pins_at_start >= 0)
		assert_true(memtest_pins_held() > pins_at_start);
	wait_killed(pid);
	assert_no_leak();
	close(pfd[0]);
}

/* kill -9 while the kernel is busy pinning: the pin loop must unwind. */
static void test_kill9_while_pinning(void **state)
{
	int round;

	(void)state;
	for (round = 0; round < 3; round++) {
		pid_t pid = fork();

		if (pid == 0) {
			struct rlimit rl;
			size_t len = 64 * MiB;
			int fd = memtest_open();
			char *p;
			uint64_t h;

			/* without CAP_IPC_LOCK, stay under RLIMIT_MEMLOCK */
			if (!is_root() && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
			    rl.rlim_cur < 2 * len)
				len = rl.rlim_cur / 2 & ~4095UL;
			p = memtest_map(MEMTEST_ANON, len);
			for (;;) {
				if (memtest_register(fd, p, len,
						     MEMREG_MEM_HOST, &h) ||
				    memtest_unregister(fd, h))
					_exit(1);
			}
		}
		usleep(200000 + round * 150000);
		wait_killed(pid);
		assert_no_leak();
	}
}

struct thread_arg {
	int fd;
	char *mem;
	int errors;
};

static void *churn_thread(void *p)
{
	struct thread_arg *a = p;
	uint64_t h;

	for (int i = 0; i < 300; i++) {
		if (memtest_register(a->fd, a->mem, 64 * 1024,
				     MEMREG_MEM_HOST, &h) ||
		    memtest_unregister(a->fd, h))
			a->errors++;
	}
	return NULL;
}

/* Eight threads of one process on one file: no lost or doubled count. */
static void test_threads(void **state)
{
	struct thread_arg a[8];
	pthread_t t[8];
	struct memreg_info info;
	int fd = memtest_open(), i;
	char *mem = memtest_map(MEMTEST_ANON, 8 * 64 * 1024);

	(void)state;
	for (i = 0; i < 8; i++) {
		a[i] = (struct thread_arg){ fd, mem + i * 64 * 1024, 0 };
		assert_int_equal(pthread_create(&t[i], NULL, churn_thread,
						&a[i]), 0);
	}
	for (i = 0; i < 8; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(a[i].errors, 0);
	}
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.regions, 0);
	assert_int_equal(info.host_bytes, 0);
	close(fd);
	assert_no_leak();
	memtest_unmap(mem, 8 * 64 * 1024);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_info),
		T(test_info_instance_id_shared),
		T(test_register_anon),
		T(test_register_anon_unaligned),
		T(test_register_thp),
		T(test_register_hugetlb),
		T(test_register_shm),
		T(test_bad_input),
		T(test_struct_size),
		T(test_unknown_handle),
		T(test_handle_other_file),
		T(test_handle_other_process),
		T(test_inherited_fd),
		T(test_count_limit),
		T(test_host_bytes_limit),
		T(test_rlimit_memlock),
		T(test_query_cursor),
		T(test_exit_releases),
		T(test_kill9_releases),
		T(test_kill9_while_pinning),
		T(test_threads),
	};

	return cmocka_run_group_tests_name("memreg ioctl", tests, NULL, NULL);
}
