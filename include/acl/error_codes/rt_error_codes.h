/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/error_codes/rt_error_codes.h - the runtime's error codes, macros as
 * in CANN (so, unlike the ACL_ERROR_* base codes, usable in #if).  The
 * ranges: 107xxx the caller's mistake, 207xxx a resource or feature,
 * 507xxx internal or device.  memreg carries the codes it can return and
 * the ones callers commonly test for.
 */
#ifndef MEMREG_ACL_RT_ERROR_CODES_H
#define MEMREG_ACL_RT_ERROR_CODES_H

#define ACL_RT_SUCCESS				0

#define ACL_ERROR_RT_PARAM_INVALID		107000
#define ACL_ERROR_RT_INVALID_DEVICEID		107001
#define ACL_ERROR_RT_CONTEXT_NULL		107002
#define ACL_ERROR_RT_STREAM_CONTEXT		107003
#define ACL_ERROR_RT_ADDR_UNALIGNED		107008
#define ACL_ERROR_RT_INVALID_HANDLE		107017
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE	107018

#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT	207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION		207001
#define ACL_ERROR_RT_MEMORY_FREE		207002
#define ACL_ERROR_RT_NO_DEVICE			207004
#define ACL_ERROR_RT_NO_STREAM_RESOURCE		207008
#define ACL_ERROR_RT_DEVICE_OOM			207018

#define ACL_ERROR_RT_INTERNAL_ERROR		507000
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT	507046
#define ACL_ERROR_RT_DRV_INTERNAL_ERROR		507899

#endif /* MEMREG_ACL_RT_ERROR_CODES_H */
