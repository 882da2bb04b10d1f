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

#endif /* _MEMREG_COMPAT_H */
