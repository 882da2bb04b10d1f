// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

void use_device(const char *path)
{
	if (setenv("MEMREG_DEVICE", path, 1))
		abort();
}

int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

__attribute__((noinline)) void poison_stack(void)
{
	volatile unsigned char junk[16384];
	size_t i;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = 0xa5;
}

int fake_setup(void **state)
{
	(void)state;
	if (fake_kernel_setup())
		return -1;
	/* lib/core's own calls need no device memory: any node opens. */
	use_device(FAKE_DEVICE);
	return 0;
}

int fake_teardown(void **state)
{
	(void)state;
	fake_kernel_teardown();
	return 0;
}

int fake_ctx_setup(void **state)
{
	struct memreg_ctx *ctx;

	fake_setup(state);
	if (memreg_open(&ctx))
		return -1;
	*state = ctx;
	return 0;
}

int fake_ctx_teardown(void **state)
{
	memreg_close(*state);
	return fake_teardown(state);
}
