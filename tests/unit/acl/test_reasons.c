// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Every refusal a program can provoke says why in aclGetRecentErrMsg, as
 * CANN's does: "<call> failed: <code name> (<number>): <argument and
 * reason>".  One row per mistake: the call, the code it must return
 * (CANN's), and a piece of the reason that only that mistake gives.
 * The code is checked with aclrtGetLastError too: a reason must never
 * change which code is recorded.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define DEV_SIZE	4096

/* What the rows need: live things, and things that are gone. */
static struct fixture {
	void *dev;		/* aclrtMalloc, DEV_SIZE */
	void *dev_freed;	/* aclrtMalloc'd, then aclrtFree'd */
	void *host;		/* aclrtMallocHost, DEV_SIZE */
	void *host_freed;	/* aclrtMallocHost'd, then aclrtFreeHost'd */
	aclrtStream stream;
	aclrtStream stream_gone;	/* destroyed */
	aclrtEvent event;
	aclrtEvent event_gone;		/* destroyed */
	aclrtEvent event_nosync;	/* ACL_EVENT_TIME_LINE only */
	aclrtContext ctx_default;	/* device 0's, aclrtSetDevice's */
	aclrtAllocatorDesc desc;	/* nothing set in it */
	char buf[2 * DEV_SIZE];		/* plain process memory */
} fx;

static int setup(void **state)
{
	(void)state;
	memset(&fx, 0, sizeof(fx));
	if (fake_kernel_setup() || aclInit(NULL) != ACL_SUCCESS ||
	    aclrtSetDevice(0) != ACL_SUCCESS ||
	    aclrtMalloc(&fx.dev, DEV_SIZE, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMallocHost(&fx.host, DEV_SIZE) ||
	    aclrtCreateStream(&fx.stream) ||
	    aclrtCreateEvent(&fx.event) ||
	    aclrtCreateEventWithFlag(&fx.event_nosync, ACL_EVENT_TIME_LINE) ||
	    aclrtGetCurrentContext(&fx.ctx_default))
		return -1;
	/* Made and ended last, so that no live thing takes their address. */
	if (aclrtMalloc(&fx.dev_freed, DEV_SIZE, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtFree(fx.dev_freed) ||
	    aclrtMallocHost(&fx.host_freed, DEV_SIZE) ||
	    aclrtFreeHost(fx.host_freed) ||
	    aclrtCreateStream(&fx.stream_gone) ||
	    aclrtDestroyStream(fx.stream_gone) ||
	    aclrtCreateEvent(&fx.event_gone) ||
	    aclrtDestroyEvent(fx.event_gone))
		return -1;
	fx.desc = aclrtAllocatorCreateDesc();
	if (!fx.desc)
		return -1;
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	aclGetRecentErrMsg();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	aclrtAllocatorDestroyDesc(fx.desc);
	aclFinalize();
	fake_kernel_teardown();
	return 0;
}

static void nothing(void *arg)
{
	(void)arg;
}

/*
 * X(name, call, code, reason, expression): the expression makes the
 * mistake with the fixture f.
 */
#define REFUSALS(X)							\
	/* Freeing: double, foreign, the wrong free, inside. */		\
	X(free_null, "aclrtFree", ACL_ERROR_INVALID_PARAM,		\
	  "devPtr is NULL", aclrtFree(NULL))				\
	X(free_twice, "aclrtFree", ACL_ERROR_INVALID_PARAM,		\
	  "was already freed (by aclrtFree)", aclrtFree(f->dev_freed))	\
	X(free_foreign, "aclrtFree", ACL_ERROR_INVALID_PARAM,		\
	  "was not returned by aclrtMalloc", aclrtFree(f->buf))		\
	X(free_host_mem, "aclrtFree", ACL_ERROR_INVALID_PARAM,		\
	  "is host memory from aclrtMallocHost: free it with aclrtFreeHost", \
	  aclrtFree(f->host))						\
	X(free_inside, "aclrtFree", ACL_ERROR_INVALID_PARAM,		\
	  "is inside the device allocation at",				\
	  aclrtFree((char *)f->dev + 64))				\
	X(freehost_null, "aclrtFreeHost", ACL_ERROR_INVALID_PARAM,	\
	  "hostPtr is NULL", aclrtFreeHost(NULL))			\
	X(freehost_dev_mem, "aclrtFreeHost", ACL_ERROR_INVALID_PARAM,	\
	  "is device memory from aclrtMalloc: free it with aclrtFree",	\
	  aclrtFreeHost(f->dev))					\
	X(freehost_twice, "aclrtFreeHost", ACL_ERROR_INVALID_PARAM,	\
	  "was already freed (by aclrtFreeHost)",			\
	  aclrtFreeHost(f->host_freed))					\
	X(freehost_foreign, "aclrtFreeHost", ACL_ERROR_INVALID_PARAM,	\
	  "was not returned by aclrtMallocHost", aclrtFreeHost(f->buf))	\
	/* Allocating. */						\
	X(malloc_null, "aclrtMalloc", ACL_ERROR_INVALID_PARAM,		\
	  "devPtr is NULL",						\
	  aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST))		\
	X(malloc_zero, "aclrtMalloc", ACL_ERROR_INVALID_PARAM,		\
	  "size is 0", aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST))	\
	X(malloc_huge1g, "aclrtMalloc", ACL_ERROR_RT_FEATURE_NOT_SUPPORT, \
	  "1 GiB pages", aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE1G_ONLY)) \
	X(mallochost_null, "aclrtMallocHost", ACL_ERROR_INVALID_PARAM,	\
	  "hostPtr is NULL", aclrtMallocHost(NULL, 64))			\
	X(mallochost_zero, "aclrtMallocHost", ACL_ERROR_INVALID_PARAM,	\
	  "size is 0", aclrtMallocHost(&p, 0))				\
	X(meminfo_null, "aclrtGetMemInfo", ACL_ERROR_INVALID_PARAM,	\
	  "free is NULL", aclrtGetMemInfo(ACL_HBM_MEM, NULL, &n))	\
	X(meminfo_attr, "aclrtGetMemInfo", ACL_ERROR_INVALID_PARAM,	\
	  "attr 99 is not an aclrtMemAttr",				\
	  aclrtGetMemInfo((aclrtMemAttr)99, &n, &n))			\
	/* Copies: sizes, kinds, which side is device memory. */	\
	X(copy_destmax, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID,	\
	  "count 8192 is larger than destMax 4096",			\
	  aclrtMemcpy(f->dev, 4096, f->buf, 8192,			\
		      ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(copy_async_destmax, "aclrtMemcpyAsync", ACL_ERROR_RT_PARAM_INVALID, \
	  "count 8192 is larger than destMax 4096",			\
	  aclrtMemcpyAsync(f->dev, 4096, f->buf, 8192,			\
			   ACL_MEMCPY_HOST_TO_DEVICE, f->stream))	\
	X(copy_dst_null, "aclrtMemcpy", ACL_ERROR_INVALID_PARAM,	\
	  "dst is NULL",						\
	  aclrtMemcpy(NULL, 64, f->buf, 64, ACL_MEMCPY_HOST_TO_DEVICE))	\
	X(copy_src_null, "aclrtMemcpy", ACL_ERROR_INVALID_PARAM,	\
	  "src is NULL",						\
	  aclrtMemcpy(f->dev, 64, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE))	\
	X(copy_h2d_to_host, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID,	\
	  "is not device memory (from aclrtMalloc), as ACL_MEMCPY_HOST_TO_DEVICE needs", \
	  aclrtMemcpy(f->buf, 64, f->buf + 64, 64,			\
		      ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(copy_h2d_to_pinned, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID, \
	  "is host memory (aclrtMallocHost), but ACL_MEMCPY_HOST_TO_DEVICE needs device memory there", \
	  aclrtMemcpy(f->host, 64, f->buf, 64,				\
		      ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(copy_d2h_from_host, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID, \
	  "src 0x",							\
	  aclrtMemcpy(f->buf, 64, f->buf + 64, 64,			\
		      ACL_MEMCPY_DEVICE_TO_HOST))			\
	X(copy_past_end, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID,	\
	  "runs past the end of its device allocation",			\
	  aclrtMemcpy(f->dev, 1 << 20, fake_big, 1 << 20,		\
		      ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(copy_to_freed, "aclrtMemcpy", ACL_ERROR_RT_PARAM_INVALID,	\
	  "was freed (by aclrtFree)",					\
	  aclrtMemcpy(f->dev_freed, 64, f->buf, 64,			\
		      ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(copy_kind_reserved, "aclrtMemcpy", ACL_ERROR_INVALID_PARAM,	\
	  "(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE) is reserved",		\
	  aclrtMemcpy(f->dev, 64, f->dev, 64,				\
		      ACL_MEMCPY_INTER_DEVICE_TO_DEVICE))		\
	X(copy_kind_unknown, "aclrtMemcpy", ACL_ERROR_INVALID_PARAM,	\
	  "kind 42 is not an aclrtMemcpyKind",				\
	  aclrtMemcpy(f->dev, 64, f->buf, 64, (aclrtMemcpyKind)42))	\
	X(memset_null, "aclrtMemset", ACL_ERROR_INVALID_PARAM,		\
	  "devPtr is NULL", aclrtMemset(NULL, 64, 0, 64))		\
	X(memset_max, "aclrtMemset", ACL_ERROR_RT_PARAM_INVALID,	\
	  "count 64 is larger than maxCount 16",			\
	  aclrtMemset(f->dev, 16, 0, 64))				\
	X(memset_async_max, "aclrtMemsetAsync", ACL_ERROR_RT_PARAM_INVALID, \
	  "count 64 is larger than maxCount 16",			\
	  aclrtMemsetAsync(f->dev, 16, 0, 64, f->stream))		\
	X(value_unaligned, "aclrtValueWrite", ACL_ERROR_INVALID_PARAM,	\
	  "is not an 8-byte aligned address",				\
	  aclrtValueWrite((char *)f->dev + 4, 1, 0, f->stream))		\
	/* Devices, contexts, initialisation. */			\
	X(device_range, "aclrtSetDevice", ACL_ERROR_RT_INVALID_DEVICEID, \
	  "device 99 does not exist", aclrtSetDevice(99))		\
	X(device_negative, "aclrtSetDevice", ACL_ERROR_RT_INVALID_DEVICEID, \
	  "device -1 does not exist", aclrtSetDevice(-1))		\
	X(ctx_destroy_default, "aclrtDestroyContext", ACL_ERROR_INVALID_PARAM, \
	  "default context: aclrtResetDevice ends it",			\
	  aclrtDestroyContext(f->ctx_default))				\
	X(ctx_unknown, "aclrtSetCurrentContext", ACL_ERROR_INVALID_PARAM, \
	  "is unknown or already destroyed",				\
	  aclrtSetCurrentContext(f->buf))				\
	X(init_no_file, "aclInit", ACL_ERROR_INVALID_PARAM,		\
	  "configPath /nonexistent/acl.json: No such file",		\
	  aclInit("/nonexistent/acl.json"))				\
	X(init_repeat, "aclInit", ACL_ERROR_REPEAT_INITIALIZE,		\
	  "already initialized", aclInit(NULL))				\
	/* Streams and events, unknown or gone. */			\
	X(stream_gone, "aclrtSynchronizeStream", ACL_ERROR_INVALID_PARAM, \
	  "is unknown or already destroyed",				\
	  aclrtSynchronizeStream(f->stream_gone))			\
	X(stream_destroy_twice, "aclrtDestroyStream", ACL_ERROR_INVALID_PARAM, \
	  "is unknown or already destroyed",				\
	  aclrtDestroyStream(f->stream_gone))				\
	X(stream_destroy_default, "aclrtDestroyStream", ACL_ERROR_INVALID_PARAM, \
	  "the default stream goes with its context",			\
	  aclrtDestroyStream(NULL))					\
	X(stream_timeout, "aclrtSynchronizeStreamWithTimeout",		\
	  ACL_ERROR_INVALID_PARAM, "timeout -5 ms",			\
	  aclrtSynchronizeStreamWithTimeout(f->stream, -5))		\
	X(event_destroy_twice, "aclrtDestroyEvent", ACL_ERROR_INVALID_PARAM, \
	  "is unknown or already destroyed",				\
	  aclrtDestroyEvent(f->event_gone))				\
	X(event_record_gone, "aclrtRecordEvent", ACL_ERROR_INVALID_PARAM, \
	  "is unknown or already destroyed",				\
	  aclrtRecordEvent(f->event_gone, f->stream))			\
	X(event_record_null, "aclrtRecordEvent", ACL_ERROR_INVALID_PARAM, \
	  "event is NULL", aclrtRecordEvent(NULL, f->stream))		\
	X(event_flags, "aclrtCreateEventWithFlag", ACL_ERROR_INVALID_PARAM, \
	  "has bits that are no event flag",				\
	  aclrtCreateEventWithFlag(&e, 0x80000000U))			\
	X(event_wait_nosync, "aclrtStreamWaitEvent", ACL_ERROR_INVALID_PARAM, \
	  "was made without ACL_EVENT_SYNC: it cannot be waited for",	\
	  aclrtStreamWaitEvent(f->stream, f->event_nosync))		\
	X(event_elapsed_gone, "aclrtEventElapsedTime", ACL_ERROR_INVALID_PARAM, \
	  "startEvent 0x",						\
	  aclrtEventElapsedTime(&ms, f->event_gone, f->event))		\
	X(event_stamp_none, "aclrtEventGetTimestamp",			\
	  ACL_ERROR_RT_EVENT_NOT_COMPLETE, "never recorded",		\
	  aclrtEventGetTimestamp(f->event, &stamp))			\
	/* Callbacks and reports. */					\
	X(callback_unsubscribed, "aclrtLaunchCallback",			\
	  ACL_ERROR_RT_STREAM_NO_CB_REG, "has no thread subscribed",	\
	  aclrtLaunchCallback(nothing, NULL, ACL_CALLBACK_BLOCK, f->stream)) \
	X(callback_block_type, "aclrtLaunchCallback", ACL_ERROR_INVALID_PARAM, \
	  "blockType 7",						\
	  aclrtLaunchCallback(nothing, NULL, (aclrtCallbackBlockType)7,	\
			      f->stream))				\
	X(unsubscribe_none, "aclrtUnSubscribeReport",			\
	  ACL_ERROR_STREAM_NOT_SUBSCRIBE, "has no subscribed thread",	\
	  aclrtUnSubscribeReport(1, f->stream))				\
	X(report_unsubscribed, "aclrtProcessReport",			\
	  ACL_ERROR_THREAD_NOT_SUBSCRIBE, "is subscribed to no stream",	\
	  aclrtProcessReport(0))					\
	/* The allocator descriptor. */					\
	X(alloc_register_empty, "aclrtAllocatorRegister", ACL_ERROR_INVALID_PARAM, \
	  "has no allocator object: set it with aclrtAllocatorSetObjToDesc", \
	  aclrtAllocatorRegister(f->stream, f->desc))			\
	X(alloc_register_default, "aclrtAllocatorRegister", ACL_ERROR_INVALID_PARAM, \
	  "stream is NULL: the default stream takes no allocator",	\
	  aclrtAllocatorRegister(NULL, f->desc))			\
	X(alloc_set_null_desc, "aclrtAllocatorSetObjToDesc", ACL_ERROR_INVALID_PARAM, \
	  "allocatorDesc is NULL",					\
	  aclrtAllocatorSetObjToDesc(NULL, f->buf))			\
	X(alloc_get_unregistered, "aclrtAllocatorGetByStream",		\
	  ACL_ERROR_INVALID_PARAM, "has no allocator registered",	\
	  aclrtAllocatorGetByStream(f->stream, &desc, NULL, NULL, NULL,	\
				    NULL, NULL))			\
	/* Others. */							\
	X(ipc_bad_key, "aclrtIpcMemClose", ACL_ERROR_INVALID_PARAM,	\
	  "is not a key of aclrtIpcMemGetExportKey",			\
	  aclrtIpcMemClose("not a key"))				\
	X(version_pkg, "aclsysGetVersionStr", ACL_ERROR_INVALID_PARAM,	\
	  "pkgName driver: only",					\
	  aclsysGetVersionStr("driver", f->buf))

/* More than any allocation of DEV_SIZE maps: the copy's source. */
static char fake_big[1 << 20];

#define X_FUNC(name, call, code, reason, expr)				\
	static aclError do_##name(struct fixture *f)			\
	{								\
		aclrtAllocatorDesc desc;				\
		uint64_t stamp;						\
		size_t n;						\
		aclrtEvent e;						\
		float ms;						\
		void *p;						\
									\
		(void)f; (void)desc; (void)stamp; (void)n; (void)e;	\
		(void)ms; (void)p;					\
		return expr;						\
	}
REFUSALS(X_FUNC)

static const struct refusal {
	const char *name;
	const char *call;
	aclError code;
	const char *reason;
	aclError (*run)(struct fixture *f);
} refusals[] = {
#define X_ROW(name, call, code, reason, expr)				\
	{ #name, call, code, reason, do_##name },
	REFUSALS(X_ROW)
};

static void check_refusal(const struct refusal *r, aclError got)
{
	char prefix[128];
	const char *msg;

	if (got != r->code)
		fail_msg("%s: %s returned %d, not %d", r->name, r->call, got,
			 r->code);
	msg = aclGetRecentErrMsg();
	if (!msg)
		fail_msg("%s: no message", r->name);
	snprintf(prefix, sizeof(prefix), "%s failed: ", r->call);
	if (strncmp(msg, prefix, strlen(prefix)))
		fail_msg("%s: \"%s\" does not begin with \"%s\"", r->name, msg,
			 prefix);
	if (!strstr(msg, r->reason))
		fail_msg("%s: \"%s\" does not say \"%s\"", r->name, msg,
			 r->reason);
	if (aclrtGetLastError(ACL_RT_THREAD_LEVEL) != r->code)
		fail_msg("%s: the thread's error is not %d", r->name, r->code);
}

static void test_reason_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++)
		check_refusal(&refusals[i], refusals[i].run(&fx));
}

/* The whole message of the commonest mistake, pointer and all. */
static void test_reason_double_free(void **state)
{
	char want[256];
	void *p;

	(void)state;
	assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p), ACL_ERROR_INVALID_PARAM);
	snprintf(want, sizeof(want),
		 "aclrtFree failed: ACL_ERROR_INVALID_PARAM (100000): devPtr %p was already freed (by aclrtFree)",
		 p);
	assert_string_equal(aclGetRecentErrMsg(), want);
	/* A success in between neither clears nor changes it. */
	assert_int_equal(aclrtFree(p), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_non_null(strstr(aclGetRecentErrMsg(), "was already freed"));
	/* Given out again, it is live: freeing it is right once more. */
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void *no_context_thread(void *arg)
{
	const char **msg = arg;
	static char copy[512];
	void *p;

	if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST) !=
	    ACL_ERROR_RT_CONTEXT_NULL)
		return NULL;
	snprintf(copy, sizeof(copy), "%s", aclGetRecentErrMsg());
	*msg = copy;
	return NULL;
}

/* A thread that set no device, and a runtime ended twice. */
static void test_reason_no_context(void **state)
{
	const char *msg = NULL;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, no_context_thread, &msg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclrtMalloc failed: ACL_ERROR_RT_CONTEXT_NULL (107002): "));
	assert_non_null(strstr(msg, "no current context in this thread"));

	assert_int_equal(aclrtAllocatorDestroyDesc(fx.desc), ACL_SUCCESS);
	fx.desc = NULL;
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	assert_non_null(strstr(aclGetRecentErrMsg(), "aclFinalize failed: ACL_ERROR_REPEAT_FINALIZE (100037): already finalized"));
	/* aclFinalize freed the memory: a free after it says so. */
	assert_int_equal(aclrtFree(fx.dev), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "was already freed (by aclFinalize)"));
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

void run_reason_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reason_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_double_free, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_no_context, setup, teardown),
	};

	RUN_GROUP("acl_reasons", tests, NULL, NULL, res);
}
