// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - registrations: create, look up by handle, destroy, query.
 *
 * A registration is published in the global registry only once it is
 * complete (pinned, charged, handle made), and removed from it before it is
 * torn down, so the netlink dumps never see a half-built one.  The id is
 * allocated cyclically, so an id is not reused soon after it is freed and a
 * dump cursor (the next id) stays meaningful while registrations come and go.
 */
#include <linux/errno.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "memreg_internal.h"

/* a registration keeps its type and access bits in a byte each */
static_assert(MEMREG_MEM_TYPES <= U8_MAX + 1 && MEMREG_ACCESS_ALL <= U8_MAX);

DEFINE_XARRAY_ALLOC1(memreg_regs);
static u32 memreg_next_id;
/* the id reserved ahead (memreg_reg_id_alloc()), under the xarray's lock */
static u32 memreg_spare_id;
static bool memreg_have_spare;

/*
 * A new id, reserved in memreg_regs (the entry stays invisible until it
 * is stored).  Ids are cyclic, so that a stale handle or a late
 * REG_REMOVED event never names a newer registration.  With cyclic ids
 * alone, a registration alone in its leaf took the leaf (and the nodes
 * above it) with it when it went, and the next one allocated them again:
 * 2.4 node allocations a registration in reg_bench.  So one id more is
 * always reserved ahead of those in use: the leaf of the next id lives
 * on, and a new leaf is needed once every 64 ids.
 */
static int memreg_reg_id_alloc(u32 *id)
{
	u32 fresh;
	int err;

	xa_lock(&memreg_regs);
	for (;;) {
		/* may drop the lock to allocate: the spare is read after */
		err = __xa_alloc_cyclic(&memreg_regs, &fresh, NULL,
					xa_limit_32b, &memreg_next_id,
					GFP_KERNEL);
		if (err < 0)
			break;
		if (memreg_have_spare) {
			*id = memreg_spare_id;
			memreg_spare_id = fresh;
			err = 0;
			break;
		}
		/* the first registration: reserve the spare, then its id */
		memreg_spare_id = fresh;
		memreg_have_spare = true;
	}
	xa_unlock(&memreg_regs);
	return err;
}

/* The backends, by enum memreg_mem_type: chosen once, at register time. */
const struct memreg_mem_ops *const memreg_mem_types[MEMREG_MEM_TYPES] = {
	[MEMREG_MEM_HOST]	= &memreg_host_mem_ops,
	[MEMREG_MEM_DEVICE]	= &memreg_dev_mem_ops,
	[MEMREG_MEM_DMABUF]	= &memreg_dmabuf_mem_ops,
};

/*
 * A registration's age is shown in ms, so the tick's clock is precise
 * enough, and it costs no clocksource read on the register path (an
 * HPET read under emulation takes longer than the rest of a slice's
 * registration).
 */
u64 memreg_reg_age_ms(const struct memreg_reg *reg)
{
	return ktime_ms_delta(ktime_get_coarse(), reg->created);
}

/* Bytes charged for @reg: a child's are its parent's (memreg_share.c). */
static u64 memreg_reg_charged(const struct memreg_reg *reg)
{
	return reg->parent ? 0 : reg->len;
}

/*
 * The last user is gone: give the pages back and uncharge; a child lets
 * go of its parent, which may be the parent's last user.
 */
static void memreg_reg_free(struct memreg_reg *reg)
{
	struct memreg_ctx *ctx = reg->ctx;
	struct memreg_reg *parent = reg->parent;

	reg->ops->release(reg);
	memreg_cg_uncharge(reg->cg, reg->type, memreg_reg_charged(reg));
	memreg_ctx_uncharge(ctx, reg->type, memreg_reg_charged(reg));
	atomic64_dec(&memreg_stats.regions);
	atomic64_sub(memreg_reg_charged(reg), &memreg_stats.bytes[reg->type]);
	memreg_ctx_put(ctx);
	kfree_rcu(reg, rcu);
	if (parent)
		memreg_reg_put(parent);
}

void memreg_reg_put(struct memreg_reg *reg)
{
	if (refcount_dec_and_test(&reg->users))
		memreg_reg_free(reg);
}

/*
 * Out of every lookup (the caller took it out of memreg_regs and
 * revoked its grants): copies in flight keep it until they are done.
 */
static void memreg_reg_destroy(struct memreg_reg *reg)
{
	/* no new child shares its pages; the children it has keep them */
	memreg_share_del(reg);
	/* unregistered: e.g. its device allocation may be freed from now on */
	if (reg->ops->unlink)
		reg->ops->unlink(reg);
	xa_erase(&reg->ctx->regions, reg->ctx_index);
	memreg_event_region(reg, MEMREG_CMD_EVENT_REG_REMOVED);
	memreg_reg_put(reg);
}

/*
 * A registration of @mf by handle, with a reference for a transfer; NULL
 * if there is none (or it is being unregistered).
 */
struct memreg_reg *memreg_reg_get(struct memreg_file *mf, u64 handle)
{
	struct memreg_reg *reg;

	rcu_read_lock();
	reg = xa_load(&memreg_regs, memreg_handle_id(handle));
	if (reg && (reg->owner != mf || reg->handle != handle ||
		    !refcount_inc_not_zero(&reg->users)))
		reg = NULL;
	rcu_read_unlock();
	return reg;
}

/*
 * Module unload, every registration gone: the spare id's entry (and the
 * nodes it kept) go with the table.
 */
void memreg_reg_exit(void)
{
	unsigned long id = 0;

	/* a reserved entry is not found: a registration would be */
	WARN_ON_ONCE(xa_find(&memreg_regs, &id, ULONG_MAX, XA_PRESENT));
	xa_destroy(&memreg_regs);
	memreg_have_spare = false;
}

int memreg_reg_register(struct memreg_file *mf, struct memreg_register *req)
{
	const struct memreg_mem_ops *ops;
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_reg *reg;
	u64 first;
	unsigned long npages;
	int err;

	if (req->access & ~MEMREG_ACCESS_ALL || req->reserved0)
		return -EINVAL;
	if (req->type >= MEMREG_MEM_TYPES)
		return -EINVAL;
	ops = memreg_mem_types[array_index_nospec(req->type, MEMREG_MEM_TYPES)];
	if (!ops->fd_backed && req->fd)
		return -EINVAL;
	err = memreg_check_range(req->addr, req->len, &first, &npages);
	if (err)
		return err;
	/* the whole range is a user address, on 32-bit kernels too */
	if (!ops->fd_backed &&
	    (req->addr != (unsigned long)req->addr ||
	     !access_ok(u64_to_user_ptr(req->addr), req->len)))
		return -EFAULT;
	/* the backend's struct, which begins with the common one */
	reg = kzalloc(ops->reg_size, GFP_KERNEL_ACCOUNT);
	if (!reg)
		return -ENOMEM;
	reg->ops = ops;
	reg->type = req->type;
	reg->access = req->access;
	reg->addr = req->addr;
	reg->len = req->len;
	reg->owner = mf;
	reg->ctx = ctx;
	refcount_set(&reg->users, 1);
	INIT_LIST_HEAD(&reg->grants);

	/*
	 * Inside a registration of ours that pinned its pages: a child,
	 * one registration more and no byte (memreg_share.c).
	 */
	memreg_share_find_parent(reg);

	err = memreg_ctx_charge(ctx, reg->type, memreg_reg_charged(reg));
	if (err)
		goto free_reg;
	/* and the caller's cgroup, whose node and ancestors may refuse */
	if (!reg->parent) {
		err = memreg_cg_charge(ctx, reg->type, reg->len, &reg->cg);
		if (err)
			goto uncharge_ctx;
	}

	err = ops->attach(reg, req, first, npages);
	if (err)
		goto uncharge;

	/* Reserve an id; the entry stays invisible until it is stored. */
	err = memreg_reg_id_alloc(&reg->id);
	if (err)
		goto unpin;
	reg->handle = memreg_handle_make(reg->id, get_random_u32());
	reg->created = ktime_get_coarse();

	err = xa_alloc(&ctx->regions, &reg->ctx_index, reg, xa_limit_32b,
		       GFP_KERNEL);
	if (err)
		goto free_id;

	refcount_inc(&ctx->ref);
	memreg_ctx_note_peak(ctx);
	atomic64_inc(&memreg_stats.regions);
	atomic64_add(memreg_reg_charged(reg), &memreg_stats.bytes[reg->type]);
	req->handle = reg->handle;
	/* complete: later registrations inside it may share its pages */
	memreg_share_add(reg);

	/*
	 * Publish under the file's lock: another thread may already have the
	 * handle (QUERY sees the entry), but UNREGISTER needs this lock, so
	 * reg outlives the ADDED event, which goes out before REMOVED.
	 */
	mutex_lock(&mf->lock);
	list_add_tail(&reg->file_node, &mf->regions);
	xa_store(&memreg_regs, reg->id, reg, GFP_KERNEL);
	memreg_event_region(reg, MEMREG_CMD_EVENT_REG_ADDED);
	mutex_unlock(&mf->lock);
	return 0;

free_id:
	xa_erase(&memreg_regs, reg->id);
unpin:
	if (ops->unlink)
		ops->unlink(reg);
	ops->release(reg);
uncharge:
	memreg_cg_uncharge(reg->cg, reg->type, memreg_reg_charged(reg));
uncharge_ctx:
	memreg_ctx_uncharge(ctx, reg->type, memreg_reg_charged(reg));
free_reg:
	if (reg->parent)
		memreg_reg_put(reg->parent);
	kfree(reg);
	return err;
}

/*
 * The registration @handle names in @xa, if @owner made it.  Someone else's
 * id, or ours with the wrong cookie, are both unknown: NULL.  The id may be
 * another file's, freed while we compare: hence RCU.  A registration we
 * return is the caller's own, kept alive by the owner's lock it holds.
 */
struct memreg_reg *memreg_reg_lookup(struct xarray *xa, u64 handle,
					const struct memreg_file *owner)
{
	struct memreg_reg *reg;

	rcu_read_lock();
	reg = xa_load(xa, memreg_handle_id(handle));
	if (reg && (reg->owner != owner || reg->handle != handle))
		reg = NULL;
	rcu_read_unlock();
	return reg;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_reg_lookup);

int memreg_reg_unregister(struct memreg_file *mf, u64 handle)
{
	struct memreg_reg *reg;

	mutex_lock(&mf->lock);
	reg = memreg_reg_lookup(&memreg_regs, handle, mf);
	if (!reg) {
		mutex_unlock(&mf->lock);
		return -ENOENT;
	}
	xa_erase(&memreg_regs, reg->id);
	list_del(&reg->file_node);
	memreg_grant_revoke_reg(reg, false);
	mutex_unlock(&mf->lock);

	memreg_reg_destroy(reg);
	return 0;
}

/* The file is going away (close, exit, kill -9): drop all it registered. */
void memreg_reg_release_file(struct memreg_file *mf)
{
	struct memreg_reg *reg, *next;
	LIST_HEAD(dying);

	mutex_lock(&mf->lock);
	list_for_each_entry(reg, &mf->regions, file_node) {
		xa_erase(&memreg_regs, reg->id);
		memreg_grant_revoke_reg(reg, true);
	}
	list_splice_init(&mf->regions, &dying);
	mutex_unlock(&mf->lock);

	list_for_each_entry_safe(reg, next, &dying, file_node) {
		list_del(&reg->file_node);
		memreg_reg_destroy(reg);
		cond_resched();
	}
}

/* Where MEMREG_IOC_QUERY collects entries before copying them out. */
struct memreg_query_buf {
	struct memreg_region *entries;
	u32 n;
	u32 room;
};

static int memreg_query_emit(void *entry, void *arg)
{
	struct memreg_query_buf *qb = arg;
	const struct memreg_reg *reg = entry;
	struct memreg_region *out;

	if (qb->n == qb->room)
		return -ENOSPC;
	out = &qb->entries[qb->n++];
	out->handle = reg->handle;
	out->addr = reg->addr;
	out->len = reg->len;
	out->pinned_pages = reg->pinned_pages;
	out->age_ms = memreg_reg_age_ms(reg);
	out->type = reg->type;
	out->access = reg->access;
	out->device = reg->device;
	return 0;
}

/*
 * Copy out up to q->count registrations of the process from q->cursor on.
 * Filled under RCU into a kernel buffer, then copied to user space (which
 * may fault) outside it.
 */
int memreg_reg_query(struct memreg_ctx *ctx, struct memreg_query *q)
{
	size_t esize = min_t(size_t, q->entry_size, sizeof(struct memreg_region));
	char __user *ubuf = u64_to_user_ptr(q->regions);
	struct memreg_query_buf qb = {};
	struct memreg_usage use;
	unsigned long cursor;
	int err = 0;
	u32 i;

	if (q->entry_size < MEMREG_REGION_SIZE_VER0 ||
	    q->entry_size > PAGE_SIZE ||
	    q->cursor > (u64)U32_MAX + 1)
		return -EINVAL;
	qb.room = min_t(u32, q->count, MEMREG_QUERY_MAX);
	qb.entries = kvcalloc(max_t(u32, qb.room, 1), sizeof(*qb.entries),
			      GFP_KERNEL);
	if (!qb.entries)
		return -ENOMEM;

	cursor = q->cursor;
	rcu_read_lock();
	memreg_walk(&ctx->regions, &cursor, memreg_query_emit, &qb);
	rcu_read_unlock();

	for (i = 0; i < qb.n; i++) {
		char __user *dst = ubuf + (size_t)i * q->entry_size;

		if (copy_to_user(dst, &qb.entries[i], esize) ||
		    clear_user(dst + esize, q->entry_size - esize)) {
			err = -EFAULT;
			break;
		}
	}
	q->cursor = cursor;
	q->count = qb.n;
	memreg_ctx_usage(ctx, &use);
	q->total = use.regions;
	kvfree(qb.entries);
	return err;
}
