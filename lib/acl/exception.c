// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtSetExceptionInfoCallback and the calls that read the information
 * it is given.  The callback runs on the stream's worker thread when a
 * task of the stream fails, before the next task starts, as CANN calls it
 * from its runtime's thread when the device reports a task error.
 *
 * The failures an emulated device has: a copy or fill whose device memory
 * was freed after the task was queued (ACL_ERROR_RT_SYS_DMA), a wait for
 * an event that timed out (ACL_ERROR_RT_EVENT_SYNC_TIMEOUT), a host
 * callback whose stream was unsubscribed before it ran
 * (ACL_ERROR_RT_STREAM_NO_CB_REG).
 */
#include <acl/acl.h>

#include "errors.h"
#include "exception.h"
#include "task.h"

struct rtExceptionInfo {
	uint32_t task_id;
	uint32_t stream_id;
	uint32_t thread_id;
	uint32_t device_id;
	uint32_t error;
};

static aclrtExceptionInfoCallback exception_cb;

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
	/* NULL stops the calls, as in CANN. */
	__atomic_store_n(&exception_cb, callback, __ATOMIC_RELEASE);
	return acl_ret(ACL_SUCCESS);
}

void memreg__acl_exception(const struct acl_task *t, uint32_t stream_id,
			   int32_t device, aclError err)
{
	aclrtExceptionInfoCallback cb;
	struct rtExceptionInfo info;

	cb = __atomic_load_n(&exception_cb, __ATOMIC_ACQUIRE);
	if (!cb)
		return;
	info.task_id = (uint32_t)t->seq;
	info.stream_id = stream_id;
	info.thread_id = t->tid;
	info.device_id = (uint32_t)device;
	info.error = (uint32_t)err;
	cb(&info);
}

/* CANN's answer for a NULL info: ACL_ERROR_INVALID_EXCEPTION_INFO, as a uint32_t. */
#define NO_INFO	0xffffffffU

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return info ? info->task_id : NO_INFO;
}

uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return info ? info->stream_id : NO_INFO;
}

uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return info ? info->thread_id : NO_INFO;
}

uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return info ? info->device_id : NO_INFO;
}

uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
	return info ? info->error : NO_INFO;
}
