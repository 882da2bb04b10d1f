/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memreg - mstx heap and region tracking: MEMREG_IOC_MSTX (ioctl numbers
 * 0x10-0x17 of MEMREG_IOC_MAGIC) and the attributes inside MEMREG_A_HEAP.
 * Included by linux/memreg.h; not meant to be included on its own.
 *
 * A process reports the memory pools of its allocators (mstx heaps) and
 * the blocks it hands out of them (regions).  The module keeps, per open
 * file, every live heap and region, and counts what breaks the rules:
 *
 *   out of heap   a region that is not inside the heap it was reported in,
 *                 or is in no heap at all (heap id 0).  It is still
 *                 tracked, as a region "outside every heap".
 *   unknown       an unregister of a region that is not registered.
 *   dropped       live regions that went with their heap's unregister.
 *   duplicate     a region registered again at the address of a live one
 *                 of the same heap (the second one is ignored).
 *   refused       a heap or region the per-process limits left out.
 *
 * One MEMREG_IOC_MSTX carries a batch of operations, applied in order.
 * Rule violations are not errors: they are counted, shown by
 * MEMREG_CMD_HEAP_GET and announced by MEMREG_CMD_EVENT_HEAP.  An
 * operation that cannot be carried out stops the batch: the call fails
 * with the errno below and @done is the index of that operation (the ones
 * before it took effect, the ones after it did not).
 *   EINVAL   unknown op, nonzero reserved field or flag, heap id 0 in a
 *            heap operation, HEAP_ADD with len 0 or addr+len overflow,
 *            @count above MEMREG_MSTX_BATCH_MAX, @op_size too small
 *   EEXIST   HEAP_ADD of a heap id that is live
 *   ENOENT   HEAP_DEL or a region operation naming a heap id that is not
 *            live (never added, removed, or refused)
 *   EMFILE   HEAP_ADD past the heap limit (module parameter
 *            mstx_max_heaps, default 1024 per process, all its files
 *            together)
 *   ENOSPC   REGION_ADD past the region limit (mstx_max_regions, default
 *            262144 per process, regions outside every heap included)
 *   EFAULT   @ops or a domain name could not be read
 * Everything a file reported goes when the file is closed (process exit).
 */
#ifndef _UAPI_LINUX_MEMREG_MSTX_H
#define _UAPI_LINUX_MEMREG_MSTX_H

enum memreg_mstx_opcode {
	MEMREG_MSTX_HEAP_ADD	= 1,	/* heap, addr, len, device, domain */
	MEMREG_MSTX_HEAP_DEL	= 2,	/* heap; its live regions are dropped */
	MEMREG_MSTX_REGION_ADD	= 3,	/* heap (0: none found), addr, len */
	MEMREG_MSTX_REGION_DEL	= 4,	/* heap (0: none found), addr */
	MEMREG_MSTX_REGION_ADD_DEL = 5,	/* heap, addr, len: see below */
};

/*
 * MEMREG_MSTX_REGION_ADD_DEL stands for a REGION_ADD immediately followed
 * by a REGION_DEL of the same address, for a region that lived only
 * between two flushes of the caller's buffer.  The module ends in the
 * state, with the counts and the peaks, that the two operations would
 * have left: a region that was not registered raises the peaks and is not
 * stored; a duplicate, a region outside its heap or in no heap is counted
 * as for REGION_ADD, and the DEL part then takes out what it finds.  A
 * refusal for the region limit is counted (REFUSED) but does not stop the
 * batch, so that the DEL part still applies.  Modules that do not know
 * the operation fail it with EINVAL; one that knows it fails it with
 * ENOENT for a heap id that is not live, which a caller can use as a
 * probe.
 */

/* Bytes of a domain name the module keeps (NUL included); longer ones are cut. */
#define MEMREG_MSTX_DOMAIN_LEN	64

/* Most operations in one MEMREG_IOC_MSTX call. */
#define MEMREG_MSTX_BATCH_MAX	4096

/**
 * struct memreg_mstx_op - one operation of a batch
 * @op: enum memreg_mstx_opcode
 * @flags: must be 0
 * @heap: the caller's id for the heap, unique among its live heaps; for
 *	region operations the heap the region was found in by address, or 0
 *	when it is in none
 * @addr: HEAP_ADD: start of the heap; REGION_*: start of the region
 * @len: HEAP_ADD, REGION_ADD, REGION_ADD_DEL: length in bytes; REGION_DEL:
 *	ignored
 * @device: HEAP_ADD: the device id the range belongs to
 * @reserved: must be 0
 * @domain: HEAP_ADD: user pointer to the NUL-terminated domain name, 0 for
 *	the default domain ("default"); read when the batch is applied
 */
struct memreg_mstx_op {
	__u16 op;
	__u16 flags;
	__u32 heap;
	__u64 addr;
	__u64 len;
	__u32 device;
	__u32 reserved;
	__u64 domain;
};
#define MEMREG_MSTX_OP_SIZE_VER0	40

/**
 * struct memreg_mstx - MEMREG_IOC_MSTX: apply a batch of operations
 * @size: in: sizeof(struct memreg_mstx)
 * @flags: in: must be 0
 * @ops: in: user pointer to @count operations, @op_size bytes apart
 * @count: in: operations in the batch, at most MEMREG_MSTX_BATCH_MAX
 * @op_size: in: sizeof(struct memreg_mstx_op) as the caller knows it, from
 *	MEMREG_MSTX_OP_SIZE_VER0 to a page; bytes beyond what the module
 *	knows must be zero
 * @done: out: operations applied (all of them on success; on failure the
 *	index of the one that failed)
 * @reserved0, @reserved: must be 0
 */
struct memreg_mstx {
	__u32 size;
	__u32 flags;
	__u64 ops;
	__u32 count;
	__u32 op_size;
	__u32 done;
	__u32 reserved0;
	__u64 reserved[2];
};
#define MEMREG_MSTX_SIZE_VER0	48

#define MEMREG_IOC_MSTX		_IOWR(MEMREG_IOC_MAGIC, 0x10, struct memreg_mstx)

/*
 * MEMREG_CMD_HEAP_GET (dump; filter: MEMREG_A_PID): one message per heap,
 * with PID, COMM, UID and a MEMREG_A_HEAP nest of the attributes below.
 * A file with regions outside every heap, or with violations that belong
 * to no heap, also gets a message for heap id 0 ("outside every heap":
 * no DOMAIN, DEVICE, ADDR, SIZE, UTIL).  A heap's message lives as long
 * as the heap, so the regions dropped by unregistering heaps are counted
 * in the heap 0 message (DROPPED).  ADDR is sent only to the owner's
 * uid and to CAP_SYS_ADMIN, as for registrations.
 *
 * MEMREG_CMD_EVENT_HEAP (multicast group "events"): PID, COMM, UID and a
 * MEMREG_A_HEAP nest {EVENT, ID, DOMAIN, DEVICE, SIZE, COUNT, BYTES}; never
 * an address.  Violations are announced once per kind, heap and batch, with
 * COUNT of them and BYTES they cover (0 where the size is not known).
 */
enum memreg_heap_attr {
	MEMREG_HEAP_A_UNSPEC,
	MEMREG_HEAP_A_PAD,
	MEMREG_HEAP_A_ID,		/* u32: the process's heap id; 0: none */
	MEMREG_HEAP_A_DOMAIN,		/* string */
	MEMREG_HEAP_A_DEVICE,		/* u32 */
	MEMREG_HEAP_A_ADDR,		/* u64 */
	MEMREG_HEAP_A_SIZE,		/* u64: bytes of the heap */
	MEMREG_HEAP_A_REGIONS,		/* u64: live regions */
	MEMREG_HEAP_A_REGION_BYTES,	/* u64: bytes in live regions */
	MEMREG_HEAP_A_PEAK_REGIONS,	/* u64 */
	MEMREG_HEAP_A_PEAK_BYTES,	/* u64 */
	MEMREG_HEAP_A_UTIL,		/* u32: REGION_BYTES / SIZE, in 1/10000 */
	MEMREG_HEAP_A_OUT_OF_HEAP,	/* u64: regions not inside the heap */
	MEMREG_HEAP_A_UNKNOWN,		/* u64: unregisters of unknown regions */
	MEMREG_HEAP_A_DROPPED,		/* u64: heap 0: regions dropped by HEAP_DEL */
	MEMREG_HEAP_A_DUPLICATE,	/* u64: duplicate registrations */
	MEMREG_HEAP_A_REFUSED,		/* u64: heaps and regions over a limit */
	MEMREG_HEAP_A_AGE_MS,		/* u64: since HEAP_ADD */
	MEMREG_HEAP_A_EVENT,		/* u32: enum memreg_heap_event */
	MEMREG_HEAP_A_COUNT,		/* u64: events: how many */
	MEMREG_HEAP_A_BYTES,		/* u64: events: bytes they cover */

	__MEMREG_HEAP_A_MAX,
	MEMREG_HEAP_A_MAX = __MEMREG_HEAP_A_MAX - 1
};

/* What a MEMREG_CMD_EVENT_HEAP tells (MEMREG_HEAP_A_EVENT). */
enum memreg_heap_event {
	MEMREG_HEAP_EV_ADDED		= 1,	/* a heap was registered */
	MEMREG_HEAP_EV_REMOVED		= 2,	/* a heap was unregistered */
	MEMREG_HEAP_EV_OUT_OF_HEAP	= 3,	/* regions not inside the heap */
	MEMREG_HEAP_EV_UNKNOWN		= 4,	/* unregisters of unknown regions */
	MEMREG_HEAP_EV_DROPPED		= 5,	/* live regions went with the heap */
	MEMREG_HEAP_EV_DUPLICATE	= 6,	/* duplicate registrations */
	MEMREG_HEAP_EV_REFUSED		= 7,	/* over a limit */
};

#endif /* _UAPI_LINUX_MEMREG_MSTX_H */
