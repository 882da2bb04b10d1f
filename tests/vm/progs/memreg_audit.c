// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_audit: the amplification audit (tests/vm/cases/audit.sh).
 *
 * The fuzzer looks for crashes; this looks for a small charge that buys a
 * large cost.  Each row drives one creating call of the UAPI to its limit
 * (or to a count), as the calling user, and measures what the kernel spent
 * per object: MemFree (which sees everything, kernel page tables of vmap
 * areas included, which no other counter of /proc/meminfo shows), Slab and
 * SUnreclaim, VmallocUsed, file-nr, and the memory cgroup's
 * memory.current.  A row fails when a unit costs more than the bound
 * docs/security.md states for it, or when the limit is not where, or not
 * the errno, the module says.  What is left after exit the case checks.
 *
 *   memreg_audit ROW [ARGS]       one row; TAP lines, figures as comments
 *
 * Rows: dmabuf-reg, host-reg, host-child, reg-export, ipc-names MAX,
 * ipc-names-hold MAX (holds
 * them 3 s: the case runs three at once against the user's limit),
 * ipc-allow, ipc-guess RATE, ipc-oracle (as root), dev-outlive PER_MB
 * USER_MB (with those limits set), dev-hold and hog MB (the OOM case in
 * devmem_pressure.sh), dev-reg, grant-import, mstx, cg-records DIR MAX
 * (in DIR, a cgroup delegated to us with cgroup.max.descendants MAX).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/memreg.h>

#include "memtest.h"

#define KiB	1024LL
/* Live grants per registration: the module's MEMREG_MAX_GRANTS. */
#define MEMREG_MAX_GRANTS_AUDIT	64
#define MiB	(1024 * KiB)

static int failed;
static int hold;	/* ipc-names-hold: keep the names a while */
/*
 * The debug kernel's allocator spends several times more per object
 * (KASAN redzones and shadow, a kmemleak record per allocation: a name
 * and its pid list cost 6.6 KiB of SUnreclaim there, 200 B on 6.12):
 * bounds are multiplied by this there.
 */
static int scale = 1;

#define OK(...)		do { printf("ok - audit: " __VA_ARGS__); putchar('\n'); } while (0)
#define NOT_OK(...)	do { printf("not ok - audit: " __VA_ARGS__); putchar('\n'); failed++; } while (0)
#define NOTE(...)	do { printf("# " __VA_ARGS__); putchar('\n'); } while (0)

/* What the kernel has spent, at one moment. */
struct spend {
	long long mem_free;		/* bytes */
	long long slab, sunreclaim, vmalloc, pgtables;
	long long files;		/* file-nr: allocated file handles */
	long long cg;			/* memory.current of our cgroup, or -1 */
};

static long long meminfo(const char *key)
{
	char line[256];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atoll(line + n + 1) * KiB;
			break;
		}
	fclose(f);
	return v;
}

static long long read_ll(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* memory.current of the cgroup v2 we are in, or -1. */
static long long cgroup_current(void)
{
	char line[512], path[600];
	FILE *f = fopen("/proc/self/cgroup", "r");
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup%s/memory.current", line + 3);
			v = read_ll(path);
		}
	fclose(f);
	return v;
}

/*
 * Pages on the per-cpu free lists (/proc/zoneinfo's pagesets): free, but
 * not in MemFree.  An allocation of 128 MiB just before leaves them
 * anywhere between empty and several MB full (6.12 tunes their size):
 * without them MemFree moved by 8 MB between two identical runs.
 */
static long long pcp_bytes(void)
{
	char line[256];
	long long sum = 0;
	long v;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %ld", &v) == 1)
			sum += v;
	fclose(f);
	return sum * 4096;
}

static void measure(struct spend *s)
{
	/* let RCU-freed objects and lazily freed vmap areas settle */
	usleep(200 * 1000);
	s->mem_free = meminfo("MemFree") + pcp_bytes();
	s->slab = meminfo("Slab");
	s->sunreclaim = meminfo("SUnreclaim");
	s->vmalloc = meminfo("VmallocUsed");
	s->pgtables = meminfo("PageTables");
	s->files = read_ll("/proc/sys/fs/file-nr");
	s->cg = cgroup_current();
}

/* Per-unit cost between @a and @b of @n units; figures as comments. */
struct cost {
	long long mem, slab, sunreclaim, vmalloc, pgtables, files, cg;
};

static struct cost per_unit(const char *row, const struct spend *a,
			    const struct spend *b, long n)
{
	struct cost c = {
		.mem = (a->mem_free - b->mem_free) / n,
		.slab = (b->slab - a->slab) / n,
		.sunreclaim = (b->sunreclaim - a->sunreclaim) / n,
		.vmalloc = (b->vmalloc - a->vmalloc) / n,
		.pgtables = (b->pgtables - a->pgtables) / n,
		.files = (b->files - a->files) * 1000 / n,
		.cg = a->cg >= 0 && b->cg >= 0 ? (b->cg - a->cg) / n : -1,
	};

	NOTE("%s: %ld units: per unit MemFree -%lld B, Slab %+lld B, SUnreclaim %+lld B, VmallocUsed %+lld B, PageTables %+lld B, files %+lld.%03lld, memcg %+lld B",
	     row, n, c.mem, c.slab, c.sunreclaim, c.vmalloc, c.pgtables,
	     c.files / 1000, llabs(c.files % 1000), c.cg);
	return c;
}

static void within(const char *row, const char *what, long long got,
		   long long bound)
{
	bound *= scale;
	if (got <= bound)
		OK("%s: %s %lld B a unit, bound %lld", row, what, got, bound);
	else
		NOT_OK("%s: %s %lld B a unit, over the bound %lld", row, what,
		       got, bound);
}

/* ---- raw calls ---- */

static int dev_alloc(int fd, uint64_t len, uint64_t *handle)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = len,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	*handle = a.handle;
	return 0;
}

static int dev_export(int fd, uint64_t handle, uint64_t len)
{
	struct memreg_dev_export e = {
		.size = sizeof(e), .flags = MEMREG_EXPORT_CLOEXEC,
		.handle = handle, .len = len,
	};

	return ioctl(fd, MEMREG_IOC_DEV_EXPORT, &e) ? -errno : e.fd;
}

static int ipc_export(int fd, int dfd, uint32_t flags, uint8_t *token)
{
	struct memreg_ipc_export x = {
		.size = sizeof(x), .flags = flags, .fd = dfd,
	};

	if (ioctl(fd, MEMREG_IOC_IPC_EXPORT, &x))
		return -errno;
	memcpy(token, x.token, sizeof(x.token));
	return 0;
}

static int ipc_allow(int fd, const uint8_t *token, const int32_t *pids,
		     uint32_t n)
{
	struct memreg_ipc_allow a = {
		.size = sizeof(a), .count = n,
		.pids = (uintptr_t)pids,
	};

	memcpy(a.token, token, sizeof(a.token));
	return ioctl(fd, MEMREG_IOC_IPC_ALLOW, &a) ? -errno : 0;
}

static int ipc_import(int fd, const uint8_t *token)
{
	struct memreg_ipc_import im = {
		.size = sizeof(im), .flags = MEMREG_EXPORT_CLOEXEC,
	};

	memcpy(im.token, token, sizeof(im.token));
	if (ioctl(fd, MEMREG_IOC_IPC_IMPORT, &im))
		return -errno;
	close(im.fd);
	return 0;
}

static int open_or_die(void)
{
	int fd = memtest_open();

	if (fd < 0) {
		printf("Bail out! cannot open /dev/memreg\n");
		exit(1);
	}
	return fd;
}

/* The row pinned nothing more: VmPin is @vmpin still. */
static void vmpin_stays(const char *row, long long vmpin)
{
	if (memtest_vmpin_kb() == vmpin)
		OK("%s: VmPin stays %lld kB", row, vmpin);
	else
		NOT_OK("%s: VmPin %lld kB, was %lld kB", row,
		       memtest_vmpin_kb(), vmpin);
}

/* ---- rows ---- */

/*
 * Exports of one 128 MiB allocation, each a new dma-buf (its fd kept),
 * then a DMABUF registration of one byte on each, the fd closed after
 * (the registration keeps the dma-buf): neither may cost a kernel mapping
 * or a scatterlist of the buffer.  Before the fix each registration cost
 * a vmap of the whole buffer, whose page tables (256 KiB here) x86-64
 * never gives back.
 */
#define AUDIT_EXPORTS	200

static void row_dmabuf_reg(void)
{
	const uint64_t len = 128 * MiB;
	const char *row = "dmabuf-reg";
	static int dfds[AUDIT_EXPORTS];
	struct spend a, b, c;
	uint64_t dev;
	long n = 0, i;
	int fd = open_or_die(), err = 0;

	if (dev_alloc(fd, len, &dev)) {
		NOT_OK("%s: no 128 MiB allocation", row);
		return;
	}
	measure(&a);
	for (n = 0; n < AUDIT_EXPORTS; n++) {
		dfds[n] = dev_export(fd, dev, len);
		if (dfds[n] < 0) {
			NOT_OK("dev-export: export %ld: %s", n,
			       strerror(-dfds[n]));
			break;
		}
	}
	measure(&b);
	for (i = 0; i < n && !err; i++) {
		err = memtest_register_dmabuf(fd, dfds[i], 4096, 1, NULL);
		close(dfds[i]);
	}
	for (; i < n; i++)
		close(dfds[i]);
	measure(&c);
	if (!err)
		OK("%s: %ld exports, a 1-byte registration of each", row, n);
	else
		NOT_OK("%s: registration %ld: %s", row, i, strerror(-err));
	if (n) {
		struct cost e = per_unit("dev-export", &a, &b, n);
		struct cost r = per_unit(row, &b, &c, n);

		/* a dma-buf: its file, inode and dentry, and our export */
		within("dev-export", "MemFree", e.mem, 8 * KiB);
		within("dev-export", "VmallocUsed", e.vmalloc, 0);
		/* a registration (and an attachment): slab only */
		within(row, "MemFree", r.mem, 4 * KiB);
		within(row, "VmallocUsed", r.vmalloc, 0);
	}
	close(fd);
}

/*
 * IPC names, each on a fresh export whose fd is closed at once, on 8
 * files of /dev/memreg: the names must stop at the process's limit
 * however many files it opens, with EMFILE, and each costs one file.
 */
static void row_ipc_names(long want_max)
{
	const char *row = "ipc-names";
	struct spend a, b;
	uint64_t dev;
	uint8_t token[16];
	int fds[8], i, err = 0, dfd;
	long n = 0;

	for (i = 0; i < 8; i++)
		fds[i] = open_or_die();
	if (dev_alloc(fds[0], 1 * MiB, &dev)) {
		NOT_OK("%s: no allocation", row);
		return;
	}
	measure(&a);
	for (i = 0; !err; i = (i + 1) % 8) {
		dfd = dev_export(fds[0], dev, 4096);
		if (dfd < 0) {
			err = dfd;
			break;
		}
		err = ipc_export(fds[i], dfd, 0, token);
		close(dfd);
		if (!err)
			n++;
	}
	measure(&b);
	if (err == -EMFILE && n <= want_max)
		OK("%s: %ld names through 8 files, then EMFILE (limit %ld)",
		   row, n, want_max);
	else
		NOT_OK("%s: %ld names through 8 files, then %s (limit %ld)",
		       row, n, strerror(-err), want_max);
	if (n) {
		struct cost c = per_unit(row, &a, &b, n);

		/* one file (the dma-buf's) and the name: about 1.000 */
		/* a count, not bytes: the same on every kernel */
		within(row, "files (x1000)", c.files, 1100 / scale);
		within(row, "MemFree", c.mem, 8 * KiB);
	}
	if (hold) {
		NOTE("held %ld names", n);
		sleep(3);
	}
	for (i = 0; i < 8; i++)
		close(fds[i]);
}

/*
 * Allow-lists: our own pid repeated 1024 times, on many names.  The
 * kernel keeps distinct pids only, and what it keeps is charged to our
 * memory cgroup.
 */
static void row_ipc_allow(void)
{
	const char *row = "ipc-allow";
	static int32_t pids[MEMREG_IPC_MAX_PIDS];
	struct spend a, b;
	uint64_t dev;
	uint8_t token[16];
	int fd = open_or_die(), dfd, err = 0;
	long n = 0, i;

	for (i = 0; i < MEMREG_IPC_MAX_PIDS; i++)
		pids[i] = getpid();
	if (dev_alloc(fd, 1 * MiB, &dev) ||
	    (dfd = dev_export(fd, dev, 4096)) < 0) {
		NOT_OK("%s: no export", row);
		return;
	}
	measure(&a);
	for (n = 0; n < 512 && !err; n++) {
		err = ipc_export(fd, dfd, 0, token);
		if (!err)
			err = ipc_allow(fd, token, pids, MEMREG_IPC_MAX_PIDS);
		/* twice: a pid allowed already costs nothing more */
		if (!err)
			err = ipc_allow(fd, token, pids, MEMREG_IPC_MAX_PIDS);
	}
	measure(&b);
	if (err)
		NOT_OK("%s: name %ld: %s", row, n, strerror(-err));
	else
		OK("%s: 512 names, each allowed our pid 2048 times", row);
	{
		struct cost c = per_unit(row, &a, &b, n);

		/* a name and one pid: not 1024 or 2048 pointers */
		within(row, "SUnreclaim", c.sunreclaim, 1 * KiB);
		within(row, "MemFree", c.mem, 8 * KiB);
	}
	close(dfd);
	close(fd);
}

/* A short name of a fresh export, nobody allowed: 0, or -1. */
static int short_name(int fd, uint8_t *token, int *dfd)
{
	uint64_t dev;

	if (dev_alloc(fd, 1 * MiB, &dev))
		return -1;
	*dfd = dev_export(fd, dev, 4096);
	if (*dfd < 0)
		return -1;
	return ipc_export(fd, *dfd, MEMREG_IPC_SHORT_TOKEN, token) ? -1 : 0;
}

/*
 * A child (as @uid, unless -1) imports @token, which it may not, and the
 * name next to it, which does not exist: 1 if the answers are @live and
 * ENOENT.
 */
static int refusals_are(const uint8_t *token, int uid, int live)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		uint8_t guess[16];
		int cfd;

		if (uid >= 0 && (setgid(uid) || setuid(uid)))
			_exit(4);
		cfd = open_or_die();
		memcpy(guess, token, sizeof(guess));
		guess[5] ^= 1;
		_exit((ipc_import(cfd, token) == live ? 0 : 1) |
		      (ipc_import(cfd, guess) == -ENOENT ? 0 : 2));
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * @procs processes guess names for @secs seconds at once, each with its
 * own open of /dev/memreg; their counts summed.
 */
static void guess_procs(int procs, double secs, long *enoent, long *throttled,
			long *tries, double *took)
{
	struct timespec t0, t1;
	long c[3];
	int p[2], i, st;

	*enoent = *throttled = *tries = 0;
	if (pipe(p))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < procs; i++) {
		if (fork())
			continue;
		{
			uint8_t guess[16] = { 0 };
			int cfd = open_or_die(), err;
			double el;

			memset(c, 0, sizeof(c));
			guess[6] = (uint8_t)i;
			do {
				guess[0] = (uint8_t)c[2];
				guess[1] = (uint8_t)(c[2] >> 8);
				guess[4] = (uint8_t)(c[2] >> 16);
				err = ipc_import(cfd, guess);
				c[2]++;
				if (err == -EAGAIN)
					c[1]++;
				else if (err == -ENOENT)
					c[0]++;
				clock_gettime(CLOCK_MONOTONIC, &t1);
				el = (t1.tv_sec - t0.tv_sec) +
				     (t1.tv_nsec - t0.tv_nsec) / 1e9;
			} while (el < secs);
			if (write(p[1], c, sizeof(c)) != sizeof(c))
				_exit(1);
			_exit(0);
		}
	}
	close(p[1]);
	while (read(p[0], c, sizeof(c)) == sizeof(c)) {
		*enoent += c[0];
		*throttled += c[1];
		*tries += c[2];
	}
	close(p[0]);
	while (wait(&st) > 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*took = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
}

/*
 * Guessing short names: a name this process may not import and one that
 * does not exist get one errno, and failures are rationed per user.
 */
static void row_ipc_guess(long rate)
{
	const char *row = "ipc-guess";
	uint8_t token[16];
	int fd = open_or_die(), dfd, i;
	long tries = 0, throttled = 0, enoent = 0;
	double secs;

	if (short_name(fd, token, &dfd)) {
		NOT_OK("%s: no name", row);
		return;
	}
	/*
	 * Another process of our user, not allowed, and a name nobody made:
	 * the exporter's own user is told which (EPERM, ENOENT).  Another
	 * user is not: ipc-oracle.
	 */
	if (refusals_are(token, -1, -EPERM))
		OK("%s: our own user: not allowed EPERM, no such name ENOENT",
		   row);
	else
		NOT_OK("%s: our own user's refusals differ from EPERM, ENOENT",
		       row);

	/*
	 * Guess for 3 seconds from 4 processes at once (the budget is the
	 * user's, and one guess is taken before each lookup: neither
	 * processes nor threads multiply it), then from 3 processes one
	 * after the other, each opening /dev/memreg anew (an account left
	 * unused keeps its spent budget: reopening buys no new burst).
	 */
	guess_procs(4, 3.0, &enoent, &throttled, &tries, &secs);
	NOTE("%s: 4 processes, %ld tries in %.1f s: %ld looked up (ENOENT), %ld refused (EAGAIN)",
	     row, tries, secs, enoent, throttled);
	/* the burst (10 s' worth) plus 3 s of refill, and some slack */
	if (enoent <= rate * 14)
		OK("%s: %ld lookups in 3 s from 4 processes, at most %ld a second after the burst",
		   row, enoent, rate);
	else
		NOT_OK("%s: %ld lookups in 3 s from 4 processes: not rationed (rate %ld)",
		       row, enoent, rate);
	if (throttled)
		OK("%s: guesses past the budget refused with EAGAIN", row);
	else
		NOT_OK("%s: no guess refused", row);
	close(dfd);
	close(fd);
	/* every process of the user has closed /dev/memreg in between */
	enoent = 0;
	for (i = 0; i < 3; i++) {
		long e, t, n;
		double sx;

		guess_procs(1, 0.3, &e, &t, &n, &sx);
		enoent += e;
		secs += sx;
	}
	NOTE("%s: then 3 processes one after the other, 0.3 s each: %ld looked up",
	     row, enoent);
	if (enoent <= rate * 2)
		OK("%s: reopening buys no new burst (%ld lookups in 0.9 s)", row,
		   enoent);
	else
		NOT_OK("%s: reopening bought a new burst: %ld lookups in 0.9 s",
		       row, enoent);
}

/*
 * As root: a name of ours that uid 1000 may not import, and one that does
 * not exist, must look the same to uid 1000 (ENOENT both): the oracle a
 * guesser of short names had.
 */
static void row_ipc_oracle(void)
{
	const char *row = "ipc-oracle";
	uint8_t token[16];
	int fd = open_or_die(), dfd;

	if (geteuid()) {
		printf("ok - audit: %s # SKIP needs root to be another user\n",
		       row);
		return;
	}
	if (short_name(fd, token, &dfd)) {
		NOT_OK("%s: no name", row);
		return;
	}
	if (refusals_are(token, 1000, -ENOENT))
		OK("%s: to another user, not allowed and no such name are both ENOENT",
		   row);
	else
		NOT_OK("%s: another user tells a live name from a wrong one",
		       row);
	close(dfd);
	close(fd);
}

/*
 * Device memory that outlives its allocator: helpers of one user each
 * allocate their whole per-process limit, export it, free the handle
 * keeping the export (MEMREG_DEV_FREE_KEEP_EXPORTS), hand the dma-buf
 * over and exit.  The collector must not be able to use what it
 * collects (the exports die with their allocator), and what it holds
 * stays charged to the user: helpers are refused once the user's
 * max_user_dev_bytes is held.  The case sets max_dev_bytes to @per and
 * max_user_dev_bytes to @user_max.
 */
static int send_fd(int sock, int fd, int err)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, 0) < 0 ? -errno : 0;
}

/* A helper's dma-buf fd, or -errno (its allocation's refusal). */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = -EIO, fd = -1;
	struct iovec iov = { .iov_base = &err, .iov_len = sizeof(err) };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;

	if (recvmsg(sock, &m, 0) <= 0)
		return -EIO;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd >= 0 ? fd : err;
}

static void helper_main(int sock, uint64_t len)
{
	struct memreg_dev_free f = {
		.size = sizeof(f), .flags = MEMREG_DEV_FREE_KEEP_EXPORTS,
	};
	int fd = memtest_open(), dfd, err;
	uint64_t dev;

	/* every way out answers: the collector waits for one message */
	if (fd < 0)
		_exit(send_fd(sock, -1, -ENODEV) ? 1 : 0);
	err = dev_alloc(fd, len, &dev);
	if (err)
		_exit(send_fd(sock, -1, err) ? 1 : 0);
	dfd = dev_export(fd, dev, len);
	f.handle = dev;
	if (dfd < 0)
		_exit(send_fd(sock, -1, dfd) ? 1 : 2);
	if (ioctl(fd, MEMREG_IOC_DEV_FREE, &f))
		_exit(send_fd(sock, -1, -errno) ? 1 : 2);
	_exit(send_fd(sock, dfd, 0) ? 3 : 0);
}

/* One helper: its fd (the allocator gone), or -errno.  @sv: a pair. */
static int one_helper(const int *sv, uint64_t len)
{
	pid_t pid = fork();
	int fd, st;

	if (!pid)
		helper_main(sv[1], len);
	fd = recv_fd(sv[0]);
	waitpid(pid, &st, 0);
	return fd;
}

static void row_dev_outlive(long per_mb, long user_mb)
{
	const char *row = "dev-outlive";
	const uint64_t len = per_mb * MiB;
	long want = user_mb / per_mb - 1, got = 0, usable = 0, i;
	int sv[2], fds[16], fd = open_or_die(), err = 0;
	uint64_t own;
	void *p;

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) ||
	    dev_alloc(fd, len, &own)) {
		NOT_OK("%s: no socket pair, or no allocation of our own", row);
		return;
	}
	for (i = 0; i < 16; i++) {
		fds[i] = one_helper(sv, len);
		if (fds[i] < 0) {
			err = fds[i];
			continue;
		}
		got++;
		/* the allocator exited: nobody may use its memory now */
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fds[i], 0);
		if (p != MAP_FAILED) {
			usable++;
			munmap(p, len);
		}
		/* nor register it, to copy through TRANSFER: ENODEV */
		if (memtest_register_dmabuf(fd, fds[i], 0, 4096, NULL) !=
		    -ENODEV)
			usable++;
	}
	NOTE("%s: %ld of 16 helpers allocated %ld MiB and handed it over; %ld mappings or registrations of those made after they exited; the others: %s",
	     row, got, per_mb, usable, err ? strerror(-err) : "-");
	if (got == want && err == -ENOSPC)
		OK("%s: the user held %ld MiB (ours and %ld helpers'), then ENOSPC",
		   row, (got + 1) * per_mb, got);
	else
		NOT_OK("%s: %ld helpers allocated, want %ld then ENOSPC",
		       row, got, want);
	if (!usable)
		OK("%s: no export outlives its allocator", row);
	else
		NOT_OK("%s: %ld exports usable after their allocator exited",
		       row, usable);
	for (i = 0; i < 16; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	/* given back: a helper may allocate again */
	i = one_helper(sv, len);
	if (i >= 0) {
		OK("%s: after the collector closed them, a helper allocates again",
		   row);
		close(i);
	} else {
		NOT_OK("%s: after the collector closed them: %s", row,
		       strerror(-i));
	}
	close(sv[0]);
	close(sv[1]);
	close(fd);
}

/*
 * Hold device memory without mapping it (in no RSS): 16 MiB at a time
 * from every device until refused, then wait to be killed.
 */
static void row_dev_hold(void)
{
	struct memreg_info info;
	uint64_t total = 0;
	int fd = open_or_die(), err = 0;
	unsigned int d;

	if (memtest_info(fd, &info)) {
		NOT_OK("dev-hold: no info");
		return;
	}
	for (d = 0; d < info.devices; d++) {
		for (;;) {
			struct memreg_dev_alloc a = {
				.size = sizeof(a), .device = d, .len = 16 * MiB,
				.policy = MEMREG_DEV_NORMAL_ONLY,
			};

			if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a)) {
				err = errno;
				break;
			}
			total += a.alloc_len;
		}
	}
	NOTE("held %llu MiB of device memory, unmapped; then %s",
	     (unsigned long long)(total >> 20), strerror(err));
	for (;;)
		pause();
}

/* Anonymous memory, touched, @mb MiB of it: an innocent process. */
static void row_hog(long mb)
{
	long i;
	char *p;

	for (i = 0; i < mb; i += 16) {
		p = mmap(NULL, 16 * MiB, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			NOT_OK("hog: mmap after %ld MiB: %s", i,
			       strerror(errno));
			return;
		}
		memset(p, 0x5a, 16 * MiB);
	}
	OK("hog: %ld MiB of anonymous memory taken and touched", mb);
}

/* DEVICE registrations of one page each of a mapped allocation. */
static void row_dev_reg(void)
{
	const char *row = "dev-reg";
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = 1 * MiB,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};
	struct spend x, y;
	long n = 0;
	int fd = open_or_die(), err = 0;
	char *p;

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a) ||
	    (p = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		      fd, a.mmap_offset)) == MAP_FAILED) {
		NOT_OK("%s: no mapped allocation", row);
		return;
	}
	measure(&x);
	while (!err && n < 256 && n * 4096 < (long)a.alloc_len) {
		err = memtest_register(fd, p + n * 4096, 4096,
				       MEMREG_MEM_DEVICE, NULL);
		if (!err)
			n++;
	}
	measure(&y);
	if (n == 256)
		OK("%s: 256 registrations", row);
	else
		NOT_OK("%s: %ld registrations, then %s", row, n,
		       strerror(-err));
	if (n) {
		struct cost c = per_unit(row, &x, &y, n);

		within(row, "MemFree", c.mem, 4 * KiB);
		within(row, "VmallocUsed", c.vmalloc, 0);
	}
	close(fd);
}

/*
 * Grants (64 a registration, the limit) of 16 HOST registrations, then
 * an import of each by the same process: 1024 of each.
 */
static void row_grant_import(void)
{
	static uint8_t tokens[16 * MEMREG_MAX_GRANTS_AUDIT][16];
	struct spend a, b, c;
	long ng = 0, ni = 0, i, r;
	int fd = open_or_die(), err = 0;
	char *p;

	p = mmap(NULL, 16 * 4096, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		NOT_OK("grant: no memory");
		return;
	}
	measure(&a);
	for (r = 0; r < 16 && !err; r++) {
		struct memreg_register reg = {
			.size = sizeof(reg), .type = MEMREG_MEM_HOST,
			.addr = (uintptr_t)(p + r * 4096), .len = 4096,
			.access = MEMREG_ACCESS_REMOTE_READ,
		};
		uint64_t h = 0;

		err = ioctl(fd, MEMREG_IOC_REGISTER, &reg) ? -errno : 0;
		h = reg.handle;
		for (i = 0; !err; i++) {
			struct memreg_grant g = {
				.size = sizeof(g), .handle = h,
				.access = MEMREG_ACCESS_REMOTE_READ,
			};

			if (ioctl(fd, MEMREG_IOC_GRANT, &g)) {
				err = -errno;
				break;
			}
			memcpy(tokens[ng++], g.token, 16);
		}
		if (err == -EMFILE && i == MEMREG_MAX_GRANTS_AUDIT)
			err = 0;
	}
	measure(&b);
	if (!err && ng == 16 * MEMREG_MAX_GRANTS_AUDIT)
		OK("grant: %d a registration, then EMFILE", MEMREG_MAX_GRANTS_AUDIT);
	else
		NOT_OK("grant: %ld grants, then %s", ng, strerror(-err));
	for (i = 0; i < ng; i++) {
		struct memreg_import im = { .size = sizeof(im) };

		memcpy(im.token, tokens[i], 16);
		if (ioctl(fd, MEMREG_IOC_IMPORT, &im)) {
			NOT_OK("import: import %ld: %s", i, strerror(errno));
			break;
		}
		ni++;
	}
	measure(&c);
	if (ng) {
		struct cost g = per_unit("grant", &a, &b, ng);

		within("grant", "MemFree", g.mem, 4 * KiB);
	}
	if (ni) {
		struct cost im = per_unit("import", &b, &c, ni);

		within("import", "MemFree", im.mem, 2 * KiB);
	}
	close(fd);
	munmap(p, 16 * 4096);
}

static int mstx_ops(int fd, struct memreg_mstx_op *ops, uint32_t n)
{
	struct memreg_mstx m = {
		.size = sizeof(m), .ops = (uintptr_t)ops, .count = n,
		.op_size = sizeof(*ops),
	};

	return ioctl(fd, MEMREG_IOC_MSTX, &m) ? -errno : 0;
}

/* mstx heaps to the process's limit, then regions in one heap. */
static void row_mstx(void)
{
	static struct memreg_mstx_op ops[1024];
	struct spend a, b, c;
	long heaps = 0, regions = 0, i;
	int fd = open_or_die(), err = 0;

	measure(&a);
	while (!err) {
		struct memreg_mstx_op op = {
			.op = MEMREG_MSTX_HEAP_ADD, .heap = heaps + 1,
			.addr = (heaps + 1) << 30, .len = 1 << 30,
		};

		err = mstx_ops(fd, &op, 1);
		if (!err)
			heaps++;
	}
	measure(&b);
	if (err == -EMFILE)
		OK("mstx-heap: %ld heaps, then EMFILE", heaps);
	else
		NOT_OK("mstx-heap: %ld heaps, then %s", heaps, strerror(-err));
	/* 16384 regions of 64 bytes in heap 1, 1024 a call */
	for (err = 0; !err && regions < 16384; regions += 1024) {
		for (i = 0; i < 1024; i++)
			ops[i] = (struct memreg_mstx_op) {
				.op = MEMREG_MSTX_REGION_ADD, .heap = 1,
				.addr = (1ULL << 30) + (regions + i) * 64,
				.len = 64,
			};
		err = mstx_ops(fd, ops, 1024);
	}
	measure(&c);
	if (err)
		NOT_OK("mstx-region: region %ld: %s", regions, strerror(-err));
	if (heaps) {
		struct cost h = per_unit("mstx-heap", &a, &b, heaps);

		within("mstx-heap", "MemFree", h.mem, 4 * KiB);
	}
	if (!err) {
		struct cost r = per_unit("mstx-region", &b, &c, regions);

		/* its struct and 16 B of its heap's bucket table */
		within("mstx-region", "MemFree", r.mem, 256);
	}
	close(fd);
}

/* HOST registrations of one page each, to the process's limit. */
static void row_host_reg(void)
{
	const char *row = "host-reg";
	struct spend a, b;
	char *p;
	long n = 0;
	int fd = open_or_die(), err = 0;

	p = mmap(NULL, 1024 * 4096L, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		NOT_OK("%s: no memory", row);
		return;
	}
	measure(&a);
	while (!err && n < 1024) {
		err = memtest_register(fd, p + n * 4096, 4096,
				       MEMREG_MEM_HOST, NULL);
		if (!err)
			n++;
	}
	measure(&b);
	if (err == -EMFILE || err == -ENOMEM)
		OK("%s: %ld registrations, then %s", row, n, strerror(-err));
	else
		NOT_OK("%s: %ld registrations, then %s", row, n,
		       strerror(-err));
	if (n) {
		struct cost c = per_unit(row, &a, &b, n);

		within(row, "MemFree", c.mem, 4 * KiB);
		within(row, "VmallocUsed", c.vmalloc, 0);
	}
	close(fd);
	munmap(p, 1024 * 4096L);
}

/*
 * HOST registrations of one page each inside one registered 4 MiB buffer,
 * to the process's limit: children, which share its pages.  Each is its
 * struct and two table slots, no page array and no pin: VmPin stays.
 */
static void row_host_child(void)
{
	const char *row = "host-child";
	const long len = 1024 * 4096L;
	long long vmpin;
	struct spend a, b;
	uint64_t pool;
	char *p;
	long n = 0;
	int fd = open_or_die(), err = 0;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		NOT_OK("%s: no memory", row);
		return;
	}
	err = memtest_register(fd, p, len, MEMREG_MEM_HOST, &pool);
	if (err) {
		NOT_OK("%s: the buffer: %s", row, strerror(-err));
		goto out;
	}
	vmpin = memtest_vmpin_kb();
	measure(&a);
	while (!err && n < 1023) {
		err = memtest_register(fd, p + n * 4096, 4096,
				       MEMREG_MEM_HOST, NULL);
		if (!err)
			n++;
	}
	measure(&b);
	if (err == -EMFILE)
		OK("%s: %ld registrations, then %s", row, n, strerror(-err));
	else
		NOT_OK("%s: %ld registrations, then %s", row, n,
		       strerror(-err));
	vmpin_stays(row, vmpin);
	if (n) {
		struct cost c = per_unit(row, &a, &b, n);

		within(row, "MemFree", c.mem, 1 * KiB);
		within(row, "VmallocUsed", c.vmalloc, 0);
	}
out:
	close(fd);
	munmap(p, len);
}

/*
 * dma-bufs of one registered 4 MiB buffer, 64 KiB each, fds kept, to the
 * user's limit: each costs a dma-buf (file, inode, dentry, our export)
 * and no pin (VmPin stays), and the user's exports stop at its
 * RLIMIT_MEMLOCK with ENOMEM, since what they hold may outlive the
 * process (memreg_host_export.c).
 */
#define AUDIT_REG_EXPORTS	512

static void row_reg_export(void)
{
	const char *row = "reg-export";
	const long len = 4 * MiB, each = 64 * KiB;
	static int dfds[AUDIT_REG_EXPORTS];
	struct rlimit rl;
	long long vmpin;
	struct spend a, b;
	uint64_t h;
	long n, i;
	char *p;
	int fd = open_or_die(), err = 0;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED || getrlimit(RLIMIT_MEMLOCK, &rl)) {
		NOT_OK("%s: no memory", row);
		return;
	}
	{
		struct memreg_register r = {
			.size = sizeof(r), .type = MEMREG_MEM_HOST,
			.addr = (uintptr_t)p, .len = len,
			.access = MEMREG_ACCESS_ALL,
		};

		err = ioctl(fd, MEMREG_IOC_REGISTER, &r) ? -errno : 0;
		h = r.handle;
	}
	if (err) {
		NOT_OK("%s: the buffer: %s", row, strerror(-err));
		goto out;
	}
	vmpin = memtest_vmpin_kb();
	measure(&a);
	for (n = 0; n < AUDIT_REG_EXPORTS; n++) {
		struct memreg_reg_export e = {
			.size = sizeof(e), .flags = MEMREG_EXPORT_CLOEXEC,
			.handle = h, .offset = n * each % len, .len = each,
		};

		if (ioctl(fd, MEMREG_IOC_REG_EXPORT, &e)) {
			err = -errno;
			break;
		}
		dfds[n] = e.fd;
	}
	measure(&b);
	/* root (CAP_IPC_LOCK) passes the limit, as it passes RLIMIT_MEMLOCK */
	if (geteuid() && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / each < AUDIT_REG_EXPORTS) {
		if (err == -ENOMEM && n * each <= (long)rl.rlim_cur &&
		    (n + 1) * each > (long)rl.rlim_cur)
			OK("%s: %ld exports of %ld KiB, then ENOMEM at RLIMIT_MEMLOCK %llu",
			   row, n, (long)(each / KiB),
			   (unsigned long long)rl.rlim_cur);
		else
			NOT_OK("%s: %ld exports, then %s, RLIMIT_MEMLOCK %llu",
			       row, n, strerror(-err),
			       (unsigned long long)rl.rlim_cur);
	} else if (!err) {
		OK("%s: %ld exports (RLIMIT_MEMLOCK above them)", row, n);
	} else {
		NOT_OK("%s: export %ld: %s", row, n, strerror(-err));
	}
	vmpin_stays(row, vmpin);
	if (n) {
		struct cost c = per_unit(row, &a, &b, n);

		within(row, "MemFree", c.mem, 8 * KiB);
		within(row, "VmallocUsed", c.vmalloc, 0);
		if (c.files <= 1000)
			OK("%s: %lld.%03lld files an export", row,
			   c.files / 1000, c.files % 1000);
		else
			NOT_OK("%s: %lld.%03lld files an export, not 1", row,
			       c.files / 1000, c.files % 1000);
	}
	for (i = 0; i < n; i++)
		close(dfds[i]);
out:
	close(fd);
	munmap(p, len);
}

/* ---- per-cgroup records ---- */

/* The module's per-cgroup records (memreg -j stats .cgroups), or -1. */
static long cg_records(void)
{
	char buf[4096], *k;
	size_t n;
	FILE *f = popen("memreg -j stats", "r");

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	pclose(f);
	buf[n] = 0;
	k = strstr(buf, "\"cgroups\":");
	return k ? strtol(k + 10, NULL, 10) : -1;
}

/* Move ourselves into cgroup directory @dir: 0 or -errno. */
static int cg_enter(const char *dir)
{
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, "0", 1) != 1)
		err = -errno;
	close(fd);
	return err;
}

/* Make cgroups DIR/<prefix><i> until mkdir fails (*@mk_err), at most @max. */
static long cg_make_each(const char *dir, const char *prefix, long max,
			 int *mk_err)
{
	char sub[512];
	long n;

	*mk_err = 0;
	for (n = 0; n < max; n++) {
		snprintf(sub, sizeof(sub), "%s/%s%ld", dir, prefix, n);
		if (mkdir(sub, 0755)) {
			*mk_err = errno;
			break;
		}
	}
	return n;
}

/*
 * Enter each of the @n cgroups DIR/<prefix><i> and register one page
 * (p[i]) there on @fd; back in DIR after.  How many were charged.
 */
static long cg_charge_each(const char *dir, const char *prefix, long n,
			   int fd, char *p, int *reg_err)
{
	char sub[512];
	long i;

	*reg_err = 0;
	for (i = 0; i < n && !*reg_err; i++) {
		snprintf(sub, sizeof(sub), "%s/%s%ld", dir, prefix, i);
		*reg_err = cg_enter(sub);
		if (!*reg_err)
			*reg_err = memtest_register(fd, p + i * 4096, 4096,
						    MEMREG_MEM_HOST, NULL);
	}
	cg_enter(dir);
	return *reg_err ? i - 1 : i;
}

static void cg_remove_each(const char *dir, const char *prefix, long n)
{
	char sub[512];

	while (n--) {
		snprintf(sub, sizeof(sub), "%s/%s%ld", dir, prefix, n);
		rmdir(sub);
	}
}

/*
 * What charging in many cgroups buys (docs/security.md, the per-cgroup
 * record).  We are in DIR, a cgroup delegated to us (its directory and
 * cgroup.procs ours) with cgroup.max.descendants = @max, which is the
 * only place a user may make cgroups and move itself.  One page
 * registered in each cgroup we may make: a record each (and one per
 * ancestor), no more cgroups than @max live at a time.  Then the same
 * with each cgroup removed after its charge: a removed cgroup stays
 * (dying) while a record holds it, and dying cgroups are not counted by
 * cgroup.max.descendants, so what bounds them is the objects charged
 * (max_regions a process here): each costs a record and a dying cgroup.
 * Pages: 0..63 one a cgroup, 64..127 all in DIR, 128..191 the dying.
 */
static void row_cg_records(const char *dir, long max)
{
	const char *row = "cg-records";
	struct spend a, b, c, d, e;
	long n, m, k, r0, r1, depth = 0;
	int fd = open_or_die(), mk_err, reg_err;
	const char *q;
	char *p;

	/* three rounds of MAX registrations within max_regions (256) */
	if (!dir || max < 1 || max > 64) {
		NOT_OK("%s: usage: cg-records DIR MAX (MAX <= 64)", row);
		return;
	}
	/* the records a charge makes: DIR's and its ancestors', root's */
	for (q = dir + strlen("/sys/fs/cgroup"); *q; q++)
		depth += *q == '/';
	p = mmap(NULL, 256 * 4096L, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED) {
		NOT_OK("%s: no memory", row);
		return;
	}
	r0 = cg_records();

	/* 1: as many live cgroups as we may make, one charge each */
	measure(&a);
	n = cg_make_each(dir, "c", max + 1, &mk_err);
	measure(&b);
	k = cg_charge_each(dir, "c", n, fd, p, &reg_err);
	measure(&c);
	r1 = cg_records();
	if (n == max && mk_err == EAGAIN && k == n)
		OK("%s: %ld cgroups made, then mkdir EAGAIN (cgroup.max.descendants %ld); one page charged in each",
		   row, n, max);
	else
		NOT_OK("%s: %ld cgroups made, then mkdir %s (cgroup.max.descendants %ld); %ld charged, then %s",
		       row, n, strerror(mk_err), max, k, strerror(-reg_err));
	if (r1 - r0 >= k && r1 - r0 <= k + depth + 1)
		OK("%s: %ld records more: one a cgroup, and %ld of ancestors",
		   row, r1 - r0, r1 - r0 - k);
	else
		NOT_OK("%s: %ld records more for %ld cgroups of depth %ld",
		       row, r1 - r0, k, depth);

	/* the same number of pages in one cgroup: a registration's share */
	for (m = 0; m < k; m++)
		if (memtest_register(fd, p + (64 + m) * 4096, 4096,
				     MEMREG_MEM_HOST, NULL))
			break;
	measure(&d);
	if (k && m == k) {
		struct cost all = per_unit(row, &b, &c, k);
		struct cost reg = per_unit("cg-records (a registration alone)",
					   &c, &d, k);

		/* the cgroup core's cost of a cgroup, for the record */
		per_unit("cg-records (mkdir)", &a, &b, n);
		NOTE("%s: a record (a charge in a new cgroup less a registration) %lld B",
		     row, all.mem - reg.mem);
		within(row, "MemFree (record and registration)", all.mem,
		       8 * KiB);
		/*
		 * a 128 B record, and what entering a cgroup costs besides:
		 * its cgroup.procs' kernfs inode and dentry (reclaimable),
		 * a css_set on its way out (RCU): 1.6 KiB on 6.1
		 */
		within(row, "MemFree of the record", all.mem - reg.mem,
		       4 * KiB);
	}

	/* 2: removed after their charge: dying cgroups, by objects */
	cg_remove_each(dir, "c", n);
	measure(&d);
	m = cg_make_each(dir, "d", max, &mk_err);
	k = cg_charge_each(dir, "d", m, fd, p + 128 * 4096L, &reg_err);
	cg_remove_each(dir, "d", m);
	measure(&e);
	r1 = cg_records();
	if (m == max && k == m && r1 - r0 >= n + m)
		OK("%s: %ld cgroups removed while charged and %ld more made, charged and removed: %ld records, of dying cgroups (max.descendants %ld)",
		   row, n, m, r1 - r0, max);
	else
		NOT_OK("%s: second round %ld cgroups, %ld charged (%s), %ld records more",
		       row, m, k, strerror(-reg_err), r1 - r0);
	if (k) {
		struct cost dy = per_unit("cg-records (a dying cgroup held)",
					  &d, &e, k);

		within("cg-records (a dying cgroup held)",
		       "MemFree (dying cgroup, record, registration)", dy.mem,
		       16 * KiB);
	}
	close(fd);
	sleep(1);
	r1 = cg_records();
	if (r1 == r0)
		OK("%s: closed: records back to %ld", row, r0);
	else
		NOT_OK("%s: closed: %ld records, %ld before", row, r1, r0);
	munmap(p, 256 * 4096L);
}

int main(int argc, char **argv)
{
	const char *row = argc > 1 ? argv[1] : "";
	long arg = argc > 2 ? atol(argv[2]) : 0;
	struct utsname u;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uname(&u) == 0 && strstr(u.release, "debug")) {
		scale = 8;
		NOTE("debug kernel: bounds x%d", scale);
	}
	if (!strcmp(row, "dmabuf-reg"))
		row_dmabuf_reg();
	else if (!strcmp(row, "ipc-names"))
		row_ipc_names(arg);
	else if (!strcmp(row, "ipc-names-hold")) {
		hold = 1;
		row_ipc_names(arg);
	}
	else if (!strcmp(row, "ipc-allow"))
		row_ipc_allow();
	else if (!strcmp(row, "ipc-guess"))
		row_ipc_guess(arg);
	else if (!strcmp(row, "dev-outlive"))
		row_dev_outlive(arg, argc > 3 ? atol(argv[3]) : 0);
	else if (!strcmp(row, "dev-hold"))
		row_dev_hold();
	else if (!strcmp(row, "hog"))
		row_hog(arg);
	else if (!strcmp(row, "ipc-oracle"))
		row_ipc_oracle();
	else if (!strcmp(row, "dev-reg"))
		row_dev_reg();
	else if (!strcmp(row, "grant-import"))
		row_grant_import();
	else if (!strcmp(row, "mstx"))
		row_mstx();
	else if (!strcmp(row, "host-reg"))
		row_host_reg();
	else if (!strcmp(row, "host-child"))
		row_host_child();
	else if (!strcmp(row, "reg-export"))
		row_reg_export();
	else if (!strcmp(row, "cg-records"))
		row_cg_records(argc > 2 ? argv[2] : NULL,
			       argc > 3 ? atol(argv[3]) : 0);
	else {
		fprintf(stderr,
			"usage: memreg_audit dmabuf-reg | host-reg | host-child | reg-export | ipc-names[-hold] MAX | ipc-allow | ipc-guess RATE | ipc-oracle | dev-outlive PER_MB USER_MB | dev-hold | hog MB | dev-reg | grant-import | mstx | cg-records DIR MAX\n");
		return 2;
	}
	return failed ? 1 : 0;
}
