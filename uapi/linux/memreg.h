/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memreg - registered host and device memory for accelerator runtimes.
 *
 * The one header both the kernel module and userspace include: ioctl numbers
 * and structs for /dev/memreg, and the generic netlink family "memreg".
 *
 * Extensible structs: every ioctl struct starts with a __u32 size that the
 * caller sets to sizeof() of the struct it was compiled with.  The kernel
 * accepts any size from the first published version of the struct up;
 * bytes beyond what the kernel knows must be zero (else E2BIG), a size
 * below the first version is EINVAL.  Every reserved field and every
 * unknown flag bit must be zero (else EINVAL).
 *
 * Errors of MEMREG_IOC_REGISTER, one errno per reason of refusal:
 *   EMFILE   the process has MEMREG_A_MAX_REGIONS registrations already
 *   EDQUOT   the process's registered host bytes would pass its limit
 *   ENOSPC   the process's registered device bytes would pass its limit
 *   ENOMEM   RLIMIT_MEMLOCK would be exceeded (mm->pinned_vm, VmPin), or
 *            the kernel is out of memory
 *   ENXIO    DEVICE type: the range is not inside one mapping of one live
 *            emulated device allocation (MEMREG_IOC_DEV_ALLOC + mmap)
 *   EFAULT   the range is not (fully) mapped, or (HOST) part of it is a
 *            shared mapping of a regular file (only anonymous, shmem/memfd
 *            and hugetlbfs memory can be pinned for long)
 *   EACCES   the range is mapped but not writable
 *   EINVAL   len 0, addr+len overflow, unknown type/flags, reserved != 0
 *   EPERM    the file was opened by another process (fork, fd passing)
 *   EINTR    a fatal signal arrived while pinning
 *   DMABUF type: EBADF @fd is not open, EINVAL @fd is not a dma-buf,
 *            ERANGE the range is not inside the buffer, ENOSPC the
 *            device byte limit (dma-buf bytes count as device bytes),
 *            ENODEV the exporter revoked the buffer (memreg's own export
 *            of an allocation since freed), or another error of the
 *            exporter's attach
 * Each of those byte limits also holds per cgroup v2 node: a registration
 * or allocation is charged to the calling task's cgroup and every
 * ancestor, and one that would take a node past a limit set on it
 * (MEMREG_CMD_CGROUP_SET) is refused with the same errno as the process's
 * limit of that kind (EDQUOT host, ENOSPC device and dma-buf bytes, ENOSPC
 * device allocations), reason MEMREG_REFUSED_CGROUP.
 * MEMREG_IOC_UNREGISTER: ENOENT for an unknown handle (never made, already
 * unregistered, or made on another file or by another process).
 *
 * Emulated device memory (MEMREG_IOC_DEV_*): the module drives
 * MEMREG_INFO.devices emulated NPUs of MEMREG_INFO.dev_capacity bytes each.
 * DEV_ALLOC reserves driver-owned pages on one of them and returns an mmap
 * offset; mmap(MAP_SHARED) of /dev/memreg at that offset maps them.  The
 * pages are never swapped and go back to the device when the allocation is
 * freed (or its file closed) and its last mapping and registration are gone.
 *   DEV_ALLOC: ENXIO no such device, ENOSPC the device is full (or len is
 *              above 1 TiB), ENOMEM no 2 MiB-contiguous memory for HUGE_ONLY
 *              (or out of memory), EINVAL len 0 or unknown policy/flags,
 *              EINTR a fatal signal while allocating.
 *   DEV_FREE:  ENOENT unknown handle, EBUSY the allocation is registered
 *              (unregister first).
 *   DEV_INFO:  ENXIO no such device.
 */
#ifndef _UAPI_LINUX_MEMREG_H
#define _UAPI_LINUX_MEMREG_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MEMREG_DEVICE_NAME	"memreg"
#define MEMREG_ABI_VERSION	1

/* Feature bits reported by MEMREG_IOC_INFO. */
#define MEMREG_FEATURE_HOST	(1ULL << 0)	/* host registrations */
#define MEMREG_FEATURE_DEVICE	(1ULL << 1)	/* emulated device memory */
#define MEMREG_FEATURE_QUERY	(1ULL << 2)	/* MEMREG_IOC_QUERY */
#define MEMREG_FEATURE_NETLINK	(1ULL << 3)	/* genl family "memreg" */
#define MEMREG_FEATURE_MSTX	(1ULL << 4)	/* MEMREG_IOC_MSTX heap tracking */
#define MEMREG_FEATURE_TRANSFER	(1ULL << 5)	/* grants, imports, TRANSFER */
#define MEMREG_FEATURE_DMABUF	(1ULL << 6)	/* DMABUF type, DEV_EXPORT, IPC_* */
/* charges and limits per cgroup v2 node, MEMREG_IOC_HEADROOM */
#define MEMREG_FEATURE_CGROUP	(1ULL << 7)
/*
 * Incarnations: MEMREG_IOC_INFO reports the caller's, MEMREG_IOC_IMPORT
 * the grantor's, and a transfer through an import whose grantor's context
 * ended (exit, exec, close) fails with EOWNERDEAD, not EKEYREVOKED.
 */
#define MEMREG_FEATURE_INCARNATION (1ULL << 8)
/* MEMREG_IOC_REG_EXPORT: a host registration's pages as a dma-buf */
#define MEMREG_FEATURE_REG_EXPORT (1ULL << 9)

/* Memory types. */
enum memreg_mem_type {
	MEMREG_MEM_HOST		= 0,
	MEMREG_MEM_DEVICE	= 1,
	/*
	 * A range of a dma-buf (any driver's): @fd names it, @addr is the
	 * offset into it.  Charged to the device byte limit.
	 */
	MEMREG_MEM_DMABUF	= 2,
};

/* Access a registration allows to peers holding a grant (later issues). */
#define MEMREG_ACCESS_REMOTE_READ	(1U << 0)
#define MEMREG_ACCESS_REMOTE_WRITE	(1U << 1)
#define MEMREG_ACCESS_ALL	(MEMREG_ACCESS_REMOTE_READ | \
				 MEMREG_ACCESS_REMOTE_WRITE)

/* "No limit" as reported in limits (e.g. RLIMIT_MEMLOCK infinity, CAP_IPC_LOCK). */
#define MEMREG_UNLIMITED	(~0ULL)

/**
 * struct memreg_info - MEMREG_IOC_INFO
 * @size: in: sizeof(struct memreg_info)
 * @abi_version: out: MEMREG_ABI_VERSION of the module
 * @features: out: MEMREG_FEATURE_* bits
 * @page_size: out: PAGE_SIZE
 * @devices: out: number of emulated devices (ids 0 .. devices - 1)
 * @instance_id: out: random id of this kernel instance (same for every
 *	process on this boot, different on another host or boot)
 * @max_regions: out: effective registration limit of the caller's process
 * @max_host_bytes: out: effective host byte limit
 * @max_dev_bytes: out: effective device byte limit
 * @memlock_limit: out: RLIMIT_MEMLOCK in bytes, MEMREG_UNLIMITED if the
 *	caller has CAP_IPC_LOCK or the limit is infinity
 * @regions, @host_bytes, @dev_bytes: out: what the process has registered
 * @dev_capacity: out: bytes of memory each emulated device has
 * @incarnation: out: the caller's context, as the module numbers them
 *	(MEMREG_FEATURE_INCARNATION): never 0 and never reused while the
 *	module is loaded; with @instance_id it names one process's life
 *	(one address space: exec() starts a new one) on one kernel
 * @start_time: out: when the caller's process started, in ns since boot
 *	(CLOCK_BOOTTIME), so a pid reused later is told apart
 */
struct memreg_info {
	__u32 size;
	__u32 abi_version;
	__u64 features;
	__u32 page_size;
	__u32 devices;
	__u8  instance_id[16];
	__u64 max_regions;
	__u64 max_host_bytes;
	__u64 max_dev_bytes;
	__u64 memlock_limit;
	__u64 regions;
	__u64 host_bytes;
	__u64 dev_bytes;
	__u64 dev_capacity;
	__u64 incarnation;
	__u64 start_time;
	__u64 reserved[1];
};
#define MEMREG_INFO_SIZE_VER0	128

/**
 * struct memreg_register - MEMREG_IOC_REGISTER
 * @size: in: sizeof(struct memreg_register)
 * @type: in: enum memreg_mem_type
 * @addr: in: start of the range (any alignment)
 * @len: in: length in bytes, > 0
 * @access: in: MEMREG_ACCESS_* granted to peers (0: none)
 * @flags: in: must be 0
 * @handle: out: handle, valid on this file only; not guessable by others
 * @fd: in: DMABUF type: the dma-buf file descriptor (@addr is then the
 *	offset into the buffer); 0 for the other types
 * @reserved0: must be 0
 */
struct memreg_register {
	__u32 size;
	__u32 type;
	__u64 addr;
	__u64 len;
	__u32 access;
	__u32 flags;
	__u64 handle;
	__s32 fd;
	__u32 reserved0;
	__u64 reserved[3];
};
#define MEMREG_REGISTER_SIZE_VER0	72

/**
 * struct memreg_unregister - MEMREG_IOC_UNREGISTER
 * @size: in: sizeof(struct memreg_unregister)
 * @flags: in: must be 0
 * @handle: in: a handle returned by MEMREG_IOC_REGISTER on this file
 */
struct memreg_unregister {
	__u32 size;
	__u32 flags;
	__u64 handle;
	__u64 reserved[2];
};
#define MEMREG_UNREGISTER_SIZE_VER0	32

/**
 * struct memreg_region - one registration, as MEMREG_IOC_QUERY reports it
 */
struct memreg_region {
	__u64 handle;
	__u64 addr;
	__u64 len;
	__u64 pinned_pages;	/* pages pinned; a huge page counts once */
	__u64 age_ms;		/* since registration */
	__u32 type;		/* enum memreg_mem_type */
	__u32 access;
	__u32 device;		/* DEVICE type: the device id, else 0 */
	__u32 reserved0;
	__u64 reserved1;
};
#define MEMREG_REGION_SIZE_VER0	64

/**
 * struct memreg_query - MEMREG_IOC_QUERY: the calling process's registrations
 * @size: in: sizeof(struct memreg_query)
 * @flags: in: must be 0
 * @cursor: in/out: 0 to start; the kernel stores where to resume (a
 *	position in the process's table, after the last entry written;
 *	unchanged when none was written).
 *	Entries made or removed between calls neither repeat nor hide the
 *	others.  Call until @count comes back 0: that is the end.
 * @regions: in: user pointer to an array of struct memreg_region
 * @count: in: room in @regions (entries); out: entries written
 * @entry_size: in: sizeof(struct memreg_region) as the caller knows it, from
 *	MEMREG_REGION_SIZE_VER0 to a page; the kernel writes what it knows
 *	of each entry and zeroes the rest
 * @total: out: registrations the process has now
 */
struct memreg_query {
	__u32 size;
	__u32 flags;
	__u64 cursor;
	__u64 regions;
	__u32 count;
	__u32 entry_size;
	__u64 total;
	__u64 reserved[2];
};
#define MEMREG_QUERY_SIZE_VER0	56

/*
 * aclrtMemMallocPolicy's base values.  HUGE_FIRST: 2 MiB chunks where the
 * memory is contiguous, else 4 KiB pages; a request of at most
 * MEMREG_DEV_HUGE_MIN bytes always gets 4 KiB pages.  HUGE_ONLY: 2 MiB
 * chunks or ENOMEM.  NORMAL_ONLY: 4 KiB pages.
 */
enum memreg_dev_policy {
	MEMREG_DEV_HUGE_FIRST	= 0,
	MEMREG_DEV_HUGE_ONLY	= 1,
	MEMREG_DEV_NORMAL_ONLY	= 2,
};
#define MEMREG_DEV_HUGE_SIZE	(2ULL << 20)
#define MEMREG_DEV_HUGE_MIN	(1ULL << 20)

/**
 * struct memreg_dev_alloc - MEMREG_IOC_DEV_ALLOC
 * @size: in: sizeof(struct memreg_dev_alloc)
 * @device: in: device id
 * @policy: in: enum memreg_dev_policy
 * @flags: in: must be 0
 * @len: in: bytes wanted, > 0
 * @handle: out: the allocation, for MEMREG_IOC_DEV_FREE on this file
 * @mmap_offset: out: offset to mmap(MAP_SHARED) /dev/memreg at; the whole
 *	allocation or any page-aligned part of it may be mapped
 * @alloc_len: out: bytes taken from the device (len rounded up to pages,
 *	or to 2 MiB chunks when @huge)
 * @huge: out: 1 if the memory is 2 MiB-contiguous chunks, 0 if 4 KiB pages
 */
struct memreg_dev_alloc {
	__u32 size;
	__u32 device;
	__u32 policy;
	__u32 flags;
	__u64 len;
	__u64 handle;
	__u64 mmap_offset;
	__u64 alloc_len;
	__u32 huge;
	__u32 reserved0;
	__u64 reserved[2];
};
#define MEMREG_DEV_ALLOC_SIZE_VER0	72

/**
 * struct memreg_dev_free - MEMREG_IOC_DEV_FREE
 * @size: in: sizeof(struct memreg_dev_free)
 * @flags: in: 0, or MEMREG_DEV_FREE_KEEP_EXPORTS
 * @handle: in: a handle from MEMREG_IOC_DEV_ALLOC on this file
 *
 * The handle is gone at once; the pages return to the device when the last
 * mapping of them is unmapped.  Its dma-bufs (DEV_EXPORT) are revoked,
 * unless MEMREG_DEV_FREE_KEEP_EXPORTS: then they stay valid, and the
 * memory (charged to this process) lives until the last of them goes --
 * what CANN's physical memory handles do when the exporter frees first.
 */
#define MEMREG_DEV_FREE_KEEP_EXPORTS	(1U << 0)
struct memreg_dev_free {
	__u32 size;
	__u32 flags;
	__u64 handle;
	__u64 reserved[2];
};
#define MEMREG_DEV_FREE_SIZE_VER0	32

/**
 * struct memreg_dev_info - MEMREG_IOC_DEV_INFO: one device's memory
 * @size: in: sizeof(struct memreg_dev_info)
 * @device: in: device id
 * @capacity: out: bytes the device has
 * @used: out: bytes allocated on it, by every process
 * @huge_bytes, @normal_bytes: out: @used split by page kind
 * @proc_bytes: out: bytes the calling process has allocated on it
 */
struct memreg_dev_info {
	__u32 size;
	__u32 device;
	__u64 capacity;
	__u64 used;
	__u64 huge_bytes;
	__u64 normal_bytes;
	__u64 proc_bytes;
	__u64 reserved[3];
};
#define MEMREG_DEV_INFO_SIZE_VER0	72

/*
 * Single-copy transfers between the registrations of two processes.
 *
 * The owner of a registration GRANTs it (with MEMREG_ACCESS_REMOTE_READ
 * and/or _WRITE, no more than the registration allows) and gets a 128-bit
 * random token, which it hands to a peer by any means (ADXL: its TCP
 * control connection).  The peer IMPORTs the token and gets a remote
 * handle, valid on its file only.  TRANSFER then copies between a
 * registration of the caller and the imported one, from the pages the
 * module already holds: no pinning, no mmap lock, one copy.
 *
 * A token stops working at once when it is REVOKEd, when its registration
 * is unregistered, or when the owner closes the file or exits: IMPORT then
 * says ENOENT and TRANSFER through an earlier import says EKEYREVOKED.
 * A registration stays alive (pinned, charged) until copies in flight on
 * it are done, however it goes.
 *
 * GRANT:    ENOENT unknown handle, EACCES access beyond the registration's,
 *           EINVAL access 0 or unknown bits, EMFILE the registration has
 *           64 live grants already.
 * REVOKE:   ENOENT not a token of this file (or revoked already).
 * IMPORT:   ENOENT unknown or dead token, EMFILE the process holds 65536
 *           imports already.
 * UNIMPORT: ENOENT unknown remote handle.
 * TRANSFER: per descriptor, in order; stops at the first that fails and
 *           returns its error with @done = descriptors completed before it.
 *           ENOENT unknown local or remote handle, EKEYREVOKED the grant is
 *           gone or a dma-buf's exporter revoked it (also mid-copy),
 *           EOPNOTSUPP a DMABUF registration whose exporter gives the
 *           kernel no CPU mapping (no vmap, or I/O memory), ERANGE a range not inside its registration, EACCES the
 *           grant does not allow the op, EINVAL bad op/flags/len 0,
 *           EFAULT bad descriptor array, E2BIG a descriptor's bytes beyond
 *           what the kernel knows are not zero, EINTR a fatal signal.
 */
enum memreg_xfer_op {
	MEMREG_XFER_READ	= 0,	/* remote -> local */
	MEMREG_XFER_WRITE	= 1,	/* local -> remote */
};

/**
 * struct memreg_grant - MEMREG_IOC_GRANT
 * @size: in: sizeof(struct memreg_grant)
 * @access: in: MEMREG_ACCESS_* the peer gets, within the registration's
 * @handle: in: a registration of this file
 * @token: out: the grant's token
 */
struct memreg_grant {
	__u32 size;
	__u32 access;
	__u64 handle;
	__u8  token[16];
	__u64 reserved[2];
};
#define MEMREG_GRANT_SIZE_VER0	48

/**
 * struct memreg_revoke - MEMREG_IOC_REVOKE
 * @size: in: sizeof(struct memreg_revoke)
 * @flags: in: must be 0
 * @token: in: a token this file granted
 */
struct memreg_revoke {
	__u32 size;
	__u32 flags;
	__u8  token[16];
	__u64 reserved[2];
};
#define MEMREG_REVOKE_SIZE_VER0	40

/**
 * struct memreg_import - MEMREG_IOC_IMPORT
 * @size: in: sizeof(struct memreg_import)
 * @flags: in: must be 0
 * @token: in: a peer's token
 * @handle: out: remote handle for MEMREG_IOC_TRANSFER on this file
 * @addr, @len: out: the granted registration's range (in the owner's
 *	address space: the addresses TRANSFER descriptors name)
 * @type: out: its enum memreg_mem_type
 * @access: out: MEMREG_ACCESS_* the grant allows
 * @device: out: DEVICE type: the device id
 * @pid: out: the owner's pid (in the caller's pid namespace, 0 if not
 *	visible there)
 * @incarnation: out: the owner's context (struct memreg_info's
 *	@incarnation, MEMREG_FEATURE_INCARNATION)
 */
struct memreg_import {
	__u32 size;
	__u32 flags;
	__u8  token[16];
	__u64 handle;
	__u64 addr;
	__u64 len;
	__u32 type;
	__u32 access;
	__u32 device;
	__u32 pid;
	__u64 incarnation;
	__u64 reserved[1];
};
#define MEMREG_IMPORT_SIZE_VER0	80

/**
 * struct memreg_unimport - MEMREG_IOC_UNIMPORT
 * @size: in: sizeof(struct memreg_unimport)
 * @flags: in: must be 0
 * @handle: in: a remote handle from MEMREG_IOC_IMPORT on this file
 */
struct memreg_unimport {
	__u32 size;
	__u32 flags;
	__u64 handle;
	__u64 reserved[2];
};
#define MEMREG_UNIMPORT_SIZE_VER0	32

/**
 * struct memreg_xfer_desc - one copy of a MEMREG_IOC_TRANSFER batch
 * @op: enum memreg_xfer_op
 * @flags: must be 0
 * @local_handle: a registration of the caller's file holding
 *	[@local_addr, @local_addr + @len)
 * @remote_handle: an import holding [@remote_addr, @remote_addr + @len)
 * @len: bytes, > 0
 */
struct memreg_xfer_desc {
	__u32 op;
	__u32 flags;
	__u64 local_handle;
	__u64 local_addr;
	__u64 remote_handle;
	__u64 remote_addr;
	__u64 len;
};
#define MEMREG_XFER_DESC_SIZE_VER0	48

/**
 * struct memreg_transfer - MEMREG_IOC_TRANSFER
 * @size: in: sizeof(struct memreg_transfer)
 * @flags: in: must be 0
 * @descs: in: user pointer to @count descriptors
 * @count: in: descriptors, 1 .. MEMREG_XFER_MAX_DESCS
 * @desc_size: in: sizeof(struct memreg_xfer_desc) as the caller knows it
 *	(from MEMREG_XFER_DESC_SIZE_VER0 to a page; bytes beyond what the
 *	kernel knows must be zero)
 * @done: out: descriptors completed (all of them on success)
 * @bytes: out: bytes copied
 */
struct memreg_transfer {
	__u32 size;
	__u32 flags;
	__u64 descs;
	__u32 count;
	__u32 desc_size;
	__u32 done;
	__u32 reserved0;
	__u64 bytes;
	__u64 reserved[2];
};
#define MEMREG_TRANSFER_SIZE_VER0	56
#define MEMREG_XFER_MAX_DESCS	65536

/*
 * dma-buf export and named sharing (MEMREG_FEATURE_DMABUF).
 *
 * DEV_EXPORT makes a dma-buf of part of a device allocation: any process
 * or driver holding its fd can mmap it, or attach and map it for DMA, and
 * memreg itself registers it as a DMABUF range.  Freeing the allocation
 * (DEV_FREE, close, exit) revokes the export: importers' DMABUF
 * registrations are told (move_notify) and refuse copies (EKEYREVOKED),
 * mmaps of it fault (SIGBUS); the pages go back to the device when the
 * last attachment and reference are gone.
 *   DEV_EXPORT: ENOENT unknown handle, EINVAL offset not page-aligned or
 *               len 0, ERANGE the range is not inside the allocation,
 *               EMFILE no free fd.
 *
 * IPC_* give a dma-buf a name (a 16-byte token) that a process named by
 * the exporter (or any process, MEMREG_IPC_ANY_PID) turns into an fd of
 * its own: what CANN's aclrtIpcMem* calls are built on.
 *   IPC_EXPORT: EBADF/EINVAL @fd is not an open dma-buf, EMFILE too many
 *               names (module parameter max_ipc_names a process), or the
 *               user holds max_user_files dma-buf files through memreg
 *               (names and DMABUF registrations).
 *   IPC_ALLOW:  ENOENT no such name of this file, ESRCH a pid that does
 *               not exist, E2BIG more than MEMREG_IPC_MAX_PIDS distinct
 *               pids on the name, or max_ipc_pids on all of the
 *               process's names.
 *   IPC_IMPORT: ENOENT no such name (or closed); EPERM the caller is not
 *               one of the pids allowed and of the exporter's user (to
 *               another user it is ENOENT: a guess learns nothing);
 *               EAGAIN the user's failed imports are rationed
 *               (module parameter ipc_import_fail_rate a second) and
 *               its budget is spent; EMFILE no free fd.
 *   IPC_CLOSE:  ENOENT no such name of this file.
 */
#define MEMREG_EXPORT_CLOEXEC	(1U << 0)	/* the new fd is O_CLOEXEC */

/**
 * struct memreg_dev_export - MEMREG_IOC_DEV_EXPORT
 * @size: in: sizeof(struct memreg_dev_export)
 * @flags: in: MEMREG_EXPORT_CLOEXEC
 * @handle: in: a device allocation of this file
 * @offset: in: where the dma-buf starts in it, page-aligned
 * @len: in: bytes, > 0; the dma-buf is @len rounded up to pages
 * @fd: out: the dma-buf
 * @reserved0: must be 0
 */
struct memreg_dev_export {
	__u32 size;
	__u32 flags;
	__u64 handle;
	__u64 offset;
	__u64 len;
	__s32 fd;
	__u32 reserved0;
	__u64 reserved[2];
};
#define MEMREG_DEV_EXPORT_SIZE_VER0	56

/*
 * REG_EXPORT makes a dma-buf of whole pages of a host registration: the
 * pages the registration pinned, with no second pin and no second charge
 * to the process.  Whoever holds the fd may mmap it, register it as a
 * DMABUF range and copy through it, or attach to it.  Unregistering the
 * registration (or close, exit, exec) revokes its dma-bufs, as DEV_FREE
 * revokes a device allocation's; the pages stay pinned until the last
 * reference to the dma-buf is gone.  Each export is also charged to the
 * exporter's user, against its RLIMIT_MEMLOCK, until then: what a user's
 * exports may leave pinned after its processes are gone.
 *   REG_EXPORT: ENOENT unknown handle (or unregistered meanwhile),
 *               EOPNOTSUPP not a HOST registration, EACCES its access is
 *               not MEMREG_ACCESS_ALL (the fd gives read and write),
 *               EINVAL offset not page-aligned or len 0, ERANGE the range
 *               is not inside the registration's pages, ENOMEM the user's
 *               exports would pass RLIMIT_MEMLOCK (without CAP_IPC_LOCK),
 *               EMFILE no free fd.
 */

/**
 * struct memreg_reg_export - MEMREG_IOC_REG_EXPORT
 * @size: in: sizeof(struct memreg_reg_export)
 * @flags: in: MEMREG_EXPORT_CLOEXEC
 * @handle: in: a host registration of this file
 * @offset: in: where the dma-buf starts, from the registration's first
 *	page (its address rounded down to a page), page-aligned
 * @len: in: bytes, > 0; the dma-buf is @len rounded up to pages
 * @fd: out: the dma-buf
 * @reserved0: must be 0
 */
struct memreg_reg_export {
	__u32 size;
	__u32 flags;
	__u64 handle;
	__u64 offset;
	__u64 len;
	__s32 fd;
	__u32 reserved0;
	__u64 reserved[2];
};
#define MEMREG_REG_EXPORT_SIZE_VER0	56

#define MEMREG_IPC_ANY_PID	(1U << 0)	/* no pid check on import */
/*
 * A token whose last 8 bytes are zero, for APIs whose handle is 64 bits
 * (CANN's shareable handles): 32 bits of id and 32 random.  Guessing it is
 * easier; the pid list still decides who may import.
 */
#define MEMREG_IPC_SHORT_TOKEN	(1U << 1)
/* Names a file may have: the module's max_ipc_names a process applies. */
#define MEMREG_IPC_MAX_NAMES	4096
/* Distinct pids a name may allow. */
#define MEMREG_IPC_MAX_PIDS	1024

/**
 * struct memreg_ipc_export - MEMREG_IOC_IPC_EXPORT
 * @size: in: sizeof(struct memreg_ipc_export)
 * @flags: in: MEMREG_IPC_ANY_PID, MEMREG_IPC_SHORT_TOKEN
 * @fd: in: a dma-buf (memreg's own export or any other driver's)
 * @reserved0: must be 0
 * @token: out: the name, valid until IPC_CLOSE or the file's close
 */
struct memreg_ipc_export {
	__u32 size;
	__u32 flags;
	__s32 fd;
	__u32 reserved0;
	__u8  token[16];
	__u64 reserved[2];
};
#define MEMREG_IPC_EXPORT_SIZE_VER0	48

/**
 * struct memreg_ipc_allow - MEMREG_IOC_IPC_ALLOW: pids that may import
 * @size: in: sizeof(struct memreg_ipc_allow)
 * @count: in: pids in @pids, 1 .. MEMREG_IPC_MAX_PIDS
 * @token: in: a name this file made
 * @pids: in: user pointer to @count __s32 process ids (thread-group
 *	ids in the caller's pid namespace); added to those already allowed
 */
struct memreg_ipc_allow {
	__u32 size;
	__u32 count;
	__u8  token[16];
	__u64 pids;
	__u64 reserved[2];
};
#define MEMREG_IPC_ALLOW_SIZE_VER0	48

/**
 * struct memreg_ipc_import - MEMREG_IOC_IPC_IMPORT
 * @size: in: sizeof(struct memreg_ipc_import)
 * @flags: in: MEMREG_EXPORT_CLOEXEC
 * @token: in: a name another process made
 * @fd: out: a new fd of the dma-buf
 * @reserved0: must be 0
 * @len: out: its size in bytes
 */
struct memreg_ipc_import {
	__u32 size;
	__u32 flags;
	__u8  token[16];
	__s32 fd;
	__u32 reserved0;
	__u64 len;
	__u64 reserved[2];
};
#define MEMREG_IPC_IMPORT_SIZE_VER0	56

/**
 * struct memreg_ipc_close - MEMREG_IOC_IPC_CLOSE: forget a name
 * @size: in: sizeof(struct memreg_ipc_close)
 * @flags: in: must be 0
 * @token: in: a name this file made
 *
 * Imports made before stay valid: each holds the dma-buf itself.
 */
struct memreg_ipc_close {
	__u32 size;
	__u32 flags;
	__u8  token[16];
	__u64 reserved[2];
};
#define MEMREG_IPC_CLOSE_SIZE_VER0	40

/*
 * What may still be registered or allocated, per kind of memory: the
 * rows of struct memreg_headroom, and the limits per cgroup.  The first
 * three are registrations of that enum memreg_mem_type; DEV_ALLOC is
 * device memory allocated (MEMREG_IOC_DEV_ALLOC).
 */
enum memreg_room_kind {
	MEMREG_ROOM_HOST	= 0,
	MEMREG_ROOM_DEVICE	= 1,
	MEMREG_ROOM_DMABUF	= 2,
	MEMREG_ROOM_DEV_ALLOC	= 3,
	MEMREG_ROOM_KINDS
};

/* Which limit leaves the least room (struct memreg_room.by). */
enum memreg_room_by {
	MEMREG_ROOM_BY_NONE	= 0,	/* nothing limits it */
	MEMREG_ROOM_BY_PROCESS	= 1,	/* the process's limit */
	MEMREG_ROOM_BY_CGROUP	= 2,	/* a cgroup's limit: @cgroup_id */
	MEMREG_ROOM_BY_MEMLOCK	= 3,	/* RLIMIT_MEMLOCK (mm->pinned_vm) */
	MEMREG_ROOM_BY_USER	= 4,	/* max_user_dev_bytes of the user */
	MEMREG_ROOM_BY_DEVICE	= 5,	/* the device's free capacity */
	MEMREG_ROOM_BY_RAM	= 6,	/* MemAvailable above dev_ram_reserve */
};

/**
 * struct memreg_room - one kind of memory's headroom
 * @bytes: bytes that may still be registered (allocated), the least
 *	that any limit leaves; MEMREG_UNLIMITED if nothing limits it
 * @limit: the limit that leaves the least (enum memreg_room_by @by)
 * @used: what is charged against that limit now (who holds the rest:
 *	the process, the cgroup and its descendants, the mm, the user,
 *	every process on the device; for RAM, the reserve)
 * @cgroup_id: with MEMREG_ROOM_BY_CGROUP, the cgroup (its id: the inode
 *	number of its directory); else 0
 * @by: enum memreg_room_by
 */
struct memreg_room {
	__u64 bytes;
	__u64 limit;
	__u64 used;
	__u64 cgroup_id;
	__u32 by;
	__u32 reserved0;
};

/**
 * struct memreg_headroom - MEMREG_IOC_HEADROOM: what the caller may still
 * register and allocate, each kind the least of what its limits leave:
 * the process's, every ancestor cgroup's (limit minus charge), and for
 * host memory RLIMIT_MEMLOCK, for device allocations the user's, the
 * device's free capacity and the RAM reserve.
 * @size: in: sizeof(struct memreg_headroom)
 * @device: in: the device of the DEV_ALLOC row (ENXIO if none)
 * @flags: in: 0
 * @cgroup_id: out: the caller's cgroup v2 node (0: no cgroups)
 * @dev_total: out: the most the caller's cgroup may hold on @device:
 *	its capacity, or less if a cgroup of the chain has a lower device
 *	limit (what aclrtGetMemInfo calls total)
 * @regions: out: registrations the process may still make
 * @room: out: by enum memreg_room_kind
 */
struct memreg_headroom {
	__u32 size;
	__u32 device;
	__u32 flags;
	__u32 reserved0;
	__u64 cgroup_id;
	__u64 dev_total;
	__u64 regions;
	struct memreg_room room[MEMREG_ROOM_KINDS];
	__u64 reserved[2];
};
#define MEMREG_HEADROOM_SIZE_VER0	216

#define MEMREG_IOC_MAGIC	0xB5
#define MEMREG_IOC_INFO		_IOWR(MEMREG_IOC_MAGIC, 0x00, struct memreg_info)
#define MEMREG_IOC_REGISTER	_IOWR(MEMREG_IOC_MAGIC, 0x01, struct memreg_register)
#define MEMREG_IOC_UNREGISTER	_IOWR(MEMREG_IOC_MAGIC, 0x02, struct memreg_unregister)
#define MEMREG_IOC_QUERY	_IOWR(MEMREG_IOC_MAGIC, 0x03, struct memreg_query)
#define MEMREG_IOC_DEV_ALLOC	_IOWR(MEMREG_IOC_MAGIC, 0x04, struct memreg_dev_alloc)
#define MEMREG_IOC_DEV_FREE	_IOWR(MEMREG_IOC_MAGIC, 0x05, struct memreg_dev_free)
#define MEMREG_IOC_DEV_INFO	_IOWR(MEMREG_IOC_MAGIC, 0x06, struct memreg_dev_info)
#define MEMREG_IOC_GRANT	_IOWR(MEMREG_IOC_MAGIC, 0x08, struct memreg_grant)
#define MEMREG_IOC_REVOKE	_IOWR(MEMREG_IOC_MAGIC, 0x09, struct memreg_revoke)
#define MEMREG_IOC_IMPORT	_IOWR(MEMREG_IOC_MAGIC, 0x0a, struct memreg_import)
#define MEMREG_IOC_UNIMPORT	_IOWR(MEMREG_IOC_MAGIC, 0x0b, struct memreg_unimport)
#define MEMREG_IOC_TRANSFER	_IOWR(MEMREG_IOC_MAGIC, 0x0c, struct memreg_transfer)
#define MEMREG_IOC_DEV_EXPORT	_IOWR(MEMREG_IOC_MAGIC, 0x0d, struct memreg_dev_export)
#define MEMREG_IOC_IPC_EXPORT	_IOWR(MEMREG_IOC_MAGIC, 0x0e, struct memreg_ipc_export)
#define MEMREG_IOC_IPC_ALLOW	_IOWR(MEMREG_IOC_MAGIC, 0x0f, struct memreg_ipc_allow)
/* 0x10-0x17: mstx (linux/memreg_mstx.h) */
#define MEMREG_IOC_IPC_IMPORT	_IOWR(MEMREG_IOC_MAGIC, 0x18, struct memreg_ipc_import)
#define MEMREG_IOC_IPC_CLOSE	_IOWR(MEMREG_IOC_MAGIC, 0x19, struct memreg_ipc_close)
#define MEMREG_IOC_HEADROOM	_IOWR(MEMREG_IOC_MAGIC, 0x1a, struct memreg_headroom)
#define MEMREG_IOC_REG_EXPORT	_IOWR(MEMREG_IOC_MAGIC, 0x1b, struct memreg_reg_export)

/*
 * Generic netlink family "memreg", version MEMREG_GENL_VERSION.
 *
 * Commands:
 *   MEMREG_CMD_GET_STATS   doit: totals (PROCS, REGIONS, HOST_BYTES,
 *                          DEV_BYTES, REFUSED_*) and the global defaults.
 *   MEMREG_CMD_PROC_GET    dump: one message per process (PID, COMM, UID,
 *                          counts, bytes, peaks, limits).  Filter: PID.
 *   MEMREG_CMD_REGION_GET  dump: one message per registration (PID, ID,
 *                          HANDLE, TYPE, ADDR, LEN, PINNED_PAGES, AGE_MS,
 *                          ACCESS).  ID is the low 32 bits of the handle;
 *                          the high 32 bits are the secret part.
 *                          Filter: PID.  ADDR and HANDLE of another uid's
 *                          process are sent only to CAP_SYS_ADMIN.
 *   MEMREG_CMD_SET_LIMITS  doit, CAP_NET_ADMIN (GENL_ADMIN_PERM): with PID,
 *                          that process's limits (ESRCH if it has no
 *                          memreg context); without, the global defaults.
 *                          Any of MAX_REGIONS, MAX_HOST_BYTES, MAX_DEV_BYTES.
 *   MEMREG_CMD_DEV_GET     dump: one message per emulated device (DEVICE,
 *                          CAPACITY, USED_BYTES, HUGE_BYTES, NORMAL_BYTES,
 *                          and one DEV_USAGE nest {PID, COMM,
 *                          DEV_ALLOC_BYTES} per process using it).
 *                          Filter: DEVICE.  The process dump carries one
 *                          DEV_USAGE nest {DEVICE, DEV_ALLOC_BYTES} per
 *                          device the process uses; the region dump carries
 *                          DEVICE for DEVICE registrations, and EXPORTER,
 *                          DMABUF_SIZE, DMABUF_INO, REVOKED and
 *                          NO_CPU_ACCESS for DMABUF ones (ADDR is then the
 *                          offset into the dma-buf).
 *   MEMREG_CMD_HEAP_GET    dump: mstx heaps, see linux/memreg_mstx.h.
 *   MEMREG_CMD_CGROUP_GET  dump: one message per cgroup memreg keeps
 *                          counters of (CGROUP_ID, CGROUP, charges
 *                          HOST_BYTES, DEV_BYTES, DMABUF_BYTES,
 *                          DEV_ALLOC_BYTES of the node and its
 *                          descendants, limits MAX_HOST_BYTES,
 *                          MAX_DEV_BYTES, MAX_DMABUF_BYTES when set,
 *                          REFUSED_CGROUP).  Filter: CGROUP_DIR.
 *   MEMREG_CMD_CGROUP_SET  doit: limits of one cgroup (CGROUP_DIR, any of
 *                          MAX_HOST_BYTES, MAX_DEV_BYTES, MAX_DMABUF_BYTES;
 *                          MEMREG_UNLIMITED removes one).  CAP_NET_ADMIN,
 *                          or who may write the cgroup's parent directory.
 *   MEMREG_CMD_HEADROOM_GET doit: one process's headroom (PID) or one
 *                          cgroup's (CGROUP_DIR), optionally for DEVICE:
 *                          one ROOM nest {ROOM_KIND, ROOM_BYTES, ROOM_BY,
 *                          ROOM_LIMIT, ROOM_USED, CGROUP_ID, CGROUP} per
 *                          kind, and CGROUP_ID, CGROUP, CAPACITY (the
 *                          cgroup's device total).
 * CGROUP_DIR is the cgroup's directory in the sender's file system (a
 * cgroup2 mount); CGROUP is a cgroup's path in the reader's cgroup
 * namespace (events: from the root of the hierarchy).
 * A host registration inside one of the same process that pinned its
 * pages shares them (it pins and charges no byte): the region dump and
 * REG_ADDED carry PARENT, that registration's ID, and PINNED_PAGES 0.
 * Transfers: the region dump carries GRANTS (live grants of the
 * registration) and IMPORTS (live imports of them by peers); the process
 * dump carries IMPORTS (remote handles the process holds), XFER_DESCS,
 * XFER_READ_BYTES and XFER_WRITE_BYTES (what its TRANSFERs moved).
 * Events (multicast group "events", open to every user, so they never
 * carry ADDR or HANDLE): REG_ADDED, REG_REMOVED (PID, COMM, UID, ID, TYPE,
 * LEN; PARENT for a child), LIMIT_REFUSED (PID, COMM, UID, REASON, TYPE, LEN; with reason
 * CGROUP also CGROUP_ID and CGROUP, the node whose limit refused),
 * PROC_GONE (PID, COMM, UID).
 */
#define MEMREG_GENL_NAME	"memreg"
#define MEMREG_GENL_VERSION	1
#define MEMREG_GENL_MCGRP_EVENTS	"events"

enum memreg_cmd {
	MEMREG_CMD_UNSPEC,
	MEMREG_CMD_GET_STATS,
	MEMREG_CMD_PROC_GET,
	MEMREG_CMD_REGION_GET,
	MEMREG_CMD_SET_LIMITS,
	MEMREG_CMD_EVENT_REG_ADDED,
	MEMREG_CMD_EVENT_REG_REMOVED,
	MEMREG_CMD_EVENT_LIMIT_REFUSED,
	MEMREG_CMD_EVENT_PROC_GONE,
	MEMREG_CMD_DEV_GET,
	MEMREG_CMD_HEAP_GET,
	MEMREG_CMD_EVENT_HEAP,		/* see linux/memreg_mstx.h */
	MEMREG_CMD_CGROUP_GET,
	MEMREG_CMD_CGROUP_SET,
	MEMREG_CMD_HEADROOM_GET,

	__MEMREG_CMD_MAX,
	MEMREG_CMD_MAX = __MEMREG_CMD_MAX - 1
};

enum memreg_attr {
	MEMREG_A_UNSPEC,
	MEMREG_A_PAD,
	MEMREG_A_PID,			/* u32 */
	MEMREG_A_COMM,			/* string */
	MEMREG_A_UID,			/* u32 */
	MEMREG_A_PROCS,			/* u64: processes with a context */
	MEMREG_A_REGIONS,		/* u64 */
	MEMREG_A_HOST_BYTES,		/* u64 */
	MEMREG_A_DEV_BYTES,		/* u64 */
	MEMREG_A_PEAK_REGIONS,		/* u64 */
	MEMREG_A_PEAK_HOST_BYTES,	/* u64 */
	MEMREG_A_PEAK_DEV_BYTES,	/* u64 */
	MEMREG_A_MAX_REGIONS,		/* u64 */
	MEMREG_A_MAX_HOST_BYTES,	/* u64 */
	MEMREG_A_MAX_DEV_BYTES,		/* u64 */
	MEMREG_A_HANDLE,		/* u64 */
	MEMREG_A_TYPE,			/* u32: enum memreg_mem_type */
	MEMREG_A_ADDR,			/* u64 */
	MEMREG_A_LEN,			/* u64 */
	MEMREG_A_PINNED_PAGES,		/* u64 */
	MEMREG_A_AGE_MS,		/* u64 */
	MEMREG_A_ACCESS,		/* u32: MEMREG_ACCESS_* */
	MEMREG_A_REFUSED_REGIONS,	/* u64: refusals, count limit */
	MEMREG_A_REFUSED_HOST_BYTES,	/* u64: refusals, host byte limit */
	MEMREG_A_REFUSED_DEV_BYTES,	/* u64: refusals, device byte limit */
	MEMREG_A_REFUSED_MEMLOCK,	/* u64: refusals, RLIMIT_MEMLOCK */
	MEMREG_A_REASON,		/* u32: enum memreg_refusal */
	MEMREG_A_PINNED_BYTES,		/* u64: host bytes pinned */
	MEMREG_A_INSTANCE_ID,		/* binary, 16 bytes */
	MEMREG_A_ID,			/* u32: registration id, not secret */
	MEMREG_A_DEVICES,		/* u32: emulated devices (stats) */
	MEMREG_A_DEVICE,		/* u32: device id */
	MEMREG_A_CAPACITY,		/* u64: device bytes */
	MEMREG_A_USED_BYTES,		/* u64: device bytes allocated */
	MEMREG_A_HUGE_BYTES,		/* u64: of which 2 MiB chunks */
	MEMREG_A_NORMAL_BYTES,		/* u64: of which 4 KiB pages */
	MEMREG_A_DEV_ALLOC_BYTES,	/* u64: a process's allocation */
	MEMREG_A_DEV_USAGE,		/* nest, repeated: see DEV_GET */
	MEMREG_A_HEAP,			/* nest: enum memreg_heap_attr */
	MEMREG_A_GRANTS,		/* u32: live grants */
	MEMREG_A_IMPORTS,		/* u32: live imports */
	MEMREG_A_XFER_DESCS,		/* u64: descriptors transferred */
	MEMREG_A_XFER_READ_BYTES,	/* u64: bytes read from peers */
	MEMREG_A_XFER_WRITE_BYTES,	/* u64: bytes written to peers */
	MEMREG_A_RAM_RESERVE,		/* u64: RAM device allocations leave */
	MEMREG_A_RAM_AVAILABLE,		/* u64: the kernel's MemAvailable */
	MEMREG_A_DMABUF_BYTES,		/* u64: registered dma-buf bytes */
	MEMREG_A_PEAK_DMABUF_BYTES,	/* u64 */
	MEMREG_A_EXPORTER,		/* string: a dma-buf's exporter */
	MEMREG_A_DMABUF_SIZE,		/* u64: the whole dma-buf's bytes */
	MEMREG_A_DMABUF_INO,		/* u64: its inode (debugfs bufinfo) */
	MEMREG_A_REVOKED,		/* flag: the exporter revoked it */
	MEMREG_A_NO_CPU_ACCESS,		/* flag: no vmap: TRANSFER refused */
	MEMREG_A_MAX_IPC_NAMES,		/* u64: IPC names a process may have */
	MEMREG_A_MAX_IPC_PIDS,		/* u64: allow-list entries a process */
	MEMREG_A_MAX_USER_FILES,	/* u64: dma-buf files held for a user */
	MEMREG_A_IPC_IMPORT_FAILED,	/* u64: imports that named nothing */
	MEMREG_A_IPC_IMPORT_THROTTLED,	/* u64: imports refused: rationed */
	MEMREG_A_IPC_NAMES,		/* u64: a process's IPC names */
	MEMREG_A_CGROUP_DIR,		/* string: a cgroup's directory */
	MEMREG_A_CGROUP,		/* string: a cgroup's path */
	MEMREG_A_CGROUP_ID,		/* u64: a cgroup's id */
	MEMREG_A_MAX_DMABUF_BYTES,	/* u64 */
	MEMREG_A_REFUSED_CGROUP,	/* u64: refusals, a cgroup's limit */
	MEMREG_A_CGROUPS,		/* u64: cgroups with counters */
	MEMREG_A_ROOM,			/* nest, repeated: HEADROOM_GET */
	MEMREG_A_ROOM_KIND,		/* u32: enum memreg_room_kind */
	MEMREG_A_ROOM_BYTES,		/* u64 */
	MEMREG_A_ROOM_BY,		/* u32: enum memreg_room_by */
	MEMREG_A_ROOM_LIMIT,		/* u64 */
	MEMREG_A_ROOM_USED,		/* u64 */
	MEMREG_A_INCARNATION,		/* u64: a process's context (INFO's) */
	MEMREG_A_PARENT,		/* u32: id whose pages a region shares */

	__MEMREG_A_MAX,
	MEMREG_A_MAX = __MEMREG_A_MAX - 1
};

/* Why a registration was refused (MEMREG_A_REASON). */
enum memreg_refusal {
	MEMREG_REFUSED_REGIONS		= 1,	/* EMFILE */
	MEMREG_REFUSED_HOST_BYTES	= 2,	/* EDQUOT */
	MEMREG_REFUSED_DEV_BYTES	= 3,	/* ENOSPC */
	MEMREG_REFUSED_MEMLOCK		= 4,	/* ENOMEM */
	MEMREG_REFUSED_CGROUP		= 5,	/* the kind's errno; CGROUP_ID */
};

#include <linux/memreg_mstx.h>

#endif /* _UAPI_LINUX_MEMREG_H */
