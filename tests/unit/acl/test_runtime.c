// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Devices, contexts, device and host memory against the fake devices:
 * the sizes and policies the module is asked for, the ACL codes its
 * refusals become, and that aclFinalize gives everything back.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static void test_devices(void **state)
{
	int32_t dev = -1;
	uint32_t count = 0;
	aclrtRunMode mode;

	(void)state;
	assert_int_equal(aclrtGetDeviceCount(&count), ACL_SUCCESS);
	assert_int_equal(count, FAKE_DEVICES);
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 0);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 1);
	assert_int_equal(aclrtSetDevice(FAKE_DEVICES), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtSetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetRunMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_HOST);
	/* The last reset of a device ends this thread's context on it. */
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
}

static void test_set_device_counted(void **state)
{
	aclrtStream s;
	int32_t dev;

	(void)state;
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);	/* twice now */
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	/* One reference left: context and stream live on. */
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
	/* The stream went with its context. */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
}

static void *other_thread(void *arg)
{
	int32_t dev;

	(void)arg;
	/* The current context is per thread. */
	return (void *)(intptr_t)aclrtGetDevice(&dev);
}

static void test_context_per_thread(void **state)
{
	aclrtContext ctx, cur;
	pthread_t t;
	void *ret;
	int32_t dev;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
	pthread_join(t, &ret);
	assert_int_equal((intptr_t)ret, ACL_ERROR_RT_CONTEXT_NULL);

	assert_int_equal(aclrtCreateContext(&ctx, 1), ACL_SUCCESS);
	assert_int_equal(aclrtGetCurrentContext(&cur), ACL_SUCCESS);
	assert_ptr_equal(cur, ctx);
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 1);
	assert_int_equal(aclrtDestroyContext(ctx), ACL_SUCCESS);
	assert_int_equal(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetCurrentContext(ctx), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyContext(ctx), ACL_ERROR_INVALID_PARAM);
}

static void test_malloc_sizes(void **state)
{
	void *p, *q;

	(void)state;
	/* ALIGN_UP(size, 32) + 32 for aclrtMalloc ... */
	assert_int_equal(aclrtMalloc(&p, 1, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(fake.dev.last_alloc.len, 64);
	assert_int_equal((uintptr_t)p % 64, 0);
	assert_int_equal(aclrtMalloc(&q, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(fake.dev.last_alloc.len, 160);
	assert_int_equal(aclrtFree(q), ACL_SUCCESS);
	/* ... without the padding for aclrtMallocAlign32. */
	assert_int_equal(aclrtMallocAlign32(&q, 100, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(fake.dev.last_alloc.len, 128);
	assert_int_equal(aclrtFree(q), ACL_SUCCESS);
	assert_int_equal(aclrtMallocAlign32(&q, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(fake.dev.last_alloc.len, 64);
	/* Only the start of an allocation frees it. */
	assert_int_equal(aclrtFree((char *)q + 32), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFree(q), ACL_SUCCESS);
	assert_int_equal(aclrtFree(q), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 0);
}

static void test_malloc_policies(void **state)
{
	static const struct {
		unsigned int policy;
		unsigned int want;
	} cases[] = {
		{ ACL_MEM_MALLOC_HUGE_FIRST, MEMREG_DEV_HUGE_FIRST },
		{ ACL_MEM_MALLOC_HUGE_ONLY, MEMREG_DEV_HUGE_ONLY },
		{ ACL_MEM_MALLOC_NORMAL_ONLY, MEMREG_DEV_NORMAL_ONLY },
		{ ACL_MEM_MALLOC_HUGE_FIRST_P2P, MEMREG_DEV_HUGE_FIRST },
		{ ACL_MEM_MALLOC_HUGE_ONLY_P2P, MEMREG_DEV_HUGE_ONLY },
		{ ACL_MEM_MALLOC_NORMAL_ONLY_P2P, MEMREG_DEV_NORMAL_ONLY },
		/* OR-ed flags, as HIXL passes them. */
		{ ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_MALLOC_HUGE_FIRST, MEMREG_DEV_HUGE_FIRST },
		{ ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_MALLOC_NORMAL_ONLY, MEMREG_DEV_NORMAL_ONLY },
		{ ACL_MEM_ACCESS_USER_SPACE_READONLY | ACL_MEM_MALLOC_HUGE_ONLY_P2P, MEMREG_DEV_HUGE_ONLY },
		/* A value that is no policy: the default. */
		{ 0x42, MEMREG_DEV_HUGE_FIRST },
		{ 0x80000002, MEMREG_DEV_HUGE_FIRST },
	};
	size_t i;
	void *p;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&fake.dev.last_alloc, 0xff, sizeof(fake.dev.last_alloc));
		assert_int_equal(aclrtMalloc(&p, 4096, (aclrtMemMallocPolicy)cases[i].policy), ACL_SUCCESS);
		assert_int_equal(fake.dev.last_alloc.policy, cases[i].want);
		assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	}
	/* No 1 GiB pages on the emulated devices. */
	assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE1G_ONLY), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE1G_ONLY_P2P), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(fake.dev.live, 0);
}

static void test_capacity_exhaustion(void **state)
{
	void *p[64], *extra;
	size_t free_b, total, chunk = 4 << 20;
	unsigned int n = 0, i;

	(void)state;
	while (n < 64 && aclrtMalloc(&p[n], chunk, ACL_MEM_MALLOC_HUGE_ONLY) == ACL_SUCCESS)
		n++;
	/* 64 MiB in 4 MiB + 64 B requests: each takes three 2 MiB chunks. */
	assert_int_equal(n, FAKE_CAPACITY / (3 * MEMREG_DEV_HUGE_SIZE));
	assert_int_equal(aclrtMalloc(&extra, chunk, ACL_MEM_MALLOC_HUGE_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total), ACL_SUCCESS);
	assert_int_equal(total, FAKE_CAPACITY);
	assert_int_equal(free_b, FAKE_CAPACITY - n * 3 * MEMREG_DEV_HUGE_SIZE);
	/* One freed: room again. */
	assert_int_equal(aclrtFree(p[0]), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&p[0], chunk, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
	for (i = 0; i < n; i++)
		assert_int_equal(aclrtFree(p[i]), ACL_SUCCESS);
	assert_int_equal(aclrtGetMemInfo(ACL_DDR_MEM, &free_b, &total), ACL_SUCCESS);
	assert_int_equal(free_b, total);
}

static void test_huge_only_no_contiguous(void **state)
{
	void *p;

	(void)state;
	fake.dev.no_huge = 1;
	assert_int_equal(aclrtMalloc(&p, 4 << 20, ACL_MEM_MALLOC_HUGE_ONLY), ACL_ERROR_RT_MEMORY_ALLOCATION);
	/* HUGE_FIRST falls back to 4 KiB pages. */
	assert_int_equal(aclrtMalloc(&p, 4 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(fake.dev.huge[0], 0);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	fake.dev.no_huge = 0;
}

static void test_free_registered(void **state)
{
	void *p;

	(void)state;
	assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	fake.fail_errno[FAKE_DEV_FREE] = EBUSY;
	assert_int_equal(aclrtFree(p), ACL_ERROR_RT_MEMORY_FREE);
	/* Still allocated, still usable, and freeable later. */
	memset(p, 1, 4096);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_meminfo_attrs(void **state)
{
	size_t f, t;
	int attr;

	(void)state;
	for (attr = ACL_DDR_MEM; attr <= ACL_MEM_P2P_HUGE1G; attr++) {
		f = t = 1;
		assert_int_equal(aclrtGetMemInfo((aclrtMemAttr)attr, &f, &t), ACL_SUCCESS);
		if (attr == ACL_HBM_MEM_HUGE1G || attr == ACL_HBM_MEM_P2P_HUGE1G ||
		    attr == ACL_MEM_HUGE1G || attr == ACL_MEM_P2P_HUGE1G) {
			assert_int_equal(t, 0);
			assert_int_equal(f, 0);
		} else {
			assert_int_equal(t, FAKE_CAPACITY);
			assert_int_equal(f, FAKE_CAPACITY);
		}
	}
}

/*
 * aclrtGetMemInfo is the caller's share (MEMREG_IOC_HEADROOM): its
 * cgroup's device limit is the total, and free is what that limit leaves
 * after the cgroup's other processes and our own allocations.  A module
 * without HEADROOM (ENOTTY): the whole device, as before.
 */
static void test_meminfo_cgroup_share(void **state)
{
	struct memreg_headroom asked;
	size_t f, t;
	void *p;

	(void)state;
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	fake.headroom.cg_dev_max[1] = 16 << 20;
	fake.headroom.cg_dev_others[1] = 4 << 20;
	assert_int_equal(aclrtMalloc(&p, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	/* the record is the struct's first bytes, unaligned */
	memcpy(&asked, fake.last[FAKE_HEADROOM].bytes,
	       sizeof(fake.last[FAKE_HEADROOM].bytes));
	assert_int_equal(asked.device, 1);
	assert_int_equal(t, 16 << 20);
	assert_int_equal(f, (16 << 20) - (4 << 20) - fake.dev.used[1]);

	/* a cgroup limit above the device: the device's figures */
	fake.headroom.cg_dev_max[1] = 1ULL << 30;
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(t, FAKE_CAPACITY);
	assert_int_equal(f, FAKE_CAPACITY - (4 << 20) - fake.dev.used[1]);

	/* the others hold all of it: nothing free, never below 0 */
	fake.headroom.cg_dev_max[1] = 16 << 20;
	fake.headroom.cg_dev_others[1] = 16 << 20;
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(f, 0);
	assert_int_equal(t, 16 << 20);

	/* an older module: DEV_INFO, the whole device */
	fake.fail_errno[FAKE_HEADROOM] = ENOTTY;
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(t, FAKE_CAPACITY);
	assert_int_equal(f, FAKE_CAPACITY - fake.dev.used[1]);
	assert_int_equal(fake.calls[FAKE_DEV_INFO], 1);

	/* any other refusal is the caller's error, not a silent fallback */
	fake.fail_errno[FAKE_HEADROOM] = EINVAL;
	assert_int_not_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_malloc_host(void **state)
{
	void *p;

	(void)state;
	assert_int_equal(aclrtMallocHost(&p, 10000), ACL_SUCCESS);
	/* Pinned through the module, whole pages. */
	assert_int_equal(fake.calls[FAKE_REGISTER], 1);
	assert_int_equal(fake.live, 1);	/* and that one call succeeded */
	assert_int_equal(fake.host_registered, 12288);
	memset(p, 0x42, 10000);
	assert_int_equal(aclrtFreeHost(p), ACL_SUCCESS);
	assert_int_equal(fake.calls[FAKE_UNREGISTER], 1);
	assert_int_equal(aclrtFreeHost(p), ACL_ERROR_INVALID_PARAM);
}

static void test_finalize_releases(void **state)
{
	void *d[3], *h;
	aclrtStream s;

	(void)state;
	assert_int_equal(aclrtMalloc(&d[0], 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d[1], 3 << 20, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d[2], 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMallocHost(&h, 4096), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 3);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 0);
	assert_int_equal(fake.dev.used[0] + fake.dev.used[1], 0);
	assert_int_equal(fake.calls[FAKE_UNREGISTER], 1);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
	/* And the runtime starts again from nothing. */
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d[0], 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
}

void run_runtime_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_devices,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_set_device_counted,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_context_per_thread,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_malloc_sizes,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_malloc_policies,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_capacity_exhaustion,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_huge_only_no_contiguous,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_free_registered,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_meminfo_cgroup_share,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_meminfo_attrs,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_malloc_host,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_finalize_releases,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_runtime", tests, NULL, NULL, res);
}
