/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A stand-in for memreg.ko behind lib/core's ioctl hook, for the mstx
 * tool: INFO says the module tracks heaps, MEMREG_IOC_MSTX batches are
 * checked as the module checks them and recorded op by op, and the order
 * of each heap's operations is checked (a region unregistered before it
 * was registered is counted).  REGION_ADD_DEL is recorded as it came and
 * applied as the REGION_ADD and REGION_DEL it stands for.
 */
#ifndef MSTX_FAKE_H
#define MSTX_FAKE_H

#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>

#define FAKE_MAX_OPS	(1u << 20)

struct fake_mstx {
	unsigned long calls;		/* MEMREG_IOC_MSTX calls */
	unsigned long nops;		/* operations recorded */
	struct memreg_mstx_op *ops;	/* every operation applied, in order */
	char domains[64][64];		/* HEAP_ADD's domain name, by op index % 64 */
	unsigned long early_dels;	/* REGION_DEL before its REGION_ADD */
	unsigned long live;		/* regions live, all heaps */
	unsigned long add_dels;		/* REGION_ADD_DEL operations */
	/* the next MSTX call stops at operation @fail_at with @fail_errno */
	int fail_errno;
	uint32_t fail_at;
};

extern struct fake_mstx fake;

/* Install the fake as lib/core's ioctl; /dev/null stands for the device. */
void fake_setup(void);
/* Forget what was recorded (the hook stays). */
void fake_reset(void);
/* Copy of operation @i under the fake's lock. */
struct memreg_mstx_op fake_op(unsigned long i);
unsigned long fake_nops(void);
unsigned long fake_calls(void);

/* lib/mstx's own counters (stats.c). */
uint64_t tool_refused(void);
uint64_t tool_handles_written(void);
unsigned int tool_buf_ops(void);

#endif /* MSTX_FAKE_H */
