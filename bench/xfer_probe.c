// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_probe - one process's MEMREG_IOC_TRANSFER against an SSE2 copy of
 * the same buffers, size by size, for finding where a transfer's time
 * goes (issue 32).  Both buffers are this process's own: one registered
 * and granted, imported by ourselves, the other registered locally.
 *
 *   xfer_probe [-t SECS] [-b DESC_BYTES] [-H thp|nothp|default]
 *              [-L SECS] SIZE_MiB...
 *
 * -b splits each size into descriptors of that many bytes (one call);
 * -L loops the transfer of each size (SIZE_MiB[/DESC_BYTES]) for SECS
 * seconds in turn, after a line PHASE-<n> (for a profiler watching from
 * outside).
 * Prints, per size: GB/s of the module, of the SSE2 loop, their ratio,
 * and the buffers' AnonHugePages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/memreg.h>

#include "copy_sse2.h"

static double secs = 0.6;
static size_t desc_bytes;
static int fd;
static uint64_t lh, rh;
static uint8_t *lbuf, *rbuf;
static struct memreg_xfer_desc *descs;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static uint8_t *map(size_t len, int thp)
{
	uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	if (thp == 1 && madvise(p, len, MADV_HUGEPAGE))
		die("madvise");
	if (thp == 0 && madvise(p, len, MADV_NOHUGEPAGE))
		die("madvise");
	memset(p, 0x5a, len);
	return p;
}

static uint64_t reg(void *p, size_t len)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_HOST,
		.addr = (uintptr_t)p, .len = len, .access = MEMREG_ACCESS_ALL,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		die("MEMREG_IOC_REGISTER");
	return r.handle;
}

static void xfer(size_t len)
{
	size_t bl = desc_bytes && desc_bytes < len ? desc_bytes : len;
	uint32_t i, n = len / bl;
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)descs, .count = n,
		.desc_size = sizeof(*descs),
	};

	for (i = 0; i < n; i++)
		descs[i] = (struct memreg_xfer_desc){
			.op = MEMREG_XFER_READ,
			.local_handle = lh, .local_addr = (uintptr_t)lbuf + i * bl,
			.remote_handle = rh,
			.remote_addr = (uintptr_t)rbuf + i * bl, .len = bl,
		};
	if (ioctl(fd, MEMREG_IOC_TRANSFER, &t))
		die("MEMREG_IOC_TRANSFER");
}

static void vec(size_t len)
{
	copy_sse2(lbuf, rbuf, len);
}

/* GB/s of @fn on @len: the best of three trials of secs / 3 each. */
static double measure(void (*fn)(size_t), size_t len)
{
	double t0, t, g, best = 0;
	unsigned long reps;
	int trial;

	fn(len);
	for (trial = 0; trial < 3; trial++) {
		reps = 0;
		t0 = now();
		do {
			fn(len);
			reps++;
			t = now() - t0;
		} while (t < secs / 3 || reps < 2);
		g = (double)len * reps / t / 1e9;
		if (g > best)
			best = g;
	}
	return best;
}

/* the page frame number behind @p (root only), 0 if unknown */
static uint64_t pfn_of(int pm, const void *p)
{
	uint64_t e;

	if (pread(pm, &e, 8, (uintptr_t)p / 4096 * 8) != 8 || !(e >> 63))
		return 0;
	return e & ((1ULL << 55) - 1);
}

/*
 * How the source and destination page of each copied pair sit against
 * each other: a count by the largest power of two (in pages) dividing
 * their distance.  A softmmu TLB of 2^k entries, indexed by page number,
 * puts both pages of a pair in one slot when that power is >= 2^k.
 */
static void alias_stats(size_t len)
{
	unsigned long count[64] = { 0 };
	int pm = open("/proc/self/pagemap", O_RDONLY), k;
	size_t i;

	if (pm < 0)
		return;
	for (i = 0; i < len; i += 4096) {
		uint64_t a = pfn_of(pm, rbuf + i), b = pfn_of(pm, lbuf + i);

		if (!a || !b)
			continue;
		count[a == b ? 63 : __builtin_ctzll(a - b)]++;
	}
	close(pm);
	printf("# pairs by 2^k pages dividing dst-src:");
	for (k = 0; k < 64; k++)
		if (count[k])
			printf(" k%d:%lu", k, count[k]);
	printf("\n");
}

/* AnonHugePages of the mapping at @p, in KiB, from smaps */
static long huge_kb(void *p)
{
	char line[256];
	unsigned long lo, hi;
	long kb = -1;
	int in = 0;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line; no field name parses as two */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (in && sscanf(line, "AnonHugePages: %ld", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	struct memreg_grant g = { .size = sizeof(g) };
	struct memreg_import im = { .size = sizeof(im) };
	size_t max = 0, len;
	double loop = 0, m, v;
	int opt, thp = -1, i;
	uint64_t gh;

	while ((opt = getopt(argc, argv, "t:b:H:L:")) != -1) {
		if (opt == 't')
			secs = atof(optarg);
		else if (opt == 'b')
			desc_bytes = strtoul(optarg, NULL, 0);
		else if (opt == 'H')
			thp = !strcmp(optarg, "thp") ? 1 :
			      !strcmp(optarg, "nothp") ? 0 : -1;
		else if (opt == 'L')
			loop = atof(optarg);
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	for (i = optind; i < argc; i++) {
		len = strtoul(argv[i], NULL, 0) << 20;
		if (len > max)
			max = len;
	}
	fd = open("/dev/memreg", O_RDWR);
	if (fd < 0)
		die("/dev/memreg");
	rbuf = map(max, thp);
	lbuf = map(max, thp);
	descs = calloc(max / 4096 + 1, sizeof(*descs));
	gh = reg(rbuf, max);
	lh = reg(lbuf, max);
	g.access = MEMREG_ACCESS_ALL;
	g.handle = gh;
	if (ioctl(fd, MEMREG_IOC_GRANT, &g))
		die("MEMREG_IOC_GRANT");
	memcpy(im.token, g.token, sizeof(im.token));
	if (ioctl(fd, MEMREG_IOC_IMPORT, &im))
		die("MEMREG_IOC_IMPORT");
	rh = im.handle;

	if (loop > 0) {
		/* each size in turn, after a marker a watcher can wait for */
		for (i = optind; i < argc; i++) {
			double t0 = now();
			unsigned long reps = 0;
			char *slash;

			len = strtoul(argv[i], &slash, 0) << 20;
			desc_bytes = *slash == '/' ? strtoul(slash + 1, NULL, 0) : 0;
			printf("PHASE-%d %zu MiB descs %zu\n", i - optind, len >> 20,
			       desc_bytes);
			fflush(stdout);
			do {
				xfer(len);
				reps++;
			} while (now() - t0 < loop);
			printf("loop %zu MiB descs %zu: %.3f GB/s\n", len >> 20,
			       desc_bytes, (double)len * reps / (now() - t0) / 1e9);
			fflush(stdout);
		}
		return 0;
	}
	printf("# src %p dst %p, AnonHugePages %ld + %ld KiB, descs of %zu\n",
	       rbuf, lbuf, huge_kb(rbuf), huge_kb(lbuf), desc_bytes);
	alias_stats(max);
	printf("%8s %8s %8s %6s\n", "MiB", "module", "vec", "m/vec");
	for (i = optind; i < argc; i++) {
		len = strtoul(argv[i], NULL, 0) << 20;
		m = measure(xfer, len);
		v = measure(vec, len);
		printf("%8zu %8.3f %8.3f %6.2f\n", len >> 20, m, v, m / v);
	}
	return 0;
}
