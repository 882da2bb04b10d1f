// SPDX-License-Identifier: GPL-2.0
/*
 * The whole tool as main() runs it: exit statuses, what goes to stdout and
 * what to stderr.  Without the memreg module loaded (the normal case on a
 * build host), the tool must say so and fail cleanly.
 */
#include <string.h>

#include <netlink/genl/ctrl.h>

#include "tool_test.h"
#include "tool.h"

#define ARGV(...)	((char *[]){ "memreg", __VA_ARGS__, NULL })

struct run {
	struct capture out, err;
	int status;
};

static void run(struct run *r, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	capture_open(&r->out);
	capture_open(&r->err);
	r->status = memreg_run(argc, argv, r->out.f, r->err.f);
}

static void run_done(struct run *r)
{
	capture_close(&r->out);
	capture_close(&r->err);
}

static void test_run_help_version(void **state)
{
	struct run r;

	(void)state;
	run(&r, ARGV("-h"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(capture_text(&r.out), "Usage: memreg"));
	assert_string_equal(capture_text(&r.err), "");
	run_done(&r);

	run(&r, ARGV("help"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(capture_text(&r.out),
			       "memreg limits set [pid PID]"));
	run_done(&r);

	run(&r, ARGV("-V"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(capture_text(&r.out), "memreg "));
	assert_non_null(strstr(capture_text(&r.out),
			       "generic netlink family \"memreg\" version 1"));
	run_done(&r);
}

static void test_run_usage_errors(void **state)
{
	struct run r;

	(void)state;
	run(&r, ARGV("frobnicate"));
	assert_int_equal(r.status, 2);
	assert_string_equal(capture_text(&r.out), "");
	assert_non_null(strstr(capture_text(&r.err),
			       "memreg: unknown object \"frobnicate\"\nUsage: memreg"));
	run_done(&r);

	run(&r, ((char *[]){ "memreg", NULL }));
	assert_int_equal(r.status, 2);
	assert_non_null(strstr(capture_text(&r.err), "Usage: memreg"));
	run_done(&r);

	run(&r, ARGV("proc", "frobnicate"));
	assert_int_equal(r.status, 2);
	run_done(&r);
}

static bool memreg_family_present(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	bool present;

	assert_non_null(sk);
	assert_int_equal(genl_connect(sk), 0);
	present = genl_ctrl_resolve(sk, MEMREG_GENL_NAME) >= 0;
	nl_socket_free(sk);
	return present;
}

static void test_run_module_not_loaded(void **state)
{
	static const char msg[] =
		"memreg: kernel module not loaded (generic netlink family \"memreg\" not found)\n";
	char **cases[] = {
		ARGV("stats"),
		ARGV("-j", "proc"),
		ARGV("region", "pid", "1"),
		ARGV("limits", "set", "host", "1G"),
		ARGV("monitor"),
	};
	struct run r;
	size_t i;

	(void)state;
	if (memreg_family_present())
		skip();		/* a host with the module loaded */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run(&r, cases[i]);
		assert_int_equal(r.status, 1);
		/* nothing on stdout: not even "[" of a JSON list */
		assert_string_equal(capture_text(&r.out), "");
		assert_string_equal(capture_text(&r.err), msg);
		run_done(&r);
	}
}

const struct CMUnitTest run_tests[] = {
	cmocka_unit_test(test_run_help_version),
	cmocka_unit_test(test_run_usage_errors),
	cmocka_unit_test(test_run_module_not_loaded),
};

const size_t n_run_tests = sizeof(run_tests) / sizeof(run_tests[0]);
