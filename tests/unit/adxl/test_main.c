// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdlib.h>
#include <string.h>

#include "tests.h"

int main(int argc, char **argv)
{
	/*
	 * The engine tests count the module's TRANSFER calls per staging
	 * round; lib/core splitting a large batch across copy threads would
	 * add calls.  The split is lib/core's and tested there
	 * (tests/unit/core/test_copy_threads.c).
	 */
	setenv("MEMREG_COPY_THREADS", "1", 0);
	/* test_ucx.c runs this binary again as a peer it can stop and kill. */
	if (argc > 1 && !strncmp(argv[1], "ucx-", 4))
		return test_ucx_peer_main(argc, argv);
	/* test_adxl GLOB: only the tests whose names match */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return test_name_group() + test_msg_group() + test_wire_group() +
	       test_api_group() + test_engine_group() + test_ucx_group() +
	       test_ucx_wire_group() + test_link_group() +
	       test_port_group();
}
