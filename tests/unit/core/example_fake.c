// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Linked with examples/register.c and the test build of lib/core: runs the
 * example README shows from start to end against the fake module.
 */
#include <stdlib.h>

#include "fake_kernel.h"

__attribute__((constructor)) static void install_fake(void)
{
	if (fake_kernel_setup() ||
	    setenv("MEMREG_DEVICE", "/dev/null", 1))
		abort();
}
