// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The VMM calls (reserve, physical memory, map) and the shareable handles
 * against the fake module.  The other process of a share is a second
 * context of lib/core with fake.ipc.pid set to another pid: the fake
 * checks the importer's pid as the module does, and the bytes go through
 * its one memfd, so both sides see each other's writes.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>

#include "layers.h"
#include "fake_kernel.h"
#include "tests.h"

#define MiB	(1UL << 20)
#define GRAN	(2 * MiB)

static const aclrtPhysicalMemProp dev0 = {
	.handleType = ACL_MEM_HANDLE_TYPE_NONE,
	.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
	.memAttr = ACL_HBM_MEM_HUGE,
	.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static size_t dev_used(void)
{
	size_t free_b, total;

	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total),
			 ACL_SUCCESS);
	return total - free_b;
}

static aclrtDrvMemHandle phys(size_t size)
{
	aclrtDrvMemHandle h = NULL;

	assert_int_equal(aclrtMallocPhysical(&h, size, &dev0, 0), ACL_SUCCESS);
	assert_non_null(h);
	return h;
}

static void *reserve(size_t size)
{
	void *p = NULL;

	assert_int_equal(aclrtReserveMemAddress(&p, size, 0, NULL, 0),
			 ACL_SUCCESS);
	assert_non_null(p);
	return p;
}

static void test_vmm_granularity(void **state)
{
	aclrtPhysicalMemProp prop = dev0;
	size_t g = 0;

	(void)state;
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
			 ACL_SUCCESS);
	assert_int_equal(g, GRAN);
	g = 0;
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g),
			 ACL_SUCCESS);
	assert_int_equal(g, GRAN);
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemGetAllocationGranularity(NULL,
			 ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
			 ACL_ERROR_INVALID_PARAM);
	prop.memAttr = ACL_HBM_MEM_HUGE1G;
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	prop.memAttr = ACL_DDR_MEM;
	assert_int_equal(aclrtMemGetAllocationGranularity(&prop,
			 ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g),
			 ACL_ERROR_INVALID_PARAM);
}

static void test_vmm_reserve(void **state)
{
	/* Above ASan's shadow memory, which ends 2 GiB past 16 TiB. */
	void *p, *q = NULL, *want = (void *)((16ULL << 40) + (4ULL << 30));

	(void)state;
	/* Aligned to the size's power of two, at least the granule. */
	p = reserve(3 * MiB);
	assert_int_equal((uintptr_t)p % (4 * MiB), 0);
	assert_int_equal(aclrtReleaseMemAddress((char *)p + GRAN),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReleaseMemAddress(p), ACL_SUCCESS);
	assert_int_equal(aclrtReleaseMemAddress(p), ACL_ERROR_INVALID_PARAM);
	p = reserve(1536 * MiB);
	assert_int_equal((uintptr_t)p % (1UL << 30), 0);
	assert_int_equal(aclrtReleaseMemAddress(p), ACL_SUCCESS);
	/* Huge pages asked for: the same range. */
	assert_int_equal(aclrtReserveMemAddress(&q, GRAN, 0, NULL, 1),
			 ACL_SUCCESS);
	assert_int_equal(aclrtReleaseMemAddress(q), ACL_SUCCESS);

	/* A start the program chose: in CANN's window, aligned, free. */
	assert_int_equal(aclrtReserveMemAddress(&q, GRAN, 0, want, 0),
			 ACL_SUCCESS);
	assert_ptr_equal(q, want);
	assert_int_equal(aclrtReserveMemAddress(&p, GRAN, 0, want, 0),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);
	assert_int_equal(aclrtReleaseMemAddress(q), ACL_SUCCESS);
	assert_int_equal(aclrtReserveMemAddress(&p, GRAN, 0,
						(char *)want + 4096, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReserveMemAddress(&p, GRAN, 0,
						(void *)(1ULL << 30), 0),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);

	assert_int_equal(aclrtReserveMemAddress(NULL, GRAN, 0, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddress(&p, 0, 0, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddress(&p, GRAN, GRAN, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddress(&p, GRAN, 0, NULL, 2),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddress(&p, SIZE_MAX, 0, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReleaseMemAddress(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_vmm_map_roundtrip(void **state)
{
	static unsigned char in[3 * MiB], out[3 * MiB];
	aclrtDrvMemHandle a, b;
	unsigned char *base;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 13 + 1);
	base = reserve(8 * MiB);
	a = phys(GRAN);
	b = phys(GRAN);
	assert_int_equal(dev_used(), 2 * GRAN);
	/* Where nothing is mapped yet, no copy goes. */
	assert_int_equal(aclrtMemcpy(base, 1, in, 1,
				     ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, a, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(base + GRAN, GRAN, 0, b, 0), ACL_SUCCESS);
	/* A copy across the two mappings, each way, sync and async. */
	assert_int_equal(aclrtMemcpy(base + MiB, sizeof(in), in, sizeof(in),
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(out, sizeof(out), base + MiB,
				     sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_SUCCESS);
	assert_memory_equal(out, in, sizeof(in));
	memset(out, 0, sizeof(out));
	assert_int_equal(aclrtMemcpyAsync(out, sizeof(out), base + MiB,
					  sizeof(out),
					  ACL_MEMCPY_DEVICE_TO_HOST, NULL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
	assert_memory_equal(out, in, sizeof(in));
	/* Past the last mapping: not device memory. */
	assert_int_equal(aclrtMemcpy(out, sizeof(out), base + 3 * MiB,
				     2 * MiB, ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemset(base, GRAN, 0x3c, 16), ACL_SUCCESS);
	/* aclrtFree is for aclrtMalloc's memory only. */
	assert_int_equal(aclrtFree(base), ACL_ERROR_INVALID_PARAM);
	/* Mapped memory keeps its range. */
	assert_int_equal(aclrtReleaseMemAddress(base),
			 ACL_ERROR_RT_PARAM_INVALID);

	/* The physical memory keeps its bytes when mapped elsewhere. */
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(aclrtUnmapMem(base), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy(out, 1, base, 1,
				     ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem(base + 4 * MiB, GRAN, 0, a, 0),
			 ACL_SUCCESS);
	assert_int_equal(base[4 * MiB], 0x3c);
	assert_memory_equal(base + 5 * MiB, in, MiB);

	/* Freed while mapped: the memory goes with the last mapping. */
	assert_int_equal(aclrtFreePhysical(a), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(dev_used(), 2 * GRAN);
	assert_int_equal(base[4 * MiB + 1], 0x3c);
	assert_int_equal(aclrtUnmapMem(base + 4 * MiB), ACL_SUCCESS);
	assert_int_equal(dev_used(), GRAN);
	assert_int_equal(aclrtUnmapMem(base + GRAN), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(b), ACL_SUCCESS);
	assert_int_equal(dev_used(), 0);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
}

static void *no_context(void *arg)
{
	aclrtDrvMemHandle h;
	uint64_t s;

	(void)arg;
	if (aclrtMallocPhysical(&h, GRAN, &dev0, 0) !=
	    ACL_ERROR_RT_CONTEXT_NULL ||
	    aclrtMemImportFromShareableHandle(1, 0, &h) !=
	    ACL_ERROR_RT_CONTEXT_NULL ||
	    aclrtMemSetPidToShareableHandle(1, (int32_t *)&s, 1) !=
	    ACL_ERROR_RT_CONTEXT_NULL)
		return (void *)1;
	return NULL;
}

static void test_vmm_malloc_args(void **state)
{
	aclrtPhysicalMemProp prop = dev0;
	struct memreg_dev_alloc a;
	aclrtDrvMemHandle h = NULL;
	pthread_t t;
	void *ret;
	int fds;

	(void)state;
	/* Rounded up to whole granules, taken as HUGE_FIRST. */
	h = phys(3 * MiB);
	a = fake.dev.last_alloc;
	assert_int_equal(a.len, 4 * MiB);
	assert_int_equal(a.policy, MEMREG_DEV_HUGE_FIRST);
	assert_int_equal(dev_used(), 4 * MiB);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(dev_used(), 0);
	prop.memAttr = ACL_HBM_MEM_NORMAL;
	h = NULL;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);

	fds = count_fds();
	assert_int_equal(aclrtMallocPhysical(NULL, GRAN, &dev0, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocPhysical(&h, 0, &dev0, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &dev0, 1),
			 ACL_ERROR_INVALID_PARAM);
	prop = dev0;
	prop.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_INVALID_PARAM);
	prop = dev0;
	prop.allocationType = (aclrtMemAllocationType)1;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_INVALID_PARAM);
	prop = dev0;
	prop.location.type = ACL_MEM_LOCATION_TYPE_HOST;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_INVALID_PARAM);
	prop = dev0;
	prop.location.id = FAKE_DEVICES;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	prop = dev0;
	prop.memAttr = ACL_MEM_HUGE1G;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &prop, 0),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* More than the device has. */
	assert_int_equal(aclrtMallocPhysical(&h, 2 * FAKE_CAPACITY, &dev0, 0),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);
	/* No dma-buf: the allocation goes back. */
	fake.fail_errno[FAKE_DEV_EXPORT] = EMFILE;
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &dev0, 0),
			 ACL_ERROR_RT_OVER_LIMIT);
	assert_int_equal(dev_used(), 0);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(pthread_create(&t, NULL, no_context, NULL), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);

	assert_int_equal(aclrtFreePhysical(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreePhysical((aclrtDrvMemHandle)&prop),
			 ACL_ERROR_INVALID_PARAM);
}

static void test_vmm_map_args(void **state)
{
	aclrtDrvMemHandle h, h2;
	char *base;

	(void)state;
	base = reserve(4 * MiB);
	h = phys(GRAN);
	h2 = phys(GRAN);
	assert_int_equal(aclrtMapMem(NULL, GRAN, 0, h, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, 0, 0, h, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, GRAN, 4096, h, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, (aclrtDrvMemHandle)base,
				     0), ACL_ERROR_INVALID_PARAM);
	/* Not the whole of the memory. */
	assert_int_equal(aclrtMapMem(base, MiB, 0, h, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Not on a granule, past the range, not reserved at all. */
	assert_int_equal(aclrtMapMem(base + 4096, GRAN, 0, h, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem(base + 4 * MiB, GRAN, 0, h, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem((void *)(64 * GRAN), GRAN, 0, h, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	/* Over a mapping. */
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h2, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* One handle may be mapped twice. */
	assert_int_equal(aclrtMapMem(base + GRAN, GRAN, 0, h, 0), ACL_SUCCESS);
	base[0] = 0x42;
	assert_int_equal(base[GRAN], 0x42);
	assert_int_equal(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnmapMem(base + 4096), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnmapMem(&h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(aclrtUnmapMem(base + GRAN), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(h2), ACL_SUCCESS);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
	assert_int_equal(dev_used(), 0);
}

/* The other process: a context of its own and another pid. */
struct other {
	struct memreg_ctx *ctx;
	struct memreg_dev_mem mem;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	uint64_t shareable;
};

static void other_export(struct other *o, unsigned int flags)
{
	int fd;

	assert_int_equal(memreg_open(&o->ctx), 0);
	assert_int_equal(memreg_dev_alloc(o->ctx, 0, MEMREG_DEV_HUGE_FIRST,
					  GRAN, &o->mem), 0);
	memset(o->mem.addr, 0x77, GRAN);
	assert_int_equal(memreg_dev_export(o->ctx, &o->mem, 0, GRAN, &fd), 0);
	fake.ipc.pid = getppid();
	assert_int_equal(memreg_ipc_export(o->ctx, fd, flags |
					   MEMREG_IPC_SHORT_TOKEN, o->token),
			 0);
	fake.ipc.pid = getpid();
	close(fd);
	memcpy(&o->shareable, o->token, sizeof(o->shareable));
}

/* Export: the name's token is the handle; only the pids named import. */
static void test_vmm_export(void **state)
{
	static const uint8_t zero[8];
	struct memreg_ipc_export x;
	struct memreg_ctx *other;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	int32_t pid = getppid();
	aclrtDrvMemHandle h, h2;
	uint64_t s = 0, s2 = 0;
	unsigned char *q;
	char *base;
	size_t len;
	int fd;

	(void)state;
	h = phys(GRAN);
	base = reserve(GRAN);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	memset(base, 0x5e, GRAN);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE,
			 ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &s), ACL_SUCCESS);
	assert_true(s != 0);
	memcpy(&x, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(x));
	assert_int_equal(x.flags, MEMREG_IPC_SHORT_TOKEN);
	/* One shareable handle per handle. */
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s2),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* CANN shares between processes only. */
	assert_int_equal(aclrtMemImportFromShareableHandle(s, 0, &h2),
			 ACL_ERROR_RT_PARAM_INVALID);

	/* Another process, not named: the module refuses it. */
	memset(token, 0, sizeof(token));
	memcpy(token, &s, sizeof(s));
	assert_memory_equal(token + 8, zero, 8);
	assert_int_equal(memreg_open(&other), 0);
	fake.ipc.pid = pid;
	assert_int_equal(memreg_ipc_import(other, token, &fd, &len),
			 -MEMREG_E_PERM);
	fake.ipc.pid = getpid();
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &pid, 1),
			 ACL_SUCCESS);
	assert_int_equal(fake.ipc.last_allow_pids[0], pid);
	fake.ipc.pid = pid;
	assert_int_equal(memreg_ipc_import(other, token, &fd, &len), 0);
	fake.ipc.pid = getpid();
	assert_int_equal(len, GRAN);
	q = memreg__dmabuf_mmap(fd, len);
	assert_ptr_not_equal(q, MAP_FAILED);
	assert_int_equal(q[GRAN - 1], 0x5e);
	q[0] = 0x11;
	assert_int_equal(base[0], 0x11);
	munmap(q, len);
	close(fd);
	memreg_close(other);

	/* Freeing the handle forgets the name. */
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(fake.ipc.live_names, 1);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(fake.ipc.live_names, 0);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &pid, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
	assert_int_equal(dev_used(), 0);
}

static void test_vmm_export_args(void **state)
{
	struct memreg_ipc_export x;
	aclrtDrvMemHandle h, imp;
	int32_t pid = getpid(), nobody = 0x3ffffff0;
	struct other o;
	uint64_t s = 0;

	(void)state;
	h = phys(GRAN);
	assert_int_equal(aclrtMemExportToShareableHandle(NULL,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_POSIX, 0, &s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 2, &s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemExportToShareableHandle(&s,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s),
			 ACL_ERROR_INVALID_PARAM);
	/* A module without SHORT_TOKEN refuses the flag. */
	fake.fail_errno[FAKE_IPC_EXPORT] = EINVAL;
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	fake.fail_errno[FAKE_IPC_EXPORT] = EMFILE;
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s),
			 ACL_ERROR_RT_OVER_LIMIT);
	assert_int_equal(fake.ipc.live_names, 0);
	/* No pid check: any process imports. */
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE,
			 ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &s),
			 ACL_SUCCESS);
	memcpy(&x, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(x));
	assert_int_equal(x.flags, MEMREG_IPC_SHORT_TOKEN | MEMREG_IPC_ANY_PID);

	assert_int_equal(aclrtMemSetPidToShareableHandle(0, &pid, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, NULL, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &pid, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &nobody, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s ^ 0xff00, &pid, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Another process's name is not this one's to extend. */
	other_export(&o, 0);
	assert_int_equal(aclrtMemSetPidToShareableHandle(o.shareable, &pid, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(memreg_ipc_allow(o.ctx, o.token, &pid, 1), 0);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 0,
							   &imp), ACL_SUCCESS);
	/* An import is not this process's to export. */
	assert_int_equal(aclrtMemExportToShareableHandle(imp,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtFreePhysical(imp), ACL_SUCCESS);
	memreg_close(o.ctx);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
}

/* Import: a physical handle of this process, mapped like its own. */
static void test_vmm_import(void **state)
{
	unsigned char out[4096];
	int32_t pid = getpid();
	aclrtDrvMemHandle h = NULL, h2;
	struct other o;
	char *base;
	int fds;

	(void)state;
	other_export(&o, 0);
	base = reserve(GRAN);
	fds = count_fds();
	/* Not named yet: the module refuses. */
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 0, &h),
			 ACL_ERROR_RT_NO_PERMISSION);
	assert_null(h);
	assert_int_equal(memreg_ipc_allow(o.ctx, o.token, &pid, 1), 0);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 1, &h),
			 ACL_SUCCESS);
	assert_int_equal(count_fds(), fds + 1);
	/* One handle per shareable handle in a process. */
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 0,
							   &h2),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(out, sizeof(out), base + GRAN - 4096,
				     sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_SUCCESS);
	assert_int_equal(out[0], 0x77);
	assert_int_equal(out[4095], 0x77);
	memset(out, 0x12, sizeof(out));
	assert_int_equal(aclrtMemcpy(base, GRAN, out, sizeof(out),
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)o.mem.addr)[4095], 0x12);
	/* Freed while mapped: the fd stays until the unmap. */
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(count_fds(), fds + 1);
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(count_fds(), fds);

	assert_int_equal(aclrtMemImportFromShareableHandle(0, 0, &h),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 0,
							   NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable,
							   FAKE_DEVICES, &h),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, -1,
							   &h),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable ^ 0xff00,
							   0, &h),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* The exporter freed its memory: nothing to import. */
	assert_int_equal(memreg_dev_free(o.ctx, &o.mem), 0);
	assert_int_equal(aclrtMemImportFromShareableHandle(o.shareable, 0, &h),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(count_fds(), fds);
	memreg_close(o.ctx);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
}

/* A fabric handle as docs/acl.md lays it out: a tag, the 16-byte name. */
static void fabric_of(aclrtMemFabricHandle *f, const uint8_t *token)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->data, "MEMREGF1", 8);
	memcpy(f->data + 8, token, MEMREG_IPC_TOKEN_LEN);
}

/* V2 handles: DEFAULT is the 64-bit one, FABRIC the whole name. */
static void test_vmm_v2_handles(void **state)
{
	static const uint8_t zero[128 - 8 - MEMREG_IPC_TOKEN_LEN];
	struct memreg_ipc_export x;
	aclrtMemFabricHandle f, g;
	aclrtDrvMemHandle h, h2, imp = NULL;
	int32_t pid = getpid(), ppid = getppid();
	struct other o;
	uint64_t s = 0;
	int fd;

	(void)state;
	h = phys(GRAN);
	assert_int_equal(aclrtMemExportToShareableHandleV2(h, 0,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &f), ACL_SUCCESS);
	memcpy(&x, fake.last[FAKE_IPC_EXPORT].bytes, sizeof(x));
	assert_int_equal(x.flags & MEMREG_IPC_SHORT_TOKEN, 0);
	assert_memory_equal(f.data, "MEMREGF1", 8);
	assert_memory_equal(f.data + 8 + MEMREG_IPC_TOKEN_LEN, zero,
			    sizeof(zero));
	/* One shareable handle per handle, whatever its type. */
	assert_int_equal(aclrtMemExportToShareableHandleV2(h, 0,
			 ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &s),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* The pid list of a fabric handle is the module's, as DEFAULT's. */
	assert_int_equal(aclrtMemSetPidToShareableHandleV2(&f,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &ppid, 1),
			 ACL_SUCCESS);
	assert_int_equal(fake.ipc.last_allow_pids[0], ppid);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(fake.ipc.live_names, 0);

	h2 = phys(GRAN);
	assert_int_equal(aclrtMemExportToShareableHandleV2(h2, 0,
			 (aclrtMemSharedHandleType)3, &f),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreePhysical(h2), ACL_SUCCESS);
	assert_int_equal(aclrtMemExportToShareableHandleV2(h, 0,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, NULL),
			 ACL_ERROR_INVALID_PARAM);

	/* Another process's fabric handle: imported on the current device. */
	assert_int_equal(memreg_open(&o.ctx), 0);
	assert_int_equal(memreg_dev_alloc(o.ctx, 0, MEMREG_DEV_HUGE_FIRST,
					  GRAN, &o.mem), 0);
	memset(o.mem.addr, 0x66, GRAN);
	assert_int_equal(memreg_dev_export(o.ctx, &o.mem, 0, GRAN, &fd), 0);
	fake.ipc.pid = ppid;
	assert_int_equal(memreg_ipc_export(o.ctx, fd, 0, o.token), 0);
	assert_int_equal(memreg_ipc_allow(o.ctx, o.token, &pid, 1), 0);
	fake.ipc.pid = pid;
	close(fd);
	fabric_of(&f, o.token);
	g = f;
	g.data[127] = 1;
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&g,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &imp),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&f,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 1, &imp),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&f,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(NULL,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &imp),
			 ACL_ERROR_INVALID_PARAM);
	assert_null(imp);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&f,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &imp),
			 ACL_SUCCESS);
	assert_non_null(imp);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&f,
			 ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h2),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtFreePhysical(imp), ACL_SUCCESS);
	memreg_dev_free(o.ctx, &o.mem);
	memreg_close(o.ctx);

	/* DEFAULT through V2: the 64-bit handle behind the pointer. */
	other_export(&o, 0);
	assert_int_equal(memreg_ipc_allow(o.ctx, o.token, &pid, 1), 0);
	assert_int_equal(aclrtMemImportFromShareableHandleV2(&o.shareable,
			 ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &imp),
			 ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(imp), ACL_SUCCESS);
	memreg_close(o.ctx);
}

/* The handle behind a mapped address: one more reference to free. */
static void test_vmm_retain(void **state)
{
	aclrtDrvMemHandle h, r = NULL;
	char *base;

	(void)state;
	h = phys(GRAN);
	base = reserve(GRAN);
	assert_int_equal(aclrtMemRetainAllocationHandle(base, &r),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMemRetainAllocationHandle(base + GRAN - 1, &r),
			 ACL_SUCCESS);
	assert_ptr_equal(r, h);
	assert_int_equal(aclrtMemRetainAllocationHandle(base, NULL),
			 ACL_ERROR_INVALID_PARAM);
	/* Two references: the first free leaves the handle usable. */
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 1);
	/* Freed but mapped: a retain gives it back to the program. */
	assert_int_equal(aclrtMemRetainAllocationHandle(base, &r),
			 ACL_SUCCESS);
	assert_ptr_equal(r, h);
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 1);
	assert_int_equal(aclrtFreePhysical(r), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 0);
	assert_int_equal(aclrtFreePhysical(r), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
}

/* Access is per mapping and per device, NONE until set. */
static void test_vmm_access(void **state)
{
	aclrtMemAccessDesc d[2] = {
		{ .flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
		  .location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE } },
		{ .flags = ACL_RT_MEM_ACCESS_FLAGS_READ,
		  .location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST } },
	};
	aclrtMemLocation dev0l = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemLocation dev1l = { .id = 1, .type = ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemLocation host = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_HOST };
	aclrtMemAccessDesc bad = d[0];
	aclrtDrvMemHandle a, b;
	uint64_t flag = 99;
	char *base;

	(void)state;
	a = phys(GRAN);
	b = phys(GRAN);
	base = reserve(3 * GRAN);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, a, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(base + GRAN, GRAN, 0, b, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMemGetAccess(base, &dev0l, &flag), ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_NONE);

	/* Into the unmapped third granule: refused, nothing changed. */
	assert_int_equal(aclrtMemSetAccess(base, 3 * GRAN, d, 2),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemGetAccess(base, &dev0l, &flag), ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_NONE);
	bad.flags = (aclrtMemAccessFlags)2;
	assert_int_equal(aclrtMemSetAccess(base, GRAN, &bad, 1),
			 ACL_ERROR_INVALID_PARAM);
	bad = d[0];
	bad.location.id = FAKE_DEVICES;
	assert_int_equal(aclrtMemSetAccess(base, GRAN, &bad, 1),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtMemSetAccess(base, GRAN, d, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemSetAccess(base, 0, d, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemSetAccess(NULL, GRAN, d, 1),
			 ACL_ERROR_INVALID_PARAM);

	/* Both mappings of the range, each descriptor its location. */
	assert_int_equal(aclrtMemSetAccess(base, 2 * GRAN, d, 2), ACL_SUCCESS);
	assert_int_equal(aclrtMemGetAccess(base + GRAN + 5, &dev0l, &flag),
			 ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	assert_int_equal(aclrtMemGetAccess(base, &dev1l, &flag), ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_NONE);
	assert_int_equal(aclrtMemGetAccess(base, &host, &flag), ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READ);
	/* Down to READ for device 0 on the second mapping only. */
	d[0].flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	assert_int_equal(aclrtMemSetAccess(base + GRAN, GRAN, d, 1),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemGetAccess(base + GRAN, &dev0l, &flag),
			 ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READ);
	assert_int_equal(aclrtMemGetAccess(base, &dev0l, &flag), ACL_SUCCESS);
	assert_int_equal(flag, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);

	assert_int_equal(aclrtMemGetAccess(base + 2 * GRAN, &dev0l, &flag),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemGetAccess(base, NULL, &flag),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemGetAccess(base, &dev0l, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnmapMem(base), ACL_SUCCESS);
	assert_int_equal(aclrtUnmapMem(base + GRAN), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(a), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(b), ACL_SUCCESS);
	assert_int_equal(aclrtReleaseMemAddress(base), ACL_SUCCESS);
}

/* aclFinalize unmaps, frees and releases everything. */
static void test_vmm_finalize(void **state)
{
	aclrtDrvMemHandle h, freed;
	uint64_t s;
	char *base;
	void *p;

	(void)state;
	base = reserve(4 * MiB);
	h = phys(GRAN);
	freed = phys(GRAN);
	assert_int_equal(aclrtMapMem(base, GRAN, 0, h, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(base + GRAN, GRAN, 0, freed, 0),
			 ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(freed), ACL_SUCCESS);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE, 0, &s), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 0);
	assert_int_equal(fake.ipc.live_names, 0);
	/* The range is the process's to use again. */
	p = mmap(base, 4 * MiB, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	assert_ptr_equal(p, base);
	munmap(p, 4 * MiB);
}

void run_vmm_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, acl_test_setup, \
					     acl_test_teardown)
		T(test_vmm_granularity),
		T(test_vmm_reserve),
		T(test_vmm_map_roundtrip),
		T(test_vmm_malloc_args),
		T(test_vmm_map_args),
		T(test_vmm_export),
		T(test_vmm_export_args),
		T(test_vmm_import),
		T(test_vmm_v2_handles),
		T(test_vmm_retain),
		T(test_vmm_access),
		T(test_vmm_finalize),
#undef T
	};

	RUN_GROUP("vmm", tests, NULL, NULL, res);
}
