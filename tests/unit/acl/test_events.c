// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Events, host callbacks, forced tear-down, stream queries and exception
 * info, against the fake devices.
 *
 * Most tests hold a stream with a "gate": a blocking host callback that
 * the test thread itself is subscribed to run, so the stream's later
 * tasks cannot run until the test calls aclrtProcessReport.  That makes
 * "not yet" observable without sleeping for luck.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define LEN	(1 << 20)

static int setup(void **state)
{
	(void)state;
	if (fake_kernel_setup() || aclInit(NULL) != ACL_SUCCESS ||
	    aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* No callback of a test outlives it. */
	aclrtSetExceptionInfoCallback(NULL);
	aclFinalize();
	fake_kernel_teardown();
	return 0;
}

/*
 * Stream A makes a result (behind a gate, so it is slow), then records E;
 * stream B waits for E and copies the result out.  B's copy must see A's
 * result: without the wait it would run at once and copy zeros.
 */
static void test_event_orders_streams(void **state)
{
	aclrtStream a, b;
	aclrtEvent e;
	unsigned char *src, *out;
	aclrtEventRecordedStatus st;
	aclrtStreamStatus ss;
	void *d1, *d2;
	int ran = 0;

	(void)state;
	src = malloc(LEN);
	out = calloc(1, LEN);
	assert_non_null(src);
	assert_non_null(out);
	memset(src, 0x5a, LEN);
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, LEN, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d2, LEN, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d2, LEN, 0, LEN), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d1, LEN, src, LEN, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);

	close_gate(a, &ran);
	assert_int_equal(aclrtMemcpyAsync(d2, LEN, d1, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, a), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, LEN, d2, LEN, ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);

	/* B is held by the event, not by anything of its own. */
	sleep_ms(50);
	assert_int_equal(aclrtStreamQuery(b, &ss), ACL_SUCCESS);
	assert_int_equal(ss, ACL_STREAM_STATUS_NOT_READY);
	assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	assert_int_equal(out[0], 0);

	open_gate(a, &ran);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(out[0], 0x5a);
	assert_int_equal(out[LEN - 1], 0x5a);
	assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(e), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyStream(a);
	aclrtDestroyStream(b);
	aclrtFree(d1);
	aclrtFree(d2);
	free(src);
	free(out);
}

/* A flag event: waits block until a record runs, even one queued later. */
static void test_event_wait_before_record(void **state)
{
	aclrtStream a, b;
	aclrtEvent e;
	aclrtEventWaitStatus ws;
	aclrtEventStatus old;
	unsigned char out[16] = { 0 };
	void *d;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 16, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 16, 7, 16), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEvent(e, &old), ACL_SUCCESS);
	assert_int_equal(old, ACL_EVENT_STATUS_NOT_READY);

	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, 16, d, 16, ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);
	sleep_ms(30);
	assert_int_equal(out[0], 0);
	assert_int_equal(aclrtQueryEventWaitStatus(e, &ws), ACL_SUCCESS);
	assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);

	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(out[15], 7);
	assert_int_equal(aclrtQueryEventWaitStatus(e, &ws), ACL_SUCCESS);
	assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
	assert_int_equal(aclrtQueryEvent(e, &old), ACL_SUCCESS);
	assert_int_equal(old, ACL_EVENT_STATUS_COMPLETE);

	/* Reset (a task too) clears it again. */
	assert_int_equal(aclrtResetEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEvent(e, &old), ACL_SUCCESS);
	assert_int_equal(old, ACL_EVENT_STATUS_NOT_READY);
	/* Timing was not asked for. */
	{
		float ms;

		assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
		assert_int_equal(aclrtSynchronizeEvent(e), ACL_SUCCESS);
		assert_int_equal(aclrtEventElapsedTime(&ms, e, e),
				 ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
	}
	aclrtDestroyEvent(e);

	/* Without ACL_EVENT_SYNC an event cannot be waited for or reset. */
	assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtResetEvent(e, b), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyEvent(e);
	assert_int_equal(aclrtCreateEventWithFlag(&e, 0x80000000U), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_SYNC),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyStream(a);
	aclrtDestroyStream(b);
	aclrtFree(d);
}

/* A capturing event: nothing to wait for before its first record. */
static void test_event_ex_captures(void **state)
{
	aclrtEventRecordedStatus st;
	aclrtEventWaitStatus ws;
	aclrtStream a, b;
	aclrtEvent e;
	unsigned char out[8] = { 0 };
	void *d;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 8, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtResetEvent(e, a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtQueryEventWaitStatus(e, &ws), ACL_ERROR_INVALID_PARAM);

	/* Recorded behind a gate: the wait holds B until the record runs. */
	close_gate(a, &ran);
	assert_int_equal(aclrtMemsetAsync(d, 8, 3, 8, a), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, 8, d, 8, ACL_MEMCPY_DEVICE_TO_HOST, b), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(e, 20), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(e, 0), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(out[0], 0);
	open_gate(a, &ran);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(e, -1), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(out[7], 3);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(e, -2), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(a);
	aclrtDestroyStream(b);
	aclrtFree(d);
}

static void test_event_elapsed(void **state)
{
	aclrtEvent start, end;
	aclrtStream s;
	uint64_t t0, t1;
	float ms = -1;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&start), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE), ACL_SUCCESS);
	/* Never recorded: no time yet. */
	assert_int_equal(aclrtEventElapsedTime(&ms, start, end), ACL_ERROR_RT_EVENT_NOT_COMPLETE);
	assert_int_equal(aclrtRecordEvent(start, s), ACL_SUCCESS);
	close_gate(s, &ran);
	assert_int_equal(aclrtRecordEvent(end, s), ACL_SUCCESS);
	/* The start has its time before the sleep, the end after it. */
	assert_int_equal(aclrtSynchronizeEvent(start), ACL_SUCCESS);
	sleep_ms(40);
	open_gate(s, &ran);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	/* The times are when the records ran, 40 ms apart at least. */
	assert_int_equal(aclrtEventElapsedTime(&ms, start, end), ACL_SUCCESS);
	assert_true(ms >= 39.0f && ms < 5000.0f);
	assert_int_equal(aclrtEventElapsedTime(&ms, end, start),
			 ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL);
	assert_int_equal(aclrtEventGetTimestamp(start, &t0), ACL_SUCCESS);
	assert_int_equal(aclrtEventGetTimestamp(end, &t1), ACL_SUCCESS);
	assert_true(t1 - t0 >= 39000000ULL);
	assert_int_equal(aclrtEventElapsedTime(NULL, start, end), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyEvent(start);
	aclrtDestroyEvent(end);
	aclrtDestroyStream(s);
}

static void test_stream_query_timeout(void **state)
{
	aclrtStreamStatus st;
	aclrtStream s;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtStreamQuery(s, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
	close_gate(s, &ran);
	assert_int_equal(aclrtStreamQuery(s, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 20), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, 0), ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, -2), ACL_ERROR_INVALID_PARAM);
	open_gate(s, &ran);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(s, -1), ACL_SUCCESS);
	assert_int_equal(aclrtStreamQuery(s, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
	assert_int_equal(aclrtStreamQuery(s, NULL), ACL_ERROR_INVALID_PARAM);
	aclrtDestroyStream(s);
	assert_int_equal(aclrtStreamQuery(s, &st), ACL_ERROR_INVALID_PARAM);
}

/* Queued work is dropped; the gate's blocking callback never runs. */
static void test_destroy_stream_force(void **state)
{
	unsigned char out[32];
	aclrtStream s, keep;
	int ran = 0;
	void *d;

	(void)state;
	memset(out, 1, sizeof(out));
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&keep), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 32, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	close_gate(s, &ran);
	assert_int_equal(aclrtMemsetAsync(out, 32, 9, 32, s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStreamForce(s), ACL_SUCCESS);
	assert_int_equal(ran, 0);
	assert_int_equal(out[0], 1);
	/* The report went with the stream; the thread has nothing left. */
	assert_int_equal(aclrtProcessReport(0), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemsetAsync(out, 32, 9, 32, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStreamForce(s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStreamForce(NULL), ACL_ERROR_INVALID_PARAM);
	/* Other streams are untouched. */
	assert_int_equal(aclrtMemsetAsync(d, 32, 4, 32, keep), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(keep), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)d)[31], 4);
	/* A plain destroy, for contrast, lets the queue run. */
	assert_int_equal(aclrtMemsetAsync(out, 32, 9, 32, keep), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(keep), ACL_SUCCESS);
	assert_int_equal(out[31], 9);
	aclrtFree(d);
}

/* A stream waiting for an event whose recording stream went by force goes on. */
static void test_force_releases_waiters(void **state)
{
	aclrtStream a, b;
	aclrtEvent e;
	int ran = 0;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
	close_gate(a, &ran);
	assert_int_equal(aclrtRecordEvent(e, a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(b, e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStreamForce(a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(ran, 0);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(b);
}

static void test_reset_device_force(void **state)
{
	unsigned char out[16];
	aclrtContext ctx, other;
	aclrtStream s, s1;
	int32_t dev;
	int ran = 0;

	(void)state;
	memset(out, 1, sizeof(out));
	/* Counted twice, plus a context of its own on device 0 ... */
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtCreateContext(&other, 1), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&s1), ACL_SUCCESS);
	assert_int_equal(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	close_gate(s, &ran);
	assert_int_equal(aclrtMemsetAsync(out, 16, 9, 16, s), ACL_SUCCESS);
	/* ... all of it goes at once, queued work dropped. */
	assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
	assert_int_equal(ran, 0);
	assert_int_equal(out[0], 1);
	assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetCurrentContext(ctx), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_INVALID_PARAM);
	/* Device 1 is another device. */
	assert_int_equal(aclrtSetCurrentContext(other), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s1), ACL_SUCCESS);
	assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);	/* not set: fine */
	assert_int_equal(aclrtResetDeviceForce(FAKE_DEVICES), ACL_ERROR_RT_INVALID_DEVICEID);
	/* And the device can be set again. */
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 0);
	aclrtDestroyContext(other);
}

struct cb_probe {
	volatile unsigned char *dev;
	unsigned char seen;
	pthread_t thread;
	int calls;
};

static void probe_cb(void *arg)
{
	struct cb_probe *p = arg;

	p->seen = p->dev[0];
	p->thread = pthread_self();
	__atomic_add_fetch(&p->calls, 1, __ATOMIC_RELEASE);
}

static int stop_reporter;

static void *reporter(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop_reporter, __ATOMIC_RELAXED))
		aclrtProcessReport(20);
	return NULL;
}

static void test_callbacks(void **state)
{
	struct cb_probe blocking = { 0 }, loose = { 0 };
	pthread_t thr;
	aclrtStream s;
	void *d;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 16, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(d, 16, 0, 16), ACL_SUCCESS);
	blocking.dev = loose.dev = d;

	assert_int_equal(aclrtLaunchCallback(probe_cb, &blocking, ACL_CALLBACK_BLOCK, s),
			 ACL_ERROR_RT_STREAM_NO_CB_REG);
	assert_int_equal(aclrtProcessReport(0), ACL_ERROR_THREAD_NOT_SUBSCRIBE);
	stop_reporter = 0;
	assert_int_equal(pthread_create(&thr, NULL, reporter, NULL), 0);
	assert_int_equal(aclrtSubscribeReport((uint64_t)thr, s), ACL_SUCCESS);
	assert_int_equal(aclrtSubscribeReport((uint64_t)thr, s), ACL_ERROR_REPEAT_SUBSCRIBE);
	assert_int_equal(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtLaunchCallback(probe_cb, NULL, (aclrtCallbackBlockType)2, s),
			 ACL_ERROR_INVALID_PARAM);

	/* Blocking: the memset after it waits until it has run. */
	assert_int_equal(aclrtLaunchCallback(probe_cb, &blocking, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(d, 16, 0x77, 16, s), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(probe_cb, &loose, ACL_CALLBACK_NO_BLOCK, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(blocking.calls, 1);
	assert_int_equal(blocking.seen, 0);
	assert_true(pthread_equal(blocking.thread, thr));
	/* Non-blocking: handed over in order, run when the thread gets to it. */
	while (!__atomic_load_n(&loose.calls, __ATOMIC_ACQUIRE))
		sleep_ms(1);
	assert_int_equal(loose.seen, 0x77);
	assert_true(pthread_equal(loose.thread, thr));

	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
	assert_int_equal(aclrtUnSubscribeReport((uint64_t)thr, s), ACL_SUCCESS);
	assert_int_equal(aclrtUnSubscribeReport((uint64_t)thr, s), ACL_ERROR_STREAM_NOT_SUBSCRIBE);
	__atomic_store_n(&stop_reporter, 1, __ATOMIC_RELAXED);
	pthread_join(thr, NULL);

	/* Nothing arrives: the wait ends with the timeout code. */
	assert_int_equal(aclrtSubscribeReport(self_id(), s), ACL_SUCCESS);
	assert_int_equal(aclrtProcessReport(10), ACL_ERROR_WAIT_CALLBACK_TIMEOUT);
	assert_int_equal(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_SUCCESS);
	aclrtDestroyStream(s);
	aclrtFree(d);
}

/* A plain destroy runs the queue first, the host callbacks in it included. */
static void test_destroy_runs_callbacks(void **state)
{
	struct cb_probe probe = { 0 };
	unsigned char dev[4] = { 0 };
	pthread_t thr;
	aclrtStream s;

	(void)state;
	probe.dev = dev;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	stop_reporter = 0;
	assert_int_equal(pthread_create(&thr, NULL, reporter, NULL), 0);
	assert_int_equal(aclrtSubscribeReport((uint64_t)thr, s), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(probe_cb, &probe, ACL_CALLBACK_BLOCK, s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(__atomic_load_n(&probe.calls, __ATOMIC_ACQUIRE), 1);
	assert_true(pthread_equal(probe.thread, thr));
	__atomic_store_n(&stop_reporter, 1, __ATOMIC_RELAXED);
	pthread_join(thr, NULL);
}

struct exc_seen {
	int calls;
	uint32_t task, stream, thread, device, error;
};

static struct exc_seen exc;

static void exc_cb(aclrtExceptionInfo *info)
{
	exc.calls++;
	exc.task = aclrtGetTaskIdFromExceptionInfo(info);
	exc.stream = aclrtGetStreamIdFromExceptionInfo(info);
	exc.thread = aclrtGetThreadIdFromExceptionInfo(info);
	exc.device = aclrtGetDeviceIdFromExceptionInfo(info);
	exc.error = aclrtGetErrorCodeFromExceptionInfo(info);
}

static void test_exception_info(void **state)
{
	unsigned char out[64];
	aclrtStream s;
	aclrtEvent e;
	int ran = 0;
	void *d;

	(void)state;
	memset(&exc, 0, sizeof(exc));
	assert_int_equal(aclrtGetTaskIdFromExceptionInfo(NULL), 0xffffffffU);
	assert_int_equal(aclrtGetErrorCodeFromExceptionInfo(NULL), 0xffffffffU);
	assert_int_equal(aclrtSetExceptionInfoCallback(exc_cb), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);

	/* The copy (task 2) reads memory freed before it ran: it fails. */
	close_gate(s, &ran);
	assert_int_equal(aclrtMemcpyAsync(out, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	open_gate(s, &ran);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_SYS_DMA);
	/* The thread that synchronised has it as its last error. */
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_SYS_DMA);
	assert_non_null(strstr(aclGetRecentErrMsg(),
			       "aclrtSynchronizeStream failed: ACL_ERROR_RT_SYS_DMA"));
	/* Reported once; the next sync is clean. */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(exc.calls, 1);
	assert_int_equal(exc.error, ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(exc.task, 2);
	assert_int_equal(exc.device, 0);
	assert_int_equal(exc.thread, (uint32_t)syscall(SYS_gettid));

	/* A wait that times out is a failure too, and the stream goes on. */
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithTimeout(s, e, 20), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(out, 64, 5, 64, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(out[63], 5);
	assert_int_equal(exc.calls, 2);
	assert_int_equal(exc.error, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);

	/* Without a callback, nothing is called. */
	assert_int_equal(aclrtSetExceptionInfoCallback(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithTimeout(s, e, 5), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(exc.calls, 2);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(s);
}

/* aclrtSetOpWaitTimeout bounds every later aclrtStreamWaitEvent (seconds). */
static void test_op_wait_timeout(void **state)
{
	aclrtStream s;
	aclrtEvent e;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
	assert_int_equal(aclrtSetOpWaitTimeout(1), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(s, e), ACL_SUCCESS);
	assert_int_equal(aclrtSetOpWaitTimeout(0), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(aclrtSetOpExecuteTimeOut(3), ACL_SUCCESS);
	aclrtDestroyEvent(e);
	aclrtDestroyStream(s);
}

void run_event_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_event_orders_streams, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_wait_before_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_ex_captures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_elapsed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_query_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_stream_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_force_releases_waiters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset_device_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_callbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_runs_callbacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exception_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_op_wait_timeout, setup, teardown),
	};

	RUN_GROUP("acl_events", tests, NULL, NULL, res);
}
