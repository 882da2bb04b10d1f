// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Heaps: the slots that heap handles point at, and an index by address.
 *
 * A handle is the address of a slot in a fixed array, so any value a
 * caller passes (torch_npu passes stack garbage as a batch's heap) can be
 * checked by arithmetic, without reading through it.
 *
 * Regions are matched to heaps by address on every call, through a sorted
 * index read without a lock (a sequence count, as the kernel's seqlock):
 * registering and unregistering heaps is rare, finding one is the hot
 * path of every region call.  The index lives in static memory, so a
 * reader that races with a writer reads stale numbers, never freed memory,
 * and tries again.
 */
#include <stdlib.h>
#include <string.h>

#include "mstx.h"

struct mstx_heap mstx__heaps[MSTX_MAX_HEAPS];

struct mstx_index_entry {
	uint64_t addr;
	uint64_t end;
	uint32_t slot;
};

/* Writers hold mstx_heaps_lock; readers check mstx_index_seq. */
static pthread_mutex_t mstx_heaps_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int mstx_index_seq;
static unsigned int mstx_index_n;
static struct mstx_index_entry mstx_index[MSTX_MAX_HEAPS];
static uint32_t mstx_next_kid;

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

struct mstx_heap *mstx__heap_of_handle(mstxMemHeapHandle_t h)
{
	uintptr_t p = (uintptr_t)h, base = (uintptr_t)mstx__heaps;

	if (p < base || p >= base + sizeof(mstx__heaps) ||
	    (p - base) % sizeof(mstx__heaps[0]))
		return NULL;
	return &mstx__heaps[(p - base) / sizeof(mstx__heaps[0])];
}

/* Index of the last entry starting at or below @addr, or -1. */
static int mstx_index_floor(uint64_t addr, unsigned int n)
{
	int lo = 0, hi = (int)n - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (LOAD(mstx_index[mid].addr) <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

struct mstx_heap *mstx__heap_find(uint64_t addr)
{
	unsigned int seq, n;
	struct mstx_heap *h;
	int i;

	for (;;) {
		seq = __atomic_load_n(&mstx_index_seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		n = LOAD(mstx_index_n);
		if (n > MSTX_MAX_HEAPS)
			continue;
		i = mstx_index_floor(addr, n);
		h = NULL;
		if (i >= 0 && addr < LOAD(mstx_index[i].end))
			h = &mstx__heaps[LOAD(mstx_index[i].slot) %
					 MSTX_MAX_HEAPS];
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&mstx_index_seq, __ATOMIC_RELAXED) == seq)
			return h;
	}
}

static void mstx_index_write_begin(void)
{
	STORE(mstx_index_seq, mstx_index_seq + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void mstx_index_write_end(void)
{
	__atomic_store_n(&mstx_index_seq, mstx_index_seq + 1,
			 __ATOMIC_RELEASE);
}

/* Under mstx_heaps_lock: does [addr, end) overlap a live heap? */
static bool mstx_index_overlaps(uint64_t addr, uint64_t end)
{
	unsigned int n = mstx_index_n;
	int i = mstx_index_floor(end - 1, n);

	return i >= 0 && mstx_index[i].end > addr;
}

static void mstx_index_insert(uint64_t addr, uint64_t end, uint32_t slot)
{
	unsigned int n = mstx_index_n, i;
	int at = mstx_index_floor(addr, n) + 1;

	mstx_index_write_begin();
	for (i = n; i > (unsigned int)at; i--) {
		STORE(mstx_index[i].addr, mstx_index[i - 1].addr);
		STORE(mstx_index[i].end, mstx_index[i - 1].end);
		STORE(mstx_index[i].slot, mstx_index[i - 1].slot);
	}
	STORE(mstx_index[at].addr, addr);
	STORE(mstx_index[at].end, end);
	STORE(mstx_index[at].slot, slot);
	STORE(mstx_index_n, n + 1);
	mstx_index_write_end();
}

static void mstx_index_remove(uint32_t slot)
{
	unsigned int n = mstx_index_n, i, j;

	for (i = 0; i < n && mstx_index[i].slot != slot; i++)
		;
	if (i == n)
		return;
	mstx_index_write_begin();
	for (j = i; j + 1 < n; j++) {
		STORE(mstx_index[j].addr, mstx_index[j + 1].addr);
		STORE(mstx_index[j].end, mstx_index[j + 1].end);
		STORE(mstx_index[j].slot, mstx_index[j + 1].slot);
	}
	STORE(mstx_index_n, n - 1);
	mstx_index_write_end();
}

static struct mstx_heap *mstx_slot_alloc(void)
{
	struct mstx_buf *b;
	unsigned int i;

	for (i = 0; i < MSTX_MAX_HEAPS; i++) {
		struct mstx_heap *h = &mstx__heaps[i];

		if (h->live)
			continue;
		if (!h->buf) {
			b = malloc(sizeof(*b));
			if (!b)
				return NULL;
			mstx__buf_init(b);
			/* the flusher reads it without the heaps lock */
			__atomic_store_n(&h->buf, b, __ATOMIC_RELEASE);
		}
		return h;
	}
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
	 * Regions reported while no heap covered them go first, so that the
	 * kernel never sees them after the heap that now covers them.  The
	 * heap itself is sent at once: the kernel may refuse it (limit), and
	 * then the caller gets no handle.
	 */
	pthread_mutex_lock(&mstx__orphans.lock);
	mstx__buf_flush(&mstx__orphans);
	pthread_mutex_unlock(&mstx__orphans.lock);
	if (mstx__submit(&op, 1)) {
		h = NULL;
		goto unlock;
	}

	pthread_mutex_lock(&h->buf->lock);
	h->addr = addr;
	h->end = end;
	h->kid = op.heap;
	h->device = range->deviceId;
	h->live = true;
	pthread_mutex_unlock(&h->buf->lock);
	mstx_index_insert(addr, end, (uint32_t)(h - mstx__heaps));
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

	memset(&op, 0, sizeof(op));
	op.op = MEMREG_MSTX_HEAP_DEL;
	op.heap = h->kid;
	/* the heap's regions, then the heap: all in the kernel on return */
	pthread_mutex_lock(&h->buf->lock);
	h->live = false;
	mstx__buf_add(h->buf, &op);
	mstx__buf_flush(h->buf);
	pthread_mutex_unlock(&h->buf->lock);
unlock:
	pthread_mutex_unlock(&mstx_heaps_lock);
}
