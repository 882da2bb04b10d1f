// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the runtime decides before it needs a device: aclInit's reference
 * count and repeat codes, and the argument checks of the memory and copy
 * calls.  MEMREG_DEVICE points at a path that does not exist, so a check
 * that wrongly went on to the module would fail differently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "tests.h"

static int no_module(void **state)
{
	(void)state;
	return setenv("MEMREG_DEVICE", "/nonexistent/memreg", 1);
}

static void test_init_refcount(void **state)
{
	uint64_t refs = 99;

	(void)state;
	assert_int_equal(aclFinalize(), ACL_ERROR_UNINITIALIZE);
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	/* Repeats count, and say that they are repeats. */
	assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(aclInit(""), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(aclFinalizeReference(&refs), ACL_SUCCESS);
	assert_int_equal(refs, 2);
	assert_int_equal(aclFinalizeReference(&refs), ACL_SUCCESS);
	assert_int_equal(refs, 1);
	assert_int_equal(aclFinalizeReference(&refs), ACL_SUCCESS);
	assert_int_equal(refs, 0);
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	assert_int_equal(aclFinalizeReference(NULL), ACL_ERROR_REPEAT_FINALIZE);
	/* aclFinalize ends it whatever the count. */
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_init_config(void **state)
{
	char a[] = "/tmp/acl-cfg-a-XXXXXX", b[] = "/tmp/acl-cfg-b-XXXXXX";
	int fa = mkstemp(a), fb = mkstemp(b);

	(void)state;
	assert_true(fa >= 0 && fb >= 0);
	close(fa);
	close(fb);
	write_file(a, "{\"dump\": {}}\n");
	write_file(b, "{\"err_msg_mode\": \"1\"}\n");

	assert_int_equal(aclInit("/nonexistent/acl.json"), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclInit(a), ACL_SUCCESS);
	/* The same content again is a repeat; other content is refused. */
	assert_int_equal(aclInit(a), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(aclInit(b), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	unlink(a);
	unlink(b);
}

static void test_device_without_init(void **state)
{
	int32_t dev = -1;
	uint32_t count;

	(void)state;
	/* No aclInit needed (test_errors.c: it works); here no module. */
	assert_int_equal(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
	assert_int_equal(aclrtGetDeviceCount(&count), ACL_ERROR_RT_NO_DEVICE);
	/* No context in this thread. */
	assert_int_equal(aclrtGetDevice(&dev), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(dev, -1);
	assert_int_equal(aclrtGetDevice(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_no_module(void **state)
{
	(void)state;
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_ERROR_RT_NO_DEVICE);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

static void test_malloc_args(void **state)
{
	void *p = (void *)0x1;

	(void)state;
	assert_int_equal(aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	/* size + 64 would wrap. */
	assert_int_equal(aclrtMalloc(&p, SIZE_MAX - 40, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocAlign32(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocAlign32(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	assert_ptr_equal(p, (void *)0x1);
	/* Arguments right, but no device set in this thread. */
	assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFree(&p), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreeHost(&p), ACL_ERROR_INVALID_PARAM);
}

static void test_memcpy_args(void **state)
{
	char a[64], b[64];
	int kind;

	(void)state;
	/* Count 0 succeeds before any other check, NULLs and bad kind included. */
	assert_int_equal(aclrtMemcpy(NULL, 0, NULL, 0, (aclrtMemcpyKind)99), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(NULL, 0, NULL, 0, (aclrtMemcpyKind)7, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(NULL, 64, b, 64, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy(a, 64, NULL, 64, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_INVALID_PARAM);
	/* The reserved kinds 6 and 7, and beyond, are refused by both. */
	for (kind = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE; kind <= 8; kind++) {
		assert_int_equal(aclrtMemcpy(a, 64, b, 64, (aclrtMemcpyKind)kind), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(aclrtMemcpyAsync(a, 64, b, 64, (aclrtMemcpyKind)kind, NULL), ACL_ERROR_INVALID_PARAM);
	}
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, (aclrtMemcpyKind)-1), ACL_ERROR_INVALID_PARAM);
	/* destMax below count. */
	assert_int_equal(aclrtMemcpy(a, 63, b, 64, ACL_MEMCPY_HOST_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(a, 63, b, 64, ACL_MEMCPY_HOST_TO_HOST, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* A device side that is no device memory. */
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_HOST_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEVICE_TO_HOST), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE), ACL_ERROR_RT_PARAM_INVALID);
	/* Host to host needs no device, DEFAULT between host buffers neither. */
	memset(b, 0x5c, sizeof(b));
	memset(a, 0, sizeof(a));
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_HOST_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(a, b, 64);
	memset(b, 0x3a, sizeof(b));
	assert_int_equal(aclrtMemcpy(a, 64, b, 64, ACL_MEMCPY_DEFAULT), ACL_SUCCESS);
	assert_memory_equal(a, b, 64);
	/* The async one then needs a stream: no context, no default stream. */
	assert_int_equal(aclrtMemcpyAsync(a, 64, b, 64, ACL_MEMCPY_HOST_TO_HOST, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtMemcpyAsync(a, 64, b, 64, ACL_MEMCPY_HOST_TO_HOST, (aclrtStream)a), ACL_ERROR_INVALID_PARAM);
}

static void test_memset_args(void **state)
{
	char a[64];

	(void)state;
	assert_int_equal(aclrtMemset(NULL, 0, 0, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMemset(NULL, 64, 0, 64), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemset(a, 32, 0, 64), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemset(a, 64, 0x7e, 64), ACL_SUCCESS);
	assert_int_equal(a[0], 0x7e);
	assert_int_equal(a[63], 0x7e);
	assert_int_equal(aclrtMemsetAsync(NULL, 64, 0, 64, NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_stream_args(void **state)
{
	aclrtStream s = NULL;
	size_t f, t;
	int x;

	(void)state;
	assert_int_equal(aclrtCreateStream(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	assert_null(s);
	assert_int_equal(aclrtDestroyStream(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStream(&x), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSynchronizeStream(&x), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, NULL, &t), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemInfo((aclrtMemAttr)18, &f, &t), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemInfo(ACL_HBM_MEM, &f, &t), ACL_ERROR_RT_CONTEXT_NULL);
}

void run_args_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_refcount),
		cmocka_unit_test(test_init_config),
		cmocka_unit_test(test_device_without_init),
		cmocka_unit_test(test_no_module),
		cmocka_unit_test(test_malloc_args),
		cmocka_unit_test(test_memcpy_args),
		cmocka_unit_test(test_memset_args),
		cmocka_unit_test(test_stream_args),
	};

	RUN_GROUP("acl_args", tests, no_module, NULL, res);
}
