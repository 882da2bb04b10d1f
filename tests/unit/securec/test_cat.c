// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strcat_s and strncat_s: the append, the exact fit and one past it, a
 * destination that is no string (no terminator within destMax), overlap,
 * and the argument errors, each with what it leaves.
 */
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

/* buf holds @s, the rest of it FILL. */
static void set(const char *s)
{
	reset(NULL);
	memcpy(buf, s, strlen(s) + 1);
}

static void test_strcat(void **state)
{
	(void)state;
	set("ab");
	assert_int_equal(strcat_s(buf, DMAX, "cd"), EOK);
	assert_string_equal(buf, "abcd");
	assert_true(all_bytes(buf + 5, sizeof(buf) - 5, FILL));
	assert_int_equal(strcat_s(buf, DMAX, ""), EOK);
	assert_string_equal(buf, "abcd");
	/* 7 characters and the terminator fill 8 bytes exactly. */
	assert_int_equal(strcat_s(buf, DMAX, "efg"), EOK);
	assert_string_equal(buf, "abcdefg");
	assert_canary();
	/* An empty destination. */
	set("");
	assert_int_equal(strcat_s(buf, DMAX, "xyz"), EOK);
	assert_string_equal(buf, "xyz");
}

static void test_strcat_too_long(void **state)
{
	(void)state;
	set("abc");
	assert_int_equal(strcat_s(buf, DMAX, "defgh"), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
}

static void test_strcat_unterminated(void **state)
{
	(void)state;
	/* No terminator within destMax: not a string, an argument error. */
	assert_int_equal(strcat_s(buf, DMAX, "a"), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
	/* The same when the source follows the destination's buffer. */
	reset(NULL);
	memcpy(buf + DMAX, "ab", 3);
	assert_int_equal(strcat_s(buf, DMAX, buf + DMAX), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_string_equal(buf + DMAX, "ab");
}

static void test_strcat_args(void **state)
{
	(void)state;
	set("ab");
	assert_int_equal(strcat_s(buf, 0, "c"), ERANGE);
	assert_int_equal(strcat_s(buf, TOO_BIG_STR, "c"), ERANGE);
	assert_int_equal(strcat_s(NULL, DMAX, "c"), EINVAL);
	assert_string_equal(buf, "ab");
	assert_int_equal(strcat_s(buf, DMAX, NULL), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'b');
}

static void test_strcat_overlap(void **state)
{
	(void)state;
	/* The source is the destination's own tail. */
	set("abc");
	assert_int_equal(strcat_s(buf, DMAX, buf + 1), EOVERLAP_AND_RESET);
	assert_int_equal(buf[0], '\0');
	/* The source starts before the destination and runs into it. */
	set("xyabc");
	assert_int_equal(strcat_s(buf + 2, 6, buf), EOVERLAP_AND_RESET);
	assert_int_equal(buf[2], '\0');
	/* A string appended to itself is refused, though "abab" would fit. */
	set("ab");
	assert_int_equal(strcat_s(buf, DMAX, buf), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	/* Far enough apart: the result ends before the source begins. */
	set("a");
	memcpy(buf + 4, "bc", 3);
	assert_int_equal(strcat_s(buf, 4, buf + 4), EOK);
	assert_string_equal(buf, "abc");
}

static void test_strncat(void **state)
{
	(void)state;
	set("ab");
	assert_int_equal(strncat_s(buf, DMAX, "cdef", 2), EOK);
	assert_string_equal(buf, "abcd");
	assert_true(all_bytes(buf + 5, sizeof(buf) - 5, FILL));
	/* count beyond the string: the whole string. */
	assert_int_equal(strncat_s(buf, DMAX, "e", 10), EOK);
	assert_string_equal(buf, "abcde");
	/* count 0 appends nothing. */
	assert_int_equal(strncat_s(buf, DMAX, "zzz", 0), EOK);
	assert_string_equal(buf, "abcde");
	/* count cuts a string that would not fit whole. */
	assert_int_equal(strncat_s(buf, DMAX, "fghij", 2), EOK);
	assert_string_equal(buf, "abcdefg");
	assert_canary();
}

static void test_strncat_too_long(void **state)
{
	(void)state;
	set("abc");
	assert_int_equal(strncat_s(buf, DMAX, "defgh", 5), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
	set("abc");
	assert_int_equal(strncat_s(buf, DMAX, "d", TOO_BIG_STR),
			 ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(buf[1], 'b');
}

static void test_strncat_unterminated(void **state)
{
	(void)state;
	/* Even appending nothing needs a string to append to. */
	assert_int_equal(strncat_s(buf, DMAX, "a", 0), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
	assert_canary();
}

static void test_strncat_args(void **state)
{
	(void)state;
	set("ab");
	assert_int_equal(strncat_s(buf, 0, "c", 1), ERANGE);
	assert_int_equal(strncat_s(buf, TOO_BIG_STR, "c", 1), ERANGE);
	assert_int_equal(strncat_s(NULL, DMAX, "c", 1), EINVAL);
	assert_string_equal(buf, "ab");
	assert_int_equal(strncat_s(buf, DMAX, NULL, 0), EINVAL_AND_RESET);
	assert_int_equal(buf[0], '\0');
}

static void test_strncat_overlap(void **state)
{
	(void)state;
	set("abcd");
	assert_int_equal(strncat_s(buf, DMAX, buf + 2, 1), EOVERLAP_AND_RESET);
	assert_int_equal(buf[0], '\0');
	set("ab");
	assert_int_equal(strncat_s(buf, DMAX, buf, 1), ERANGE_AND_RESET);
	assert_int_equal(buf[0], '\0');
}

int run_cat_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_strcat, reset),
		cmocka_unit_test_setup(test_strcat_too_long, reset),
		cmocka_unit_test_setup(test_strcat_unterminated, reset),
		cmocka_unit_test_setup(test_strcat_args, reset),
		cmocka_unit_test_setup(test_strcat_overlap, reset),
		cmocka_unit_test_setup(test_strncat, reset),
		cmocka_unit_test_setup(test_strncat_too_long, reset),
		cmocka_unit_test_setup(test_strncat_unterminated, reset),
		cmocka_unit_test_setup(test_strncat_args, reset),
		cmocka_unit_test_setup(test_strncat_overlap, reset),
	};

	return cmocka_run_group_tests_name("securec strcat", tests, NULL, NULL);
}
