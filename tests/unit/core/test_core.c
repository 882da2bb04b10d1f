// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of lib/core, built from its sources with -DMEMREG_TESTING so
 * that a fake module can stand behind the ioctl hook.  Needs no module.
 *
 * Usage: test_core [GLOB]   (GLOB selects tests by name, cmocka's filter)
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests.h"

int main(int argc, char **argv)
{
	void (*const groups[])(struct group_result *) = {
		run_error_tests,
		run_device_tests,
		run_ioctl_tests,
		run_query_tests,
		run_thread_tests,
		run_dmabuf_tests,
		run_copy_thread_tests,
	};
	unsigned int tests = 0, failed = 0;
	size_t i;

	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		struct group_result res = { 0, 0 };

		groups[i](&res);
		tests += res.tests;
		failed += res.failed;
	}
	/*
	 * A filtered run cannot tell how many ran: no tally then.  Reruns
	 * under valgrind set MEMREG_TEST_NO_TALLY so that a summing runner
	 * counts each test once.
	 */
	if (argc <= 1 && !getenv("MEMREG_TEST_NO_TALLY"))
		printf("test_core: %u passed, %u failed\n", tests - failed,
		       failed);
	return failed ? 1 : 0;
}
