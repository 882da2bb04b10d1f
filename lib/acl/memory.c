// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtMalloc, aclrtMallocAlign32, aclrtFree, aclrtGetMemInfo: device
 * memory of the current device, from the memreg module's emulated NPUs.
 *
 * Sizes as in CANN: the device gets ALIGN_UP(size, 32) + 32 bytes (the
 * 32 bytes of padding that operators may read past the end), without the
 * padding for aclrtMallocAlign32; the module rounds that up to its pages.
 * The address is page aligned, so also 64-byte aligned as CANN promises.
 *
 * The allocations are kept sorted by address: copies look up which
 * allocation (if any) a pointer falls in, to check a range or to find the
 * direction of ACL_MEMCPY_DEFAULT.
 */
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

#define ACL_MEM_ALIGN	32
#define ACL_MEM_PADDING	32

/* The low byte of a policy is the policy; the rest are flags. */
#define POLICY_BASE_MASK	0xffU
#define POLICY_FLAGS		(ACL_MEM_TYPE_LOW_BAND_WIDTH | \
				 ACL_MEM_TYPE_HIGH_BAND_WIDTH | \
				 ACL_MEM_ACCESS_USER_SPACE_READONLY)

/*
 * The module's policy for an ACL one; -1 for the 1 GiB-page policies,
 * which the emulated devices do not have.
 */
static int dev_policy(aclrtMemMallocPolicy policy)
{
	unsigned int p = (unsigned int)policy;

	/*
	 * Flags are accepted OR-ed to any policy (HIXL passes
	 * HIGH_BAND_WIDTH | HUGE_FIRST); an emulated device has one kind of
	 * memory, so they change nothing.  A value that is no policy gets
	 * the runtime's default, as in CANN.
	 */
	if (p & ~(POLICY_BASE_MASK | POLICY_FLAGS))
		return MEMREG_DEV_HUGE_FIRST;
	switch (p & POLICY_BASE_MASK) {
	case ACL_MEM_MALLOC_HUGE_ONLY:
	case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
		return MEMREG_DEV_HUGE_ONLY;
	case ACL_MEM_MALLOC_NORMAL_ONLY:
	case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
		return MEMREG_DEV_NORMAL_ONLY;
	case ACL_MEM_MALLOC_HUGE1G_ONLY:
	case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
		return -1;
	default:
		/* HUGE_FIRST, its P2P twin, and unknown values. */
		return MEMREG_DEV_HUGE_FIRST;
	}
}

/* Index of the first allocation at or above @addr; rt.lock held. */
static size_t lower_bound(const void *addr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	size_t lo = 0, hi = rt->nr_devmem, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((uintptr_t)rt->devmem[mid]->mem.addr < (uintptr_t)addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct acl_devmem *memreg__acl_devmem_find(const void *addr, size_t len)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m;
	uintptr_t p = (uintptr_t)addr, start;
	size_t i = lower_bound(addr);

	/* The allocation starting at @addr, or else the one before it. */
	if (i < rt->nr_devmem && rt->devmem[i]->mem.addr == addr)
		m = rt->devmem[i];
	else if (i > 0)
		m = rt->devmem[i - 1];
	else
		return NULL;
	start = (uintptr_t)m->mem.addr;
	if (p < start || p - start > m->mem.len || len > m->mem.len - (p - start))
		return NULL;
	return m;
}

/*
 * The addresses freed last, so that a refusal can say "already freed"
 * rather than "not from aclrtMalloc": the commonest mistake with a
 * pointer is using it twice.  A ring, so it costs nothing to keep; a
 * freed address given out again is live, and found as such first.
 * rt.lock held.
 */
#define FREED_RING	128

static struct {
	uintptr_t addr;
	const char *how;	/* "aclrtFree", "aclrtFreeHost", "aclFinalize" */
} freed[FREED_RING];
static unsigned int freed_next;

void memreg__acl_freed_note(const void *addr, const char *how)
{
	freed[freed_next].addr = (uintptr_t)addr;
	freed[freed_next].how = how;
	freed_next = (freed_next + 1) % FREED_RING;
}

/* Who freed @addr last, if it is still in the ring; else NULL. */
static const char *freed_by(const void *addr)
{
	unsigned int i, k;

	/* Newest first: an address may have been freed more than once. */
	for (i = 1; i <= FREED_RING; i++) {
		k = (freed_next + FREED_RING - i) % FREED_RING;
		if (freed[k].how && freed[k].addr == (uintptr_t)addr)
			return freed[k].how;
	}
	return NULL;
}

aclError memreg__acl_bad_pointer(const char *arg, const void *p,
				 bool host, const char *freer)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m = memreg__acl_devmem_find(p, 1);
	const char *how;

	if (!host && memreg__ptrmap_get(&rt->hostmem, p))
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p is host memory from aclrtMallocHost: %s it with aclrtFreeHost",
				arg, p, freer);
	if (m && m->imported)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p is another process's memory imported by aclrtIpcMemImportByKey: aclrtIpcMemClose unmaps it",
				arg, p);
	if (m && m->vmm)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p is an aclrtMapMem mapping: aclrtUnmapMem unmaps it",
				arg, p);
	if (m && host && m->mem.addr == p)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p is device memory from aclrtMalloc: %s it with aclrtFree",
				arg, p, freer);
	if (m)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p is inside the device allocation at %p (offset %zu), not its start",
				arg, p, m->mem.addr,
				(size_t)((uintptr_t)p - (uintptr_t)m->mem.addr));
	how = freed_by(p);
	if (how)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s %p was already freed (by %s)", arg, p, how);
	return acl_fail(ACL_ERROR_INVALID_PARAM,
			"%s %p was not returned by %s", arg, p,
			host ? "aclrtMallocHost" : "aclrtMalloc");
}

void memreg__acl_explain_range(aclError err, const char *arg, const void *p,
			       size_t len, const char *need)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m;
	const char *how;

	/* What is live first: a freed address may have been given out again. */
	pthread_mutex_lock(&rt->lock);
	m = memreg__acl_devmem_find(p, 1);
	how = freed_by(p);
	if (m)
		acl_fail(err,
			 "%s %p + %zu runs past the end of its device allocation (%zu bytes at %p)",
			 arg, p, len, m->mem.len, m->mem.addr);
	else if (memreg__ptrmap_get(&rt->hostmem, p))
		acl_fail(err,
			 "%s %p is host memory (aclrtMallocHost), but %s needs device memory there",
			 arg, p, need);
	else if (how)
		acl_fail(err, "%s %p was freed (by %s)", arg, p, how);
	else
		acl_fail(err,
			 "%s %p is not device memory (from aclrtMalloc), as %s needs",
			 arg, p, need);
	pthread_mutex_unlock(&rt->lock);
}

bool memreg__acl_is_devmem(const void *addr, size_t len)
{
	bool ret;

	pthread_mutex_lock(&memreg__acl_rt.lock);
	ret = memreg__acl_devmem_covers(addr, len);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return ret;
}

bool memreg__acl_devmem_covers(const void *addr, size_t len)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uintptr_t p = (uintptr_t)addr, end, m_end;
	struct acl_devmem *m;
	size_t i;

	if (memreg__acl_devmem_find(addr, len))
		return true;
	if (len > UINTPTR_MAX - p)
		return false;
	end = p + len;
	/* The mapping holding the first byte, then each one right after. */
	m = memreg__acl_devmem_find(addr, 1);
	if (!m || !m->vmm)
		return false;
	i = lower_bound(m->mem.addr);
	for (;;) {
		m_end = (uintptr_t)m->mem.addr + m->mem.len;
		if (m_end >= end)
			return true;
		if (++i == rt->nr_devmem)
			return false;
		m = rt->devmem[i];
		if (!m->vmm || (uintptr_t)m->mem.addr != m_end)
			return false;
	}
}

int memreg__acl_devmem_insert(struct acl_devmem *m)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	size_t i;

	if (rt->nr_devmem == rt->cap_devmem) {
		size_t cap = rt->cap_devmem ? 2 * rt->cap_devmem : 64;
		void *p = realloc(rt->devmem, cap * sizeof(*rt->devmem));

		if (!p)
			return -1;
		rt->devmem = p;
		rt->cap_devmem = cap;
	}
	i = lower_bound(m->mem.addr);
	memmove(&rt->devmem[i + 1], &rt->devmem[i],
		(rt->nr_devmem - i) * sizeof(*rt->devmem));
	rt->devmem[i] = m;
	rt->nr_devmem++;
	return 0;
}

static aclError dev_malloc(void **devPtr, size_t size,
			   aclrtMemMallocPolicy policy, size_t padding)
{
	struct acl_context *ctx;
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;
	size_t len;
	int pol, err;

	if (!devPtr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
	if (!size)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
	/* Rounding and padding must not wrap. */
	if (size > SIZE_MAX - ACL_MEM_ALIGN - ACL_MEM_PADDING)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"size %zu is too large to round up", size);
	pol = dev_policy(policy);
	/* The 1 GiB policies get no padding in CANN; they fail here anyway. */
	if (pol < 0)
		return acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"policy 0x%x asks for 1 GiB pages, which the emulated devices do not have",
				(unsigned int)policy);
	len = ((size + ACL_MEM_ALIGN - 1) & ~(size_t)(ACL_MEM_ALIGN - 1)) +
	      padding;

	m = calloc(1, sizeof(*m));
	if (!m)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	ctx = memreg__acl_lock_context();
	if (!ctx) {
		free(m);
		return ACL_ERROR_RT_CONTEXT_NULL;
	}
	/*
	 * Under rt.lock: aclFinalize closes the module descriptor, and must
	 * not do so while this call is using it.
	 */
	err = memreg_dev_alloc(memreg__acl_rt.mctx, (unsigned int)ctx->device,
			       (enum memreg_dev_policy)pol, len, &m->mem);
	if (err) {
		ret = memreg__acl_error(err);
	} else if (memreg__acl_devmem_insert(m)) {
		memreg_dev_free(memreg__acl_rt.mctx, &m->mem);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (ret) {
		free(m);
		return ret;
	}
	*devPtr = m->mem.addr;
	return ACL_SUCCESS;
}

void memreg__acl_devmem_remove(struct acl_devmem *m)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	size_t i = lower_bound(m->mem.addr);

	if (i == rt->nr_devmem || rt->devmem[i] != m)
		return;
	memmove(&rt->devmem[i], &rt->devmem[i + 1],
		(rt->nr_devmem - i - 1) * sizeof(*rt->devmem));
	rt->nr_devmem--;
}

struct acl_devmem **memreg__acl_devmem_all(size_t *n)
{
	*n = memreg__acl_rt.nr_devmem;
	return memreg__acl_rt.devmem;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	return acl_ret(dev_malloc(devPtr, size, policy, ACL_MEM_PADDING));
}

aclError aclrtMallocAlign32(void **devPtr, size_t size,
			    aclrtMemMallocPolicy policy)
{
	return acl_ret(dev_malloc(devPtr, size, policy, 0));
}

aclError aclrtFree(void *devPtr)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m = NULL;
	aclError ret = ACL_SUCCESS;
	size_t i;
	int err;

	if (!devPtr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"devPtr is NULL"));
	/*
	 * No implicit synchronisation, as in CANN: work queued on a stream
	 * that still uses the memory must be waited for first.
	 */
	pthread_mutex_lock(&rt->lock);
	i = lower_bound(devPtr);
	/*
	 * Only what aclrtMalloc returned, not a pointer inside it, nor
	 * another process's memory (aclrtIpcMemClose unmaps that), nor an
	 * aclrtMapMem mapping (aclrtUnmapMem).
	 */
	if (i == rt->nr_devmem || rt->devmem[i]->mem.addr != devPtr ||
	    rt->devmem[i]->imported || rt->devmem[i]->vmm) {
		ret = memreg__acl_bad_pointer("devPtr", devPtr, false, "free");
		goto out;
	}
	m = rt->devmem[i];
	/* A stream task may be copying to or from it: let it finish. */
	pthread_rwlock_wrlock(&rt->devmem_use);
	err = memreg_dev_free(rt->mctx, &m->mem);
	pthread_rwlock_unlock(&rt->devmem_use);
	if (err) {
		/* Still registered (EBUSY): it stays allocated and mapped. */
		ret = memreg__acl_error(err);
		m = NULL;
		goto out;
	}
	memmove(&rt->devmem[i], &rt->devmem[i + 1],
		(rt->nr_devmem - i - 1) * sizeof(*rt->devmem));
	rt->nr_devmem--;
	memreg__acl_freed_note(devPtr, "aclrtFree");
out:
	pthread_mutex_unlock(&rt->lock);
	free(m);
	return acl_ret(ret);
}

void memreg__acl_memory_release(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_devmem *m;
	size_t i;

	for (i = 0; i < rt->nr_devmem; i++) {
		m = rt->devmem[i];
		/* memreg__acl_vmm_release() took its own out before. */
		if (m->imported) {
			/* Another process's memory: only our mapping goes. */
			munmap(m->mem.addr, m->mem.len);
			close(m->fd);
			free(m);
			continue;
		}
		/*
		 * Refused while the program keeps a registration of it: the
		 * module frees it when the descriptor closes; the mapping is
		 * ours to drop either way.
		 */
		if (memreg_dev_free(rt->mctx, &m->mem))
			munmap(m->mem.addr, m->mem.len);
		memreg__acl_freed_note(m->mem.addr, "aclFinalize");
		free(m);
	}
	free(rt->devmem);
	rt->devmem = NULL;
	rt->nr_devmem = 0;
	rt->cap_devmem = 0;
}

/* What the emulated devices do not have: 1 GiB pages. */
static bool attr_huge1g(aclrtMemAttr attr)
{
	return attr == ACL_HBM_MEM_HUGE1G || attr == ACL_HBM_MEM_P2P_HUGE1G ||
	       attr == ACL_MEM_HUGE1G || attr == ACL_MEM_P2P_HUGE1G;
}

/*
 * The caller's share of device @device: @total is what its cgroup may hold
 * there (the capacity, or a lower device limit of its cgroup chain), @free
 * what it may still allocate (MEMREG_IOC_HEADROOM: the least of its
 * process's, its cgroups', its user's limits, the free capacity and the
 * RAM reserve).  So each service on a shared device sees its own budget,
 * not the others' allocations.  A module without the command: the whole
 * device (MEMREG_IOC_DEV_INFO).
 */
static int acl_mem_share(unsigned int device, uint64_t *free, uint64_t *total)
{
	struct memreg_lib_headroom h;
	struct memreg_dev_stat st;
	int err;

	err = memreg_headroom(memreg__acl_rt.mctx, device, &h);
	if (!err) {
		*total = h.dev_total;
		*free = h.room[MEMREG_ROOM_DEV_ALLOC].bytes;
		if (*free > *total)
			*free = *total;
		return 0;
	}
	if (err != -MEMREG_E_ABI)
		return err;
	err = memreg_dev_stat(memreg__acl_rt.mctx, device, &st);
	if (err)
		return err;
	*total = st.capacity;
	*free = st.capacity > st.used ? st.capacity - st.used : 0;
	return 0;
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
	struct acl_context *ctx;
	uint64_t f, t;
	int err;

	if (!free || !total)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					free ? "total" : "free"));
	if ((unsigned int)attr > ACL_MEM_P2P_HUGE1G)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"attr %d is not an aclrtMemAttr (0..%d)",
					(int)attr, ACL_MEM_P2P_HUGE1G));
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	err = acl_mem_share((unsigned int)ctx->device, &f, &t);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (err)
		return acl_ret(memreg__acl_error(err));
	/*
	 * One memory per device: DDR and HBM, huge and normal, P2P or not
	 * all draw from it, so each reports the whole share.  A kind the
	 * device lacks reports 0 and 0, as CANN does.
	 */
	if (attr_huge1g(attr)) {
		*free = 0;
		*total = 0;
		return acl_ret(ACL_SUCCESS);
	}
	*total = (size_t)t;
	*free = (size_t)f;
	return acl_ret(ACL_SUCCESS);
}

/*
 * As CANN's driver sorts a pointer: device memory (aclrtMalloc, an IPC
 * import, an aclrtMapMem mapping) is DEVICE with its device's id; an
 * aclrtMallocHost buffer is HOST; any other address, even one never
 * mapped, is host memory the runtime does not know: UNREGISTERED.  The
 * page size is the one behind the address: 2 MiB for a huge-page
 * allocation, else the host's base page (what the module maps the rest
 * with).
 */
void memreg__acl_ptr_attributes(const void *ptr, aclrtPtrAttributes *a)
{
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	struct acl_devmem *m = memreg__acl_devmem_find(ptr, 1);

	memset(a, 0, sizeof(*a));
	if (m) {
		a->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
		a->location.id = m->mem.device;
		a->pageSize = m->mem.huge ? 2U << 20 : page;
		return;
	}
	a->location.type = memreg__acl_hostmem_contains(ptr) ?
			   ACL_MEM_LOCATION_TYPE_HOST :
			   ACL_MEM_LOCATION_TYPE_UNREGISTERED;
	a->pageSize = page;
}

/* No device or context is needed, as in CANN. */
aclError aclrtPointerGetAttributes(const void *ptr,
				   aclrtPtrAttributes *attributes)
{
	struct acl_runtime *rt = &memreg__acl_rt;

	if (!ptr || !attributes)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					ptr ? "attributes" : "ptr"));
	pthread_mutex_lock(&rt->lock);
	memreg__acl_ptr_attributes(ptr, attributes);
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ACL_SUCCESS);
}
