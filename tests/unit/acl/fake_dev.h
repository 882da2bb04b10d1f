/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for memreg.ko's emulated devices behind lib/core's ioctl
 * hook, for the ACL runtime's host tests.  MEMREG_DEVICE points at a
 * memfd, so the mmap(2) the library makes at a DEV_ALLOC offset maps real
 * shared memory, and copies to and from "device memory" can be checked
 * byte for byte.
 */
#ifndef ACL_FAKE_DEV_H
#define ACL_FAKE_DEV_H

#include <stdint.h>
#include <linux/memreg.h>

#define FAKE_DEVICES	2
#define FAKE_CAPACITY	(64ULL << 20)

struct fake_dev_state {
	uint64_t used[FAKE_DEVICES];
	uint64_t huge[FAKE_DEVICES];
	unsigned long allocs, frees, infos, registers, unregisters;
	struct memreg_dev_alloc last_alloc;	/* as the library sent it */
	uint64_t host_registered;		/* bytes of HOST registrations */
	int no_huge;		/* no 2 MiB-contiguous memory: HUGE_ONLY fails */
	int free_errno;		/* next DEV_FREE fails with it (once) */
	int live;		/* allocations not freed */
};

extern struct fake_dev_state fake_dev;

/* Install the fake (and MEMREG_DEVICE); 0 or -1. */
int fake_dev_setup(void);
void fake_dev_teardown(void);

#endif /* ACL_FAKE_DEV_H */
