// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The calls of issue 30's binary drop-in (Mooncake's ascend_direct,
 * MindSpore's runtime table): pointer attributes, logical and physical
 * device ids, batch copies, aborting a stream and its failure mode.
 * Each checks CANN's codes and what the call leaves behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

#define LEN	8192

static void test_ptr_attributes(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	aclrtPtrAttributes a;
	char *d0, *d1, *pin, *plain = malloc(LEN);

	(void)state;
	assert_int_equal(aclrtMalloc((void **)&d0, LEN, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMallocHost((void **)&pin, LEN), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(1), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&d1, LEN, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);

	/* Inside an allocation as at its start. */
	memset(&a, 0xff, sizeof(a));
	assert_int_equal(aclrtPointerGetAttributes(d0 + 100, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(a.location.id, 0);
	assert_int_equal(a.pageSize, page);
	assert_int_equal(a.rsv[0], 0);
	assert_int_equal(aclrtPointerGetAttributes(d1, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(a.location.id, 1);

	assert_int_equal(aclrtPointerGetAttributes(pin + LEN - 1, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(a.location.id, 0);
	assert_int_equal(a.pageSize, page);

	assert_int_equal(aclrtPointerGetAttributes(plain, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);

	assert_int_equal(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPointerGetAttributes(plain, NULL), ACL_ERROR_INVALID_PARAM);

	/* Freed: no longer the device's. */
	assert_int_equal(aclrtFree(d1), ACL_SUCCESS);
	assert_int_equal(aclrtPointerGetAttributes(d1, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_UNREGISTERED);
	assert_int_equal(aclrtFree(d0), ACL_SUCCESS);
	assert_int_equal(aclrtFreeHost(pin), ACL_SUCCESS);
	free(plain);
}

static void test_dev_ids(void **state)
{
	uint32_t n, i;
	int32_t out;

	(void)state;
	assert_int_equal(aclrtGetDeviceCount(&n), ACL_SUCCESS);
	for (i = 0; i < n; i++) {
		out = -1;
		assert_int_equal(aclrtGetPhyDevIdByLogicDevId((int32_t)i, &out),
				 ACL_SUCCESS);
		assert_int_equal(out, i);
		out = -1;
		assert_int_equal(aclrtGetLogicDevIdByPhyDevId((int32_t)i, &out),
				 ACL_SUCCESS);
		assert_int_equal(out, i);
	}
	out = 42;
	assert_int_equal(aclrtGetPhyDevIdByLogicDevId((int32_t)n, &out),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetLogicDevIdByPhyDevId(-1, &out),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(out, 42);
	assert_int_equal(aclrtGetPhyDevIdByLogicDevId(0, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLogicDevIdByPhyDevId(0, NULL),
			 ACL_ERROR_INVALID_PARAM);
}

static const aclrtMemLocation host = { 0, ACL_MEM_LOCATION_TYPE_HOST };
static const aclrtMemLocation dev0 = { 0, ACL_MEM_LOCATION_TYPE_DEVICE };

/* Copies 0, 1 host to device, 2, 3 device to host: two attributes. */
static void test_memcpy_batch(void **state)
{
	unsigned char *h = malloc(4 * LEN), *d;
	void *dsts[4], *srcs[4];
	size_t sizes[4] = { LEN, LEN, LEN, LEN };
	size_t maxs[4] = { LEN, LEN, LEN, LEN };
	size_t idx[2] = { 0, 2 }, fail = 0;
	aclrtMemcpyBatchAttr attrs[2];
	size_t zeros[4] = { 0 };
	int i;

	(void)state;
	assert_int_equal(aclrtMalloc((void **)&d, 2 * LEN, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	memset(attrs, 0, sizeof(attrs));
	attrs[0].dstLoc = dev0;
	attrs[0].srcLoc = host;
	attrs[1].dstLoc = host;
	attrs[1].srcLoc = dev0;
	for (i = 0; i < 4 * LEN; i++)
		h[i] = (unsigned char)(i * 7);
	memset(h + 2 * LEN, 0, 2 * LEN);
	dsts[0] = d;
	srcs[0] = h;
	dsts[1] = d + LEN;
	srcs[1] = h + LEN;
	dsts[2] = h + 2 * LEN;
	srcs[2] = d;
	dsts[3] = h + 3 * LEN;
	srcs[3] = d + LEN;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_SUCCESS);
	assert_int_equal(fail, SIZE_MAX);
	assert_memory_equal(h + 2 * LEN, h, 2 * LEN);

	/* Every size 0: nothing looked at. */
	fail = 0;
	assert_int_equal(aclrtMemcpyBatch(NULL, NULL, NULL, zeros, 4, NULL,
					  NULL, 0, &fail), ACL_SUCCESS);
	assert_int_equal(fail, SIZE_MAX);

	/* The ACL layer's refusals. */
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, NULL, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 0, attrs,
					  idx, 2, &fail), ACL_ERROR_INVALID_PARAM);
	maxs[1] = LEN - 1;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(fail, SIZE_MAX);
	maxs[1] = LEN;
	attrs[1].rsv[3] = 1;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_INVALID_PARAM);
	attrs[1].rsv[3] = 0;

	/* The runtime's: the attribute ranges. */
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 0, &fail), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	idx[1] = 4;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	idx[1] = 0;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fail, SIZE_MAX);
	idx[1] = 2;

	/* Copy 3's source is host memory, its attributes say device 0. */
	memset(h + 2 * LEN, 0, 2 * LEN);
	srcs[3] = h;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fail, 3);
	/* Checked before any copy: nothing copied. */
	for (i = 2 * LEN; i < 4 * LEN; i++)
		assert_int_equal(h[i], 0);
	/* Device 1 is not where copy 3's source is. */
	srcs[3] = d + LEN;
	attrs[1].srcLoc.id = 1;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fail, 2);
	attrs[1].srcLoc.id = 0;
	/* Host to host is not a batch copy. */
	attrs[0].dstLoc = host;
	dsts[0] = h + 2 * LEN;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, &fail), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fail, 0);

	/* A NULL failIndex is allowed. */
	attrs[0].dstLoc = dev0;
	dsts[0] = d;
	assert_int_equal(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 4, attrs,
					  idx, 2, NULL), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	free(h);
}

static void test_memcpy_batch_async(void **state)
{
	unsigned char *h = malloc(2 * LEN), *back = calloc(1, LEN), *d;
	aclrtMemcpyBatchAttr attr;
	aclrtStream s;
	void *dsts[2], *srcs[2];
	size_t sizes[2] = { LEN / 2, LEN / 2 }, maxs[2] = { LEN, LEN };
	size_t idx[1] = { 0 }, fail = 0;
	int i;

	(void)state;
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc((void **)&d, LEN, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	for (i = 0; i < LEN; i++)
		h[i] = (unsigned char)(i * 13);
	memset(&attr, 0, sizeof(attr));
	attr.dstLoc = dev0;
	attr.srcLoc = host;
	dsts[0] = d;
	srcs[0] = h;
	dsts[1] = d + LEN / 2;
	srcs[1] = h + LEN / 2;
	assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &attr,
					       idx, 1, &fail, s), ACL_SUCCESS);
	assert_int_equal(fail, SIZE_MAX);
	assert_int_equal(aclrtMemcpyAsync(back, LEN, d, LEN,
					  ACL_MEMCPY_DEVICE_TO_HOST, s), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_memory_equal(back, h, LEN);

	/* The second copy's destination is host memory: refused. */
	dsts[1] = h + LEN;
	assert_int_equal(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &attr,
					       idx, 1, &fail, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(fail, 1);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	free(back);
	free(h);
}

/*
 * Stream a waits for an event that stream b, held at its gate, has not
 * recorded yet; a memset queued behind the wait.  The abort ends the
 * wait and drops the memset; the stream then runs new work.
 */
static void test_stream_abort(void **state)
{
	unsigned char *buf = calloc(1, LEN);
	aclrtStream a, b;
	aclrtStreamStatus st;
	aclrtEvent ev;
	int ran = 0, i;

	(void)state;
	assert_int_equal(aclrtCreateStream(&a), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&b), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&ev), ACL_SUCCESS);
	close_gate(b, &ran);
	assert_int_equal(aclrtRecordEvent(ev, b), ACL_SUCCESS);
	assert_int_equal(aclrtStreamWaitEvent(a, ev), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(buf, LEN, 7, LEN, a), ACL_SUCCESS);

	assert_int_equal(aclrtStreamAbort(a), ACL_SUCCESS);
	assert_int_equal(aclrtStreamQuery(a, &st), ACL_SUCCESS);
	assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
	for (i = 0; i < LEN; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);

	/* Still usable. */
	assert_int_equal(aclrtMemsetAsync(buf, LEN, 9, LEN, a), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(a), ACL_SUCCESS);
	for (i = 0; i < LEN; i++)
		assert_int_equal(buf[i], 9);
	/* Nothing queued: returns at once. */
	assert_int_equal(aclrtStreamAbort(a), ACL_SUCCESS);

	open_gate(b, &ran);
	assert_int_equal(aclrtSynchronizeStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtStreamAbort(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyEvent(ev), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(b), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(a), ACL_SUCCESS);
	/* Destroyed: unknown. */
	assert_int_equal(aclrtStreamAbort(a), ACL_ERROR_INVALID_PARAM);
	free(buf);
}

/*
 * Behind the gate: a copy into device memory freed before it runs (it
 * fails, ACL_ERROR_RT_SYS_DMA), then a fill of host memory, which runs
 * or not as the failure mode says.  Returns the byte the fill left.
 */
static int after_failure(aclrtStream s, uint64_t mode)
{
	unsigned char src[64] = { 1 }, out[64] = { 0 };
	int ran = 0;
	void *d;

	assert_int_equal(aclrtSetStreamFailureMode(s, mode), ACL_SUCCESS);
	assert_int_equal(aclrtMalloc(&d, sizeof(src), ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	close_gate(s, &ran);
	assert_int_equal(aclrtMemcpyAsync(d, sizeof(src), src, sizeof(src),
					  ACL_MEMCPY_HOST_TO_DEVICE, s), ACL_SUCCESS);
	assert_int_equal(aclrtFree(d), ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(out, sizeof(out), 5, sizeof(out), s),
			 ACL_SUCCESS);
	open_gate(s, &ran);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_SYS_DMA);
	/* The error told, the stream runs again, whatever the mode. */
	assert_int_equal(aclrtMemsetAsync(src, sizeof(src), 3, sizeof(src), s),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_SUCCESS);
	assert_int_equal(src[0], 3);
	return out[0];
}

static void test_stream_failure_mode(void **state)
{
	aclrtStream s;

	(void)state;
	assert_int_equal(ACL_CONTINUE_ON_FAILURE, 0);
	assert_int_equal(ACL_STOP_ON_FAILURE, 1);
	assert_int_equal(aclrtCreateStream(&s), ACL_SUCCESS);
	assert_int_equal(after_failure(s, ACL_CONTINUE_ON_FAILURE), 5);
	assert_int_equal(after_failure(s, ACL_STOP_ON_FAILURE), 0);
	assert_int_equal(aclrtSetStreamFailureMode(s, 2), ACL_ERROR_INVALID_PARAM);
	/* NULL: the default stream. */
	assert_int_equal(aclrtSetStreamFailureMode(NULL, ACL_STOP_ON_FAILURE),
			 ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(s), ACL_SUCCESS);
	assert_int_equal(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE),
			 ACL_ERROR_INVALID_PARAM);
}

/* One definition, under the macro <adxl/adxl_types.h> tests too. */
static void test_fabric_handle(void **state)
{
	aclrtMemFabricHandle h;

	(void)state;
	assert_int_equal(sizeof(h), 128);
	assert_int_equal(sizeof(aclrtPtrAttributes), 28);
	assert_int_equal(sizeof(aclrtMemcpyBatchAttr), 32);
#ifndef MEMREG_ACL_MEM_FABRIC_HANDLE
	fail_msg("acl_rt.h does not set the aclrtMemFabricHandle guard");
#endif
}

/* User ids are logical ids here, and both directions check the id. */
static void test_user_dev_ids(void **state)
{
	int32_t id = -5;

	(void)state;
	assert_int_equal(aclrtGetLogicDevIdByUserDevId(1, &id), ACL_SUCCESS);
	assert_int_equal(id, 1);
	assert_int_equal(aclrtGetUserDevIdByLogicDevId(0, &id), ACL_SUCCESS);
	assert_int_equal(id, 0);
	assert_int_equal(aclrtGetLogicDevIdByUserDevId(FAKE_DEVICES, &id),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetUserDevIdByLogicDevId(-1, &id),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetUserDevIdByLogicDevId(0, NULL),
			 ACL_ERROR_INVALID_PARAM);
}

/*
 * aclrtHostRegister: the program's own memory pinned (the whole pages it
 * touches), its device pointer the address itself, ended only by
 * aclrtHostUnregister; the program's pages stay its own.
 */
static void test_host_register(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *buf = aligned_alloc(page, 4 * page), *pin;
	struct memreg_register r;
	aclrtPtrAttributes a;
	void *dev = NULL, *d2;
	uint64_t live;

	(void)state;
	live = fake.live;
	memset(buf, 0x3c, 4 * page);
	assert_int_equal(aclrtHostRegister(buf + 100, 2 * page,
					   ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_SUCCESS);
	assert_ptr_equal(dev, buf + 100);
	assert_int_equal(fake.live, live + 1);
	/* Pages 0-2: 100 + 2 pages runs into the third. */
	memcpy(&r, fake.last[FAKE_REGISTER].bytes, sizeof(r));
	assert_int_equal(r.addr, (uintptr_t)buf);
	assert_int_equal(r.len, 3 * page);
	assert_int_equal(r.type, MEMREG_MEM_HOST);
	assert_int_equal(aclrtPointerGetAttributes(buf + 101, &a), ACL_SUCCESS);
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(aclrtHostGetDevicePointer(buf + 200, &d2, 0),
			 ACL_SUCCESS);
	assert_ptr_equal(d2, buf + 200);
	assert_int_equal(aclrtHostGetDevicePointer(buf + 200, &d2, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostGetDevicePointer(buf + 3 * page, &d2, 0),
			 ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
	/* Copies take it as the host memory it is. */
	assert_int_equal(aclrtMalloc(&d2, page, ACL_MEM_MALLOC_NORMAL_ONLY),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(d2, page, dev, page,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(((unsigned char *)d2)[page - 1], 0x3c);
	assert_int_equal(aclrtFree(d2), ACL_SUCCESS);

	/* Overlaps, and the wrong call to end it, are refused. */
	assert_int_equal(aclrtHostRegisterV2(buf + 2 * page, page,
					     ACL_HOST_REG_MAPPED),
			 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_int_equal(aclrtFreeHost(buf + 100), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostUnregister(buf), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
	assert_int_equal(aclrtHostUnregister(buf + 100), ACL_SUCCESS);
	assert_int_equal(fake.live, live);
	assert_int_equal(aclrtHostUnregister(buf + 100),
			 ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);

	/* V2 and its flags; MallocHost's buffers are aclrtFreeHost's. */
	assert_int_equal(aclrtHostRegisterV2(buf, page, ACL_HOST_REG_MAPPED |
					     ACL_HOST_REG_PINNED), ACL_SUCCESS);
	assert_int_equal(aclrtHostUnregister(buf), ACL_SUCCESS);
	assert_int_equal(aclrtHostRegisterV2(buf, page, 0x1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegisterV2(buf, page, ACL_HOST_REG_IOMEMORY),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtHostRegister(buf, page, ACL_HOST_REGISTER_IOMEMORY,
					   &dev), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtHostRegister(buf, page,
					   (aclrtHostRegisterType)1, &dev),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(buf, 0, ACL_HOST_REGISTER_MAPPED,
					   &dev), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(NULL, page, ACL_HOST_REGISTER_MAPPED,
					   &dev), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(buf, page, ACL_HOST_REGISTER_MAPPED,
					   NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocHost((void **)&pin, page), ACL_SUCCESS);
	assert_int_equal(aclrtHostRegister(pin, page, ACL_HOST_REGISTER_MAPPED,
					   &dev),
			 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_int_equal(aclrtHostUnregister(pin), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreeHost(pin), ACL_SUCCESS);
	assert_int_equal(fake.live, live);

	/* aclFinalize ends what is left, and leaves the memory alone. */
	assert_int_equal(aclrtHostRegister(buf, page, ACL_HOST_REGISTER_MAPPED,
					   &dev), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	assert_int_equal(fake.live, live);
	assert_int_equal(buf[page - 1], 0x3c);
	free(buf);
}

void run_dropin_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ptr_attributes,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_dev_ids,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_memcpy_batch,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_memcpy_batch_async,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_stream_abort,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_stream_failure_mode,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test(test_fabric_handle),
		cmocka_unit_test_setup_teardown(test_user_dev_ids,
						acl_test_setup, acl_test_teardown),
		cmocka_unit_test_setup_teardown(test_host_register,
						acl_test_setup, acl_test_teardown),
	};

	RUN_GROUP("acl_dropin", tests, NULL, NULL, res);
}
