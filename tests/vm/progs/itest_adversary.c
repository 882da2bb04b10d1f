// SPDX-License-Identifier: GPL-2.0
/*
 * itest_adversary - what a hostile unprivileged user tries against
 * /dev/memreg, one scenario per subcommand; tests/vm/cases/adversary.sh
 * runs them (as uid 1000) and checks the module's totals from outside.
 *
 *   exec-chain N BYTES FILE   open, register BYTES of host memory, keep the
 *                             fd and exec() ourselves, N times; the last
 *                             image checks the inherited fds, writes
 *                             "ready" to FILE and waits for SIGTERM
 *   dev-chain N BYTES FILE    the same with device allocations
 *   pass-fds N BYTES FILE     N helpers each open, register BYTES and pass
 *                             the fd to us over a socket, then exit; we
 *                             hold the N fds, write "ready", wait
 *   rdonly-mmap               device memory through an O_RDONLY file
 *   steal HANDLE N            another process's registration: its exact
 *                             handle, N handles with its id and other
 *                             cookies, N random grant tokens: all ENOENT
 *   memlock N BYTES           BYTES (the whole RLIMIT_MEMLOCK) on one of N
 *                             files, then the same again on every other
 *                             file, overlapping ranges and a fork()ed
 *                             child: ENOMEM, ENOMEM, EPERM
 *   mstx-files N              mstx heaps through N files of one process:
 *                             the module's limit is per process, so the
 *                             files together get mstx_max_heaps, not N
 *                             times it
 *   huge-range                a registration of 1 TiB + 4 KiB from a page
 *                             that is mapped (run with the host byte limit
 *                             raised): ENOMEM, quietly -- its page array is
 *                             above INT_MAX bytes, which kvmalloc() refused
 *                             with a WARNING (found by memreg_fuzz)
 *   fill-dev CHUNK            allocate (and touch) device memory in CHUNK
 *                             pieces from every device until refused: the
 *                             refusal must be ENOSPC (device full) or
 *                             ENOMEM (the RAM reserve), never a kill
 *
 * Each scenario prints "ok"/"not ok" lines for what it can see itself
 * and exits nonzero on a failure; what the module holds for it is the
 * script's to check (`memreg -j stats`, `memreg -j region`).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "memtest.h"
#include <linux/memreg_mstx.h>

static int failures;

static void result(int pass, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result(int pass, const char *fmt, ...)
{
	va_list ap;

	printf("%sok - adversary: ", pass ? "" : "not ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!pass)
		failures++;
}

static void say_ready(const char *file)
{
	FILE *f = fopen(file, "w");

	if (!f || fprintf(f, "ready %d\n", getpid()) < 0 || fclose(f)) {
		perror(file);
		exit(1);
	}
}

static void wait_for_term(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
}

static unsigned long parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	switch (*end) {
	case 'K': return v << 10;
	case 'M': return v << 20;
	case 'G': return v << 30;
	default: return v;
	}
}

/* /dev/memreg without O_CLOEXEC: the file must survive exec(). */
static int open_inheritable(void)
{
	return open("/dev/memreg", O_RDWR);
}

/* Register @bytes of fresh anonymous memory on a new fd, left open. */
static int open_and_pin(unsigned long bytes)
{
	void *p = memtest_map(MEMTEST_ANON, bytes);
	uint64_t handle;
	int fd = open_inheritable();
	int err;

	if (fd < 0 || !p) {
		perror("open_and_pin");
		exit(1);
	}
	err = memtest_register(fd, p, bytes, MEMREG_MEM_HOST, &handle);
	if (err) {
		fprintf(stderr, "register %lu bytes: %s\n", bytes,
			strerror(-err));
		exit(1);
	}
	return fd;
}

/* Allocate (and map) @bytes of device 0 on a new fd, left open. */
static int open_and_alloc(unsigned long bytes)
{
	struct memreg_dev_alloc a = { .size = sizeof(a), .device = 0,
				      .len = bytes };
	int fd = open_inheritable();
	void *p;

	if (fd < 0 || ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a)) {
		perror("DEV_ALLOC");
		exit(1);
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	if (p == MAP_FAILED) {
		perror("mmap device memory");
		exit(1);
	}
	memset(p, 0xa5, bytes);
	return fd;
}

/*
 * Every fd above stderr that is /dev/memreg was opened by an earlier image:
 * its address space is gone, so it must refuse every call.
 */
static void check_inherited(int keep)
{
	struct memreg_info info;
	int fd, n = 0, refused = 0;

	for (fd = 3; fd < 1024; fd++) {
		if (fd == keep || fcntl(fd, F_GETFD) < 0)
			continue;
		n++;
		if (memtest_info(fd, &info) == -EPERM)
			refused++;
	}
	result(n > 0 && refused == n,
	       "%d of %d files inherited across exec() refuse calls (EPERM)",
	       refused, n);
}

static int chain(int argc, char **argv, int dev)
{
	int n = atoi(argv[2]), k = argc > 5 ? atoi(argv[5]) : 1;
	unsigned long bytes = parse_size(argv[3]);
	char next[16];
	int fd;

	fd = dev ? open_and_alloc(bytes) : open_and_pin(bytes);
	if (k < n) {
		snprintf(next, sizeof(next), "%d", k + 1);
		execl("/proc/self/exe", argv[0], argv[1], argv[2], argv[3],
		      argv[4], next, (char *)NULL);
		perror("exec");
		return 1;
	}
	check_inherited(fd);
	say_ready(argv[4]);
	wait_for_term();
	return failures ? 1 : 0;
}

static int send_fd(int sock, int fd)
{
	char data = 'f', cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char data, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &data, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static int pass_fds(char **argv)
{
	int n = atoi(argv[2]), i, got = 0, refused = 0, sv[2], status;
	unsigned long bytes = parse_size(argv[3]);
	struct memreg_info info;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) {
		perror("socketpair");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			_exit(send_fd(sv[1], open_and_pin(bytes)) ? 1 : 0);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "helper %d failed\n", i);
			return 1;
		}
		int fd = recv_fd(sv[0]);

		if (fd < 0)
			continue;
		got++;
		if (memtest_info(fd, &info) == -EPERM)
			refused++;
	}
	result(got == n, "%d helpers passed their files over a socket", got);
	result(refused == got, "%d of %d passed files refuse calls (EPERM)",
	       refused, got);
	say_ready(argv[4]);
	wait_for_term();
	return failures ? 1 : 0;
}

/*
 * A file opened read-only may map its device memory MAP_SHARED for
 * reading (the kernel clears VM_SHARED for it, not VM_MAYSHARE), not for
 * writing (EACCES, the kernel's own check), and never MAP_PRIVATE.
 */
static int rdonly_mmap(void)
{
	struct memreg_dev_alloc a = { .size = sizeof(a), .device = 0,
				      .len = 1 << 20 };
	int fd = open("/dev/memreg", O_RDONLY | O_CLOEXEC);
	unsigned char *p;
	void *q;

	if (fd < 0 || ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a)) {
		perror("O_RDONLY DEV_ALLOC");
		return 1;
	}
	p = mmap(NULL, a.len, PROT_READ, MAP_SHARED, fd, a.mmap_offset);
	result(p != MAP_FAILED && p[0] == 0 && p[a.len - 1] == 0,
	       "O_RDONLY file: mmap(PROT_READ, MAP_SHARED) of device memory maps it (%s)",
	       p == MAP_FAILED ? strerror(errno) : "reads zeros");
	q = mmap(NULL, a.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	result(q == MAP_FAILED && errno == EACCES,
	       "O_RDONLY file: a writable MAP_SHARED mapping is refused (%s)",
	       q == MAP_FAILED ? strerror(errno) : "mapped");
	q = mmap(NULL, a.len, PROT_READ, MAP_PRIVATE, fd, a.mmap_offset);
	result(q == MAP_FAILED && errno == EINVAL,
	       "MAP_PRIVATE of device memory is refused (%s)",
	       q == MAP_FAILED ? strerror(errno) : "mapped");
	close(fd);
	return failures ? 1 : 0;
}

/*
 * A range whose array of page pointers kvmalloc() cannot give: 2^28 + 1
 * pages, 2 GiB + 8 bytes of pointers.  As root (CAP_IPC_LOCK) nothing but
 * the host byte limit stands in front of the allocation, so the script
 * raises it first; as a user RLIMIT_MEMLOCK refuses it before anything is
 * allocated.  Either way ENOMEM, with no kernel warning (the harness
 * checks the console), and nothing registered.  2 MiB of it is mapped:
 * the module pins a first batch of 512 pages to see whether they are huge
 * pages before it allocates the array, and a hole there would be EFAULT.
 */
static int huge_range(void)
{
	int fd = memtest_open();
	/* low, so that the whole range is below TASK_SIZE (else EFAULT) */
	void *p = mmap((void *)(1UL << 32), 2 << 20, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	uint64_t handle;
	int err;

	/* 4 KiB pages (a huge page would be kept as a run, not an array) */
	if (fd < 0 || p == MAP_FAILED || madvise(p, 2 << 20, MADV_NOHUGEPAGE)) {
		perror("huge-range");
		return 1;
	}
	memset(p, 1, 2 << 20);
	err = memtest_register(fd, p, (1ULL << 40) + 4096, MEMREG_MEM_HOST,
			       &handle);
	result(err == -ENOMEM,
	       "a registration of 1 TiB + 4 KiB (a page array above INT_MAX bytes) is ENOMEM (%s)",
	       err ? strerror(-err) : "registered");
	if (!err)
		memtest_unregister(fd, handle);
	close(fd);
	return failures ? 1 : 0;
}

/*
 * Take device memory until the module says no.  In a VM with less RAM
 * than the devices' capacity that is the RAM reserve (ENOMEM), and the
 * OOM killer must not have run: the caller checks the kernel log.
 */
static int fill_dev(char **argv)
{
	unsigned long chunk = parse_size(argv[2]), total = 0;
	struct memreg_info info;
	int fd = memtest_open(), err = 0, refusal = 0;
	unsigned int dev;

	if (fd < 0 || memtest_info(fd, &info)) {
		perror("open");
		return 1;
	}
	for (dev = 0; dev < info.devices; dev++) {
		for (;;) {
			struct memreg_dev_alloc a = {
				.size = sizeof(a), .device = dev, .len = chunk,
				.policy = MEMREG_DEV_NORMAL_ONLY,
			};
			void *p;

			if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a)) {
				err = errno;
				break;
			}
			p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				 MAP_SHARED, fd, a.mmap_offset);
			if (p == MAP_FAILED) {
				perror("mmap");
				return 1;
			}
			memset(p, 0x5a, chunk);
			total += chunk;
		}
		printf("# device %u: refused with %s after %lu MiB in all\n",
		       dev, strerror(err), total >> 20);
		if (err != ENOSPC && err != ENOMEM)
			result(0, "device %u refused with %s, not ENOSPC or ENOMEM",
			       dev, strerror(err));
		if (err == ENOMEM)
			refusal = ENOMEM;
	}
	result(total > 0, "took %lu MiB of device memory, then %s", total >> 20,
	       refusal == ENOMEM ? "ENOMEM" : "ENOSPC (full)");
	/* still alive, and the memory comes back on close */
	close(fd);
	printf("filled %lu %s\n", total >> 20,
	       refusal == ENOMEM ? "ENOMEM" : "ENOSPC");
	return failures ? 1 : 0;
}

/* Add heaps 1.. to @fd until refused; how many were added, or -errno. */
static long mstx_fill_heaps(int fd, unsigned int first, unsigned int most)
{
	static struct memreg_mstx_op ops[256];
	unsigned int added = 0, i, n;

	while (added < most) {
		struct memreg_mstx m = {
			.size = sizeof(m), .ops = (uintptr_t)ops,
			.op_size = sizeof(ops[0]),
		};

		n = most - added < 256 ? most - added : 256;
		memset(ops, 0, sizeof(ops));
		for (i = 0; i < n; i++) {
			ops[i].op = MEMREG_MSTX_HEAP_ADD;
			ops[i].heap = first + added + i;
			ops[i].addr = 0x100000000ULL + (uint64_t)(first + added + i) * 4096;
			ops[i].len = 4096;
		}
		m.count = n;
		if (ioctl(fd, MEMREG_IOC_MSTX, &m)) {
			if (errno != EMFILE)
				return -errno;
			return added + m.done;
		}
		added += n;
	}
	return added;
}

static int mstx_files(char **argv)
{
	int n = atoi(argv[2]), i, fd;
	long got, total = 0;
	unsigned int max = 0;
	FILE *f = fopen("/sys/module/memreg/parameters/mstx_max_heaps", "r");

	if (!f || fscanf(f, "%u", &max) != 1 || !max) {
		perror("mstx_max_heaps");
		return 1;
	}
	fclose(f);
	for (i = 0; i < n; i++) {
		fd = memtest_open();
		if (fd < 0) {
			perror("open");
			return 1;
		}
		/* ids apart per file: ids are the caller's, per file */
		got = mstx_fill_heaps(fd, 1, max);
		if (got < 0) {
			result(0, "MSTX on file %d: %s", i, strerror(-got));
			return 1;
		}
		total += got;
	}
	result(total == max,
	       "%d files of one process hold %ld mstx heaps in all (limit %u per process)",
	       n, total, max);
	return failures ? 1 : 0;
}

static uint64_t rand64(void)
{
	return ((uint64_t)random() << 62) ^ ((uint64_t)random() << 31) ^
	       (uint64_t)random();
}

static int steal(char **argv)
{
	uint64_t victim = strtoull(argv[2], NULL, 0), h;
	int n = atoi(argv[3]), i, hits = 0, fd = memtest_open();
	struct memreg_import imp;

	if (fd < 0) {
		perror("open");
		return 1;
	}
	srandom(getpid());
	result(memtest_unregister(fd, victim) == -ENOENT,
	       "another process's exact handle on our file: ENOENT");
	for (i = 0; i < n; i++) {
		h = (rand64() & ~0xffffffffULL) | (victim & 0xffffffffULL);
		if (h != victim && memtest_unregister(fd, h) != -ENOENT)
			hits++;
	}
	result(!hits, "%d handles with its id and guessed cookies: %d not ENOENT",
	       n, hits);
	hits = 0;
	for (i = 0; i < n; i++) {
		uint64_t t[2] = { rand64(), rand64() };

		memset(&imp, 0, sizeof(imp));
		imp.size = sizeof(imp);
		memcpy(imp.token, t, sizeof(imp.token));
		if (!ioctl(fd, MEMREG_IOC_IMPORT, &imp) || errno != ENOENT)
			hits++;
	}
	result(!hits, "%d guessed grant tokens: %d not ENOENT", n, hits);
	close(fd);
	return failures ? 1 : 0;
}

static int memlock(char **argv)
{
	int n = atoi(argv[2]), i, fds[64], refused = 0, status;
	unsigned long bytes = parse_size(argv[3]);
	char *p = memtest_map(MEMTEST_ANON, bytes);
	char *q = memtest_map(MEMTEST_ANON, bytes);
	uint64_t h;
	pid_t pid;

	if (!p || !q || n < 2 || n > 64) {
		fprintf(stderr, "memlock: bad setup\n");
		return 1;
	}
	for (i = 0; i < n; i++)
		fds[i] = memtest_open();
	result(memtest_register(fds[0], p, bytes, MEMREG_MEM_HOST, &h) == 0,
	       "the whole RLIMIT_MEMLOCK (%lu KiB) on one file", bytes >> 10);
	for (i = 1; i < n; i++)
		if (memtest_register(fds[i], q, bytes, MEMREG_MEM_HOST,
				     NULL) == -ENOMEM)
			refused++;
	result(refused == n - 1, "%d more files of the same process: %d refused with ENOMEM",
	       n - 1, refused);
	result(memtest_register(fds[0], p, bytes, MEMREG_MEM_HOST, NULL) ==
	       -ENOMEM, "the same range again (overlapping): ENOMEM");
	result(memtest_register(fds[0], p, 4096, MEMREG_MEM_HOST, NULL) ==
	       -ENOMEM, "even one page of it again: ENOMEM");
	result(memtest_vmpin_kb() == (long long)(bytes >> 10),
	       "VmPin is the limit: %lld kB", memtest_vmpin_kb());
	pid = fork();
	if (!pid) {
		struct memreg_info info;

		_exit(memtest_info(fds[0], &info) == -EPERM &&
		      memtest_register(fds[0], p, 4096, MEMREG_MEM_HOST,
				       NULL) == -EPERM ? 0 : 1);
	}
	result(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status),
	       "a fork()ed child cannot use the parent's file: EPERM");
	for (i = 0; i < n; i++)
		close(fds[i]);
	result(memtest_vmpin_kb() == 0, "all closed: VmPin 0 kB");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 5 && !strcmp(argv[1], "exec-chain"))
		return chain(argc, argv, 0);
	if (argc >= 5 && !strcmp(argv[1], "dev-chain"))
		return chain(argc, argv, 1);
	if (argc == 5 && !strcmp(argv[1], "pass-fds"))
		return pass_fds(argv);
	if (argc == 2 && !strcmp(argv[1], "rdonly-mmap"))
		return rdonly_mmap();
	if (argc == 2 && !strcmp(argv[1], "huge-range"))
		return huge_range();
	if (argc == 3 && !strcmp(argv[1], "fill-dev"))
		return fill_dev(argv);
	if (argc == 3 && !strcmp(argv[1], "mstx-files"))
		return mstx_files(argv);
	if (argc == 4 && !strcmp(argv[1], "steal"))
		return steal(argv);
	if (argc == 4 && !strcmp(argv[1], "memlock"))
		return memlock(argv);
	fprintf(stderr,
		"usage: %s exec-chain|dev-chain|pass-fds N BYTES FILE | rdonly-mmap | huge-range | fill-dev CHUNK | mstx-files N | steal HANDLE N | memlock N BYTES\n",
		argv[0]);
	return 2;
}
