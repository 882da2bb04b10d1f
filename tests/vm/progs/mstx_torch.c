// SPDX-License-Identifier: GPL-2.0
/*
 * mstx_torch - calls the mstx memory API the way torch_npu's mstx_mgr.cpp
 * does, uninitialised fields included, and breaks each rule once.  The
 * tool is attached through MSTX_INJECTION_PATH.
 *
 * "Uninitialised" is made repeatable: every descriptor is first filled
 * with 0xa5 bytes, then only the fields torch_npu sets are set.  A tool
 * that wrote through regionHandleArrayOut would write to 0xa5a5...a5 and
 * crash; a tool that trusted the heap field would read through it.
 *
 * Prints, then holds everything until SIGTERM:
 *   canary intact|OVERWRITTEN    handles not written for a garbage batch
 *   handles ok|WRONG             written for a well-formed batch
 *   heap1 ADDR_DECIMAL           3 regions live (one was unregistered
 *                                twice: 1 unknown)
 *   ready PID
 * Rules broken: one region outside every heap (kept, out of heap), one
 * unregister of an unknown region in heap1, and heap2 unregistered with
 * 4 regions live (dropped).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mstx/ms_tools_ext.h>

#define GARBAGE	0xa5

static char pool1[1 << 20] __attribute__((aligned(4096)));
static char pool2[1 << 16] __attribute__((aligned(4096)));
static char outside[4096];

/* torch_npu's memHeapRegister: only typeSpecificDesc is set. */
static mstxMemHeapHandle_t torch_heap(mstxDomainHandle_t domain, void *p,
				      size_t size)
{
	mstxMemVirtualRangeDesc_t range = { 0, p, size };
	mstxMemHeapDesc_t desc;

	memset(&desc, GARBAGE, sizeof(desc));
	desc.typeSpecificDesc = &range;
	return mstxMemHeapRegister(domain, &desc);
}

/* torch_npu's memRegionsRegister: regionCount and regionDescArray only. */
static void torch_region(mstxDomainHandle_t domain, void *p, size_t size)
{
	mstxMemVirtualRangeDesc_t range = { 0, p, size };
	mstxMemRegionsRegisterBatch_t batch;

	memset(&batch, GARBAGE, sizeof(batch));
	batch.regionCount = 1;
	batch.regionDescArray = &range;
	mstxMemRegionsRegister(domain, &batch);
}

/* torch_npu's memRegionsUnregister: by pointer. */
static void torch_unregister(mstxDomainHandle_t domain, void *p)
{
	mstxMemRegionRef_t ref;
	mstxMemRegionsUnregisterBatch_t batch;

	memset(&ref, GARBAGE, sizeof(ref));
	ref.refType = MSTX_MEM_REGION_REF_TYPE_POINTER;
	ref.pointer = p;
	batch.refCount = 1;
	batch.refArray = &ref;
	mstxMemRegionsUnregister(domain, &batch);
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
	mstxMemRegionHandle_t canary[2] = { (void *)0x1111, (void *)0x2222 };
	mstxMemRegionHandle_t out[2] = { NULL, NULL };
	mstxMemVirtualRangeDesc_t ranges[2] = {
		{ 0, pool1 + 8192, 4096 }, { 0, pool1 + 16384, 8192 },
	};
	mstxMemRegionsRegisterBatch_t batch;
	mstxMemHeapHandle_t h1, h2;
	mstxDomainHandle_t domain;
	mstxMemRegionRef_t ref;
	mstxMemRegionsUnregisterBatch_t ub = { 1, &ref };
	int i;

	sigaction(SIGTERM, &sa, NULL);
	domain = mstxDomainCreateA("torch_npu");
	h1 = torch_heap(domain, pool1, sizeof(pool1));
	h2 = torch_heap(domain, pool2, sizeof(pool2));
	if (!domain || !h1 || !h2) {
		printf("no tool attached\n");
		return 1;
	}

	/* uninitialised heap, regionType and output array: must not crash */
	torch_region(domain, pool1, 4096);
	torch_region(domain, pool1 + 4096, 512);

	/* a garbage heap with a real output array: must not be written */
	memset(&batch, GARBAGE, sizeof(batch));
	batch.regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS;
	batch.regionCount = 1;
	batch.regionDescArray = &ranges[0];
	batch.regionHandleArrayOut = canary;
	mstxMemRegionsRegister(domain, &batch);
	printf("canary %s\n", canary[0] == (void *)0x1111 &&
	       canary[1] == (void *)0x2222 ? "intact" : "OVERWRITTEN");

	/* a well-formed batch gets handles, and they unregister */
	batch.heap = h1;
	batch.regionCount = 2;
	batch.regionDescArray = ranges;
	batch.regionHandleArrayOut = out;
	mstxMemRegionsRegister(domain, &batch);	/* ranges[0]: duplicate */
	printf("handles %s\n", out[0] && out[1] ? "ok" : "WRONG");
	ref.refType = MSTX_MEM_REGION_REF_TYPE_HANDLE;
	ref.handle = out[1];
	mstxMemRegionsUnregister(domain, &ub);

	/* pool1: pool1, pool1+4096, pool1+8192 live; one unknown unregister */
	torch_unregister(domain, pool1 + 65536);

	/* outside every heap: kept, counted */
	torch_region(domain, outside, sizeof(outside));

	/* heap2 goes with 4 regions live */
	for (i = 0; i < 4; i++)
		torch_region(domain, pool2 + i * 1024, 1024);
	mstxMemHeapUnregister(domain, h2);

	printf("heap1 %lu\n", (unsigned long)(uintptr_t)pool1);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop)
		pause();
	return 0;
}
