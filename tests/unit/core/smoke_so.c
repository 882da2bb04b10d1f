// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Checks of the shipped libmemreg.so (not the test build of lib/core):
 * it works without a module, exports the API and nothing of the test
 * hook or of lib/core's internals.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memreg/memreg.h>

static int failed;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAIL", what);
	if (!ok)
		failed++;
}

int main(void)
{
	struct memreg_ctx *ctx = NULL;
	int ret;

	setenv("MEMREG_DEVICE", "/nonexistent", 1);
	ret = memreg_open(&ctx);
	check(ret == -MEMREG_E_NOMODULE && errno == ENOENT && !ctx,
	      "open of a missing device is MEMREG_E_NOMODULE");
	check(strstr(memreg_strerror(ret), "module") != NULL,
	      "its message names the module");

	setenv("MEMREG_DEVICE", "/dev/null", 1);
	ret = memreg_open(&ctx);
	check(ret == -MEMREG_E_ABI && errno == ENOTTY && !ctx,
	      "a node that is not memreg is MEMREG_E_ABI (ENOTTY)");

	check(dlsym(RTLD_DEFAULT, "memreg_open") != NULL, "memreg_open exported");
	check(dlsym(RTLD_DEFAULT, "memreg__test_ioctl") == NULL,
	      "no test hook in the shipped library");
	check(dlsym(RTLD_DEFAULT, "memreg__ioctl") == NULL,
	      "internals not exported");
	return failed ? 1 : 0;
}
