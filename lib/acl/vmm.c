// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * CANN's virtual memory management: aclrtReserveMemAddress and
 * aclrtReleaseMemAddress, aclrtMallocPhysical and aclrtFreePhysical,
 * aclrtMapMem and aclrtUnmapMem, aclrtMemGetAllocationGranularity; and
 * the shareable handles that give the physical memory to other
 * processes: aclrtMemExportToShareableHandle, aclrtMemSetPidToShareableHandle,
 * aclrtMemImportFromShareableHandle.
 *
 * A reserved range is an anonymous PROT_NONE mapping: the addresses are
 * the process's, nothing is behind them.  Physical memory is a device
 * allocation whose own mapping is dropped at once, and a dma-buf of all
 * of it (memreg_dev_export) that the handle keeps open: the core API maps
 * an allocation only where mmap chooses, a dma-buf can be mapped with
 * MAP_FIXED over part of a reservation.  An imported handle is the
 * dma-buf fd another process's name gave.  Unmapping puts PROT_NONE back
 * over the range in one mmap, so the reservation never has a hole another
 * mmap could take.
 *
 * A shareable handle is a name of the dma-buf with MEMREG_IPC_SHORT_TOKEN:
 * its token's first 8 bytes are the handle, the last 8 are zero.  The
 * kernel checks the importer's pid, as for aclrtIpcMem*.
 *
 * Mappings join the device memory table, so copies, memsets and value
 * writes take them as device memory; a copy may run across mappings that
 * follow each other in one range (memreg__acl_devmem_covers).  Every
 * table here is under rt.lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "ipc.h"
#include "memory.h"
#include "ptrmap.h"
#include "runtime.h"
#include "vmm.h"
#include "../core/layers.h"

/* CANN's granularity: 2 MiB, the device's huge page. */
#define VMM_GRANULE		(2UL << 20)
#define VMM_GIB			(1UL << 30)
/*
 * Where CANN lets a program choose the start of a range: 16 TiB to
 * 24 TiB (its devices' address window; a host has room there too).
 */
#define VMM_EXPECT_LOW		(16ULL << 40)
#define VMM_EXPECT_HIGH		(24ULL << 40)
/* aclrtReserveMemAddress's flags: 0 normal pages, 1 huge pages. */
#define VMM_RESERVE_HUGE	1U

/*
 * A physical handle: what aclrtDrvMemHandle points at.  @fd is a dma-buf
 * of the whole memory, @len bytes; for this process's own memory @mem is
 * the allocation (its mapping gone: @mem.addr is NULL), for an import
 * @imported is set and @mem means nothing.  @maps counts the mappings;
 * a handle freed while mapped (@freed) goes with its last mapping.
 */
struct acl_physmem {
	struct memreg_dev_mem mem;
	size_t size;		/* as aclrtMallocPhysical was asked */
	size_t len;		/* the dma-buf's size */
	int fd;
	int32_t device;
	bool imported;
	bool exported;		/* @token is a live name of this process */
	bool freed;
	unsigned int refs;	/* the program's: 1, +1 a retain, -1 a free */
	unsigned int maps;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
};

struct acl_reservation {
	uintptr_t addr;
	size_t size;		/* rounded up to the granule */
	void *map;		/* what was mmap'd, alignment slack included */
	size_t map_len;
};

static struct ptrmap handles;		/* live handles: itself -> itself */
static struct acl_reservation *resv;
static size_t nr_resv, cap_resv;

static size_t align_up(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/* The reservation holding [p, p + len), or NULL. */
static struct acl_reservation *resv_find(uintptr_t p, size_t len)
{
	size_t i;

	for (i = 0; i < nr_resv; i++)
		if (p >= resv[i].addr && p - resv[i].addr < resv[i].size &&
		    len <= resv[i].size - (p - resv[i].addr))
			return &resv[i];
	return NULL;
}

/* Is any mapping in [p, p + len)? */
static bool mapped_in(uintptr_t p, size_t len)
{
	struct acl_devmem **all;
	uintptr_t a;
	size_t i, n;

	all = memreg__acl_devmem_all(&n);
	for (i = 0; i < n; i++) {
		if (!all[i]->vmm)
			continue;
		a = (uintptr_t)all[i]->mem.addr;
		if (a < p + len && p < a + all[i]->mem.len)
			return true;
	}
	return false;
}

/*
 * The alignment CANN gives a range: at least the granule, the size's
 * power of two up to 1 GiB, and 1 GiB beyond.
 */
static size_t resv_align(size_t size)
{
	size_t a = VMM_GRANULE;

	while (a < size && a < VMM_GIB)
		a <<= 1;
	return a;
}

/* The module's view of an aclrtMemAttr: 0 usable, else the aclError. */
static aclError check_attr(aclrtMemAttr attr)
{
	switch (attr) {
	/*
	 * CANN allocates NORMAL as HUGE here too; P2P is the same memory
	 * on an emulated device.
	 */
	case ACL_HBM_MEM_HUGE:
	case ACL_HBM_MEM_NORMAL:
	case ACL_HBM_MEM_P2P_HUGE:
	case ACL_HBM_MEM_P2P_NORMAL:
	case ACL_MEM_HUGE:
	case ACL_MEM_NORMAL:
	case ACL_MEM_P2P_HUGE:
	case ACL_MEM_P2P_NORMAL:
		return ACL_SUCCESS;
	case ACL_HBM_MEM_HUGE1G:
	case ACL_HBM_MEM_P2P_HUGE1G:
	case ACL_MEM_HUGE1G:
	case ACL_MEM_P2P_HUGE1G:
		/* The emulated devices have no 1 GiB pages. */
		return acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"memAttr %d asks for 1 GiB pages, which the emulated devices do not have",
				(int)attr);
	default:
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"memAttr %d is no aclrtMemAttr", (int)attr);
	}
}

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
					  aclrtMemGranularityOptions option,
					  size_t *granularity)
{
	aclError ret;

	if (!prop || !granularity)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					prop ? "granularity" : "prop"));
	if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM &&
	    option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"option %d is no aclrtMemGranularityOptions",
					(int)option));
	ret = check_attr(prop->memAttr);
	if (ret)
		return acl_ret(ret);
	/* One size of page: the least and the best are the same. */
	*granularity = VMM_GRANULE;
	return acl_ret(ACL_SUCCESS);
}

static aclError reserve(void **virPtr, size_t size, size_t alignment,
			void *expectPtr, uint64_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_reservation r;
	uintptr_t want = (uintptr_t)expectPtr, start;
	size_t align, slack;
	void *p;

	/* alignment is reserved by CANN: 0 only. */
	if (!virPtr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
	if (!size)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (alignment)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"alignment %zu: reserved, must be 0", alignment);
	if (flags > VMM_RESERVE_HUGE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags 0x%llx is no reservation flag",
				(unsigned long long)flags);
	if (size > SIZE_MAX / 2 - VMM_GIB)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"size %zu is too large", size);
	size = align_up(size, VMM_GRANULE);
	align = resv_align(size);
	if (expectPtr) {
		if (want % align)
			return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"%p is not aligned to %zu bytes",
					expectPtr, align);
		if (want < VMM_EXPECT_LOW || want > VMM_EXPECT_HIGH ||
		    size > VMM_EXPECT_HIGH - want)
			return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
					"%p + %zu is outside 16 TiB .. 24 TiB",
					expectPtr, size);
		/* Never over what the process has there already. */
		p = mmap(expectPtr, size, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
			 MAP_FIXED_NOREPLACE, -1, 0);
		if (p == MAP_FAILED)
			return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
					"%p + %zu: %s", expectPtr, size,
					strerror(errno));
		if (p != expectPtr) {
			/* A kernel before 4.17 took it as a hint. */
			munmap(p, size);
			return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
					"%p + %zu is in use", expectPtr, size);
		}
		r = (struct acl_reservation){ want, size, p, size };
	} else {
		/* Room for the alignment, the slack unmapped after. */
		p = mmap(NULL, size + align, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
					"%zu bytes of addresses: %s", size,
					strerror(errno));
		start = align_up((uintptr_t)p, align);
		slack = start - (uintptr_t)p;
		if (slack)
			munmap(p, slack);
		munmap((void *)(start + size), align - slack);
		r = (struct acl_reservation){ start, size, (void *)start,
					      size };
	}

	pthread_mutex_lock(&rt->lock);
	if (nr_resv == cap_resv) {
		size_t cap = cap_resv ? 2 * cap_resv : 16;
		void *n = realloc(resv, cap * sizeof(*resv));

		if (!n) {
			pthread_mutex_unlock(&rt->lock);
			munmap(r.map, r.map_len);
			return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		}
		resv = n;
		cap_resv = cap;
	}
	resv[nr_resv++] = r;
	pthread_mutex_unlock(&rt->lock);
	*virPtr = (void *)r.addr;
	return ACL_SUCCESS;
}

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment,
				void *expectPtr, uint64_t flags)
{
	return acl_ret(reserve(virPtr, size, alignment, expectPtr, flags));
}

aclError aclrtReleaseMemAddress(void *virPtr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_reservation *r;
	aclError ret = ACL_SUCCESS;

	if (!virPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"virPtr is NULL"));
	pthread_mutex_lock(&rt->lock);
	r = resv_find((uintptr_t)virPtr, 1);
	if (!r || r->addr != (uintptr_t)virPtr) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not a reserved range", virPtr);
	} else if (mapped_in(r->addr, r->size)) {
		/* Its memory would stay mapped, accounted for nowhere. */
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "%p still has memory mapped: unmap it first",
			       virPtr);
	} else {
		munmap(r->map, r->map_len);
		*r = resv[--nr_resv];
	}
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/* Let the memory go: the name, the dma-buf, the allocation; rt.lock held. */
static void phys_release(struct acl_physmem *h)
{
	struct acl_runtime *rt = &memreg__acl_rt;

	if (h->exported)
		memreg_ipc_close(rt->mctx, h->token);
	close(h->fd);
	/*
	 * As CANN's physical memory: what other processes imported stays
	 * theirs until they free it too (the dma-bufs keep the pages, still
	 * charged to this process), so the exports are not revoked.
	 */
	if (!h->imported)
		memreg__dev_free_handle(rt->mctx, h->mem.handle,
					MEMREG_DEV_FREE_KEEP_EXPORTS);
	free(h);
}

static aclError malloc_physical(aclrtDrvMemHandle *handle, size_t size,
				const aclrtPhysicalMemProp *prop,
				uint64_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_physmem *h;
	aclError ret;
	size_t len;
	int err;

	if (!handle || !prop)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				handle ? "prop" : "handle");
	if (!size || size > SIZE_MAX - VMM_GRANULE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				size ? "size %zu is too large" : "size is %zu",
				size);
	if (flags)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags 0x%llx: reserved, must be 0",
				(unsigned long long)flags);
	if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"prop->handleType %d: only ACL_MEM_HANDLE_TYPE_NONE",
				(int)prop->handleType);
	if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"prop->allocationType %d: only ACL_MEM_ALLOCATION_TYPE_PINNED",
				(int)prop->allocationType);
	if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return prop->location.type == ACL_MEM_LOCATION_TYPE_HOST ||
		       prop->location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA ?
		       acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"physical host memory is not emulated") :
		       acl_fail(ACL_ERROR_INVALID_PARAM,
				"prop->location.type %d is no location type",
				(int)prop->location.type);
	ret = check_attr(prop->memAttr);
	if (ret)
		return ret;
	/* Whole granules, so that mappings side by side stay aligned. */
	len = align_up(size, VMM_GRANULE);

	h = calloc(1, sizeof(*h));
	if (!h)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (!memreg__acl_lock_context()) {
		free(h);
		return ACL_ERROR_RT_CONTEXT_NULL;
	}
	if (prop->location.id >= rt->nr_devices) {
		ret = acl_fail(ACL_ERROR_RT_INVALID_DEVICEID,
			       "device %u does not exist", prop->location.id);
		goto err;
	}
	/*
	 * HUGE_FIRST: 2 MiB chunks where the memory is contiguous, as
	 * CANN's physical memory is, 4 KiB pages where it no longer is.
	 */
	err = memreg_dev_alloc(rt->mctx, prop->location.id,
			       MEMREG_DEV_HUGE_FIRST, len, &h->mem);
	if (err) {
		ret = memreg__acl_error(err);
		goto err;
	}
	err = memreg_dev_export(rt->mctx, &h->mem, 0, h->mem.len, &h->fd);
	if (err) {
		memreg_dev_free(rt->mctx, &h->mem);
		ret = memreg__acl_ipc_error(err);
		goto err;
	}
	/* Not mapped where it was allocated: only where aclrtMapMem says. */
	munmap(h->mem.addr, h->mem.len);
	h->mem.addr = NULL;
	h->size = size;
	h->len = h->mem.len;
	h->refs = 1;
	h->device = (int32_t)prop->location.id;
	if (memreg__ptrmap_put(&handles, h, h)) {
		phys_release(h);
		pthread_mutex_unlock(&rt->lock);
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	pthread_mutex_unlock(&rt->lock);
	*handle = h;
	return ACL_SUCCESS;
err:
	pthread_mutex_unlock(&rt->lock);
	free(h);
	return ret;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
			     const aclrtPhysicalMemProp *prop, uint64_t flags)
{
	return acl_ret(malloc_physical(handle, size, prop, flags));
}

/*
 * The handle is gone for the program at once; the memory when its last
 * mapping is (as CUDA's cuMemRelease: CANN's order is unmap first and
 * says nothing of the other).
 */
aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_physmem *h;

	if (!handle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"handle is NULL"));
	pthread_mutex_lock(&rt->lock);
	h = memreg__ptrmap_get(&handles, handle);
	if (!h) {
		pthread_mutex_unlock(&rt->lock);
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"%p is not a physical memory handle",
					handle));
	}
	/* A reference aclrtMemRetainAllocationHandle gave: one fewer. */
	if (--h->refs) {
		pthread_mutex_unlock(&rt->lock);
		return acl_ret(ACL_SUCCESS);
	}
	memreg__ptrmap_del(&handles, handle);
	if (h->maps)
		h->freed = true;
	else
		phys_release(h);
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ACL_SUCCESS);
}

static aclError map_mem(void *virPtr, size_t size, size_t offset,
			aclrtDrvMemHandle handle, uint64_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uintptr_t p = (uintptr_t)virPtr;
	struct acl_physmem *h;
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;
	void *q;

	/* offset and flags are reserved by CANN: 0 only. */
	if (!virPtr || !handle)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				virPtr ? "handle" : "virPtr");
	if (!size)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (offset || flags)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %llu: reserved, must be 0",
				offset ? "offset" : "flags",
				(unsigned long long)(offset ? offset : flags));
	m = calloc(1, sizeof(*m));
	if (!m)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	pthread_mutex_lock(&rt->lock);
	h = memreg__ptrmap_get(&handles, handle);
	if (!h) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not a physical memory handle", handle);
		goto out;
	}
	/* All of the memory, as CANN asks: the size it was allocated with. */
	if (size != h->size && size != h->len) {
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "size %zu is not the handle's %zu", size,
			       h->len);
		goto out;
	}
	if (p % VMM_GRANULE || !resv_find(p, h->len)) {
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "%p + %zu: not on 2 MiB in one reserved range",
			       virPtr, h->len);
		goto out;
	}
	if (mapped_in(p, h->len)) {
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "%p + %zu overlaps a mapping", virPtr, h->len);
		goto out;
	}
	q = memreg__dmabuf_mmap_fixed(h->fd, virPtr, h->len, 0);
	if (q == MAP_FAILED) {
		ret = acl_fail(errno == ENODEV ? ACL_ERROR_RT_PARAM_INVALID :
			       ACL_ERROR_RT_MEMORY_ALLOCATION,
			       "mmap at %p: %s%s", virPtr, strerror(errno),
			       errno == ENODEV ?
			       " (the exporter freed the memory)" : "");
		/*
		 * A failed MAP_FIXED may have unmapped the range: reserve it
		 * again, unless the kernel kept it (then this fails).
		 */
		mmap(virPtr, h->len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
		     MAP_FIXED_NOREPLACE, -1, 0);
		goto out;
	}
	m->mem.addr = virPtr;
	m->mem.len = h->len;
	m->mem.handle = h->mem.handle;
	m->mem.device = (uint32_t)h->device;
	m->vmm = h;
	m->fd = -1;
	if (memreg__acl_devmem_insert(m)) {
		mmap(virPtr, h->len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		     -1, 0);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	h->maps++;
	m = NULL;
out:
	pthread_mutex_unlock(&rt->lock);
	free(m);
	return ret;
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset,
		     aclrtDrvMemHandle handle, uint64_t flags)
{
	return acl_ret(map_mem(virPtr, size, offset, handle, flags));
}

/* Take @m out and put the reservation back over it; rt.lock held. */
static void unmap_one(struct acl_devmem *m)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_physmem *h = m->vmm;

	/* A stream task may be copying to or from it: let it finish. */
	pthread_rwlock_wrlock(&rt->devmem_use);
	memreg__acl_devmem_remove(m);
	/* One call replaces the mapping: no hole in the range, ever. */
	mmap(m->mem.addr, m->mem.len, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
	pthread_rwlock_unlock(&rt->devmem_use);
	if (--h->maps == 0 && h->freed)
		phys_release(h);
	free(m);
}

aclError aclrtUnmapMem(void *virPtr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;

	if (!virPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"virPtr is NULL"));
	pthread_mutex_lock(&rt->lock);
	m = memreg__acl_devmem_find(virPtr, 1);
	if (!m || !m->vmm || m->mem.addr != virPtr)
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not where aclrtMapMem mapped memory",
			       virPtr);
	else
		unmap_one(m);
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/* The token a shareable handle stands for: its 8 bytes, then zeros. */
static void handle_token(uint64_t shareable, uint8_t *token)
{
	memset(token, 0, MEMREG_IPC_TOKEN_LEN);
	memcpy(token, &shareable, sizeof(shareable));
}

/* The live handle of this process holding @token, or NULL; rt.lock held. */
static struct acl_physmem *find_token(const uint8_t *token, bool imported)
{
	size_t n = memreg__ptrmap_values(&handles, NULL, 0), i;
	struct acl_physmem *h, *found = NULL;
	void **all;

	if (!n)
		return NULL;
	all = malloc(n * sizeof(*all));
	if (!all)
		return NULL;
	memreg__ptrmap_values(&handles, all, n);
	for (i = 0; i < n && !found; i++) {
		h = all[i];
		if (h->imported == imported && (h->exported || h->imported) &&
		    !memcmp(h->token, token, MEMREG_IPC_TOKEN_LEN))
			found = h;
	}
	free(all);
	return found;
}

/*
 * Name @handle's memory for other processes: a 64-bit name into
 * *@shareableHandle, or (@shareableHandle NULL) the module's whole
 * 16-byte name into @whole, for a fabric handle.
 */
static aclError export_shareable(aclrtDrvMemHandle handle,
				 aclrtMemHandleType handleType, uint64_t flags,
				 uint8_t *whole, uint64_t *shareableHandle)
{
	static const uint8_t zero[MEMREG_IPC_TOKEN_LEN - sizeof(uint64_t)];
	struct acl_runtime *rt = &memreg__acl_rt;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_physmem *h;
	aclError ret = ACL_SUCCESS;
	unsigned int kflags = whole ? 0 : MEMREG_IPC_SHORT_TOKEN;
	int err;

	if (!handle || (!shareableHandle && !whole))
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				handle ? "shareableHandle" : "handle");
	if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"handleType %d: only ACL_MEM_HANDLE_TYPE_NONE",
				(int)handleType);
	if (flags & ~ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags 0x%llx: only ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
				(unsigned long long)flags);
	/* CANN's default checks the importer against the pid list. */
	if (flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		kflags |= MEMREG_IPC_ANY_PID;
	if (!memreg__acl_lock_context())
		return ACL_ERROR_RT_CONTEXT_NULL;
	h = memreg__ptrmap_get(&handles, handle);
	if (!h) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not a physical memory handle", handle);
		goto out;
	}
	/* One shareable handle per handle, of this process's memory only. */
	if (h->imported || h->exported) {
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "%p is %s", handle, h->imported ?
			       "another process's memory" :
			       "exported already");
		goto out;
	}
	err = memreg_ipc_export(rt->mctx, h->fd, kflags, token);
	if (err) {
		/* A module from before SHORT_TOKEN refuses the flag. */
		ret = -err == MEMREG_E_INVAL ?
		      acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			       "the memreg module has no 64-bit IPC names") :
		      memreg__acl_ipc_error(err);
		goto out;
	}
	if (!whole && memcmp(token + sizeof(uint64_t), zero, sizeof(zero))) {
		memreg_ipc_close(rt->mctx, token);
		ret = acl_fail(ACL_ERROR_RT_DRV_INTERNAL_ERROR,
			       "the module's name does not fit 64 bits");
		goto out;
	}
	memcpy(h->token, token, sizeof(token));
	h->exported = true;
	if (whole)
		memcpy(whole, token, sizeof(token));
	else
		memcpy(shareableHandle, token, sizeof(*shareableHandle));
out:
	pthread_mutex_unlock(&rt->lock);
	return ret;
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle,
					 aclrtMemHandleType handleType,
					 uint64_t flags,
					 uint64_t *shareableHandle)
{
	return acl_ret(export_shareable(handle, handleType, flags, NULL,
					shareableHandle));
}

static aclError set_pids(const uint8_t *token, int32_t *pid, size_t pidNum)
{
	int err;

	if (!pid || !pidNum)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s",
				!pid ? "pid is NULL" : "pidNum is 0");
	if (!memreg__acl_lock_context())
		return ACL_ERROR_RT_CONTEXT_NULL;
	/* The module knows which names are this process's: ENOENT if not. */
	err = memreg_ipc_allow(memreg__acl_rt.mctx, token, pid, pidNum);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return err ? memreg__acl_ipc_error(err) : ACL_SUCCESS;
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle,
					 int32_t *pid, size_t pidNum)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN];

	if (!shareableHandle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"shareableHandle is 0"));
	handle_token(shareableHandle, token);
	return acl_ret(set_pids(token, pid, pidNum));
}

/* @token: the module's name; @name: the handle as the caller knows it. */
static aclError import_shareable(const uint8_t *token, const char *name,
				 int32_t deviceId, aclrtDrvMemHandle *handle)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_physmem *h;
	aclError ret = ACL_SUCCESS;
	size_t len;
	void *p;
	int fd, err;

	h = calloc(1, sizeof(*h));
	if (!h)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (!memreg__acl_lock_context()) {
		free(h);
		return ACL_ERROR_RT_CONTEXT_NULL;
	}
	if (deviceId < 0 || (uint32_t)deviceId >= rt->nr_devices) {
		ret = acl_fail(ACL_ERROR_RT_INVALID_DEVICEID,
			       "device %d does not exist", deviceId);
		goto out;
	}
	/*
	 * CANN shares between processes only, and one handle per shareable
	 * handle in a process.
	 */
	if (find_token(token, false) || find_token(token, true)) {
		ret = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "%s is %s by this process already", name,
			       find_token(token, true) ? "imported" :
			       "exported");
		goto out;
	}
	err = memreg_ipc_import(rt->mctx, token, &fd, &len);
	if (err) {
		ret = memreg__acl_ipc_error(err);
		goto out;
	}
	/*
	 * CANN refuses memory its exporter freed at the import; here the
	 * dma-buf is revoked, which only a mapping tells.
	 */
	p = memreg__dmabuf_mmap(fd, len);
	if (p == MAP_FAILED) {
		ret = acl_fail(errno == ENODEV ? ACL_ERROR_RT_PARAM_INVALID :
			       ACL_ERROR_RT_MEMORY_ALLOCATION,
			       "mmap of %s: %s", name, strerror(errno));
		close(fd);
		goto out;
	}
	munmap(p, len);
	h->fd = fd;
	h->size = len;
	h->len = len;
	h->device = deviceId;
	h->refs = 1;
	h->imported = true;
	memcpy(h->token, token, MEMREG_IPC_TOKEN_LEN);
	if (memreg__ptrmap_put(&handles, h, h)) {
		close(fd);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	*handle = h;
	h = NULL;
out:
	pthread_mutex_unlock(&rt->lock);
	free(h);
	return ret;
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle,
					   int32_t deviceId,
					   aclrtDrvMemHandle *handle)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	char name[24];

	if (!shareableHandle || !handle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s",
					handle ? "shareableHandle is 0" :
					"handle is NULL"));
	handle_token(shareableHandle, token);
	snprintf(name, sizeof(name), "%#llx",
		 (unsigned long long)shareableHandle);
	return acl_ret(import_shareable(token, name, deviceId, handle));
}

/*
 * A fabric handle (ACL_MEM_SHARE_HANDLE_TYPE_FABRIC): CANN's 128 bytes
 * name memory across its fabric; here they carry the module's whole
 * 16-byte name (not the 8 bytes of a DEFAULT handle) after a tag, so that
 * bytes from elsewhere are refused as no handle rather than looked up.
 * The rest is zero.
 */
static const uint8_t fabric_tag[8] = { 'M', 'E', 'M', 'R', 'E', 'G', 'F', '1' };

static bool fabric_token(const aclrtMemFabricHandle *f, uint8_t *token)
{
	size_t i;

	if (memcmp(f->data, fabric_tag, sizeof(fabric_tag)))
		return false;
	for (i = sizeof(fabric_tag) + MEMREG_IPC_TOKEN_LEN;
	     i < sizeof(f->data); i++)
		if (f->data[i])
			return false;
	memcpy(token, f->data + sizeof(fabric_tag), MEMREG_IPC_TOKEN_LEN);
	return true;
}

/* The module's name a V2 handle stands for, or an error. */
static aclError v2_token(const void *shareableHandle,
			 aclrtMemSharedHandleType shareType, uint8_t *token,
			 char *name, size_t name_len)
{
	uint64_t v;

	if (!shareableHandle)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"shareableHandle is NULL");
	switch (shareType) {
	case ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT:
		memcpy(&v, shareableHandle, sizeof(v));
		if (!v)
			return acl_fail(ACL_ERROR_INVALID_PARAM,
					"shareableHandle is 0");
		handle_token(v, token);
		snprintf(name, name_len, "%#llx", (unsigned long long)v);
		return ACL_SUCCESS;
	case ACL_MEM_SHARE_HANDLE_TYPE_FABRIC:
		if (!fabric_token(shareableHandle, token))
			return acl_fail(ACL_ERROR_INVALID_PARAM,
					"the fabric handle was not made by aclrtMemExportToShareableHandleV2");
		snprintf(name, name_len, "the fabric handle");
		return ACL_SUCCESS;
	default:
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"shareType %d is no aclrtMemSharedHandleType",
				(int)shareType);
	}
}

aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle,
					   uint64_t flags,
					   aclrtMemSharedHandleType shareType,
					   void *shareableHandle)
{
	aclrtMemFabricHandle *f = shareableHandle;
	uint64_t v;
	aclError ret;

	if (!shareableHandle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"shareableHandle is NULL"));
	switch (shareType) {
	case ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT:
		ret = export_shareable(handle, ACL_MEM_HANDLE_TYPE_NONE, flags,
				       0, &v);
		if (!ret)
			memcpy(shareableHandle, &v, sizeof(v));
		return acl_ret(ret);
	case ACL_MEM_SHARE_HANDLE_TYPE_FABRIC:
		memset(f, 0, sizeof(*f));
		ret = export_shareable(handle, ACL_MEM_HANDLE_TYPE_NONE, flags,
				       f->data + sizeof(fabric_tag), NULL);
		if (!ret)
			memcpy(f->data, fabric_tag, sizeof(fabric_tag));
		return acl_ret(ret);
	default:
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"shareType %d is no aclrtMemSharedHandleType",
					(int)shareType));
	}
}

aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
					     aclrtMemSharedHandleType shareType,
					     uint64_t flags,
					     aclrtDrvMemHandle *handle)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_context *ctx;
	int32_t device;
	char name[24];
	aclError ret;

	ret = v2_token(shareableHandle, shareType, token, name, sizeof(name));
	if (ret)
		return acl_ret(ret);
	if (!handle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"handle is NULL"));
	if (flags)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flags 0x%llx: reserved, must be 0",
					(unsigned long long)flags));
	/* V2 names no device: the memory is the current device's. */
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	device = ctx->device;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return acl_ret(import_shareable(token, name, device, handle));
}

aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
					   aclrtMemSharedHandleType shareType,
					   int32_t *pid, size_t pidNum)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	char name[24];
	aclError ret;

	ret = v2_token(shareableHandle, shareType, token, name, sizeof(name));
	if (ret)
		return acl_ret(ret);
	return acl_ret(set_pids(token, pid, pidNum));
}

void memreg__acl_vmm_release(void)
{
	struct acl_devmem **all;
	size_t i, n;
	void **hs;

	/* The mappings first: they may hold handles freed already. */
	all = memreg__acl_devmem_all(&n);
	for (i = n; i-- > 0;) {
		all = memreg__acl_devmem_all(&n);
		if (i < n && all[i]->vmm)
			unmap_one(all[i]);
	}
	n = memreg__ptrmap_values(&handles, NULL, 0);
	hs = n ? malloc(n * sizeof(*hs)) : NULL;
	if (hs) {
		memreg__ptrmap_values(&handles, hs, n);
		for (i = 0; i < n; i++)
			phys_release(hs[i]);
		free(hs);
	}
	/*
	 * Out of memory for the walk: the handles' fds and allocations go
	 * with the module's descriptor, closed next.
	 */
	memreg__ptrmap_clear(&handles);
	for (i = 0; i < nr_resv; i++)
		munmap(resv[i].map, resv[i].map_len);
	free(resv);
	resv = NULL;
	nr_resv = 0;
	cap_resv = 0;
}

/*
 * As CUDA's cuMemRetainAllocationHandle: the handle of the memory mapped
 * at @virPtr (anywhere in the mapping), one more reference that
 * aclrtFreePhysical gives back.  A handle the program freed while it
 * stayed mapped comes back to life so.
 */
aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_physmem *h;
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;

	if (!virPtr || !handle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					virPtr ? "handle" : "virPtr"));
	pthread_mutex_lock(&rt->lock);
	m = memreg__acl_devmem_find(virPtr, 1);
	if (!m || !m->vmm) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not in memory aclrtMapMem mapped", virPtr);
		goto out;
	}
	h = m->vmm;
	if (h->freed) {
		if (memreg__ptrmap_put(&handles, h, h)) {
			ret = acl_fail(ACL_ERROR_BAD_ALLOC,
				       "out of host memory");
			goto out;
		}
		h->freed = false;
		h->refs = 0;
	}
	h->refs++;
	*handle = h;
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

static aclError check_access(const aclrtMemAccessDesc *d, uint32_t nr_devices)
{
	if (d->flags != ACL_RT_MEM_ACCESS_FLAGS_NONE &&
	    d->flags != ACL_RT_MEM_ACCESS_FLAGS_READ &&
	    d->flags != ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags %d is no aclrtMemAccessFlags",
				(int)d->flags);
	if (d->location.type == ACL_MEM_LOCATION_TYPE_HOST)
		return ACL_SUCCESS;
	if (d->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"location.type %d: a device or the host only",
				(int)d->location.type);
	if (d->location.id >= nr_devices)
		return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID,
				"device %u does not exist", d->location.id);
	return ACL_SUCCESS;
}

static void set_access(struct acl_devmem *m, const aclrtMemAccessDesc *d)
{
	uint32_t bit = 1U << d->location.id;
	bool rd = d->flags & ACL_RT_MEM_ACCESS_FLAGS_READ;
	bool wr = d->flags == ACL_RT_MEM_ACCESS_FLAGS_READWRITE;

	if (d->location.type == ACL_MEM_LOCATION_TYPE_HOST) {
		m->host_access = (uint8_t)d->flags;
		return;
	}
	m->read_devs = rd ? m->read_devs | bit : m->read_devs & ~bit;
	m->write_devs = wr ? m->write_devs | bit : m->write_devs & ~bit;
}

/*
 * Every mapping in [@virPtr, @virPtr + @size) gets @desc's access.  The
 * range is checked whole first (mapped throughout, every descriptor
 * valid), so a refused call changes nothing.
 */
aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc,
			   size_t count)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uintptr_t p = (uintptr_t)virPtr, end;
	aclError ret = ACL_SUCCESS;
	struct acl_devmem *m;
	size_t i;

	if (!virPtr || !desc)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					virPtr ? "desc" : "virPtr"));
	if (!size || !count)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is 0",
					size ? "count" : "size"));
	if (size > UINTPTR_MAX - p)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"%p + %zu wraps", virPtr, size));
	end = p + size;
	pthread_mutex_lock(&rt->lock);
	for (i = 0; i < count && !ret; i++)
		ret = check_access(&desc[i], rt->nr_devices);
	if (ret)
		goto out;
	for (; p < end; p = (uintptr_t)m->mem.addr + m->mem.len) {
		m = memreg__acl_devmem_find((void *)p, 1);
		if (!m || !m->vmm) {
			ret = acl_fail(ACL_ERROR_INVALID_PARAM,
				       "%p is not in memory aclrtMapMem mapped",
				       (void *)p);
			goto out;
		}
	}
	for (p = (uintptr_t)virPtr; p < end;
	     p = (uintptr_t)m->mem.addr + m->mem.len) {
		m = memreg__acl_devmem_find((void *)p, 1);
		for (i = 0; i < count; i++)
			set_access(m, &desc[i]);
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location,
			   uint64_t *flag)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclrtMemAccessDesc d = { .flags = ACL_RT_MEM_ACCESS_FLAGS_NONE };
	aclError ret;
	struct acl_devmem *m;
	uint32_t bit;

	if (!virPtr || !location || !flag)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					!virPtr ? "virPtr" :
					!location ? "location" : "flag"));
	d.location = *location;
	pthread_mutex_lock(&rt->lock);
	ret = check_access(&d, rt->nr_devices);
	if (ret)
		goto out;
	m = memreg__acl_devmem_find(virPtr, 1);
	if (!m || !m->vmm) {
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "%p is not in memory aclrtMapMem mapped", virPtr);
		goto out;
	}
	if (location->type == ACL_MEM_LOCATION_TYPE_HOST) {
		*flag = m->host_access;
	} else {
		bit = 1U << location->id;
		*flag = (m->write_devs & bit) ? ACL_RT_MEM_ACCESS_FLAGS_READWRITE :
			(m->read_devs & bit) ? ACL_RT_MEM_ACCESS_FLAGS_READ :
			ACL_RT_MEM_ACCESS_FLAGS_NONE;
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}
