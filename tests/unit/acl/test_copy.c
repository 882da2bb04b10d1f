// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Copies and fills, synchronous and on streams, against the fake devices
 * (real shared memory behind every device pointer): each direction byte
 * for byte, stream order, and the staging memory of
 * ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE taken from the allocator registered on
 * the stream.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define LEN	10000

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static void test_memcpy_every_kind(void **state)
{
	unsigned char *h1 = malloc(LEN), *h2 = malloc(LEN), *want = malloc(LEN);
	void *d0, *d1, *other;

	(void)state;
	assert_int_equal(aclrtMalloc(&d0, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, LEN, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);

	fill(want, LEN, 1);
	assert_int_equal(aclrtMemcpy(h1, LEN, want, LEN, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(h1, want, LEN);

	fill(h1, LEN, 2);
	assert_int_equal(aclrtMemcpy(d0, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_memory_equal(d0, h1, LEN);
	/* Device to device, across the two devices. */
	assert_int_equal(aclrtMemcpy(d1, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
	memset(h2, 0, LEN);
	assert_int_equal(aclrtMemcpy(h2, LEN, d1, LEN, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(h2, h1, LEN);

	/* DEFAULT finds each direction from the addresses. */
	fill(h1, LEN, 3);
	assert_int_equal(aclrtMemcpy(d0, LEN, h1, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d1, LEN, d0, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(h2, LEN, d1, LEN, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_memory_equal(h2, h1, LEN);

	fill(h1, LEN, 4);
	assert_int_equal(aclrtMemcpy(d0, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_SUCCESS);
	assert_memory_equal(d0, h1, LEN);

	/* Inside an allocation at an offset; not past its end. */
	assert_int_equal(aclrtMemcpy((char *)d0 + 100, LEN - 100, h1, LEN - 100, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy((char *)d0 + 100, 1 << 20, h1, 1 << 20, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
	/* A freed allocation is no device memory any more. */
	assert_int_equal(aclrtMalloc(&other, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtFree(other), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(other, 64, h1, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);

	assert_int_equal(aclrtMemset(d1, LEN, 0xab, LEN), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)d1)[LEN - 1], 0xab);
	aclrtFree(d0);
	aclrtFree(d1);
	free(h1);
	free(h2);
	free(want);
}

static void test_memcpy_async_every_kind(void **state)
{
	unsigned char *h1 = malloc(LEN), *h2 = malloc(LEN), *h3 = malloc(LEN);
	unsigned char *staged = malloc(LEN), *want = malloc(LEN);
	aclrtStream s;
	void *d0, *d1;
	int kind;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d0, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d1, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	fill(h1, LEN, 5);
	memcpy(want, h1, LEN);
	/* A chain, each step reading what the one before wrote. */
	assert_int_equal(aclrtMemcpyAsync(h2, LEN, h1, LEN, ACL_MEMCPY_HOST_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d0, LEN, h2, LEN, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(d1, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(h3, LEN, d1, LEN, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(h3, want, LEN);

	/* DEFAULT and the staged copy; the staged source changes at once. */
	fill(staged, LEN, 6);
	memcpy(want, staged, LEN);
	assert_int_equal(aclrtMemcpyAsync(d0, LEN, staged, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	memset(staged, 0, LEN);
	assert_int_equal(aclrtMemcpyAsync(d1, LEN, d0, LEN, ACL_MEMCPY_DEFAULT, s), ACL_SUCCESS);
	memset(h3, 0, LEN);
	assert_int_equal(aclrtMemcpyAsync(h3, LEN, d1, LEN, ACL_MEMCPY_DEFAULT, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(h3, want, LEN);

	/* The default stream (NULL) of the current context works as well. */
	assert_int_equal(aclrtMemsetAsync(d0, LEN, 0x77, LEN, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(h3, LEN, d0, LEN, ACL_MEMCPY_DEVICE_TO_HOST, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(NULL), ACL_SUCCESS);
	assert_int_equal(h3[0], 0x77);
	assert_int_equal(h3[LEN - 1], 0x77);

	for (kind = 6; kind <= 7; kind++)
		assert_int_equal(aclrtMemcpyAsync(d0, LEN, d1, LEN, (aclrtMemcpyKind)kind, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_INVALID_PARAM);
	aclrtFree(d0);
	aclrtFree(d1);
	free(h1);
	free(h2);
	free(h3);
	free(staged);
	free(want);
}

static void test_stream_fifo(void **state)
{
	enum { N = 200 };
	unsigned char *d;
	unsigned char src[N];
	aclrtStream s;
	int i;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&d, N, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	for (i = 0; i < N; i++)
		src[i] = (unsigned char)i;
	/*
	 * Each step shifts the buffer by one byte onto itself: in any other
	 * order than queued, the result differs.
	 */
	assert_int_equal(aclrtMemcpyAsync(d, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	for (i = 0; i < 50; i++) {
		assert_int_equal(aclrtMemcpyAsync(d + 1, N - 1, d, N - 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s), ACL_SUCCESS);
		assert_int_equal(aclrtMemsetAsync(d, 1, i, 1, s), ACL_SUCCESS);
	}
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	for (i = 0; i < 50; i++)
		assert_int_equal(d[i], 49 - i);
	for (i = 50; i < N; i++)
		assert_int_equal(d[i], i - 50);
	aclrtDestroyStream(s);
	aclrtFree(d);
}

/* ---- a program's allocator, counting what the runtime asks of it ---- */

struct block {
	void *addr;
	size_t size;
};

struct counting_alloc {
	unsigned int allocs, advises, frees, get_addrs;
	void *hints[8];
	struct block *freed[8];
	sem_t *hold;		/* if set, freeFunc waits on it */
};

static void *ca_alloc(aclrtAllocator obj, size_t size)
{
	struct counting_alloc *ca = obj;
	struct block *b = malloc(sizeof(*b));

	ca->allocs++;
	b->addr = malloc(size);
	b->size = size;
	return b;
}

static void *ca_advise(aclrtAllocator obj, size_t size, aclrtAllocatorAddr addr)
{
	struct counting_alloc *ca = obj;

	if (ca->advises < 8)
		ca->hints[ca->advises] = addr;
	ca->advises++;
	ca->allocs--;	/* counted as an advise, not an alloc */
	return ca_alloc(obj, size);
}

static void ca_free(aclrtAllocator obj, aclrtAllocatorBlock block)
{
	struct counting_alloc *ca = obj;
	struct block *b = block;

	if (ca->hold)
		sem_wait(ca->hold);
	if (ca->frees < 8)
		ca->freed[ca->frees] = b;
	ca->frees++;
	free(b->addr);
	b->addr = NULL;	/* the block stays, so tests can compare it */
}

static void *ca_get_addr(aclrtAllocatorBlock block)
{
	return ((struct block *)block)->addr;
}

static aclrtAllocatorDesc ca_desc(struct counting_alloc *ca, int advise)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	aclrtAllocatorSetObjToDesc(d, ca);
	aclrtAllocatorSetAllocFuncToDesc(d, ca_alloc);
	aclrtAllocatorSetFreeFuncToDesc(d, ca_free);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, ca_get_addr);
	if (advise)
		aclrtAllocatorSetAllocAdviseFuncToDesc(d, ca_advise);
	return d;
}

static void test_staging_uses_allocator(void **state)
{
	struct counting_alloc ca = { 0 };
	aclrtAllocatorDesc d = ca_desc(&ca, 1);
	unsigned char *src, want[LEN];
	aclrtStream s;
	void *dev;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&dev, LEN, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);

	/* The host buffer may go as soon as the call returns. */
	src = malloc(LEN);
	fill(src, LEN, 7);
	memcpy(want, src, LEN);
	assert_int_equal(aclrtMemcpyAsync(dev, LEN, src, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	free(src);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(dev, want, LEN);
	assert_int_equal(ca.allocs, 1);
	assert_int_equal(ca.frees, 1);
	assert_int_equal(ca.advises, 0);

	/* Again on the same stream: asked for the address used before. */
	src = malloc(LEN);
	fill(src, LEN, 8);
	memcpy(want, src, LEN);
	assert_int_equal(aclrtMemcpyAsync(dev, LEN, src, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	free(src);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(dev, want, LEN);
	assert_int_equal(ca.allocs, 1);
	assert_int_equal(ca.advises, 1);
	assert_int_equal(ca.frees, 2);
	assert_non_null(ca.hints[0]);

	/* Other kinds need no work memory. */
	assert_int_equal(aclrtMemcpyAsync(dev, LEN, want, LEN, ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(ca.allocs + ca.advises, 2);

	/* Unregistered: the runtime's own pool, the allocator untouched. */
	assert_int_equal(aclrtAllocatorUnregister(s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(dev, LEN, want, LEN, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(dev, want, LEN);
	assert_int_equal(ca.allocs + ca.advises, 2);
	assert_int_equal(ca.frees, 2);

	aclrtAllocatorDestroyDesc(d);
	aclrtDestroyStream(s);
	aclrtFree(dev);
	free(ca.freed[0]);
	free(ca.freed[1]);
}

static void test_staging_without_advise(void **state)
{
	struct counting_alloc ca = { 0 };
	aclrtAllocatorDesc d = ca_desc(&ca, 0);
	unsigned char src[256];
	aclrtStream s;
	void *dev;
	int i;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&dev, sizeof(src), ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	/* Registered and destroyed: the registration is a copy. */
	assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
	aclrtAllocatorDestroyDesc(d);
	for (i = 0; i < 3; i++) {
		memset(src, i + 1, sizeof(src));
		assert_int_equal(aclrtMemcpyAsync(dev, sizeof(src), src, sizeof(src),
						  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	}
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)dev)[0], 3);
	/* No advise function: plain allocations every time. */
	assert_int_equal(ca.allocs, 3);
	assert_int_equal(ca.advises, 0);
	assert_int_equal(ca.frees, 3);
	aclrtDestroyStream(s);
	aclrtFree(dev);
	for (i = 0; i < 3; i++)
		free(ca.freed[i]);
}

static void test_stream_is_asynchronous(void **state)
{
	struct counting_alloc ca = { 0 };
	aclrtAllocatorDesc d = ca_desc(&ca, 0);
	unsigned char src[64], out[64];
	aclrtStream s;
	sem_t hold;
	void *dev;

	(void)state;
	sem_init(&hold, 0, 0);
	ca.hold = &hold;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(s, d), ACL_SUCCESS);
	memset(src, 9, sizeof(src));
	memset(out, 0, sizeof(out));
	/* The worker stops in freeFunc until the semaphore is posted ... */
	assert_int_equal(aclrtMemcpyAsync(dev, 64, src, 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	/* ... so the calls returned before the work was done, in order. */
	assert_int_equal(out[0], 0);
	sem_post(&hold);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(out[63], 9);
	assert_int_equal(ca.frees, 1);
	aclrtAllocatorDestroyDesc(d);
	aclrtDestroyStream(s);
	aclrtFree(dev);
	free(ca.freed[0]);
	sem_destroy(&hold);
}

void run_copy_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_memcpy_every_kind,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_memcpy_async_every_kind,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_stream_fifo,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_staging_uses_allocator,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_staging_without_advise,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_stream_is_asynchronous,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_copy", tests, NULL, NULL, res);
}
