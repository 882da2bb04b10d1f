// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - registrations that share the pages of another: register once,
 * pin once, charge once.
 *
 * Serving stacks register a large pool once and then each request's slice
 * of it.  A registration whose pages lie wholly inside the pages of a live
 * registration of the same process (same context: same mm), of a memory
 * type whose pages belong to the address space (mem_ops.shares), becomes
 * a child of it: it references the parent and copies through the
 * parent's pages, takes no pin and charges no byte, only the one
 * registration it is.  As with a memory region's sub-range in RDMA, a
 * child sees the pages pinned when its parent was registered: memory
 * remapped since is not looked at again.
 *
 * A parent is never itself a child, so every child's parent pinned its
 * pages and the chain is one link long; a slice of a slice finds the
 * registration that pinned them.  A parent unregistered while children
 * live is out of every lookup at once, but keeps its pages, its charges
 * and its place in the count until the last child goes, as a registration
 * a copy uses does until the copy is done.
 *
 * Each context indexes the registrations that pinned pages by page span
 * in a maple tree, which holds ranges that do not overlap: a pinning
 * registration that overlaps one indexed already is not indexed (it pins
 * and works as any other, but has no children; the first registration of
 * a range is the pool).  A lookup is then one descent, under RCU and no
 * lock, however many registrations the process has.  A registration is
 * indexed only once it is complete and registered, after everything that
 * can fail, and taken out when it is unregistered, before the registry's
 * reference is dropped; one found by a lookup that raced with that is
 * freed only after an RCU grace period, and its last reference cannot be
 * revived.
 */
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include "memreg_internal.h"

/* A registration's page span: the pages it holds, first and last byte. */
static unsigned long memreg_span_start(const struct memreg_reg *reg)
{
	return reg->addr & PAGE_MASK;
}

static unsigned long memreg_span_last(const struct memreg_reg *reg)
{
	return PAGE_ALIGN(reg->addr + reg->len) - 1;
}

/*
 * Make @reg, not yet charged nor attached, a child if a registration of
 * its context holds all its pages: reg->parent is then that registration,
 * referenced.
 */
void memreg_share_find_parent(struct memreg_reg *reg)
{
	struct memreg_reg *p;

	if (!reg->ops->shares)
		return;
	rcu_read_lock();
	p = mtree_load(&reg->ctx->shared, memreg_span_start(reg));
	if (p && p->ops == reg->ops &&
	    memreg_span_last(p) >= memreg_span_last(reg) &&
	    refcount_inc_not_zero(&p->users))
		reg->parent = p;
	rcu_read_unlock();
}

/*
 * @reg is complete and registered: later registrations inside it may
 * share its pages, unless it overlaps a registration indexed already (or
 * there is no memory for the index): then it only has none.  Children
 * share their parent's pages, not theirs.
 */
void memreg_share_add(struct memreg_reg *reg)
{
	if (!reg->ops->shares || reg->parent)
		return;
	if (!mtree_insert_range(&reg->ctx->shared, memreg_span_start(reg),
				memreg_span_last(reg), reg, GFP_KERNEL_ACCOUNT))
		reg->shared = true;
}

/* @reg is being unregistered: no new child takes its pages. */
void memreg_share_del(struct memreg_reg *reg)
{
	if (!reg->shared)
		return;
	mtree_erase(&reg->ctx->shared, memreg_span_start(reg));
	reg->shared = false;
}
