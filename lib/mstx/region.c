// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Regions: each one becomes an operation in the calling thread's ring,
 * naming the heap that contains its address (or heap 0 when none does).
 *
 * A region's handle is its address.  Unregistering by handle and by
 * pointer is then the same thing, and the library keeps no table of
 * regions: the kernel does.  Handles are written out only for a batch
 * whose fields prove that the caller filled it in: torch_npu leaves heap,
 * regionType and regionHandleArrayOut uninitialised, and a write through
 * a stack-garbage pointer would corrupt the caller.
 *
 * An allocator often frees a block soon after handing it out.  When the
 * flusher finds the unregister of a region right after its register in a
 * ring (neither sent yet), the two become one REGION_ADD_DEL: the module
 * then need not store the region only to drop it, and still counts what
 * the two would have counted (a duplicate register, the peaks).  The
 * flusher folds, not the call: an entry the flusher may be reading is
 * never changed.  A region that runs past its heap's end is sent as it
 * came (no MSTX_F_FOLDABLE): its register is a violation the module
 * counts on its own path.
 */
#include <string.h>

#include "mstx.h"

/*
 * Queue one operation on the region at @addr in the calling thread's ring:
 * every case but the common one (below).  Returns the heap it names
 * (NULL: none).  The heap is looked up without a lock; a heap
 * unregistered meanwhile is refused by the kernel.
 */
static __attribute__((noinline)) struct mstx_heap *
mstx_region_op_slow(struct mstx_ring *r, uint16_t code, uint64_t addr,
		    uint64_t len)
{
	uint64_t *mask, m, start = 0, end = 0;
	struct mstx_heap *h;
	uint16_t flags = 0;
	uint32_t kid = 0;
	unsigned int seq;

	if (!r) {
		r = mstx__ring_get();
		if (!r)
			return NULL;
	}
	seq = __atomic_load_n(&mstx__index_seq, __ATOMIC_ACQUIRE);
	h = mstx__heap_find(addr, &kid, &start, &end);
	if (h && !r->shared && !(seq & 1)) {
		/* @seq was read first: a change since makes it stale */
		if (seq == r->c_seq)
			r->c[1] = r->c[0];
		else
			r->c[1].size = 0;
		r->c_seq = seq;
		r->c[0].heap = h;
		r->c[0].kid = kid;
		r->c[0].start = start;
		r->c[0].size = end - start;
		r->c[0].end = end;
	}
	/* addr >= the heap's start: the heap was found by this address */
	if (h && code == MEMREG_MSTX_REGION_ADD && len <= end - addr)
		flags = MSTX_F_FOLDABLE;
	mask = mstx__bucket(addr);
	if (r->shared)
		mstx_ring_lock(r);
	m = __atomic_load_n(mask, __ATOMIC_RELAXED);
	/* the first call of this ring on the heap, or not the only ring */
	if (!(m & r->bit))
		__atomic_fetch_or(mask, r->bit, __ATOMIC_RELAXED);
	if (m & ~r->bit)
		mstx__ring_deps(r, m & ~r->bit);
	mstx__ring_put(r, code, flags, kid, addr, len);
	if (r->shared)
		mstx_ring_unlock(r);
	return h;
}

/*
 * The common case, inline: the thread's own ring, the heap of its
 * previous call (the index unchanged since), and no other ring in the
 * address's mask (no other thread's operation to wait for).
 */
static inline __attribute__((always_inline)) struct mstx_heap *
mstx_region_op(uint16_t code, uint64_t addr, uint64_t len)
{
	struct mstx_ring *r = mstx__my_ring();
	struct mstx_heap_cache *c;
	uint16_t flags = 0;

	if (__builtin_expect(!r || __atomic_load_n(&mstx__index_seq,
						   __ATOMIC_ACQUIRE) !=
				   r->c_seq, 0))
		return mstx_region_op_slow(r, code, addr, len);
	c = &r->c[0];
	if (addr - c->start >= c->size) {
		c = &r->c[1];
		if (addr - c->start >= c->size)
			return mstx_region_op_slow(r, code, addr, len);
	}
	if (__builtin_expect(__atomic_load_n(mstx__bucket(addr),
					     __ATOMIC_RELAXED) != r->bit, 0))
		return mstx_region_op_slow(r, code, addr, len);
	if (code == MEMREG_MSTX_REGION_ADD && len <= c->end - addr)
		flags = MSTX_F_FOLDABLE;
	mstx__ring_put(r, code, flags, c->kid, addr, len);
	return c->heap;
}

/*
 * Trust regionHandleArrayOut only if the batch names one of our live
 * heaps, the one kind of region there is, and a properly aligned array.
 */
static bool mstx_out_trusted(mstxMemRegionsRegisterBatch_t const *desc,
			     struct mstx_heap **heap)
{
	/* most callers pass no array: the cheap test first */
	*heap = NULL;
	if (!desc->regionHandleArrayOut ||
	    desc->regionType != MSTX_MEM_TYPE_VIRTUAL_ADDRESS ||
	    (uintptr_t)desc->regionHandleArrayOut %
	    _Alignof(mstxMemRegionHandle_t))
		return false;
	*heap = mstx__heap_of_handle(desc->heap);
	return *heap;
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
