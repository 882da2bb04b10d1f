// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions: each one becomes an operation in the buffer of the heap that
 * contains its address (or of the orphans when no heap does).
 *
 * A region's handle is its address.  Unregistering by handle and by
 * pointer is then the same thing, and the library keeps no table of
 * regions: the kernel does.  Handles are written out only for a batch
 * whose fields prove that the caller filled it in: torch_npu leaves heap,
 * regionType and regionHandleArrayOut uninitialised, and a write through
 * a stack-garbage pointer would corrupt the caller.
 */
#include <string.h>

#include "mstx.h"

/*
 * Queue one operation on the region at @addr.  Returns the heap it went
 * to (NULL: the orphans).  The heap is looked up without a lock and
 * confirmed under its buffer's lock: a heap unregistered in between is
 * looked up again.
 */
static struct mstx_heap *mstx_region_op(uint16_t code, uint64_t addr,
					uint64_t len)
{
	struct memreg_mstx_op op = { .op = code, .addr = addr, .len = len };
	struct mstx_heap *h;
	struct mstx_buf *b;

	for (;;) {
		h = mstx__heap_find(addr);
		b = h ? h->buf : &mstx__orphans;
		mstx_buf_lock(b);
		if (!h || (h->live && addr >= h->addr && addr < h->end))
			break;
		mstx_buf_unlock(b);
	}
	op.heap = h ? h->kid : 0;
	mstx__buf_add(b, &op);
	mstx_buf_unlock(b);
	return h;
}

/*
 * Trust regionHandleArrayOut only if the batch names one of our live
 * heaps, the one kind of region there is, and a properly aligned array.
 */
static bool mstx_out_trusted(mstxMemRegionsRegisterBatch_t const *desc,
			     struct mstx_heap **heap)
{
	*heap = mstx__heap_of_handle(desc->heap);
	return *heap && desc->regionType == MSTX_MEM_TYPE_VIRTUAL_ADDRESS &&
	       desc->regionHandleArrayOut &&
	       !((uintptr_t)desc->regionHandleArrayOut %
		 _Alignof(mstxMemRegionHandle_t));
}

void mstx__regions_register(mstxDomainHandle_t domain,
			    mstxMemRegionsRegisterBatch_t const *desc)
{
	const mstxMemVirtualRangeDesc_t *r;
	struct mstx_heap *named, *h;
	bool write_out;
	size_t i;

	(void)domain;
	if (!desc || !desc->regionDescArray || mstx__disabled)
		return;
	r = desc->regionDescArray;
	write_out = mstx_out_trusted(desc, &named);
	for (i = 0; i < desc->regionCount; i++) {
		h = mstx_region_op(MEMREG_MSTX_REGION_ADD, (uintptr_t)r[i].ptr,
				   r[i].size);
		/* every region must be in the heap the batch names */
		write_out = write_out && h == named;
	}
	if (!write_out)
		return;
	for (i = 0; i < desc->regionCount; i++)
		desc->regionHandleArrayOut[i] =
			(mstxMemRegionHandle_t)(uintptr_t)r[i].ptr;
	__atomic_fetch_add(&mstx__stats.handles_written, desc->regionCount,
			   __ATOMIC_RELAXED);
}

void mstx__regions_unregister(mstxDomainHandle_t domain,
			      mstxMemRegionsUnregisterBatch_t const *desc)
{
	const mstxMemRegionRef_t *ref;
	size_t i;

	(void)domain;
	if (!desc || !desc->refArray || mstx__disabled)
		return;
	ref = desc->refArray;
	/* pointer or handle: both are the region's address */
	for (i = 0; i < desc->refCount; i++)
		mstx_region_op(MEMREG_MSTX_REGION_DEL,
			       (uintptr_t)ref[i].pointer, 0);
}
