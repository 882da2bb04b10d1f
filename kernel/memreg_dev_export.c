// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - emulated device memory as dma-bufs (MEMREG_IOC_DEV_EXPORT).
 *
 * A page-aligned range of a device allocation becomes a dma-buf, the way
 * vgem exports its objects: another process can mmap it or register it
 * (memreg's DMABUF type), another driver can attach and map it for DMA.
 * The dma-buf holds a reference on the allocation, so its pages live as
 * long as any importer does, whatever the exporting process does.
 *
 * What the exporting process can do is take the memory back: when the
 * allocation is freed (DEV_FREE, close, exit) its dma-bufs are revoked.
 * Importers that attached dynamically are told through move_notify (with
 * the reservation lock held, as the dma-buf rules ask), new mappings and
 * vmaps fail, and every CPU mapping of the buffer is zapped so that a
 * later access faults (SIGBUS).  Static attachments keep their DMA
 * mapping until they detach: the pages are still there, nothing is freed
 * under them.
 *
 * The memory is ordinary cached RAM, so begin/end_cpu_access have nothing
 * to do, and the exporter is not dynamic: it never moves the pages.
 *
 * memreg's own DMABUF registrations of an export do not attach at all: a
 * dynamic attachment to a static exporter makes the dma-buf core map the
 * whole buffer at attach time (a scatterlist of up to 32 bytes a page,
 * for a registration of one byte).  They reach the pages through
 * memreg_dev_export_page(), and are told of revocation through the
 * export's list of them (memreg_dev_export_watch()), which revocation
 * walks as the dma-buf core walks attachments for move_notify.
 */
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "memreg_internal.h"
#include "memreg_compat.h"

/* One dma-buf of a device allocation. */
struct memreg_export {
	struct memreg_dalloc *d;	/* referenced */
	unsigned long first;		/* its first page in d->pages */
	unsigned long npages;
	struct dma_buf *dmabuf;		/* owns us: not referenced */
	struct list_head node;		/* in d->exports, under exports_lock */
	/*
	 * CPU mappings (VMAs) and their faults.  A lock of their own, not
	 * exports_lock, which the free path holds while it takes the
	 * reservation lock: faults and mmap run under mmap_lock and need
	 * neither.  A fault checks @revoked and installs its page under this
	 * lock, and revocation zaps under it, so no page is mapped after it.
	 */
	struct mutex maps_lock;
	unsigned int nmaps;
	bool revoked;
	/* memreg's DMABUF registrations of it, under maps_lock */
	struct list_head watchers;
};

static struct sg_table *memreg_export_map(struct dma_buf_attachment *attach,
					  enum dma_data_direction dir)
{
	struct memreg_export *exp = attach->dmabuf->priv;
	struct sg_table *sgt;
	int err;

	if (READ_ONCE(exp->revoked))
		return ERR_PTR(-ENODEV);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table_from_pages(sgt, exp->d->pages + exp->first,
					exp->npages, 0,
					exp->npages << PAGE_SHIFT, GFP_KERNEL);
	if (err)
		goto free;
	err = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (err)
		goto free_table;
	return sgt;

free_table:
	sg_free_table(sgt);
free:
	kfree(sgt);
	return ERR_PTR(err);
}

static void memreg_export_unmap(struct dma_buf_attachment *attach,
				struct sg_table *sgt,
				enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
}

/* The last reference to the dma-buf is gone. */
static void memreg_export_release(struct dma_buf *dmabuf)
{
	struct memreg_export *exp = dmabuf->priv;
	struct memreg_dalloc *d = exp->d;

	mutex_lock(&d->exports_lock);
	list_del_init(&exp->node);
	mutex_unlock(&d->exports_lock);
	memreg_dalloc_put(d);
	mutex_destroy(&exp->maps_lock);
	kfree(exp);
}

static void memreg_export_vm_open(struct vm_area_struct *vma)
{
	struct memreg_export *exp = vma->vm_private_data;

	mutex_lock(&exp->maps_lock);
	exp->nmaps++;
	mutex_unlock(&exp->maps_lock);
}

static void memreg_export_vm_close(struct vm_area_struct *vma)
{
	struct memreg_export *exp = vma->vm_private_data;

	mutex_lock(&exp->maps_lock);
	exp->nmaps--;
	mutex_unlock(&exp->maps_lock);
}

static vm_fault_t memreg_export_vm_fault(struct vm_fault *vmf)
{
	struct memreg_export *exp = vmf->vma->vm_private_data;
	vm_fault_t ret;

	/*
	 * Installed here, not handed back in vmf->page: the core would map
	 * it after we return, and a revocation in between would zap before
	 * the page is there, leaving freed device memory mapped.
	 */
	mutex_lock(&exp->maps_lock);
	/* revoked: the process that owned the memory freed it */
	if (exp->revoked || vmf->pgoff >= exp->npages)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_page(vmf->vma, vmf->address,
				      exp->d->pages[exp->first + vmf->pgoff]);
	mutex_unlock(&exp->maps_lock);
	return ret;
}

static const struct vm_operations_struct memreg_export_vm_ops = {
	.open	= memreg_export_vm_open,
	.close	= memreg_export_vm_close,
	.fault	= memreg_export_vm_fault,
};

/*
 * @vma (mmap_lock held) is a CPU mapping of one of our exports, not
 * revoked: its allocation, and in *@first the allocation's page at the
 * mapping's start.  CANN's VMM calls map physical memory this way
 * (aclrtMapMem), and such memory is registered as DEVICE memory.
 */
struct memreg_dalloc *memreg_dev_export_vma(struct vm_area_struct *vma,
					    unsigned long *first)
{
	struct memreg_export *exp;

	if (vma->vm_ops != &memreg_export_vm_ops)
		return NULL;
	exp = vma->vm_private_data;
	if (READ_ONCE(exp->revoked))
		return NULL;
	*first = exp->first + vma->vm_pgoff;
	return exp->d;
}

static int memreg_export_mmap(struct dma_buf *dmabuf,
			      struct vm_area_struct *vma)
{
	struct memreg_export *exp = dmabuf->priv;

	/* shared with the device and the other importers: never COW */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (READ_ONCE(exp->revoked))
		return -ENODEV;
	vma->vm_private_data = exp;
	vma->vm_ops = &memreg_export_vm_ops;
	/* VM_MIXEDMAP: vmf_insert_page() at fault time (see there) */
	vm_flags_set(vma, VM_IO | VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	memreg_export_vm_open(vma);
	return 0;
}

static int memreg_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct memreg_export *exp = dmabuf->priv;
	void *vaddr;

	if (READ_ONCE(exp->revoked))
		return -ENODEV;
	vaddr = vmap(exp->d->pages + exp->first, exp->npages, VM_MAP,
		     PAGE_KERNEL);
	if (!vaddr)
		return -ENOMEM;
	iosys_map_set_vaddr(map, vaddr);
	return 0;
}

static void memreg_export_vunmap(struct dma_buf *dmabuf,
				 struct iosys_map *map)
{
	vunmap(map->vaddr);
}

static const struct dma_buf_ops memreg_export_ops = {
	.map_dma_buf	= memreg_export_map,
	.unmap_dma_buf	= memreg_export_unmap,
	.release	= memreg_export_release,
	.mmap		= memreg_export_mmap,
	.vmap		= memreg_export_vmap,
	.vunmap		= memreg_export_vunmap,
};

/* Is @dmabuf one of memreg's exports? */
bool memreg_dev_export_owns(const struct dma_buf *dmabuf)
{
	return dmabuf->ops == &memreg_export_ops;
}

/*
 * Page @pgoff of our export @dmabuf, for the copies of a DMABUF
 * registration (memreg_dmabuf.c), which reach the pages without a kernel
 * mapping.  The registration's reference on the dma-buf keeps the
 * allocation; the caller checks the range and revocation.
 */
struct page *memreg_dev_export_page(const struct dma_buf *dmabuf,
				    pgoff_t pgoff)
{
	const struct memreg_export *exp = dmabuf->priv;

	return exp->d->pages[exp->first + pgoff];
}

/*
 * A DMABUF registration of our export @dmabuf wants to be told of its
 * revocation: @node joins the export's watchers, and @revoke(@node) is
 * called when the allocation is freed.  -ENODEV if it is revoked already:
 * nothing may register memory its owner took back.
 */
int memreg_dev_export_watch(struct dma_buf *dmabuf, struct list_head *node)
{
	struct memreg_export *exp = dmabuf->priv;
	int err = 0;

	mutex_lock(&exp->maps_lock);
	if (exp->revoked)
		err = -ENODEV;
	else
		list_add(node, &exp->watchers);
	mutex_unlock(&exp->maps_lock);
	return err;
}

void memreg_dev_export_unwatch(struct dma_buf *dmabuf, struct list_head *node)
{
	struct memreg_export *exp = dmabuf->priv;

	mutex_lock(&exp->maps_lock);
	list_del_init(node);
	mutex_unlock(&exp->maps_lock);
}

/*
 * A dma-buf of part of an allocation, for the dispatcher to install at
 * the descriptor it reserved (req->fd) once the caller has the result.
 */
int memreg_dev_export(struct memreg_file *mf, struct memreg_dev_export *req,
		      struct dma_buf **out)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct memreg_export *exp;
	struct memreg_dalloc *d;
	struct dma_buf *dmabuf;
	u64 len;
	int err;

	if (req->flags & ~MEMREG_EXPORT_CLOEXEC || req->reserved0 ||
	    !req->len || !PAGE_ALIGNED(req->offset))
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
	exp->d = d;
	exp->first = req->offset >> PAGE_SHIFT;
	exp->npages = len >> PAGE_SHIFT;
	INIT_LIST_HEAD(&exp->node);
	INIT_LIST_HEAD(&exp->watchers);
	mutex_init(&exp->maps_lock);

	info.ops = &memreg_export_ops;
	info.size = len;
	info.flags = O_RDWR;
	info.priv = exp;
	dmabuf = dma_buf_export(&info);
	if (IS_ERR(dmabuf)) {
		err = PTR_ERR(dmabuf);
		goto free;
	}
	exp->dmabuf = dmabuf;
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

free:
	mutex_destroy(&exp->maps_lock);
	kfree(exp);
put:
	memreg_dalloc_put(d);
	return err;
}

/*
 * @d is freed: revoke its dma-bufs.  Those being released wait on the
 * lock for us, so each dma-buf listed is still there; a buffer with CPU
 * mappings has a live file (each VMA holds it, and a VMA going away
 * counts itself out under maps_lock before it lets go of the file).
 */
void memreg_dev_export_revoke(struct memreg_dalloc *d)
{
	struct list_head *w, *next;
	struct memreg_export *exp;

	mutex_lock(&d->exports_lock);
	list_for_each_entry(exp, &d->exports, node) {
		if (exp->revoked)
			continue;
		mutex_lock(&exp->maps_lock);
		WRITE_ONCE(exp->revoked, true);
		/* memreg's registrations: no copy of theirs after this */
		list_for_each_safe(w, next, &exp->watchers) {
			list_del_init(w);
			memreg_dmabuf_revoke_watcher(w);
		}
		mutex_unlock(&exp->maps_lock);
		dma_resv_lock(exp->dmabuf->resv, NULL);
		dma_buf_move_notify(exp->dmabuf);
		dma_resv_unlock(exp->dmabuf->resv);
		/* faults from here on see revoked: zap what was mapped */
		mutex_lock(&exp->maps_lock);
		if (exp->nmaps)
			unmap_mapping_range(exp->dmabuf->file->f_mapping,
					    0, 0, 1);
		mutex_unlock(&exp->maps_lock);
	}
	mutex_unlock(&d->exports_lock);
}
