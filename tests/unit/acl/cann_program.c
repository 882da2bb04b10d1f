// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program written the way CANN's samples are, against CANN's header
 * names only: it must compile unchanged as C and as C++ (-Wall -Werror)
 * and link against libmemreg.  Compiled, linked and run by `make headers`
 * (it needs no device: it stops at the first call that would).
 */
#include <stdio.h>
#include "acl/acl.h"
#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "acl/acl_rt_allocator.h"
#include "acl/error_codes/rt_error_codes.h"

#define CHECK_ACL(x)							\
	do {								\
		aclError __ret = (x);					\
		if (__ret != ACL_SUCCESS) {				\
			printf("%s failed: %d\n", #x, __ret);		\
		}							\
	} while (0)

typedef struct {
	int allocs;
} MyAllocator;

static void *MyAlloc(aclrtAllocator allocator, size_t size)
{
	(void)allocator;
	(void)size;
	return NULL;
}

static void MyFree(aclrtAllocator allocator, aclrtAllocatorBlock block)
{
	(void)allocator;
	(void)block;
}

static void *MyAllocAdvise(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr)
{
	(void)allocator;
	(void)size;
	return addr;
}

static void *MyGetAddr(aclrtAllocatorBlock block)
{
	return block;
}

int main(void)
{
	MyAllocator my = { 0 };
	aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
	aclrtAllocatorDesc got = NULL;
	aclrtStream stream = NULL;
	aclrtContext context = NULL;
	aclrtMemMallocPolicy policy = ACL_MEM_MALLOC_HUGE_FIRST;
	aclrtMemcpyKind kind = ACL_MEMCPY_HOST_TO_DEVICE;
	aclrtMemAttr attr = ACL_HBM_MEM;
	void *devPtr = NULL, *hostPtr = NULL;
	size_t freeMem = 0, totalMem = 0;
	uint32_t count = 0;
	int32_t deviceId = 0;
	uint64_t refs = 0;
	aclError ret;
	char buf[16] = { 0 };
	aclrtEvent event = NULL;
	aclrtEventRecordedStatus evStatus;
	aclrtStreamStatus stStatus;
	float ms = 0.0f;
	aclFloat16 half = aclFloatToFloat16(1.5f);

	aclrtAllocatorSetObjToDesc(desc, &my);
	aclrtAllocatorSetAllocFuncToDesc(desc, MyAlloc);
	aclrtAllocatorSetFreeFuncToDesc(desc, MyFree);
	aclrtAllocatorSetAllocAdviseFuncToDesc(desc, MyAllocAdvise);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, MyGetAddr);
	ret = aclrtAllocatorRegister(&my, desc);
	if (ret != ACL_SUCCESS || aclrtAllocatorGetByStream(&my, &got, NULL, NULL, NULL,
							    NULL, NULL) != ACL_ERROR_NONE)
		return 1;
	aclrtAllocatorDestroyDesc(desc);
	aclrtAllocatorUnregister(&my);

	if (aclFloat16ToFloat(half) != 1.5f || aclDataTypeSize(ACL_FLOAT16) != 2 ||
	    !aclrtGetSocName())
		return 1;
	ret = aclInit(NULL);
	if (ret != ACL_SUCCESS && ret != ACL_ERROR_REPEAT_INITIALIZE)
		return 1;
	ret = aclrtSetDevice(deviceId);
	if (ret == ACL_ERROR_RT_NO_DEVICE || ret == ACL_ERROR_RT_INVALID_DEVICEID) {
		printf("no device (%d): stop here\n", ret);
		aclFinalize();
		return 0;
	}
	CHECK_ACL(aclrtGetDeviceCount(&count));
	CHECK_ACL(aclrtCreateContext(&context, deviceId));
	CHECK_ACL(aclrtCreateStream(&stream));
	CHECK_ACL(aclrtMalloc(&devPtr, sizeof(buf), policy));
	CHECK_ACL(aclrtMallocAlign32(&devPtr, sizeof(buf), ACL_MEM_MALLOC_NORMAL_ONLY));
	CHECK_ACL(aclrtMallocHost(&hostPtr, sizeof(buf)));
	CHECK_ACL(aclrtMemcpy(devPtr, sizeof(buf), buf, sizeof(buf), kind));
	CHECK_ACL(aclrtMemcpyAsync(devPtr, sizeof(buf), buf, sizeof(buf),
				   ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, stream));
	CHECK_ACL(aclrtMemset(devPtr, sizeof(buf), 0, sizeof(buf)));
	CHECK_ACL(aclrtMemsetAsync(devPtr, sizeof(buf), 0, sizeof(buf), stream));
	CHECK_ACL(aclrtCreateEvent(&event));
	CHECK_ACL(aclrtRecordEvent(event, stream));
	CHECK_ACL(aclrtStreamWaitEvent(NULL, event));
	CHECK_ACL(aclrtSynchronizeEvent(event));
	CHECK_ACL(aclrtQueryEventStatus(event, &evStatus));
	CHECK_ACL(aclrtEventElapsedTime(&ms, event, event));
	CHECK_ACL(aclrtDestroyEvent(event));
	CHECK_ACL(aclrtStreamQuery(stream, &stStatus));
	CHECK_ACL(aclrtSynchronizeStreamWithTimeout(stream, -1));
	CHECK_ACL(aclrtSynchronizeStream(stream));
	CHECK_ACL(aclrtSynchronizeDevice());
	CHECK_ACL(aclrtGetMemInfo(attr, &freeMem, &totalMem));
	CHECK_ACL(aclrtGetDevice(&deviceId));
	CHECK_ACL(aclrtGetCurrentContext(&context));
	CHECK_ACL(aclrtSetCurrentContext(context));
	CHECK_ACL(aclrtFreeHost(hostPtr));
	CHECK_ACL(aclrtFree(devPtr));
	CHECK_ACL(aclrtDestroyStreamForce(stream));
	CHECK_ACL(aclrtDestroyContext(context));
	CHECK_ACL(aclrtResetDeviceForce(deviceId));
	CHECK_ACL(aclFinalizeReference(&refs));
	return 0;
}
