/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - mstx heaps and regions: what memreg_heap.c keeps per open file,
 * and what the dump (memreg_nl_heap.c) and the events
 * (memreg_heap_event.c) read of it.
 *
 * struct memreg_heaps     one per file that used MEMREG_IOC_MSTX; in the
 *                         global memreg_heap_sets (dump order) until the
 *                         file is released.
 * struct memreg_mstx_heap one per live heap, in its set's xarray by the
 *                         process's heap id; plus the set's "none" heap
 *                         (id 0) that holds regions outside every heap.
 *                         Its regions are in a hash table by address:
 *                         regions are only ever looked up by address, never
 *                         walked in order.
 *
 * Region nodes come from a kmem_cache of their own with SLAB_ACCOUNT:
 * charged to the process's memory cgroup, and bounded per process by
 * mstx_max_regions.
 *
 * Locking: a set's mutex protects everything in it; the ioctl holds it for
 * one batch.  memreg_heap_sets_mutex protects the set list and is taken
 * before a set's mutex (dump, release); it keeps a set and its context
 * alive while the dump reads them.
 */
#ifndef _MEMREG_HEAP_H
#define _MEMREG_HEAP_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include "memreg_internal.h"

/* Violations that are announced once per kind, heap and batch. */
enum memreg_mstx_viol {
	MEMREG_VIOL_OUT_OF_HEAP,
	MEMREG_VIOL_UNKNOWN,
	MEMREG_VIOL_DUPLICATE,
	MEMREG_VIOL_REFUSED,
	MEMREG_VIOL_NR
};

struct memreg_mstx_counts {
	u64 regions;
	u64 bytes;
	u64 peak_regions;
	u64 peak_bytes;
	u64 viol[MEMREG_VIOL_NR];	/* since HEAP_ADD */
	u64 dropped;			/* none heap: by every HEAP_DEL */
};

struct memreg_mstx_heap {
	u32 id;				/* 0: outside every heap */
	u32 device;
	u64 addr;
	u64 size;
	ktime_t created;
	char domain[MEMREG_MSTX_DOMAIN_LEN];
	struct hlist_head *buckets;	/* regions by hash_64(addr); NULL: none yet */
	unsigned int bits;		/* 1 << bits buckets */
	struct memreg_mstx_counts c;

	/* this batch's violations, announced when it ends */
	u64 ev_count[MEMREG_VIOL_NR];
	u64 ev_bytes[MEMREG_VIOL_NR];
	struct list_head ev_node;	/* on memreg_heaps.pending, or empty */
};

struct memreg_mstx_op;

struct memreg_heaps {
	u32 id;				/* key in memreg_heap_sets */
	struct memreg_ctx *ctx;		/* the file's: outlives the set */
	struct mutex lock;
	struct xarray heaps;		/* heap id -> struct memreg_mstx_heap */
	struct memreg_mstx_heap none;
	struct memreg_mstx_heap *last;	/* the last heap looked up by id */
	struct memreg_mstx_op *ops;	/* a page of the batch being applied */
	u64 nr_regions;			/* in every heap and in none */
	unsigned int nr_heaps;
	struct list_head pending;	/* heaps with violations to announce */
};

/*
 * Walk every heap of every set from (*set_cursor, *heap_cursor) on, with
 * the sets' mutexes held.  Heap key 0 is the set's "none" heap, the others
 * are heap ids.  @emit returns 0 when it consumed the heap and nonzero
 * when it has no room: the walk stops there, the cursors pointing at it.
 */
void memreg_heap_walk(unsigned long *set_cursor, unsigned long *heap_cursor,
		      int (*emit)(struct memreg_heaps *set,
				  struct memreg_mstx_heap *heap, void *arg),
		      void *arg);

/* The none heap has something to show: regions or violations. */

/* REGION_BYTES / SIZE in 1/10000, for the dump. */
u32 memreg_heap_util(const struct memreg_mstx_heap *heap);

/* memreg_heap_event.c */
void memreg_heap_event(const struct memreg_ctx *ctx,
		       const struct memreg_mstx_heap *heap,
		       enum memreg_heap_event ev, u64 count, u64 bytes);

#endif /* _MEMREG_HEAP_H */
