/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - the dma-buf exporter shared by device allocations
 * (memreg_dev_export.c) and host registrations (memreg_host_export.c).
 *
 * An export is a page range of one source; the source says where each
 * page is and what the dma-buf's last reference lets go of.  Everything
 * a dma-buf does (attachments, CPU mappings, vmap, memreg's own DMABUF
 * registrations, revocation) is the same for both, and lives in
 * memreg_export.c.
 */
#ifndef _MEMREG_EXPORT_H
#define _MEMREG_EXPORT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct dma_buf;
struct memreg_export;

/**
 * struct memreg_export_src - what an export is made of
 * @page: page @pgoff of the export (< npages); the export's reference on
 *	its owner keeps it
 * @release: the dma-buf's last reference is gone: unlist the export and
 *	drop the owner (the export is freed after)
 */
struct memreg_export_src {
	struct page *(*page)(const struct memreg_export *exp, pgoff_t pgoff);
	void (*release)(struct memreg_export *exp);
};

/* One dma-buf of a source's page range. */
struct memreg_export {
	const struct memreg_export_src *src;
	void *owner;			/* the source's object, referenced */
	unsigned long first;		/* its first page in the owner */
	unsigned long npages;
	struct dma_buf *dmabuf;		/* owns us: not referenced */
	struct list_head node;		/* the source's list of its exports */
	/*
	 * CPU mappings (VMAs) and their faults.  A lock of their own, not
	 * the source's list lock, which revocation holds while it takes the
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

void memreg_export_init(struct memreg_export *exp,
			const struct memreg_export_src *src, void *owner,
			unsigned long first, unsigned long npages);
/*
 * The dma-buf of @exp (initialised); from then on the dma-buf owns it and
 * its source's release runs with its last reference.  On an error the
 * caller still owns @exp: memreg_export_destroy() it.
 */
struct dma_buf *memreg_export_dmabuf(struct memreg_export *exp);
void memreg_export_destroy(struct memreg_export *exp);
/* The owner takes the memory back: see memreg_export.c. */
void memreg_export_revoke(struct memreg_export *exp);
struct memreg_export *memreg_export_of_vma(struct vm_area_struct *vma);

#endif /* _MEMREG_EXPORT_H */
