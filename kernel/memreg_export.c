// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the dma-buf exporter: a page range of a device allocation
 * (MEMREG_IOC_DEV_EXPORT) or of a host registration (MEMREG_IOC_REG_EXPORT)
 * as a dma-buf, the way vgem exports its objects.  Another process can
 * mmap it or register it (memreg's DMABUF type), another driver can attach
 * and map it for DMA.  The dma-buf holds a reference on its source, so the
 * pages live as long as any importer does, whatever the exporting process
 * does.
 *
 * What the exporting process can do is take the memory back: when the
 * source goes (DEV_FREE or UNREGISTER, close, exit) its dma-bufs are
 * revoked.  Importers that attached dynamically are told through
 * move_notify (with the reservation lock held, as the dma-buf rules ask),
 * new mappings and vmaps fail, and every CPU mapping of the buffer is
 * zapped so that a later access faults (SIGBUS).  Static attachments keep
 * their DMA mapping until they detach: the pages are still there, nothing
 * is freed under them.
 *
 * The memory is ordinary cached RAM, so begin/end_cpu_access have nothing
 * to do, and the exporter is not dynamic: it never moves the pages.
 *
 * memreg's own DMABUF registrations of an export do not attach at all: a
 * dynamic attachment to a static exporter makes the dma-buf core map the
 * whole buffer at attach time (a scatterlist of up to 32 bytes a page,
 * for a registration of one byte).  They reach the pages through
 * memreg_export_page(), and are told of revocation through the export's
 * list of them (memreg_export_watch()), which revocation walks as the
 * dma-buf core walks attachments for move_notify.
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
#include <linux/pfn_t.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "memreg_internal.h"
#include "memreg_compat.h"
#include "memreg_export.h"

/* The export's pages, in an array the caller kvfree()s; NULL: no memory. */
static struct page **memreg_export_pages(const struct memreg_export *exp)
{
	struct page **pages;
	unsigned long i;

	pages = kvmalloc_array(exp->npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	for (i = 0; i < exp->npages; i++)
		pages[i] = exp->src->page(exp, i);
	return pages;
}

static struct sg_table *memreg_export_map(struct dma_buf_attachment *attach,
					  enum dma_data_direction dir)
{
	struct memreg_export *exp = attach->dmabuf->priv;
	struct sg_table *sgt;
	struct page **pages;
	int err;

	if (READ_ONCE(exp->revoked))
		return ERR_PTR(-ENODEV);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	pages = memreg_export_pages(exp);
	if (!sgt || !pages) {
		err = -ENOMEM;
		goto free;
	}
	err = sg_alloc_table_from_pages(sgt, pages, exp->npages, 0,
					exp->npages << PAGE_SHIFT, GFP_KERNEL);
	if (err)
		goto free;
	err = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (err)
		goto free_table;
	kvfree(pages);
	return sgt;

free_table:
	sg_free_table(sgt);
free:
	kvfree(pages);
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

	exp->src->release(exp);
	memreg_export_destroy(exp);
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
	struct page *page;
	vm_fault_t ret;

	/*
	 * Installed here, not handed back in vmf->page: the core would map
	 * it after we return, and a revocation in between would zap before
	 * the page is there, leaving taken-back memory mapped.
	 */
	mutex_lock(&exp->maps_lock);
	/* revoked: the process that owned the memory took it back */
	if (exp->revoked || vmf->pgoff >= exp->npages) {
		ret = VM_FAULT_SIGBUS;
		goto out;
	}
	page = exp->src->page(exp, vmf->pgoff);
	/*
	 * A process's own pages (anonymous, hugetlb) cannot be mapped as
	 * pages into another mapping, and need not be: the export's pin
	 * keeps them, and nothing may pin them again through this mapping
	 * (VM_IO).  So they are mapped by frame number, as VM_PFNMAP does.
	 */
	if (PageAnon(page) || PageHuge(page))
		ret = vmf_insert_mixed(vmf->vma, vmf->address,
				       page_to_pfn_t(page));
	else
		ret = vmf_insert_page(vmf->vma, vmf->address, page);
out:
	mutex_unlock(&exp->maps_lock);
	return ret;
}

static const struct vm_operations_struct memreg_export_vm_ops = {
	.open	= memreg_export_vm_open,
	.close	= memreg_export_vm_close,
	.fault	= memreg_export_vm_fault,
};

/* @vma (mmap_lock held) maps one of our exports: it, else NULL. */
struct memreg_export *memreg_export_of_vma(struct vm_area_struct *vma)
{
	if (vma->vm_ops != &memreg_export_vm_ops)
		return NULL;
	return vma->vm_private_data;
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
	/* VM_MIXEDMAP: inserted at fault time (see there) */
	vm_flags_set(vma, VM_IO | VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
	memreg_export_vm_open(vma);
	return 0;
}

static int memreg_export_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct memreg_export *exp = dmabuf->priv;
	struct page **pages;
	void *vaddr;

	if (READ_ONCE(exp->revoked))
		return -ENODEV;
	pages = memreg_export_pages(exp);
	if (!pages)
		return -ENOMEM;
	/* the page tables hold what the array said: it goes at once */
	vaddr = vmap(pages, exp->npages, VM_MAP, PAGE_KERNEL);
	kvfree(pages);
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
bool memreg_export_owns(const struct dma_buf *dmabuf)
{
	return dmabuf->ops == &memreg_export_ops;
}

/*
 * Page @pgoff of our export @dmabuf, for the copies of a DMABUF
 * registration (memreg_dmabuf.c), which reach the pages without a kernel
 * mapping.  The registration's reference on the dma-buf keeps the
 * source; the caller checks the range and revocation.
 */
struct page *memreg_export_page(const struct dma_buf *dmabuf, pgoff_t pgoff)
{
	const struct memreg_export *exp = dmabuf->priv;

	return exp->src->page(exp, pgoff);
}

/*
 * A DMABUF registration of our export @dmabuf wants to be told of its
 * revocation: @node joins the export's watchers, and
 * memreg_dmabuf_revoke_watcher(@node) is called when the source goes.
 * -ENODEV if it is revoked already: nothing may register memory its owner
 * took back.
 */
int memreg_export_watch(struct dma_buf *dmabuf, struct list_head *node)
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

void memreg_export_unwatch(struct dma_buf *dmabuf, struct list_head *node)
{
	struct memreg_export *exp = dmabuf->priv;

	mutex_lock(&exp->maps_lock);
	list_del_init(node);
	mutex_unlock(&exp->maps_lock);
}

void memreg_export_init(struct memreg_export *exp,
			const struct memreg_export_src *src, void *owner,
			unsigned long first, unsigned long npages)
{
	exp->src = src;
	exp->owner = owner;
	exp->first = first;
	exp->npages = npages;
	INIT_LIST_HEAD(&exp->node);
	INIT_LIST_HEAD(&exp->watchers);
	mutex_init(&exp->maps_lock);
}

struct dma_buf *memreg_export_dmabuf(struct memreg_export *exp)
{
	DEFINE_DMA_BUF_EXPORT_INFO(info);
	struct dma_buf *dmabuf;

	info.ops = &memreg_export_ops;
	info.size = exp->npages << PAGE_SHIFT;
	info.flags = O_RDWR;
	info.priv = exp;
	dmabuf = dma_buf_export(&info);
	if (!IS_ERR(dmabuf))
		exp->dmabuf = dmabuf;
	return dmabuf;
}

void memreg_export_destroy(struct memreg_export *exp)
{
	mutex_destroy(&exp->maps_lock);
	kfree(exp);
}

/*
 * The source takes the memory back (its list lock held, so the dma-buf,
 * whose release takes that lock to unlist the export, is still there; a
 * buffer with CPU mappings has a live file: each VMA holds it, and a VMA
 * going away counts itself out under maps_lock before it lets go of the
 * file).  Once it returns, no memreg copy and no new CPU or DMA mapping
 * reaches the pages.
 */
void memreg_export_revoke(struct memreg_export *exp)
{
	struct list_head *w, *next;

	if (exp->revoked)
		return;
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
		unmap_mapping_range(exp->dmabuf->file->f_mapping, 0, 0, 1);
	mutex_unlock(&exp->maps_lock);
}
