// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dma-bufs: MEMREG_IOC_DEV_EXPORT, MEMREG_IOC_REG_EXPORT, DMABUF registrations and the IPC names
 * (MEMREG_IOC_IPC_EXPORT, ALLOW, IMPORT, CLOSE).  What their errnos mean
 * is in the one errno table of errors.c; the module checks flags, sizes
 * and ranges itself and is the authority on them.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "layers.h"

#ifdef MEMREG_TESTING
memreg__mmap_fn memreg__test_mmap;
memreg__mmap_fixed_fn memreg__test_mmap_fixed;
#endif

int memreg_dev_export(struct memreg_ctx *ctx, const struct memreg_dev_mem *mem,
		      size_t offset, size_t len, int *fd)
{
	struct memreg_dev_export e;

	if (!ctx || !mem || !fd)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	/* An fd the library hands out must not leak into exec'd programs. */
	e.flags = MEMREG_EXPORT_CLOEXEC;
	e.handle = mem->handle;
	e.offset = offset;
	e.len = len;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_DEV_EXPORT, &e))
		return memreg__fail(MEMREG_OP_DEV_EXPORT);
	*fd = e.fd;
	return 0;
}

int memreg_reg_export(struct memreg_ctx *ctx, uint64_t handle, size_t offset,
		      size_t len, int *fd)
{
	struct memreg_reg_export e;

	if (!ctx || !fd)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.flags = MEMREG_EXPORT_CLOEXEC;
	e.handle = handle;
	e.offset = offset;
	e.len = len;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_REG_EXPORT, &e))
		return memreg__fail(MEMREG_OP_REG_EXPORT);
	*fd = e.fd;
	return 0;
}

int memreg_register_dmabuf(struct memreg_ctx *ctx, int fd, uint64_t offset,
			   size_t len, unsigned int access, uint64_t *handle)
{
	struct memreg_register r;

	if (!ctx || !handle)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.type = MEMREG_MEM_DMABUF;
	r.addr = offset;
	r.len = len;
	r.access = access;
	r.fd = fd;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_REGISTER, &r))
		return memreg__fail(MEMREG_OP_REGISTER_DMABUF);
	*handle = r.handle;
	return 0;
}

int memreg_ipc_export(struct memreg_ctx *ctx, int fd, unsigned int flags,
		      uint8_t token[MEMREG_IPC_TOKEN_LEN])
{
	struct memreg_ipc_export x;

	if (!ctx || !token)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&x, 0, sizeof(x));
	x.size = sizeof(x);
	x.flags = flags;
	x.fd = fd;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_IPC_EXPORT, &x))
		return memreg__fail(MEMREG_OP_IPC_EXPORT);
	memcpy(token, x.token, MEMREG_IPC_TOKEN_LEN);
	return 0;
}

int memreg_ipc_allow(struct memreg_ctx *ctx,
		     const uint8_t token[MEMREG_IPC_TOKEN_LEN],
		     const int32_t *pids, size_t n)
{
	struct memreg_ipc_allow a;

	/*
	 * The module answers a count of 0 with E2BIG, its "too many";
	 * nothing to allow is a bad argument, so it stops here.
	 */
	if (!ctx || !token || !pids || !n)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	/* Beyond the u32 count: more than any name may hold. */
	if (n > UINT32_MAX)
		return memreg__refuse(MEMREG_E_TOO_MANY, E2BIG);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.count = (__u32)n;
	memcpy(a.token, token, MEMREG_IPC_TOKEN_LEN);
	a.pids = (uintptr_t)pids;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_IPC_ALLOW, &a))
		return memreg__fail(MEMREG_OP_IPC_ALLOW);
	return 0;
}

int memreg_ipc_import(struct memreg_ctx *ctx,
		      const uint8_t token[MEMREG_IPC_TOKEN_LEN], int *fd,
		      size_t *len)
{
	struct memreg_ipc_import im;
	int saved;

	if (!ctx || !token || !fd)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&im, 0, sizeof(im));
	im.size = sizeof(im);
	im.flags = MEMREG_EXPORT_CLOEXEC;
	memcpy(im.token, token, MEMREG_IPC_TOKEN_LEN);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_IPC_IMPORT, &im))
		return memreg__fail(MEMREG_OP_IPC_IMPORT);
	/* A buffer larger than the address space cannot be used here. */
	if (im.len > SIZE_MAX) {
		saved = errno;
		close(im.fd);
		errno = saved;
		return memreg__refuse(MEMREG_E_ABI, EPROTO);
	}
	*fd = im.fd;
	if (len)
		*len = (size_t)im.len;
	return 0;
}

int memreg_ipc_close(struct memreg_ctx *ctx,
		     const uint8_t token[MEMREG_IPC_TOKEN_LEN])
{
	struct memreg_ipc_close c;

	if (!ctx || !token)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	memcpy(c.token, token, MEMREG_IPC_TOKEN_LEN);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_IPC_CLOSE, &c))
		return memreg__fail(MEMREG_OP_IPC_CLOSE);
	return 0;
}

void *memreg__dmabuf_mmap(int fd, size_t len)
{
#ifdef MEMREG_TESTING
	if (memreg__test_mmap)
		return memreg__test_mmap(fd, len);
#endif
	/* Shared: the bytes are the exporter's, never a private copy. */
	return mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

void *memreg__dmabuf_mmap_fixed(int fd, void *addr, size_t len,
				size_t offset)
{
#ifdef MEMREG_TESTING
	if (memreg__test_mmap_fixed)
		return memreg__test_mmap_fixed(fd, addr, len, offset);
#endif
	return mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		    fd, (off_t)offset);
}
