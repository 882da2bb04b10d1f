// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Heaps: the slots that heap handles point at, and the index by address
 * (mstx.h) that region calls read without a lock.
 *
 * A handle is the address of a slot in a fixed array, so any value a
 * caller passes (torch_npu passes stack garbage as a batch's heap) can be
 * checked by arithmetic, without reading through it.
 *
 * Regions are matched to heaps by address on every call: registering and
 * unregistering heaps is rare, finding one is the hot path.  Both heap
 * calls flush every ring first: the kernel sees a heap arrive after the
 * regions that were in no heap before it, and go after its regions.
 */
#include <stdlib.h>
#include <string.h>

#include "mstx.h"

struct mstx_heap mstx__heaps[MSTX_MAX_HEAPS];

/* Writers hold mstx_heaps_lock; readers check mstx__index_seq. */
static pthread_mutex_t mstx_heaps_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned int mstx__index_seq;
unsigned int mstx__index_n;
struct mstx_index_entry mstx__index[MSTX_MAX_HEAPS];
static uint32_t mstx_next_kid;

#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct mstx_heap *mstx__heap_of_handle(mstxMemHeapHandle_t h)
{
	uintptr_t p = (uintptr_t)h, base = (uintptr_t)mstx__heaps;

	if (p < base || p >= base + sizeof(mstx__heaps) ||
	    (p - base) % sizeof(mstx__heaps[0]))
		return NULL;
	return &mstx__heaps[(p - base) / sizeof(mstx__heaps[0])];
}

static void mstx_index_write_begin(void)
{
	STORE(mstx__index_seq, mstx__index_seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void mstx_index_write_end(void)
{
	__atomic_store_n(&mstx__index_seq, mstx__index_seq + 1,
			 __ATOMIC_RELEASE);
}

/* Under mstx_heaps_lock: does [addr, end) overlap a live heap? */
static bool mstx_index_overlaps(uint64_t addr, uint64_t end)
{
	unsigned int n = mstx__index_n;
	int i = mstx__index_floor(end - 1, n);

	return i >= 0 && mstx__index[i].end > addr;
}

static void mstx_index_insert(uint64_t addr, uint64_t end, uint32_t slot,
			      uint32_t kid)
{
	unsigned int n = mstx__index_n, i;
	int at = mstx__index_floor(addr, n) + 1;

	mstx_index_write_begin();
	for (i = n; i > (unsigned int)at; i--) {
		STORE(mstx__index[i].addr, mstx__index[i - 1].addr);
		STORE(mstx__index[i].end, mstx__index[i - 1].end);
		STORE(mstx__index[i].slot, mstx__index[i - 1].slot);
		STORE(mstx__index[i].kid, mstx__index[i - 1].kid);
	}
	STORE(mstx__index[at].addr, addr);
	STORE(mstx__index[at].end, end);
	STORE(mstx__index[at].slot, slot);
	STORE(mstx__index[at].kid, kid);
	STORE(mstx__index_n, n + 1);
	mstx_index_write_end();
}

static void mstx_index_remove(uint32_t slot)
{
	unsigned int n = mstx__index_n, i, j;

	for (i = 0; i < n && mstx__index[i].slot != slot; i++)
		;
	if (i == n)
		return;
	mstx_index_write_begin();
	for (j = i; j + 1 < n; j++) {
		STORE(mstx__index[j].addr, mstx__index[j + 1].addr);
		STORE(mstx__index[j].end, mstx__index[j + 1].end);
		STORE(mstx__index[j].slot, mstx__index[j + 1].slot);
		STORE(mstx__index[j].kid, mstx__index[j + 1].kid);
	}
	STORE(mstx__index_n, n - 1);
	mstx_index_write_end();
}

static struct mstx_heap *mstx_slot_alloc(void)
{
	unsigned int i;

	for (i = 0; i < MSTX_MAX_HEAPS; i++)
		if (!mstx__heaps[i].live)
			return &mstx__heaps[i];
	return NULL;
}

mstxMemHeapHandle_t mstx__heap_register(mstxDomainHandle_t domain,
					mstxMemHeapDesc_t const *desc)
{
	const mstxMemVirtualRangeDesc_t *range;
	struct memreg_mstx_op op;
	struct mstx_heap *h = NULL;
	uint64_t addr, end;

	/*
	 * usage and type are not read: torch_npu leaves them uninitialised,
	 * and a virtual range is the only kind there is.
	 */
	if (mstx__disabled || !desc || !desc->typeSpecificDesc)
		goto refused;
	range = desc->typeSpecificDesc;
	addr = (uintptr_t)range->ptr;
	if (!range->size || __builtin_add_overflow(addr, range->size, &end))
		goto refused;
	if (mstx__connect())
		goto refused;
	mstx__start_flusher();

	memset(&op, 0, sizeof(op));
	op.op = MEMREG_MSTX_HEAP_ADD;
	op.addr = addr;
	op.len = range->size;
	op.device = range->deviceId;

	pthread_mutex_lock(&mstx_heaps_lock);
	/* an address must lead to one heap; a second claim on it is refused */
	if (mstx_index_overlaps(addr, end))
		goto unlock;
	h = mstx_slot_alloc();
	if (!h)
		goto unlock;
	if (!++mstx_next_kid)
		++mstx_next_kid;
	op.heap = mstx_next_kid;
	op.domain = (uintptr_t)mstx__domain_name(domain);

	/*
	 * Whatever the rings hold goes first (regions reported while no heap
	 * covered them among it), so that the kernel never sees them after
	 * the heap that now covers them.  The heap itself is sent at once:
	 * the kernel may refuse it (limit), and then the caller gets no
	 * handle.
	 */
	mstx__flush_lock();
	if (mstx__flush_locked(&op)) {
		mstx__flush_unlock();
		h = NULL;
		goto unlock;
	}
	mstx__flush_unlock();

	h->addr = addr;
	h->end = end;
	h->kid = op.heap;
	h->device = range->deviceId;
	h->live = true;
	mstx_index_insert(addr, end, (uint32_t)(h - mstx__heaps), op.heap);
unlock:
	pthread_mutex_unlock(&mstx_heaps_lock);
	if (h)
		return (mstxMemHeapHandle_t)(void *)h;
refused:
	__atomic_fetch_add(&mstx__stats.heaps_refused, 1, __ATOMIC_RELAXED);
	return NULL;
}

void mstx__heap_unregister(mstxDomainHandle_t domain, mstxMemHeapHandle_t heap)
{
	struct mstx_heap *h = mstx__heap_of_handle(heap);
	struct memreg_mstx_op op;

	(void)domain;
	if (!h || mstx__disabled)
		return;
	pthread_mutex_lock(&mstx_heaps_lock);
	if (!h->live)
		goto unlock;
	mstx_index_remove((uint32_t)(h - mstx__heaps));

	h->live = false;

	memset(&op, 0, sizeof(op));
	op.op = MEMREG_MSTX_HEAP_DEL;
	op.heap = h->kid;
	/*
	 * Every ring's operations, then the heap: all in the kernel on
	 * return.  A call racing with this one that found the heap before
	 * it left the index names a heap the kernel no longer has: refused.
	 */
	mstx__flush_lock();
	mstx__flush_locked(&op);
	mstx__flush_unlock();
unlock:
	pthread_mutex_unlock(&mstx_heaps_lock);
}
