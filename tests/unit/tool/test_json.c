// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer: escaping, nesting, compact and pretty layout.
 */
#include <string.h>

#include "tool_test.h"
#include "json.h"

static void expect_escaped(const char *in, const char *want)
{
	struct capture c;

	capture_open(&c);
	json_write_string(c.f, in);
	assert_string_equal(capture_text(&c), want);
	capture_close(&c);
}

static void test_json_escape_ascii(void **state)
{
	(void)state;
	expect_escaped("", "\"\"");
	expect_escaped("trainer", "\"trainer\"");
	expect_escaped("a\"b\\c/d", "\"a\\\"b\\\\c/d\"");
	expect_escaped("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"");
	expect_escaped("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	expect_escaped("\x1b[31mred", "\"\\u001b[31mred\"");
}

static void test_json_escape_utf8(void **state)
{
	(void)state;
	/* well-formed UTF-8 passes through: é, €, 😀 */
	expect_escaped("caf\xc3\xa9", "\"caf\xc3\xa9\"");
	expect_escaped("\xe2\x82\xac", "\"\xe2\x82\xac\"");
	expect_escaped("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"");
	/* stray continuation byte, Latin-1 byte */
	expect_escaped("a\x80z", "\"a\\ufffdz\"");
	expect_escaped("\xe9t\xe9", "\"\\ufffdt\\ufffd\"");
	/* overlong '/' and an encoded surrogate */
	expect_escaped("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	expect_escaped("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	/* above U+10FFFF */
	expect_escaped("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	/* a sequence cut short by the end of the string (comm is 15 bytes) */
	expect_escaped("ab\xe2\x82", "\"ab\\ufffd\\ufffd\"");
	expect_escaped("\xf0\x9f\x98", "\"\\ufffd\\ufffd\\ufffd\"");
}

static void write_sample(struct json *j)
{
	json_array_begin(j);
	json_object_begin(j);
	json_kv_u64(j, "pid", 123);
	json_kv_string(j, "comm", "x");
	json_kv_u64(j, "big", UINT64_MAX);
	json_key(j, "access");
	json_array_begin(j);
	json_string(j, "remote_read");
	json_string(j, "remote_write");
	json_array_end(j);
	json_key(j, "empty");
	json_object_begin(j);
	json_object_end(j);
	json_object_end(j);
	json_object_begin(j);
	json_kv_u64(j, "pid", 0);
	json_object_end(j);
	json_array_end(j);
}

static void test_json_compact(void **state)
{
	struct capture c;
	struct json j;

	(void)state;
	capture_open(&c);
	json_init(&j, c.f, false);
	write_sample(&j);
	assert_string_equal(capture_text(&c),
		"[{\"pid\":123,\"comm\":\"x\",\"big\":18446744073709551615,"
		"\"access\":[\"remote_read\",\"remote_write\"],\"empty\":{}},"
		"{\"pid\":0}]\n");
	capture_close(&c);
}

static void test_json_pretty(void **state)
{
	struct capture c;
	struct json j;

	(void)state;
	capture_open(&c);
	json_init(&j, c.f, true);
	write_sample(&j);
	assert_string_equal(capture_text(&c),
		"[\n"
		"  {\n"
		"    \"pid\": 123,\n"
		"    \"comm\": \"x\",\n"
		"    \"big\": 18446744073709551615,\n"
		"    \"access\": [\n"
		"      \"remote_read\",\n"
		"      \"remote_write\"\n"
		"    ],\n"
		"    \"empty\": {}\n"
		"  },\n"
		"  {\n"
		"    \"pid\": 0\n"
		"  }\n"
		"]\n");
	capture_close(&c);
}

static void test_json_empty_and_sequence(void **state)
{
	struct capture c;
	struct json j;

	(void)state;
	capture_open(&c);
	json_init(&j, c.f, false);
	json_array_begin(&j);
	json_array_end(&j);
	/* documents in a row (monitor -j): one per line, no commas */
	json_object_begin(&j);
	json_kv_string(&j, "event", "A");
	json_object_end(&j);
	json_object_begin(&j);
	json_kv_string(&j, "event", "B");
	json_object_end(&j);
	assert_string_equal(capture_text(&c),
			    "[]\n{\"event\":\"A\"}\n{\"event\":\"B\"}\n");
	capture_close(&c);

	capture_open(&c);
	json_init(&j, c.f, true);
	json_array_begin(&j);
	json_array_end(&j);
	assert_string_equal(capture_text(&c), "[]\n");
	capture_close(&c);
}

const struct CMUnitTest json_tests[] = {
	cmocka_unit_test(test_json_escape_ascii),
	cmocka_unit_test(test_json_escape_utf8),
	cmocka_unit_test(test_json_compact),
	cmocka_unit_test(test_json_pretty),
	cmocka_unit_test(test_json_empty_and_sequence),
};

const size_t n_json_tests = sizeof(json_tests) / sizeof(json_tests[0]);
