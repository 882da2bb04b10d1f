// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Stream capture into models (aclmdlRI*), against the fake devices.
 *
 * As in test_events.c, a "gate" holds a stream: a blocking host callback
 * that the test thread itself runs with aclrtProcessReport, so "the
 * stream has not got past this point yet" is observable without relying
 * on timing.  Device memory is mapped in the process: the tests read and
 * write it directly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>

#include "tests.h"

#define LEN	4096

static unsigned char *dev_alloc(size_t len)
{
	void *p = NULL;

	assert_int_equal(aclrtMalloc(&p, len, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	memset(p, 0, len);
	return p;
}

static bool all_bytes(const unsigned char *p, int v, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)v)
			return false;
	return true;
}

static void assert_not_ready(aclrtStream s)
{
	aclrtStreamStatus st;

	assert_int_equal(aclrtStreamQuery(s, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
}

/*
 * A captured D2D copy runs only when the model runs, and reads its
 * source then: the second run copies what the source holds by then.
 */
static void test_model_copy_replays(void **state)
{
	unsigned char *src, *dst;
	aclmdlRICaptureStatus st;
	aclmdlRI m, info;
	aclrtStream s;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	memset(src, 0x11, LEN);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);

	assert_int_equal(aclmdlRICaptureGetInfo(s, &st, &info), ACL_SUCCESS);
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	assert_null(info);
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureGetInfo(s, &st, &info), ACL_SUCCESS);
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
	assert_non_null(info);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	assert_ptr_equal(m, info);
	assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);

	/* Captured, not run. */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0, LEN));

	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x11, LEN));

	memset(src, 0x22, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x22, LEN));

	/* Any stream runs it, the default one too. */
	memset(src, 0x33, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x33, LEN));

	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	aclrtFree(src);
	aclrtFree(dst);
}

/*
 * Host-to-device copies from host memory are not staged at the capture:
 * each run copies the host buffer as it is then (both kinds).
 */
static void test_model_h2d_reads_at_run(void **state)
{
	unsigned char *dst, *dst2, *host;
	aclrtStream s;
	aclmdlRI m;

	(void)state;
	dst = dev_alloc(LEN);
	dst2 = dev_alloc(LEN);
	host = malloc(LEN);
	assert_non_null(host);
	memset(host, 0x41, LEN);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, host, LEN,
					  ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst2, LEN, host, LEN,
					  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	memset(host, 0x42, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x42, LEN));
	assert_true(all_bytes(dst2, 0x42, LEN));
	memset(host, 0x43, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x43, LEN));
	assert_true(all_bytes(dst2, 0x43, LEN));
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyStream(s);
	free(host);
	aclrtFree(dst);
	aclrtFree(dst2);
}

/*
 * Scenario 1: the model waits (EXTERNAL) for a record made outside it.
 * The outside stream records after a gate and an H2D copy: the run must
 * not copy until the gate opens, and then copies what that H2D wrote.
 */
static void test_model_external_wait_blocks(void **state)
{
	unsigned char *src, *dst, *host;
	aclrtStream g, o;
	aclrtEvent e;
	aclmdlRI m;
	int ran = 0;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	host = malloc(LEN);
	assert_non_null(host);
	memset(host, 0x5a, LEN);
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);

	assert_int_equal(aclmdlRICaptureBegin(g, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(g, e, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g, &m), ACL_SUCCESS);

	close_gate(o, &ran);
	assert_int_equal(aclrtMemcpyAsync(src, LEN, host, LEN,
					  ACL_MEMCPY_HOST_TO_DEVICE, o), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, o), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_SUCCESS);

	sleep_ms(50);
	assert_not_ready(g);
	assert_true(all_bytes(dst, 0, LEN));

	open_gate(o, &ran);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x5a, LEN));
	assert_int_equal(aclrtSynchronizeStream(o), ACL_SUCCESS);

	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(g);
	aclrtDestroyStream(o);
	free(host);
	aclrtFree(src);
	aclrtFree(dst);
}

/*
 * Scenario 2: the model records EXTERNAL; a stream outside waits for it.
 * The model itself starts with a blocking callback (a captured task
 * too), so the outside stream provably waits for the run.
 */
static void test_model_external_record(void **state)
{
	unsigned char *src, *mid, *out;
	aclrtStream g, o;
	aclrtEvent e;
	aclmdlRI m;
	int ran = 0;

	(void)state;
	src = dev_alloc(LEN);
	mid = dev_alloc(LEN);
	out = calloc(1, LEN);
	assert_non_null(out);
	memset(src, 0x6b, LEN);
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);

	assert_int_equal(aclrtSubscribeReport(self_id(), g), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(g, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(count_cb, &ran, ACL_CALLBACK_BLOCK, g),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(mid, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEventWithFlag(e, g, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g, &m), ACL_SUCCESS);
	/* The callback was captured: nothing for this thread to run. */
	assert_int_equal(aclrtProcessReport(0), ACL_ERROR_WAIT_CALLBACK_TIMEOUT);

	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(o, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, LEN, mid, LEN,
					  ACL_MEMCPY_DEVICE_TO_HOST, o), ACL_SUCCESS);
	sleep_ms(50);
	assert_not_ready(o);
	assert_true(all_bytes(out, 0, LEN));

	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(ran, 1);
	assert_int_equal(aclrtSynchronizeStream(o), ACL_SUCCESS);
	assert_true(all_bytes(out, 0x6b, LEN));
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);

	assert_int_equal(aclrtUnSubscribeReport(self_id(), g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(g);
	aclrtDestroyStream(o);
	free(out);
	aclrtFree(src);
	aclrtFree(mid);
}

/*
 * Scenario 3: model 1 records EXTERNAL, model 2 waits EXTERNAL.  Two
 * rounds: each run of model 2 waits for the record of the run of model
 * 1 queued before it (numbers taken at each run, not at the capture).
 */
static void test_model_two_models_external(void **state)
{
	unsigned char *src, *mid, *dst;
	aclrtStream g1, g2;
	aclmdlRI m1, m2;
	aclrtEvent e;
	int round, ran = 0;

	(void)state;
	src = dev_alloc(LEN);
	mid = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	assert_int_equal(aclrtCreateStream(&g1), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&g2), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);

	assert_int_equal(aclmdlRICaptureBegin(g1, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(mid, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g1), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEventWithFlag(e, g1, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g1, &m1), ACL_SUCCESS);

	assert_int_equal(aclmdlRICaptureBegin(g2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(g2, e, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, mid, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g2), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g2, &m2), ACL_SUCCESS);

	for (round = 1; round <= 2; round++) {
		int v = 0x70 + round;

		memset(src, v, LEN);
		close_gate(g1, &ran);
		assert_int_equal(aclmdlRIExecuteAsync(m1, g1), ACL_SUCCESS);
		assert_int_equal(aclmdlRIExecuteAsync(m2, g2), ACL_SUCCESS);
		sleep_ms(50);
		assert_not_ready(g2);
		assert_true(all_bytes(dst, round == 1 ? 0 : v - 1, LEN));
		open_gate(g1, &ran);
		assert_int_equal(aclrtSynchronizeStream(g2), ACL_SUCCESS);
		assert_true(all_bytes(dst, v, LEN));
		assert_int_equal(aclrtSynchronizeStream(g1), ACL_SUCCESS);
	}

	assert_int_equal(aclmdlRIDestroy(m1), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m2), ACL_SUCCESS);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(g1);
	aclrtDestroyStream(g2);
	aclrtFree(src);
	aclrtFree(mid);
	aclrtFree(dst);
}

/* A call that must fail at once, not wait for the captured stream. */
#define ASSERT_PROMPT(call, code)					\
	do {								\
		struct timespec t0_;					\
									\
		clock_gettime(CLOCK_MONOTONIC, &t0_);			\
		assert_int_equal((call), (code));			\
		assert_true(elapsed_ms(&t0_) < 1000);			\
	} while (0)

static void test_model_errors(void **state)
{
	aclrtEventRecordedStatus est;
	aclrtStreamStatus sst;
	aclmdlRICaptureStatus st;
	aclmdlRICaptureMode mode;
	unsigned char *a, *b;
	aclrtEvent ex, plain;
	aclmdlRI m, m2;
	aclrtStream s, o;
	const char *msg;

	(void)state;
	a = dev_alloc(LEN);
	b = dev_alloc(LEN);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&plain), ACL_SUCCESS);

	/* Arguments. */
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclmdlRICaptureEnd"));
	assert_int_equal(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)-1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRICaptureBegin((aclrtStream)a, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureGetInfo(NULL, &st, &m), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureGetInfo(s, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(NULL), ACL_ERROR_INVALID_PARAM);
	mode = (aclmdlRICaptureMode)7;
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIExecuteAsync(NULL, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIExecute(NULL, 100), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDestroy(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDestroy((aclmdlRI)a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDebugJsonPrint(NULL, "/dev/null", 0),
			 ACL_ERROR_INVALID_PARAM);
	/* EXTERNAL on a stream not captured: CANN's code. */
	assert_int_equal(aclrtRecordEventWithFlag(ex, s, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	assert_int_equal(aclrtStreamWaitEventWithFlag(s, ex, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_RT_STREAM_NOT_CAPTURED);

	/* While capturing. */
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_ERROR_RT_STREAM_CAPTURED);
	assert_int_equal(aclrtMemcpyAsync(b, LEN, a, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	ASSERT_PROMPT(aclrtSynchronizeStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "captured"));
	ASSERT_PROMPT(aclrtSynchronizeStreamWithTimeout(s, -1),
		      ACL_ERROR_RT_STREAM_CAPTURED);
	ASSERT_PROMPT(aclrtStreamQuery(s, &sst), ACL_ERROR_RT_STREAM_CAPTURED);
	ASSERT_PROMPT(aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_CAPTURED);
	assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CAPTURED);
	assert_int_equal(aclrtDestroyStreamForce(s), ACL_ERROR_RT_STREAM_CAPTURED);
	/* Other streams are not concerned. */
	assert_int_equal(aclrtSynchronizeStream(o), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(s, ex, 5, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);
	/* aclrtCreateEvent's events are captured only with EXTERNAL; no reset. */
	assert_int_equal(aclrtRecordEvent(plain, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtStreamWaitEvent(s, plain), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtResetEvent(plain, s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtRecordEventWithFlag(plain, s, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_SUCCESS);
	/* A capturing event recorded in it: the host may not look at it. */
	assert_int_equal(aclrtRecordEvent(ex, s), ACL_SUCCESS);
	ASSERT_PROMPT(aclrtSynchronizeEvent(ex), ACL_ERROR_RT_EVENT_CAPTURED);
	assert_int_equal(aclrtQueryEventStatus(ex, &est), ACL_ERROR_RT_EVENT_CAPTURED);
	assert_int_equal(aclmdlRICaptureGetInfo(s, NULL, &m), ACL_SUCCESS);
	assert_non_null(m);
	assert_int_equal(aclmdlRIExecuteAsync(m, o), ACL_ERROR_RT_MODEL_CAPTURED);
	assert_int_equal(aclmdlRIDestroy(m), ACL_ERROR_RT_MODEL_CAPTURED);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, "/dev/null", 0),
			 ACL_ERROR_RT_MODEL_CAPTURED);
	assert_int_equal(aclmdlRICaptureEnd(NULL, &m2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureEnd(s, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRICaptureEnd(s, &m2), ACL_SUCCESS);
	assert_ptr_equal(m, m2);
	assert_int_equal(aclmdlRICaptureEnd(s, &m2), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	/* The capture over, the event is the host's again (never recorded). */
	assert_int_equal(aclrtQueryEventStatus(ex, &est), ACL_SUCCESS);
	assert_int_equal(est, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	assert_int_equal(aclrtSynchronizeEvent(ex), ACL_SUCCESS);

	/* Not on a stream being captured. */
	assert_int_equal(aclmdlRICaptureBegin(o, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, o), ACL_ERROR_RT_STREAM_CAPTURED);
	assert_int_equal(aclmdlRICaptureEnd(o, &m2), ACL_SUCCESS);
	/* An empty model runs, and does nothing. */
	assert_int_equal(aclmdlRIExecuteAsync(m2, o), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m2), ACL_SUCCESS);

	assert_int_equal(aclmdlRIExecute(m, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIExecute(m, -2), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, "/dev/null", 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, "/nonexistent/dir/m.json", 0),
			 ACL_ERROR_INVALID_PARAM);

	/* Destroyed: every use is refused, never a crash. */
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIExecute(m, 100), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, "/dev/null", 0),
			 ACL_ERROR_INVALID_PARAM);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "no live model"));

	/* The capture never ran: b is still zero. */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(b, 0, LEN));
	aclrtDestroyEvent(ex);
	aclrtDestroyEvent(plain);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	aclrtDestroyStream(o);
	aclrtFree(a);
	aclrtFree(b);
}

struct unsafe_call {
	void *dev;
	aclmdlRICaptureMode mode;	/* the thread's, set first */
	aclError memcpy_ret, memset_ret;
};

/* In another thread: an aclrtMemcpy and an aclrtMemset, with @arg's mode. */
static void *unsafe_thread(void *arg)
{
	struct unsafe_call *c = arg;
	aclmdlRICaptureMode mode = c->mode;
	char host[16] = { 0 };

	aclmdlRICaptureThreadExchangeMode(&mode);
	c->memcpy_ret = aclrtMemcpy(c->dev, sizeof(host), host, sizeof(host),
				    ACL_MEMCPY_HOST_TO_DEVICE);
	c->memset_ret = aclrtMemset(c->dev, 16, 0, 16);
	return NULL;
}

static void other_thread(void *dev, aclmdlRICaptureMode mode, aclError expect)
{
	struct unsafe_call c = { dev, mode, -1, -1 };
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, unsafe_thread, &c), 0);
	pthread_join(th, NULL);
	assert_int_equal(c.memcpy_ret, expect);
	assert_int_equal(c.memset_ret, expect);
}

static void *end_thread(void *arg)
{
	aclmdlRI m;

	return (void *)(intptr_t)aclmdlRICaptureEnd(arg, &m);
}

static aclError end_elsewhere(aclrtStream s)
{
	pthread_t th;
	void *ret;

	assert_int_equal(pthread_create(&th, NULL, end_thread, s), 0);
	pthread_join(th, &ret);
	return (aclError)(intptr_t)ret;
}

/* Which thread may make unsafe calls, and end a capture, in each mode. */
static void test_model_modes(void **state)
{
	aclmdlRICaptureStatus st;
	aclmdlRICaptureMode mode;
	char host[16] = { 0 };
	unsigned char *d;
	aclrtStream s;
	aclmdlRI m;

	(void)state;
	d = dev_alloc(LEN);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);

	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	assert_int_equal(aclrtMemcpy(d, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	/* A GLOBAL capture holds every GLOBAL thread, not THREAD_LOCAL ones. */
	other_thread(d, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL,
		     ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	other_thread(d, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, ACL_SUCCESS);
	other_thread(d, ACL_MODEL_RI_CAPTURE_MODE_RELAXED, ACL_SUCCESS);
	/* Ended elsewhere: CANN's error, and the capture is over. */
	assert_int_equal(end_elsewhere(s), ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD);
	assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_SUCCESS);

	/* THREAD_LOCAL: only the capturing thread is held. */
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	other_thread(d, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_SUCCESS);
	mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	assert_int_equal(aclmdlRICaptureThreadExchangeMode(&mode), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);

	/* RELAXED holds nobody, and any thread may end it. */
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_SUCCESS);
	other_thread(d, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_SUCCESS);
	assert_int_equal(end_elsewhere(s), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureGetInfo(s, &st, NULL), ACL_SUCCESS);
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	/* (That model's handle stayed in the other thread: aclFinalize frees it.) */

	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	aclrtFree(d);
}

/*
 * aclmdlRIExecute runs on the model's own stream and waits: in time, or
 * not (the run goes on, and destroying the model meanwhile is refused).
 */
static void test_model_execute_timeout(void **state)
{
	unsigned char *src, *dst;
	struct timespec t0;
	aclrtStream g, o;
	aclrtEvent e;
	aclmdlRI m;
	int ran = 0;
	long ms;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	memset(src, 0x3c, LEN);
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(g, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(g, e, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g, &m), ACL_SUCCESS);

	/* Never recorded: nothing to wait for. */
	assert_int_equal(aclmdlRIExecute(m, -1), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x3c, LEN));

	memset(src, 0x3d, LEN);
	close_gate(o, &ran);
	assert_int_equal(aclrtRecordEvent(e, o), ACL_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(aclmdlRIExecute(m, 100), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	ms = elapsed_ms(&t0);
	assert_true(ms >= 90 && ms < 3000);
	assert_true(all_bytes(dst, 0x3c, LEN));
	assert_int_equal(aclmdlRIDestroy(m), ACL_ERROR_RT_MODEL_RUNNING);

	open_gate(o, &ran);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x3d, LEN));
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);

	aclrtDestroyEvent(e);
	aclrtDestroyStream(g);
	aclrtDestroyStream(o);
	aclrtFree(src);
	aclrtFree(dst);
}

/*
 * Every other kind of task replays with its parameters: memset, value
 * write and wait, reduce, random numbers (each run draws new numbers: the
 * counter it advanced), a host callback; and the debug prints list them.
 */
static void test_model_replays_tasks(void **state)
{
	aclrtRandomNumTaskInfo ti;
	int32_t *acc, *one;
	uint64_t *val, num = 8;
	uint32_t *rnd, first[8];
	unsigned char *fill;
	char path[] = "/tmp/memreg-model-XXXXXX", buf[4096];
	aclrtStream s;
	aclmdlRI m;
	size_t n;
	FILE *f;
	int i, fd, ran = 0;
	void *ctr;

	(void)state;
	acc = (int32_t *)dev_alloc(64);
	one = (int32_t *)dev_alloc(64);
	val = (uint64_t *)dev_alloc(64);
	rnd = (uint32_t *)dev_alloc(64);
	fill = dev_alloc(LEN);
	ctr = dev_alloc(16);
	for (i = 0; i < 16; i++)
		one[i] = i;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtSubscribeReport(self_id(), s), ACL_SUCCESS);

	memset(&ti, 0, sizeof(ti));
	ti.dataType = ACL_UINT32;
	ti.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
	ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 4;
	memset(ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr,
	       0xff, 4);
	ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 4;
	ti.randomResultAddr = rnd;
	ti.randomCounterAddr = ctr;
	ti.randomSeed.size = 8;
	memcpy(ti.randomNum.valueOrAddr, &num, 8);
	ti.randomNum.size = 8;

	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(fill, LEN, 0x77, LEN, s), ACL_SUCCESS);
	assert_int_equal(aclrtValueWrite(val, 5, 0, s), ACL_SUCCESS);
	assert_int_equal(aclrtValueWait(val, 5, ACL_STREAM_WAIT_VALUE_EQ, s),
			 ACL_SUCCESS);
	assert_int_equal(aclrtReduceAsync(acc, one, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT32, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtRandomNumAsync(&ti, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(count_cb, &ran, ACL_CALLBACK_NO_BLOCK, s),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	assert_int_equal(*val, 0);
	assert_int_equal(acc[3], 0);

	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(fill, 0x77, LEN));
	assert_int_equal(*val, 5);
	assert_int_equal(acc[3], 3);
	memcpy(first, rnd, sizeof(first));

	memset(fill, 0, LEN);
	*val = 0;
	assert_int_equal(aclmdlRIExecuteAsync(m, s), ACL_SUCCESS);
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(ran, 2);
	assert_true(all_bytes(fill, 0x77, LEN));
	assert_int_equal(*val, 5);
	assert_int_equal(acc[3], 6);
	assert_memory_not_equal(first, rnd, sizeof(first));

	/* The prints name each task. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(aclmdlRIDebugPrint(m), ACL_SUCCESS);
#pragma GCC diagnostic pop
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE),
			 ACL_SUCCESS);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	unlink(path);
	assert_non_null(strstr(buf, "\"task_count\": 6"));
	assert_non_null(strstr(buf, "\"type\": \"MEMSET\""));
	assert_non_null(strstr(buf, "\"type\": \"VALUE_WRITE\""));
	assert_non_null(strstr(buf, "\"type\": \"VALUE_WAIT\""));
	assert_non_null(strstr(buf, "\"type\": \"REDUCE\""));
	assert_non_null(strstr(buf, "\"type\": \"RANDOM_NUM\""));
	assert_non_null(strstr(buf, "\"type\": \"HOST_CALLBACK\""));
	assert_non_null(strstr(buf, "\"value\": 119"));

	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyStream(s);
	aclrtFree(acc);
	aclrtFree(one);
	aclrtFree(val);
	aclrtFree(rnd);
	aclrtFree(fill);
	aclrtFree(ctr);
}

/*
 * A model destroyed while its run is queued (behind a gate), or after
 * its event was destroyed: the runs own what they use and finish right.
 */
static void test_model_destroy_while_queued(void **state)
{
	unsigned char *src, *dst;
	aclrtStream g, o;
	aclrtEvent e;
	aclmdlRI m;
	int ran = 0;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	memset(src, 0x19, LEN);
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(g, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEventWithFlag(e, g, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g, &m), ACL_SUCCESS);

	/* The model keeps its event: the handle goes, the runs still record. */
	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	close_gate(g, &ran);
	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_ERROR_INVALID_PARAM);
	assert_true(all_bytes(dst, 0, LEN));
	open_gate(g, &ran);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x19, LEN));

	aclrtDestroyStream(g);
	aclrtDestroyStream(o);
	aclrtFree(src);
	aclrtFree(dst);
}

/*
 * Plain records and waits of a capturing event inside one capture run in
 * order with the model; a wait on another stream for a record captured
 * here is not pulled into the model (memreg models are one stream): it
 * has no record to wait for yet, and its stream goes on at once.
 */
static void test_model_plain_events(void **state)
{
	unsigned char *src, *dst;
	aclrtStream g, o;
	aclrtEvent e;
	aclmdlRI m;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	memset(src, 0x2e, LEN);
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(g, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, g), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(g, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, g), ACL_SUCCESS);
	/* Another stream: an ordinary wait, for records before the capture. */
	assert_int_equal(aclrtStreamWaitEvent(o, e), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(o), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(g, &m), ACL_SUCCESS);

	assert_int_equal(aclmdlRIExecuteAsync(m, g), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x2e, LEN));
	/* The run's record was a real one: the event has completed. */
	assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);

	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(g);
	aclrtDestroyStream(o);
	aclrtFree(src);
	aclrtFree(dst);
}

/*
 * What the program leaves behind goes with aclFinalize (the teardown):
 * a capture still open, models never destroyed, a model's own stream.
 * ASan's leak check sees anything left.
 */
static void test_model_left_to_finalize(void **state)
{
	unsigned char *src, *dst;
	aclrtStream s, t;
	aclrtEvent e;
	aclmdlRI m;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&t), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureBegin(t, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, t), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(dst, LEN, 1, LEN, t), ACL_SUCCESS);
}

void run_model_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_model_copy_replays,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_h2d_reads_at_run,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_external_wait_blocks,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_external_record,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_two_models_external,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_errors,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_modes,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_execute_timeout,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_replays_tasks,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_destroy_while_queued,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_plain_events,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_model_left_to_finalize,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_model", tests, NULL, NULL, res);
}
