// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtValueWrite / aclrtValueWait: a wait really holds its stream until
 * another stream's write (a copy queued behind the wait sees the data
 * the writer's stream put there first), the four conditions, arguments,
 * memory freed under a wait, and a forced destroy ending a wait.
 */
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static aclrtStreamStatus status_of(aclrtStream s)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;

	assert_int_equal(aclrtStreamQuery(s, &st), ACL_SUCCESS);
	return st;
}

static void test_wait_orders_streams(void **state)
{
	char in[64] = "written by stream a", out[64] = "untouched";
	aclrtStream a, b;
	uint64_t *flag;
	void *data;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&flag, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&data, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(flag, 8, 0, 8), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(data, 64, 0, 64), ACL_SUCCESS);

	/* b: wait for 1, then read the data. */
	assert_int_equal(aclrtValueWait(flag, 1, ACL_STREAM_WAIT_VALUE_EQ, b), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, sizeof(out), data, 64,
					  ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);
	usleep(50 * 1000);
	assert_int_equal(status_of(b), ACL_STREAM_STATUS_NOT_READY);
	assert_string_equal(out, "untouched");
	/* A value that does not meet the condition does not release it. */
	assert_int_equal(aclrtValueWrite(flag, 2, 0, a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);
	usleep(20 * 1000);
	assert_int_equal(status_of(b), ACL_STREAM_STATUS_NOT_READY);

	/* a: the data, then the value. */
	assert_int_equal(aclrtMemcpyAsync(data, 64, in, sizeof(in),
					  ACL_MEMCPY_HOST_TO_DEVICE, a), ACL_SUCCESS);
	assert_int_equal(aclrtValueWrite(flag, 1, 0, a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_string_equal(out, in);
	assert_int_equal(*flag, 1);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);

	/* A value the host writes (not a value task) releases a wait too. */
	assert_int_equal(aclrtValueWait(flag, 7, ACL_STREAM_WAIT_VALUE_EQ, b), ACL_SUCCESS);
	usleep(10 * 1000);
	assert_int_equal(status_of(b), ACL_STREAM_STATUS_NOT_READY);
	__atomic_store_n(flag, 7, __ATOMIC_RELEASE);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(b, 5000), ACL_SUCCESS);

	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtFree(flag), ACL_SUCCESS);
	assert_int_equal(aclrtFree(data), ACL_SUCCESS);
}

/* Is a wait for @value under @flag met by the current *p? */
static int met(aclrtStream s, uint64_t value, uint32_t flag, uint64_t *p)
{
	aclrtStream w;
	int done;

	assert_int_equal(aclrtCreateStream(&w), ACL_SUCCESS);
	assert_int_equal(aclrtValueWait(p, value, flag, w), ACL_SUCCESS);
	done = aclrtSynchronizeStreamWithTimeout(w, 300) == ACL_SUCCESS;
	/* Not met: a forced destroy ends the wait. */
	assert_int_equal(aclrtDestroyStreamForce(w), ACL_SUCCESS);
	(void)s;
	return done;
}

static void test_conditions(void **state)
{
	uint64_t *p;

	(void)state;
	assert_int_equal(aclrtMalloc((void **)&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtValueWrite(p, 5, 0, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
	assert_int_equal(*p, 5);
	assert_true(met(NULL, 5, ACL_STREAM_WAIT_VALUE_EQ, p));
	assert_false(met(NULL, 4, ACL_STREAM_WAIT_VALUE_EQ, p));
	assert_true(met(NULL, 3, ACL_STREAM_WAIT_VALUE_GEQ, p));
	assert_true(met(NULL, 5, ACL_STREAM_WAIT_VALUE_GEQ, p));
	assert_false(met(NULL, 6, ACL_STREAM_WAIT_VALUE_GEQ, p));
	/* GEQ wraps: 5 is "after" UINT64_MAX. */
	assert_true(met(NULL, UINT64_MAX, ACL_STREAM_WAIT_VALUE_GEQ, p));
	assert_true(met(NULL, 4, ACL_STREAM_WAIT_VALUE_AND, p));
	assert_false(met(NULL, 2, ACL_STREAM_WAIT_VALUE_AND, p));
	assert_true(met(NULL, 2, ACL_STREAM_WAIT_VALUE_NOR, p));
	assert_false(met(NULL, ~(uint64_t)5, ACL_STREAM_WAIT_VALUE_NOR, p));
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
}

static void test_value_args(void **state)
{
	char host[16];
	uint64_t *p;

	(void)state;
	assert_int_equal(aclrtMalloc((void **)&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtValueWrite(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtValueWrite((char *)p + 4, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtValueWrite(host, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "not device memory"));
	assert_int_equal(aclrtValueWrite(p, 1, 1, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtValueWait(p, 1, 4, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtValueWrite(p + 7, 1, 0, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtValueWait(p, 1, 0, (aclrtStream)host), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

/* Memory freed under a wait: the wait fails as a DMA would. */
static void test_wait_freed(void **state)
{
	aclrtStream s;
	uint64_t *p;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&p, 8, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(p, 8, 0, 8), ACL_SUCCESS);
	assert_int_equal(aclrtValueWait(p, 1, ACL_STREAM_WAIT_VALUE_EQ, s), ACL_SUCCESS);
	usleep(10 * 1000);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 5000), ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
}

void run_value_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_wait_orders_streams,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_conditions,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_value_args,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_wait_freed,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_values", tests, NULL, NULL, res);
}
