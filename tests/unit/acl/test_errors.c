// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Error reporting: the calling thread's last error code (Get clears it,
 * Peek does not), the message of its last failure (read once), that each
 * thread has its own, aclrtGetErrorVerbose, and that a device can be set
 * without aclInit (as CANN's runtime, and hixl's examples rely on it).
 */
#include <pthread.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static int setup(void **state)
{
	(void)state;
	if (fake_kernel_setup() || aclInit(NULL) != ACL_SUCCESS ||
	    aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	/* Nothing left over from earlier groups in this thread. */
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	aclGetRecentErrMsg();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	aclFinalize();
	fake_kernel_teardown();
	return 0;
}

static void test_get_and_peek(void **state)
{
	aclrtRunMode mode;

	(void)state;
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	assert_int_equal(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
	/* Peek leaves it, Get reads and clears it. */
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	/* A call that succeeds does not clear it. */
	assert_int_equal(aclrtGetRunMode(&mode), ACL_SUCCESS);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* The newest failure wins. */
	assert_int_equal(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetDevice(FAKE_DEVICES), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
	/* No other level; asking leaves the thread's error alone. */
	assert_int_equal(aclrtGetRunMode(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPeekAtLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_INVALID_PARAM);
	aclGetRecentErrMsg();
}

static void test_recent_msg(void **state)
{
	const char *msg;
	void *p;

	(void)state;
	assert_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtSetDevice(7), ACL_ERROR_RT_INVALID_DEVICEID);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	/* The call, the code by name and number, and why. */
	assert_non_null(strstr(msg, "aclrtSetDevice failed: ACL_ERROR_RT_INVALID_DEVICEID (107001)"));
	assert_non_null(strstr(msg, "device 7 does not exist: the memreg module has 2"));
	/* Read once; the code is still there for aclrtGetLastError. */
	assert_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);

	/* The whole message: the call, the code, the argument and why. */
	assert_int_equal(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_string_equal(msg, "aclrtMalloc failed: ACL_ERROR_INVALID_PARAM (100000): devPtr is NULL");

	/* A refusal of the module: its reason (memreg_strerror) is kept. */
	assert_int_equal(aclrtMalloc(&p, FAKE_CAPACITY * 2, ACL_MEM_MALLOC_HUGE_FIRST),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclrtMalloc failed: ACL_ERROR_RT_MEMORY_ALLOCATION (207001): "));
	assert_true(strlen(msg) > strlen("aclrtMalloc failed: ACL_ERROR_RT_MEMORY_ALLOCATION (207001): "));
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void *other_thread(void *arg)
{
	aclError *seen = arg;

	seen[0] = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
	seen[1] = aclGetRecentErrMsg() ? 1 : 0;
	seen[2] = aclrtGetRunMode(NULL);
	seen[3] = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	return NULL;
}

static void test_per_thread(void **state)
{
	aclError seen[4] = { -1, -1, -1, -1 };
	pthread_t t;

	(void)state;
	assert_int_equal(aclrtSetDevice(-3), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(pthread_create(&t, NULL, other_thread, seen), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* The other thread saw none of ours, and its own did not reach us. */
	assert_int_equal(seen[0], ACL_SUCCESS);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], ACL_ERROR_INVALID_PARAM);
	assert_int_equal(seen[3], ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "device -3"));
}

static void test_error_verbose(void **state)
{
	aclrtErrorInfo info;

	(void)state;
	memset(&info, 0xa5, sizeof(info));
	assert_int_equal(aclrtGetErrorVerbose(0, &info), ACL_SUCCESS);
	assert_int_equal(info.errorType, ACL_RT_NO_ERROR);
	assert_int_equal(info.tryRepair, 0);
	assert_int_equal(info.hasDetail, 0);
	assert_int_equal(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "aclrtGetErrorVerbose failed"));
	assert_int_equal(aclrtGetErrorVerbose(FAKE_DEVICES, &info), ACL_ERROR_RT_INVALID_DEVICEID);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	aclGetRecentErrMsg();
}

/* As CANN's runtime: a device, memory and copies without aclInit. */
static void test_no_init_needed(void **state)
{
	int32_t dev = -1;
	uint32_t count = 0;
	char in[32] = "no aclInit", out[32] = "";
	void *p;

	(void)state;
	assert_int_equal(fake_kernel_setup(), 0);
	assert_int_equal(aclrtGetDeviceCount(&count), ACL_SUCCESS);
	assert_int_equal(count, FAKE_DEVICES);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 1);
	assert_int_equal(aclrtMalloc(&p, 32, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(p, 32, in, 32, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(out, 32, p, 32, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_string_equal(out, in);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
	/* aclFinalize without aclInit is still refused (a repeat here)... */
	assert_int_not_equal(aclFinalize(), ACL_SUCCESS);
	/* ...and an aclInit later takes the runtime over. */
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(fake.dev.live, 0);
	fake_kernel_teardown();
}

void run_error_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_get_and_peek, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recent_msg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_verbose, setup, teardown),
		cmocka_unit_test(test_no_init_needed),
	};

	RUN_GROUP("acl_errors", tests, NULL, NULL, res);
}
