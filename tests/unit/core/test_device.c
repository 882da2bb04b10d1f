// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memreg_open(), memreg_close(), memreg_info(): the device path, the INFO
 * check at open, and the failure paths (right code, errno kept, no fd
 * left open).
 */
#include <errno.h>
#include <string.h>

#include "core.h"
#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

static void test_open_missing_device(void **state)
{
	struct memreg_ctx *ctx = (struct memreg_ctx *)1;
	int fds = count_fds();

	(void)state;
	use_device("/nonexistent");
	errno = 0;
	assert_int_equal(memreg_open(&ctx), -MEMREG_E_NOMODULE);
	assert_int_equal(errno, ENOENT);
	assert_null(ctx);
	assert_int_equal(count_fds(), fds);
}

static void test_open_not_memreg(void **state)
{
	struct memreg_ctx *ctx;
	int fds = count_fds();

	(void)state;
	/* No fake: the real ioctl on /dev/null answers ENOTTY. */
	use_device(FAKE_DEVICE);
	assert_int_equal(memreg_open(&ctx), -MEMREG_E_ABI);
	assert_int_equal(errno, ENOTTY);
	assert_null(ctx);
	assert_int_equal(count_fds(), fds);
}

static void test_open_null(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(memreg_open(NULL), -MEMREG_E_INVAL);
	assert_int_equal(errno, EINVAL);
}

static void test_open_reads_info_once(void **state)
{
	struct memreg_ctx *ctx;
	int fds = count_fds();

	(void)state;
	assert_int_equal(memreg_open(&ctx), 0);
	assert_non_null(ctx);
	assert_int_equal(count_fds(), fds + 1);
	assert_int_equal(fake.calls[FAKE_INFO], 1);
	assert_int_equal(ctx->info.abi_version, MEMREG_ABI_VERSION);
	assert_memory_equal(ctx->info.instance_id, fake.info.instance_id, 16);
	errno = EXDEV;
	memreg_close(ctx);
	assert_int_equal(errno, EXDEV);
	assert_int_equal(count_fds(), fds);
}

static void test_open_abi_mismatch(void **state)
{
	struct memreg_ctx *ctx;
	int fds = count_fds();

	(void)state;
	fake.info.abi_version = MEMREG_ABI_VERSION + 1;
	assert_int_equal(memreg_open(&ctx), -MEMREG_E_ABI);
	assert_int_equal(errno, EPROTO);
	assert_null(ctx);
	assert_int_equal(count_fds(), fds);
}

static void test_open_info_refused(void **state)
{
	static const struct { int errnum, err; } cases[] = {
		{ E2BIG, MEMREG_E_ABI },
		{ EINVAL, MEMREG_E_INVAL },
		{ EPERM, MEMREG_E_PERM },
		{ EIO, MEMREG_E_IO },
	};
	struct memreg_ctx *ctx;
	int fds = count_fds();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fake.fail_errno[FAKE_INFO] = cases[i].errnum;
		assert_int_equal(memreg_open(&ctx), -cases[i].err);
		/* errno survives the close() and free() of the cleanup. */
		assert_int_equal(errno, cases[i].errnum);
		assert_null(ctx);
		assert_int_equal(count_fds(), fds);
	}
}

static void test_info_fields(void **state)
{
	struct memreg_ctx *ctx = *state;
	struct memreg_lib_info info;
	uint64_t h;
	char buf[64];

	memset(&info, 0xee, sizeof(info));
	assert_int_equal(memreg_info(ctx, &info), 0);
	assert_int_equal(info.abi_version, MEMREG_ABI_VERSION);
	assert_int_equal(info.page_size, 4096);
	assert_int_equal(info.features, fake.info.features);
	assert_memory_equal(info.instance_id, fake.info.instance_id, 16);
	assert_int_equal(info.max_regions, 256);
	assert_int_equal(info.max_host_bytes, 20ULL << 30);
	assert_int_equal(info.max_dev_bytes, 50ULL << 30);
	assert_int_equal(info.memlock_limit, MEMREG_UNLIMITED);
	assert_int_equal(info.regions, 0);
	assert_int_equal(info.host_bytes, 12345);
	assert_int_equal(info.dev_bytes, 67890);
	for (size_t i = 0; i < sizeof(info.reserved) / sizeof(info.reserved[0]); i++)
		assert_int_equal(info.reserved[i], 0);

	/* Each call asks the kernel again: usage is current. */
	assert_int_equal(memreg_register(ctx, buf, sizeof(buf),
					 MEMREG_MEM_HOST, 0, &h), 0);
	assert_int_equal(memreg_info(ctx, &info), 0);
	assert_int_equal(info.regions, 1);
	assert_int_equal(fake.calls[FAKE_INFO], 3);
}

static void test_info_errors(void **state)
{
	struct memreg_ctx *ctx = *state;
	struct memreg_lib_info info;

	assert_int_equal(memreg_info(NULL, &info), -MEMREG_E_INVAL);
	assert_int_equal(memreg_info(ctx, NULL), -MEMREG_E_INVAL);
	fake.fail_errno[FAKE_INFO] = EFAULT;
	assert_int_equal(memreg_info(ctx, &info), -MEMREG_E_FAULT);
	assert_int_equal(errno, EFAULT);
}

static void test_close(void **state)
{
	(void)state;
	memreg_close(NULL);
	errno = EXDEV;
	memreg_close(NULL);
	assert_int_equal(errno, EXDEV);
}

void run_device_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_missing_device),
		cmocka_unit_test(test_open_not_memreg),
		cmocka_unit_test(test_open_null),
		cmocka_unit_test_setup_teardown(test_open_reads_info_once,
						fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_open_abi_mismatch,
						fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_open_info_refused,
						fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_info_fields,
						fake_ctx_setup, fake_ctx_teardown),
		cmocka_unit_test_setup_teardown(test_info_errors,
						fake_ctx_setup, fake_ctx_teardown),
		cmocka_unit_test(test_close),
	};

	RUN_GROUP("device", tests, NULL, NULL, res);
}
