// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - charges and limits per cgroup v2 node.
 *
 * Every registration and every device allocation is charged to the
 * calling task's cgroup on the default hierarchy and to each of its
 * ancestors.  memreg is no cgroup controller (a module cannot add one:
 * the subsystems are a compile-time list), so the counters are records of
 * this file, one per cgroup, keyed by the cgroup's id, and their limits
 * are set over netlink (memreg_nl_cgroup.c).
 *
 * The charged object keeps a reference on the record it charged, the
 * record on its cgroup and on its parent's record: a charge goes back to
 * the cgroup that was charged, wherever the task went since, as the
 * memory controller returns a page's charge to the memcg it was charged
 * to.  Nothing moves when a task migrates.
 *
 * A record lives while an object is charged to it or to a descendant
 * (each child record is a user of its parent), or while it has a limit
 * and its cgroup is online; a limited record of a removed cgroup goes at
 * the next limit set anywhere (memreg_cg_sweep()).  So there are no more
 * records than cgroups with charges, limited live cgroups and their
 * ancestors.  A record made by a charge is paid by the charging task's
 * memory cgroup, one made by a limit by the setter's.
 *
 * One spinlock covers the table and every record's counters: a charge
 * checks the whole chain and then adds to it as one step, so two tasks of
 * sibling cgroups can never pass their common parent's limit together.
 */
#include <linux/cgroup.h>
#include <linux/errno.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "memreg_internal.h"

struct memreg_cg {
	struct hlist_node node;		/* in memreg_cgs, by id */
	u64 id;				/* cgroup_id() of cgrp */
	struct cgroup *cgrp;		/* referenced */
	struct memreg_cg *parent;	/* we are one of its users; or NULL */
	/* under memreg_cg_lock */
	unsigned long users;		/* charged objects, children, readers */
	u64 use[MEMREG_ROOM_KINDS];	/* of the node and its descendants */
	u64 max[MEMREG_MEM_TYPES];	/* by limit kind; MEMREG_UNLIMITED */
	u64 refused;			/* charges its limits refused */
	struct memreg_cg *next_dead;	/* on the way out, after the lock */
};

static DEFINE_HASHTABLE(memreg_cgs, 6);
static DEFINE_SPINLOCK(memreg_cg_lock);
static unsigned long memreg_cg_count;	/* records, under the lock */

static struct memreg_cg *memreg_cg_find_locked(u64 id)
{
	struct memreg_cg *cg;

	hash_for_each_possible(memreg_cgs, cg, node, id)
		if (cg->id == id)
			return cg;
	return NULL;
}

static bool memreg_cg_limited(const struct memreg_cg *cg)
{
	int t;

	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		if (cg->max[t] != MEMREG_UNLIMITED)
			return true;
	return false;
}

/* A record nobody uses stays only for a limit of a live cgroup. */
static bool memreg_cg_keep(const struct memreg_cg *cg)
{
	return memreg_cg_limited(cg) && (cg->cgrp->self.flags & CSS_ONLINE);
}

/*
 * One user less, under the lock; the records that go (it, then the
 * ancestors it was the last user of) are chained on @dead, to be freed
 * after the lock.
 */
static void memreg_cg_put_locked(struct memreg_cg *cg, struct memreg_cg **dead)
{
	while (cg && !--cg->users && !memreg_cg_keep(cg)) {
		struct memreg_cg *parent = cg->parent;

		hash_del(&cg->node);
		memreg_cg_count--;
		cg->next_dead = *dead;
		*dead = cg;
		cg = parent;
	}
}

/*
 * Records allocated by memreg_cg_get() and never linked: they hold no
 * cgroup yet, so memreg_cg_free()'s cgroup_put() is not for them.
 */
static void memreg_cg_free_spare(struct memreg_cg *spare)
{
	struct memreg_cg *next;

	for (; spare; spare = next) {
		next = spare->next_dead;
		kfree(spare);
	}
}

static void memreg_cg_free(struct memreg_cg *dead)
{
	struct memreg_cg *next;

	for (; dead; dead = next) {
		next = dead->next_dead;
		cgroup_put(dead->cgrp);
		kfree(dead);
	}
}

void memreg_cg_put(struct memreg_cg *cg)
{
	struct memreg_cg *dead = NULL;

	if (!cg)
		return;
	spin_lock(&memreg_cg_lock);
	memreg_cg_put_locked(cg, &dead);
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);
}

/* @task's cgroup on the default hierarchy, referenced. */
struct cgroup *memreg_cg_task_cgroup(struct task_struct *task)
{
	struct cgroup *cgrp;

	/*
	 * As task_get_css(): the css_set we read may be on its way out
	 * while the task migrates; the new one is there at the next read.
	 */
	rcu_read_lock();
	for (;;) {
		cgrp = task_dfl_cgroup(task);
		if (cgroup_tryget(cgrp))
			break;
		cpu_relax();
	}
	rcu_read_unlock();
	return cgrp;
}

struct cgroup *memreg_cg_current_cgroup(void)
{
	return memreg_cg_task_cgroup(current);
}

/*
 * The record of @cgrp (referenced by the caller), with one more user,
 * made along with those of its ancestors that have none.  Records are
 * allocated outside the lock, then linked from the bottom up under it;
 * if another task linked some meanwhile, fewer are needed.  NULL: out of
 * memory.
 */
static struct memreg_cg *memreg_cg_get(struct cgroup *cgrp)
{
	struct memreg_cg *spare = NULL, *found, *cg, *prev, *first;
	unsigned int missing, have = 0;
	struct cgroup *c;
	int t;

	for (;;) {
		spin_lock(&memreg_cg_lock);
		missing = 0;
		found = NULL;
		for (c = cgrp; c; c = cgroup_parent(c)) {
			found = memreg_cg_find_locked(cgroup_id(c));
			if (found)
				break;
			missing++;
		}
		if (missing <= have)
			break;
		spin_unlock(&memreg_cg_lock);
		for (; have < missing; have++) {
			cg = kzalloc(sizeof(*cg), GFP_KERNEL_ACCOUNT);
			if (!cg) {
				memreg_cg_free_spare(spare);
				return NULL;
			}
			cg->next_dead = spare;
			spare = cg;
		}
	}

	/* @cgrp up to (not including) @found's cgroup have no record */
	first = NULL;
	prev = NULL;
	for (c = cgrp; missing--; c = cgroup_parent(c)) {
		cg = spare;
		spare = cg->next_dead;
		cg->next_dead = NULL;
		cg->id = cgroup_id(c);
		cg->cgrp = c;
		cgroup_get(c);
		for (t = 0; t < MEMREG_MEM_TYPES; t++)
			cg->max[t] = MEMREG_UNLIMITED;
		hash_add(memreg_cgs, &cg->node, cg->id);
		memreg_cg_count++;
		if (prev) {
			prev->parent = cg;
			cg->users++;
		} else {
			first = cg;
		}
		prev = cg;
	}
	if (prev) {
		prev->parent = found;
		if (found)
			found->users++;
		cg = first;
	} else {
		cg = found;
	}
	cg->users++;
	spin_unlock(&memreg_cg_lock);
	/* what another task's records made needless */
	memreg_cg_free_spare(spare);
	return cg;
}

/* The limit a kind of charge counts against: allocations, the device's. */
static u32 memreg_cg_limit_of(u32 kind)
{
	return kind == MEMREG_ROOM_DEV_ALLOC ? MEMREG_MEM_DEVICE : kind;
}

/*
 * Charge @len bytes of @kind (enum memreg_room_kind) to the calling
 * task's cgroup and its ancestors, for an object of @ctx.  On success
 * *@out is the record to give to memreg_cg_uncharge() when the object
 * goes.  A node whose limit it would pass refuses it: the kind's errno
 * (EDQUOT host bytes, ENOSPC the others, as the process's limits), a
 * LIMIT_REFUSED event naming the node; -ENOMEM for no memory.
 */
int memreg_cg_charge(struct memreg_ctx *ctx, u32 kind, u64 len,
		     struct memreg_cg **out)
{
	struct memreg_cg *cg, *c, *over = NULL, *dead = NULL;
	u32 lim = memreg_cg_limit_of(kind);
	struct cgroup *cgrp;

	cgrp = memreg_cg_current_cgroup();
	/*
	 * The record the context charged last, if the task is still in its
	 * cgroup: one lock round for the record and the charge.  Else the
	 * record is looked up (or made), and the context keeps it instead,
	 * so that a process whose last registration went does not free and
	 * make its record again at the next (memreg_cg_ctx_release()).
	 */
	spin_lock(&memreg_cg_lock);
	cg = ctx->cg_last;
	if (cg && cg->cgrp == cgrp) {
		cg->users++;
	} else {
		spin_unlock(&memreg_cg_lock);
		cg = memreg_cg_get(cgrp);
		if (!cg) {
			cgroup_put(cgrp);
			return -ENOMEM;
		}
		spin_lock(&memreg_cg_lock);
		cg->users++;
		if (ctx->cg_last)
			memreg_cg_put_locked(ctx->cg_last, &dead);
		ctx->cg_last = cg;
	}
	cgroup_put(cgrp);

	for (c = cg; c; c = c->parent) {
		if (!memreg_fits(c->use[kind], c->max[lim], len)) {
			over = c;
			over->refused++;
			break;
		}
	}
	if (!over)
		for (c = cg; c; c = c->parent)
			c->use[kind] += len;
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);

	if (over) {
		/* @over is an ancestor of @cg, which we still hold */
		memreg_ctx_refused_cg(ctx, lim, len, over->cgrp);
		memreg_cg_put(cg);
		return kind == MEMREG_ROOM_HOST ? -EDQUOT : -ENOSPC;
	}
	*out = cg;
	return 0;
}

/*
 * Would @len bytes of @kind fit the calling task's cgroup chain now?  The
 * check before an expensive step, as the process's limits have one: a
 * device allocation takes capacity and zeroes pages before it is charged,
 * and a cgroup at its limit must not make others' allocations fail
 * meanwhile.  memreg_cg_charge() after the step is the authoritative one.
 * 0, or the refusal memreg_cg_charge() would give, with its event.
 */
int memreg_cg_check(struct memreg_ctx *ctx, u32 kind, u64 len)
{
	struct memreg_cg *c, *over = NULL;
	u32 lim = memreg_cg_limit_of(kind);
	struct cgroup *cgrp, *p;

	cgrp = memreg_cg_current_cgroup();
	spin_lock(&memreg_cg_lock);
	/* limits live in records, and a record's ancestors have records */
	for (p = cgrp, c = NULL; p && !c; p = cgroup_parent(p))
		c = memreg_cg_find_locked(cgroup_id(p));
	for (; c; c = c->parent) {
		if (!memreg_fits(c->use[kind], c->max[lim], len)) {
			over = c;
			over->refused++;
			over->users++;
			break;
		}
	}
	spin_unlock(&memreg_cg_lock);
	cgroup_put(cgrp);
	if (!over)
		return 0;
	memreg_ctx_refused_cg(ctx, lim, len, over->cgrp);
	memreg_cg_put(over);
	return kind == MEMREG_ROOM_HOST ? -EDQUOT : -ENOSPC;
}

void memreg_cg_uncharge(struct memreg_cg *cg, u32 kind, u64 len)
{
	struct memreg_cg *c, *dead = NULL;

	if (!cg)
		return;
	spin_lock(&memreg_cg_lock);
	for (c = cg; c; c = c->parent)
		c->use[kind] -= len;
	memreg_cg_put_locked(cg, &dead);
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);
}

/*
 * What @cgrp (referenced) and its ancestors leave of each kind: each
 * row of @room is lowered to the least that a limit of the chain leaves
 * (memreg_room_min()).  Returns the chain's lowest device limit.
 */
u64 memreg_cg_room(struct cgroup *cgrp, struct memreg_room *room)
{
	u64 dev_limit = MEMREG_UNLIMITED;
	struct memreg_cg *cg;
	struct cgroup *c;
	u32 k, lim;

	spin_lock(&memreg_cg_lock);
	for (c = cgrp; c; c = cgroup_parent(c)) {
		cg = memreg_cg_find_locked(cgroup_id(c));
		if (!cg)
			continue;
		for (k = 0; k < MEMREG_ROOM_KINDS; k++) {
			lim = memreg_cg_limit_of(k);
			memreg_room_min(&room[k], MEMREG_ROOM_BY_CGROUP,
					cg->max[lim], cg->use[k], cg->id);
		}
		dev_limit = min(dev_limit, cg->max[MEMREG_MEM_DEVICE]);
	}
	spin_unlock(&memreg_cg_lock);
	return dev_limit;
}

/* A record that nothing uses and no limit keeps, or NULL. */
static struct memreg_cg *memreg_cg_unused_locked(void)
{
	struct memreg_cg *cg;
	int bkt;

	hash_for_each(memreg_cgs, bkt, cg, node)
		if (!cg->users && !memreg_cg_keep(cg))
			return cg;
	return NULL;
}

/*
 * Set the limits of @cgrp (referenced) named by @which (MEMREG_OVR_BYTES
 * bits); MEMREG_UNLIMITED takes one away.  First the records of removed
 * cgroups that only a limit kept go.
 */
int memreg_cg_set_limits(struct cgroup *cgrp, const u64 *max,
			 unsigned int which)
{
	struct memreg_cg *cg, *dead = NULL;
	int t;

	/*
	 * One at a time: dropping one may drop its parent, which a walk of
	 * the table could be standing on.
	 */
	spin_lock(&memreg_cg_lock);
	while ((cg = memreg_cg_unused_locked())) {
		/* one user, dropped: the chain goes as far as it is unused */
		cg->users = 1;
		memreg_cg_put_locked(cg, &dead);
	}
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);

	cg = memreg_cg_get(cgrp);
	if (!cg)
		return -ENOMEM;
	spin_lock(&memreg_cg_lock);
	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		if (which & MEMREG_OVR_BYTES(t))
			cg->max[t] = max[t];
	spin_unlock(&memreg_cg_lock);
	/* with no limit left and nothing charged, it goes again */
	memreg_cg_put(cg);
	return 0;
}

/*
 * The record after id @after (the lowest id above it), with a user for
 * the caller, and its counters: the dump's walk, in id order.  O(records)
 * a call: there are few (see above), and a dump is no hot path.
 */
struct memreg_cg *memreg_cg_next(u64 after, struct memreg_cg_snapshot *snap)
{
	struct memreg_cg *cg, *best = NULL;
	int bkt;

	spin_lock(&memreg_cg_lock);
	hash_for_each(memreg_cgs, bkt, cg, node)
		if (cg->id > after && (!best || cg->id < best->id))
			best = cg;
	if (best) {
		best->users++;
		snap->id = best->id;
		snap->cgrp = best->cgrp;
		memcpy(snap->use, best->use, sizeof(snap->use));
		memcpy(snap->max, best->max, sizeof(snap->max));
		snap->refused = best->refused;
	}
	spin_unlock(&memreg_cg_lock);
	return best;
}

u64 memreg_cg_records(void)
{
	return READ_ONCE(memreg_cg_count);
}

/* The context goes: the record it kept for its next charge with it. */
void memreg_cg_ctx_release(struct memreg_ctx *ctx)
{
	struct memreg_cg *dead = NULL;

	spin_lock(&memreg_cg_lock);
	if (ctx->cg_last)
		memreg_cg_put_locked(ctx->cg_last, &dead);
	ctx->cg_last = NULL;
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);
}

/* Unload: every object is gone, so only records kept for a limit are left. */
void memreg_cg_exit(void)
{
	struct memreg_cg *cg, *dead = NULL;
	struct hlist_node *tmp;
	int bkt;

	spin_lock(&memreg_cg_lock);
	/*
	 * A limited record's users are then its children's records (two
	 * limited siblings: two), none of them a charge: once those links
	 * are taken away, a user left is an object that was never uncharged.
	 */
	hash_for_each(memreg_cgs, bkt, cg, node)
		if (cg->parent)
			cg->parent->users--;
	hash_for_each_safe(memreg_cgs, bkt, tmp, cg, node) {
		WARN_ON_ONCE(cg->users);
		hash_del(&cg->node);
		cg->next_dead = dead;
		dead = cg;
	}
	memreg_cg_count = 0;
	spin_unlock(&memreg_cg_lock);
	memreg_cg_free(dead);
}
