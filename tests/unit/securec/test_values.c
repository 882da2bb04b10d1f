// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The header's values, as the library documents them: programs compare
 * return codes with these numbers, and some print or store them.
 */
#include "tests.h"

static void test_codes(void **state)
{
	(void)state;
	assert_int_equal(EOK, 0);
	assert_int_equal(EINVAL, 22);
	assert_int_equal(ERANGE, 34);
	assert_int_equal(EINVAL_AND_RESET, 150);
	assert_int_equal(ERANGE_AND_RESET, 162);
	assert_int_equal(EOVERLAP_AND_RESET, 182);
	/* The *_AND_RESET codes are the plain ones | 128 (overlap: 54). */
	assert_int_equal(EINVAL_AND_RESET, EINVAL | 128);
	assert_int_equal(ERANGE_AND_RESET, ERANGE | 128);
	assert_int_equal(EOVERLAP_AND_RESET, 54 | 128);
}

static void test_limits(void **state)
{
	(void)state;
	assert_true(SECUREC_MEM_MAX_LEN == 0x7fffffffUL);
	assert_true(SECUREC_STRING_MAX_LEN == 0x7fffffffUL);
}

static void test_errno_t(void **state)
{
	errno_t e = EOK;

	(void)state;
	assert_int_equal(_Generic(e, int: 1, default: 0), 1);
	/* The functions return it: no conversion warning under -Wextra. */
	e = memset_s(&e, sizeof(e), 0, sizeof(e));
	assert_int_equal(e, EOK);
}

int run_value_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_errno_t),
	};

	return cmocka_run_group_tests_name("securec values", tests, NULL, NULL);
}
