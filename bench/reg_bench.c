// SPDX-License-Identifier: GPL-2.0
/*
 * reg_bench - what registering and deregistering memory costs: memreg
 * (memreg_register/memreg_unregister through libmemreg) against
 * io_uring_register_buffers/io_uring_unregister_buffers and mlock/munlock
 * on the same, already faulted-in memory.
 *
 *   reg_bench [-J] [-r RUNS] [-R RUNS_1G] [-M MAX_BYTES]
 *	       [-b anon,thp,hugetlb] [-T SAMPLE_MS] [-n SLICES]
 *
 * Backings (-b none: only the floor and the slices):
 *   anon     anonymous memory on 4 KiB pages (MADV_NOHUGEPAGE)
 *   thp      anonymous memory, 2 MiB aligned, MADV_HUGEPAGE (how much of
 *	      it the kernel gave as huge pages is printed)
 *   hugetlb  MAP_HUGETLB, 2 MiB pages from the pool (the caller reserves
 *	      them: /proc/sys/vm/nr_hugepages)
 *
 * Sizes go from 4 KiB up to MAX_BYTES (default 4 GiB) by factors of 4; a
 * backing whose memory cannot be had at the largest size is measured up
 * to what could be mapped.  Every byte is faulted in before any timing, so
 * the figures are registration, not page faults.
 *
 * A sample is the mean over a number of register/deregister cycles chosen
 * so that it lasts about SAMPLE_MS (at least one cycle); RUNS samples
 * (default 5) per figure, RUNS_1G (default RUNS) from 1 GiB up, where one
 * cycle takes seconds under TCG; the three methods take turns within each
 * run so that a slow spell of the machine hits all of them.  As a floor,
 * the cost of the cheapest memreg ioctl (MEMREG_IOC_INFO through
 * memreg_info) is measured the same way.  The table shows the
 * median and the ratios of the medians; -J adds one "BENCH {...}" line per
 * figure with every sample (bench_json.h).
 *
 * io_uring refuses a buffer above 1 GiB, so a larger range is registered
 * as several 1 GiB iovecs in one io_uring_register_buffers call.  On
 * hugetlbfs mappings mlock does not lock anything (the kernel skips
 * hugetlb VMAs); its figure there is the cost of the call.  On THP, mlock
 * of less than 2 MiB splits the huge page mapping, so it runs on a huge
 * page of its own that the other two never touch.
 *
 * Slices: SLICES (default 10,000) registrations of 200 KiB slices of one
 * registered buffer of 2 GiB (or MAX_BYTES if less, or the largest that
 * could be mapped), which share its pages and pin nothing, against the
 * INFO ioctl in the same runs, and against registering 200 KiB that no
 * registration holds (pinning its 50 pages).  The slices are registered in
 * rounds the process's registration limit leaves room for, each round
 * unregistered before the next; a round's calls are timed together, after
 * as many INFO calls timed the same way (a busy machine slows both).
 *
 * Export: the first 64 MiB of that buffer (less if it is smaller) as a
 * dma-buf (memreg_reg_export), which a second process registers
 * (memreg_register_dmabuf) and copies into a buffer of its own and back:
 * the bytes it read, the copy's speed, and the pins the kernel took
 * (nr_foll_pin_acquired, as root) beyond the second process's own buffer,
 * which "register once, pin once" says are none, and the exporter's VmPin
 * before and after.
 * Figures are printed, never judged here; bench/report.py puts the targets
 * beside them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <liburing.h>
#include <memreg/memreg.h>
#include <memreg/transfer.h>

#include "bench_json.h"

#define KIB		1024UL
#define MIB		(1024 * KIB)
#define GIB		(1024 * MIB)
#define HUGE_SZ		(2 * MIB)
#define URING_MAX_BUF	GIB	/* io_uring's limit on one buffer */
#define MAX_RUNS	64
#define MAX_CYCLES	2000
#define SLICE_SZ	(200 * KIB)
#define SLICE_POOL	(2 * GIB)

enum backing { ANON, THP, HUGETLB, NR_BACKINGS };
enum method { M_MEMREG, M_URING, M_MLOCK, NR_METHODS };

static const char *const backing_name[] = { "anon", "thp", "hugetlb" };
static const char *const method_name[] = { "memreg", "io_uring", "mlock" };

static bool json;
static unsigned int runs = 5, runs_1g;
static double sample_ns = 20e6;
static unsigned long max_bytes = 4 * GIB;
static unsigned int nslices = 10000;

static struct memreg_ctx *ctx;
static struct io_uring ring;
static bool have_uring;
static struct iovec iovs[64];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "reg_bench: %s: %s\n", what, strerror(err));
	exit(1);
}

/* One memory area of one backing, faulted in. */
struct area {
	enum backing backing;
	char *base;		/* where the measured ranges start */
	unsigned long len;	/* bytes usable from base */
	char *map;		/* what to munmap */
	unsigned long map_len;
	char *mlock_small;	/* THP: the huge page for mlock below 2 MiB */
};

static void fault_in(char *p, unsigned long len)
{
	unsigned long off;

	/* one write per 4 KiB: faults every page (a THP at its first byte) */
	for (off = 0; off < len; off += 4 * KIB)
		p[off] = 1;
}

static bool area_map(struct area *a, enum backing b, unsigned long len)
{
	unsigned long extra = 0, head;
	char *p;
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;

	memset(a, 0, sizeof(*a));
	a->backing = b;
	if (b == HUGETLB) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		if (p == MAP_FAILED)
			return false;
		a->map = a->base = p;
		a->map_len = a->len = len;
	} else {
		/* THP: 2 MiB alignment by mapping more and trimming */
		if (b == THP)
			extra = 2 * HUGE_SZ;
		p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, flags,
			 -1, 0);
		if (p == MAP_FAILED)
			return false;
		a->map = p;
		a->map_len = len + extra;
		if (b == THP) {
			head = (HUGE_SZ - (unsigned long)p % HUGE_SZ) % HUGE_SZ;
			if (head)
				munmap(p, head);
			a->map = p + head;
			a->map_len = len + HUGE_SZ;
			if (extra - head > HUGE_SZ)
				munmap(a->map + a->map_len,
				       extra - head - HUGE_SZ);
			a->mlock_small = a->map + len;
		}
		a->base = a->map;
		a->len = len;
		if (madvise(a->map, a->map_len,
			    b == THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
			die("madvise", errno);
	}
	/* memory the kernel cannot back ends the program here (OOM) */
	fault_in(a->map, a->map_len);
	return true;
}

/* Bytes of the area the kernel backs with huge pages, from smaps. */
static unsigned long area_huge_bytes(const struct area *a)
{
	unsigned long kb, huge = 0, start, end;
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;
	char line[256];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		/* a VMA's first line: "start-end perms ..." */
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in = start >= (unsigned long)a->map &&
			     end <= (unsigned long)a->map + a->map_len;
		if (!in)
			continue;
		if (sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
			huge += kb * KIB;
		if (sscanf(line, "Private_Hugetlb: %lu kB", &kb) == 1)
			huge += kb * KIB;
	}
	fclose(f);
	return huge;
}

static char *range_of(const struct area *a, enum method m, unsigned long len)
{
	if (m == M_MLOCK && a->mlock_small && len < HUGE_SZ)
		return a->mlock_small;
	return a->base;
}

/*
 * One register and one deregister of [p, p+len) with @m; adds the time of
 * each to *reg and *unreg.
 */
static void cycle(enum method m, char *p, unsigned long len, double *reg,
		  double *unreg)
{
	unsigned long off, n;
	uint64_t handle;
	double t0, t1, t2;
	int err = 0;

	switch (m) {
	case M_MEMREG:
		t0 = now_ns();
		err = memreg_register(ctx, p, len, MEMREG_MEM_HOST, 0, &handle);
		t1 = now_ns();
		if (err)
			die("memreg_register", errno);
		err = memreg_unregister(ctx, handle);
		t2 = now_ns();
		if (err)
			die("memreg_unregister", errno);
		break;
	case M_URING:
		for (n = 0, off = 0; off < len; off += URING_MAX_BUF, n++) {
			iovs[n].iov_base = p + off;
			iovs[n].iov_len = len - off < URING_MAX_BUF ?
					  len - off : URING_MAX_BUF;
		}
		t0 = now_ns();
		err = io_uring_register_buffers(&ring, iovs, n);
		t1 = now_ns();
		if (err)
			die("io_uring_register_buffers", -err);
		err = io_uring_unregister_buffers(&ring);
		t2 = now_ns();
		if (err)
			die("io_uring_unregister_buffers", -err);
		break;
	default:
		t0 = now_ns();
		err = mlock(p, len);
		t1 = now_ns();
		if (err)
			die("mlock", errno);
		err = munlock(p, len);
		t2 = now_ns();
		if (err)
			die("munlock", errno);
		break;
	}
	*reg += t1 - t0;
	*unreg += t2 - t1;
}

struct figure {
	double reg[MAX_RUNS];	/* ns per register, one per run */
	double unreg[MAX_RUNS];
	unsigned int cycles;	/* cycles per sample */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_RUNS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void label_size(char *buf, size_t len, unsigned long bytes)
{
	if (bytes >= GIB)
		snprintf(buf, len, "%lu GiB", bytes / GIB);
	else if (bytes >= MIB)
		snprintf(buf, len, "%lu MiB", bytes / MIB);
	else
		snprintf(buf, len, "%lu KiB", bytes / KIB);
}

static unsigned int runs_for(unsigned long len)
{
	return len >= GIB ? runs_1g : runs;
}

static void measure_size(const struct area *a, unsigned long len,
			 struct figure *fig)
{
	double reg, unreg, t;
	unsigned int r, i, m;

	/*
	 * One warm-up cycle per method: it loads caches and code and says
	 * how many cycles fill a sample.  Once a method's single cycle fills
	 * a sample the sizes above it need one cycle too (they cost no less),
	 * and the warm-up is skipped: at 4 GiB a cycle of io_uring on huge
	 * pages takes seconds under TCG.
	 */
	for (m = 0; m < NR_METHODS; m++) {
		if ((m == M_URING && !have_uring) || fig[m].cycles == 1)
			continue;
		reg = unreg = 0;
		cycle(m, range_of(a, m, len), len, &reg, &unreg);
		t = reg + unreg;
		fig[m].cycles = t >= sample_ns ? 1 :
				t * MAX_CYCLES < sample_ns ? MAX_CYCLES :
				(unsigned int)(sample_ns / t);
	}
	for (r = 0; r < runs_for(len); r++) {
		for (m = 0; m < NR_METHODS; m++) {
			if (m == M_URING && !have_uring)
				continue;
			reg = unreg = 0;
			for (i = 0; i < fig[m].cycles; i++)
				cycle(m, range_of(a, m, len), len, &reg,
				      &unreg);
			fig[m].reg[r] = reg / fig[m].cycles;
			fig[m].unreg[r] = unreg / fig[m].cycles;
		}
	}
}

static void print_size(const struct area *a, unsigned long len,
		       const struct figure *fig)
{
	double reg[NR_METHODS] = { 0 }, unreg[NR_METHODS] = { 0 };
	struct bj j;
	char lab[32];
	unsigned int m;

	unsigned int n = runs_for(len);

	for (m = 0; m < NR_METHODS; m++) {
		if (m == M_URING && !have_uring)
			continue;
		reg[m] = median(fig[m].reg, n) / 1e3;
		unreg[m] = median(fig[m].unreg, n) / 1e3;
		if (!json)
			continue;
		bj_begin(&j, "reg");
		bj_str(&j, "backing", backing_name[a->backing]);
		bj_str(&j, "method", method_name[m]);
		bj_u64(&j, "size", len);
		bj_u64(&j, "cycles", fig[m].cycles);
		bj_samples(&j, "reg_ns", fig[m].reg, n);
		bj_samples(&j, "unreg_ns", fig[m].unreg, n);
		bj_end(&j);
	}
	label_size(lab, sizeof(lab), len);
	printf("%-8s %10.1f %9.1f  %10.1f %9.1f  %10.1f %9.1f   %6.2f %7.2f\n",
	       lab, reg[M_MEMREG], unreg[M_MEMREG], reg[M_URING],
	       unreg[M_URING], reg[M_MLOCK], unreg[M_MLOCK],
	       have_uring ? reg[M_MEMREG] / reg[M_URING] : 0.0,
	       reg[M_MEMREG] / reg[M_MLOCK]);
}

static void run_backing(enum backing b)
{
	struct figure fig[NR_METHODS];
	unsigned long len = max_bytes, size, huge;
	struct area a;
	struct bj j;

	/* the largest size of the series this backing can have */
	while (!area_map(&a, b, len)) {
		if (len <= 4 * KIB) {
			printf("# %s: no memory could be mapped (%s)\n",
			       backing_name[b], strerror(errno));
			return;
		}
		len /= 4;
	}
	huge = area_huge_bytes(&a);
	printf("\n# %s: %lu MiB mapped and faulted in, %lu MiB of it on huge pages\n",
	       backing_name[b], a.map_len / MIB, huge / MIB);
	if (json) {
		bj_begin(&j, "reg_area");
		bj_str(&j, "backing", backing_name[b]);
		bj_u64(&j, "bytes", a.map_len);
		bj_u64(&j, "huge_bytes", huge);
		bj_end(&j);
	}
	printf("# us per call, median of %u runs (%u from 1 GiB); ratios of the registering calls\n",
	       runs, runs_1g);
	printf("%-8s %10s %9s  %10s %9s  %10s %9s   %6s %7s\n", "size",
	       "memreg", "dereg", "io_uring", "unreg", "mlock", "munlock",
	       "m/io", "m/mlock");
	memset(fig, 0, sizeof(fig));
	for (size = 4 * KIB; size <= len; size *= 4) {
		measure_size(&a, size, fig);
		print_size(&a, size, fig);
	}
	munmap(a.map, a.map_len);
}

/*
 * The floor under every memreg figure: a round trip into the module that
 * does no work (MEMREG_IOC_INFO), timed like the registrations.
 */
static void measure_floor(void)
{
	struct memreg_lib_info info;
	double t0, ns[MAX_RUNS];
	unsigned int r, i, k = 1000;
	struct bj j;

	for (r = 0; r < runs; r++) {
		t0 = now_ns();
		for (i = 0; i < k; i++)
			if (memreg_info(ctx, &info))
				die("memreg_info", errno);
		ns[r] = (now_ns() - t0) / k;
	}
	printf("# floor: memreg_info (the INFO ioctl, no work) %.1f us per call\n",
	       median(ns, runs) / 1e3);
	if (json) {
		bj_begin(&j, "reg_floor");
		bj_u64(&j, "calls", k);
		bj_samples(&j, "info_ns", ns, runs);
		bj_end(&j);
	}
}

/*
 * Registrations of @len bytes at each of @addrs[0..@n), then their
 * deregistrations: ns of all calls.  With @info, as many INFO calls
 * first, so that the two meet the same spells of a busy machine.
 */
static void slice_round(char *const *addrs, unsigned int n, unsigned long len,
			uint64_t *handles, double *reg, double *unreg,
			double *info)
{
	struct memreg_lib_info li;
	unsigned int i;
	double t0;

	if (info) {
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (memreg_info(ctx, &li))
				die("memreg_info", errno);
		*info += now_ns() - t0;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (memreg_register(ctx, addrs[i], len, MEMREG_MEM_HOST, 0,
				    &handles[i]))
			die("memreg_register (slice)", errno);
	*reg += now_ns() - t0;
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (memreg_unregister(ctx, handles[i]))
			die("memreg_unregister (slice)", errno);
	*unreg += now_ns() - t0;
}

/*
 * Register once, pin once: slices of a registered buffer, each against
 * one INFO call, in the same runs.
 */
/* The kernel's pins taken since boot, exact (root); -1 if unreadable. */
static long long pins_acquired(void)
{
	char name[64];
	long long v, found = -1;
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "w");

	if (!f || fputs("1", f) == EOF || fclose(f))
		return -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2)
		if (!strcmp(name, "nr_foll_pin_acquired"))
			found = v;
	fclose(f);
	return found;
}

static long long vmpin_kb(void)
{
	char line[128];
	long long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %lld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/*
 * The second process: registers the dma-buf @dfd, reads all of it into a
 * registered buffer of its own (checking the bytes: 0x5a), writes it back
 * as 0xa5.  Its exit status: 0, or where it failed; the read's speed in
 * bytes a second goes back through @pipefd.
 */
static int export_importer(int dfd, unsigned long len, int pipefd)
{
	struct memreg_xfer_desc d = { 0 };
	uint8_t token[MEMREG_TOKEN_LEN];
	struct memreg_remote rem;
	struct memreg_ctx *c;
	uint64_t dh, own_h;
	double t0, bps;
	unsigned long i;
	char *own;

	own = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (own == MAP_FAILED)
		return 2;
	madvise(own, len, MADV_NOHUGEPAGE);
	fault_in(own, len);
	if (memreg_open(&c) ||
	    memreg_register_dmabuf(c, dfd, 0, len, MEMREG_ACCESS_ALL, &dh) ||
	    memreg_grant(c, dh, MEMREG_ACCESS_ALL, token) ||
	    memreg_import(c, token, &rem) ||
	    memreg_register(c, own, len, MEMREG_MEM_HOST, 0, &own_h))
		return 3;
	d.op = MEMREG_XFER_READ;
	d.local_handle = own_h;
	d.local_addr = (uintptr_t)own;
	d.remote_handle = rem.handle;
	d.remote_addr = rem.addr;
	d.len = len;
	t0 = now_ns();
	if (memreg_transfer(c, &d, 1, NULL, NULL))
		return 4;
	bps = len / ((now_ns() - t0) / 1e9);
	for (i = 0; i < len; i += 4 * KIB)
		if (own[i] != 0x5a || own[i + 4 * KIB - 1] != 0x5a)
			return 5;
	memset(own, 0xa5, len);
	d.op = MEMREG_XFER_WRITE;
	if (memreg_transfer(c, &d, 1, NULL, NULL))
		return 6;
	if (write(pipefd, &bps, sizeof(bps)) != sizeof(bps))
		return 7;
	memreg_close(c);
	return 0;
}

/*
 * Register once, pin once, for another process: export part of the
 * registered pool (@p, @pool) and let a second process copy through it.
 */
static void measure_export(uint64_t pool, char *p, unsigned long pool_len)
{
	unsigned long len = pool_len < 64 * MIB ? pool_len : 64 * MIB, i;
	long long pins0, pins1, vmpin0, vmpin1, extra;
	double bps = 0;
	int dfd, pfd[2], st, bad = 0;
	struct bj j;
	pid_t pid;

	memset(p, 0x5a, len);
	vmpin0 = vmpin_kb();
	pins0 = pins_acquired();
	if (memreg_reg_export(ctx, pool, 0, len, &dfd)) {
		printf("# export: memreg_reg_export: %s\n", strerror(errno));
		return;
	}
	if (pipe(pfd))
		die("pipe", errno);
	pid = fork();
	if (pid < 0)
		die("fork", errno);
	if (!pid)
		_exit(export_importer(dfd, len, pfd[1]));
	close(pfd[1]);
	if (read(pfd[0], &bps, sizeof(bps)) != sizeof(bps))
		bps = 0;
	close(pfd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	close(dfd);
	pins1 = pins_acquired();
	vmpin1 = vmpin_kb();
	/* the second process wrote 0xa5 into our pages */
	for (i = 0; i < len && !bad; i += 4 * KIB)
		if (p[i] != (char)0xa5)
			bad = 8;
	extra = pins0 < 0 || pins1 < 0 ? -1 :
		pins1 - pins0 - (long long)(len / (4 * KIB));
	printf("# export: %lu MiB of the registered buffer as a dma-buf; a second process registered it, read it (%.2f GB/s) and wrote it back: %s; pins taken beyond its own buffer's %lu: %lld; VmPin %lld kB before, %lld after\n",
	       len / MIB, bps / 1e9, bad ? "FAILED" : "every byte", len / (4 * KIB),
	       extra, vmpin0, vmpin1);
	if (bad)
		printf("# export: the second process failed at step %d\n", bad);
	if (json) {
		bj_begin(&j, "reg_export");
		bj_u64(&j, "bytes", len);
		bj_u64(&j, "bytes_ok", !bad);
		bj_num(&j, "extra_pins", extra);
		bj_num(&j, "vmpin_before_kb", vmpin0);
		bj_num(&j, "vmpin_after_kb", vmpin1);
		bj_num(&j, "read_bps", bps);
		bj_end(&j);
	}
}

static void measure_slices(void)
{
	double info_ns[MAX_RUNS], reg_ns[MAX_RUNS], unreg_ns[MAX_RUNS];
	double alone_ns[MAX_RUNS], reg, unreg, inf;
	unsigned long pool_len = max_bytes < SLICE_POOL ? max_bytes : SLICE_POOL;
	unsigned int r, i, done, n, room, k = 100;
	struct memreg_lib_info info;
	uint64_t pool, *handles;
	char *p, *alone, **addrs;
	struct bj j;
	char lab[32];

	if (!nslices)
		return;
	for (;;) {
		p = mmap(NULL, pool_len + SLICE_SZ, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			break;
		if (pool_len <= 4 * SLICE_SZ) {
			printf("# slices: no memory could be mapped\n");
			return;
		}
		pool_len /= 2;
	}
	fault_in(p, pool_len + SLICE_SZ);
	/* 200 KiB beside the pool, registered on its own: it pins */
	alone = p + pool_len;
	/* peers may read and write it: it is exported below */
	if (memreg_register(ctx, p, pool_len, MEMREG_MEM_HOST,
			    MEMREG_ACCESS_ALL, &pool))
		die("memreg_register (pool)", errno);
	if (memreg_info(ctx, &info))
		die("memreg_info", errno);
	/* (a limit may be "unlimited": compared before it is narrowed) */
	room = info.max_regions - info.regions < nslices ?
	       (unsigned int)(info.max_regions - info.regions) : nslices;
	if (!room)
		die("no registration left for slices", EMFILE);
	addrs = calloc(nslices, sizeof(*addrs));
	handles = calloc(room, sizeof(*handles));
	if (!addrs || !handles)
		die("calloc", ENOMEM);
	/* each slice a different range of the pool where it has room */
	for (i = 0; i < nslices; i++)
		addrs[i] = p + (i * SLICE_SZ) % (pool_len - SLICE_SZ + 1);

	/* one round unmeasured: caches, code, the allocator's slabs */
	reg = unreg = inf = 0;
	slice_round(addrs, room, SLICE_SZ, handles, &reg, &unreg, &inf);
	for (r = 0; r < runs; r++) {
		reg = unreg = inf = 0;
		for (done = 0; done < nslices; done += n) {
			n = nslices - done < room ? nslices - done : room;
			slice_round(addrs + done, n, SLICE_SZ, handles, &reg,
				    &unreg, &inf);
		}
		reg_ns[r] = reg / nslices;
		unreg_ns[r] = unreg / nslices;
		info_ns[r] = inf / nslices;

		reg = unreg = 0;
		for (i = 0; i < k; i++)
			slice_round(&alone, 1, SLICE_SZ, handles, &reg, &unreg,
				    NULL);
		alone_ns[r] = reg / k;
	}
	measure_export(pool, p, pool_len);
	if (memreg_unregister(ctx, pool))
		die("memreg_unregister (pool)", errno);
	munmap(p, pool_len + SLICE_SZ);
	free(addrs);
	free(handles);

	label_size(lab, sizeof(lab), pool_len);
	printf("\n# slices: %u registrations of 200 KiB slices of a registered %s buffer, %u live at most\n",
	       nslices, lab, room);
	printf("# us per call, median of %u runs: register %.2f, deregister %.2f; INFO %.2f; register / INFO %.2f; 200 KiB registered on its own %.2f\n",
	       runs, median(reg_ns, runs) / 1e3, median(unreg_ns, runs) / 1e3,
	       median(info_ns, runs) / 1e3,
	       median(reg_ns, runs) / median(info_ns, runs),
	       median(alone_ns, runs) / 1e3);
	if (json) {
		bj_begin(&j, "reg_slices");
		bj_u64(&j, "pool", pool_len);
		bj_u64(&j, "slice", SLICE_SZ);
		bj_u64(&j, "slices", nslices);
		bj_u64(&j, "live", room);
		bj_samples(&j, "reg_ns", reg_ns, runs);
		bj_samples(&j, "unreg_ns", unreg_ns, runs);
		bj_samples(&j, "info_ns", info_ns, runs);
		bj_samples(&j, "alone_ns", alone_ns, runs);
		bj_end(&j);
	}
}

static int parse_backings(const char *s, bool *want)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned int b;
	int ok = 1;

	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		/* the floor and the slices alone */
		if (!strcmp(tok, "none"))
			continue;
		for (b = 0; b < NR_BACKINGS; b++)
			if (!strcmp(tok, backing_name[b]))
				break;
		if (b == NR_BACKINGS)
			ok = 0;
		else
			want[b] = true;
	}
	free(copy);
	return ok;
}

int main(int argc, char **argv)
{
	bool want[NR_BACKINGS] = { false };
	bool any = false;
	unsigned int b;
	int opt, err;

	while ((opt = getopt(argc, argv, "Jr:R:M:b:T:n:")) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			runs_1g = strtoul(optarg, NULL, 0);
			break;
		case 'M':
			max_bytes = strtoul(optarg, NULL, 0);
			break;
		case 'b':
			if (!parse_backings(optarg, want))
				goto usage;
			any = true;
			break;
		case 'T':
			sample_ns = atof(optarg) * 1e6;
			break;
		case 'n':
			nslices = strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	if (!runs_1g)
		runs_1g = runs;
	if (!runs || runs > MAX_RUNS || runs_1g > MAX_RUNS ||
	    max_bytes < 4 * KIB)
		goto usage;
	if (!any)
		want[ANON] = want[THP] = want[HUGETLB] = true;
	setvbuf(stdout, NULL, _IOLBF, 0);

	err = memreg_open(&ctx);
	if (err) {
		fprintf(stderr, "reg_bench: memreg_open: %s (run it in a VM: tests/vm/run)\n",
			memreg_strerror(err));
		return 1;
	}
	err = io_uring_queue_init(4, &ring, 0);
	have_uring = !err;
	if (err)
		printf("# io_uring unavailable (%s): no io_uring figures\n",
		       strerror(-err));
	printf("# prefaulted memory; io_uring ranges above 1 GiB as 1 GiB iovecs\n");
	measure_floor();
	measure_slices();
	for (b = 0; b < NR_BACKINGS; b++)
		if (want[b])
			run_backing(b);
	if (have_uring)
		io_uring_queue_exit(&ring);
	memreg_close(ctx);
	return 0;
usage:
	fprintf(stderr,
		"usage: %s [-J] [-r RUNS] [-R RUNS_1G] [-M MAX_BYTES] [-b anon,thp,hugetlb] [-T SAMPLE_MS] [-n SLICES]\n",
		argv[0]);
	return 2;
}
