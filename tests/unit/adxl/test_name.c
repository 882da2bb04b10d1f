// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Engine names: the four forms of the reference are accepted with the
 * right family and port, anything else is refused.
 */
#include <arpa/inet.h>
#include <string.h>

#include "adxl_int.h"
#include "tests.h"

static void accepts(const char *name, int family, int port)
{
	struct adxl_name n;

	assert_int_equal(adxl__parse_name(name, &n), 0);
	assert_int_equal(n.family, family);
	assert_int_equal(n.port, port);
	assert_int_equal(n.sa.ss_family, family);
	if (family == AF_INET)
		assert_int_equal(ntohs(((struct sockaddr_in *)&n.sa)->sin_port),
				 port);
	else
		assert_int_equal(ntohs(((struct sockaddr_in6 *)&n.sa)->sin6_port),
				 port);
}

static void test_name_valid(void **state)
{
	(void)state;
	accepts("127.0.0.1", AF_INET, 0);
	accepts("10.1.2.3:26000", AF_INET, 26000);
	accepts("192.168.0.1:65535", AF_INET, 65535);
	accepts("127.0.0.1:0", AF_INET, 0);
	accepts("[::1]", AF_INET6, 0);
	accepts("[::1]:16000", AF_INET6, 16000);
	accepts("[fe80::1:2]:1", AF_INET6, 1);
}

static void test_name_address(void **state)
{
	struct adxl_name n;
	char buf[64];

	(void)state;
	assert_int_equal(adxl__parse_name("10.1.2.3:26000", &n), 0);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&n.sa)->sin_addr, buf,
		  sizeof(buf));
	assert_string_equal(buf, "10.1.2.3");
	assert_int_equal(adxl__parse_name("[2001:db8::7]:9", &n), 0);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&n.sa)->sin6_addr, buf,
		  sizeof(buf));
	assert_string_equal(buf, "2001:db8::7");
}

static void test_name_invalid(void **state)
{
	static const char *const bad[] = {
		"", ":", ":26000", "localhost", "localhost:26000",
		"1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.4:", "1.2.3.4:x",
		"1.2.3.4:-1", "1.2.3.4:+5", "1.2.3.4:65536", "1.2.3.4:123456",
		"1.2.3.4: 5", " 1.2.3.4", "1.2.3.4:5:6", "::1", "::1:5",
		"[::1", "[::1]5", "[::1]:", "[1.2.3.4]", "[]", "[]:5",
		"[::1]:70000", "[zz::1]:5",
	};
	struct adxl_name n;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (adxl__parse_name(bad[i], &n) == 0)
			fail_msg("accepted \"%s\"", bad[i]);
	}
	assert_int_equal(adxl__parse_name(NULL, &n), -1);
}

int test_name_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_valid),
		cmocka_unit_test(test_name_address),
		cmocka_unit_test(test_name_invalid),
	};

	return cmocka_run_group_tests_name("adxl names", tests, NULL, NULL);
}
