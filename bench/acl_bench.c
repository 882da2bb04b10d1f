// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Figures for the ACL runtime: aclrtAllocatorGetByStream (needs no
 * device, so it runs anywhere) and aclrtMalloc/aclrtFree latency per
 * policy and size on the emulated devices (needs the module).  Prints
 * figures; asserts nothing about them.
 *
 *   acl_bench [-J] [-r RUNS] [ITERS]
 *
 * -r repeats the whole measurement RUNS times (default 1), printing each.
 * -J adds "BENCH {...}" lines (bench_json.h) with every run's figure and a
 * baseline measured beside it in the same process: for GetByStream an
 * uncontended pthread mutex lock and unlock (the least a lookup behind one
 * lock can cost), for aclrtMalloc/aclrtFree an mmap(MAP_POPULATE) and
 * munmap of the same bytes (fresh, committed anonymous memory).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <acl/acl.h>

#include "bench_json.h"

#define MAX_RUNS	64

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void *b_alloc(aclrtAllocator a, size_t s) { (void)a; (void)s; return NULL; }
static void b_free(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void *b_addr(aclrtAllocatorBlock b) { return b; }

#define STREAMS	1000

static bool json;
static unsigned int runs = 1;

/* ns per op of GetByStream (1000 streams, one stream) and of the mutex */
static double gbs_many[MAX_RUNS], gbs_one[MAX_RUNS], mutex_ns[MAX_RUNS];

static double bench_mutex(unsigned long iters)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static volatile unsigned long counter;
	unsigned long i;
	double t0;

	t0 = now_ns();
	for (i = 0; i < iters; i++) {
		pthread_mutex_lock(&lock);
		counter++;
		pthread_mutex_unlock(&lock);
	}
	return (now_ns() - t0) / iters;
}

static void bench_get_by_stream(unsigned long iters, unsigned int run)
{
	static char streams[STREAMS];
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc(), out;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocator obj;
	unsigned long i, bad = 0;
	double t0, t1;
	int s;

	aclrtAllocatorSetObjToDesc(d, streams);
	aclrtAllocatorSetAllocFuncToDesc(d, b_alloc);
	aclrtAllocatorSetFreeFuncToDesc(d, b_free);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, b_addr);
	for (s = 0; s < STREAMS; s++)
		aclrtAllocatorRegister(&streams[s], d);

	/* As GE calls it: descriptor, object and functions. */
	t0 = now_ns();
	for (i = 0; i < iters; i++)
		bad += aclrtAllocatorGetByStream(&streams[i % STREAMS], &out, &obj,
						 &alloc, NULL, NULL, NULL) != ACL_SUCCESS;
	t1 = now_ns();
	gbs_many[run] = (t1 - t0) / iters;
	printf("aclrtAllocatorGetByStream: %.1f ns/op (%d streams registered, %lu calls%s)\n",
	       (t1 - t0) / iters, STREAMS, iters, bad ? ", FAILURES" : "");

	t0 = now_ns();
	for (i = 0; i < iters; i++)
		bad += aclrtAllocatorGetByStream(&streams[STREAMS - 1], &out, NULL,
						 NULL, NULL, NULL, NULL) != ACL_SUCCESS;
	t1 = now_ns();
	gbs_one[run] = (t1 - t0) / iters;
	printf("aclrtAllocatorGetByStream: %.1f ns/op (one stream, descriptor only)\n",
	       (t1 - t0) / iters);
	if (json)
		mutex_ns[run] = bench_mutex(iters);

	for (s = 0; s < STREAMS; s++)
		aclrtAllocatorUnregister(&streams[s]);
	aclrtAllocatorDestroyDesc(d);
}

static const struct {
	aclrtMemMallocPolicy policy;
	const char *name;
} policies[] = {
	{ ACL_MEM_MALLOC_HUGE_FIRST, "HUGE_FIRST" },
	{ ACL_MEM_MALLOC_HUGE_ONLY, "HUGE_ONLY" },
	{ ACL_MEM_MALLOC_NORMAL_ONLY, "NORMAL_ONLY" },
};
#define NR_POLICIES	(sizeof(policies) / sizeof(policies[0]))
static const size_t sizes[] = { 4096, 1 << 20, 4 << 20, 32 << 20 };
#define NR_SIZES	(sizeof(sizes) / sizeof(sizes[0]))

/* ns per call, per policy, size and run; < 0 where every call failed */
static double malloc_ns[NR_POLICIES][NR_SIZES][MAX_RUNS];
static double free_ns[NR_POLICIES][NR_SIZES][MAX_RUNS];
static double mmap_ns[NR_SIZES][MAX_RUNS], munmap_ns[NR_SIZES][MAX_RUNS];
static bool have_device;

/*
 * The baseline: fresh anonymous memory of the bytes aclrtMalloc takes
 * (ALIGN_UP(size, 32) + 32, in whole pages), committed at the call as
 * aclrtMalloc's pages are.
 */
static void bench_mmap(unsigned int iters, unsigned int z, unsigned int run)
{
	size_t len = (((sizes[z] + 31) & ~(size_t)31) + 32 + 4095) & ~4095UL;
	double t_map = 0, t_unmap = 0, t0;
	unsigned int i;
	void *p;

	for (i = 0; i < iters; i++) {
		t0 = now_ns();
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		t_map += now_ns() - t0;
		if (p == MAP_FAILED)
			continue;
		t0 = now_ns();
		munmap(p, len);
		t_unmap += now_ns() - t0;
	}
	mmap_ns[z][run] = t_map / iters;
	munmap_ns[z][run] = t_unmap / iters;
}

static void bench_malloc(unsigned int iters, unsigned int run)
{
	double t_alloc, t_free, t0;
	unsigned int i, p, z, fails;
	aclError ret;
	void *ptr;

	ret = aclInit(NULL);
	if (ret == ACL_SUCCESS)
		ret = aclrtSetDevice(0);
	if (ret != ACL_SUCCESS) {
		printf("aclrtMalloc/aclrtFree: no device (error %d): run it in a VM, bench/run-acl\n",
		       ret);
		aclFinalize();
		return;
	}
	have_device = true;
	for (p = 0; p < NR_POLICIES; p++) {
		for (z = 0; z < NR_SIZES; z++) {
			t_alloc = t_free = 0;
			fails = 0;
			for (i = 0; i < iters; i++) {
				t0 = now_ns();
				ret = aclrtMalloc(&ptr, sizes[z], policies[p].policy);
				t_alloc += now_ns() - t0;
				if (ret != ACL_SUCCESS) {
					fails++;
					continue;
				}
				t0 = now_ns();
				aclrtFree(ptr);
				t_free += now_ns() - t0;
			}
			malloc_ns[p][z][run] = fails < iters ? t_alloc / iters : -1;
			free_ns[p][z][run] = fails < iters ?
					     t_free / (iters - fails) : -1;
			printf("aclrtMalloc %-11s %8zu KiB: %10.0f ns/op   aclrtFree: %10.0f ns/op%s\n",
			       policies[p].name, sizes[z] >> 10, t_alloc / iters,
			       fails < iters ? t_free / (iters - fails) : 0.0,
			       fails ? "   (some failed)" : "");
		}
	}
	aclFinalize();
	if (json)
		for (z = 0; z < NR_SIZES; z++)
			bench_mmap(iters, z, run);
}

static void print_json(unsigned long iters)
{
	unsigned int p, z;
	struct bj j;

	bj_begin(&j, "acl_gbs");
	bj_u64(&j, "calls", iters * 50000);
	bj_samples(&j, "many_ns", gbs_many, runs);
	bj_samples(&j, "one_ns", gbs_one, runs);
	bj_samples(&j, "mutex_ns", mutex_ns, runs);
	bj_end(&j);
	if (!have_device)
		return;
	for (z = 0; z < NR_SIZES; z++) {
		for (p = 0; p < NR_POLICIES; p++) {
			bj_begin(&j, "acl_malloc");
			bj_str(&j, "policy", policies[p].name);
			bj_u64(&j, "size", sizes[z]);
			bj_u64(&j, "calls", iters);
			bj_samples(&j, "malloc_ns", malloc_ns[p][z], runs);
			bj_samples(&j, "free_ns", free_ns[p][z], runs);
			bj_samples(&j, "mmap_ns", mmap_ns[z], runs);
			bj_samples(&j, "munmap_ns", munmap_ns[z], runs);
			bj_end(&j);
		}
	}
}

int main(int argc, char **argv)
{
	unsigned long iters = 200;
	unsigned int run;
	int opt;

	while ((opt = getopt(argc, argv, "Jr:")) != -1) {
		if (opt == 'J') {
			json = true;
		} else if (opt == 'r') {
			runs = strtoul(optarg, NULL, 0);
		} else {
			fprintf(stderr, "usage: %s [-J] [-r RUNS] [ITERS]\n",
				argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		iters = strtoul(argv[optind], NULL, 0);
	if (!runs || runs > MAX_RUNS || !iters) {
		fprintf(stderr, "acl_bench: RUNS 1..%d, ITERS > 0\n", MAX_RUNS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (run = 0; run < runs; run++) {
		bench_get_by_stream(iters * 50000, run);
		bench_malloc((unsigned int)iters, run);
	}
	if (json)
		print_json(iters);
	return 0;
}
