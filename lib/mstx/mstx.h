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
 *   batch.c   per-thread rings, the kernel fd, the flusher
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
 * Entries a thread's ring holds before it goes to the kernel: large
 * enough that the ioctl is a small part of a call's cost, small enough
 * that a ring per thread stays in the cache (12 KiB).
 */
#define MSTX_BUF_OPS		512

/*
 * How often the flusher sends what is buffered, in ms: the most the
 * kernel lags behind the program, give or take a flush.  docs/mstx.md
 * and memreg(8) say 40 ms.
 */
#define MSTX_FLUSH_MS		40

/*
 * Rings at once.  Addresses are hashed into MSTX_BUCKETS buckets; each
 * bucket records which rings have held operations on its addresses in a
 * 64-bit mask, one bit per ring.  The last ring is shared, under a
 * spinlock, by the threads beyond the first 63 that live at once.
 */
#define MSTX_MAX_RINGS		64
#define MSTX_SHARED_RING	(MSTX_MAX_RINGS - 1)

/*
 * A ring's entry: a region operation as the kernel will get it, without
 * the fields region operations leave 0 (24 bytes stored per call instead
 * of 40).
 */
struct mstx_entry {
	uint64_t addr;		/* DEP: the count of the other ring */
	uint64_t len;
	uint32_t heap;		/* DEP: the other ring's id */
	uint16_t op;
	uint16_t flags;
};

/*
 * Internal entries, never sent: MSTX_OP_DEP says that what follows in
 * the ring must reach the kernel after the first @addr entries of ring
 * @heap (another thread's operation on a region of the same heap may
 * have come first).  MSTX_F_FOLDABLE marks a REGION_ADD that lies inside
 * its heap: the flusher may fold it with an unregister right after it.
 */
#define MSTX_OP_DEP		0xffff
#define MSTX_F_FOLDABLE		0x1

/*
 * One thread's operations, in the order it made them.  The thread is the
 * only writer of @tail and the entries (no lock, no atomic exchange: a
 * store and a release store per call); the flusher, one at a time under
 * its mutex, reads up to @tail and then moves @head.  @head is on a line
 * of its own, so the thread's stores do not bounce it.
 */
struct mstx_ring {
	uint64_t tail;			/* entries written (release) */
	uintptr_t owner;		/* its thread's pointer; 0: shared, free */
	uint32_t id;
	int lock;			/* the shared ring only */
	bool shared;
	bool free;			/* its thread exited; reusable */
	/*
	 * The owner's last two heaps found, the newest first, valid while
	 * the index's sequence count is @c_seq: most calls of a thread are on
	 * the heap of its previous call, or of the call before (an allocator
	 * freeing in one pool and handing out from another); a load checks
	 * that instead of a search.
	 */
	unsigned int c_seq;
	struct mstx_heap_cache {
		uint64_t start, size, end;
		struct mstx_heap *heap;
		uint32_t kid;
	} c[2];
	uint64_t bit;			/* 1 << @id, for the buckets' masks */
	uint64_t dep_seen[MSTX_MAX_RINGS];	/* owner: deps recorded */
	uint64_t head __attribute__((aligned(64)));	/* entries sent */
	/* the flusher's, under its mutex */
	uint64_t pos, snap, target;
	unsigned int gen;
	struct mstx_entry ops[MSTX_BUF_OPS];
};

static inline void mstx_ring_lock(struct mstx_ring *r)
{
	unsigned int spins = 0;

	while (__atomic_exchange_n(&r->lock, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&r->lock, __ATOMIC_RELAXED))
			if (++spins > 64)
				sched_yield();
	}
}

static inline void mstx_ring_unlock(struct mstx_ring *r)
{
	__atomic_store_n(&r->lock, 0, __ATOMIC_RELEASE);
}

/*
 * One heap; a heap handle points at its slot.  @addr, @end, @kid and
 * @live change under the heap table's mutex; region calls read the
 * index (below), not the slot.
 */
struct mstx_heap {
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
/* Send @n operations now; 0 if the kernel applied the first (or all). */
int mstx__submit(struct memreg_mstx_op *ops, uint32_t n);
/* Everything the rings hold, to the kernel, in an order their deps allow. */
void mstx__flush_all(void);
/* The flusher's mutex, for heap calls that send after a flush. */
void mstx__flush_lock(void);
void mstx__flush_unlock(void);
/* With the flusher's mutex held: flush all, then send @op (if any) too. */
int mstx__flush_locked(struct memreg_mstx_op *op);
void mstx__start_flusher(void);

extern struct mstx_ring *mstx__rings[MSTX_MAX_RINGS];

/*
 * Operations on one region must reach the kernel in the order the program
 * made them, whatever threads made them; operations on different regions
 * need no order.  So the rings that held operations on an address are
 * recorded per bucket of addresses: threads working on regions of their
 * own, even in one heap, rarely meet in a bucket, and a thread alone in
 * its buckets records no dependency.  128 KiB, touched where used.
 */
#define MSTX_BUCKETS		16384
extern uint64_t mstx__buckets[MSTX_BUCKETS];

static inline uint64_t *mstx__bucket(uint64_t addr)
{
	return &mstx__buckets[(addr * 0x9e3779b97f4a7c15ULL) >> 50];
}

/*
 * Rings by thread pointer, for the call path: a thread-local variable
 * would be one load in a program, but libmemreg is dlopen()ed by the mstx
 * header and its thread-locals (acl's, adxl's) are too large for the
 * static TLS that glibc keeps for dlopen (initial-exec), while the other
 * models cost a call per access.  A slot may hold any ring: it is the
 * caller's only if the ring's @owner is the caller's thread pointer
 * (unique among live threads; cleared when the thread exits).
 */
#define MSTX_TP_SLOTS		256
extern struct mstx_ring *mstx__ring_by_tp[MSTX_TP_SLOTS];

static inline uintptr_t mstx__tp(void)
{
	return (uintptr_t)__builtin_thread_pointer();
}

static inline unsigned int mstx__tp_slot(uintptr_t tp)
{
	/* thread pointers are far apart and alike in their low bits */
	return (unsigned int)((tp * 0x9e3779b97f4a7c15ULL) >> 56) %
	       MSTX_TP_SLOTS;
}

/* The calling thread's ring if the table has it, else NULL. */
static inline struct mstx_ring *mstx__my_ring(void)
{
	uintptr_t tp = mstx__tp();
	struct mstx_ring *r = __atomic_load_n(
		&mstx__ring_by_tp[mstx__tp_slot(tp)], __ATOMIC_RELAXED);

	if (r && __atomic_load_n(&r->owner, __ATOMIC_RELAXED) == tp)
		return r;
	return NULL;
}

/* The calling thread's ring, the slow way: made on its first call. */
struct mstx_ring *mstx__ring_get(void);
/* Send the ring when full; record the deps of a mask with others' bits. */
void mstx__ring_full(struct mstx_ring *r);
void mstx__ring_deps(struct mstx_ring *r, uint64_t others);

/*
 * Add an entry to @r: the caller is @r's producer (or holds the shared
 * ring's lock).  The fields are stored into the slot one by one: an entry
 * built on the stack and copied costs a failed store forwarding per call.
 */
static inline void mstx__ring_put(struct mstx_ring *r, uint16_t op,
				  uint16_t flags, uint32_t heap,
				  uint64_t addr, uint64_t len)
{
	uint64_t t = r->tail;
	struct mstx_entry *e = &r->ops[t % MSTX_BUF_OPS];

	e->addr = addr;
	e->len = len;
	e->heap = heap;
	e->op = op;
	e->flags = flags;
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
	if (t + 1 - __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) >=
	    MSTX_BUF_OPS)
		mstx__ring_full(r);
}

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
	uint32_t kid;
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

/*
 * The slot whose heap contains @addr, or NULL; lock-free.  *@kid is the
 * heap's id as the index had it with the slot (a heap unregistered since
 * is refused by the kernel, never mistaken for another one), *@start and
 * *@end its range.
 */
static inline struct mstx_heap *mstx__heap_find(uint64_t addr, uint32_t *kid,
						uint64_t *start, uint64_t *end)
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
		if (i >= 0)
			*end = MSTX_LOAD(mstx__index[i].end);
		if (i >= 0 && addr < *end) {
			h = &mstx__heaps[MSTX_LOAD(mstx__index[i].slot) %
					 MSTX_MAX_HEAPS];
			*kid = MSTX_LOAD(mstx__index[i].kid);
			*start = MSTX_LOAD(mstx__index[i].addr);
		}
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
