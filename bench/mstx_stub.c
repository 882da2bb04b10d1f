// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel stand-in of mstx_bench_stub: INFO says heaps are tracked,
 * every MEMREG_IOC_MSTX batch is accepted at once.  What remains is the
 * library's own cost per call.  The library's probe for REGION_ADD_DEL
 * (before any heap) gets the answer of a module that knows it, so that
 * the library folds pairs as it does with the module.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static int heaps_added;

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
		const struct memreg_mstx_op *op = (const void *)(uintptr_t)m->ops;

		if (!heaps_added && m->count &&
		    op->op == MEMREG_MSTX_REGION_ADD_DEL) {
			m->done = 0;
			errno = ENOENT;
			return -1;
		}
		if (m->count && op->op == MEMREG_MSTX_HEAP_ADD)
			heaps_added = 1;
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
