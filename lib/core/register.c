// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MEMREG_IOC_REGISTER and MEMREG_IOC_UNREGISTER.
 *
 * Type, access bits and length are not checked here: the module is the
 * authority on what it accepts (a newer one may accept more), and it
 * answers each refusal with its own errno.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core.h"

int memreg_register(struct memreg_ctx *ctx, void *addr, size_t len,
		    enum memreg_mem_type type, unsigned int access,
		    uint64_t *handle)
{
	struct memreg_register r;

	if (!ctx || !handle)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	/* Zero first: reserved fields and flags must reach the kernel as 0. */
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.type = (__u32)type;
	r.addr = (uintptr_t)addr;
	r.len = len;
	r.access = access;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_REGISTER, &r))
		return memreg__fail(MEMREG_OP_REGISTER);

	*handle = r.handle;
	return 0;
}

int memreg_unregister(struct memreg_ctx *ctx, uint64_t handle)
{
	struct memreg_unregister u;

	if (!ctx)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.handle = handle;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_UNREGISTER, &u))
		return memreg__fail(MEMREG_OP_UNREGISTER);
	return 0;
}
