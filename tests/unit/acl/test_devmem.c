// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/core's device memory calls against the fake devices: what they
 * send, what the mapping is, and the errors each errno becomes.
 */
#include <errno.h>
#include <string.h>

#include <memreg/memreg.h>

#include "fake_kernel.h"
#include "tests.h"

static int setup(void **state)
{
	struct memreg_ctx *ctx;

	if (fake_kernel_setup() || memreg_open(&ctx))
		return -1;
	*state = ctx;
	return 0;
}

static int teardown(void **state)
{
	memreg_close(*state);
	fake_kernel_teardown();
	return 0;
}

static void test_info_devices(void **state)
{
	struct memreg_lib_info info;

	assert_int_equal(memreg_info(*state, &info), 0);
	assert_int_equal(info.devices, FAKE_DEVICES);
	assert_int_equal(info.dev_capacity, FAKE_CAPACITY);
}

static void test_alloc_maps_and_frees(void **state)
{
	struct memreg_dev_mem m, n;
	struct memreg_dev_stat st;

	assert_int_equal(memreg_dev_alloc(*state, 1, MEMREG_DEV_NORMAL_ONLY, 5000, &m), 0);
	/* The request reached the module as given, zero elsewhere. */
	assert_int_equal(fake.dev.last_alloc.device, 1);
	assert_int_equal(fake.dev.last_alloc.policy, MEMREG_DEV_NORMAL_ONLY);
	assert_int_equal(fake.dev.last_alloc.len, 5000);
	assert_int_equal(m.len, 8192);
	assert_int_equal(m.device, 1);
	assert_int_equal(m.huge, 0);
	/* Mapped shared: another allocation's bytes are other bytes. */
	assert_int_equal(memreg_dev_alloc(*state, 1, MEMREG_DEV_HUGE_ONLY, 4096, &n), 0);
	assert_int_equal(n.len, MEMREG_DEV_HUGE_SIZE);
	assert_int_equal(n.huge, 1);
	memset(m.addr, 0x11, m.len);
	memset(n.addr, 0x22, n.len);
	assert_int_equal(((unsigned char *)m.addr)[m.len - 1], 0x11);

	assert_int_equal(memreg_dev_stat(*state, 1, &st), 0);
	assert_int_equal(st.capacity, FAKE_CAPACITY);
	assert_int_equal(st.used, 8192 + MEMREG_DEV_HUGE_SIZE);
	assert_int_equal(st.huge_bytes, MEMREG_DEV_HUGE_SIZE);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
	assert_int_equal(memreg_dev_free(*state, &n), 0);
	assert_int_equal(memreg_dev_stat(*state, 1, &st), 0);
	assert_int_equal(st.used, 0);
	/* A second free of the same handle: unknown now. */
	assert_int_equal(memreg_dev_free(*state, &m), -MEMREG_E_NOENT);
}

static void test_alloc_errors(void **state)
{
	struct memreg_dev_mem m, big;
	struct memreg_dev_stat st;

	assert_int_equal(memreg_dev_alloc(*state, FAKE_DEVICES, MEMREG_DEV_HUGE_FIRST, 4096, &m), -MEMREG_E_NODEV);
	assert_int_equal(errno, ENXIO);
	assert_int_equal(memreg_dev_alloc(*state, 0, MEMREG_DEV_HUGE_FIRST, 0, &m), -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_alloc(NULL, 0, MEMREG_DEV_HUGE_FIRST, 1, &m), -MEMREG_E_INVAL);
	assert_int_equal(memreg_dev_alloc(*state, 0, (enum memreg_dev_policy)3, 4096, &m), -MEMREG_E_INVAL);

	assert_int_equal(memreg_dev_alloc(*state, 0, MEMREG_DEV_NORMAL_ONLY, FAKE_CAPACITY, &big), 0);
	assert_int_equal(memreg_dev_alloc(*state, 0, MEMREG_DEV_NORMAL_ONLY, 1, &m), -MEMREG_E_DEVFULL);
	assert_int_equal(errno, ENOSPC);
	assert_string_equal(memreg_strerror(-MEMREG_E_DEVFULL),
			    "the emulated device has no free memory left (ENOSPC)");
	assert_int_equal(memreg_dev_free(*state, &big), 0);

	fake.dev.no_huge = 1;
	assert_int_equal(memreg_dev_alloc(*state, 0, MEMREG_DEV_HUGE_ONLY, 4096, &m), -MEMREG_E_NOMEM);
	fake.dev.no_huge = 0;

	assert_int_equal(memreg_dev_stat(*state, FAKE_DEVICES, &st), -MEMREG_E_NODEV);
	assert_int_equal(memreg_dev_stat(*state, 0, NULL), -MEMREG_E_INVAL);
}

static void test_free_busy_keeps_mapping(void **state)
{
	struct memreg_dev_mem m;

	assert_int_equal(memreg_dev_alloc(*state, 0, MEMREG_DEV_NORMAL_ONLY, 4096, &m), 0);
	memset(m.addr, 0x5a, 4096);
	fake.fail_errno[FAKE_DEV_FREE] = EBUSY;
	assert_int_equal(memreg_dev_free(*state, &m), -MEMREG_E_BUSY);
	/* Refused: still mapped and still the caller's. */
	assert_int_equal(((unsigned char *)m.addr)[4095], 0x5a);
	assert_int_equal(fake.dev.live, 1);
	assert_int_equal(memreg_dev_free(*state, &m), 0);
	assert_int_equal(fake.dev.live, 0);
}

void run_devmem_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info_devices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_maps_and_frees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_free_busy_keeps_mapping, setup, teardown),
	};

	RUN_GROUP("core_devmem", tests, NULL, NULL, res);
}
