// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sprintf_s, vsprintf_s, snprintf_s and vsnprintf_s: the return value
 * (the length, or -1), what an output too long for destMax leaves (the
 * empty string), snprintf_s's truncation at count (the text kept, -1
 * returned), the refused %n, and the argument errors.
 */
#include <stdint.h>
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

/* The v* functions through a va_list of our own. */
static int call_vsprintf(char *d, size_t max, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf_s(d, max, fmt, ap);
	va_end(ap);
	return n;
}

static int call_vsnprintf(char *d, size_t max, size_t count,
			  const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf_s(d, max, count, fmt, ap);
	va_end(ap);
	return n;
}

static void test_sprintf(void **state)
{
	(void)state;
	assert_int_equal(sprintf_s(buf, DMAX, "%d-%s", 42, "ab"), 5);
	assert_string_equal(buf, "42-ab");
	/* 7 characters and the terminator fill 8 bytes exactly. */
	assert_int_equal(sprintf_s(buf, DMAX, "%07u", 12u), 7);
	assert_string_equal(buf, "0000012");
	assert_int_equal(sprintf_s(buf, DMAX, "%s", ""), 0);
	assert_string_equal(buf, "");
	assert_int_equal(call_vsprintf(buf, DMAX, "%x|%c", 255u, 'z'), 4);
	assert_string_equal(buf, "ff|z");
	assert_int_equal(sprintf_s(buf, DMAX, "%%"), 1);
	assert_string_equal(buf, "%");
	assert_canary();
}

static void test_sprintf_too_long(void **state)
{
	(void)state;
	/* No truncation: the output is dropped, -1. */
	assert_int_equal(sprintf_s(buf, DMAX, "%s", "12345678"), -1);
	assert_int_equal(buf[0], '\0');
	assert_canary();
	reset(NULL);
	assert_int_equal(call_vsprintf(buf, DMAX, "%lu", 123456789UL), -1);
	assert_int_equal(buf[0], '\0');
	assert_canary();
}

static void test_sprintf_args(void **state)
{
	(void)state;
	/* destMax invalid: nothing is written. */
	assert_int_equal(sprintf_s(buf, 0, "a"), -1);
	assert_int_equal(sprintf_s(buf, TOO_BIG_STR, "a"), -1);
	assert_int_equal(sprintf_s(NULL, DMAX, "a"), -1);
	assert_int_equal(call_vsprintf(buf, 0, "a"), -1);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	/* A NULL format with a usable destination empties it. */
	assert_int_equal(sprintf_s(buf, DMAX, NULL), -1);
	assert_int_equal(buf[0], '\0');
	assert_true(all_bytes(buf + 1, sizeof(buf) - 1, FILL));
	reset(NULL);
	assert_int_equal(call_vsprintf(buf, DMAX, NULL), -1);
	assert_int_equal(buf[0], '\0');
}

static void test_percent_n_refused(void **state)
{
	int n = 12345;

	(void)state;
	assert_int_equal(sprintf_s(buf, DMAX, "ab%n", &n), -1);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(n, 12345);
	/* with flags, width or length modifiers too */
	reset(NULL);
	assert_int_equal(snprintf_s(buf, DMAX, 4, "%d%-5hhn", 1, &n), -1);
	assert_int_equal(buf[0], '\0');
	assert_int_equal(n, 12345);
	/* an argument number, and one of 20 (the parser's list grows) */
	assert_int_equal(sprintf_s(buf, DMAX, "%2$n%1$d", 1, &n), -1);
	assert_int_equal(sprintf_s(buf, DMAX,
				   "%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%d%n",
				   1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				   14, 15, 16, 17, 18, 19, &n), -1);
	assert_int_equal(n, 12345);
	/* "%%n" is a percent sign and an n, not a conversion. */
	assert_int_equal(sprintf_s(buf, DMAX, "%%n"), 2);
	assert_string_equal(buf, "%n");
	/* %p and %s take pointers too, and are fine */
	assert_int_equal(sprintf_s(buf, DMAX, "%s%p", "x", (void *)0), 6);
}

static void test_snprintf(void **state)
{
	(void)state;
	/* count < destMax, the output within count */
	assert_int_equal(snprintf_s(buf, DMAX, 5, "%s", "abc"), 3);
	assert_string_equal(buf, "abc");
	assert_int_equal(snprintf_s(buf, DMAX, 5, "%d", 12345), 5);
	assert_string_equal(buf, "12345");
	/* count >= destMax, the output within destMax - 1 */
	assert_int_equal(snprintf_s(buf, DMAX, DMAX, "%s", "1234567"), 7);
	assert_string_equal(buf, "1234567");
	assert_int_equal(snprintf_s(buf, DMAX, 100, "%c", 'q'), 1);
	assert_string_equal(buf, "q");
	assert_int_equal(call_vsnprintf(buf, DMAX, 3, "%s", "xy"), 2);
	assert_string_equal(buf, "xy");
	assert_canary();
}

static void test_snprintf_truncated(void **state)
{
	(void)state;
	/* count < destMax: cut at count, terminated, and -1 returned */
	assert_int_equal(snprintf_s(buf, DMAX, 3, "%s", "abcdef"), -1);
	assert_string_equal(buf, "abc");
	assert_true(all_bytes(buf + 4, sizeof(buf) - 4, FILL));
	assert_int_equal(call_vsnprintf(buf, DMAX, 6, "%d", 1234567), -1);
	assert_string_equal(buf, "123456");
	/* count 0: the empty string; -1 unless the output is empty too */
	assert_int_equal(snprintf_s(buf, DMAX, 0, "%s", "a"), -1);
	assert_string_equal(buf, "");
	assert_int_equal(snprintf_s(buf, DMAX, 0, "%s", ""), 0);
	assert_string_equal(buf, "");
	assert_canary();
}

static void test_snprintf_too_long(void **state)
{
	(void)state;
	/* count >= destMax and the output does not fit: emptied, -1 */
	assert_int_equal(snprintf_s(buf, DMAX, DMAX, "%s", "12345678"), -1);
	assert_int_equal(buf[0], '\0');
	assert_canary();
	reset(NULL);
	assert_int_equal(call_vsnprintf(buf, DMAX, 1000, "%s", "123456789"),
			 -1);
	assert_int_equal(buf[0], '\0');
	assert_canary();
}

static void test_snprintf_args(void **state)
{
	(void)state;
	assert_int_equal(snprintf_s(buf, 0, 0, "a"), -1);
	assert_int_equal(snprintf_s(buf, TOO_BIG_STR, 1, "a"), -1);
	assert_int_equal(snprintf_s(NULL, DMAX, 1, "a"), -1);
	assert_int_equal(call_vsnprintf(NULL, DMAX, 1, "a"), -1);
	assert_true(all_bytes(buf, sizeof(buf), FILL));
	assert_int_equal(snprintf_s(buf, DMAX, 1, NULL), -1);
	assert_int_equal(buf[0], '\0');
	/* count above SECUREC_STRING_MAX_LEN - 1 is invalid, whatever fits */
	reset(NULL);
	assert_int_equal(snprintf_s(buf, DMAX, SECUREC_STRING_MAX_LEN, "a"),
			 -1);
	assert_int_equal(buf[0], '\0');
	assert_true(all_bytes(buf + 1, sizeof(buf) - 1, FILL));
	assert_int_equal(snprintf_s(buf, DMAX, SECUREC_STRING_MAX_LEN - 1, "a"),
			 1);
	assert_string_equal(buf, "a");
}

int run_printf_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_sprintf, reset),
		cmocka_unit_test_setup(test_sprintf_too_long, reset),
		cmocka_unit_test_setup(test_sprintf_args, reset),
		cmocka_unit_test_setup(test_percent_n_refused, reset),
		cmocka_unit_test_setup(test_snprintf, reset),
		cmocka_unit_test_setup(test_snprintf_truncated, reset),
		cmocka_unit_test_setup(test_snprintf_too_long, reset),
		cmocka_unit_test_setup(test_snprintf_args, reset),
	};

	return cmocka_run_group_tests_name("securec printf", tests, NULL, NULL);
}
