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
 * Each context indexes the registrations that pinned pages in an interval
 * tree by page span, under ctx->lock, which the register path takes to
 * charge anyway: finding a parent is one descent to the first span that
 * overlaps, and a step for each other one that starts before the range.
 * The tree's nodes are allocated for the pinning registrations alone, so
 * that a registration stays a kmalloc-256 object (memreg_host.c); one
 * that gets no node (no memory) only has no children.  Removing a node
 * allocates nothing, so an unregistration cannot leave one behind.  A
 * registration is indexed only once it is complete and registered, after
 * everything that can fail, and taken out when it is unregistered, before
 * the registry's reference is dropped: every registration found in the
 * tree has a user, and a child's reference is taken under the lock.
 */
#include <linux/interval_tree_generic.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "memreg_internal.h"

/* One pinning registration in its context's tree. */
struct memreg_share_node {
	struct rb_node rb;
	unsigned long start;		/* first byte of its first page */
	unsigned long last;		/* last byte of its last page */
	unsigned long subtree_last;	/* the interval tree's */
	struct memreg_reg *reg;
};

static unsigned long memreg_node_start(const struct memreg_share_node *n)
{
	return n->start;
}

static unsigned long memreg_node_last(const struct memreg_share_node *n)
{
	return n->last;
}

INTERVAL_TREE_DEFINE(struct memreg_share_node, rb, unsigned long, subtree_last,
		     memreg_node_start, memreg_node_last, static,
		     memreg_share_tree)

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
 * referenced.  The spans that overlap come in order of their first page,
 * so the search ends at the first one that starts after @reg.
 */
void memreg_share_find_parent(struct memreg_reg *reg)
{
	unsigned long start = memreg_span_start(reg);
	unsigned long last = memreg_span_last(reg);
	struct memreg_ctx *ctx = reg->ctx;
	struct memreg_share_node *n;

	if (!reg->ops->shares)
		return;
	spin_lock(&ctx->lock);
	for (n = memreg_share_tree_iter_first(&ctx->shared, start, last);
	     n && n->start <= start;
	     n = memreg_share_tree_iter_next(n, start, last)) {
		if (n->last >= last && n->reg->ops == reg->ops) {
			/* in the tree: the registry's reference is held */
			refcount_inc(&n->reg->users);
			reg->parent = n->reg;
			break;
		}
	}
	spin_unlock(&ctx->lock);
}
MEMREG_EXPORT_FOR_KUNIT(memreg_share_find_parent);

/*
 * @reg is complete and registered: later registrations inside it may
 * share its pages.  Children share their parent's, not theirs.
 */
void memreg_share_add(struct memreg_reg *reg)
{
	struct memreg_ctx *ctx = reg->ctx;
	struct memreg_share_node *n;

	if (!reg->ops->shares || reg->parent)
		return;
	n = kmalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
	if (!n)
		return;
	n->start = memreg_span_start(reg);
	n->last = memreg_span_last(reg);
	n->reg = reg;
	spin_lock(&ctx->lock);
	memreg_share_tree_insert(n, &ctx->shared);
	reg->shared = true;
	spin_unlock(&ctx->lock);
}
MEMREG_EXPORT_FOR_KUNIT(memreg_share_add);

/*
 * @reg is being unregistered: no new child takes its pages.  Its node is
 * found among the spans that overlap its own: itself, mostly.
 */
void memreg_share_del(struct memreg_reg *reg)
{
	unsigned long start = memreg_span_start(reg);
	unsigned long last = memreg_span_last(reg);
	struct memreg_ctx *ctx = reg->ctx;
	struct memreg_share_node *n;

	if (!reg->shared)
		return;
	spin_lock(&ctx->lock);
	for (n = memreg_share_tree_iter_first(&ctx->shared, start, last);
	     n && n->reg != reg;
	     n = memreg_share_tree_iter_next(n, start, last))
		;
	if (!WARN_ON_ONCE(!n))
		memreg_share_tree_remove(n, &ctx->shared);
	spin_unlock(&ctx->lock);
	kfree(n);
	reg->shared = false;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_share_del);
