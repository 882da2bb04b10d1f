/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What lib/core offers the API layers of the same library (acl, adxl,
 * mstx) beyond <memreg/memreg.h>.  The context stays opaque to them: a
 * layer that needs a command the public API has no function for asks
 * lib/core here, and gets the core's error mapping with it.
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

#ifdef MEMREG_TESTING
typedef void *(*memreg__mmap_fn)(int fd, size_t len);
extern memreg__mmap_fn memreg__test_mmap;
#endif

#endif /* MEMREG_CORE_LAYERS_H */
