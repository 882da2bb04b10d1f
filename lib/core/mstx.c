// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MEMREG_IOC_MSTX for lib/mstx: batches of heap and region operations.
 */
#include <errno.h>

#include "core.h"
#include "layers.h"

int memreg__mstx_batch(struct memreg_ctx *ctx, struct memreg_mstx *batch)
{
	if (!ctx || !batch)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_MSTX, batch))
		return memreg__fail(MEMREG_OP_MSTX);
	return 0;
}
