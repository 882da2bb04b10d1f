// SPDX-License-Identifier: GPL-2.0
/*
 * The whole tool as main() runs it: exit statuses, what goes to stdout and
 * what to stderr.  Without the memreg module loaded (the normal case on a
 * build host), the tool must say so and fail cleanly.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>

#include "tool_test.h"
#include "comm.h"
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
	static const char *const synopsis[] = {
		"\n       memreg stats [show]\n",
		"\n       memreg proc [show] [[pid] PID]\n",
		"\n       memreg region [show] [[pid] PID]\n",
		"\n       memreg heap [show] [[pid] PID]\n",
		"\n       memreg dev [show] [[dev] N]\n",
		"\n       memreg limits [show] [[pid] PID]\n",
		"\n       memreg limits set [pid PID | --all] [regions N] [host SIZE] [dev SIZE]\n",
		"\n       memreg monitor\n",
		"\n       memreg help\n",
		"\n       memreg OBJECT help\n",
		"K, M, G, T, P or E suffix",
	};
	struct run r;
	size_t i;

	(void)state;
	run(&r, ARGV("-h"));
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(capture_text(&r.out), "Usage: memreg"));
	assert_string_equal(capture_text(&r.err), "");
	run_done(&r);

	run(&r, ARGV("help"));
	assert_int_equal(r.status, 0);
	/* every command, with the filters' short forms */
	for (i = 0; i < sizeof(synopsis) / sizeof(synopsis[0]); i++)
		if (!strstr(capture_text(&r.out), synopsis[i]))
			fail_msg("\"%s\" not in the usage", synopsis[i]);
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

	/* refused before any socket is opened: module or not, capability or not */
	run(&r, ARGV("limits", "set", "regions", "0"));
	assert_int_equal(r.status, 2);
	assert_string_equal(capture_text(&r.out), "");
	assert_non_null(strstr(capture_text(&r.err),
			       "add --all if that is what you want\n"));
	run_done(&r);
}

/* A pid that was a process and is no more: a reaped child's. */
static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return pid;
}

/* Every command given a pid says the same when there is no such process. */
static void test_run_no_such_process(void **state)
{
	struct capture err;
	pid_t pid;
	char want[128];

	(void)state;
	assert_true(proc_pid_alive(getpid()));
	/* init is someone else's process: there, though not ours to signal */
	assert_true(proc_pid_alive(1));
	pid = dead_pid();
	/* the pid could be taken again at once, but not in practice */
	assert_false(proc_pid_alive(pid));

	capture_open(&err);
	proc_report_no_context(err.f, pid);
	snprintf(want, sizeof(want),
		 "memreg: no memreg context for pid %d: no such process\n",
		 (int)pid);
	assert_string_equal(capture_text(&err), want);
	capture_close(&err);

	capture_open(&err);
	proc_report_no_context(err.f, getpid());
	snprintf(want, sizeof(want), "memreg: no memreg context for pid %d\n",
		 (int)getpid());
	assert_string_equal(capture_text(&err), want);
	capture_close(&err);
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
	cmocka_unit_test(test_run_no_such_process),
};

const size_t n_run_tests = sizeof(run_tests) / sizeof(run_tests[0]);
