/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - the kernel API differences between the kernels memreg builds
 * for (Debian's 6.1 and 6.12 and newer).  Each MEMREG_HAVE_* comes from a
 * header probe in Kbuild, not from a version number: distributions
 * backport.
 */
#ifndef _MEMREG_COMPAT_H
#define _MEMREG_COMPAT_H

#include <linux/mm.h>

#ifndef MEMREG_HAVE_VM_FLAGS_SET
/* 6.3 made vm_flags read-only outside these helpers (per-VMA locks). */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * 6.2 made dma_buf_vmap() a call under the buffer's reservation lock and
 * added the _unlocked variants that take it; before, dma_buf_vmap() took
 * its own lock.
 */
struct dma_buf;
struct iosys_map;
#ifdef MEMREG_HAVE_DMA_BUF_VMAP_UNLOCKED
#define memreg_dma_buf_vmap	dma_buf_vmap_unlocked
#define memreg_dma_buf_vunmap	dma_buf_vunmap_unlocked
#else
#define memreg_dma_buf_vmap	dma_buf_vmap
#define memreg_dma_buf_vunmap	dma_buf_vunmap
#endif

/* 6.13 made MODULE_IMPORT_NS() take a string. */
#ifdef MEMREG_HAVE_IMPORT_NS_STRING
#define MEMREG_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS("DMA_BUF")
#else
#define MEMREG_IMPORT_NS_DMA_BUF	MODULE_IMPORT_NS(DMA_BUF)
#endif

#endif /* _MEMREG_COMPAT_H */
