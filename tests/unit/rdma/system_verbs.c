// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The shipped adxl-rdma.so on this machine's own libibverbs (not the
 * fake): it loads, and open() either finds a device or says there is
 * none, with -ENODEV and a message that tells what to do, as on a host
 * without RDMA (the usual one here: no RDMA driver loaded).
 *
 * Usage: test_rdma_system PLUGIN
 */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "rdma_plugin.h"

static const char *plugin;

static void system_libibverbs(void **state)
{
	const struct adxl_plugin *(*get)(void);
	const struct adxl_plugin *ops;
	struct adxl_plugin_conf conf = { 0 };
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r = NULL;
	void *h;
	int ret;

	(void)state;
	h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen: %s", dlerror());
	*(void **)&get = dlsym(h, ADXL_PLUGIN_ENTRY);
	assert_non_null(get);
	ops = get();
	assert_string_equal(ops->transport, "rdma");
	ret = ops->open(&conf, &r, err);
	if (ret == 0) {
		print_message("# %s\n", ops->describe(r));
		assert_true(strlen(ops->describe(r)) > 0);
		ops->close(r);
	} else {
		print_message("# %s\n", err);
		assert_int_equal(ret, -ENODEV);
		assert_true(!strncmp(err, "no RDMA device", 14));
	}
	dlclose(h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(system_libibverbs),
	};

	if (argc != 2)
		return 2;
	plugin = argv[1];
	return cmocka_run_group_tests_name("system", tests, NULL, NULL);
}
