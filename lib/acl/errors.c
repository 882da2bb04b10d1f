// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a failure of lib/core means to an ACL program.  One table, so that
 * docs/acl.md and the code can be compared line by line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "errors.h"

static const struct {
	int err;
	aclError acl;
} err_map[] = {
	/* The device is full, or HUGE_ONLY found no contiguous memory. */
	{ MEMREG_E_DEVFULL,		ACL_ERROR_RT_MEMORY_ALLOCATION },
	{ MEMREG_E_NOMEM,		ACL_ERROR_RT_MEMORY_ALLOCATION },
	/* Pinning host memory: over RLIMIT_MEMLOCK or a module limit. */
	{ MEMREG_E_MEMLOCK,		ACL_ERROR_RT_MEMORY_ALLOCATION },
	{ MEMREG_E_LIMIT_HOST,		ACL_ERROR_RT_MEMORY_ALLOCATION },
	{ MEMREG_E_LIMIT_REGIONS,	ACL_ERROR_RT_MEMORY_ALLOCATION },
	{ MEMREG_E_LIMIT_DEVICE,	ACL_ERROR_RT_MEMORY_ALLOCATION },
	{ MEMREG_E_NODEV,		ACL_ERROR_RT_INVALID_DEVICEID },
	{ MEMREG_E_NOMODULE,		ACL_ERROR_RT_NO_DEVICE },
	{ MEMREG_E_PERM,		ACL_ERROR_RT_NO_DEVICE },
	/* Freeing memory that a registration still covers. */
	{ MEMREG_E_BUSY,		ACL_ERROR_RT_MEMORY_FREE },
	{ MEMREG_E_NOENT,		ACL_ERROR_RT_MEMORY_FREE },
	{ MEMREG_E_INVAL,		ACL_ERROR_RT_PARAM_INVALID },
};

aclError memreg__acl_error(int memreg_err)
{
	int e = memreg_err < 0 ? -memreg_err : memreg_err;
	size_t i;

	if (!e)
		return ACL_SUCCESS;
	for (i = 0; i < sizeof(err_map) / sizeof(err_map[0]); i++)
		if (err_map[i].err == e)
			return memreg__acl_fail(err_map[i].acl, "%s",
						memreg_strerror(-e));
	/* A module of another ABI, EFAULT, EIO...: the driver failed. */
	return memreg__acl_fail(ACL_ERROR_RT_DRV_INTERNAL_ERROR, "%s",
				memreg_strerror(-e));
}

/*
 * The calling thread's last failure, for aclrtGetLastError,
 * aclrtPeekAtLastError and aclGetRecentErrMsg.  @detail is why, written
 * by memreg__acl_fail() in the call still running (@fresh) for the code
 * @detail_err; the public call, returning, makes the message of its
 * name, the code and that reason if it is the reason for that code.
 *
 * memreg__acl_fail() does not touch @last_err: a lookup may say why it
 * found nothing (no context, an unknown stream) and its caller still
 * succeed, or fail for another reason; only acl_ret() records a failure.
 */
static __thread aclError last_err;
static __thread char last_msg[512];
static __thread aclError detail_err;
static __thread char detail[320];
static __thread bool fresh;
/* What aclGetRecentErrMsg returned last: it stays valid until the next. */
static __thread char shown_msg[512];

static const char *err_name(aclError err)
{
	const struct {
		aclError err;
		const char *name;
	} names[] = {
#define N(e) { e, #e }
		N(ACL_ERROR_INVALID_PARAM),
		N(ACL_ERROR_UNINITIALIZE),
		N(ACL_ERROR_REPEAT_INITIALIZE),
		N(ACL_ERROR_REPEAT_FINALIZE),
		N(ACL_ERROR_REPEAT_SUBSCRIBE),
		N(ACL_ERROR_STREAM_NOT_SUBSCRIBE),
		N(ACL_ERROR_THREAD_NOT_SUBSCRIBE),
		N(ACL_ERROR_WAIT_CALLBACK_TIMEOUT),
		N(ACL_ERROR_BAD_ALLOC),
		N(ACL_ERROR_FEATURE_UNSUPPORTED),
		N(ACL_ERROR_RT_PARAM_INVALID),
		N(ACL_ERROR_RT_INVALID_DEVICEID),
		N(ACL_ERROR_RT_CONTEXT_NULL),
		N(ACL_ERROR_RT_STREAM_CONTEXT),
		N(ACL_ERROR_RT_FEATURE_NOT_SUPPORT),
		N(ACL_ERROR_RT_MEMORY_ALLOCATION),
		N(ACL_ERROR_RT_MEMORY_FREE),
		N(ACL_ERROR_RT_NO_DEVICE),
		N(ACL_ERROR_RT_NO_STREAM_RESOURCE),
		N(ACL_ERROR_RT_STREAM_NO_CB_REG),
		N(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT),
		N(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT),
		N(ACL_ERROR_RT_EVENT_NOT_COMPLETE),
		N(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID),
		N(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL),
		N(ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT),
		N(ACL_ERROR_RT_SYS_DMA),
		N(ACL_ERROR_RT_DRV_INTERNAL_ERROR),
		N(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT),
		N(ACL_ERROR_RT_EVENT_CAPTURED),
		N(ACL_ERROR_RT_INTERNAL_ERROR),
		N(ACL_ERROR_RT_MODEL_CAPTURED),
		N(ACL_ERROR_RT_MODEL_EXECUTE),
		N(ACL_ERROR_RT_MODEL_RUNNING),
		N(ACL_ERROR_RT_NO_PERMISSION),
		N(ACL_ERROR_RT_OVER_LIMIT),
		N(ACL_ERROR_RT_STREAM_CAPTURED),
		N(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD),
		N(ACL_ERROR_RT_STREAM_MODEL),
		N(ACL_ERROR_RT_STREAM_NOT_CAPTURED),
		N(ACL_ERROR_RT_TS_ERROR),
#undef N
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "error";
}

aclError memreg__acl_fail(aclError err, const char *fmt, ...)
{
	va_list ap;

	if (err == ACL_SUCCESS)
		return err;
	detail_err = err;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	fresh = true;
	return err;
}

aclError memreg__acl_ret(const char *func, aclError err)
{
	if (err != ACL_SUCCESS) {
		bool why = fresh && detail_err == err && detail[0];

		last_err = err;
		snprintf(last_msg, sizeof(last_msg), "%s failed: %s (%d)%s%s",
			 func, err_name(err), err, why ? ": " : "",
			 why ? detail : "");
	}
	fresh = false;
	return err;
}

const char *aclGetRecentErrMsg(void)
{
	if (!last_msg[0])
		return NULL;
	memcpy(shown_msg, last_msg, sizeof(shown_msg));
	last_msg[0] = '\0';
	return shown_msg;
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	return last_err;
}

aclError aclrtGetLastError(aclrtLastErrLevel level)
{
	aclError err;

	if (level != ACL_RT_THREAD_LEVEL)
		return ACL_ERROR_INVALID_PARAM;
	err = last_err;
	last_err = ACL_SUCCESS;
	return err;
}
