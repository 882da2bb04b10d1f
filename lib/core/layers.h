/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What lib/core offers the API layers (acl, adxl, mstx) beyond
 * <memreg/memreg.h>.  The context stays opaque to them: a layer that
 * needs a command the public API has no function for asks lib/core here,
 * and gets the core's error mapping with it.  lib/mstx is in libmemreg
 * itself; lib/acl is libascendcl.so, so what it calls here is exported
 * under MEMREG_PRIVATE_<VERSION> (lib/libmemreg.map), a node for memreg's
 * own libraries, never for programs.
 */
#ifndef MEMREG_CORE_LAYERS_H
#define MEMREG_CORE_LAYERS_H

#include <memreg/memreg.h>
#include <linux/memreg_mstx.h>

/*
 * MEMREG_IOC_MSTX with @batch (size, ops, count and op_size filled in):
 * 0, or a negative memreg_err with errno kept (batch->done says how many
 * operations were applied before the one that failed).
 */
int memreg__mstx_batch(struct memreg_ctx *ctx, struct memreg_mstx *batch);

/*
 * mmap(2) of the whole of a dma-buf @fd of @len bytes, read-write and
 * shared: the address, or MAP_FAILED with errno.  In a MEMREG_TESTING
 * build the fake kernel's hook answers, since its dma-bufs are ranges of
 * one file that a mapping at offset 0 would not find.
 */
void *memreg__dmabuf_mmap(int fd, size_t len);

/*
 * mmap(2) of [@offset, @offset + @len) of the dma-buf @fd at exactly
 * @addr (MAP_FIXED: whatever was mapped there goes), read-write and
 * shared: @addr, or MAP_FAILED with errno.  For the VMM calls of the ACL
 * layer, which map device memory into a range they reserved.  The fake
 * kernel's hook answers in a MEMREG_TESTING build, as above.
 */
void *memreg__dmabuf_mmap_fixed(int fd, void *addr, size_t len,
				size_t offset);

/*
 * MEMREG_IOC_DEV_FREE of @handle alone: for a layer that unmapped the
 * allocation's own mapping (memreg_dev_free() would unmap its address
 * again, which may be someone else's by then).  0 or a negative
 * memreg_err.
 */
int memreg__dev_free_handle(struct memreg_ctx *ctx, uint64_t handle,
			    unsigned int flags);

#ifdef MEMREG_TESTING
typedef void *(*memreg__mmap_fn)(int fd, size_t len);
extern memreg__mmap_fn memreg__test_mmap;
typedef void *(*memreg__mmap_fixed_fn)(int fd, void *addr, size_t len,
				       size_t offset);
extern memreg__mmap_fixed_fn memreg__test_mmap_fixed;
#endif

#endif /* MEMREG_CORE_LAYERS_H */
