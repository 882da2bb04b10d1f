// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtMallocHost, aclrtFreeHost: page-locked host memory.  The pages are
 * the process's own anonymous memory, pinned by registering them with the
 * module as HOST memory, so they are charged to RLIMIT_MEMLOCK and show
 * in the module's accounting (and `memreg region`) like any registration.
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
	size_t len;
	uint64_t handle;
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
	h = memreg__ptrmap_del(&rt->hostmem, hostPtr);
	/* Unpinned before the pages go, so no pin outlives its mapping. */
	if (h) {
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
		memreg__acl_freed_note((void *)slot->key, "aclFinalize");
		munmap((void *)slot->key, h->len);
		free(h);
	}
	memreg__ptrmap_clear(&rt->hostmem);
}

/*
 * The table is keyed by each buffer's start: a pointer inside one is
 * found by walking it.  Only aclrtPointerGetAttributes asks, and a
 * program has few pinned buffers.
 */
bool memreg__acl_hostmem_contains(const void *p)
{
	const struct ptrmap *m = &memreg__acl_rt.hostmem;
	const struct acl_hostmem *h;
	uintptr_t a = (uintptr_t)p, start;
	size_t i;

	if (!m->slots)
		return false;
	for (i = 0; i <= m->mask; i++) {
		if (!m->slots[i].key)
			continue;
		h = m->slots[i].val;
		start = (uintptr_t)m->slots[i].key;
		if (a >= start && a - start < h->len)
			return true;
	}
	return false;
}
