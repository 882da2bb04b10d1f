// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The built-in tasks: aclrtReduceAsync and aclrtRandomNumAsync, run by
 * the stream's worker over the fake devices' memory, and their refusals.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

static void *dev_alloc(size_t len)
{
	void *p = NULL;

	assert_int_equal(aclrtMalloc(&p, len, ACL_MEM_MALLOC_HUGE_FIRST),
			 ACL_SUCCESS);
	return p;
}

static aclError reduce_sync(void *dst, const void *src, uint64_t count,
			    aclrtReduceKind kind, aclDataType type)
{
	aclError ret = aclrtReduceAsync(dst, src, count, kind, type, NULL, NULL);

	return ret ? ret : aclrtSynchronizeStream(NULL);
}

static void test_reduce(void **state)
{
	float fin[4] = { 1, 2, 3, 4 }, fout[4] = { 1, 2, 3, 4 };
	int8_t a8[4] = { 1, -5, 127, 0 }, b8[4] = { 3, -7, 1, 0 };
	int32_t a32[3] = { 5, -1, 9 }, b32[3] = { 2, 4, 9 };
	uint16_t h[2];
	void *d, *s;
	int i;

	(void)state;
	d = dev_alloc(64);
	s = dev_alloc(64);

	/* The sample: dst += src on floats. */
	memcpy(d, fout, sizeof(fout));
	memcpy(s, fin, sizeof(fin));
	assert_int_equal(reduce_sync(d, s, sizeof(fin),
				     ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT),
			 ACL_SUCCESS);
	memcpy(fout, d, sizeof(fout));
	for (i = 0; i < 4; i++)
		assert_true(fout[i] == 2.0f * (float)(i + 1));
	/* src is left alone. */
	assert_memory_equal(s, fin, sizeof(fin));

	/* int8: the sum wraps at 8 bits. */
	memcpy(d, a8, 4);
	memcpy(s, b8, 4);
	assert_int_equal(reduce_sync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				     ACL_INT8), ACL_SUCCESS);
	assert_int_equal(((int8_t *)d)[0], 4);
	assert_int_equal(((int8_t *)d)[1], -12);
	assert_int_equal(((int8_t *)d)[2], -128);

	memcpy(d, a32, sizeof(a32));
	memcpy(s, b32, sizeof(b32));
	assert_int_equal(reduce_sync(d, s, sizeof(a32),
				     ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT32),
			 ACL_SUCCESS);
	assert_int_equal(((int32_t *)d)[0], 5);
	assert_int_equal(((int32_t *)d)[1], 4);
	assert_int_equal(((int32_t *)d)[2], 9);
	memcpy(d, a32, sizeof(a32));
	assert_int_equal(reduce_sync(d, s, sizeof(a32),
				     ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32),
			 ACL_SUCCESS);
	assert_int_equal(((int32_t *)d)[0], 2);
	assert_int_equal(((int32_t *)d)[1], -1);

	/* Half precision, both kinds: 1.5 + 2.25 is exact in each. */
	h[0] = aclFloatToFloat16(1.5f);
	h[1] = aclFloatToFloat16(-3.0f);
	memcpy(d, h, 4);
	h[0] = aclFloatToFloat16(2.25f);
	h[1] = aclFloatToFloat16(1.0f);
	memcpy(s, h, 4);
	assert_int_equal(reduce_sync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				     ACL_FLOAT16), ACL_SUCCESS);
	memcpy(h, d, 4);
	assert_true(aclFloat16ToFloat(h[0]) == 3.75f);
	assert_true(aclFloat16ToFloat(h[1]) == -2.0f);
	h[0] = 0x3fc0;	/* bf16 1.5 */
	h[1] = 0xc040;	/* bf16 -3.0 */
	memcpy(d, h, 4);
	h[0] = 0x4010;	/* bf16 2.25 */
	h[1] = 0x3f80;	/* bf16 1.0 */
	memcpy(s, h, 4);
	assert_int_equal(reduce_sync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX,
				     ACL_BF16), ACL_SUCCESS);
	memcpy(h, d, 4);
	assert_int_equal(h[0], 0x4010);
	assert_int_equal(h[1], 0x3f80);

	aclrtFree(d);
	aclrtFree(s);
}

static void test_reduce_args(void **state)
{
	float host[4] = { 0 };
	void *d, *s;
	int x;

	(void)state;
	d = dev_alloc(64);
	s = dev_alloc(64);
	assert_int_equal(aclrtReduceAsync(NULL, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReduceAsync(d, NULL, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReduceAsync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, &x), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReduceAsync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_DOUBLE, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReduceAsync(d, s, 0, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, s, 4, (aclrtReduceKind)9,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, s, 4, (aclrtReduceKind)14,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, s, 4, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL,
					  ACL_FLOAT, NULL, NULL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* Not on the Atlas A2 list. */
	assert_int_equal(aclrtReduceAsync(d, s, 8, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_INT64, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, s, 6, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Host memory, or beyond the allocation. */
	assert_int_equal(aclrtReduceAsync(host, s, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, host, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReduceAsync(d, s, 1 << 30, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL),
			 ACL_ERROR_RT_PARAM_INVALID);
	aclrtFree(d);
	aclrtFree(s);
}

static void gate_cb(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_RELAXED);
}

/* Memory freed before the task ran: the task fails, as a copy would. */
static void test_builtin_freed(void **state)
{
	aclrtRandomNumTaskInfo ti;
	aclrtStream st;
	uint64_t num = 16;
	void *d, *s, *ctr;
	int ran = 0;

	(void)state;
	d = dev_alloc(64);
	s = dev_alloc(64);
	ctr = dev_alloc(16);
	assert_int_equal(aclrtCreateStream(&st), ACL_SUCCESS);
	assert_int_equal(aclrtSubscribeReport((uint64_t)pthread_self(), st),
			 ACL_SUCCESS);
	assert_int_equal(aclrtLaunchCallback(gate_cb, &ran, ACL_CALLBACK_BLOCK, st),
			 ACL_SUCCESS);
	assert_int_equal(aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					  ACL_FLOAT, st, NULL), ACL_SUCCESS);
	memset(&ti, 0, sizeof(ti));
	ti.dataType = ACL_FLOAT;
	ti.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
	ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = 4;
	ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 4;
	ti.randomResultAddr = s;
	ti.randomCounterAddr = ctr;
	ti.randomSeed.size = 8;
	memcpy(ti.randomNum.valueOrAddr, &num, 8);
	ti.randomNum.size = 8;
	assert_int_equal(aclrtRandomNumAsync(&ti, st, NULL), ACL_SUCCESS);
	aclrtFree(s);
	assert_int_equal(aclrtProcessReport(5000), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(st), ACL_ERROR_RT_SYS_DMA);
	assert_int_equal(aclrtUnSubscribeReport((uint64_t)pthread_self(), st),
			 ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(st), ACL_SUCCESS);
	aclrtFree(d);
	aclrtFree(ctr);
}

/* ---- random numbers ---- */

static void para(aclrtRandomParaInfo *p, const void *v, uint8_t size)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->valueOrAddr, v, size);
	p->size = size;
}

static void para_addr(aclrtRandomParaInfo *p, const void *addr)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;

	memset(p, 0, sizeof(*p));
	memcpy(p->valueOrAddr, &a, 8);
	p->isAddr = 1;
	p->size = 8;
}

static void task(aclrtRandomNumTaskInfo *ti, aclDataType type, int func,
		 uint64_t seed, uint64_t num, void *out, void *ctr)
{
	memset(ti, 0, sizeof(*ti));
	ti->dataType = type;
	ti->randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)func;
	ti->randomResultAddr = out;
	ti->randomCounterAddr = ctr;
	para(&ti->randomSeed, &seed, 8);
	para(&ti->randomNum, &num, 8);
}

static aclError random_sync(const aclrtRandomNumTaskInfo *ti)
{
	aclError ret = aclrtRandomNumAsync(ti, NULL, NULL);

	return ret ? ret : aclrtSynchronizeStream(NULL);
}

/*
 * Philox4x32-10 itself: Random123's known answers (counter and key all
 * 0, and all 1s), read as uniform uint64 over [0, 2^64 - 1).
 */
static void test_random_philox_kat(void **state)
{
	aclrtRandomNumTaskInfo ti;
	uint64_t lo = 0, hi = UINT64_MAX, *out;
	uint32_t *ctr;

	(void)state;
	out = dev_alloc(64);
	ctr = dev_alloc(16);
	memset(ctr, 0, 16);
	task(&ti, ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 2, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &lo, 8);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &hi, 8);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_int_equal(out[0], 0xe169c58d6627e8d5ULL);
	assert_int_equal(out[1], 0x9b00dbd8bc57ac4cULL);
	/* One block used: the counter moved by one. */
	assert_int_equal(ctr[0], 1);
	assert_int_equal(ctr[1], 0);

	memset(ctr, 0xff, 16);
	task(&ti, ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, UINT64_MAX, 2,
	     out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &lo, 8);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &hi, 8);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_int_equal(out[0], 0x41c83b0e408f276dULL);
	assert_int_equal(out[1], 0x6d5451fda20bc7c6ULL);
	/* The 128-bit counter wrapped to 0. */
	assert_int_equal(ctr[0], 0);
	assert_int_equal(ctr[3], 0);
	aclrtFree(out);
	aclrtFree(ctr);
}

static void test_random_uniform(void **state)
{
	aclrtRandomNumTaskInfo ti;
	float fmin = -2.0f, fmax = 5.0f, *f, first[64];
	int32_t imin = 1, imax = 100, *i32;
	uint16_t hmin, hmax, *h;
	void *out, *ctr;
	int k;

	(void)state;
	out = dev_alloc(1024);
	ctr = dev_alloc(16);

	/* Deterministic: the same seed and counter, the same numbers. */
	memset(ctr, 0, 16);
	task(&ti, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 42, 64, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &fmin, 4);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &fmax, 4);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	f = out;
	for (k = 0; k < 64; k++)
		assert_true(f[k] >= fmin && f[k] < fmax);
	memcpy(first, f, sizeof(first));
	/* The counter moved: new numbers. */
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_memory_not_equal(first, f, sizeof(first));
	memset(ctr, 0, 16);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_memory_equal(first, f, sizeof(first));
	/* Another seed, other numbers. */
	memset(ctr, 0, 16);
	task(&ti, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 43, 64, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &fmin, 4);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &fmax, 4);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_memory_not_equal(first, f, sizeof(first));

	/* int32 in [min, max), as the sample asks for 1..100. */
	task(&ti, ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 256, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &imin, 4);
	para(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &imax, 4);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	i32 = out;
	for (k = 0; k < 256; k++)
		assert_true(i32[k] >= 1 && i32[k] < 100);

	/* fp16 in [1, 2), min and max read from device memory. */
	hmin = 0x3c00;
	hmax = 0x4000;
	memcpy((char *)out + 512, &hmin, 2);
	memcpy((char *)out + 514, &hmax, 2);
	task(&ti, ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 128, out, ctr);
	para_addr(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min,
		  (char *)out + 512);
	para_addr(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max,
		  (char *)out + 514);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	h = out;
	for (k = 0; k < 128; k++)
		assert_true(aclFloat16ToFloat(h[k]) >= 1.0f &&
			    aclFloat16ToFloat(h[k]) <= 2.0f);
	aclrtFree(out);
	aclrtFree(ctr);
}

static void test_random_normal(void **state)
{
	aclrtRandomNumTaskInfo ti;
	float mean = 3.0f, sd = 2.0f, *f;
	double sum = 0, sq = 0, m, v;
	uint16_t bmean = 0x3f80, bsd = 0x4000, *b;	/* bf16 1.0, 2.0 */
	uint64_t *pa;
	void *out, *ctr;
	int k, n = 4096;

	(void)state;
	out = dev_alloc(n * 4);
	ctr = dev_alloc(16);
	pa = dev_alloc(16);
	memset(ctr, 0, 16);
	task(&ti, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, 0, n, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean, &mean, 4);
	para(&ti.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev, &sd, 4);
	/* CANN writes the two parameters where randomParaAddr says. */
	ti.randomParaAddr = pa;
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	assert_memory_equal(&pa[0], &mean, 4);
	assert_memory_equal(&pa[1], &sd, 4);
	f = out;
	for (k = 0; k < n; k++) {
		sum += f[k];
		sq += (double)f[k] * f[k];
	}
	m = sum / n;
	v = sq / n - m * m;
	assert_true(fabs(m - 3.0) < 0.2);
	assert_true(fabs(sqrt(v) - 2.0) < 0.2);

	/* Truncated, bf16: nothing beyond two standard deviations. */
	task(&ti, ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, 0, n,
	     out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean, &bmean, 2);
	para(&ti.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev, &bsd, 2);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	b = out;
	for (k = 0; k < n; k++) {
		uint32_t bits = (uint32_t)b[k] << 16;
		float x;

		memcpy(&x, &bits, 4);
		assert_true(x >= -3.05f && x <= 5.05f);
	}
	aclrtFree(out);
	aclrtFree(ctr);
	aclrtFree(pa);
}

static void test_random_dropout(void **state)
{
	aclrtRandomNumTaskInfo ti;
	float ratio = 0.4f;
	uint8_t *m;
	void *out, *ctr;
	int k, ones = 0, n = 8192;

	(void)state;
	out = dev_alloc(n / 8 + 8);
	ctr = dev_alloc(16);
	memset(ctr, 0, 16);
	memset(out, 0xee, n / 8 + 8);
	task(&ti, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 0, n, out, ctr);
	para(&ti.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation,
	     &ratio, 4);
	assert_int_equal(random_sync(&ti), ACL_SUCCESS);
	m = out;
	for (k = 0; k < n / 8; k++)
		ones += __builtin_popcount(m[k]);
	/* About 1 - ratio of the bits are "keep". */
	assert_true(ones > n * 55 / 100 && ones < n * 65 / 100);
	/* One bit per number: nothing written past n / 8 bytes. */
	assert_int_equal(m[n / 8], 0xee);
	aclrtFree(out);
	aclrtFree(ctr);
}

static void test_random_args(void **state)
{
	aclrtRandomNumTaskInfo ti, base;
	float fmin = 0, fmax = 1, host[4];
	void *out, *ctr;
	int x;

	(void)state;
	out = dev_alloc(64);
	ctr = dev_alloc(16);
	task(&base, ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 4, out, ctr);
	para(&base.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, &fmin, 4);
	para(&base.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, &fmax, 4);
	assert_int_equal(random_sync(&base), ACL_SUCCESS);

	assert_int_equal(aclrtRandomNumAsync(NULL, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	ti = base;
	ti.dataType = ACL_DOUBLE;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRandomNumAsync(&base, NULL, &x), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)4;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Integers only for the uniform distribution; int8 for none. */
	ti = base;
	ti.dataType = ACL_INT32;
	ti.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.dataType = ACL_INT8;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomCounterAddr = NULL;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomResultAddr = NULL;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomSeed.size = 0;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomNum.isAddr = 2;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* A float parameter of more than 4 bytes. */
	ti = base;
	ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 5;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ti = base;
	ti.randomParaAddr = host;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Where the task writes is looked at when it runs. */
	ti = base;
	ti.randomResultAddr = host;
	assert_int_equal(aclrtRandomNumAsync(&ti, NULL, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(NULL), ACL_ERROR_RT_SYS_DMA);
	ti = base;
	ti.randomCounterAddr = host;
	assert_int_equal(random_sync(&ti), ACL_ERROR_RT_SYS_DMA);
	ti = base;
	para_addr(&ti.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, host);
	assert_int_equal(random_sync(&ti), ACL_ERROR_RT_SYS_DMA);
	aclrtFree(out);
	aclrtFree(ctr);
}

void run_builtin_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_reduce_args),
		cmocka_unit_test(test_builtin_freed),
		cmocka_unit_test(test_random_philox_kat),
		cmocka_unit_test(test_random_uniform),
		cmocka_unit_test(test_random_normal),
		cmocka_unit_test(test_random_dropout),
		cmocka_unit_test(test_random_args),
	};

	RUN_GROUP("acl_builtin", tests, acl_test_setup, acl_test_teardown, res);
}
