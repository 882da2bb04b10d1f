// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memcpy_s, memmove_s and memset_s: the copy or fill, and each error in
 * the documented order of the checks, with what it leaves in the buffer:
 * untouched (ERANGE, EINVAL), all destMax bytes reset (the *_AND_RESET
 * codes), never a byte past destMax.
 */
#include <string.h>

#include "tests.h"

/* A destination of 8 bytes in a buffer of 16, the rest a canary. */
#define DMAX	8
static unsigned char buf[16];
static const unsigned char src[] = "abcdefghijklmnop";

static int reset(void **state)
{
	(void)state;
	memset(buf, FILL, sizeof(buf));
	return 0;
}

static void assert_canary(void)
{
	assert_true(all_bytes(buf + DMAX, sizeof(buf) - DMAX, FILL));
}

static void test_memcpy(void **state)
{
	(void)state;
	assert_int_equal(memcpy_s(buf, DMAX, src, 5), EOK);
	assert_memory_equal(buf, "abcde", 5);
	assert_true(all_bytes(buf + 5, sizeof(buf) - 5, FILL));
	/* count == destMax fits exactly. */
	assert_int_equal(memcpy_s(buf, DMAX, src + 1, DMAX), EOK);
	assert_memory_equal(buf, "bcdefghi", DMAX);
	assert_canary();
}

static void test_memcpy_zero_count(void **state)
{
	(void)state;
	assert_int_equal(memcpy_s(buf, DMAX, src, 0), EOK);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
}

static void test_memcpy_destmax(void **state)
{
	(void)state;
	/* ERANGE leaves dest alone, even with src NULL or count too big. */
	assert_int_equal(memcpy_s(buf, 0, src, 1), ERANGE);
	assert_int_equal(memcpy_s(buf, TOO_BIG_MEM, src, 4), ERANGE);
	assert_int_equal(memcpy_s(buf, 0, NULL, 1), ERANGE);
	assert_int_equal(memcpy_s(NULL, 0, src, 1), ERANGE);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	/* SECUREC_MEM_MAX_LEN itself is accepted. */
	assert_int_equal(memcpy_s(buf, SECUREC_MEM_MAX_LEN, src, 2), EOK);
	assert_memory_equal(buf, "ab", 2);
}

static void test_memcpy_null(void **state)
{
	(void)state;
	assert_int_equal(memcpy_s(NULL, DMAX, src, 1), EINVAL);
	assert_int_equal(memcpy_s(NULL, DMAX, NULL, 1), EINVAL);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	/* src NULL: dest is usable, so it is zeroed. */
	assert_int_equal(memcpy_s(buf, DMAX, NULL, 1), EINVAL_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
	assert_canary();
	/* Even with count 0: src NULL is checked first. */
	reset(NULL);
	assert_int_equal(memcpy_s(buf, DMAX, NULL, 0), EINVAL_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
}

static void test_memcpy_count_too_big(void **state)
{
	(void)state;
	assert_int_equal(memcpy_s(buf, DMAX, src, DMAX + 1), ERANGE_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
	assert_canary();
}

static void test_memcpy_overlap(void **state)
{
	(void)state;
	memcpy(buf, src, DMAX);
	/* dest after src, inside it */
	assert_int_equal(memcpy_s(buf + 2, 6, buf, 4), EOVERLAP_AND_RESET);
	assert_true(all_bytes(buf + 2, 6, 0));
	assert_memory_equal(buf, "ab", 2);
	/* dest before src */
	memcpy(buf, src, DMAX);
	assert_int_equal(memcpy_s(buf, DMAX, buf + 3, 4), EOVERLAP_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
	assert_canary();
	/* Adjacent is no overlap. */
	memcpy(buf, src, DMAX);
	assert_int_equal(memcpy_s(buf, 4, buf + 4, 4), EOK);
	assert_memory_equal(buf, "efghefgh", DMAX);
	/* Onto itself: nothing to do. */
	assert_int_equal(memcpy_s(buf, DMAX, buf, DMAX), EOK);
	assert_memory_equal(buf, "efghefgh", DMAX);
}

static void test_memmove(void **state)
{
	(void)state;
	memcpy(buf, src, DMAX);
	/* Overlapping both ways is what memmove_s is for. */
	assert_int_equal(memmove_s(buf + 2, 6, buf, 6), EOK);
	assert_memory_equal(buf, "ababcdef", DMAX);
	assert_int_equal(memmove_s(buf, DMAX, buf + 1, 7), EOK);
	assert_memory_equal(buf, "babcdeff", DMAX);
	assert_int_equal(memmove_s(buf, DMAX, buf, DMAX), EOK);
	assert_int_equal(memmove_s(buf, DMAX, src, 0), EOK);
	assert_memory_equal(buf, "babcdeff", DMAX);
	assert_canary();
}

static void test_memmove_errors(void **state)
{
	(void)state;
	assert_int_equal(memmove_s(buf, 0, src, 1), ERANGE);
	assert_int_equal(memmove_s(buf, TOO_BIG_MEM, src, 1), ERANGE);
	assert_int_equal(memmove_s(NULL, DMAX, src, 1), EINVAL);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	assert_int_equal(memmove_s(buf, DMAX, NULL, 1), EINVAL_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
	assert_canary();
	reset(NULL);
	assert_int_equal(memmove_s(buf, DMAX, buf + 1, DMAX + 1),
			 ERANGE_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 0));
	assert_canary();
}

static void test_memset(void **state)
{
	(void)state;
	assert_int_equal(memset_s(buf, DMAX, 'a', 3), EOK);
	assert_true(all_bytes(buf, 3, 'a'));
	assert_true(all_bytes(buf + 3, sizeof(buf) - 3, FILL));
	/* The value is converted to unsigned char. */
	assert_int_equal(memset_s(buf, DMAX, 0x1ff, DMAX), EOK);
	assert_true(all_bytes(buf, DMAX, 0xff));
	assert_int_equal(memset_s(buf, DMAX, 0, 0), EOK);
	assert_true(all_bytes(buf, DMAX, 0xff));
	assert_canary();
}

static void test_memset_errors(void **state)
{
	(void)state;
	assert_int_equal(memset_s(buf, 0, 0, 0), ERANGE);
	assert_int_equal(memset_s(buf, TOO_BIG_MEM, 0, 1), ERANGE);
	assert_int_equal(memset_s(NULL, 0, 0, 1), ERANGE);
	assert_int_equal(memset_s(NULL, DMAX, 0, 1), EINVAL);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	/* count > destMax: the whole buffer gets the value, no more. */
	assert_int_equal(memset_s(buf, DMAX, 'z', DMAX + 1), ERANGE_AND_RESET);
	assert_true(all_bytes(buf, DMAX, 'z'));
	assert_canary();
}

int run_mem_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_memcpy, reset),
		cmocka_unit_test_setup(test_memcpy_zero_count, reset),
		cmocka_unit_test_setup(test_memcpy_destmax, reset),
		cmocka_unit_test_setup(test_memcpy_null, reset),
		cmocka_unit_test_setup(test_memcpy_count_too_big, reset),
		cmocka_unit_test_setup(test_memcpy_overlap, reset),
		cmocka_unit_test_setup(test_memmove, reset),
		cmocka_unit_test_setup(test_memmove_errors, reset),
		cmocka_unit_test_setup(test_memset, reset),
		cmocka_unit_test_setup(test_memset_errors, reset),
	};

	return cmocka_run_group_tests_name("securec mem", tests, NULL, NULL);
}
