// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtMallocHost, aclrtFreeHost: page-locked host memory.  The pages are
 * the process's own anonymous memory, pinned by registering them with the
 * module as HOST memory, so they are charged to RLIMIT_MEMLOCK and show
 * in the module's accounting (and `memreg region`) like any registration.
 *
 * aclrtHostRegister (and V2), aclrtHostGetDevicePointer,
 * aclrtHostUnregister: the same for memory the program already has.  Such
 * a buffer is "borrowed": it sits in the same table, keyed by the pointer
 * the program gave, but its pages are the program's to unmap, and only
 * aclrtHostUnregister ends it (aclrtFreeHost of it, or HostUnregister of
 * an aclrtMallocHost buffer, is refused with the call that fits).  The
 * pin covers the whole pages the range touches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "hostmem.h"
#include "memory.h"
#include "ptrmap.h"
#include "runtime.h"

struct acl_hostmem {
	size_t len;		/* from the key: what the program asked for */
	uint64_t handle;
	bool borrowed;		/* aclrtHostRegister'd: not ours to unmap */
};

aclError aclrtMallocHost(void **hostPtr, size_t size)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_hostmem *h;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	aclError ret = ACL_SUCCESS;
	void *p;
	int err;

	if (!hostPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"hostPtr is NULL"));
	if (!size)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0"));
	if (size > SIZE_MAX - page)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"size %zu is too large to round up",
					size));
	h = calloc(1, sizeof(*h));
	if (!h)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	h->len = (size + page - 1) & ~(page - 1);
	p = mmap(NULL, h->len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		ret = acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
			       "mmap of %zu bytes: %s", h->len,
			       strerror(errno));
		free(h);
		return acl_ret(ret);
	}

	/* The module descriptor is the current context's runtime's. */
	if (!memreg__acl_lock_context()) {
		ret = ACL_ERROR_RT_CONTEXT_NULL;
		goto err_unmap;
	}
	err = memreg_register(rt->mctx, p, h->len, MEMREG_MEM_HOST, 0,
			      &h->handle);
	if (err) {
		ret = memreg__acl_error(err);
	} else if (memreg__ptrmap_put(&rt->hostmem, p, h)) {
		memreg_unregister(rt->mctx, h->handle);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		goto err_unmap;
	*hostPtr = p;
	return acl_ret(ACL_SUCCESS);

err_unmap:
	munmap(p, h->len);
	free(h);
	return acl_ret(ret);
}

aclError aclrtFreeHost(void *hostPtr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_hostmem *h;

	aclError ret = ACL_SUCCESS;

	if (!hostPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"hostPtr is NULL"));
	pthread_mutex_lock(&rt->lock);
	h = memreg__ptrmap_get(&rt->hostmem, hostPtr);
	/* Unpinned before the pages go, so no pin outlives its mapping. */
	if (h && h->borrowed) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "hostPtr %p was registered by aclrtHostRegister: aclrtHostUnregister it",
			       hostPtr);
	} else if (h) {
		memreg__ptrmap_del(&rt->hostmem, hostPtr);
		memreg_unregister(rt->mctx, h->handle);
		memreg__acl_freed_note(hostPtr, "aclrtFreeHost");
	} else {
		ret = memreg__acl_bad_pointer("hostPtr", hostPtr, true,
					      "free");
	}
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	munmap(hostPtr, h->len);
	free(h);
	return acl_ret(ACL_SUCCESS);
}

void memreg__acl_hostmem_release(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct ptrmap_slot *slot;
	struct acl_hostmem *h;
	size_t i;

	/* Like device memory, host memory ends with the runtime. */
	for (i = 0; rt->hostmem.slots && i <= rt->hostmem.mask; i++) {
		slot = &rt->hostmem.slots[i];
		h = slot->val;
		if (!slot->key)
			continue;
		memreg_unregister(rt->mctx, h->handle);
		if (!h->borrowed) {
			memreg__acl_freed_note((void *)slot->key,
					       "aclFinalize");
			munmap((void *)slot->key, h->len);
		}
		free(h);
	}
	memreg__ptrmap_clear(&rt->hostmem);
}

/* The buffer of the table that @p + @len overlaps, or NULL; rt.lock held. */
static const void *hostmem_overlap(uintptr_t a, size_t len)
{
	const struct ptrmap *m = &memreg__acl_rt.hostmem;
	const struct acl_hostmem *h;
	uintptr_t start;
	size_t i;

	for (i = 0; m->slots && i <= m->mask; i++) {
		if (!m->slots[i].key)
			continue;
		h = m->slots[i].val;
		start = (uintptr_t)m->slots[i].key;
		if (a < start + h->len && start < a + len)
			return m->slots[i].key;
	}
	return NULL;
}

/* The buffer of the table holding @p, or NULL; rt.lock held. */
static const void *hostmem_holding(const void *p)
{
	return hostmem_overlap((uintptr_t)p, 1);
}

/*
 * The table is keyed by each buffer's start: a pointer inside one is
 * found by walking it.  aclrtPointerGetAttributes and the host register
 * calls ask, and a program has few pinned buffers.
 */
bool memreg__acl_hostmem_contains(const void *p)
{
	return hostmem_holding(p);
}

static aclError host_register(void *ptr, uint64_t size, bool readonly)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)ptr, first, end;
	struct acl_hostmem *h;
	const void *other;
	aclError ret;
	int err;

	if (!ptr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
	if (!size)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (size > UINTPTR_MAX - a || a + size > UINTPTR_MAX - page)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%p + %llu runs past the end of the address space",
				ptr, (unsigned long long)size);
	first = a & ~(page - 1);
	end = (a + size + page - 1) & ~(page - 1);
	h = calloc(1, sizeof(*h));
	if (!h)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	h->len = size;
	h->borrowed = true;
	if (!memreg__acl_lock_context()) {
		free(h);
		return ACL_ERROR_RT_CONTEXT_NULL;
	}
	other = hostmem_overlap(a, size);
	if (other) {
		ret = acl_fail(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
			       "%p + %llu overlaps the page-locked buffer at %p",
			       ptr, (unsigned long long)size, other);
		goto out;
	}
	if (memreg__acl_devmem_find(ptr, size)) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is device memory, not host memory", ptr);
		goto out;
	}
	err = memreg_register(rt->mctx, (void *)first, end - first,
			      MEMREG_MEM_HOST, 0, &h->handle);
	if (err) {
		ret = memreg__acl_error(err);
		if (readonly && -err == MEMREG_E_FAULT)
			acl_fail(ret,
				 "%p + %llu: the module pins for writing, and the pages are read-only",
				 ptr, (unsigned long long)size);
		goto out;
	}
	if (memreg__ptrmap_put(&rt->hostmem, ptr, h)) {
		memreg_unregister(rt->mctx, h->handle);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	h = NULL;
	ret = ACL_SUCCESS;
out:
	pthread_mutex_unlock(&rt->lock);
	free(h);
	return ret;
}

aclError aclrtHostRegister(void *ptr, uint64_t size,
			   aclrtHostRegisterType type, void **devPtr)
{
	aclError ret;

	if (!ptr || !devPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					ptr ? "devPtr" : "ptr"));
	if (type == ACL_HOST_REGISTER_IOMEMORY)
		return acl_ret(acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
					"ACL_HOST_REGISTER_IOMEMORY: the emulated devices have no IO memory to map"));
	if (type != ACL_HOST_REGISTER_MAPPED &&
	    type != ACL_HOST_REGISTER_READONLY)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"type %d is no aclrtHostRegisterType",
					(int)type));
	ret = host_register(ptr, size, type == ACL_HOST_REGISTER_READONLY);
	if (!ret)
		*devPtr = ptr;
	return acl_ret(ret);
}

aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
	const uint32_t known = ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY |
			       ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;

	if (flag & ~known)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag 0x%x: unknown bits 0x%x", flag,
					flag & ~known));
	if (flag & ACL_HOST_REG_IOMEMORY)
		return acl_ret(acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
					"ACL_HOST_REG_IOMEMORY: the emulated devices have no IO memory to map"));
	/* Every registration here is pinned and mapped: the other bits agree. */
	return acl_ret(host_register(ptr, size,
				     flag & ACL_HOST_REG_READONLY));
}

aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	const void *buf;

	if (!pHost || !pDevice)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					pHost ? "pDevice" : "pHost"));
	if (flag)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u: reserved, must be 0", flag));
	pthread_mutex_lock(&rt->lock);
	buf = hostmem_holding(pHost);
	pthread_mutex_unlock(&rt->lock);
	if (!buf)
		return acl_ret(acl_fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
					"%p is in no page-locked buffer (aclrtHostRegister, aclrtMallocHost)",
					pHost));
	*pDevice = pHost;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtHostUnregister(void *ptr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_hostmem *h;
	aclError ret = ACL_SUCCESS;

	if (!ptr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL"));
	pthread_mutex_lock(&rt->lock);
	h = memreg__ptrmap_get(&rt->hostmem, ptr);
	if (h && !h->borrowed) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is from aclrtMallocHost: aclrtFreeHost frees it",
			       ptr);
	} else if (h) {
		memreg__ptrmap_del(&rt->hostmem, ptr);
		memreg_unregister(rt->mctx, h->handle);
		free(h);
	} else {
		ret = acl_fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED,
			       "%p is not the start of an aclrtHostRegister range",
			       ptr);
	}
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}
