// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MEMREG_IOC_GRANT, REVOKE, IMPORT, UNIMPORT and TRANSFER.  What their
 * errnos mean (ENOENT, EACCES, EKEYREVOKED, EOWNERDEAD, ERANGE, EMFILE)
 * is in the one errno table of errors.c, with the rest.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core.h"

int memreg_grant(struct memreg_ctx *ctx, uint64_t handle, unsigned int access,
		 uint8_t token[MEMREG_TOKEN_LEN])
{
	struct memreg_grant g;

	if (!ctx || !token)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	g.access = access;
	g.handle = handle;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_GRANT, &g))
		return memreg__fail(MEMREG_OP_GRANT);
	memcpy(token, g.token, MEMREG_TOKEN_LEN);
	return 0;
}

int memreg_revoke(struct memreg_ctx *ctx,
		  const uint8_t token[MEMREG_TOKEN_LEN])
{
	struct memreg_revoke r;

	if (!ctx || !token)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	memcpy(r.token, token, MEMREG_TOKEN_LEN);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_REVOKE, &r))
		return memreg__fail(MEMREG_OP_REVOKE);
	return 0;
}

int memreg_import(struct memreg_ctx *ctx,
		  const uint8_t token[MEMREG_TOKEN_LEN],
		  struct memreg_remote *remote)
{
	struct memreg_import im;

	if (!ctx || !token || !remote)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	memcpy(im.token, token, MEMREG_TOKEN_LEN);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_IMPORT, &im))
		return memreg__fail(MEMREG_OP_IMPORT);

	memset(remote, 0, sizeof(*remote));
	remote->handle = im.handle;
	remote->addr = im.addr;
	remote->len = im.len;
	remote->type = im.type;
	remote->access = im.access;
	remote->device = im.device;
	remote->pid = im.pid;
	remote->incarnation = im.incarnation;
	return 0;
}

int memreg_unimport(struct memreg_ctx *ctx, uint64_t remote_handle)
{
	struct memreg_unimport u;

	if (!ctx)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&u, 0, sizeof(u));
	u.size = sizeof(u);
	u.handle = remote_handle;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_UNIMPORT, &u))
		return memreg__fail(MEMREG_OP_UNIMPORT);
	return 0;
}

int memreg_transfer(struct memreg_ctx *ctx,
		    const struct memreg_xfer_desc *descs, size_t count,
		    size_t *done, uint64_t *bytes)
{
	struct memreg_transfer t;
	size_t off = 0;
	uint64_t moved = 0;
	int ret = 0;

	if (done)
		*done = 0;
	if (bytes)
		*bytes = 0;
	if (!ctx || !descs || !count)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	/* a large batch is copied by several threads, if it may be */
	ret = memreg__transfer_split(ctx, descs, count, &off, &moved);
	if (ret != 1)
		goto out;
	ret = 0;

	/*
	 * The kernel takes at most MEMREG_XFER_MAX_DESCS per call; callers
	 * should not have to know, so larger arrays go in several calls.
	 */
	while (off < count) {
		size_t n = count - off;

		if (n > MEMREG_XFER_MAX_DESCS)
			n = MEMREG_XFER_MAX_DESCS;
		memset(&t, 0, sizeof(t));
		t.size = sizeof(t);
		t.descs = (uintptr_t)(descs + off);
		t.count = (__u32)n;
		t.desc_size = sizeof(*descs);
		if (memreg__ioctl(ctx->fd, MEMREG_IOC_TRANSFER, &t)) {
			ret = memreg__fail(MEMREG_OP_TRANSFER);
			off += t.done;
			moved += t.bytes;
			break;
		}
		off += n;
		moved += t.bytes;
	}
out:
	if (done)
		*done = off;
	if (bytes)
		*bytes = moved;
	return ret;
}
