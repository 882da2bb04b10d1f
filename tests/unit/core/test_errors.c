// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * errno -> memreg_err for every errno uapi/linux/memreg.h documents, and
 * memreg_strerror() for every code.  Pure functions: no device, no fake.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <memreg/memreg.h>

#include "tests.h"

struct mapping {
	int op;
	int errnum;
	int err;	/* positive enum memreg_err */
};

static const struct mapping documented[] = {
	/* open(2) of /dev/memreg */
	{ MEMREG_OP_OPEN,	ENOENT,	MEMREG_E_NOMODULE },
	{ MEMREG_OP_OPEN,	ENODEV,	MEMREG_E_NOMODULE },
	{ MEMREG_OP_OPEN,	ENXIO,	MEMREG_E_NOMODULE },
	{ MEMREG_OP_OPEN,	EACCES,	MEMREG_E_PERM },
	{ MEMREG_OP_OPEN,	EPERM,	MEMREG_E_PERM },
	{ MEMREG_OP_OPEN,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_OPEN,	EINTR,	MEMREG_E_INTR },

	/* MEMREG_IOC_REGISTER, one errno per reason of refusal */
	{ MEMREG_OP_REGISTER,	EMFILE,	MEMREG_E_LIMIT_REGIONS },
	{ MEMREG_OP_REGISTER,	EDQUOT,	MEMREG_E_LIMIT_HOST },
	{ MEMREG_OP_REGISTER,	ENOSPC,	MEMREG_E_LIMIT_DEVICE },
	{ MEMREG_OP_REGISTER,	ENOMEM,	MEMREG_E_MEMLOCK },
	{ MEMREG_OP_REGISTER,	ENXIO,	MEMREG_E_NODEVMEM },
	{ MEMREG_OP_REGISTER,	EFAULT,	MEMREG_E_FAULT },
	{ MEMREG_OP_REGISTER,	EACCES,	MEMREG_E_ACCESS },
	{ MEMREG_OP_REGISTER,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_REGISTER,	EPERM,	MEMREG_E_PERM },
	{ MEMREG_OP_REGISTER,	EINTR,	MEMREG_E_INTR },
	{ MEMREG_OP_REGISTER,	E2BIG,	MEMREG_E_ABI },
	{ MEMREG_OP_REGISTER,	ENOTTY,	MEMREG_E_ABI },

	/* MEMREG_IOC_UNREGISTER */
	{ MEMREG_OP_UNREGISTER,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_UNREGISTER,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_UNREGISTER,	EPERM,	MEMREG_E_PERM },

	/* MEMREG_IOC_INFO and MEMREG_IOC_QUERY: the size rules */
	{ MEMREG_OP_INFO,	E2BIG,	MEMREG_E_ABI },
	{ MEMREG_OP_INFO,	ENOTTY,	MEMREG_E_ABI },
	{ MEMREG_OP_INFO,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_QUERY,	E2BIG,	MEMREG_E_ABI },
	{ MEMREG_OP_QUERY,	ENOTTY,	MEMREG_E_ABI },
	{ MEMREG_OP_QUERY,	EFAULT,	MEMREG_E_FAULT },
	{ MEMREG_OP_QUERY,	EPERM,	MEMREG_E_PERM },

	/* Emulated device memory */
	{ MEMREG_OP_DEV_ALLOC,	ENXIO,	MEMREG_E_NODEV },
	{ MEMREG_OP_DEV_ALLOC,	ENOSPC,	MEMREG_E_DEVFULL },
	{ MEMREG_OP_DEV_ALLOC,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_DEV_ALLOC,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_DEV_FREE,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_DEV_FREE,	EBUSY,	MEMREG_E_BUSY },
	{ MEMREG_OP_DEV_INFO,	ENXIO,	MEMREG_E_NODEV },

	/* Grants, imports, transfers */
	{ MEMREG_OP_GRANT,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_GRANT,	EACCES,	MEMREG_E_ACCESS },
	{ MEMREG_OP_GRANT,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_GRANT,	EMFILE,	MEMREG_E_TOO_MANY },
	{ MEMREG_OP_REVOKE,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_IMPORT,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_IMPORT,	EMFILE,	MEMREG_E_TOO_MANY },
	{ MEMREG_OP_UNIMPORT,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_TRANSFER,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_TRANSFER,	EKEYREVOKED, MEMREG_E_REVOKED },
	{ MEMREG_OP_TRANSFER,	ERANGE,	MEMREG_E_RANGE },
	{ MEMREG_OP_TRANSFER,	EACCES,	MEMREG_E_ACCESS },
	{ MEMREG_OP_TRANSFER,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_TRANSFER,	EFAULT,	MEMREG_E_FAULT },
	{ MEMREG_OP_TRANSFER,	E2BIG,	MEMREG_E_ABI },
	{ MEMREG_OP_TRANSFER,	EINTR,	MEMREG_E_INTR },
	/* mstx batches: a heap or region the file does not have */
	{ MEMREG_OP_MSTX,	ENOENT,	MEMREG_E_NOENT },

	/* dma-bufs: DMABUF registrations, DEV_EXPORT, IPC names */
	{ MEMREG_OP_TRANSFER,	EOPNOTSUPP, MEMREG_E_NOTSUP },
	{ MEMREG_OP_REGISTER_DMABUF, EBADF, MEMREG_E_BADF },
	{ MEMREG_OP_REGISTER_DMABUF, EINVAL, MEMREG_E_INVAL },
	{ MEMREG_OP_REGISTER_DMABUF, ERANGE, MEMREG_E_RANGE },
	{ MEMREG_OP_REGISTER_DMABUF, ENOSPC, MEMREG_E_LIMIT_DEVICE },
	{ MEMREG_OP_REGISTER_DMABUF, EMFILE, MEMREG_E_LIMIT_REGIONS },
	{ MEMREG_OP_DEV_EXPORT,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_DEV_EXPORT,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_DEV_EXPORT,	ERANGE,	MEMREG_E_RANGE },
	{ MEMREG_OP_DEV_EXPORT,	EMFILE,	MEMREG_E_NOFD },
	{ MEMREG_OP_IPC_EXPORT,	EBADF,	MEMREG_E_BADF },
	{ MEMREG_OP_IPC_EXPORT,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_IPC_EXPORT,	EMFILE,	MEMREG_E_TOO_MANY },
	{ MEMREG_OP_IPC_ALLOW,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_IPC_ALLOW,	ESRCH,	MEMREG_E_NOPROC },
	{ MEMREG_OP_TRANSFER,	EOWNERDEAD, MEMREG_E_REVOKED },
	{ MEMREG_OP_IPC_ALLOW,	E2BIG,	MEMREG_E_TOO_MANY },
	{ MEMREG_OP_IPC_IMPORT,	ENOENT,	MEMREG_E_NOENT },
	{ MEMREG_OP_IPC_IMPORT,	EPERM,	MEMREG_E_PERM },
	{ MEMREG_OP_IPC_IMPORT,	EMFILE,	MEMREG_E_NOFD },
	{ MEMREG_OP_IPC_CLOSE,	ENOENT,	MEMREG_E_NOENT },
};

/* The same errno means something else, or nothing special, elsewhere. */
static const struct mapping per_op[] = {
	{ MEMREG_OP_INFO,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_QUERY,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_UNREGISTER,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_QUERY,	ENXIO,	MEMREG_E_IO },
	{ MEMREG_OP_INFO,	ENXIO,	MEMREG_E_IO },
	{ MEMREG_OP_REGISTER,	ENOENT,	MEMREG_E_IO },
	{ MEMREG_OP_INFO,	ENOENT,	MEMREG_E_IO },
	{ MEMREG_OP_UNREGISTER,	EACCES,	MEMREG_E_PERM },
	{ MEMREG_OP_QUERY,	EMFILE,	MEMREG_E_IO },
	{ MEMREG_OP_OPEN,	EMFILE,	MEMREG_E_IO },
	{ MEMREG_OP_QUERY,	EDQUOT,	MEMREG_E_IO },
	{ MEMREG_OP_INFO,	ENOSPC,	MEMREG_E_IO },
	{ MEMREG_OP_REGISTER,	EIO,	MEMREG_E_IO },
	{ MEMREG_OP_REGISTER,	EBADF,	MEMREG_E_IO },
	{ MEMREG_OP_REGISTER,	EKEYREVOKED, MEMREG_E_IO },
	{ MEMREG_OP_IMPORT,	ERANGE,	MEMREG_E_IO },
	{ MEMREG_OP_REVOKE,	EMFILE,	MEMREG_E_IO },
	/* EBADF, ESRCH, EOPNOTSUPP only where a dma-buf or pid is named */
	{ MEMREG_OP_DEV_EXPORT,	EBADF,	MEMREG_E_IO },
	{ MEMREG_OP_IPC_IMPORT,	ESRCH,	MEMREG_E_IO },
	{ MEMREG_OP_REGISTER,	EOPNOTSUPP, MEMREG_E_IO },
	/* E2BIG is the pid list for IPC_ALLOW only */
	{ MEMREG_OP_IPC_IMPORT,	E2BIG,	MEMREG_E_ABI },
	/* MEMREG_OP_ANY and ops this library does not know: common rows. */
	{ MEMREG_OP_ANY,	EINVAL,	MEMREG_E_INVAL },
	{ MEMREG_OP_ANY,	ENOMEM,	MEMREG_E_NOMEM },
	{ MEMREG_OP_ANY,	EMFILE,	MEMREG_E_IO },
	{ MEMREG_OP_ANY,	ENOENT,	MEMREG_E_IO },
	{ 99,			EFAULT,	MEMREG_E_FAULT },
	{ 99,			ENXIO,	MEMREG_E_IO },
	{ -1,			E2BIG,	MEMREG_E_ABI },
	{ -1,			EDQUOT,	MEMREG_E_IO },
};

static void check_table(const struct mapping *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int got = memreg_errno_to_err(m[i].op, m[i].errnum);

		if (got != -m[i].err)
			fail_msg("op %d errno %d (%s): got %d, want %d",
				 m[i].op, m[i].errnum, strerror(m[i].errnum),
				 got, -m[i].err);
	}
}

static void test_documented_errnos(void **state)
{
	(void)state;
	check_table(documented, sizeof(documented) / sizeof(documented[0]));
}

static void test_errnos_per_op(void **state)
{
	(void)state;
	check_table(per_op, sizeof(per_op) / sizeof(per_op[0]));
}

static void test_errno_zero_is_ok(void **state)
{
	int op;

	(void)state;
	for (op = MEMREG_OP_ANY; op <= MEMREG_OP_QUERY; op++)
		assert_int_equal(memreg_errno_to_err(op, 0), MEMREG_OK);
}

static void test_errno_to_err_keeps_errno(void **state)
{
	(void)state;
	errno = EXDEV;
	memreg_errno_to_err(MEMREG_OP_REGISTER, EMFILE);
	assert_int_equal(errno, EXDEV);
}

static void test_strerror_every_code(void **state)
{
	int i, j;

	(void)state;
	for (i = MEMREG_OK; i <= MEMREG_E_NOPROC; i++) {
		const char *s = memreg_strerror(i);

		assert_non_null(s);
		/* A sentence for every error, not a bare word. */
		assert_true(strlen(s) > (i == MEMREG_OK ? 0 : 20));
		assert_string_not_equal(s, memreg_strerror(-1000));
		/* Negated, as functions return it: the same sentence. */
		assert_ptr_equal(s, memreg_strerror(-i));
		for (j = MEMREG_OK; j < i; j++)
			assert_string_not_equal(s, memreg_strerror(j));
	}
}

static void test_strerror_names_the_errno(void **state)
{
	(void)state;
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_LIMIT_REGIONS),
			       "EMFILE"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_LIMIT_REGIONS),
			       "registration limit of the process reached"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_LIMIT_HOST), "EDQUOT"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_LIMIT_DEVICE),
			       "ENOSPC"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_MEMLOCK),
			       "RLIMIT_MEMLOCK"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_NOMODULE), "module"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_REVOKED),
			       "EKEYREVOKED"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_RANGE), "ERANGE"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_TOO_MANY), "EMFILE"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_BADF), "EBADF"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_NOTSUP),
			       "EOPNOTSUPP"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_NOFD), "EMFILE"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_NOPROC), "ESRCH"));
	assert_non_null(strstr(memreg_strerror(-MEMREG_E_REVOKED),
			       "EOWNERDEAD"));
}

static void test_strerror_unknown(void **state)
{
	const char *unknown = memreg_strerror(MEMREG_E_NOPROC + 1);

	(void)state;
	assert_non_null(unknown);
	assert_true(strlen(unknown) > 0);
	assert_string_equal(unknown, memreg_strerror(-(MEMREG_E_NOPROC + 1)));
	assert_string_equal(unknown, memreg_strerror(INT_MAX));
	assert_string_equal(unknown, memreg_strerror(INT_MIN));
}

void run_error_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_documented_errnos),
		cmocka_unit_test(test_errnos_per_op),
		cmocka_unit_test(test_errno_zero_is_ok),
		cmocka_unit_test(test_errno_to_err_keeps_errno),
		cmocka_unit_test(test_strerror_every_code),
		cmocka_unit_test(test_strerror_names_the_errno),
		cmocka_unit_test(test_strerror_unknown),
	};

	RUN_GROUP("errors", tests, NULL, NULL, res);
}
