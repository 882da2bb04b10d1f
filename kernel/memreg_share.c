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
 * Each context keeps the registrations that pinned pages in an interval
 * tree by page span, under ctx->lock, which the register path takes
 * anyway to charge: finding a parent among thousands of registrations is
 * one descent.  A registration is in the tree only while it is complete
 * and registered: it goes in after everything that can fail, and out when
 * it is unregistered, before the registry's reference is dropped; so
 * every registration found there has a user, and a child's reference is
 * taken under the lock.
 */
#include <linux/interval_tree_generic.h>
#include <linux/mm.h>
#include "memreg_internal.h"

/* A registration's page span: the pages it holds, first and last byte. */
static u64 memreg_span_start(const struct memreg_reg *reg)
{
	return reg->addr & PAGE_MASK;
}

static u64 memreg_span_last(const struct memreg_reg *reg)
{
	return PAGE_ALIGN(reg->addr + reg->len) - 1;
}

INTERVAL_TREE_DEFINE(struct memreg_reg, share_node, u64, share_last,
		     memreg_span_start, memreg_span_last, static,
		     memreg_share_tree)

/*
 * Make @reg, not yet charged nor attached, a child if a registration of
 * its context holds all its pages: reg->parent is then that registration,
 * referenced.  The intervals that overlap come in order of their first
 * page, so the search ends at the first one that starts after @reg.
 */
void memreg_share_find_parent(struct memreg_reg *reg)
{
	struct memreg_ctx *ctx = reg->ctx;
	u64 start = memreg_span_start(reg), last = memreg_span_last(reg);
	struct memreg_reg *p;

	if (!reg->ops->shares)
		return;
	spin_lock(&ctx->lock);
	for (p = memreg_share_tree_iter_first(&ctx->shared, start, last);
	     p && memreg_span_start(p) <= start;
	     p = memreg_share_tree_iter_next(p, start, last)) {
		if (p->ops == reg->ops && memreg_span_last(p) >= last) {
			/* in the tree: the registry's reference is held */
			refcount_inc(&p->users);
			reg->parent = p;
			break;
		}
	}
	spin_unlock(&ctx->lock);
}

/*
 * @reg is complete and registered: later registrations inside it may
 * share its pages.  Children share their parent's, not theirs.
 */
void memreg_share_add(struct memreg_reg *reg)
{
	struct memreg_ctx *ctx = reg->ctx;

	if (!reg->ops->shares || reg->parent)
		return;
	spin_lock(&ctx->lock);
	memreg_share_tree_insert(reg, &ctx->shared);
	reg->shared = true;
	spin_unlock(&ctx->lock);
}

/* @reg is being unregistered: no new child takes its pages. */
void memreg_share_del(struct memreg_reg *reg)
{
	struct memreg_ctx *ctx = reg->ctx;

	if (!reg->shared)
		return;
	spin_lock(&ctx->lock);
	memreg_share_tree_remove(reg, &ctx->shared);
	reg->shared = false;
	spin_unlock(&ctx->lock);
}
