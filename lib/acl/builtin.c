// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The tasks a device runs without an operator: aclrtReduceAsync (its DMA
 * engine adds, or takes the larger or smaller of, src into dst) and
 * aclrtRandomNumAsync (its random-number engine).  Here both are loops of
 * the stream's worker over the mapped device memory, queued like copies
 * and failing like them if the memory was freed before they ran.
 *
 * The checks are CANN's, in its order: what its ACL layer refuses is
 * ACL_ERROR_INVALID_PARAM (NULL pointers, a data type it does not know,
 * the reserved argument), what its runtime refuses is
 * ACL_ERROR_RT_PARAM_INVALID (count 0, the kind, a data type the
 * function does not take, a parameter of a bad size).
 *
 * Random numbers are Philox4x32-10, the algorithm CANN names for this
 * task: the seed is the key, the 16 bytes at randomCounterAddr the
 * 128-bit counter.  The same seed and counter give the same numbers;
 * the task moves the counter past the blocks it used, so that the next
 * task with that counter gives new ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "errors.h"
#include "memory.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"

/* ---- element types ---- */

static size_t elem_size(aclDataType type)
{
	switch (type) {
	case ACL_INT8:
		return 1;
	case ACL_INT16:
	case ACL_FLOAT16:
	case ACL_BF16:
		return 2;
	case ACL_INT32:
	case ACL_UINT32:
	case ACL_FLOAT:
		return 4;
	case ACL_INT64:
	case ACL_UINT64:
		return 8;
	default:
		return 0;
	}
}

static bool is_float(aclDataType type)
{
	return type == ACL_FLOAT || type == ACL_FLOAT16 || type == ACL_BF16;
}

static float bf16_to_float(uint16_t v)
{
	uint32_t bits = (uint32_t)v << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Round to nearest, ties to even, as the hardware converts. */
static uint16_t float_to_bf16(float f)
{
	uint32_t bits;

	memcpy(&bits, &f, sizeof(bits));
	if ((bits & 0x7fffffffU) > 0x7f800000U)
		return (uint16_t)((bits >> 16) | 0x40);	/* a quiet NaN */
	bits += 0x7fffU + ((bits >> 16) & 1);
	return (uint16_t)(bits >> 16);
}

static float load_float(const void *p, aclDataType type)
{
	uint16_t h;
	float f;

	if (type == ACL_FLOAT) {
		memcpy(&f, p, sizeof(f));
		return f;
	}
	memcpy(&h, p, sizeof(h));
	return type == ACL_BF16 ? bf16_to_float(h) : aclFloat16ToFloat(h);
}

static void store_float(void *p, aclDataType type, float f)
{
	uint16_t h;

	if (type == ACL_FLOAT) {
		memcpy(p, &f, sizeof(f));
		return;
	}
	h = type == ACL_BF16 ? float_to_bf16(f) : aclFloatToFloat16(f);
	memcpy(p, &h, sizeof(h));
}

/* A signed integer of @size bytes at @p. */
static int64_t load_int(const void *p, size_t size)
{
	int8_t i8;
	int16_t i16;
	int32_t i32;
	int64_t i64;

	switch (size) {
	case 1:
		memcpy(&i8, p, 1);
		return i8;
	case 2:
		memcpy(&i16, p, 2);
		return i16;
	case 4:
		memcpy(&i32, p, 4);
		return i32;
	}
	memcpy(&i64, p, 8);
	return i64;
}

/* Its low @size bytes (little-endian, as the devices and hosts here). */
static void store_int(void *p, size_t size, int64_t v)
{
	memcpy(p, &v, size);
}

/*
 * Is [p, p + len) device memory?  rt.lock held.  A task holds it while it
 * checks, then devmem_use while it works, as the copies do.
 */
static bool covers(const void *p, size_t len)
{
	return p && memreg__acl_devmem_covers(p, len);
}

/* Queue @t on @stream (the default one for NULL); frees it on failure. */
static aclError queue(aclrtStream stream, struct acl_task *t)
{
	struct acl_stream *s;
	aclError ret;

	s = memreg__acl_stream_get(stream, &ret);
	if (s) {
		ret = memreg__acl_stream_enqueue(s, t);
		memreg__acl_stream_put(s);
	}
	if (ret)
		memreg__acl_task_release(t);
	return ret;
}

/* ---- aclrtReduceAsync ---- */

/* The types the SoC memreg names (Ascend910B1, an Atlas A2) reduces. */
static bool reduce_type(aclDataType type)
{
	switch (type) {
	case ACL_INT8:
	case ACL_INT16:
	case ACL_INT32:
	case ACL_FLOAT16:
	case ACL_FLOAT:
	case ACL_BF16:
		return true;
	default:
		return false;
	}
}

static void reduce(void *dst, const void *src, size_t count,
		   aclrtReduceKind kind, aclDataType type)
{
	size_t size = elem_size(type), off;
	int64_t a, b;
	float x, y;

	for (off = 0; off + size <= count; off += size) {
		char *d = (char *)dst + off;
		const char *s = (const char *)src + off;

		if (is_float(type)) {
			x = load_float(d, type);
			y = load_float(s, type);
			if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)
				x += y;
			else if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)
				x = y > x ? y : x;
			else
				x = y < x ? y : x;
			store_float(d, type, x);
			continue;
		}
		a = load_int(d, size);
		b = load_int(s, size);
		if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)
			/* Wraps at the type's width, as a two's complement adder. */
			a = (int64_t)((uint64_t)a + (uint64_t)b);
		else if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)
			a = b > a ? b : a;
		else
			a = b < a ? b : a;
		store_int(d, size, a);
	}
}

/* The task of aclrtReduceAsync: dst = dst OP src over count bytes. */
struct reduce_task {
	struct acl_task task;
	void *dst;
	const void *src;
	size_t count;
	aclrtReduceKind kind;
	aclDataType type;
};
ACL_KIND_BEGINS_WITH_TASK(struct reduce_task);

static struct reduce_task *reduce_task(const struct acl_task *t)
{
	return acl_task_data(t, struct reduce_task);
}

static aclError reduce_run(struct acl_stream *s, struct acl_task *t)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct reduce_task *r = reduce_task(t);

	(void)s;
	pthread_mutex_lock(&rt->lock);
	if (!covers(r->dst, r->count) || !covers(r->src, r->count)) {
		pthread_mutex_unlock(&rt->lock);
		return ACL_ERROR_RT_SYS_DMA;
	}
	pthread_rwlock_rdlock(&rt->devmem_use);
	pthread_mutex_unlock(&rt->lock);
	reduce(r->dst, r->src, r->count, r->kind, r->type);
	pthread_rwlock_unlock(&rt->devmem_use);
	return ACL_SUCCESS;
}

static struct acl_task *reduce_clone(const struct acl_task *t,
				     struct acl_stream *s)
{
	struct reduce_task *c = malloc(sizeof(*c));

	(void)s;
	if (c)
		*c = *reduce_task(t);
	return c ? &c->task : NULL;
}

static void reduce_print(const struct acl_task_printer *p,
			 const struct acl_task *t)
{
	const struct reduce_task *r = reduce_task(t);

	memreg__acl_print_ptr(p, "dst", r->dst);
	memreg__acl_print_ptr(p, "src", r->src);
	memreg__acl_print_u64(p, "size", r->count);
	memreg__acl_print_u64(p, "kind", (uint32_t)r->kind);
	memreg__acl_print_i64(p, "data_type", (int)r->type);
}

/* It holds nothing: dropped or released, there is nothing to give back. */
static const struct acl_task_ops reduce_ops = {
	.name = "REDUCE",
	.run = reduce_run,
	.clone = reduce_clone,
	.print = reduce_print,
};

aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count,
			  aclrtReduceKind kind, aclDataType type,
			  aclrtStream stream, void *reserve)
{
	struct reduce_task *r;
	bool dev;

	if (!dst || !src)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					dst ? "src" : "dst"));
	if (reserve)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"reserve is reserved, must be NULL"));
	if (!elem_size(type))
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"data type %d is not supported", type));
	if (!count)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"count is 0"));
	if ((unsigned int)kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM ||
	    (unsigned int)kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"kind %d: 10 to 13", kind));
	/* CANN says what EQUAL computes nowhere; memreg does not guess. */
	if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
		return acl_ret(acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
					"ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL is not emulated"));
	if (!reduce_type(type))
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"data type %d: the SoC reduces int8, int16, int32, fp16, fp32, bf16",
					type));
	if (count % elem_size(type) || count > SIZE_MAX)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"count %llu is no whole number of elements",
					(unsigned long long)count));
	pthread_mutex_lock(&memreg__acl_rt.lock);
	dev = covers(dst, count) && covers(src, count);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (!dev)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"dst and src must be device memory of count bytes"));
	r = calloc(1, sizeof(*r));
	if (!r)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	r->task.ops = &reduce_ops;
	r->dst = dst;
	r->src = src;
	r->count = (size_t)count;
	r->kind = kind;
	r->type = type;
	return acl_ret(queue(stream, &r->task));
}

/* ---- aclrtRandomNumAsync ---- */

#define PHILOX_M0	0xD2511F53U
#define PHILOX_M1	0xCD9E8D57U
#define PHILOX_W0	0x9E3779B9U
#define PHILOX_W1	0xBB67AE85U
#define COUNTER_SIZE	16U
#define PARAM_SIZE	16U	/* two 8-byte parameters at randomParaAddr */
#define ACL_PI		3.14159265358979323846

struct philox {
	uint32_t key[2];
	uint32_t ctr[4];
	uint32_t out[4];
	unsigned int used;	/* of out: 4 means draw a new block */
};

static void philox_block(struct philox *g)
{
	uint32_t c[4], k0 = g->key[0], k1 = g->key[1];
	uint64_t p0, p1;
	int i;

	memcpy(c, g->ctr, sizeof(c));
	for (i = 0; i < 10; i++) {
		p0 = (uint64_t)PHILOX_M0 * c[0];
		p1 = (uint64_t)PHILOX_M1 * c[2];
		c[0] = (uint32_t)(p1 >> 32) ^ c[1] ^ k0;
		c[1] = (uint32_t)p1;
		c[2] = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
		c[3] = (uint32_t)p0;
		k0 += PHILOX_W0;
		k1 += PHILOX_W1;
	}
	memcpy(g->out, c, sizeof(c));
	/* The counter is 128 bits: carry into the next word. */
	for (i = 0; i < 4 && !++g->ctr[i]; i++)
		;
	g->used = 0;
}

static uint32_t next32(struct philox *g)
{
	if (g->used == 4)
		philox_block(g);
	return g->out[g->used++];
}

static uint64_t next64(struct philox *g)
{
	uint64_t lo = next32(g);

	return lo | (uint64_t)next32(g) << 32;
}

/* In [0, 1), 24 bits: every value a float can hold exactly. */
static float uniform01(struct philox *g)
{
	return (float)(next32(g) >> 8) * (1.0f / 16777216.0f);
}

/* A standard normal number, Box-Muller; the second of the pair is dropped. */
static float normal01(struct philox *g)
{
	/* (0, 1]: the logarithm must not see 0. */
	double u1 = ((double)next32(g) + 1.0) / 4294967296.0;
	double u2 = (double)next32(g) / 4294967296.0;

	return (float)(sqrt(-2.0 * log(u1)) * cos(2.0 * ACL_PI * u2));
}

/*
 * The task of aclrtRandomNumAsync, its description copied at the call:
 * the caller's struct may go.
 */
struct random_task {
	struct acl_task task;
	aclrtRandomNumTaskInfo info;
	size_t dsize;		/* of the data type */
};
ACL_KIND_BEGINS_WITH_TASK(struct random_task);

static struct random_task *random_task(const struct acl_task *t)
{
	return acl_task_data(t, struct random_task);
}

/* A parameter's 8 bytes: its value, or (isAddr) the address of one. */
static uint64_t para_raw(const aclrtRandomParaInfo *p)
{
	uint64_t v = 0;

	memcpy(&v, p->valueOrAddr, p->size < 8 ? p->size : 8);
	return v;
}

static void *para_addr(const aclrtRandomParaInfo *p)
{
	uint64_t v;

	memcpy(&v, p->valueOrAddr, sizeof(v));
	return (void *)(uintptr_t)v;
}

/*
 * Where the parameter's @len bytes are: in the struct, or at its address
 * (which must be device memory; rt.lock held).  NULL if it is not.
 */
static const void *para_ptr(const aclrtRandomParaInfo *p, size_t len)
{
	void *a;

	if (!p->isAddr)
		return p->valueOrAddr;
	a = para_addr(p);
	return covers(a, len) ? a : NULL;
}

static uint64_t load_u64(const void *p, size_t len)
{
	uint64_t v = 0;

	memcpy(&v, p, len);
	return v;
}

/* Two parameters of the function, as floats or as integers. */
struct random_params {
	float f[2];
	int64_t i[2];
	uint64_t u[2];
};

static void gen_uniform(struct philox *g, aclDataType type,
			const struct random_params *p, char *out, uint64_t num)
{
	size_t size = elem_size(type);
	uint64_t k, span;
	int64_t v;

	for (k = 0; k < num; k++, out += size) {
		switch (type) {
		case ACL_FLOAT:
		case ACL_FLOAT16:
		case ACL_BF16:
			store_float(out, type,
				    p->f[0] + uniform01(g) * (p->f[1] - p->f[0]));
			continue;
		case ACL_INT32:
		case ACL_INT64:
			/* [min, max); an empty range gives min. */
			span = p->i[1] > p->i[0] ?
			       (uint64_t)p->i[1] - (uint64_t)p->i[0] : 0;
			v = p->i[0];
			if (span)
				v = (int64_t)((uint64_t)v +
					      (size == 4 ? next32(g) % span :
							   next64(g) % span));
			store_int(out, size, v);
			continue;
		default:	/* UINT32, UINT64 */
			span = p->u[1] > p->u[0] ? p->u[1] - p->u[0] : 0;
			v = (int64_t)p->u[0];
			if (span)
				v = (int64_t)(p->u[0] +
					      (size == 4 ? next32(g) % span :
							   next64(g) % span));
			store_int(out, size, v);
			continue;
		}
	}
}

/* Truncated: beyond two standard deviations is drawn again (TensorFlow's). */
static void gen_normal(struct philox *g, aclDataType type,
		       const struct random_params *p, char *out, uint64_t num,
		       bool truncated)
{
	size_t size = elem_size(type);
	uint64_t k;
	float z;

	for (k = 0; k < num; k++, out += size) {
		do
			z = normal01(g);
		while (truncated && fabsf(z) > 2.0f);
		store_float(out, type, p->f[0] + p->f[1] * z);
	}
}

/*
 * Bit k of the result (LSB first) is 1, "keep", with probability
 * 1 - ratio: the dropout ratio is the share of zeros.
 */
static void gen_bitmask(struct philox *g, float ratio, uint8_t *out,
			uint64_t num)
{
	uint64_t k;

	memset(out, 0, (size_t)((num + 7) / 8));
	for (k = 0; k < num; k++)
		if (uniform01(g) >= ratio)
			out[k / 8] |= (uint8_t)(1U << (k % 8));
}

/* The byte count of the result for @num numbers. */
static uint64_t result_len(const struct random_task *r, uint64_t num)
{
	if (r->info.randomNumFuncParaInfo.funcType ==
	    ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
		return (num + 7) / 8;
	return num > UINT64_MAX / r->dsize ? UINT64_MAX : num * r->dsize;
}

static aclError random_run(struct acl_stream *s, struct acl_task *t)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct random_task *r = random_task(t);
	const aclrtRandomNumTaskInfo *in = &r->info;
	const aclrtRandomParaInfo *pa, *pb;
	struct random_params p;
	const void *a, *b, *seedp, *nump;
	struct philox g = { .used = 4 };
	aclDataType type = in->dataType;
	uint64_t seed, num, len;
	int func;

	(void)s;
	memset(&p, 0, sizeof(p));
	func = in->randomNumFuncParaInfo.funcType;
	pa = &in->randomNumFuncParaInfo.paramInfo.uniformDisInfo.min;
	pb = &in->randomNumFuncParaInfo.paramInfo.uniformDisInfo.max;
	pthread_mutex_lock(&rt->lock);
	seedp = para_ptr(&in->randomSeed, sizeof(uint64_t));
	nump = para_ptr(&in->randomNum, sizeof(uint64_t));
	a = para_ptr(pa, r->dsize);
	b = func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ? a :
	    para_ptr(pb, r->dsize);
	if (!seedp || !nump || !a || !b ||
	    !covers(in->randomCounterAddr, COUNTER_SIZE))
		goto gone;
	seed = load_u64(seedp, in->randomSeed.isAddr ? 8 : in->randomSeed.size);
	num = load_u64(nump, in->randomNum.isAddr ? 8 : in->randomNum.size);
	len = result_len(r, num);
	if (num && (len > SIZE_MAX || !covers(in->randomResultAddr, (size_t)len)))
		goto gone;
	pthread_rwlock_rdlock(&rt->devmem_use);
	pthread_mutex_unlock(&rt->lock);

	if (is_float(type)) {
		p.f[0] = load_float(a, type);
		p.f[1] = load_float(b, type);
	} else {
		p.i[0] = load_int(a, r->dsize);
		p.i[1] = load_int(b, r->dsize);
		p.u[0] = load_u64(a, r->dsize);
		p.u[1] = load_u64(b, r->dsize);
	}
	g.key[0] = (uint32_t)seed;
	g.key[1] = (uint32_t)(seed >> 32);
	memcpy(g.ctr, in->randomCounterAddr, COUNTER_SIZE);
	switch (func) {
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
		gen_bitmask(&g, p.f[0], in->randomResultAddr, num);
		break;
	case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
		gen_uniform(&g, type, &p, in->randomResultAddr, num);
		break;
	default:
		gen_normal(&g, type, &p, in->randomResultAddr, num,
			   func == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS);
		break;
	}
	/* Past the blocks used: the next task draws new numbers. */
	memcpy(in->randomCounterAddr, g.ctr, COUNTER_SIZE);
	pthread_rwlock_unlock(&rt->devmem_use);
	return ACL_SUCCESS;
gone:
	/* Freed (or never device memory, for an address read now). */
	pthread_mutex_unlock(&rt->lock);
	return ACL_ERROR_RT_SYS_DMA;
}

/*
 * A model runs its captured random-number task again and again: each
 * task it queues owns a description of its own (plain data, no
 * pointers that it owns).
 */
static struct acl_task *random_clone(const struct acl_task *t,
				     struct acl_stream *s)
{
	struct random_task *c = malloc(sizeof(*c));

	(void)s;
	if (c)
		*c = *random_task(t);
	return c ? &c->task : NULL;
}

/*
 * It holds nothing to give back; its parameters are not printed (where
 * the numbers go is in its description).
 */
static const struct acl_task_ops random_ops = {
	.name = "RANDOM_NUM",
	.run = random_run,
	.clone = random_clone,
};

/* Which data types each function takes (CANN's runtime, its check). */
static bool random_type(int func, aclDataType type)
{
	switch (type) {
	case ACL_FLOAT:
	case ACL_FLOAT16:
	case ACL_BF16:
		return true;
	case ACL_INT32:
	case ACL_INT64:
	case ACL_UINT32:
	case ACL_UINT64:
		return func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
	default:
		return false;
	}
}

/* isAddr 0 or 1, and 1 to @max bytes filled in (8 for an address). */
static bool para_ok(const aclrtRandomParaInfo *p, size_t max)
{
	if (p->isAddr > 1)
		return false;
	if (p->isAddr)
		max = sizeof(uint64_t);
	return p->size >= 1 && p->size <= max;
}

static aclError check_random(const aclrtRandomNumTaskInfo *in, size_t dsize)
{
	const aclrtRandomNumFuncParaInfo *f = &in->randomNumFuncParaInfo;
	int func = f->funcType;

	if (func < ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK ||
	    func > ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"funcType %d: 0 to 3", func);
	if (!random_type(func, in->dataType))
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"data type %d is not one funcType %d takes",
				in->dataType, func);
	if (!in->randomCounterAddr || !in->randomResultAddr)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"randomCounterAddr and randomResultAddr are needed");
	if (!para_ok(&in->randomSeed, sizeof(uint64_t)) ||
	    !para_ok(&in->randomNum, sizeof(uint64_t)))
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"randomSeed and randomNum: isAddr 0 or 1, size 1 to 8");
	/* The union's first member is at the same place for every function. */
	if (!para_ok(&f->paramInfo.uniformDisInfo.min, dsize) ||
	    (func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK &&
	     !para_ok(&f->paramInfo.uniformDisInfo.max, dsize)))
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"a parameter of the function: isAddr 0 or 1, size 1 to %zu",
				dsize);
	return ACL_SUCCESS;
}

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo,
			     const aclrtStream stream, void *reserve)
{
	const aclrtRandomNumFuncParaInfo *f;
	struct random_task *r;
	uint64_t param[2] = { 0, 0 };
	aclError ret;
	size_t dsize;
	bool dev;

	if (!taskInfo)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"taskInfo is NULL"));
	dsize = elem_size(taskInfo->dataType);
	if (!dsize)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"data type %d is not supported",
					taskInfo->dataType));
	if (reserve)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"reserve is reserved, must be NULL"));
	ret = check_random(taskInfo, dsize);
	if (ret)
		return acl_ret(ret);
	f = &taskInfo->randomNumFuncParaInfo;
	/*
	 * CANN writes the function's two parameters (8 bytes each, as given)
	 * to randomParaAddr at the call; that memory must be the device's.
	 */
	if (taskInfo->randomParaAddr) {
		pthread_mutex_lock(&memreg__acl_rt.lock);
		dev = covers(taskInfo->randomParaAddr, PARAM_SIZE);
		if (dev) {
			param[0] = para_raw(&f->paramInfo.uniformDisInfo.min);
			if (f->funcType != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
				param[1] = para_raw(&f->paramInfo.uniformDisInfo.max);
			memcpy(taskInfo->randomParaAddr, param, PARAM_SIZE);
		}
		pthread_mutex_unlock(&memreg__acl_rt.lock);
		if (!dev)
			return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
						"randomParaAddr must be 16 bytes of device memory"));
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	r->task.ops = &random_ops;
	r->info = *taskInfo;
	r->dsize = dsize;
	return acl_ret(queue(stream, &r->task));
}
