// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The static helpers: MallocMem, FreeMem, ExportToShareableHandle,
 * GetCapability.  They need no engine.
 *
 * MallocMem is host memory only, as the reference documents: whole pages
 * from mmap, so that registering them pins nothing of a neighbour's.  Its
 * sizes are kept in a small table, which also makes FreeMem of a pointer
 * MallocMem did not return a PARAM_INVALID instead of a crash.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "adxl_int.h"

struct alloc {
	void *ptr;
	size_t len;
};

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct alloc *allocs;
static size_t n_allocs, cap_allocs;

adxl_status_t adxl_malloc_mem(enum adxl_mem_type type, size_t size, void **ptr)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	void *p;

	if (!ptr || !size)
		return ADXL_PARAM_INVALID;
	if (type != ADXL_MEM_HOST) {
		adxl__err("MallocMem: host memory only (allocate device memory with aclrtMalloc)");
		return ADXL_PARAM_INVALID;
	}
	if (size > SIZE_MAX - page)
		return ADXL_PARAM_INVALID;
	len = (size + page - 1) & ~(page - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		adxl__err("MallocMem: %zu bytes: %s", size, strerror(errno));
		return ADXL_RESOURCE_EXHAUSTED;
	}

	pthread_mutex_lock(&alloc_lock);
	if (n_allocs == cap_allocs) {
		size_t cap = cap_allocs ? 2 * cap_allocs : 16;
		struct alloc *a = realloc(allocs, cap * sizeof(*a));

		if (!a) {
			pthread_mutex_unlock(&alloc_lock);
			munmap(p, len);
			return ADXL_RESOURCE_EXHAUSTED;
		}
		allocs = a;
		cap_allocs = cap;
	}
	allocs[n_allocs++] = (struct alloc){ .ptr = p, .len = len };
	pthread_mutex_unlock(&alloc_lock);
	*ptr = p;
	return ADXL_SUCCESS;
}

adxl_status_t adxl_free_mem(void *ptr)
{
	size_t i;

	if (!ptr)
		return ADXL_PARAM_INVALID;
	pthread_mutex_lock(&alloc_lock);
	for (i = 0; i < n_allocs; i++)
		if (allocs[i].ptr == ptr)
			break;
	if (i == n_allocs) {
		pthread_mutex_unlock(&alloc_lock);
		adxl__err("FreeMem: %p was not returned by MallocMem", ptr);
		return ADXL_PARAM_INVALID;
	}
	/*
	 * Still registered somewhere?  munmap is safe regardless: the module
	 * holds the pages until the registration ends.
	 */
	munmap(allocs[i].ptr, allocs[i].len);
	allocs[i] = allocs[--n_allocs];
	pthread_mutex_unlock(&alloc_lock);
	return ADXL_SUCCESS;
}

adxl_status_t adxl_export_shareable_handle(void *addr, uint8_t handle[128])
{
	size_t i;

	if (!addr || !handle)
		return ADXL_PARAM_INVALID;
	/* The reference: the exact start of a MallocMem block, or PARAM_INVALID. */
	pthread_mutex_lock(&alloc_lock);
	for (i = 0; i < n_allocs; i++)
		if (allocs[i].ptr == addr)
			break;
	pthread_mutex_unlock(&alloc_lock);
	if (i == n_allocs)
		return ADXL_PARAM_INVALID;
	adxl__err("ExportToShareableHandle: fabric memory handles need Ascend hardware; not supported");
	return ADXL_UNSUPPORTED;
}

adxl_status_t adxl_get_capability(int32_t feature, int32_t *value)
{
	if (feature < 0 || !value)
		return ADXL_PARAM_INVALID;
	switch (feature) {
	case ADXL_FEATURE_AUTO_CONNECT:
	/*
	 * The reference documents CLIENT_SERVER_COMM as "a server listens on
	 * a port, clients connect to it": what every engine here does.
	 */
	case ADXL_FEATURE_CLIENT_SERVER_COMM:
		*value = ADXL_FEATURE_SUPPORTED;
		break;
	default:
		*value = ADXL_FEATURE_NOT_SUPPORTED;
	}
	return ADXL_SUCCESS;
}
