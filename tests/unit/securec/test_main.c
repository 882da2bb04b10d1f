// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of lib/securec (libc_sec.so of the CANN tree), built from
 * the sources with the sanitizers: every function's documented result
 * for good arguments and for each kind of bad one, and what it leaves in
 * the destination (written, reset, or untouched).
 *
 * Usage: test_securec [GLOB]   (GLOB selects tests by name, cmocka's filter)
 */
#include <string.h>

#include "tests.h"

int all_bytes(const void *p, size_t n, int c)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != (unsigned char)c)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	int (*const groups[])(void) = {
		run_value_tests,
		run_mem_tests,
		run_str_tests,
		run_cat_tests,
		run_printf_tests,
	};
	int failed = 0;
	size_t i;

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		failed += groups[i]();
	return failed ? 1 : 0;
}
