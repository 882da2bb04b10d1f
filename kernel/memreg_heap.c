// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - mstx heaps and regions: MEMREG_IOC_MSTX applies a batch of heap
 * and region operations that the library collected (see the UAPI header
 * linux/memreg_mstx.h for the rules and the errors).
 *
 * The library finds a region's heap by address and says which one it
 * found; the module checks that the region really lies inside it, so a
 * buggy or stale lookup shows up as "out of heap" and never as a region
 * counted in the wrong place.  Regions outside every heap are kept too (in
 * the set's "none" heap), so that their unregister is not a second
 * violation.
 *
 * Memory is bounded per process, all its files together, by two module
 * parameters (per file, one process opening 73 files held 742 MB of
 * unreclaimable slab); every allocation is charged to the memory cgroup
 * too.  A batch stops at the first operation over a limit with
 * EMFILE/ENOSPC, and the refusal is counted and announced.
 */
#include <linux/errno.h>
#include <linux/hash.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "memreg_heap.h"

static unsigned int mstx_max_heaps = 1024;
module_param(mstx_max_heaps, uint, 0644);
MODULE_PARM_DESC(mstx_max_heaps, "mstx heaps per process (1024)");

static unsigned int mstx_max_regions = 262144;
module_param(mstx_max_regions, uint, 0644);
MODULE_PARM_DESC(mstx_max_regions,
		 "mstx regions per process, all heaps together (262144)");

/* Operations copied from userspace at a time. */
#define MEMREG_MSTX_CHUNK	(PAGE_SIZE / sizeof(struct memreg_mstx_op))

struct memreg_mstx_region {
	struct hlist_node node;		/* in its heap's bucket, or pool's free */
	u64 addr;
	u64 len;
};

/*
 * Region nodes come from a cache of their own, charged to the memory
 * cgroup of the process (SLAB_ACCOUNT); memreg_heap_cache_init() makes it.
 */
static struct kmem_cache *memreg_mstx_region_cache;

/*
 * A heap's table starts at 64 buckets and doubles when it holds more
 * regions than buckets; 2^20 is past any region limit worth setting.
 * Why not an rhashtable: its bucket tables are allocated with GFP_KERNEL,
 * not charged to the memory cgroup, and a user with many processes could
 * hold that much unaccounted kernel memory (issue 14 found 742 MB of mstx
 * slab held by one user); this table is kvcalloc(GFP_KERNEL_ACCOUNT).
 */
#define MEMREG_MSTX_HASH_BITS_MIN	6
#define MEMREG_MSTX_HASH_BITS_MAX	20

static DEFINE_MUTEX(memreg_heap_sets_mutex);
static DEFINE_XARRAY_ALLOC1(memreg_heap_sets);
static u32 memreg_heap_next_set;

/*
 * One more heap or region for the process, if its limit leaves room:
 * taken first and given back if over, so files of one process racing for
 * the last one cannot both have it.
 */
static bool memreg_mstx_take(atomic64_t *used, unsigned int max)
{
	if (atomic64_inc_return(used) > max) {
		atomic64_dec(used);
		return false;
	}
	return true;
}

static void memreg_heap_init(struct memreg_mstx_heap *heap, u32 id)
{
	heap->id = id;
	heap->created = ktime_get();
	INIT_LIST_HEAD(&heap->ev_node);
}

/* The file's set, made on its first MEMREG_IOC_MSTX. */
static struct memreg_heaps *memreg_heaps_get(struct memreg_file *mf)
{
	/* pairs with smp_store_release() below: the set is initialised */
	struct memreg_heaps *set = smp_load_acquire(&mf->heaps);
	int err;

	if (set)
		return set;
	mutex_lock(&memreg_heap_sets_mutex);
	set = mf->heaps;
	if (set)
		goto out;
	set = kzalloc(sizeof(*set), GFP_KERNEL_ACCOUNT);
	if (!set) {
		set = ERR_PTR(-ENOMEM);
		goto out;
	}
	set->ops = kmalloc_array(MEMREG_MSTX_CHUNK, sizeof(*set->ops),
				 GFP_KERNEL_ACCOUNT);
	if (!set->ops) {
		kfree(set);
		set = ERR_PTR(-ENOMEM);
		goto out;
	}
	set->ctx = mf->ctx;
	mutex_init(&set->lock);
	xa_init(&set->heaps);
	INIT_LIST_HEAD(&set->pending);
	memreg_heap_init(&set->none, 0);
	/* cyclic, so that the dump's cursor stays meaningful */
	err = xa_alloc_cyclic(&memreg_heap_sets, &set->id, set, xa_limit_32b,
			      &memreg_heap_next_set, GFP_KERNEL);
	if (err < 0) {
		kfree(set->ops);
		kfree(set);
		set = ERR_PTR(err);
		goto out;
	}
	/* publish only once initialised: see smp_load_acquire() above */
	smp_store_release(&mf->heaps, set);
out:
	mutex_unlock(&memreg_heap_sets_mutex);
	return set;
}

static struct memreg_mstx_region *memreg_node_get(struct memreg_heaps *set)
{
	return kmem_cache_alloc(memreg_mstx_region_cache, GFP_KERNEL);
}

static void memreg_node_put(struct memreg_heaps *set,
			    struct memreg_mstx_region *r)
{
	kmem_cache_free(memreg_mstx_region_cache, r);
}

static struct hlist_head *memreg_bucket(const struct memreg_mstx_heap *heap,
					u64 addr)
{
	return &heap->buckets[hash_64(addr, heap->bits)];
}

static struct memreg_mstx_region *
memreg_mstx_region_find(const struct memreg_mstx_heap *heap, u64 addr)
{
	struct memreg_mstx_region *r;

	if (!heap->buckets)
		return NULL;
	hlist_for_each_entry(r, memreg_bucket(heap, addr), node)
		if (r->addr == addr)
			return r;
	return NULL;
}

/*
 * Make room for one more region in @heap's table: the first table, or a
 * table twice as large once it holds as many regions as buckets.  Only the
 * first one must succeed: a table that could not grow has longer chains.
 */
static int memreg_heap_hash_grow(struct memreg_mstx_heap *heap)
{
	unsigned int bits = heap->bits + 1, i;
	struct memreg_mstx_region *r;
	struct hlist_head *new;
	struct hlist_node *tmp;

	if (!heap->buckets)
		bits = MEMREG_MSTX_HASH_BITS_MIN;
	else if (heap->c.regions < (1ULL << heap->bits) ||
		 heap->bits >= MEMREG_MSTX_HASH_BITS_MAX)
		return 0;
	new = kvcalloc(1U << bits, sizeof(*new),
		       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!new)
		return heap->buckets ? 0 : -ENOMEM;
	if (heap->buckets) {
		for (i = 0; i < (1U << heap->bits); i++)
			hlist_for_each_entry_safe(r, tmp, &heap->buckets[i],
						  node) {
				hlist_del(&r->node);
				hlist_add_head(&r->node,
					       &new[hash_64(r->addr, bits)]);
			}
		kvfree(heap->buckets);
	}
	heap->buckets = new;
	heap->bits = bits;
	return 0;
}

static void memreg_heap_violation(struct memreg_heaps *set,
				  struct memreg_mstx_heap *heap,
				  enum memreg_mstx_viol v, u64 bytes)
{
	heap->c.viol[v]++;
	heap->ev_count[v]++;
	heap->ev_bytes[v] += bytes;
	if (list_empty(&heap->ev_node))
		list_add_tail(&heap->ev_node, &set->pending);
}

static const enum memreg_heap_event memreg_viol_event[MEMREG_VIOL_NR] = {
	[MEMREG_VIOL_OUT_OF_HEAP]	= MEMREG_HEAP_EV_OUT_OF_HEAP,
	[MEMREG_VIOL_UNKNOWN]		= MEMREG_HEAP_EV_UNKNOWN,
	[MEMREG_VIOL_DUPLICATE]		= MEMREG_HEAP_EV_DUPLICATE,
	[MEMREG_VIOL_REFUSED]		= MEMREG_HEAP_EV_REFUSED,
};

/* One event per kind of violation @heap had in this batch. */
static void memreg_heap_announce(struct memreg_heaps *set,
				 struct memreg_mstx_heap *heap)
{
	int v;

	for (v = 0; v < MEMREG_VIOL_NR; v++) {
		if (!heap->ev_count[v])
			continue;
		memreg_heap_event(set->ctx, heap, memreg_viol_event[v],
				  heap->ev_count[v], heap->ev_bytes[v]);
		heap->ev_count[v] = 0;
		heap->ev_bytes[v] = 0;
	}
	list_del_init(&heap->ev_node);
}

/* Back to the pool: every region of @heap, and its table. */
static void memreg_heap_free_regions(struct memreg_heaps *set,
				     struct memreg_mstx_heap *heap)
{
	struct memreg_mstx_region *r;
	struct hlist_node *tmp;
	unsigned int i;

	if (!heap->buckets)
		return;
	for (i = 0; i < (1U << heap->bits); i++)
		hlist_for_each_entry_safe(r, tmp, &heap->buckets[i], node) {
			hlist_del(&r->node);
			memreg_node_put(set, r);
		}
	kvfree(heap->buckets);
	heap->buckets = NULL;
	heap->bits = 0;
}

static int memreg_heap_add(struct memreg_heaps *set,
			   const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap;
	u64 end;
	long n;
	int err;

	if (!op->heap || !op->len || check_add_overflow(op->addr, op->len, &end))
		return -EINVAL;
	if (xa_load(&set->heaps, op->heap))
		return -EEXIST;
	if (!memreg_mstx_take(&set->ctx->mstx_heaps,
			      READ_ONCE(mstx_max_heaps))) {
		memreg_heap_violation(set, &set->none, MEMREG_VIOL_REFUSED,
				      op->len);
		return -EMFILE;
	}

	heap = kzalloc(sizeof(*heap), GFP_KERNEL_ACCOUNT);
	if (!heap) {
		err = -ENOMEM;
		goto give_back;
	}
	memreg_heap_init(heap, op->heap);
	heap->device = op->device;
	heap->addr = op->addr;
	heap->size = op->len;
	if (op->domain) {
		n = strncpy_from_user(heap->domain, u64_to_user_ptr(op->domain),
				      sizeof(heap->domain));
		if (n < 0) {
			err = n;
			goto free_heap;
		}
		/* a longer name is cut; no NUL was copied then */
		heap->domain[sizeof(heap->domain) - 1] = '\0';
	}
	if (!heap->domain[0])
		strscpy(heap->domain, "default", sizeof(heap->domain));

	err = xa_insert(&set->heaps, heap->id, heap, GFP_KERNEL_ACCOUNT);
	if (err)
		goto free_heap;
	set->nr_heaps++;
	memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_ADDED, 0, 0);
	return 0;

free_heap:
	kfree(heap);
give_back:
	atomic64_dec(&set->ctx->mstx_heaps);
	return err;
}

static void memreg_heap_destroy(struct memreg_heaps *set,
				struct memreg_mstx_heap *heap, bool announce)
{
	if (!list_empty(&heap->ev_node))
		memreg_heap_announce(set, heap);
	set->nr_regions -= heap->c.regions;
	atomic64_sub(heap->c.regions, &set->ctx->mstx_regions);
	if (announce && heap->c.regions)
		memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_DROPPED,
				  heap->c.regions, heap->c.bytes);
	if (announce)
		memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_REMOVED, 0, 0);
	if (set->last == heap)
		set->last = NULL;
	memreg_heap_free_regions(set, heap);
	kfree(heap);
}

static int memreg_heap_del(struct memreg_heaps *set,
			   const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap;

	if (!op->heap)
		return -EINVAL;
	heap = xa_erase(&set->heaps, op->heap);
	if (!heap)
		return -ENOENT;
	set->nr_heaps--;
	atomic64_dec(&set->ctx->mstx_heaps);
	/* the heap row goes; the none row keeps the count */
	set->none.c.dropped += heap->c.regions;
	memreg_heap_destroy(set, heap, true);
	return 0;
}

/*
 * The heap an operation names: the none heap for 0, NULL if not live.
 * The library sends each heap's operations in batches of their own: the
 * last heap found is almost always the one.
 */
static struct memreg_mstx_heap *memreg_heap_of(struct memreg_heaps *set,
					       u32 id)
{
	struct memreg_mstx_heap *heap;

	if (!id)
		return &set->none;
	if (set->last && set->last->id == id)
		return set->last;
	heap = xa_load(&set->heaps, id);
	if (heap)
		set->last = heap;
	return heap;
}

static bool memreg_heap_contains(const struct memreg_mstx_heap *heap,
				 u64 addr, u64 end)
{
	return heap->id && addr >= heap->addr &&
	       end <= heap->addr + heap->size;
}

/* The heap a region operation names, and the end of its range in *@end. */
static struct memreg_mstx_heap *
memreg_mstx_op_heap(struct memreg_heaps *set, const struct memreg_mstx_op *op,
		    u64 *end)
{
	struct memreg_mstx_heap *heap;

	if (check_add_overflow(op->addr, op->len, end))
		return ERR_PTR(-EINVAL);
	heap = memreg_heap_of(set, op->heap);
	return heap ? heap : ERR_PTR(-ENOENT);
}

static int memreg_mstx_region_add(struct memreg_heaps *set,
				  const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap, *home;
	struct memreg_mstx_region *r;
	u64 end;
	int err;

	heap = memreg_mstx_op_heap(set, op, &end);
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	if (!memreg_mstx_take(&set->ctx->mstx_regions,
			      READ_ONCE(mstx_max_regions))) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_REFUSED, op->len);
		return -ENOSPC;
	}

	home = heap;
	if (!memreg_heap_contains(heap, op->addr, end)) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_OUT_OF_HEAP,
				      op->len);
		home = &set->none;
	}
	if (memreg_mstx_region_find(home, op->addr)) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_DUPLICATE, op->len);
		err = 0;
		goto give_back;
	}
	err = -ENOMEM;
	if (memreg_heap_hash_grow(home))
		goto give_back;
	r = memreg_node_get(set);
	if (!r)
		goto give_back;
	r->addr = op->addr;
	r->len = op->len;
	hlist_add_head(&r->node, memreg_bucket(home, r->addr));
	set->nr_regions++;
	home->c.regions++;
	home->c.bytes += r->len;
	home->c.peak_regions = max(home->c.peak_regions, home->c.regions);
	home->c.peak_bytes = max(home->c.peak_bytes, home->c.bytes);
	return 0;

give_back:
	atomic64_dec(&set->ctx->mstx_regions);
	return err;
}

static int memreg_mstx_region_del(struct memreg_heaps *set,
				  const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap, *home;
	struct memreg_mstx_region *r;

	heap = memreg_heap_of(set, op->heap);
	if (!heap)
		return -ENOENT;
	home = heap;
	r = memreg_mstx_region_find(home, op->addr);
	if (!r && heap != &set->none) {
		/* registered while running past its heap's end */
		home = &set->none;
		r = memreg_mstx_region_find(home, op->addr);
	}
	if (!r) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_UNKNOWN, 0);
		return 0;
	}
	hlist_del(&r->node);
	set->nr_regions--;
	atomic64_dec(&set->ctx->mstx_regions);
	home->c.regions--;
	home->c.bytes -= r->len;
	memreg_node_put(set, r);
	return 0;
}

/*
 * REGION_ADD_DEL: what REGION_ADD then REGION_DEL of the same region would
 * do.  When the region lies inside its heap, is not registered, and the
 * limit leaves room for it, the two would store it, raise the peaks and
 * take it out again: only the peaks change.  Otherwise the two run as
 * they are, so the same violations are counted (and the DEL still takes
 * out a region that was live before); a refusal for the limit is counted
 * by the ADD and does not stop the batch, so that the DEL is not lost.
 */
static int memreg_mstx_region_add_del(struct memreg_heaps *set,
				      const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap;
	struct memreg_mstx_counts *c;
	u64 end;
	int err;

	heap = memreg_mstx_op_heap(set, op, &end);
	if (IS_ERR(heap))
		return PTR_ERR(heap);
	if (memreg_heap_contains(heap, op->addr, end) &&
	    atomic64_read(&set->ctx->mstx_regions) <
	    READ_ONCE(mstx_max_regions) &&
	    !memreg_mstx_region_find(heap, op->addr)) {
		c = &heap->c;
		c->peak_regions = max(c->peak_regions, c->regions + 1);
		c->peak_bytes = max(c->peak_bytes, c->bytes + op->len);
		return 0;
	}
	err = memreg_mstx_region_add(set, op);
	if (err && err != -ENOSPC)
		return err;
	return memreg_mstx_region_del(set, op);
}

static int memreg_heap_apply(struct memreg_heaps *set,
			     const struct memreg_mstx_op *op)
{
	if (op->flags || op->reserved)
		return -EINVAL;
	switch (op->op) {
	case MEMREG_MSTX_HEAP_ADD:
		return memreg_heap_add(set, op);
	case MEMREG_MSTX_HEAP_DEL:
		return memreg_heap_del(set, op);
	case MEMREG_MSTX_REGION_ADD:
		return memreg_mstx_region_add(set, op);
	case MEMREG_MSTX_REGION_DEL:
		return memreg_mstx_region_del(set, op);
	case MEMREG_MSTX_REGION_ADD_DEL:
		return memreg_mstx_region_add_del(set, op);
	}
	return -EINVAL;
}

/* Copy @n operations in; an op_size other than ours goes one at a time. */
static int memreg_heap_run(struct memreg_heaps *set,
			   const struct memreg_mstx *req, u32 *done)
{
	struct memreg_mstx_op *ops = set->ops;
	struct memreg_mstx_heap *heap, *tmp;
	u32 first, n, i;
	int err = 0;

	/* the set's page for the operations is ours while the lock is held */
	mutex_lock(&set->lock);
	for (first = 0; first < req->count && !err; first += n) {
		n = min_t(u32, req->count - first, MEMREG_MSTX_CHUNK);
		err = memreg_copy_array_in(ops, sizeof(*ops),
					   u64_to_user_ptr(req->ops),
					   req->op_size, first, n);
		for (i = 0; i < n && !err; i++) {
			err = memreg_heap_apply(set, &ops[i]);
			if (!err)
				(*done)++;
		}
	}
	list_for_each_entry_safe(heap, tmp, &set->pending, ev_node)
		memreg_heap_announce(set, heap);
	mutex_unlock(&set->lock);
	return err;
}

/* MEMREG_IOC_MSTX; size, flags and reserved words are checked already. */
int memreg_heap_batch(struct memreg_file *mf, struct memreg_mstx *req)
{
	struct memreg_heaps *set;

	req->done = 0;
	if (req->reserved0)
		return -EINVAL;
	if (req->count > MEMREG_MSTX_BATCH_MAX ||
	    req->op_size < MEMREG_MSTX_OP_SIZE_VER0 || req->op_size > PAGE_SIZE)
		return -EINVAL;

	set = memreg_heaps_get(mf);
	if (IS_ERR(set))
		return PTR_ERR(set);
	return memreg_heap_run(set, req, &req->done);
}

void memreg_heap_release_file(struct memreg_file *mf)
{
	struct memreg_heaps *set = mf->heaps;
	struct memreg_mstx_heap *heap;
	unsigned long id;

	if (!set)
		return;
	/* out of the dump's sight first; nobody else can reach it then */
	mutex_lock(&memreg_heap_sets_mutex);
	xa_erase(&memreg_heap_sets, set->id);
	mutex_unlock(&memreg_heap_sets_mutex);

	/* the process is gone or closing: no per-heap events for that */
	xa_for_each(&set->heaps, id, heap)
		memreg_heap_destroy(set, heap, false);
	xa_destroy(&set->heaps);
	/* the heaps gave their regions back; the rest, and the heaps, now */
	atomic64_sub(set->nr_regions, &set->ctx->mstx_regions);
	atomic64_sub(set->nr_heaps, &set->ctx->mstx_heaps);
	memreg_heap_free_regions(set, &set->none);
	mutex_destroy(&set->lock);
	kfree(set->ops);
	kfree(set);
	mf->heaps = NULL;
}

int memreg_heap_cache_init(void)
{
	memreg_mstx_region_cache = KMEM_CACHE(memreg_mstx_region, SLAB_ACCOUNT);
	return memreg_mstx_region_cache ? 0 : -ENOMEM;
}

/* After every file is released (module exit): no region is left. */
void memreg_heap_cache_exit(void)
{
	kmem_cache_destroy(memreg_mstx_region_cache);
}

static bool memreg_heap_none_shown(const struct memreg_mstx_heap *none)
{
	int v;

	if (none->c.regions || none->c.dropped)
		return true;
	for (v = 0; v < MEMREG_VIOL_NR; v++)
		if (none->c.viol[v])
			return true;
	return false;
}

u32 memreg_heap_util(const struct memreg_mstx_heap *heap)
{
	if (!heap->size)
		return 0;
	/* overlapping regions can add up to more than the heap: cap */
	return min_t(u64, mul_u64_u64_div_u64(heap->c.bytes, 10000, heap->size),
		     10000);
}

void memreg_heap_walk(unsigned long *set_cursor, unsigned long *heap_cursor,
		      int (*emit)(struct memreg_heaps *set,
				  struct memreg_mstx_heap *heap, void *arg),
		      void *arg)
{
	struct memreg_mstx_heap *heap;
	struct memreg_heaps *set;
	unsigned long sid, hid;
	int stop = 0;

	mutex_lock(&memreg_heap_sets_mutex);
	xa_for_each_start(&memreg_heap_sets, sid, set, *set_cursor) {
		if (sid != *set_cursor)
			*heap_cursor = 0;
		*set_cursor = sid;
		mutex_lock(&set->lock);
		if (*heap_cursor == 0) {
			if (memreg_heap_none_shown(&set->none))
				stop = emit(set, &set->none, arg);
			if (!stop)
				*heap_cursor = 1;
		}
		if (!stop) {
			xa_for_each_start(&set->heaps, hid, heap, *heap_cursor) {
				stop = emit(set, heap, arg);
				if (stop)
					break;
				*heap_cursor = hid + 1;
			}
		}
		mutex_unlock(&set->lock);
		if (stop)
			break;
		/* next set, from its none heap */
		*set_cursor = sid + 1;
		*heap_cursor = 0;
	}
	mutex_unlock(&memreg_heap_sets_mutex);
}
