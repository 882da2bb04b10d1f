// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of lib/acl (and lib/core's device memory calls), built from
 * the sources with -DMEMREG_TESTING so that a fake module with emulated
 * devices can stand behind the ioctl hook.  Needs no module.
 *
 * Usage: test_acl [GLOB]   (GLOB selects tests by name, cmocka's filter)
 */
#include <stdio.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "fake_kernel.h"
#include "tests.h"

int acl_test_setup(void **state)
{
	(void)state;
	if (fake_kernel_setup() || aclInit(NULL) != ACL_SUCCESS ||
	    aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return 0;
}

int acl_test_teardown(void **state)
{
	(void)state;
	aclFinalize();
	fake_kernel_teardown();
	return 0;
}

int main(int argc, char **argv)
{
	void (*const groups[])(struct group_result *) = {
		run_allocator_tests,
		run_args_tests,
		run_devmem_tests,
		run_runtime_tests,
		run_copy_tests,
		run_event_tests,
		run_misc_tests,
		run_error_tests,
		run_value_tests,
		run_query_tests,
		run_streamcfg_tests,
		run_ipc_tests,
		run_vmm_tests,
		run_ipcevent_tests,
		run_builtin_tests,
		run_model_tests,
		run_build_tests,
		run_reason_tests,
		run_dropin_tests,
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
	if (argc <= 1)
		printf("test_acl: %u passed, %u failed\n", tests - failed,
		       failed);
	return failed ? 1 : 0;
}
