// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Streams made with a priority and flags (directly and through a config
 * handle) and what they read back, stream ids, the device's stream
 * budget, events recorded and waited for with a flag, and the device
 * and CANN queries: capabilities, attributes, architecture
 * compatibility, utilisation, uncorrectable memory errors.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define MAX_STREAMS	1984U	/* lib/acl/runtime.h, CANN's for Atlas A2 */

/* A stream holds its work in order: a copy queued on it arrives. */
static void check_stream_runs(aclrtStream s)
{
	char in[16] = "stream config", out[16] = "";
	void *d;

	assert_int_equal(aclrtMalloc(&d, sizeof(in), ACL_MEM_MALLOC_HUGE_FIRST),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d, sizeof(in), in, sizeof(in),
					  ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, sizeof(out), d, sizeof(in),
					  ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_string_equal(out, in);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
}

static void test_config_handle(void **state)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	uint32_t prio = 5, got = 99, bad = 8;
	size_t flag = ACL_STREAM_FAST_SYNC, size = 4096;
	void *work = &size;
	aclrtStream s;

	(void)state;
	assert_non_null(h);
	assert_null(h->workptr);
	assert_int_equal(h->workSize, 0);
	assert_int_equal(h->flag, 0);
	assert_int_equal(h->priority, 0);

	/* Each attribute with exactly its size, stored in the public struct. */
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio,
						 sizeof(prio)), ACL_SUCCESS);
	assert_int_equal(h->priority, 5);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag,
						 sizeof(flag)), ACL_SUCCESS);
	assert_int_equal(h->flag, ACL_STREAM_FAST_SYNC);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR,
						 &work, sizeof(work)), ACL_SUCCESS);
	assert_ptr_equal(h->workptr, work);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &size,
						 sizeof(size)), ACL_SUCCESS);
	assert_int_equal(h->workSize, 4096);
	/* The flag as CANN's sample passes it, a uint32_t, goes too. */
	got = ACL_STREAM_FAST_LAUNCH;
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &got,
						 sizeof(got)), ACL_SUCCESS);
	assert_int_equal(h->flag, ACL_STREAM_FAST_LAUNCH);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag,
						 sizeof(flag)), ACL_SUCCESS);
	assert_int_equal(h->flag, ACL_STREAM_FAST_SYNC);

	/* Wrong sizes, a priority past 7, unknown attributes, NULLs. */
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &flag,
						 sizeof(flag)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &prio,
						 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &prio,
						 sizeof(prio)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &bad,
						 sizeof(bad)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(h->priority, 5);
	assert_int_equal(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)4, &prio,
						 sizeof(prio)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)-1, &prio,
						 sizeof(prio)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio,
						 sizeof(prio)), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL,
						 sizeof(prio)), ACL_ERROR_INVALID_PARAM);

	/* A stream made from it reads back its priority and flags, and runs. */
	assert_int_equal(aclrtCreateStreamV2(NULL, h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetPriority(s, &got), ACL_SUCCESS);
	assert_int_equal(got, 5);
	assert_int_equal(aclrtStreamGetFlags(s, &got), ACL_SUCCESS);
	assert_int_equal(got, ACL_STREAM_FAST_SYNC);
	check_stream_runs(s);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);

	/* The struct is public: a priority set in it directly is checked. */
	h->priority = 9;
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_ERROR_INVALID_PARAM);
	h->priority = 0;
	/* Persistent: made; it runs nothing until bound (test_build.c). */
	h->flag = ACL_STREAM_PERSISTENT;
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetFlags(s, &got), ACL_SUCCESS);
	assert_int_equal(got, ACL_STREAM_PERSISTENT);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);

	/* No handle: as aclrtCreateStream. */
	assert_int_equal(aclrtCreateStreamV2(&s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetPriority(s, &got), ACL_SUCCESS);
	assert_int_equal(got, 0);
	assert_int_equal(aclrtStreamGetFlags(s, &got), ACL_SUCCESS);
	assert_int_equal(got, 0);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);

	assert_int_equal(aclrtDestroyStreamConfigHandle(h), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void *no_context(void *arg)
{
	uint32_t v;
	int32_t id;
	aclrtStream s;
	aclError *res = arg;

	res[0] = aclrtStreamGetPriority(NULL, &v);
	res[1] = aclrtStreamGetId(NULL, &id);
	res[2] = aclrtGetStreamAvailableNum(&v);
	res[3] = aclrtCreateStreamWithConfig(&s, 0, 0);
	return NULL;
}

static void test_create_with_config(void **state)
{
	aclrtStream a, b, c;
	uint32_t got;
	int32_t ida = -1, idb = -1, idd = -1;
	aclError res[4];
	pthread_t t;

	(void)state;
	/* Known flags kept, unknown bits dropped (as CANN), priority kept. */
	assert_int_equal(aclrtCreateStreamWithConfig(&a, 3, ACL_STREAM_FAST_LAUNCH |
						     ACL_STREAM_FAST_SYNC | 0x8000),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetPriority(a, &got), ACL_SUCCESS);
	assert_int_equal(got, 3);
	assert_int_equal(aclrtStreamGetFlags(a, &got), ACL_SUCCESS);
	assert_int_equal(got, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC);
	check_stream_runs(a);

	/* HUGE, CPU_SCHEDULE and DEVICE_USE_ONLY alone are recorded. */
	assert_int_equal(aclrtCreateStreamWithConfig(&b, 7, ACL_STREAM_HUGE |
						     ACL_STREAM_CPU_SCHEDULE), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetFlags(b, &got), ACL_SUCCESS);
	assert_int_equal(got, ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE);
	assert_int_equal(aclrtCreateStreamWithConfig(&c, 0, ACL_STREAM_DEVICE_USE_ONLY),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetFlags(c, &got), ACL_SUCCESS);
	assert_int_equal(got, ACL_STREAM_DEVICE_USE_ONLY);
	assert_int_equal(aclrtDestroyStream(c), ACL_SUCCESS);

	/* Refused: combined device-only, no output. */
	assert_int_equal(aclrtCreateStreamWithConfig(&c, 0, ACL_STREAM_DEVICE_USE_ONLY |
						     ACL_STREAM_FAST_LAUNCH),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM);

	/* aclrtCreateStream's and the default stream: priority 0, no flags. */
	assert_int_equal(aclrtCreateStream(&c), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetPriority(c, &got), ACL_SUCCESS);
	assert_int_equal(got, 0);
	assert_int_equal(aclrtStreamGetPriority(NULL, &got), ACL_SUCCESS);
	assert_int_equal(got, 0);
	assert_int_equal(aclrtStreamGetFlags(NULL, &got), ACL_SUCCESS);
	assert_int_equal(got, 0);

	/* Ids: one per stream, the default one's too. */
	assert_int_equal(aclrtStreamGetId(a, &ida), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetId(b, &idb), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetId(NULL, &idd), ACL_SUCCESS);
	assert_true(ida >= 0 && idb >= 0 && idd >= 0);
	assert_int_not_equal(ida, idb);
	assert_int_not_equal(ida, idd);
	assert_int_not_equal(idb, idd);
	assert_int_equal(aclrtStreamGetId(a, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetPriority(a, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetFlags(a, NULL), ACL_ERROR_INVALID_PARAM);

	/* Gone streams are refused. */
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetId(a, &ida), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetPriority(a, &got), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetFlags(a, &got), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(c), ACL_SUCCESS);

	/* A thread without a context has no default stream and no device. */
	assert_int_equal(pthread_create(&t, NULL, no_context, res), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(res[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(res[1], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(res[2], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(res[3], ACL_ERROR_RT_CONTEXT_NULL);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_priority_range(void **state)
{
	int32_t least = -1, greatest = -1;

	(void)state;
	assert_int_equal(aclrtDeviceGetStreamPriorityRange(&least, &greatest),
			 ACL_SUCCESS);
	assert_int_equal(least, 7);
	assert_int_equal(greatest, 0);
	least = -1;
	assert_int_equal(aclrtDeviceGetStreamPriorityRange(&least, NULL), ACL_SUCCESS);
	assert_int_equal(least, 7);
	assert_int_equal(aclrtDeviceGetStreamPriorityRange(NULL, NULL), ACL_SUCCESS);
}

/*
 * The budget counts every live stream of the device, default streams
 * included, and a full device refuses the next stream.
 */
static void test_cfg_stream_budget(void **state)
{
	aclrtStream *all, s, d1;
	uint32_t n0, n;
	size_t i, made;

	(void)state;
	assert_int_equal(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM);
	/* The default stream, made now, counts. */
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamAvailableNum(&n0), ACL_SUCCESS);
	assert_int_equal(n0, MAX_STREAMS - 1);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, n0 - 1);

	/* Per device: device 1's streams leave device 0's budget alone. */
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, MAX_STREAMS);
	assert_int_equal(aclrtCreateStream(&d1), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, MAX_STREAMS - 1);
	assert_int_equal(aclrtDestroyStream(d1), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);

	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, n0);

	/* Fill the device: the next one is refused, one freed is there again. */
	all = calloc(n0, sizeof(*all));
	assert_non_null(all);
	for (made = 0; made < n0; made++)
		if (aclrtCreateStream(&all[made]) != ACL_SUCCESS)
			break;
	assert_int_equal(made, n0);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_NO_STREAM_RESOURCE);
	assert_int_equal(aclrtCreateStreamWithConfig(&s, 0, 0),
			 ACL_ERROR_RT_NO_STREAM_RESOURCE);
	assert_int_equal(aclrtDestroyStream(all[0]), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&all[0]), ACL_SUCCESS);
	for (i = 0; i < made; i++)
		assert_int_equal(aclrtDestroyStream(all[i]), ACL_SUCCESS);
	free(all);
	assert_int_equal(aclrtGetStreamAvailableNum(&n), ACL_SUCCESS);
	assert_int_equal(n, n0);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_event_with_flag(void **state)
{
	aclrtEventRecordedStatus st;
	aclrtStream a, b;
	aclrtEvent e, never, gone;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&e), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEventWithFlag(&never, ACL_EVENT_SYNC), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&gone), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(gone), ACL_SUCCESS);

	/* DEFAULT: a record and a wait as the plain calls. */
	assert_int_equal(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtQueryEventStatus(e, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	/* A wait with a timeout in ms gives up; the stream says so at sync. */
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, never, 30, ACL_EVENT_WAIT_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	/* UINT32_MAX: aclrtSetOpWaitTimeout's limit (seconds). */
	assert_int_equal(aclrtSetOpWaitTimeout(1), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, never, UINT32_MAX,
						      ACL_EVENT_WAIT_DEFAULT), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_int_equal(aclrtSetOpWaitTimeout(0), ACL_SUCCESS);

	/* EXTERNAL: no stream is ever being captured here. */
	assert_int_equal(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, e, 5, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);

	/* Other flags, NULL and destroyed events. */
	assert_int_equal(aclrtRecordEventWithFlag(e, a, 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, e, 0, 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEventWithFlag(NULL, a, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, NULL, 0, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEventWithFlag(gone, a, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(b, gone, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);

	assert_int_equal(aclrtDestroyEvent(e), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyEvent(never), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_device_capability(void **state)
{
	int32_t v = -1;
	int64_t n = -1;

	(void)state;
	assert_int_equal(aclrtGetDeviceCapability(0,
			 ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v), ACL_SUCCESS);
	assert_int_equal(v, ACL_DEV_FEATURE_NOT_SUPPORT);
	v = -1;
	assert_int_equal(aclrtGetDeviceCapability(1,
			 ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v), ACL_SUCCESS);
	assert_int_equal(v, ACL_DEV_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)2, &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetDeviceCapability(FAKE_DEVICES,
			 ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetDeviceCapability(0,
			 ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL),
			 ACL_ERROR_INVALID_PARAM);

	assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &n),
			 ACL_SUCCESS);
	assert_int_equal(n, 24);
	assert_int_equal(aclGetDeviceCapability(1, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &n),
			 ACL_SUCCESS);
	assert_int_equal(n, 48);
	assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &n),
			 ACL_SUCCESS);
	assert_int_equal(n, 192 << 20);
	assert_int_equal(aclGetDeviceCapability(FAKE_DEVICES, ACL_DEVICE_INFO_L2_SIZE, &n),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &n),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, NULL),
			 ACL_ERROR_INVALID_PARAM);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_cann_attributes(void **state)
{
	const aclCannAttr *list = NULL;
	size_t num = 0;
	int32_t v = -1;

	(void)state;
	assert_int_equal(aclGetCannAttributeList(&list, &num), ACL_SUCCESS);
	assert_int_equal(num, 2);
	assert_int_equal(list[0], ACL_CANN_ATTR_INF_NAN);
	assert_int_equal(list[1], ACL_CANN_ATTR_BF16);
	assert_int_equal(aclGetCannAttributeList(NULL, &num), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);

	assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &v), ACL_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v), ACL_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v), ACL_SUCCESS);
	assert_int_equal(v, 0);
	assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclGetCannAttribute((aclCannAttr)3, &v), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL),
			 ACL_ERROR_INVALID_PARAM);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_arch_compatibility(void **state)
{
	static const struct {
		const char *soc;
		int32_t ok;
	} cases[] = {
		{ "Ascend910B1", 1 }, { "Ascend910B4", 1 }, { "Ascend910B4-1", 1 },
		{ "Ascend910_9391", 1 }, { "Ascend910A", 0 }, { "Ascend910B", 0 },
		{ "Ascend310P3", 0 }, { "Ascend310B1", 0 }, { "Ascend950PR_9599", 0 },
	};
	int32_t v;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		v = -1;
		assert_int_equal(aclrtCheckArchCompatibility(cases[i].soc, &v),
				 ACL_SUCCESS);
		assert_int_equal(v, cases[i].ok);
	}
	assert_int_equal(aclrtCheckArchCompatibility("Ascend9999", &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtCheckArchCompatibility("", &v), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtCheckArchCompatibility(NULL, &v), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtCheckArchCompatibility("Ascend910B1", NULL),
			 ACL_ERROR_RT_PARAM_INVALID);

	/* The device's SoC is aclrtGetSocName's. */
	setenv("MEMREG_ACL_SOC_NAME", "Ascend310P1", 1);
	assert_int_equal(aclrtCheckArchCompatibility("Ascend310P3", &v), ACL_SUCCESS);
	assert_int_equal(v, 1);
	assert_int_equal(aclrtCheckArchCompatibility("Ascend910B1", &v), ACL_SUCCESS);
	assert_int_equal(v, 0);
	setenv("MEMREG_ACL_SOC_NAME", "NoSuchSoc", 1);
	assert_int_equal(aclrtCheckArchCompatibility("Ascend910B1", &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	unsetenv("MEMREG_ACL_SOC_NAME");
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static void test_utilization_and_uce(void **state)
{
	aclrtUtilizationInfo u;
	aclrtMemUceInfo uce[4];
	size_t n = 99;

	(void)state;
	memset(&u, 0x55, sizeof(u));
	u.utilizationExtend = NULL;
	assert_int_equal(aclrtGetDeviceUtilizationRate(0, &u), ACL_SUCCESS);
	assert_int_equal(u.cubeUtilization, 0);
	assert_int_equal(u.vectorUtilization, 0);
	assert_int_equal(u.aicpuUtilization, 0);
	assert_int_equal(u.memoryUtilization, -1);
	/* A device it cannot ask about: -1 everywhere, no error, as CANN. */
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	assert_int_equal(aclrtGetDeviceUtilizationRate(FAKE_DEVICES, &u), ACL_SUCCESS);
	assert_int_equal(u.cubeUtilization, -1);
	assert_int_equal(u.vectorUtilization, -1);
	assert_int_equal(u.aicpuUtilization, -1);
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	u.utilizationExtend = (aclrtUtilizationExtendInfo *)&u;
	assert_int_equal(aclrtGetDeviceUtilizationRate(0, &u), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM);

	assert_int_equal(aclrtGetMemUceInfo(0, uce, 4, &n), ACL_SUCCESS);
	assert_int_equal(n, 0);
	n = 99;
	assert_int_equal(aclrtGetMemUceInfo(1, uce, 0, &n), ACL_SUCCESS);
	assert_int_equal(n, 0);
	assert_int_equal(aclrtGetMemUceInfo(FAKE_DEVICES, uce, 4, &n),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetMemUceInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemUceInfo(0, uce, 4, NULL), ACL_ERROR_INVALID_PARAM);
	aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

void run_streamcfg_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_config_handle,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_create_with_config,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_priority_range,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_cfg_stream_budget,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_event_with_flag,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_device_capability,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_cann_attributes,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_arch_compatibility,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_utilization_and_uce,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_streamcfg", tests, NULL, NULL, res);
}
