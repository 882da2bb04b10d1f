/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memreg - mstx heap and region tracking: MEMREG_IOC_MSTX (ioctl numbers
 * 0x10-0x17 of MEMREG_IOC_MAGIC) and the attributes inside MEMREG_A_HEAP.
 * Included by linux/memreg.h; not meant to be included on its own.
 */
#ifndef _UAPI_LINUX_MEMREG_MSTX_H
#define _UAPI_LINUX_MEMREG_MSTX_H

/* Placeholder until the mstx work defines it. */
#define MEMREG_IOC_MSTX		_IOWR(MEMREG_IOC_MAGIC, 0x10, __u64)

#endif /* _UAPI_LINUX_MEMREG_MSTX_H */
