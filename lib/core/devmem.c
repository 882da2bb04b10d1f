// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Emulated device memory: MEMREG_IOC_DEV_ALLOC and mmap, MEMREG_IOC_DEV_FREE
 * and munmap, MEMREG_IOC_DEV_INFO.
 *
 * The pages go back to the device only when the handle is freed and the
 * last mapping is gone, so the library maps exactly once per allocation
 * and unmaps exactly that on free.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core.h"
#include "layers.h"

static int dev_free_handle(struct memreg_ctx *ctx, uint64_t handle,
			   unsigned int flags)
{
	struct memreg_dev_free f;

	memset(&f, 0, sizeof(f));
	f.size = sizeof(f);
	f.flags = flags;
	f.handle = handle;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_DEV_FREE, &f))
		return memreg__fail(MEMREG_OP_DEV_FREE);
	return 0;
}

int memreg__dev_free_handle(struct memreg_ctx *ctx, uint64_t handle,
			    unsigned int flags)
{
	if (!ctx)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	return dev_free_handle(ctx, handle, flags);
}

int memreg_dev_alloc(struct memreg_ctx *ctx, unsigned int device,
		     enum memreg_dev_policy policy, size_t len,
		     struct memreg_dev_mem *mem)
{
	struct memreg_dev_alloc a;
	void *addr;
	int ret, saved;

	if (!ctx || !mem || !len)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	/* Zero first: reserved fields and flags must reach the kernel as 0. */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.device = device;
	a.policy = (__u32)policy;
	a.len = len;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_DEV_ALLOC, &a))
		return memreg__fail(MEMREG_OP_DEV_ALLOC);

	/* A module that answers with more than fits the address space. */
	if (a.alloc_len < len || a.alloc_len > SIZE_MAX) {
		ret = memreg__refuse(MEMREG_E_ABI, EPROTO);
		goto err_free;
	}
	addr = mmap(NULL, (size_t)a.alloc_len, PROT_READ | PROT_WRITE,
		    MAP_SHARED, ctx->fd, (off_t)a.mmap_offset);
	if (addr == MAP_FAILED) {
		ret = memreg__fail(MEMREG_OP_ANY);
		goto err_free;
	}

	mem->addr = addr;
	mem->len = (size_t)a.alloc_len;
	mem->handle = a.handle;
	mem->device = device;
	mem->huge = a.huge ? 1 : 0;
	return 0;

err_free:
	/* Not mapped, so freeing the handle gives the pages back at once. */
	saved = errno;
	dev_free_handle(ctx, a.handle, 0);
	errno = saved;
	return ret;
}

int memreg_dev_free(struct memreg_ctx *ctx, const struct memreg_dev_mem *mem)
{
	int ret;

	if (!ctx || !mem || !mem->addr)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	/*
	 * The handle first: while a registration covers the memory the
	 * module refuses (EBUSY), and the caller's mapping must survive
	 * that refusal.
	 */
	ret = dev_free_handle(ctx, mem->handle, 0);
	if (ret)
		return ret;
	/*
	 * Cannot fail for a mapping this library made; if the caller unmapped
	 * it already the pages are back with the device anyway.
	 */
	munmap(mem->addr, mem->len);
	return 0;
}

int memreg_dev_stat(struct memreg_ctx *ctx, unsigned int device,
		    struct memreg_dev_stat *st)
{
	struct memreg_dev_info k;

	if (!ctx || !st)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	k.device = device;
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_DEV_INFO, &k))
		return memreg__fail(MEMREG_OP_DEV_INFO);

	memset(st, 0, sizeof(*st));
	st->capacity = k.capacity;
	st->used = k.used;
	st->huge_bytes = k.huge_bytes;
	st->normal_bytes = k.normal_bytes;
	st->proc_bytes = k.proc_bytes;
	return 0;
}
