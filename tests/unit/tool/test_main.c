// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the memreg tool: formatting, JSON, the command line, the
 * printing of netlink messages and the netlink exchange code.  No memreg
 * kernel module is needed.
 */
#include <stdlib.h>
#include <string.h>

#include "tool_test.h"

static const struct {
	const struct CMUnitTest *tests;
	const size_t *count;
} sets[] = {
	{ fmt_tests, &n_fmt_tests },
	{ json_tests, &n_json_tests },
	{ args_tests, &n_args_tests },
	{ print_tests, &n_print_tests },
	{ nl_tests, &n_nl_tests },
	{ run_tests, &n_run_tests },
};

int main(int argc, char **argv)
{
	struct CMUnitTest *all;
	size_t i, n = 0;
	int failed;

	for (i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		n += *sets[i].count;
	all = calloc(n, sizeof(*all));
	if (!all)
		return 1;
	for (n = 0, i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		memcpy(all + n, sets[i].tests,
		       *sets[i].count * sizeof(*all));
		n += *sets[i].count;
	}
	/* test_tool GLOB: only the tests whose names match */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	/* the function behind cmocka_run_group_tests(), for a run-time array */
	failed = _cmocka_run_group_tests("memreg tool", all, n, NULL, NULL);
	free(all);
	return failed ? 1 : 0;
}
