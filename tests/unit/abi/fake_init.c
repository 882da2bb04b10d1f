// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The suite's libmemreg.so.1 is lib/core and lib/mstx built with
 * MEMREG_TESTING and tests/unit/fake's module linked in: the module is
 * set up when the library is loaded, before main(), so that the real
 * faces above it (libcann_hixl.so, libllm_datadist.so, libascendcl.so)
 * talk to the fake exactly as to /dev/memreg, and the programs, which
 * know nothing of memreg, need no call to start it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fake_kernel.h"

__attribute__((constructor)) static void fake_init(void)
{
	if (fake_kernel_setup()) {
		fprintf(stderr, "abi: the fake module did not start\n");
		abort();
	}
}
