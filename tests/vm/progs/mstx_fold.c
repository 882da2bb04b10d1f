// SPDX-License-Identifier: GPL-2.0
/*
 * mstx_fold - regions unregistered soon after they were registered, in
 * the ways the library may fold into one operation, each in a heap of its
 * own, with libmemreg linked in.  Whether a pair was folded or not (the
 * flusher may split one), the module must end where the calls lead:
 *
 *   pairs  1000 register+unregister pairs: nothing live, no violation;
 *          peak 1 region, the largest one's bytes
 *   live   a region flushed to the module, then unregistered: gone, and
 *          not counted as unknown; a second one stays
 *   dup    a region flushed, registered again, unregistered: 1 duplicate,
 *          nothing live (the unregister takes the first one)
 *   oob    a region past its heap's end, registered and unregistered:
 *          1 out of heap, nothing live, no unknown
 *   peak   10 regions flushed, then 3 more of which the last one lives
 *          only between two calls: peak 13, with their bytes
 *
 * Prints what the module should show for each heap, then "ready PID",
 * and holds until SIGTERM:
 *   heap NAME ADDR REGIONS BYTES PEAK_REGIONS PEAK_BYTES OOB UNKNOWN DUP
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <mstx/ms_tools_ext.h>

#define HEAP_SIZE	(1UL << 20)

static mstxDomainHandle_t domain;

static void reg(char *p, uint64_t size)
{
	mstxMemVirtualRangeDesc_t r = { 0, p, size };
	mstxMemRegionsRegisterBatch_t b = {
		.regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS,
		.regionCount = 1,
		.regionDescArray = &r,
	};

	mstxMemRegionsRegister(domain, &b);
}

static void unreg(char *p)
{
	mstxMemRegionRef_t ref = {
		.refType = MSTX_MEM_REGION_REF_TYPE_POINTER, .pointer = p,
	};
	mstxMemRegionsUnregisterBatch_t b = { 1, &ref };

	mstxMemRegionsUnregister(domain, &b);
}

/* Longer than the library's flush period: what came before is sent. */
static void flushed(void)
{
	struct timespec t = { 0, 120 * 1000000L };

	nanosleep(&t, NULL);
}

static char *heap(void)
{
	mstxMemVirtualRangeDesc_t range = { 0, NULL, HEAP_SIZE };
	mstxMemHeapDesc_t desc = {
		.usage = MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
		.type = MSTX_MEM_TYPE_VIRTUAL_ADDRESS,
		.typeSpecificDesc = &range,
	};
	char *p;

	p = mmap(NULL, HEAP_SIZE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	range.ptr = p;
	if (!mstxMemHeapRegister(domain, &desc)) {
		printf("heap refused\n");
		exit(1);
	}
	return p;
}

static void expect(const char *name, char *base, unsigned long regions,
		   unsigned long bytes, unsigned long peak_regions,
		   unsigned long peak_bytes, int oob, int unknown, int dup)
{
	printf("heap %s %lu %lu %lu %lu %lu %d %d %d\n", name,
	       (unsigned long)(uintptr_t)base, regions, bytes, peak_regions,
	       peak_bytes, oob, unknown, dup);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char *pairs, *live, *dup, *oob, *peak;
	unsigned long i, big = 0;

	sigaction(SIGTERM, &sa, NULL);
	domain = mstxDomainCreateA("mstx_fold");
	if (!domain) {
		printf("no tool attached\n");
		return 1;
	}
	pairs = heap();
	live = heap();
	dup = heap();
	oob = heap();
	peak = heap();

	for (i = 0; i < 1000; i++) {
		uint64_t size = 64 + (i * 37) % 4000;

		reg(pairs + i * 512, size);
		unreg(pairs + i * 512);
		if (size > big)
			big = size;
	}
	expect("pairs", pairs, 0, 0, 1, big, 0, 0, 0);

	reg(live, 100);
	flushed();
	unreg(live);
	reg(live + 4096, 200);
	expect("live", live, 1, 200, 1, 200, 0, 0, 0);

	reg(dup, 300);
	flushed();
	reg(dup, 300);
	unreg(dup);
	expect("dup", dup, 0, 0, 1, 300, 0, 0, 1);

	/* the region is kept outside every heap until its unregister */
	reg(oob + HEAP_SIZE - 512, 4096);
	unreg(oob + HEAP_SIZE - 512);
	expect("oob", oob, 0, 0, 0, 0, 1, 0, 0);

	for (i = 0; i < 10; i++)
		reg(peak + i * 4096, 1000);
	flushed();
	reg(peak + 40960, 2000);
	reg(peak + 45056, 3000);
	reg(peak + 49152, 5000);
	unreg(peak + 49152);
	unreg(peak + 45056);
	unreg(peak + 40960);
	expect("peak", peak, 10, 10000, 13, 20000, 0, 0, 0);

	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
