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

#endif /* MEMREG_CORE_LAYERS_H */
