// SPDX-License-Identifier: GPL-2.0
/*
 * mstx_plain - a program written against the plain mstx headers.  With no
 * tool every call must be a no-op: NULL handles, range id 0, tool id
 * MSTX_TOOL_INVALID_ID, and nothing read through the (NULL) handles it
 * passes back.  With MSTX_INJECTION_PATH naming a tool, the same binary
 * reports to it.  Prints one line:
 *   notool       every call behaved as with no tool
 *   tool ID      a tool with that id is attached and gave handles
 *   MIXED ...    anything else (a failure)
 */
#include <stdio.h>
#include <string.h>
#include <mstx/ms_tools_ext.h>

static char pool[65536];

int main(void)
{
	mstxMemVirtualRangeDesc_t range = { 0, pool, sizeof(pool) };
	mstxMemVirtualRangeDesc_t region = { 0, pool, 4096 };
	mstxMemHeapDesc_t desc = {
		MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
		MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &range,
	};
	mstxMemRegionHandle_t handle = NULL;
	mstxMemRegionsRegisterBatch_t rb;
	mstxMemRegionRef_t ref;
	mstxMemRegionsUnregisterBatch_t ub = { 1, &ref };
	mstxDomainHandle_t domain;
	mstxMemHeapHandle_t heap;
	mstxRangeId range_id;
	uint64_t tool = 42;

	mstxMarkA("start", NULL);
	range_id = mstxRangeStartA("work", NULL);
	domain = mstxDomainCreateA("plain");
	heap = mstxMemHeapRegister(domain, &desc);
	memset(&rb, 0, sizeof(rb));
	rb.heap = heap;
	rb.regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS;
	rb.regionCount = 1;
	rb.regionDescArray = &region;
	rb.regionHandleArrayOut = &handle;
	mstxMemRegionsRegister(domain, &rb);
	ref.refType = MSTX_MEM_REGION_REF_TYPE_HANDLE;
	ref.handle = handle;
	mstxMemRegionsUnregister(domain, &ub);
	mstxMemHeapUnregister(domain, heap);
	mstxDomainMarkA(domain, "mark", NULL);
	mstxDomainRangeEnd(domain, mstxDomainRangeStartA(domain, "r", NULL));
	mstxDomainDestroy(domain);
	mstxRangeEnd(range_id);
	mstxGetToolId(&tool);

	if (tool == MSTX_TOOL_INVALID_ID && !domain && !heap && !handle &&
	    !range_id) {
		printf("notool\n");
		return 0;
	}
	if (tool != MSTX_TOOL_INVALID_ID && domain && heap && handle) {
		printf("tool %#llx\n", (unsigned long long)tool);
		return 0;
	}
	printf("MIXED tool %#llx domain %p heap %p handle %p range %llu\n",
	       (unsigned long long)tool, (void *)domain, (void *)heap,
	       (void *)handle, (unsigned long long)range_id);
	return 1;
}
