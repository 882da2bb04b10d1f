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
 * Memory is bounded per file by two module parameters; a batch stops at
 * the first operation over a limit with EMFILE/ENOSPC, and the refusal is
 * counted and announced.
 */
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "memreg_heap.h"

static unsigned int mstx_max_heaps = 1024;
module_param(mstx_max_heaps, uint, 0644);
MODULE_PARM_DESC(mstx_max_heaps, "mstx heaps per open file (1024)");

static unsigned int mstx_max_regions = 262144;
module_param(mstx_max_regions, uint, 0644);
MODULE_PARM_DESC(mstx_max_regions,
		 "mstx regions per open file, all heaps together (262144)");

/* Operations copied from userspace at a time. */
#define MEMREG_MSTX_CHUNK	(PAGE_SIZE / sizeof(struct memreg_mstx_op))

struct memreg_mstx_region {
	struct rb_node node;
	u64 addr;
	u64 len;
};

static DEFINE_MUTEX(memreg_heap_sets_mutex);
static DEFINE_XARRAY_ALLOC1(memreg_heap_sets);
static u32 memreg_heap_next_set;

static void memreg_heap_init(struct memreg_mstx_heap *heap, u32 id)
{
	heap->id = id;
	heap->regions = RB_ROOT;
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
	set->ctx = mf->ctx;
	mutex_init(&set->lock);
	xa_init(&set->heaps);
	INIT_LIST_HEAD(&set->pending);
	memreg_heap_init(&set->none, 0);
	/* cyclic, so that the dump's cursor stays meaningful */
	err = xa_alloc_cyclic(&memreg_heap_sets, &set->id, set, xa_limit_32b,
			      &memreg_heap_next_set, GFP_KERNEL);
	if (err < 0) {
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

static struct memreg_mstx_region *memreg_region_find(struct rb_root *root,
						     u64 addr)
{
	struct rb_node *n = root->rb_node;

	while (n) {
		struct memreg_mstx_region *r =
			rb_entry(n, struct memreg_mstx_region, node);

		if (addr < r->addr)
			n = n->rb_left;
		else if (addr > r->addr)
			n = n->rb_right;
		else
			return r;
	}
	return NULL;
}

/* Insert @new; false (nothing done) if a region starts at its address. */
static bool memreg_region_insert(struct rb_root *root,
				 struct memreg_mstx_region *new)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;

	while (*link) {
		struct memreg_mstx_region *r =
			rb_entry(*link, struct memreg_mstx_region, node);

		parent = *link;
		if (new->addr < r->addr)
			link = &(*link)->rb_left;
		else if (new->addr > r->addr)
			link = &(*link)->rb_right;
		else
			return false;
	}
	rb_link_node(&new->node, parent, link);
	rb_insert_color(&new->node, root);
	return true;
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

static void memreg_heap_free_regions(struct memreg_mstx_heap *heap)
{
	struct memreg_mstx_region *r, *tmp;

	rbtree_postorder_for_each_entry_safe(r, tmp, &heap->regions, node)
		kfree(r);
	heap->regions = RB_ROOT;
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
	if (set->nr_heaps >= READ_ONCE(mstx_max_heaps)) {
		memreg_heap_violation(set, &set->none, MEMREG_VIOL_REFUSED,
				      op->len);
		return -EMFILE;
	}

	heap = kzalloc(sizeof(*heap), GFP_KERNEL_ACCOUNT);
	if (!heap)
		return -ENOMEM;
	memreg_heap_init(heap, op->heap);
	heap->device = op->device;
	heap->addr = op->addr;
	heap->size = op->len;
	if (op->domain) {
		n = strncpy_from_user(heap->domain, u64_to_user_ptr(op->domain),
				      sizeof(heap->domain));
		if (n < 0) {
			kfree(heap);
			return n;
		}
		/* a longer name is cut; no NUL was copied then */
		heap->domain[sizeof(heap->domain) - 1] = '\0';
	}
	if (!heap->domain[0])
		strscpy(heap->domain, "default", sizeof(heap->domain));

	err = xa_insert(&set->heaps, heap->id, heap, GFP_KERNEL_ACCOUNT);
	if (err) {
		kfree(heap);
		return err;
	}
	set->nr_heaps++;
	memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_ADDED, 0, 0);
	return 0;
}

static void memreg_heap_destroy(struct memreg_heaps *set,
				struct memreg_mstx_heap *heap, bool announce)
{
	if (!list_empty(&heap->ev_node))
		memreg_heap_announce(set, heap);
	set->nr_regions -= heap->c.regions;
	if (announce && heap->c.regions)
		memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_DROPPED,
				  heap->c.regions, heap->c.bytes);
	if (announce)
		memreg_heap_event(set->ctx, heap, MEMREG_HEAP_EV_REMOVED, 0, 0);
	memreg_heap_free_regions(heap);
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
	/* the heap row goes; the none row keeps the count */
	set->none.c.dropped += heap->c.regions;
	memreg_heap_destroy(set, heap, true);
	return 0;
}

/* The heap an operation names: the none heap for 0, NULL if not live. */
static struct memreg_mstx_heap *memreg_heap_of(struct memreg_heaps *set,
					       u32 id)
{
	return id ? xa_load(&set->heaps, id) : &set->none;
}

static bool memreg_heap_contains(const struct memreg_mstx_heap *heap,
				 u64 addr, u64 end)
{
	return heap->id && addr >= heap->addr &&
	       end <= heap->addr + heap->size;
}

static int memreg_region_add(struct memreg_heaps *set,
			     const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap, *home;
	struct memreg_mstx_region *r;
	u64 end;

	if (check_add_overflow(op->addr, op->len, &end))
		return -EINVAL;
	heap = memreg_heap_of(set, op->heap);
	if (!heap)
		return -ENOENT;
	if (set->nr_regions >= READ_ONCE(mstx_max_regions)) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_REFUSED, op->len);
		return -ENOSPC;
	}

	home = heap;
	if (!memreg_heap_contains(heap, op->addr, end)) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_OUT_OF_HEAP,
				      op->len);
		home = &set->none;
	}
	r = kmalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r)
		return -ENOMEM;
	r->addr = op->addr;
	r->len = op->len;
	if (!memreg_region_insert(&home->regions, r)) {
		kfree(r);
		memreg_heap_violation(set, heap, MEMREG_VIOL_DUPLICATE, op->len);
		return 0;
	}
	set->nr_regions++;
	home->c.regions++;
	home->c.bytes += r->len;
	home->c.peak_regions = max(home->c.peak_regions, home->c.regions);
	home->c.peak_bytes = max(home->c.peak_bytes, home->c.bytes);
	return 0;
}

static int memreg_region_del(struct memreg_heaps *set,
			     const struct memreg_mstx_op *op)
{
	struct memreg_mstx_heap *heap, *home;
	struct memreg_mstx_region *r;

	heap = memreg_heap_of(set, op->heap);
	if (!heap)
		return -ENOENT;
	home = heap;
	r = memreg_region_find(&home->regions, op->addr);
	if (!r && heap != &set->none) {
		/* registered while running past its heap's end */
		home = &set->none;
		r = memreg_region_find(&home->regions, op->addr);
	}
	if (!r) {
		memreg_heap_violation(set, heap, MEMREG_VIOL_UNKNOWN, 0);
		return 0;
	}
	rb_erase(&r->node, &home->regions);
	set->nr_regions--;
	home->c.regions--;
	home->c.bytes -= r->len;
	kfree(r);
	return 0;
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
		return memreg_region_add(set, op);
	case MEMREG_MSTX_REGION_DEL:
		return memreg_region_del(set, op);
	}
	return -EINVAL;
}

/* Copy @n operations in; an op_size other than ours goes one at a time. */
static int memreg_heap_copy_ops(struct memreg_mstx_op *ops,
				const struct memreg_mstx *req, u32 first,
				u32 n)
{
	void __user *src = u64_to_user_ptr(req->ops) +
			   (size_t)first * req->op_size;
	u32 i;
	int err;

	if (req->op_size == sizeof(*ops))
		return copy_from_user(ops, src, n * sizeof(*ops)) ? -EFAULT : 0;
	for (i = 0; i < n; i++) {
		err = copy_struct_from_user(&ops[i], sizeof(ops[i]),
					    src + (size_t)i * req->op_size,
					    req->op_size);
		if (err)
			return err;
	}
	return 0;
}

static int memreg_heap_run(struct memreg_heaps *set,
			   const struct memreg_mstx *req, u32 *done)
{
	struct memreg_mstx_op *ops;
	struct memreg_mstx_heap *heap, *tmp;
	u32 first, n, i;
	int err = 0;

	ops = kmalloc_array(MEMREG_MSTX_CHUNK, sizeof(*ops), GFP_KERNEL);
	if (!ops)
		return -ENOMEM;
	mutex_lock(&set->lock);
	for (first = 0; first < req->count && !err; first += n) {
		n = min_t(u32, req->count - first, MEMREG_MSTX_CHUNK);
		err = memreg_heap_copy_ops(ops, req, first, n);
		for (i = 0; i < n && !err; i++) {
			err = memreg_heap_apply(set, &ops[i]);
			if (!err)
				(*done)++;
		}
	}
	list_for_each_entry_safe(heap, tmp, &set->pending, ev_node)
		memreg_heap_announce(set, heap);
	mutex_unlock(&set->lock);
	kfree(ops);
	return err;
}

long memreg_heap_ioctl(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_mstx __user *ureq = uarg;
	struct memreg_heaps *set;
	struct memreg_mstx req;
	u32 usize, done = 0;
	int err;

	if (get_user(usize, &ureq->size))
		return -EFAULT;
	if (usize < MEMREG_MSTX_SIZE_VER0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(&req, sizeof(req), uarg, usize);
	if (err)
		return err;
	if (req.flags || req.reserved0 ||
	    memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	if (req.count > MEMREG_MSTX_BATCH_MAX ||
	    req.op_size < MEMREG_MSTX_OP_SIZE_VER0 || req.op_size > PAGE_SIZE)
		return -EINVAL;

	set = memreg_heaps_get(mf);
	if (IS_ERR(set))
		return PTR_ERR(set);
	err = memreg_heap_run(set, &req, &done);
	if (put_user(done, &ureq->done))
		return -EFAULT;
	return err;
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
	memreg_heap_free_regions(&set->none);
	mutex_destroy(&set->lock);
	kfree(set);
	mf->heaps = NULL;
}

bool memreg_heap_none_shown(const struct memreg_mstx_heap *none)
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
