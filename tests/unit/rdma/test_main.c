// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Unit tests of adxl-rdma.so against the fake libibverbs: no RDMA
 * device, no root.
 *
 * Usage: test_rdma [GLOB]   (GLOB selects tests by name, cmocka's filter)
 */
#include <stdio.h>
#include <string.h>

#include "tests.h"

const struct adxl_plugin *rd;

int main(int argc, char **argv)
{
	int failed;

	rd = adxl_transport_plugin_v1();
	if (!rd || strcmp(rd->transport, "rdma")) {
		printf("not ok - %s(): no table of the RDMA transport\n",
		       ADXL_PLUGIN_ENTRY);
		return 1;
	}
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	failed = test_device_group() + test_mr_group() + test_xfer_group() +
		 test_errors_group() + test_threads_group() +
		 test_shipped_group() + test_grant_group();
	return failed ? 1 : 0;
}
