// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Models built from persistent streams (aclmdlRIBuildBegin ...
 * aclmdlRIBuildEnd) and their labels, against the fake devices.
 *
 * The switch index and the data are device memory, mapped in the
 * process: the tests write them between runs and read the results
 * directly.  As in test_model.c, a "gate" (a blocking host callback the
 * test thread runs with aclrtProcessReport) holds a stream so that what
 * is queued behind it provably waits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <acl/acl.h>

#include "tests.h"

#define LEN	256

static void *dev_alloc(size_t len)
{
	void *p = NULL;

	assert_int_equal(aclrtMalloc(&p, len, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	memset(p, 0, len);
	return p;
}

static bool all_bytes(const void *p, int v, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != (unsigned char)v)
			return false;
	return true;
}

static aclrtStream persistent(void)
{
	aclrtStream s;

	assert_int_equal(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT),
			 ACL_SUCCESS);
	return s;
}

/* @n labels, and (if @list) a list of them. */
static void labels_new(aclrtLabel *l, size_t n, aclrtLabelList *list)
{
	size_t i;

	for (i = 0; i < n; i++)
		assert_int_equal(aclrtCreateLabel(&l[i]), ACL_SUCCESS);
	if (list)
		assert_int_equal(aclrtCreateLabelList(l, n, list), ACL_SUCCESS);
}

static void labels_free(aclrtLabel *l, size_t n, aclrtLabelList list)
{
	size_t i;

	if (list)
		assert_int_equal(aclrtDestroyLabelList(list), ACL_SUCCESS);
	for (i = 0; i < n; i++)
		assert_int_equal(aclrtDestroyLabel(l[i]), ACL_SUCCESS);
}

/* The message of the call that just failed names it and says @why. */
static void assert_msg(const char *call, const char *why)
{
	const char *msg = aclGetRecentErrMsg();

	assert_non_null(msg);
	if (!strstr(msg, call) || !strstr(msg, why))
		fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", msg, call, why);
}

/*
 * A two-way branch: the index, in device memory, picks branch 0 (a
 * memset of out to 0xa0) or branch 1 (a copy of src into out); a second
 * switch, on a constant index, jumps over branch 1 to the end.  The
 * index and src are written between runs; each run goes the way the
 * index says then, and copies what src holds then.
 */
static void test_build_switch_branches(void **state)
{
	aclrtLabel br[2], end[1];
	aclrtLabelList brl, endl;
	uint32_t *idx, *zero, one = 1;
	unsigned char *src, *out;
	aclrtStream s, x;
	aclmdlRI m;

	(void)state;
	idx = dev_alloc(sizeof(*idx));
	zero = dev_alloc(sizeof(*zero));
	src = dev_alloc(LEN);
	out = dev_alloc(LEN);
	s = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	labels_new(br, 2, &brl);
	labels_new(end, 1, &endl);

	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, brl, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(br[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(out, LEN, 0xa0, LEN, s), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(zero, 1, endl, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(br[1], s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(end[0], s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	/* Kept, not run: the persistent stream has nothing queued. */
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(out, 0, LEN));

	/* Branch 1, the index written as CANN's sample does. */
	assert_int_equal(aclrtMemcpy(idx, sizeof(*idx), &one, sizeof(one),
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	memset(src, 0xb1, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(out, 0xb1, LEN));

	/* Branch 0 now: the memset, not the copy. */
	*idx = 0;
	memset(src, 0xb2, LEN);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(out, 0xa0, LEN));

	/* Past the maximum: the last label, branch 1, with src as it is. */
	*idx = 7;
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(out, 0xb2, LEN));

	/* Labels and lists may go before the model: it knows where to go. */
	labels_free(br, 2, brl);
	labels_free(end, 1, endl);
	*idx = 0;
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_true(all_bytes(out, 0xa0, LEN));

	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(x), ACL_SUCCESS);
	aclrtFree(idx);
	aclrtFree(zero);
	aclrtFree(src);
	aclrtFree(out);
}

/*
 * The order CANN's label sample calls things in, in a context of its
 * own: the list made before its labels are set, the switch before them,
 * both labels at the end of the stream, where the model ends; torn down
 * with the stream still in the context and a forced device reset.
 */
static void test_build_sample_order(void **state)
{
	uint32_t *idx, one = 1;
	aclrtLabel l[2];
	aclrtLabelList list;
	aclrtContext ctx;
	aclrtStream s, x;
	aclmdlRI m;
	int32_t *hits, *onev;

	(void)state;
	assert_int_equal(aclrtCreateContext(&ctx, 0), ACL_SUCCESS);
	s = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, 0), ACL_SUCCESS);
	idx = dev_alloc(sizeof(*idx));
	hits = dev_alloc(64);
	onev = dev_alloc(64);
	*onev = 1;
	assert_int_equal(aclrtMemcpy(idx, sizeof(*idx), &one, sizeof(one),
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	labels_new(l, 2, &list);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s), ACL_SUCCESS);
	/* Between the switch and its labels: skipped by any index. */
	assert_int_equal(aclrtReduceAsync(hits, onev, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT32, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[1], s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_int_equal(*hits, 0);

	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabelList(list), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabel(l[1]), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabel(l[0]), ACL_SUCCESS);
	assert_int_equal(aclrtFree(idx), ACL_SUCCESS);
	assert_int_equal(aclrtFree(hits), ACL_SUCCESS);
	assert_int_equal(aclrtFree(onev), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(x), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyContext(ctx), ACL_SUCCESS);
	assert_int_equal(aclrtResetDeviceForce(0), ACL_SUCCESS);
}

/*
 * A loop: three labels at the top, a reduce adding 1 to a counter, and a
 * switch on the counter back to the top (counter 1, 2) or on to the end
 * (3).  A second run starts at 3: past the maximum, the last label, the
 * end, after one pass.  The maximum below the list: clamped to it.
 */
static void test_build_loop(void **state)
{
	int32_t *ctr, *onev, *passes;
	aclrtLabel l[4];
	aclrtLabelList list;
	aclrtStream s, x;
	aclmdlRI m;

	(void)state;
	ctr = dev_alloc(64);
	onev = dev_alloc(64);
	passes = dev_alloc(64);
	*onev = 1;
	s = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	labels_new(l, 4, &list);

	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[1], s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[2], s), ACL_SUCCESS);
	assert_int_equal(aclrtReduceAsync(ctr, onev, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT32, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtReduceAsync(passes, onev, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT32, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(ctr, 4, list, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[3], s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);

	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_int_equal(*ctr, 3);
	assert_int_equal(*passes, 3);

	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_int_equal(*ctr, 4);
	assert_int_equal(*passes, 4);

	/* From 0, two runs back to back: three passes, then one. */
	*ctr = 0;
	*passes = 0;
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_int_equal(*ctr, 4);
	assert_int_equal(*passes, 4);

	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	labels_free(l, 4, list);
	aclrtDestroyStream(s);
	aclrtDestroyStream(x);
	aclrtFree(ctr);
	aclrtFree(onev);
	aclrtFree(passes);
}

/*
 * A label at the very end, after the model's end: the switch goes there,
 * past everything, and the run stops (the memset is skipped).  A
 * maximum of 1 takes label 0 whatever the index; of 0, label 0 too.
 */
static void test_build_label_at_end(void **state)
{
	uint32_t *idx, max;
	unsigned char *out;
	aclrtLabel l[2];
	aclrtLabelList list;
	aclrtStream s;
	aclmdlRI m;

	(void)state;
	for (max = 0; max <= 2; max++) {
		idx = dev_alloc(sizeof(*idx));
		out = dev_alloc(LEN);
		s = persistent();
		labels_new(l, 2, &list);
		assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
		assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
				 ACL_SUCCESS);
		assert_int_equal(aclrtSwitchLabelByIndex(idx, max, list, s),
				 ACL_SUCCESS);
		assert_int_equal(aclrtSetLabel(l[1], s), ACL_SUCCESS);
		assert_int_equal(aclrtMemsetAsync(out, LEN, 0x5c, LEN, s),
				 ACL_SUCCESS);
		assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
		assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
		assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);

		/* Index 1: label 1 (the memset) only with a maximum of 2. */
		*idx = 1;
		assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
		assert_true(all_bytes(out, max == 2 ? 0x5c : 0, LEN));
		memset(out, 0, LEN);
		*idx = 0;
		assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
		assert_true(all_bytes(out, 0, LEN));

		assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
		labels_free(l, 2, list);
		aclrtDestroyStream(s);
		aclrtFree(idx);
		aclrtFree(out);
	}
}

/*
 * Two streams: the head switches to a label on a DEFAULT stream, where
 * the model ends; what follows the switch on the head never runs.  A
 * third stream bound and unbound before the end of the build takes its
 * tasks with it.  The model keeps what it was built with after its
 * streams are unbound.
 */
static void test_build_two_streams(void **state)
{
	unsigned char *a, *b, *c;
	uint32_t *idx;
	aclrtStream h, d, u, x;
	aclrtLabel l[1];
	aclrtLabelList list;
	aclmdlRI m;
	char path[] = "/tmp/memreg-build-XXXXXX", buf[8192];
	size_t n;
	FILE *f;
	int fd;

	(void)state;
	idx = dev_alloc(sizeof(*idx));
	a = dev_alloc(LEN);
	b = dev_alloc(LEN);
	c = dev_alloc(LEN);
	h = persistent();
	d = persistent();
	u = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	labels_new(l, 1, &list);

	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, d, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, u, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(a, LEN, 0x0a, LEN, h), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 1, list, h), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(c, LEN, 0xcc, LEN, h), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(c, LEN, 0xdd, LEN, d), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], d), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(b, LEN, 0x0b, LEN, d), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, d), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(c, LEN, 0xee, LEN, u), ACL_SUCCESS);
	assert_int_equal(aclmdlRIUnbindStream(m, u), ACL_SUCCESS);
	/* Unbound, it refuses tasks again; bound elsewhere, it takes them. */
	assert_int_equal(aclrtMemsetAsync(c, LEN, 0xee, LEN, u),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);

	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(a, 0x0a, LEN));
	assert_true(all_bytes(b, 0x0b, LEN));
	assert_true(all_bytes(c, 0, LEN));

	/* The print lists both streams, the third as it was left. */
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
	assert_non_null(strstr(buf, "\"built\": true"));
	assert_non_null(strstr(buf, "\"task_count\": 7"));
	assert_non_null(strstr(buf, "\"flag\": \"HEAD\""));
	assert_non_null(strstr(buf, "\"flag\": \"DEFAULT\", \"bound\": false, \"task_count\": 0"));
	assert_non_null(strstr(buf, "\"type\": \"LABEL_SWITCH_BY_INDEX\""));
	assert_non_null(strstr(buf, "\"type\": \"LABEL_SET\""));
	assert_non_null(strstr(buf, "\"type\": \"MODEL_END_GRAPH\""));
	assert_non_null(strstr(buf, "\"max_value\": 1"));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	assert_int_equal(aclmdlRIDebugPrint(m), ACL_SUCCESS);
#pragma GCC diagnostic pop

	/* Unbound, the streams are free; the model runs as built. */
	assert_int_equal(aclmdlRIUnbindStream(m, h), ACL_SUCCESS);
	assert_int_equal(aclmdlRIUnbindStream(m, d), ACL_SUCCESS);
	assert_int_equal(aclmdlRIUnbindStream(m, d), ACL_ERROR_RT_STREAM_MODEL);
	memset(a, 0, LEN);
	memset(b, 0, LEN);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_true(all_bytes(a, 0x0a, LEN));
	assert_true(all_bytes(b, 0x0b, LEN));
	assert_true(all_bytes(c, 0, LEN));
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);

	labels_free(l, 1, list);
	aclrtDestroyStream(h);
	aclrtDestroyStream(d);
	aclrtDestroyStream(u);
	aclrtDestroyStream(x);
	aclrtFree(idx);
	aclrtFree(a);
	aclrtFree(b);
	aclrtFree(c);
}

/* A built model of one value write, then its reduce into @acc. */
static aclmdlRI build_accumulate(aclrtStream s, int32_t *acc, const void *x)
{
	aclmdlRI m;

	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtReduceAsync(acc, x, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT32, s, NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	return m;
}

/* A captured model writing @v to @x. */
static aclmdlRI capture_write(aclrtStream s, uint64_t *x, uint64_t v)
{
	aclmdlRI m;

	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclrtValueWrite(x, v, 0, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRICaptureEnd(s, &m), ACL_SUCCESS);
	return m;
}

/*
 * Captured and built models on one stream run in the order queued: x =
 * 1, acc += x, x = 10, acc += x gives 11, all queued behind a gate.
 * Then the built model's runs queued twice and destroyed (its stream
 * still bound) before the gate opens: both runs finish right, and the
 * stream is free for another model.
 */
static void test_build_with_captured(void **state)
{
	aclmdlRI b, c1, c10, b2;
	aclrtStream s, g, cap;
	uint64_t *x;
	int32_t *acc;
	int ran = 0;

	(void)state;
	x = dev_alloc(64);
	acc = dev_alloc(64);
	s = persistent();
	assert_int_equal(aclrtCreateStream(&g), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&cap), ACL_SUCCESS);
	b = build_accumulate(s, acc, x);
	c1 = capture_write(cap, x, 1);
	c10 = capture_write(cap, x, 10);

	close_gate(g, &ran);
	assert_int_equal(aclmdlRIExecuteAsync(c1, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(b, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(c10, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(b, g), ACL_SUCCESS);
	sleep_ms(20);
	assert_int_equal(*acc, 0);
	open_gate(g, &ran);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_int_equal(*acc, 11);

	/* Destroyed under two queued runs, still bound. */
	close_gate(g, &ran);
	assert_int_equal(aclmdlRIExecuteAsync(b, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(b, g), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(b), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(b, g), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIDestroy(b), ACL_ERROR_INVALID_PARAM);
	b2 = build_accumulate(s, acc, x);
	open_gate(g, &ran);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_int_equal(*acc, 31);
	assert_int_equal(aclmdlRIExecuteAsync(b2, g), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_int_equal(*acc, 41);

	/* A bound stream destroyed leaves its model, which still runs. */
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(b2, g), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(g), ACL_SUCCESS);
	assert_int_equal(*acc, 51);

	assert_int_equal(aclmdlRIDestroy(b2), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(c1), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(c10), ACL_SUCCESS);
	aclrtDestroyStream(g);
	aclrtDestroyStream(cap);
	aclrtFree(x);
	aclrtFree(acc);
}

/*
 * A built model's event wait takes its record number when the run gets
 * there: it waits for the outside record queued (behind a gate) before
 * the run started, then copies what that stream wrote.  Its record is
 * a real one for the host.  A host callback in it runs on the thread
 * subscribed to the stream the model runs on.
 */
static void test_build_events_callbacks(void **state)
{
	unsigned char *src, *dst, *host;
	aclrtStream s, o, x;
	aclrtEvent in, out;
	aclrtStreamStatus st;
	aclmdlRI m;
	int ran = 0, cb = 0;

	(void)state;
	src = dev_alloc(LEN);
	dst = dev_alloc(LEN);
	host = malloc(LEN);
	assert_non_null(host);
	memset(host, 0x6d, LEN);
	s = persistent();
	assert_int_equal(aclrtCreateStream(&o), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&in), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&out), ACL_SUCCESS);
	/* Checked at the call, as for any stream. */
	assert_int_equal(aclrtSubscribeReport(self_id(), s), ACL_SUCCESS);

	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(s, in), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dst, LEN, src, LEN,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(count_cb, &cb, ACL_CALLBACK_NO_BLOCK, s),
			 ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(out, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_SUCCESS);

	close_gate(o, &ran);
	assert_int_equal(aclrtMemcpyAsync(src, LEN, host, LEN,
					  ACL_MEMCPY_HOST_TO_DEVICE, o), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(in, o), ACL_SUCCESS);
	assert_int_equal(aclrtSubscribeReport(self_id(), x), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	sleep_ms(50);
	assert_int_equal(aclrtStreamQuery(x, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
	assert_true(all_bytes(dst, 0, LEN));

	/* The gate's report, then the model's callback. */
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(ran, 1);
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(cb, 1);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(dst, 0x6d, LEN));
	assert_int_equal(aclrtSynchronizeEvent(out), ACL_SUCCESS);

	assert_int_equal(aclrtUnSubscribeReport(self_id(), o), ACL_SUCCESS);
	assert_int_equal(aclrtUnSubscribeReport(self_id(), x), ACL_SUCCESS);
	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	aclrtDestroyEvent(in);
	aclrtDestroyEvent(out);
	aclrtDestroyStream(s);
	aclrtDestroyStream(o);
	aclrtDestroyStream(x);
	free(host);
	aclrtFree(src);
	aclrtFree(dst);
}

/* What a failing task of a run tells the exception callback. */
static struct {
	int calls;
	uint32_t error, stream;
} exc;

static void exc_cb(aclrtExceptionInfo *info)
{
	exc.calls++;
	exc.error = aclrtGetErrorCodeFromExceptionInfo(info);
	exc.stream = aclrtGetStreamIdFromExceptionInfo(info);
}

/*
 * Run-time failures: a switch to a label of its list set in no stream of
 * the model ends the run with ACL_ERROR_RT_TS_ERROR; the index freed
 * under the model, ACL_ERROR_RT_SYS_DMA; each told to the exception
 * callback with the stream the model ran on.
 */
static void test_build_run_failures(void **state)
{
	unsigned char *out;
	uint32_t *idx;
	aclrtLabel l[2];
	aclrtLabelList list;
	aclrtStream s, x;
	int32_t xid;
	aclmdlRI m;

	(void)state;
	memset(&exc, 0, sizeof(exc));
	idx = dev_alloc(sizeof(*idx));
	out = dev_alloc(LEN);
	s = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	assert_int_equal(aclrtStreamGetId(x, &xid), ACL_SUCCESS);
	assert_int_equal(aclrtSetExceptionInfoCallback(exc_cb), ACL_SUCCESS);
	labels_new(l, 2, &list);
	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(out, LEN, 0x42, LEN, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);

	*idx = 0;
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(out, 0x42, LEN));
	assert_int_equal(exc.calls, 0);

	/* Label 1 was never set: the run stops at the switch. */
	memset(out, 0, LEN);
	*idx = 1;
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_ERROR_RT_TS_ERROR);
	assert_true(all_bytes(out, 0, LEN));
	assert_int_equal(exc.calls, 1);
	assert_int_equal(exc.error, ACL_ERROR_RT_TS_ERROR);
	assert_int_equal(exc.stream, (uint32_t)xid);
	/* Reported once; the stream goes on. */
	*idx = 0;
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_SUCCESS);
	assert_true(all_bytes(out, 0x42, LEN));

	/* The index's memory freed: as a copy of freed memory. */
	assert_int_equal(aclrtFree(idx), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(x), ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(exc.calls, 2);
	assert_int_equal(exc.error, ACL_ERROR_RT_SYS_DMA);

	assert_int_equal(aclrtSetExceptionInfoCallback(NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	labels_free(l, 2, list);
	aclrtDestroyStream(s);
	aclrtDestroyStream(x);
	aclrtFree(out);
}

/*
 * A model that loops for ever holds its stream, as a device's would: the
 * stream's sync times out; a forced destroy ends it promptly.
 */
static void test_build_loop_forever_force(void **state)
{
	struct timespec t0;
	uint32_t *zero;
	aclrtLabel l[1];
	aclrtLabelList list;
	aclrtStream s, x;
	aclmdlRI m;

	(void)state;
	zero = dev_alloc(sizeof(*zero));
	s = persistent();
	assert_int_equal(aclrtCreateStream(&x), ACL_SUCCESS);
	labels_new(l, 1, &list);
	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(zero, 1, list, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);

	assert_int_equal(aclmdlRIExecuteAsync(m, x), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStreamWithTimeout(x, 50),
			 ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(aclrtDestroyStreamForce(x), ACL_SUCCESS);
	assert_true(elapsed_ms(&t0) < 2000);

	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	labels_free(l, 1, list);
	aclrtDestroyStream(s);
	aclrtFree(zero);
}

static void *no_context_thread(void *arg)
{
	aclrtLabel l;
	aclmdlRI m;

	(void)arg;
	if (aclmdlRIBuildBegin(&m, 0) != ACL_ERROR_RT_CONTEXT_NULL ||
	    aclrtCreateLabel(&l) != ACL_ERROR_RT_CONTEXT_NULL)
		return (void *)1;
	return NULL;
}

/* Every refusal of the build calls, with CANN's codes and a message. */
static void test_build_errors(void **state)
{
	aclrtStream s, s2, fast, plain;
	aclmdlRI m, m2, cap;
	aclrtLabel l[1];
	aclrtLabelList list;
	unsigned char *d;
	uint32_t *idx;
	pthread_t th;
	void *ret;

	(void)state;
	d = dev_alloc(LEN);
	idx = dev_alloc(sizeof(*idx));
	s = persistent();
	s2 = persistent();
	assert_int_equal(aclrtCreateStreamWithConfig(&fast, 0, ACL_STREAM_PERSISTENT |
						     ACL_STREAM_FAST_LAUNCH), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&plain), ACL_SUCCESS);
	labels_new(l, 1, &list);

	/* A persistent stream bound to nothing runs nothing, takes nothing. */
	assert_int_equal(aclrtMemsetAsync(d, LEN, 1, LEN, s), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclrtMemsetAsync", "bound to no model");
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_true(all_bytes(d, 0, LEN));

	/* aclmdlRIBuildBegin. */
	assert_int_equal(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBuildBegin(&m, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg("aclmdlRIBuildBegin", "reserved");
	assert_int_equal(pthread_create(&th, NULL, no_context_thread, NULL), 0);
	pthread_join(th, &ret);
	assert_null(ret);
	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildBegin(&m2, 0), ACL_SUCCESS);

	/* aclmdlRIBindStream. */
	assert_int_equal(aclmdlRIBindStream(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBindStream(m, s, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIBindStream(m, plain, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg("aclmdlRIBindStream", "not persistent");
	assert_int_equal(aclmdlRIBindStream(m, NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIBindStream(m, fast, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclmdlRIBindStream(m, (aclrtStream)d, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBindStream((aclmdlRI)d, s, 0), ACL_ERROR_INVALID_PARAM);
	/* A persistent stream being captured: its tasks are the capture's. */
	assert_int_equal(aclmdlRICaptureBegin(s2, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s2, 0), ACL_ERROR_RT_STREAM_CAPTURED);
	assert_int_equal(aclmdlRICaptureEnd(s2, &cap), ACL_SUCCESS);
	/* A captured model binds nothing. */
	assert_int_equal(aclmdlRIBindStream(cap, s, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg("aclmdlRIBindStream", "captured");
	assert_int_equal(aclmdlRIUnbindStream(cap, s), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIEndTask(cap, s), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIBuildEnd(cap, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Once per stream; one head per model (memreg's). */
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIBindStream(m2, s, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclmdlRIBindStream", "already");
	assert_int_equal(aclmdlRIBindStream(m, s2, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_msg("aclmdlRIBindStream", "one per model");
	/* A bound stream is not captured, and runs no model. */
	assert_int_equal(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIExecuteAsync(cap, s), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclmdlRIExecuteAsync(cap, s2), ACL_ERROR_RT_PARAM_INVALID);

	/* Not built yet: no run, no print. */
	assert_int_equal(aclmdlRIExecuteAsync(m, plain), ACL_ERROR_RT_MODEL_EXECUTE);
	assert_msg("aclmdlRIExecuteAsync", "still being built");
	assert_int_equal(aclmdlRIExecute(m, 100), ACL_ERROR_RT_MODEL_EXECUTE);
	assert_int_equal(aclmdlRIDebugJsonPrint(m, "/dev/null", 0),
			 ACL_ERROR_RT_MODEL_EXECUTE);

	/* aclmdlRIEndTask. */
	assert_int_equal(aclmdlRIEndTask(NULL, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIEndTask(m, s2), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclmdlRIEndTask", "must be bound");
	assert_int_equal(aclmdlRIEndTask(m2, s), ACL_ERROR_RT_INTERNAL_ERROR);

	/* aclmdlRIBuildEnd: arguments, no stream, no end, no head. */
	assert_int_equal(aclmdlRIBuildEnd(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBuildEnd(m, d), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBuildEnd(m2, NULL), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclmdlRIBuildEnd", "no stream bound");
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_ERROR_RT_MODEL_EXECUTE);
	assert_msg("aclmdlRIBuildEnd", "aclmdlRIEndTask");
	assert_int_equal(aclmdlRIBindStream(m2, s2, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m2, s2), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m2, NULL), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclmdlRIBuildEnd", "no head stream");
	/* Unbinding the end's stream before the end of the build drops it. */
	assert_int_equal(aclmdlRIUnbindStream(m2, s2), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m2, s2, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m2, NULL), ACL_ERROR_RT_MODEL_EXECUTE);

	/* Then built: once, with one end. */
	assert_int_equal(aclrtMemsetAsync(d, LEN, 0x77, LEN, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclmdlRIEndTask", "one aclmdlRIEndTask per model");
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_ERROR_RT_INTERNAL_ERROR);
	/* Built: its streams take nothing more, none is bound to it. */
	assert_int_equal(aclrtMemsetAsync(d, LEN, 1, LEN, s), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclrtMemsetAsync", "build ended");
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 1, list, s),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIBindStream(m, fast, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclmdlRIBindStream(m, s2, ACL_MODEL_STREAM_FLAG_DEFAULT),
			 ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_true(all_bytes(d, 0x77, LEN));

	/* aclmdlRIUnbindStream. */
	assert_int_equal(aclmdlRIUnbindStream(NULL, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIUnbindStream(m, plain), ACL_ERROR_RT_STREAM_MODEL);
	assert_int_equal(aclmdlRIUnbindStream(m, s2), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclmdlRIUnbindStream", "not bound to modelRI");
	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIUnbindStream(m, s), ACL_ERROR_RT_STREAM_MODEL);

	assert_int_equal(aclmdlRIDestroy(m), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(m), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclmdlRIBindStream(m, s, 0), ACL_ERROR_INVALID_PARAM);
	/* Destroyed while building, its stream still bound: freed. */
	assert_int_equal(aclmdlRIDestroy(m2), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(d, LEN, 1, LEN, s2), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclrtMemsetAsync", "bound to no model");
	assert_int_equal(aclmdlRIDestroy(cap), ACL_SUCCESS);

	labels_free(l, 1, list);
	aclrtDestroyStream(s);
	aclrtDestroyStream(s2);
	aclrtDestroyStream(fast);
	aclrtDestroyStream(plain);
	aclrtFree(d);
	aclrtFree(idx);
}

/*
 * Labels and lists: their lifecycle and every refusal; labels of one
 * list in one model; labels free again once their stream is unbound;
 * CANN's most labels per process.
 */
static void test_label_errors(void **state)
{
	aclrtLabel l[3], dead, spare, *many, bogus;
	aclrtLabelList list, list2, bogus_list;
	aclrtStream s, s2, plain;
	aclmdlRI a, b;
	uint32_t *idx;
	size_t i, made;

	(void)state;
	idx = dev_alloc(sizeof(*idx));
	/* Handles never made (a freed one's address may come back). */
	bogus = (aclrtLabel)idx;
	bogus_list = (aclrtLabelList)idx;
	s = persistent();
	s2 = persistent();
	assert_int_equal(aclrtCreateStream(&plain), ACL_SUCCESS);

	/* aclrtCreateLabel, aclrtDestroyLabel. */
	assert_int_equal(aclrtCreateLabel(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyLabel(NULL), ACL_ERROR_INVALID_PARAM);
	labels_new(&dead, 1, NULL);
	assert_int_equal(aclrtDestroyLabel(dead), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabel(dead), ACL_ERROR_INVALID_PARAM);
	assert_msg("aclrtDestroyLabel", "no live label");

	/* aclrtCreateLabelList: arguments, then nothing done on a refusal. */
	labels_new(l, 3, NULL);
	assert_int_equal(aclrtCreateLabelList(NULL, 1, &list), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateLabelList(l, 1, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateLabelList(l, 0, &list), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtCreateLabelList(l, 65536, &list), ACL_ERROR_RT_PARAM_INVALID);
	{
		aclrtLabel twice[3] = { l[0], l[1], l[0] };
		aclrtLabel gone[2] = { l[2], bogus };

		assert_int_equal(aclrtCreateLabelList(twice, 3, &list),
				 ACL_ERROR_RT_INTERNAL_ERROR);
		assert_msg("aclrtCreateLabelList", "twice");
		assert_int_equal(aclrtCreateLabelList(gone, 2, &list),
				 ACL_ERROR_INVALID_PARAM);
	}
	assert_int_equal(aclrtCreateLabelList(l, 2, &list), ACL_SUCCESS);
	assert_int_equal(aclrtCreateLabelList(&l[1], 2, &list2),
			 ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtCreateLabelList", "already");
	assert_int_equal(aclrtCreateLabelList(&l[2], 1, &list2), ACL_SUCCESS);

	/* aclrtDestroyLabelList: its labels may join another list. */
	assert_int_equal(aclrtDestroyLabelList(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyLabelList(list2), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabelList(list2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyLabelList(bogus_list), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateLabelList(&l[2], 1, &list2), ACL_SUCCESS);

	/* aclrtSetLabel. */
	assert_int_equal(aclmdlRIBuildBegin(&a, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildBegin(&b, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(a, s, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(b, s2, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(NULL, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetLabel(l[0], NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetLabel(bogus, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetLabel(l[0], plain), ACL_ERROR_RT_STREAM_MODEL);
	assert_msg("aclrtSetLabel", "bound to no model");
	labels_new(&spare, 1, NULL);
	assert_int_equal(aclrtSetLabel(spare, s), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtSetLabel", "no label list");
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtSetLabel", "set already");
	assert_int_equal(aclrtSetLabel(l[0], s2), ACL_ERROR_RT_INTERNAL_ERROR);

	/* aclrtSwitchLabelByIndex. */
	assert_int_equal(aclrtSwitchLabelByIndex(NULL, 2, list, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, NULL, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSwitchLabelByIndex(&i, 2, list, s), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg("aclrtSwitchLabelByIndex", "device memory");
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, bogus_list, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, plain), ACL_ERROR_RT_STREAM_MODEL);
	/* A label of the list set in model a: b may not switch on it. */
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s2), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtSwitchLabelByIndex", "is set in modelRI");
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s), ACL_SUCCESS);
	/* list2 switched on in b: its label is not set in a. */
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 1, list2, s2), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[2], s), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtSetLabel", "switched on in modelRI");
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 1, list2, s), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_int_equal(aclrtSetLabel(l[2], s2), ACL_SUCCESS);

	/*
	 * a's stream unbound: its labels are set no more and in no list; a
	 * new list, and they go to b.
	 */
	assert_int_equal(aclmdlRIUnbindStream(a, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s2), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtSetLabel", "no label list");
	assert_int_equal(aclrtDestroyLabelList(list), ACL_SUCCESS);
	assert_int_equal(aclrtCreateLabelList(l, 2, &list), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s2), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s2), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(b, s2), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(b, NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(a), ACL_SUCCESS);
	assert_int_equal(aclmdlRIDestroy(b), ACL_SUCCESS);

	/* CANN's most: 65535 labels in the process (4 are live here). */
	many = calloc(65535, sizeof(*many));
	assert_non_null(many);
	for (made = 0; made < 65535; made++)
		if (aclrtCreateLabel(&many[made]) != ACL_SUCCESS)
			break;
	assert_int_equal(made, 65535 - 4);
	assert_int_equal(aclrtCreateLabel(&dead), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_msg("aclrtCreateLabel", "65535");
	for (i = 0; i < made; i++)
		assert_int_equal(aclrtDestroyLabel(many[i]), ACL_SUCCESS);
	free(many);
	assert_int_equal(aclrtCreateLabel(&dead), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabel(dead), ACL_SUCCESS);

	labels_free(l, 3, list);
	assert_int_equal(aclrtDestroyLabelList(list2), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyLabel(spare), ACL_SUCCESS);
	aclrtDestroyStream(s);
	aclrtDestroyStream(s2);
	aclrtDestroyStream(plain);
	aclrtFree(idx);
}

/*
 * Left for aclFinalize (the teardown): a built model still bound, one
 * still being built, labels set and not, lists, a persistent stream.
 * ASan's leak check sees anything left.
 */
static void test_build_left_to_finalize(void **state)
{
	aclrtLabel l[2];
	aclrtLabelList list;
	aclrtStream s, s2;
	uint32_t *idx;
	aclmdlRI m, m2;
	void *d;

	(void)state;
	idx = dev_alloc(sizeof(*idx));
	d = dev_alloc(LEN);
	s = persistent();
	s2 = persistent();
	labels_new(l, 2, &list);
	assert_int_equal(aclmdlRIBuildBegin(&m, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD), ACL_SUCCESS);
	assert_int_equal(aclrtSwitchLabelByIndex(idx, 2, list, s), ACL_SUCCESS);
	assert_int_equal(aclrtSetLabel(l[0], s), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(d, LEN, 3, LEN, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIEndTask(m, s), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBuildEnd(m, NULL), ACL_SUCCESS);
	assert_int_equal(aclmdlRIExecute(m, 5000), ACL_SUCCESS);
	assert_true(all_bytes(d, 3, LEN));
	assert_int_equal(aclmdlRIBuildBegin(&m2, 0), ACL_SUCCESS);
	assert_int_equal(aclmdlRIBindStream(m2, s2, ACL_MODEL_STREAM_FLAG_HEAD),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(d, LEN, 4, LEN, s2), ACL_SUCCESS);
}

void run_build_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_build_switch_branches,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_sample_order,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_loop,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_label_at_end,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_two_streams,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_with_captured,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_events_callbacks,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_run_failures,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_loop_forever_force,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_errors,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_label_errors,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_build_left_to_finalize,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_build", tests, NULL, NULL, res);
}
