// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes, counts and ages: formatting for people, parsing from them.
 */
#include <errno.h>
#include <string.h>

#include "tool_test.h"
#include "fmt.h"

static void expect_size(uint64_t bytes, const char *want)
{
	char buf[FMT_BUF_LEN];

	fmt_size(buf, sizeof(buf), bytes);
	assert_string_equal(buf, want);
}

static void test_fmt_size(void **state)
{
	(void)state;
	expect_size(0, "0B");
	expect_size(1, "1B");
	expect_size(1023, "1023B");
	expect_size(1024, "1.0KiB");
	expect_size(1536, "1.5KiB");
	expect_size(4ULL << 20, "4.0MiB");
	expect_size(20ULL << 30, "20.0GiB");
	expect_size(50ULL << 30, "50.0GiB");
	/* 1.05 KiB is 1075.2 bytes: 1075 rounds down, 1076 up */
	expect_size(1075, "1.0KiB");
	expect_size(1076, "1.1KiB");
	/* rounding that carries into the next unit */
	expect_size((1ULL << 20) - 1, "1.0MiB");
	expect_size((1ULL << 20) - 52, "1023.9KiB");
	expect_size(3ULL << 40, "3.0TiB");
	expect_size(1ULL << 60, "1.0EiB");
	/* the largest size that is not "unlimited" */
	expect_size(UINT64_MAX - 1, "16.0EiB");
	expect_size(MEMREG_UNLIMITED, "unlimited");
}

static void test_fmt_count(void **state)
{
	char buf[FMT_BUF_LEN];

	(void)state;
	fmt_count(buf, sizeof(buf), 256);
	assert_string_equal(buf, "256");
	fmt_count(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0");
	fmt_count(buf, sizeof(buf), MEMREG_UNLIMITED);
	assert_string_equal(buf, "unlimited");
}

static void expect_age(uint64_t ms, const char *want)
{
	char buf[FMT_BUF_LEN];

	fmt_age(buf, sizeof(buf), ms);
	assert_string_equal(buf, want);
}

static void test_fmt_age(void **state)
{
	(void)state;
	expect_age(0, "0ms");
	expect_age(999, "999ms");
	expect_age(1000, "1.0s");
	expect_age(12345, "12.3s");
	expect_age(59999, "59.9s");
	expect_age(60000, "1m00s");
	expect_age(185000, "3m05s");
	expect_age(3600000, "1h00m");
	expect_age(7500000, "2h05m");
	expect_age(86400000, "1d00h");
	expect_age(4 * 86400000ULL + 3 * 3600000ULL + 59000, "4d03h");
	expect_age(UINT64_MAX, "213503982334d14h");
}

static void test_fmt_hexbytes(void **state)
{
	const unsigned char id[16] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x89, 0xab, 0xcd, 0xef, 0xf0, 0x0f, 0xff, 0x10,
	};
	char buf[FMT_BUF_LEN], small[5];

	(void)state;
	fmt_hexbytes(buf, sizeof(buf), id, sizeof(id));
	assert_string_equal(buf, "000102030405060789abcdeff00fff10");
	/* a short buffer gets whole bytes only, NUL-terminated */
	fmt_hexbytes(small, sizeof(small), id, sizeof(id));
	assert_string_equal(small, "0001");
}

static void expect_parse_size(const char *s, int ret, uint64_t want)
{
	uint64_t v = 12345;

	assert_int_equal(parse_size(s, &v), ret);
	if (!ret)
		assert_int_equal(v, want);
	else
		assert_int_equal(v, 12345);	/* untouched on failure */
}

static void test_parse_size(void **state)
{
	(void)state;
	expect_parse_size("0", 0, 0);
	expect_parse_size("4096", 0, 4096);
	expect_parse_size("4096B", 0, 4096);
	expect_parse_size("64K", 0, 64 << 10);
	expect_parse_size("64k", 0, 64 << 10);
	expect_parse_size("64KiB", 0, 64 << 10);
	expect_parse_size("64kib", 0, 64 << 10);
	expect_parse_size("2M", 0, 2 << 20);
	expect_parse_size("2MiB", 0, 2 << 20);
	expect_parse_size("1G", 0, 1ULL << 30);
	expect_parse_size("20GiB", 0, 20ULL << 30);
	expect_parse_size("1T", 0, 1ULL << 40);
	expect_parse_size("3TiB", 0, 3ULL << 40);
	expect_parse_size("1P", 0, 1ULL << 50);
	expect_parse_size("unlimited", 0, MEMREG_UNLIMITED);
	expect_parse_size("18446744073709551615", 0, UINT64_MAX);
	expect_parse_size("16383P", 0, 16383ULL << 50);
	/* what fmt_size() prints reads back: PiB and EiB too */
	expect_parse_size("1PiB", 0, 1ULL << 50);
	expect_parse_size("1E", 0, 1ULL << 60);
	expect_parse_size("15e", 0, 15ULL << 60);
	expect_parse_size("2EiB", 0, 2ULL << 60);

	expect_parse_size("18446744073709551616", -ERANGE, 0);
	expect_parse_size("16384P", -ERANGE, 0);
	expect_parse_size("16E", -ERANGE, 0);
	expect_parse_size("16777216T", -ERANGE, 0);

	expect_parse_size("", -EINVAL, 0);
	expect_parse_size("K", -EINVAL, 0);
	expect_parse_size("-1", -EINVAL, 0);
	expect_parse_size("+1", -EINVAL, 0);
	expect_parse_size(" 1", -EINVAL, 0);
	expect_parse_size("1 ", -EINVAL, 0);
	expect_parse_size("1.5G", -EINVAL, 0);
	expect_parse_size("0x10", -EINVAL, 0);
	expect_parse_size("1GB", -EINVAL, 0);
	expect_parse_size("1Gi", -EINVAL, 0);
	expect_parse_size("1X", -EINVAL, 0);
	expect_parse_size("1Z", -EINVAL, 0);
	expect_parse_size("1EB", -EINVAL, 0);
	expect_parse_size("Unlimited", -EINVAL, 0);
}

static void test_parse_numbers(void **state)
{
	uint64_t v;
	uint32_t u;

	(void)state;
	assert_int_equal(parse_u64("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
	assert_int_equal(parse_u64("12a", &v), -EINVAL);
	assert_int_equal(parse_u64("", &v), -EINVAL);

	assert_int_equal(parse_u32("4294967295", &u), 0);
	assert_true(u == UINT32_MAX);
	assert_int_equal(parse_u32("4294967296", &u), -ERANGE);
	assert_int_equal(parse_u32("-5", &u), -EINVAL);

	assert_int_equal(parse_count("256", &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(parse_count("unlimited", &v), 0);
	assert_true(v == MEMREG_UNLIMITED);
	assert_int_equal(parse_count("1K", &v), -EINVAL);
}

/* Handles: 0x and always 16 digits, whatever their top bits. */
static void test_fmt_hex16(void **state)
{
	char buf[17];

	(void)state;
	buf[fmt_hex16(buf, 0x5eed0000beefULL)] = '\0';
	assert_string_equal(buf, "00005eed0000beef");
	buf[fmt_hex16(buf, 0x0123456789abcdefULL)] = '\0';
	assert_string_equal(buf, "0123456789abcdef");
	buf[fmt_hex16(buf, 0)] = '\0';
	assert_string_equal(buf, "0000000000000000");
	buf[fmt_hex16(buf, UINT64_MAX)] = '\0';
	assert_string_equal(buf, "ffffffffffffffff");
	/* fmt_hex() is for addresses: no leading zeros */
	buf[fmt_hex(buf, 0x0123456789abcdefULL)] = '\0';
	assert_string_equal(buf, "123456789abcdef");
}

const struct CMUnitTest fmt_tests[] = {
	cmocka_unit_test(test_fmt_size),
	cmocka_unit_test(test_fmt_count),
	cmocka_unit_test(test_fmt_age),
	cmocka_unit_test(test_fmt_hexbytes),
	cmocka_unit_test(test_fmt_hex16),
	cmocka_unit_test(test_parse_size),
	cmocka_unit_test(test_parse_numbers),
};

const size_t n_fmt_tests = sizeof(fmt_tests) / sizeof(fmt_tests[0]);
