// SPDX-License-Identifier: GPL-2.0
/*
 * The command line: options, objects, commands, keywords and their values.
 */
#include <string.h>

#include "tool_test.h"
#include "args.h"

#define ARGV(...)	((char *[]){ "memreg", __VA_ARGS__, NULL })
#define ARGC(argv)	(count_args(argv))

static int count_args(char **argv)
{
	int n = 0;

	while (argv[n])
		n++;
	return n;
}

/* Parse, expect @ret, and return what went to stderr (caller frees). */
static int parse(struct memreg_args *a, char **argv, struct capture *err)
{
	capture_open(err);
	return args_parse(a, ARGC(argv), argv, err->f);
}

static void expect_ok(struct memreg_args *a, char **argv)
{
	struct capture err;

	assert_int_equal(parse(a, argv, &err), 0);
	assert_string_equal(capture_text(&err), "");
	capture_close(&err);
}

/* Fails with exit status 2 and @msg as the first line on stderr. */
static void expect_usage(char **argv, const char *msg, bool full_usage)
{
	struct memreg_args a;
	struct capture err;
	const char *text;

	assert_int_equal(parse(&a, argv, &err), EXIT_USAGE);
	text = capture_text(&err);
	assert_true(strncmp(text, msg, strlen(msg)) == 0);
	assert_int_equal(text[strlen(msg)], '\n');
	if (full_usage)
		assert_non_null(strstr(text, "Usage: memreg"));
	else
		assert_non_null(strstr(text, "Run \"memreg help\""));
	capture_close(&err);
}

static void test_args_options(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("stats"));
	assert_int_equal(a.object, OBJ_STATS);
	assert_false(a.json);
	assert_false(a.pretty);

	expect_ok(&a, ARGV("-j", "stats"));
	assert_true(a.json);
	assert_false(a.pretty);

	/* -p implies -j; bundled and long forms */
	expect_ok(&a, ARGV("-p", "proc"));
	assert_true(a.json && a.pretty);
	expect_ok(&a, ARGV("-jp", "proc"));
	assert_true(a.json && a.pretty);
	expect_ok(&a, ARGV("--json", "--pretty", "region"));
	assert_true(a.json && a.pretty);
	expect_ok(&a, ARGV("--", "stats"));
	assert_int_equal(a.object, OBJ_STATS);

	expect_ok(&a, ARGV("-h"));
	assert_true(a.help);
	expect_ok(&a, ARGV("--help"));
	assert_true(a.help);
	expect_ok(&a, ARGV("-V"));
	assert_true(a.version);
	expect_ok(&a, ARGV("--version"));
	assert_true(a.version);
	expect_ok(&a, ARGV("help"));
	assert_true(a.help);
	expect_ok(&a, ARGV("region", "help"));
	assert_true(a.help);

	expect_usage(ARGV("-x", "stats"), "memreg: unknown option \"-x\"",
		     true);
	expect_usage(ARGV("-jx", "stats"), "memreg: unknown option \"-jx\"",
		     true);
	expect_usage(ARGV("--jsn", "stats"),
		     "memreg: unknown option \"--jsn\"", true);
	expect_usage(ARGV("-j"), "memreg: no object given", true);
}

static void test_args_objects(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("proc"));
	assert_int_equal(a.object, OBJ_PROC);
	assert_int_equal(a.action, ACT_SHOW);
	assert_false(a.has_pid);

	expect_ok(&a, ARGV("region", "show"));
	assert_int_equal(a.object, OBJ_REGION);
	assert_int_equal(a.action, ACT_SHOW);

	expect_ok(&a, ARGV("monitor"));
	assert_int_equal(a.object, OBJ_MONITOR);
	expect_ok(&a, ARGV("limits"));
	assert_int_equal(a.object, OBJ_LIMITS);
	assert_int_equal(a.action, ACT_SHOW);

	/* prefixes, iproute2 style */
	expect_ok(&a, ARGV("st"));
	assert_int_equal(a.object, OBJ_STATS);
	expect_ok(&a, ARGV("p", "s"));
	assert_int_equal(a.object, OBJ_PROC);
	expect_ok(&a, ARGV("reg"));
	assert_int_equal(a.object, OBJ_REGION);
	expect_ok(&a, ARGV("mon"));
	assert_int_equal(a.object, OBJ_MONITOR);
	/* "s" is show, never set */
	expect_ok(&a, ARGV("limits", "s"));
	assert_int_equal(a.action, ACT_SHOW);

	expect_ok(&a, ARGV("heap"));
	assert_int_equal(a.object, OBJ_HEAP);
	expect_ok(&a, ARGV("d"));
	assert_int_equal(a.object, OBJ_DEV);
	expect_usage(ARGV("heaps"), "memreg: unknown object \"heaps\"", true);
	expect_usage(ARGV("procs"), "memreg: unknown object \"procs\"", true);
	expect_usage(ARGV("proc", "list"),
		     "memreg: unknown command \"list\" for proc", true);
	expect_usage(ARGV("stats", "pid", "1"),
		     "memreg: unknown command \"pid\" for stats", true);
	expect_usage(ARGV("stats", "show", "x"),
		     "memreg: unexpected argument \"x\"", true);
	expect_usage(ARGV("monitor", "x"),
		     "memreg: unknown command \"x\" for monitor", true);
	expect_usage(ARGV("proc", "set"),
		     "memreg: unknown command \"set\" for proc", true);
	expect_usage(ARGV("limits", "regions", "5"),
		     "memreg: unknown command \"regions\" for limits", true);
}

static void test_args_pid(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("proc", "pid", "1234"));
	assert_true(a.has_pid);
	assert_int_equal(a.pid, 1234);
	expect_ok(&a, ARGV("region", "show", "pid", "1"));
	assert_true(a.has_pid);
	assert_int_equal(a.pid, 1);
	expect_ok(&a, ARGV("limits", "show", "pid", "2147483647"));
	assert_int_equal(a.pid, 2147483647);

	expect_usage(ARGV("proc", "pid"), "memreg: \"pid\" needs a value",
		     false);
	expect_usage(ARGV("proc", "pid", "0"), "memreg: invalid pid \"0\"",
		     false);
	expect_usage(ARGV("proc", "pid", "-1"), "memreg: invalid pid \"-1\"",
		     false);
	expect_usage(ARGV("proc", "pid", "2147483648"),
		     "memreg: invalid pid \"2147483648\"", false);
	expect_usage(ARGV("proc", "pid", "12x"),
		     "memreg: invalid pid \"12x\"", false);
	expect_usage(ARGV("proc", "pid", "1", "pid", "2"),
		     "memreg: pid given twice", false);
	expect_usage(ARGV("region", "pid", "1", "host", "1G"),
		     "memreg: unknown argument \"host\"", true);
}

/* memreg heap takes a pid; memreg dev takes a device id instead. */
static void test_args_heap_dev(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("heap", "show", "pid", "42"));
	assert_int_equal(a.object, OBJ_HEAP);
	assert_true(a.has_pid);
	assert_int_equal(a.pid, 42);
	expect_ok(&a, ARGV("heap", "pid", "7"));
	assert_int_equal(a.pid, 7);

	expect_ok(&a, ARGV("dev"));
	assert_false(a.has_device);
	assert_false(a.has_pid);
	expect_ok(&a, ARGV("dev", "dev", "0"));
	assert_true(a.has_device);
	assert_int_equal(a.device, 0);
	expect_ok(&a, ARGV("dev", "show", "dev", "3"));
	assert_int_equal(a.device, 3);

	expect_usage(ARGV("dev", "pid", "1"),
		     "memreg: unknown command \"pid\" for dev", true);
	expect_usage(ARGV("dev", "show", "pid", "1"),
		     "memreg: unknown argument \"pid\"", true);
	expect_usage(ARGV("dev", "dev", "x"),
		     "memreg: invalid device id \"x\"", false);
	expect_usage(ARGV("dev", "dev"), "memreg: \"dev\" needs a value",
		     false);
	expect_usage(ARGV("dev", "dev", "1", "dev", "2"),
		     "memreg: dev given twice", false);
	expect_usage(ARGV("heap", "dev", "1"),
		     "memreg: unknown command \"dev\" for heap", true);
}

static void test_args_limits_set(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("limits", "set", "regions", "512"));
	assert_int_equal(a.action, ACT_SET);
	assert_int_equal(a.set, SET_REGIONS);
	assert_int_equal(a.max_regions, 512);
	assert_false(a.has_pid);

	expect_ok(&a, ARGV("limits", "set", "pid", "77", "regions",
			   "unlimited", "host", "1G", "dev", "64GiB"));
	assert_true(a.has_pid);
	assert_int_equal(a.pid, 77);
	assert_int_equal(a.set, SET_REGIONS | SET_HOST | SET_DEV);
	assert_true(a.max_regions == MEMREG_UNLIMITED);
	assert_true(a.max_host_bytes == 1ULL << 30);
	assert_true(a.max_dev_bytes == 64ULL << 30);

	expect_ok(&a, ARGV("limits", "set", "host", "unlimited"));
	assert_int_equal(a.set, SET_HOST);
	assert_true(a.max_host_bytes == MEMREG_UNLIMITED);

	expect_ok(&a, ARGV("limits", "set", "dev", "4096"));
	assert_int_equal(a.set, SET_DEV);
	assert_int_equal(a.max_dev_bytes, 4096);

	expect_usage(ARGV("limits", "set"),
		     "memreg: limits set needs at least one of regions, host, dev",
		     false);
	expect_usage(ARGV("limits", "set", "pid", "5"),
		     "memreg: limits set needs at least one of regions, host, dev",
		     false);
	expect_usage(ARGV("limits", "set", "host"),
		     "memreg: \"host\" needs a value", false);
	expect_usage(ARGV("limits", "set", "host", "1.5G"),
		     "memreg: invalid host size \"1.5G\" (bytes, K/M/G/T/P/E suffix, or unlimited)",
		     false);
	expect_usage(ARGV("limits", "set", "dev", "99999999999T"),
		     "memreg: dev \"99999999999T\" is too large", false);
	expect_usage(ARGV("limits", "set", "dev", "16E"),
		     "memreg: dev \"16E\" is too large", false);
	expect_ok(&a, ARGV("limits", "set", "host", "2P", "dev", "15E"));
	assert_true(a.max_host_bytes == 2ULL << 50);
	assert_true(a.max_dev_bytes == 15ULL << 60);
	expect_usage(ARGV("limits", "set", "regions", "1K"),
		     "memreg: invalid regions \"1K\" (a number or unlimited)",
		     false);
	expect_usage(ARGV("limits", "set", "host", "1G", "host", "2G"),
		     "memreg: host given twice", false);
	expect_usage(ARGV("limits", "set", "memlock", "1G"),
		     "memreg: unknown argument \"memlock\"", true);
	/* set keywords belong to set only */
	expect_usage(ARGV("limits", "show", "host", "1G"),
		     "memreg: unknown argument \"host\"", true);
}

/*
 * A host-wide default of 0 refuses every process's registrations: only
 * with --all.  With pid it is one process's business; 1 lets some through.
 */
static void test_args_limits_all(void **state)
{
	static const char no_all[] =
		"memreg: limits set %s 0 without pid refuses every registration of every process on the host; add --all if that is what you want";
	char msg[256];
	struct memreg_args a;

	(void)state;
	snprintf(msg, sizeof(msg), no_all, "regions");
	expect_usage(ARGV("limits", "set", "regions", "0"), msg, false);
	expect_usage(ARGV("limits", "set", "host", "1G", "regions", "0"), msg,
		     false);
	snprintf(msg, sizeof(msg), no_all, "host");
	expect_usage(ARGV("limits", "set", "host", "0"), msg, false);
	expect_usage(ARGV("limits", "set", "host", "0G"), msg, false);
	expect_usage(ARGV("limits", "set", "regions", "1", "host", "0K"), msg,
		     false);
	snprintf(msg, sizeof(msg), no_all, "dev");
	expect_usage(ARGV("limits", "set", "dev", "0"), msg, false);

	expect_ok(&a, ARGV("limits", "set", "--all", "regions", "0"));
	assert_true(a.all);
	assert_false(a.has_pid);
	assert_int_equal(a.set, SET_REGIONS);
	assert_int_equal(a.max_regions, 0);
	expect_ok(&a, ARGV("limits", "set", "host", "0", "dev", "0", "--all"));
	assert_true(a.all);
	assert_int_equal(a.set, SET_HOST | SET_DEV);

	/* one process, or a limit that lets something through */
	expect_ok(&a, ARGV("limits", "set", "pid", "5", "regions", "0"));
	assert_false(a.all);
	assert_int_equal(a.max_regions, 0);
	expect_ok(&a, ARGV("limits", "set", "regions", "1", "host", "1",
			   "dev", "1"));
	assert_false(a.all);
	expect_ok(&a, ARGV("limits", "set", "--all", "regions", "100"));
	assert_true(a.all);

	expect_usage(ARGV("limits", "set", "--all", "pid", "5", "regions", "0"),
		     "memreg: --all is for the host-wide defaults; it does not go with pid",
		     false);
	expect_usage(ARGV("limits", "set", "--all"),
		     "memreg: limits set needs at least one of regions, host, dev",
		     false);
	/* a keyword of "limits set" only */
	expect_usage(ARGV("limits", "show", "--all"),
		     "memreg: unknown argument \"--all\"", true);
	expect_usage(ARGV("proc", "--all"),
		     "memreg: unknown command \"--all\" for proc", true);
}

/*
 * The filter's value without its keyword, as "ip link show eth0": a pid
 * for proc, region, heap and limits show, a device for dev.
 */
static void test_args_short_forms(void **state)
{
	struct memreg_args a;

	(void)state;
	expect_ok(&a, ARGV("dev", "0"));
	assert_int_equal(a.object, OBJ_DEV);
	assert_true(a.has_device);
	assert_int_equal(a.device, 0);
	expect_ok(&a, ARGV("dev", "show", "3"));
	assert_true(a.has_device);
	assert_int_equal(a.device, 3);
	expect_ok(&a, ARGV("proc", "1234"));
	assert_int_equal(a.object, OBJ_PROC);
	assert_true(a.has_pid);
	assert_int_equal(a.pid, 1234);
	expect_ok(&a, ARGV("region", "show", "7"));
	assert_int_equal(a.object, OBJ_REGION);
	assert_int_equal(a.pid, 7);
	expect_ok(&a, ARGV("r", "8"));
	assert_int_equal(a.object, OBJ_REGION);
	assert_int_equal(a.pid, 8);
	expect_ok(&a, ARGV("heap", "42"));
	assert_int_equal(a.object, OBJ_HEAP);
	assert_int_equal(a.pid, 42);
	expect_ok(&a, ARGV("limits", "99"));
	assert_int_equal(a.object, OBJ_LIMITS);
	assert_int_equal(a.action, ACT_SHOW);
	assert_int_equal(a.pid, 99);
	expect_ok(&a, ARGV("limits", "show", "100"));
	assert_int_equal(a.pid, 100);

	expect_usage(ARGV("dev", "0", "dev", "1"), "memreg: dev given twice",
		     false);
	expect_usage(ARGV("proc", "5", "pid", "6"), "memreg: pid given twice",
		     false);
	expect_usage(ARGV("dev", "1x"), "memreg: invalid device id \"1x\"",
		     false);
	expect_usage(ARGV("proc", "0"), "memreg: invalid pid \"0\"", false);
	expect_usage(ARGV("region", "12x"), "memreg: invalid pid \"12x\"",
		     false);
	/* not where the value would be ambiguous, or is not a filter */
	expect_usage(ARGV("limits", "set", "5", "regions", "1"),
		     "memreg: unknown argument \"5\"", true);
	expect_usage(ARGV("stats", "5"),
		     "memreg: unknown command \"5\" for stats", true);
	expect_usage(ARGV("monitor", "5"),
		     "memreg: unknown command \"5\" for monitor", true);
	expect_usage(ARGV("proc", "x5"),
		     "memreg: unknown command \"x5\" for proc", true);
}

const struct CMUnitTest args_tests[] = {
	cmocka_unit_test(test_args_options),
	cmocka_unit_test(test_args_objects),
	cmocka_unit_test(test_args_pid),
	cmocka_unit_test(test_args_heap_dev),
	cmocka_unit_test(test_args_limits_set),
	cmocka_unit_test(test_args_limits_all),
	cmocka_unit_test(test_args_short_forms),
};

const size_t n_args_tests = sizeof(args_tests) / sizeof(args_tests[0]);
