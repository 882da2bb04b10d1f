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
 *
 * An allocator often frees a block soon after handing it out.  When the
 * unregister finds the register of the same region as the last operation
 * of its heap's buffer (not yet sent), the two become one REGION_ADD_DEL:
 * the module then need not store the region only to drop it, and still
 * counts what the two would have counted (a duplicate register, the
 * peaks).  A region that runs past its heap's end is sent as it came: its
 * register is a violation the module counts on its own path.
 */
#include <string.h>

#include "mstx.h"

/* With @b's lock held: fold an unregister of @addr into its register. */
static bool mstx_fold_del(struct mstx_buf *b, const struct mstx_heap *h,
			  uint64_t addr)
{
	struct memreg_mstx_op *last;

	if (!mstx__add_del || !b->n)
		return false;
	last = &b->ops[b->n - 1];
	/* addr >= h->addr: the heap was found by this address */
	if (last->op != MEMREG_MSTX_REGION_ADD || last->addr != addr ||
	    last->heap != h->kid || last->len > h->end - addr)
		return false;
	last->op = MEMREG_MSTX_REGION_ADD_DEL;
	return true;
}

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
	if (!(code == MEMREG_MSTX_REGION_DEL && h && mstx_fold_del(b, h, addr)))
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
