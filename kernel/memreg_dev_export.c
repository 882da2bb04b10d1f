// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - emulated device memory as dma-bufs (MEMREG_IOC_DEV_EXPORT).
 *
 * A page-aligned range of a device allocation becomes a dma-buf (the
 * exporter is memreg_export.c's).  The dma-buf holds a reference on the
 * allocation, so its pages live as long as any importer does; freeing
 * the allocation (DEV_FREE, close, exit) revokes its dma-bufs.
 */
#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "memreg_internal.h"
#include "memreg_export.h"

static struct page *memreg_dev_export_page(const struct memreg_export *exp,
					   pgoff_t pgoff)
{
	const struct memreg_dalloc *d = exp->owner;

	return d->pages[exp->first + pgoff];
}

static void memreg_dev_export_release(struct memreg_export *exp)
{
	struct memreg_dalloc *d = exp->owner;

	mutex_lock(&d->exports_lock);
	list_del_init(&exp->node);
	mutex_unlock(&d->exports_lock);
	memreg_dalloc_put(d);
}

static const struct memreg_export_src memreg_dev_export_src = {
	.page		= memreg_dev_export_page,
	.release	= memreg_dev_export_release,
};

/*
 * @vma (mmap_lock held) is a CPU mapping of one of our device exports,
 * not revoked: its allocation, and in *@first the allocation's page at the
 * mapping's start.  CANN's VMM calls map physical memory this way
 * (aclrtMapMem), and such memory is registered as DEVICE memory.
 */
struct memreg_dalloc *memreg_dev_export_vma(struct vm_area_struct *vma,
					    unsigned long *first)
{
	struct memreg_export *exp = memreg_export_of_vma(vma);

	if (!exp || exp->src != &memreg_dev_export_src ||
	    READ_ONCE(exp->revoked))
		return NULL;
	*first = exp->first + vma->vm_pgoff;
	return exp->owner;
}

/*
 * A dma-buf of part of an allocation, for the dispatcher to install at
 * the descriptor it reserved (req->fd) once the caller has the result.
 */
int memreg_dev_export(struct memreg_file *mf, struct memreg_dev_export *req,
		      struct dma_buf **out)
{
	struct memreg_export *exp;
	struct memreg_dalloc *d;
	struct dma_buf *dmabuf;
	u64 len;
	int err;

	if (req->reserved0 || !req->len || !PAGE_ALIGNED(req->offset))
		return -EINVAL;
	d = memreg_dalloc_get(mf, req->handle);
	if (!d)
		return -ENOENT;
	len = round_up(req->len, PAGE_SIZE);
	if (len < req->len || !memreg_range_inside(0, d->len, req->offset, len)) {
		err = -ERANGE;
		goto put;
	}
	exp = kzalloc(sizeof(*exp), GFP_KERNEL_ACCOUNT);
	if (!exp) {
		err = -ENOMEM;
		goto put;
	}
	memreg_export_init(exp, &memreg_dev_export_src, d,
			   req->offset >> PAGE_SHIFT, len >> PAGE_SHIFT);
	dmabuf = memreg_export_dmabuf(exp);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		memreg_export_destroy(exp);
		goto put;
	}
	/* from here on the dma-buf owns exp and its reference on d */

	/* freed meanwhile: no new export (free revokes what is listed) */
	mutex_lock(&d->exports_lock);
	spin_lock(&d->lock);
	err = d->freed ? -ENOENT : 0;
	spin_unlock(&d->lock);
	if (!err)
		list_add(&exp->node, &d->exports);
	mutex_unlock(&d->exports_lock);
	if (err) {
		dma_buf_put(dmabuf);
		return err;
	}
	*out = dmabuf;
	return 0;

put:
	memreg_dalloc_put(d);
	return err;
}

/* @d is freed: revoke its dma-bufs (see memreg_export_revoke()). */
void memreg_dev_export_revoke(struct memreg_dalloc *d)
{
	struct memreg_export *exp;

	mutex_lock(&d->exports_lock);
	list_for_each_entry(exp, &d->exports, node)
		memreg_export_revoke(exp);
	mutex_unlock(&d->exports_lock);
}
