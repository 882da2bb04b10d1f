// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Peer access (possible between any two emulated devices, enabling is per
 * device and ends with its last reset, a D2D copy across devices), the
 * current context's default stream, the thread's cores, and the
 * per-stream overflow switch.
 */
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static void test_peer_access(void **state)
{
	char in[32] = "device 0 to device 1", out[32] = "";
	int32_t can = -1;
	void *d0, *d1;

	(void)state;
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, 1), ACL_SUCCESS);
	assert_int_equal(can, 1);
	can = -1;
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 1, 0), ACL_SUCCESS);
	assert_int_equal(can, 1);
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceCanAccessPeer(&can, 0, FAKE_DEVICES), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_INVALID_PARAM);

	/* From device 0 (this thread's) to 1. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceEnablePeerAccess(FAKE_DEVICES, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
	assert_int_equal(aclrtDeviceEnablePeerAccess(1, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d0, 32, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d0, 32, in, 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);

	/* Device 1: its own enabling; the copy across devices. */
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, 32, ACL_MEM_MALLOC_HUGE_FIRST_P2P), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d1, 32, d0, 32, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(out, 32, d1, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_string_equal(out, in);
	assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_SUCCESS);
	assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
	/* The last reset of device 1 ends its enabling. */
	assert_int_equal(aclrtDeviceEnablePeerAccess(0, 0), ACL_SUCCESS);
	assert_int_equal(aclrtResetDeviceForce(1), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtDeviceDisablePeerAccess(0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);

	/* Back on device 0: its enabling is still there. */
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtDeviceDisablePeerAccess(1), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d0), ACL_SUCCESS);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	aclGetRecentErrMsg();
}

static void test_default_stream(void **state)
{
	aclrtStream s = NULL, again = NULL, mine;
	aclrtContext ctx;
	char in[8] = "abcdefg", out[8] = "";
	void *d;

	(void)state;
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&s), ACL_SUCCESS);
	assert_non_null(s);
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&again), ACL_SUCCESS);
	assert_ptr_equal(s, again);
	/* A real stream: work queued on it runs, and NULL means it too. */
	assert_int_equal(aclrtMalloc(&d, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d, 8, in, 8, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_string_equal(out, in);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	/* Another context has another default stream. */
	assert_int_equal(aclrtCreateContext(&ctx, 1), ACL_SUCCESS);
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&mine), ACL_SUCCESS);
	assert_ptr_not_equal(mine, s);
	assert_int_equal(aclrtDestroyContext(ctx), ACL_SUCCESS);
	/* No context in this thread any more. */
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&mine), ACL_ERROR_RT_CONTEXT_NULL);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_res_in_thread(void **state)
{
	uint32_t cube = 0, vec = 0;

	(void)state;
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube), ACL_SUCCESS);
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &vec), ACL_SUCCESS);
	assert_int_equal(cube, 24);
	assert_int_equal(vec, 48);
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetResInCurrentThread((aclrtDevResLimitType)2, &cube), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cube), ACL_ERROR_RT_CONTEXT_NULL);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_overflow_switch(void **state)
{
	aclrtStream a, b;
	uint32_t flag = 9;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamOverflowSwitch(a, &flag), ACL_SUCCESS);
	assert_int_equal(flag, 0);
	assert_int_equal(aclrtSetStreamOverflowSwitch(a, 1), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamOverflowSwitch(a, &flag), ACL_SUCCESS);
	assert_int_equal(flag, 1);
	/* Per stream. */
	assert_int_equal(aclrtGetStreamOverflowSwitch(b, &flag), ACL_SUCCESS);
	assert_int_equal(flag, 0);
	assert_int_equal(aclrtSetStreamOverflowSwitch(NULL, 1), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamOverflowSwitch(NULL, &flag), ACL_SUCCESS);
	assert_int_equal(flag, 1);
	assert_int_equal(aclrtSetStreamOverflowSwitch(a, 0), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamOverflowSwitch(a, &flag), ACL_SUCCESS);
	assert_int_equal(flag, 0);
	assert_int_equal(aclrtSetStreamOverflowSwitch(a, 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetStreamOverflowSwitch(a, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamOverflowSwitch(a, &flag), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

void run_query_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_peer_access,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_default_stream,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_res_in_thread,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_overflow_switch,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_query", tests, NULL, NULL, res);
}
