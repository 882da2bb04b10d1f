// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memreg_headroom(): MEMREG_IOC_HEADROOM, what the process may still
 * register and allocate, and which limit leaves the least of each kind.
 */
#include <errno.h>
#include <string.h>
#include "core.h"

int memreg_headroom(struct memreg_ctx *ctx, unsigned int device,
		    struct memreg_lib_headroom *out)
{
	struct memreg_headroom k;

	if (!ctx || !out)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	k.device = device;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_HEADROOM, &k))
		return memreg__fail(MEMREG_OP_HEADROOM);

	memset(out, 0, sizeof(*out));
	out->cgroup_id = k.cgroup_id;
	out->dev_total = k.dev_total;
	out->regions = k.regions;
	memcpy(out->room, k.room, sizeof(out->room));
	return 0;
}
