// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errno -> enum memreg_err, and a sentence per code.  The mapping lives in
 * one table so that the meaning of an errno per operation, documented in
 * <linux/memreg.h>, is read and changed in one place.
 */
#include <errno.h>

#include "core.h"

#define OP(op)		(1U << (op))
#define ANY_OP		(~0U)

struct errno_map {
	unsigned int ops;	/* OP() bits of the operations a row is for */
	int errnum;
	enum memreg_err err;
};

/*
 * First match wins, so rows for one operation come before the rows that
 * hold for every operation.
 */
static const struct errno_map errno_map[] = {
	/* open(2): no node means no module; a node without a driver too. */
	{ OP(MEMREG_OP_OPEN),		ENOENT,	MEMREG_E_NOMODULE },
	{ OP(MEMREG_OP_OPEN),		ENODEV,	MEMREG_E_NOMODULE },
	{ OP(MEMREG_OP_OPEN),		ENXIO,	MEMREG_E_NOMODULE },

	/* MEMREG_IOC_REGISTER: one errno per reason of refusal. */
	{ OP(MEMREG_OP_REGISTER),	EMFILE,	MEMREG_E_LIMIT_REGIONS },
	{ OP(MEMREG_OP_REGISTER),	EDQUOT,	MEMREG_E_LIMIT_HOST },
	{ OP(MEMREG_OP_REGISTER),	ENOSPC,	MEMREG_E_LIMIT_DEVICE },
	{ OP(MEMREG_OP_REGISTER),	ENOMEM,	MEMREG_E_MEMLOCK },
	{ OP(MEMREG_OP_REGISTER),	ENXIO,	MEMREG_E_NODEVMEM },
	{ OP(MEMREG_OP_REGISTER),	EACCES,	MEMREG_E_ACCESS },

	/* MEMREG_IOC_UNREGISTER */
	{ OP(MEMREG_OP_UNREGISTER),	ENOENT,	MEMREG_E_NOENT },

	/* Emulated device memory. */
	{ OP(MEMREG_OP_DEV_ALLOC) | OP(MEMREG_OP_DEV_INFO) |
	  OP(MEMREG_OP_HEADROOM),	ENXIO,	MEMREG_E_NODEV },
	{ OP(MEMREG_OP_DEV_ALLOC),	ENOSPC,	MEMREG_E_DEVFULL },
	{ OP(MEMREG_OP_DEV_FREE),	ENOENT,	MEMREG_E_NOENT },
	{ OP(MEMREG_OP_DEV_FREE),	EBUSY,	MEMREG_E_BUSY },

	/* Grants, imports and transfers (transfer.c). */
	{ OP(MEMREG_OP_REVOKE) | OP(MEMREG_OP_IMPORT) |
	  OP(MEMREG_OP_UNIMPORT) | OP(MEMREG_OP_TRANSFER) | OP(MEMREG_OP_GRANT),
					ENOENT,	MEMREG_E_NOENT },
	{ OP(MEMREG_OP_GRANT) | OP(MEMREG_OP_TRANSFER),
					EACCES,	MEMREG_E_ACCESS },
	{ OP(MEMREG_OP_TRANSFER),	EKEYREVOKED, MEMREG_E_REVOKED },
	/*
	 * The owner's life ended (exit, exec, close): the same code, so that
	 * programs that know MEMREG_E_REVOKED go on working; errno tells.
	 */
	{ OP(MEMREG_OP_TRANSFER),	EOWNERDEAD, MEMREG_E_REVOKED },
	{ OP(MEMREG_OP_TRANSFER),	ERANGE,	MEMREG_E_RANGE },
	{ OP(MEMREG_OP_GRANT) | OP(MEMREG_OP_IMPORT),
					EMFILE,	MEMREG_E_TOO_MANY },

	/* A DMABUF copy: an exporter that gives the kernel no mapping. */
	{ OP(MEMREG_OP_TRANSFER),	EOPNOTSUPP, MEMREG_E_NOTSUP },

	/*
	 * dma-bufs (dmabuf.c).  A DMABUF registration has the limits of
	 * every registration; it pins nothing, so ENOMEM is only memory.
	 */
	{ OP(MEMREG_OP_REGISTER_DMABUF) | OP(MEMREG_OP_IPC_EXPORT),
					EBADF,	MEMREG_E_BADF },
	{ OP(MEMREG_OP_REGISTER_DMABUF), ERANGE, MEMREG_E_RANGE },
	{ OP(MEMREG_OP_REGISTER_DMABUF), ENOSPC, MEMREG_E_LIMIT_DEVICE },
	{ OP(MEMREG_OP_REGISTER_DMABUF), EMFILE, MEMREG_E_LIMIT_REGIONS },
	{ OP(MEMREG_OP_DEV_EXPORT),	ENOENT,	MEMREG_E_NOENT },
	{ OP(MEMREG_OP_DEV_EXPORT),	ERANGE,	MEMREG_E_RANGE },
	{ OP(MEMREG_OP_DEV_EXPORT) | OP(MEMREG_OP_IPC_IMPORT),
					EMFILE,	MEMREG_E_NOFD },
	{ OP(MEMREG_OP_IPC_EXPORT),	EMFILE,	MEMREG_E_TOO_MANY },
	/* A host registration's pages as a dma-buf. */
	{ OP(MEMREG_OP_REG_EXPORT),	ENOENT,	MEMREG_E_NOENT },
	{ OP(MEMREG_OP_REG_EXPORT),	ERANGE,	MEMREG_E_RANGE },
	{ OP(MEMREG_OP_REG_EXPORT),	EMFILE,	MEMREG_E_NOFD },
	{ OP(MEMREG_OP_REG_EXPORT),	ENOMEM,	MEMREG_E_MEMLOCK },
	{ OP(MEMREG_OP_REG_EXPORT),	EOPNOTSUPP, MEMREG_E_NOTSUP },
	{ OP(MEMREG_OP_IPC_ALLOW) | OP(MEMREG_OP_IPC_IMPORT) |
	  OP(MEMREG_OP_IPC_CLOSE),	ENOENT,	MEMREG_E_NOENT },
	{ OP(MEMREG_OP_IPC_ALLOW),	ESRCH,	MEMREG_E_NOPROC },
	/* Here E2BIG is the pid list, not a struct the module does not know. */
	{ OP(MEMREG_OP_IPC_ALLOW),	E2BIG,	MEMREG_E_TOO_MANY },

	/* MEMREG_IOC_MSTX: a heap or region the file does not have. */
	{ OP(MEMREG_OP_MSTX),		ENOENT,	MEMREG_E_NOENT },

	/* Any operation. */
	{ ANY_OP,			EINVAL,	MEMREG_E_INVAL },
	{ ANY_OP,			EPERM,	MEMREG_E_PERM },
	{ ANY_OP,			EACCES,	MEMREG_E_PERM },
	{ ANY_OP,			EFAULT,	MEMREG_E_FAULT },
	{ ANY_OP,			EINTR,	MEMREG_E_INTR },
	{ ANY_OP,			ENOMEM,	MEMREG_E_NOMEM },
	/* Bytes of a newer struct the module does not know. */
	{ ANY_OP,			E2BIG,	MEMREG_E_ABI },
	/* A command the module does not have, or a node that is not memreg. */
	{ ANY_OP,			ENOTTY,	MEMREG_E_ABI },
};

int memreg_errno_to_err(int op, int errnum)
{
	unsigned int bit;
	size_t i;

	if (errnum == 0)
		return MEMREG_OK;
	/* An op this library does not know still gets the common rows. */
	bit = (op > MEMREG_OP_ANY && op < 32) ? OP(op) : 0;
	for (i = 0; i < sizeof(errno_map) / sizeof(errno_map[0]); i++) {
		const struct errno_map *m = &errno_map[i];

		if (m->errnum == errnum && (m->ops == ANY_OP || (m->ops & bit)))
			return -(int)m->err;
	}
	return -MEMREG_E_IO;
}

int memreg__fail(int op)
{
	return memreg_errno_to_err(op, errno);
}

int memreg__refuse(int err, int errnum)
{
	errno = errnum;
	return -err;
}

static const char *const err_text[] = {
	[MEMREG_OK] = "success",
	[MEMREG_E_INVAL] = "invalid argument (EINVAL)",
	[MEMREG_E_NOMODULE] =
		"memreg device not available: is the memreg module loaded? (/dev/memreg: ENOENT/ENODEV/ENXIO)",
	[MEMREG_E_PERM] =
		"permission denied: no access to /dev/memreg, or the context belongs to another process (EPERM/EACCES)",
	[MEMREG_E_FAULT] = "memory range is not (fully) mapped (EFAULT)",
	[MEMREG_E_ACCESS] =
		"memory range is mapped but not writable (EACCES)",
	[MEMREG_E_NOENT] =
		"no such handle, token or IPC name on this context, or another user's IPC name this process may not import (ENOENT)",
	[MEMREG_E_LIMIT_REGIONS] =
		"registration limit of the process reached (EMFILE)",
	[MEMREG_E_LIMIT_HOST] =
		"registered host memory limit of the process reached (EDQUOT)",
	[MEMREG_E_LIMIT_DEVICE] =
		"registered device memory limit of the process reached (ENOSPC)",
	[MEMREG_E_MEMLOCK] =
		"locked memory limit RLIMIT_MEMLOCK reached, or the kernel is out of memory (ENOMEM)",
	[MEMREG_E_NODEVMEM] =
		"range is not emulated device memory (ENXIO)",
	[MEMREG_E_ABI] =
		"memreg module and library do not speak the same ABI (E2BIG/ENOTTY/ABI version)",
	[MEMREG_E_INTR] = "interrupted by a signal (EINTR)",
	[MEMREG_E_NOMEM] = "out of memory (ENOMEM)",
	[MEMREG_E_IO] = "unexpected error from the memreg device; see errno",
	[MEMREG_E_NODEV] = "no such emulated device (ENXIO)",
	[MEMREG_E_DEVFULL] =
		"the emulated device has no free memory left (ENOSPC)",
	[MEMREG_E_BUSY] =
		"device memory is still registered, or pinned by another driver (an RDMA memory region): unregister it first (EBUSY)",
	[MEMREG_E_REVOKED] =
		"the peer's grant is gone: revoked or unregistered (EKEYREVOKED), or its owner exited, exec()ed or closed /dev/memreg (EOWNERDEAD)",
	[MEMREG_E_RANGE] =
		"a transfer range is not inside its registration (ERANGE)",
	[MEMREG_E_TOO_MANY] =
		"too many grants of the registration (64), imports of the process (65536), IPC names of the context (4096) or pids allowed for one (1024) (EMFILE/E2BIG)",
	[MEMREG_E_BADF] = "the file descriptor is not open (EBADF)",
	[MEMREG_E_NOTSUP] =
		"the dma-buf's exporter gives the kernel no CPU mapping: no copies to or from it (EOPNOTSUPP)",
	[MEMREG_E_NOFD] =
		"the process has no free file descriptor (EMFILE)",
	[MEMREG_E_NOPROC] = "no such process (ESRCH)",
};

const char *memreg_strerror(int err)
{
	/* Accept the code as functions return it and as the enum names it. */
	unsigned int i = err < 0 ? -(unsigned int)err : (unsigned int)err;

	if (i < sizeof(err_text) / sizeof(err_text[0]) && err_text[i])
		return err_text[i];
	return "unknown memreg error";
}
