// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - per-process contexts: identity, counters and limits.
 *
 * Every open file of one process shares one context, so the limits are
 * per process however many times it opens /dev/memreg.  A process is its
 * thread group *and* its address space: after exec() the same tgid gets a
 * new mm and therefore a new context, so charges never move between mms
 * (the VFIO locked_vm underflow through exec()).
 *
 * The context also watches its mm with an MMU notifier.  When the address
 * space is torn down (the last thread exited, or exec() replaced it) every
 * file of the context drops its registrations, grants, imports, device
 * allocations and mstx heaps at once, even if the file itself lives on in
 * another process (inherited across exec(), passed over a socket).  Those
 * files can do nothing more anyway (every call checks current->mm), and
 * without this a process could exec() 40 times keeping one fd, pinning its
 * whole RLIMIT_MEMLOCK each time, charged to mms nobody sees any more.
 */
#include <linux/cred.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "memreg_internal.h"

static unsigned long long max_regions = 256;
module_param(max_regions, ullong, 0644);
MODULE_PARM_DESC(max_regions, "Default registrations per process (256)");

static unsigned long long max_host_bytes = 20ULL << 30;
module_param(max_host_bytes, ullong, 0644);
MODULE_PARM_DESC(max_host_bytes,
		 "Default registered host bytes per process (20 GiB)");

static unsigned long long max_dev_bytes = 50ULL << 30;
module_param(max_dev_bytes, ullong, 0644);
MODULE_PARM_DESC(max_dev_bytes,
		 "Default registered device bytes per process (50 GiB)");

struct memreg_stats memreg_stats;

void memreg_default_limits(struct memreg_limits *lim)
{
	lim->max_regions = READ_ONCE(max_regions);
	lim->max_bytes[MEMREG_MEM_HOST] = READ_ONCE(max_host_bytes);
	lim->max_bytes[MEMREG_MEM_DEVICE] = READ_ONCE(max_dev_bytes);
}

void memreg_set_default_limits(const struct memreg_limits *lim,
			       unsigned int which)
{
	if (which & MEMREG_OVR_REGIONS)
		WRITE_ONCE(max_regions, lim->max_regions);
	if (which & MEMREG_OVR_HOST)
		WRITE_ONCE(max_host_bytes, lim->max_bytes[MEMREG_MEM_HOST]);
	if (which & MEMREG_OVR_DEV)
		WRITE_ONCE(max_dev_bytes, lim->max_bytes[MEMREG_MEM_DEVICE]);
}

/* Serialises find-or-create so that two opens cannot make two contexts. */
static DEFINE_MUTEX(memreg_ctx_mutex);

DEFINE_XARRAY_ALLOC1(memreg_ctxs);
static u32 memreg_next_ctx_id;
/* 64 bits never wrap: an incarnation names one context for ever */
static atomic64_t memreg_incarnations = ATOMIC64_INIT(0);

/*
 * Contexts by address space: a process's context is found by its mm in
 * one hash bucket, not by walking every context.  Readers use RCU;
 * writers (create under memreg_ctx_mutex, the last put without it) take
 * the spinlock.
 */
static DEFINE_HASHTABLE(memreg_ctx_by_mm, 8);
static DEFINE_SPINLOCK(memreg_ctx_hash_lock);

/*
 * The context of @tgid whose mm is @mm, referenced, or NULL.  A context
 * found may be on its way out (its last put does not take the mutex):
 * hence RCU and refcount_inc_not_zero().
 */
static struct memreg_ctx *memreg_ctx_find(struct pid *tgid,
					  struct mm_struct *mm)
{
	struct memreg_ctx *ctx, *found = NULL;

	rcu_read_lock();
	hash_for_each_possible_rcu(memreg_ctx_by_mm, ctx, hash_node,
				   (unsigned long)mm) {
		if (ctx->mm == mm && ctx->tgid == tgid &&
		    refcount_inc_not_zero(&ctx->ref)) {
			found = ctx;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * Any context of @tgid, referenced: one an inherited file keeps alive
 * after an exec.  Only the administrator's "limits set pid" comes here,
 * and only after the lookup by mm found nothing: a walk, under RCU.
 */
static struct memreg_ctx *memreg_ctx_find_any(struct pid *tgid)
{
	struct memreg_ctx *ctx, *found = NULL;
	unsigned long id;

	rcu_read_lock();
	xa_for_each(&memreg_ctxs, id, ctx) {
		if (ctx->tgid == tgid && refcount_inc_not_zero(&ctx->ref)) {
			found = ctx;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/*
 * The mm is going away (exit_mmap(); no thread of it can make a call any
 * more): drop everything its files hold.  Files closing at the same time
 * wait on files_lock, then find nothing left to drop.
 */
static void memreg_ctx_mm_release(struct mmu_notifier *mn,
				  struct mm_struct *mm)
{
	struct memreg_ctx *ctx = container_of(mn, struct memreg_ctx, mn);
	struct memreg_file *mf;

	mutex_lock(&ctx->files_lock);
	list_for_each_entry(mf, &ctx->files, ctx_node)
		memreg_file_drop_all(mf);
	mutex_unlock(&ctx->files_lock);
	/* and what it gave away but kept alive, freed with its exports */
	memreg_dev_revoke_kept(ctx);
}

static void memreg_ctx_free_rcu(struct rcu_head *rcu)
{
	struct memreg_ctx *ctx = container_of(rcu, struct memreg_ctx, rcu);

	put_pid(ctx->tgid);
	kfree(ctx);
}

/*
 * After mmu_notifier_put(), once no release callback can still run: the
 * netlink dumps may be reading the context under RCU, so one more grace
 * period before it goes.
 */
static void memreg_ctx_free_notifier(struct mmu_notifier *mn)
{
	struct memreg_ctx *ctx = container_of(mn, struct memreg_ctx, mn);

	mmdrop(ctx->mm);
	memreg_cg_ctx_release(ctx);
	if (ctx->user)
		memreg_user_put(ctx->user);
	call_rcu(&ctx->rcu, memreg_ctx_free_rcu);
}

static const struct mmu_notifier_ops memreg_ctx_mn_ops = {
	.release	= memreg_ctx_mm_release,
	.free_notifier	= memreg_ctx_free_notifier,
};

/* The calling process's context, created on its first open. */
struct memreg_ctx *memreg_ctx_get_current(void)
{
	struct pid *tgid = task_tgid(current);
	struct memreg_ctx *ctx;
	int err;

	if (!current->mm)
		return ERR_PTR(-EPERM);

	mutex_lock(&memreg_ctx_mutex);
	ctx = memreg_ctx_find(tgid, current->mm);
	if (ctx)
		goto out;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx) {
		ctx = ERR_PTR(-ENOMEM);
		goto out;
	}
	refcount_set(&ctx->ref, 1);
	spin_lock_init(&ctx->lock);
	mutex_init(&ctx->files_lock);
	INIT_LIST_HEAD(&ctx->files);
	INIT_LIST_HEAD(&ctx->kept);
	mutex_init(&ctx->exports_lock);
	INIT_LIST_HEAD(&ctx->exports);
	xa_init_flags(&ctx->regions, XA_FLAGS_ALLOC);
	ctx->shared = RB_ROOT_CACHED;
	ctx->tgid = get_pid(tgid);
	ctx->mm = current->mm;
	mmgrab(ctx->mm);
	ctx->mn.ops = &memreg_ctx_mn_ops;
	err = mmu_notifier_register(&ctx->mn, ctx->mm);
	if (err) {
		mmdrop(ctx->mm);
		put_pid(ctx->tgid);
		kfree(ctx);
		ctx = ERR_PTR(err);
		goto out;
	}
	/* effective uid: a setuid program's addresses are not its caller's */
	ctx->uid = current_euid();
	ctx->user = memreg_user_get(ctx->uid);
	if (!ctx->user) {
		/* frees it, through memreg_ctx_free_notifier() */
		mmu_notifier_put(&ctx->mn);
		ctx = ERR_PTR(-ENOMEM);
		goto out;
	}
	get_task_comm(ctx->comm, current->group_leader);
	ctx->incarnation = atomic64_inc_return(&memreg_incarnations);
	ctx->start_time = current->group_leader->start_boottime;

	/* cyclic, like registration ids: the proc dump cursor stays valid */
	err = xa_alloc_cyclic(&memreg_ctxs, &ctx->id, ctx, xa_limit_32b,
			      &memreg_next_ctx_id, GFP_KERNEL);
	if (err > 0)
		err = 0;
	if (err) {
		/* frees it, through memreg_ctx_free_notifier() */
		mmu_notifier_put(&ctx->mn);
		ctx = ERR_PTR(err);
		goto out;
	}
	spin_lock(&memreg_ctx_hash_lock);
	hash_add_rcu(memreg_ctx_by_mm, &ctx->hash_node, (unsigned long)ctx->mm);
	spin_unlock(&memreg_ctx_hash_lock);
	atomic64_inc(&memreg_stats.procs);
out:
	mutex_unlock(&memreg_ctx_mutex);
	return ctx;
}

void memreg_ctx_put(struct memreg_ctx *ctx)
{
	if (!refcount_dec_and_test(&ctx->ref))
		return;

	xa_erase(&memreg_ctxs, ctx->id);
	spin_lock(&memreg_ctx_hash_lock);
	hash_del_rcu(&ctx->hash_node);
	spin_unlock(&memreg_ctx_hash_lock);
	atomic64_dec(&memreg_stats.procs);
	memreg_event_proc_gone(ctx);

	WARN_ON_ONCE(!xa_empty(&ctx->regions));
	WARN_ON_ONCE(!RB_EMPTY_ROOT(&ctx->shared.rb_root));
	WARN_ON_ONCE(!list_empty(&ctx->files));
	xa_destroy(&ctx->regions);
	/* frees it after SRCU and RCU grace periods: free_notifier above */
	mmu_notifier_put(&ctx->mn);
}

/* @mf is open on @ctx: drop its contents when the mm goes. */
void memreg_ctx_add_file(struct memreg_ctx *ctx, struct memreg_file *mf)
{
	mutex_lock(&ctx->files_lock);
	list_add_tail(&mf->ctx_node, &ctx->files);
	mutex_unlock(&ctx->files_lock);
}

/* @mf is closing: after this, the mm's release no longer looks at it. */
void memreg_ctx_del_file(struct memreg_ctx *ctx, struct memreg_file *mf)
{
	bool last;

	mutex_lock(&ctx->files_lock);
	list_del(&mf->ctx_node);
	last = list_empty(&ctx->files);
	mutex_unlock(&ctx->files_lock);
	/*
	 * Its last file closed: the cgroup record kept for its next charge
	 * goes now, not at exit, so that a process that moved away from a
	 * cgroup keeps it no longer than its use of memreg.
	 */
	if (last)
		memreg_cg_ctx_release(ctx);
}

/*
 * Context of process @pid (in the caller's pid namespace), referenced: the
 * one of its current address space, else (after an exec, an older context
 * kept alive by an inherited file) any of that pid's.
 */
struct memreg_ctx *memreg_ctx_find_pid(pid_t pid)
{
	struct memreg_ctx *ctx;
	struct task_struct *task;
	struct mm_struct *mm;
	struct pid *p;

	p = find_get_pid(pid);
	if (!p)
		return NULL;
	rcu_read_lock();
	task = pid_task(p, PIDTYPE_TGID);
	mm = task ? READ_ONCE(task->mm) : NULL;	/* compared, never used */
	rcu_read_unlock();

	ctx = mm ? memreg_ctx_find(p, mm) : NULL;
	if (!ctx)
		ctx = memreg_ctx_find_any(p);
	put_pid(p);
	return ctx;
}

pid_t memreg_ctx_pid(const struct memreg_ctx *ctx)
{
	return pid_vnr(ctx->tgid);
}

static void memreg_ctx_limits_locked(struct memreg_ctx *ctx,
				     struct memreg_limits *out)
{
	struct memreg_limits defaults;

	memreg_default_limits(&defaults);
	memreg_effective_limits(&ctx->limits, ctx->overridden, &defaults, out);
}

void memreg_ctx_limits(struct memreg_ctx *ctx, struct memreg_limits *out)
{
	spin_lock(&ctx->lock);
	memreg_ctx_limits_locked(ctx, out);
	spin_unlock(&ctx->lock);
}

/* What @ctx uses now, as one consistent snapshot. */
void memreg_ctx_usage(struct memreg_ctx *ctx, struct memreg_usage *out)
{
	spin_lock(&ctx->lock);
	*out = ctx->use;
	spin_unlock(&ctx->lock);
}

/* Bytes of device @dev the process has allocated. */
u64 memreg_ctx_dev_alloc_bytes(struct memreg_ctx *ctx, u32 dev)
{
	u64 bytes;

	spin_lock(&ctx->lock);
	bytes = ctx->dev_alloc[dev];
	spin_unlock(&ctx->lock);
	return bytes;
}

void memreg_ctx_snapshot(struct memreg_ctx *ctx,
			 struct memreg_ctx_snapshot *out)
{
	spin_lock(&ctx->lock);
	out->use = ctx->use;
	out->peak = ctx->peak;
	memcpy(out->dev_alloc, ctx->dev_alloc, sizeof(out->dev_alloc));
	spin_unlock(&ctx->lock);
}

static void memreg_peak(u64 *peak, u64 now)
{
	if (now > *peak)
		*peak = now;
}

/*
 * Reserve one registration of @len bytes of @type against the process's
 * limits, before anything is pinned; memreg_ctx_uncharge() gives it back.
 */
int memreg_ctx_charge(struct memreg_ctx *ctx, u32 type, u64 len)
{
	struct memreg_limits lim;
	enum memreg_refusal why;
	int err;

	spin_lock(&ctx->lock);
	memreg_ctx_limits_locked(ctx, &lim);
	err = memreg_check_limits(&ctx->use, &lim, memreg_mem_types, type, len,
				  &why);
	if (!err) {
		ctx->use.regions++;
		ctx->use.bytes[type] += len;
	}
	spin_unlock(&ctx->lock);

	if (err)
		memreg_ctx_refused(ctx, type, len, why);
	return err;
}

/* Count a refusal and tell the listeners of the events group. */
void memreg_ctx_refused(struct memreg_ctx *ctx, u32 type, u64 len,
			enum memreg_refusal why)
{
	atomic64_inc(&memreg_stats.refused[why]);
	memreg_event_refused(ctx, type, len, why, NULL);
}

/* The same, for the limit of cgroup @cgrp (memreg_cgroup.c). */
void memreg_ctx_refused_cg(struct memreg_ctx *ctx, u32 type, u64 len,
			   struct cgroup *cgrp)
{
	atomic64_inc(&memreg_stats.refused[MEMREG_REFUSED_CGROUP]);
	memreg_event_refused(ctx, type, len, MEMREG_REFUSED_CGROUP, cgrp);
}

/*
 * A charged registration is complete: only now does it count towards the
 * peaks (one refused later, e.g. by RLIMIT_MEMLOCK, never existed).
 */
void memreg_ctx_note_peak(struct memreg_ctx *ctx)
{
	int t;

	/*
	 * Mostly no peak moves (a slice of a pool adds no byte): see that
	 * without the lock.  A count read while another registration
	 * changes it is one the locked update could have read as well; that
	 * registration notes its own peak.
	 */
	if (READ_ONCE(ctx->use.regions) <= READ_ONCE(ctx->peak.regions)) {
		for (t = 0; t < MEMREG_MEM_TYPES; t++)
			if (READ_ONCE(ctx->use.bytes[t]) >
			    READ_ONCE(ctx->peak.bytes[t]))
				break;
		if (t == MEMREG_MEM_TYPES)
			return;
	}
	spin_lock(&ctx->lock);
	memreg_peak(&ctx->peak.regions, ctx->use.regions);
	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		memreg_peak(&ctx->peak.bytes[t], ctx->use.bytes[t]);
	spin_unlock(&ctx->lock);
}

void memreg_ctx_uncharge(struct memreg_ctx *ctx, u32 type, u64 len)
{
	spin_lock(&ctx->lock);
	ctx->use.regions--;
	ctx->use.bytes[type] -= len;
	spin_unlock(&ctx->lock);
}

/* Set the limits named by @which (MEMREG_OVR_*) for this process. */
void memreg_ctx_set_limits(struct memreg_ctx *ctx,
			   const struct memreg_limits *lim, unsigned int which)
{
	spin_lock(&ctx->lock);
	int t;

	if (which & MEMREG_OVR_REGIONS)
		ctx->limits.max_regions = lim->max_regions;
	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		if (which & MEMREG_OVR_BYTES(t))
			ctx->limits.max_bytes[t] = lim->max_bytes[t];
	ctx->overridden |= which;
	spin_unlock(&ctx->lock);
}

/*
 * Device memory the process allocates counts against its max_dev_bytes
 * (all devices together; DEVICE registrations of it are counted apart):
 * without this, device memory had no owner limit at all.  With @charge
 * false only see whether @len more would fit.
 */
int memreg_ctx_charge_dev_alloc(struct memreg_ctx *ctx, u32 dev, u64 len,
				bool charge)
{
	struct memreg_limits lim;
	u64 total = 0;
	int i, err = 0;

	spin_lock(&ctx->lock);
	memreg_ctx_limits_locked(ctx, &lim);
	for (i = 0; i < MEMREG_MAX_DEVICES; i++)
		total += ctx->dev_alloc[i];
	if (len > lim.max_bytes[MEMREG_MEM_DEVICE] ||
	    total > lim.max_bytes[MEMREG_MEM_DEVICE] - len)
		err = -ENOSPC;
	/* the user's too: what its exited processes' exports still hold */
	else if (memreg_user_charge_dev(ctx->user, len, charge))
		err = -ENOSPC;
	else if (charge)
		ctx->dev_alloc[dev] += len;
	spin_unlock(&ctx->lock);

	if (err)
		memreg_ctx_refused(ctx, MEMREG_MEM_DEVICE, len,
				   MEMREG_REFUSED_DEV_BYTES);
	return err;
}

void memreg_ctx_uncharge_dev_alloc(struct memreg_ctx *ctx, u32 dev, u64 len)
{
	spin_lock(&ctx->lock);
	ctx->dev_alloc[dev] -= len;
	spin_unlock(&ctx->lock);
	memreg_user_uncharge_dev(ctx->user, len);
}
