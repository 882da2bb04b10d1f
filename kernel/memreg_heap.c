// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - mstx heaps and regions (placeholder until the mstx work lands).
 */
#include <linux/errno.h>
#include "memreg.h"

long memreg_heap_ioctl(struct memreg_file *mf, void __user *uarg)
{
	return -ENOTTY;
}

void memreg_heap_release_file(struct memreg_file *mf)
{
}
