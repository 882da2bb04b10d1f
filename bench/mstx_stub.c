// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel stand-in of mstx_bench_stub: INFO says heaps are tracked,
 * every MEMREG_IOC_MSTX batch is accepted at once.  What remains is the
 * library's own cost per call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static int stub_ioctl(int fd, unsigned long request, void *arg)
{
	(void)fd;
	if (request == MEMREG_IOC_INFO) {
		struct memreg_info *info = arg;

		info->abi_version = MEMREG_ABI_VERSION;
		info->features = MEMREG_FEATURE_MSTX;
		return 0;
	}
	if (request == MEMREG_IOC_MSTX) {
		struct memreg_mstx *m = arg;

		m->done = m->count;
		return 0;
	}
	errno = ENOTTY;
	return -1;
}

/* Before main(): the tool attaches at the first mstx call. */
__attribute__((constructor)) static void stub_install(void)
{
	setenv("MEMREG_DEVICE", "/dev/null", 1);
	memreg__test_ioctl = stub_ioctl;
}
