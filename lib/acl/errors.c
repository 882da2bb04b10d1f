// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a failure of lib/core means to an ACL program.  One table, so that
 * docs/acl.md and the code can be compared line by line.
 */
#include "runtime.h"

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
			return err_map[i].acl;
	/* A module of another ABI, EFAULT, EIO...: the driver failed. */
	return ACL_ERROR_RT_DRV_INTERNAL_ERROR;
}
