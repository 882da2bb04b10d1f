/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The failures of lib/acl (errors.c): the aclError of a memreg error, and
 * the reason recorded with it for aclGetRecentErrMsg.
 */
#ifndef MEMREG_ACL_ERRORS_H
#define MEMREG_ACL_ERRORS_H

#include <acl/acl_base.h>

/* The aclError for a negative memreg_err of a device-memory call. */
aclError memreg__acl_error(int memreg_err);

/*
 * Record @err and why (printf-like) as the calling thread's last error;
 * returns @err.  The public call returning it names itself with
 * acl_ret() (every return of an exported acl* function goes through it).
 */
aclError memreg__acl_fail(aclError err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
aclError memreg__acl_ret(const char *func, aclError err);
#define acl_fail(err, ...)	memreg__acl_fail((err), __VA_ARGS__)
#define acl_ret(err)		memreg__acl_ret(__func__, (err))

#endif /* MEMREG_ACL_ERRORS_H */
