// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strcpy_s and strncpy_s: the copy with its terminator, the exact fit and
 * one past it, and each error with what it leaves: untouched (ERANGE,
 * EINVAL) or the empty string (the *_AND_RESET codes).  Never a byte past
 * destMax, never a read past what could fit (ASan watches).
 */
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define DMAX	8
static char buf[16];

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

static void test_strcpy(void **state)
{
	(void)state;
	assert_int_equal(strcpy_s(buf, DMAX, "abc"), EOK);
	assert_string_equal(buf, "abc");
	/* Only the string and its terminator are written. */
	assert_true(all_bytes(buf + 4, sizeof(buf) - 4, FILL));
	assert_int_equal(strcpy_s(buf, DMAX, ""), EOK);
	assert_string_equal(buf, "");
	/* 7 characters and the terminator fill 8 bytes exactly. */
	assert_int_equal(strcpy_s(buf, DMAX, "1234567"), EOK);
	assert_string_equal(buf, "1234567");
	assert_canary();
}

static void test_strcpy_too_long(void **state)
{
	(void)state;
	assert_int_equal(strcpy_s(buf, DMAX, "12345678"), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
}

static void test_strcpy_unterminated_src(void **state)
{
	/* A source with no terminator is read only as far as could fit. */
	char *src = malloc(DMAX);

	(void)state;
	assert_non_null(src);
	memset(src, 's', DMAX);
	assert_int_equal(strcpy_s(buf, DMAX, src), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	free(src);
}

static void test_strcpy_args(void **state)
{
	(void)state;
	assert_int_equal(strcpy_s(buf, 0, "a"), ERANGE);
	assert_int_equal(strcpy_s(buf, TOO_BIG_STR, "a"), ERANGE);
	assert_int_equal(strcpy_s(NULL, 0, NULL), ERANGE);
	assert_int_equal(strcpy_s(NULL, DMAX, "a"), EINVAL);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	assert_int_equal(strcpy_s(buf, DMAX, NULL), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_true(all_bytes(buf + 1, sizeof(buf) - 1, FILL));
	/* SECUREC_STRING_MAX_LEN itself is accepted. */
	assert_int_equal(strcpy_s(buf, SECUREC_STRING_MAX_LEN, "ok"), EOK);
	assert_string_equal(buf, "ok");
}

static void test_strcpy_overlap(void **state)
{
	(void)state;
	/* dest inside the source: "abc" and NUL would cover its end */
	strcpy(buf, "abc");
	assert_int_equal(strcpy_s(buf + 2, 6, buf), EOVERLAP_AND_RESET);
	assert_int_equal(buf[2], '\0');
	/* A source that does not fit is reported as that first. */
	strcpy(buf, "abcdef");
	assert_int_equal(strcpy_s(buf + 2, 6, buf), ERANGE_AND_RESET);
	strcpy(buf, "abcdef");
	/* dest before src: "cdef" and its terminator would cover "ab.." */
	assert_int_equal(strcpy_s(buf, DMAX, buf + 2), EOVERLAP_AND_RESET);
	assert_int_equal(buf[0], '\0');
	/* The same string: nothing to copy. */
	strcpy(buf, "abcdef");
	assert_int_equal(strcpy_s(buf, DMAX, buf), EOK);
	assert_string_equal(buf, "abcdef");
	/* Adjacent is no overlap: "ab" + NUL in buf[0..2], source from 3. */
	strcpy(buf, "xyzab");
	assert_int_equal(strcpy_s(buf, 3, buf + 3), EOK);
	assert_string_equal(buf, "ab");
}

static void test_strncpy(void **state)
{
	(void)state;
	/* count shorter than the string: the first count characters. */
	assert_int_equal(strncpy_s(buf, DMAX, "abcdef", 3), EOK);
	assert_string_equal(buf, "abc");
	assert_true(all_bytes(buf + 4, sizeof(buf) - 4, FILL));
	/* count longer than the string: the whole string. */
	assert_int_equal(strncpy_s(buf, DMAX, "xy", 5), EOK);
	assert_string_equal(buf, "xy");
	/* count >= destMax is fine if the string fits. */
	assert_int_equal(strncpy_s(buf, DMAX, "1234567", 100), EOK);
	assert_string_equal(buf, "1234567");
	/* count < destMax truncates a longer string at count. */
	assert_int_equal(strncpy_s(buf, DMAX, "0123456789", 7), EOK);
	assert_string_equal(buf, "0123456");
	assert_canary();
}

static void test_strncpy_zero_count(void **state)
{
	(void)state;
	assert_int_equal(strncpy_s(buf, DMAX, "abc", 0), EOK);
	assert_int_equal(buf[0], '\0');
	assert_true(all_bytes(buf + 1, sizeof(buf) - 1, FILL));
}

static void test_strncpy_too_long(void **state)
{
	(void)state;
	/* count == destMax and the string does not end before it */
	assert_int_equal(strncpy_s(buf, DMAX, "12345678", DMAX),
			 ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	reset(NULL);
	assert_int_equal(strncpy_s(buf, DMAX, "123456789", 100),
			 ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
	/* count above the string limit, whatever the string */
	reset(NULL);
	assert_int_equal(strncpy_s(buf, DMAX, "a", TOO_BIG_STR),
			 ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_true(all_bytes(buf + 1, sizeof(buf) - 1, FILL));
}

static void test_strncpy_args(void **state)
{
	(void)state;
	assert_int_equal(strncpy_s(buf, 0, "a", 1), ERANGE);
	assert_int_equal(strncpy_s(buf, TOO_BIG_STR, "a", 1), ERANGE);
	assert_int_equal(strncpy_s(NULL, DMAX, "a", 1), EINVAL);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	assert_int_equal(strncpy_s(buf, DMAX, NULL, 1), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	/* NULL src is an error even with count 0. */
	reset(NULL);
	assert_int_equal(strncpy_s(buf, DMAX, NULL, 0), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
}

static void test_strncpy_overlap(void **state)
{
	(void)state;
	strcpy(buf, "abcdef");
	assert_int_equal(strncpy_s(buf + 1, 7, buf, 3), EOVERLAP_AND_RESET);
	assert_int_equal(buf[1], '\0');
	/* The same buffer: the string is cut at count. */
	strcpy(buf, "abcdef");
	assert_int_equal(strncpy_s(buf, DMAX, buf, 3), EOK);
	assert_string_equal(buf, "abc");
	/* Far enough apart: "de" + NUL before the source at 4. */
	strcpy(buf, "abcdefg");
	assert_int_equal(strncpy_s(buf, 4, buf + 4, 2), EOK);
	assert_memory_equal(buf, "ef\0defg", 8);
}

int run_str_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_strcpy, reset),
		cmocka_unit_test_setup(test_strcpy_too_long, reset),
		cmocka_unit_test_setup(test_strcpy_unterminated_src, reset),
		cmocka_unit_test_setup(test_strcpy_args, reset),
		cmocka_unit_test_setup(test_strcpy_overlap, reset),
		cmocka_unit_test_setup(test_strncpy, reset),
		cmocka_unit_test_setup(test_strncpy_zero_count, reset),
		cmocka_unit_test_setup(test_strncpy_too_long, reset),
		cmocka_unit_test_setup(test_strncpy_args, reset),
		cmocka_unit_test_setup(test_strncpy_overlap, reset),
	};

	return cmocka_run_group_tests_name("securec strcpy", tests, NULL, NULL);
}
