// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Figures for the ACL runtime: aclrtAllocatorGetByStream (needs no
 * device, so it runs anywhere) and aclrtMalloc/aclrtFree latency per
 * policy and size on the emulated devices (needs the module).  Prints
 * figures; asserts nothing about them.
 *
 *   acl_bench [ITERS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <acl/acl.h>

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

static void bench_get_by_stream(unsigned long iters)
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
	printf("aclrtAllocatorGetByStream: %.1f ns/op (%d streams registered, %lu calls%s)\n",
	       (t1 - t0) / iters, STREAMS, iters, bad ? ", FAILURES" : "");

	t0 = now_ns();
	for (i = 0; i < iters; i++)
		bad += aclrtAllocatorGetByStream(&streams[STREAMS - 1], &out, NULL,
						 NULL, NULL, NULL, NULL) != ACL_SUCCESS;
	t1 = now_ns();
	printf("aclrtAllocatorGetByStream: %.1f ns/op (one stream, descriptor only)\n",
	       (t1 - t0) / iters);

	for (s = 0; s < STREAMS; s++)
		aclrtAllocatorUnregister(&streams[s]);
	aclrtAllocatorDestroyDesc(d);
}

static void bench_malloc(unsigned int iters)
{
	static const struct {
		aclrtMemMallocPolicy policy;
		const char *name;
	} policies[] = {
		{ ACL_MEM_MALLOC_HUGE_FIRST, "HUGE_FIRST" },
		{ ACL_MEM_MALLOC_HUGE_ONLY, "HUGE_ONLY" },
		{ ACL_MEM_MALLOC_NORMAL_ONLY, "NORMAL_ONLY" },
	};
	static const size_t sizes[] = { 4096, 1 << 20, 4 << 20, 32 << 20 };
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
	for (p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
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
			printf("aclrtMalloc %-11s %8zu KiB: %10.0f ns/op   aclrtFree: %10.0f ns/op%s\n",
			       policies[p].name, sizes[z] >> 10, t_alloc / iters,
			       fails < iters ? t_free / (iters - fails) : 0.0,
			       fails ? "   (some failed)" : "");
		}
	}
	aclFinalize();
}

int main(int argc, char **argv)
{
	unsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 0) : 200;

	bench_get_by_stream(iters * 50000);
	bench_malloc((unsigned int)iters);
	return 0;
}
