/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of lib/mstx, libmemreg's mstx tool: what its files share.
 * Names with external linkage carry the "mstx__" prefix and stay out of
 * the .so (version script).
 *
 *   inject.c  InitInjectionMstx: fills the caller's function tables
 *   domain.c  mstxDomainCreateA / mstxDomainDestroy
 *   heap.c    heap slots (the handles), the address index, heap register
 *   region.c  region register / unregister
 *   batch.c   per-heap operation buffers, the kernel fd, the flusher
 */
#ifndef MEMREG_MSTX_INTERNAL_H
#define MEMREG_MSTX_INTERNAL_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

/* The tool implements the API; it never calls the header's own copy. */
#define MSTX_NO_IMPL
#include <mstx/ms_tools_ext.h>
#include <linux/memreg.h>

/* What mstxGetToolId() reports for memreg ("mr"): none of CANN's tools. */
#define MEMREG_MSTX_TOOL_ID	0x6d72

/* Heaps a process may have at once: the module's default limit. */
#define MSTX_MAX_HEAPS		1024

/*
 * Operations a buffer holds before it goes to the kernel: large enough
 * that the ioctl is a small part of a call's cost, small enough that a
 * buffer per heap stays cheap (10 KiB).
 */
#define MSTX_BUF_OPS		256

/* How often the flusher sends what is buffered: well under 100 ms. */
#define MSTX_FLUSH_MS		40

/*
 * A buffer's lock is a spinlock of our own, taken inline: every region
 * call takes one, and a call into libpthread costs more than the rest of
 * the call (much more under emulation, where each call and return is an
 * indirect branch).  Holders are short, except a flush: waiters yield.
 */
struct mstx_buf {
	int lock;
	uint32_t n;
	struct memreg_mstx_op ops[MSTX_BUF_OPS];
};

static inline void mstx_buf_lock(struct mstx_buf *b)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&b->lock, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&b->lock, __ATOMIC_RELAXED))
			if (++spins > 64)
				sched_yield();
	}
}

static inline void mstx_buf_unlock(struct mstx_buf *b)
{
	__atomic_store_n(&b->lock, 0, __ATOMIC_RELEASE);
}

/*
 * One heap; a heap handle points at its slot.  @addr, @end and @live
 * change only with the slot's buffer lock held (and the heap table's
 * mutex), so that a region operation that holds the lock sees the heap it
 * looked up, or sees that it is gone.
 */
struct mstx_heap {
	struct mstx_buf *buf;		/* allocated once, kept for reuse */
	uint64_t addr;
	uint64_t end;
	uint32_t kid;			/* the heap's id for the kernel */
	uint32_t device;
	bool live;
};

/* What the tool did, for tests and for the curious (MEMREG_MSTX_DEBUG). */
struct mstx_stats {
	uint64_t submitted;		/* operations the kernel applied */
	uint64_t refused;		/* operations the kernel refused */
	uint64_t dropped;		/* never sent: no kernel connection */
	uint64_t flushes;		/* MEMREG_IOC_MSTX calls */
	uint64_t handles_written;	/* regionHandleArrayOut entries */
	uint64_t heaps_refused;		/* mstxMemHeapRegister() -> NULL */
};
extern struct mstx_stats mstx__stats;

/* Set in a forked child: the parent's heaps are not the child's. */
extern bool mstx__disabled;

/* The module knows MEMREG_MSTX_REGION_ADD_DEL (probed at connect). */
extern bool mstx__add_del;

/* batch.c */
int mstx__connect(void);
void mstx__buf_init(struct mstx_buf *b);
/* With @b's lock held: send what @b holds. */
void mstx__buf_flush(struct mstx_buf *b);

/* With @b's lock held: add @op, sending the buffer when it is full. */
static inline void mstx__buf_add(struct mstx_buf *b,
				 const struct memreg_mstx_op *op)
{
	b->ops[b->n] = *op;
	/* atomic: the flusher peeks at it without the lock */
	__atomic_store_n(&b->n, b->n + 1, __ATOMIC_RELAXED);
	if (b->n == MSTX_BUF_OPS)
		mstx__buf_flush(b);
}
/* Send @n operations now; 0 if the kernel applied the first (or all). */
int mstx__submit(struct memreg_mstx_op *ops, uint32_t n);
void mstx__flush_all(void);
void mstx__start_flusher(void);
extern struct mstx_buf mstx__orphans;	/* regions in no heap */

/* heap.c */
extern struct mstx_heap mstx__heaps[MSTX_MAX_HEAPS];
/* The slot of a handle, or NULL if it is not one of ours (never read). */
struct mstx_heap *mstx__heap_of_handle(mstxMemHeapHandle_t h);

/*
 * The heaps by address, sorted, for the region calls' lookup: written
 * under heap.c's lock with a sequence count around each change (odd while
 * it changes), read without a lock.  Static memory: a reader racing with
 * a writer reads stale numbers, never freed memory, and tries again.
 */
struct mstx_index_entry {
	uint64_t addr;
	uint64_t end;
	uint32_t slot;
};
extern unsigned int mstx__index_seq;
extern unsigned int mstx__index_n;
extern struct mstx_index_entry mstx__index[MSTX_MAX_HEAPS];

#define MSTX_LOAD(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

/* Index of the last entry starting at or below @addr, or -1. */
static inline int mstx__index_floor(uint64_t addr, unsigned int n)
{
	int lo = 0, hi = (int)n - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (MSTX_LOAD(mstx__index[mid].addr) <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

/* The slot whose heap contains @addr, or NULL; lock-free. */
static inline struct mstx_heap *mstx__heap_find(uint64_t addr)
{
	unsigned int seq, n;
	struct mstx_heap *h;
	int i;

	for (;;) {
		seq = __atomic_load_n(&mstx__index_seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		n = MSTX_LOAD(mstx__index_n);
		if (n > MSTX_MAX_HEAPS)
			continue;
		i = mstx__index_floor(addr, n);
		h = NULL;
		if (i >= 0 && addr < MSTX_LOAD(mstx__index[i].end))
			h = &mstx__heaps[MSTX_LOAD(mstx__index[i].slot) %
					 MSTX_MAX_HEAPS];
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&mstx__index_seq, __ATOMIC_RELAXED) == seq)
			return h;
	}
}
mstxMemHeapHandle_t mstx__heap_register(mstxDomainHandle_t domain,
					mstxMemHeapDesc_t const *desc);
void mstx__heap_unregister(mstxDomainHandle_t domain,
			   mstxMemHeapHandle_t heap);

/* region.c */
void mstx__regions_register(mstxDomainHandle_t domain,
			    mstxMemRegionsRegisterBatch_t const *desc);
void mstx__regions_unregister(mstxDomainHandle_t domain,
			      mstxMemRegionsUnregisterBatch_t const *desc);

/* domain.c */
mstxDomainHandle_t mstx__domain_create(const char *name);
void mstx__domain_destroy(mstxDomainHandle_t domain);
/* The name of a live domain, or NULL (default domain, or not ours). */
const char *mstx__domain_name(mstxDomainHandle_t domain);

#endif /* MEMREG_MSTX_INTERNAL_H */
