// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - host registrations as dma-bufs (MEMREG_IOC_REG_EXPORT): register
 * once, pin once.
 *
 * A page range of a host registration becomes a dma-buf (the exporter is
 * memreg_export.c's) over the very pages the registration pinned: no
 * second pin, no second charge against the process's limits.  Another
 * process mmaps it, or registers it as memreg's DMABUF type and copies
 * through it; another driver attaches to it.
 *
 * Lifetime and revocation:
 *  - The dma-buf holds the registration (one of its users, as a copy in
 *    flight does), so its pages stay pinned, and charged to the process,
 *    its cgroup and RLIMIT_MEMLOCK as before, until the dma-buf's last
 *    reference goes.
 *  - Unregistering, closing the file, exit or exec revoke the registration's
 *    dma-bufs, as freeing a device allocation revokes its: importers are
 *    told, CPU mappings are zapped, no new mapping is made.
 *  - A revoked dma-buf that someone still holds (an fd passed on, a static
 *    attachment) keeps its pages pinned after the exporting process is
 *    gone, where no process limit counts them any more.  So every export
 *    is also charged to its user, against the exporter's RLIMIT_MEMLOCK
 *    (as io_uring charges registered buffers to the user), until its last
 *    reference goes: what one user can leave pinned behind is bounded by
 *    that limit, whatever its processes do.  CAP_IPC_LOCK is exempt, as
 *    it is from the limit itself.
 *
 * The dma-buf is whole pages: the bytes of the registration's first and
 * last pages outside it are the exporting process's own memory, pinned
 * with the rest.
 */
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include "memreg_internal.h"
#include "memreg_export.h"
#include "memreg_host.h"

/* The registration's first page, as a user address. */
static u64 memreg_host_export_base(const struct memreg_reg *reg)
{
	return reg->addr & PAGE_MASK;
}

static struct page *memreg_host_export_page(const struct memreg_export *exp,
					    pgoff_t pgoff)
{
	const struct memreg_reg *reg = exp->owner;
	unsigned int off;

	return memreg_host_page_at(reg, memreg_host_export_base(reg) +
				   ((exp->first + pgoff) << PAGE_SHIFT), &off);
}

static void memreg_host_export_release(struct memreg_export *exp)
{
	struct memreg_reg *reg = exp->owner;
	struct memreg_ctx *ctx = reg->ctx;

	mutex_lock(&ctx->exports_lock);
	list_del_init(&exp->node);
	mutex_unlock(&ctx->exports_lock);
	memreg_user_uncharge_export(ctx->user, exp->npages);
	/* may be its last user: the pages are unpinned and uncharged */
	memreg_reg_put(reg);
}

static const struct memreg_export_src memreg_host_export_src = {
	.page		= memreg_host_export_page,
	.release	= memreg_host_export_release,
};

/*
 * A dma-buf of part of a host registration, for the dispatcher to install
 * at the descriptor it reserved (req->fd) once the caller has the result.
 */
int memreg_host_export(struct memreg_file *mf, struct memreg_reg_export *req,
		       struct dma_buf **out)
{
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_host_reg *hreg;
	unsigned long npages;
	struct memreg_export *exp;
	struct memreg_reg *reg;
	struct dma_buf *dmabuf;
	u64 len, spanned;
	int err;

	if (req->reserved0 || !req->len || !PAGE_ALIGNED(req->offset))
		return -EINVAL;
	reg = memreg_reg_get(mf, req->handle);
	if (!reg)
		return -ENOENT;
	/* device memory has DEV_EXPORT; a DMABUF range is a dma-buf already */
	if (reg->type != MEMREG_MEM_HOST) {
		err = -EOPNOTSUPP;
		goto put;
	}
	/* whoever holds the fd reads and writes: the peers' access must */
	if (reg->access != MEMREG_ACCESS_ALL) {
		err = -EACCES;
		goto put;
	}
	len = round_up(req->len, PAGE_SIZE);
	spanned = PAGE_ALIGN(reg->addr + reg->len) - memreg_host_export_base(reg);
	if (len < req->len || !memreg_range_inside(0, spanned, req->offset, len)) {
		err = -ERANGE;
		goto put;
	}
	npages = len >> PAGE_SHIFT;
	/* what it may leave pinned behind: the user's (see above) */
	err = memreg_user_charge_export(ctx->user, npages);
	if (err)
		goto put;
	exp = kzalloc(sizeof(*exp), GFP_KERNEL_ACCOUNT);
	if (!exp) {
		err = -ENOMEM;
		goto uncharge;
	}
	memreg_export_init(exp, &memreg_host_export_src, reg,
			   req->offset >> PAGE_SHIFT, npages);
	dmabuf = memreg_export_dmabuf(exp);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		memreg_export_destroy(exp);
		goto uncharge;
	}
	/* from here on the dma-buf owns exp, the charge and reg's user */

	/*
	 * Unregistered meanwhile: no new export.  Each side sets its flag,
	 * then reads the other's: memreg_host_export_revoke() either sees
	 * exported, and waits for the lock to revoke what is listed, or this
	 * sees unlinked.
	 */
	hreg = to_host_reg(reg);
	mutex_lock(&ctx->exports_lock);
	WRITE_ONCE(hreg->exported, true);
	smp_mb();	/* pairs with memreg_host_export_revoke() */
	if (READ_ONCE(hreg->unlinked))
		err = -ENOENT;
	else
		list_add(&exp->node, &ctx->exports);
	mutex_unlock(&ctx->exports_lock);
	if (err) {
		dma_buf_put(dmabuf);
		return err;
	}
	*out = dmabuf;
	return 0;

uncharge:
	memreg_user_uncharge_export(ctx->user, npages);
put:
	memreg_reg_put(reg);
	return err;
}

/*
 * @reg is out of every lookup (unregistered, or its file or process
 * gone): revoke its dma-bufs.  Those being released wait on the lock for
 * us, so each one listed is still there.
 */
void memreg_host_export_revoke(struct memreg_reg *reg)
{
	struct memreg_host_reg *hreg = to_host_reg(reg);
	struct memreg_ctx *ctx = reg->ctx;
	struct memreg_export *exp;

	WRITE_ONCE(hreg->unlinked, true);
	smp_mb();	/* pairs with memreg_host_export() */
	if (!READ_ONCE(hreg->exported))
		return;
	mutex_lock(&ctx->exports_lock);
	list_for_each_entry(exp, &ctx->exports, node)
		if (exp->owner == reg)
			memreg_export_revoke(exp);
	mutex_unlock(&ctx->exports_lock);
}
