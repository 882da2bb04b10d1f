/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmemreg - native C API of memreg: register host and device memory with
 * the memreg kernel module through /dev/memreg.
 *
 * Every function returns 0 on success or a negative enum memreg_err value
 * (-MEMREG_E_*).  On failure errno holds the errno of the system call that
 * failed, untouched by the library's cleanup; where the library itself
 * refused the call, errno is EINVAL (bad argument), EPROTO (the module
 * speaks another ABI) or ENOMEM (allocation failed).
 *
 * All functions are thread-safe: a struct memreg_ctx does not change after
 * memreg_open() returns, so any number of threads may use one context at
 * once.  Only memreg_close() must not race with other calls on the context.
 *
 * Types, memory types (enum memreg_mem_type), access bits (MEMREG_ACCESS_*),
 * feature bits (MEMREG_FEATURE_*) and struct memreg_region come from the
 * kernel's UAPI header <linux/memreg.h>, installed beside this one.
 */
#ifndef MEMREG_MEMREG_H
#define MEMREG_MEMREG_H

#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum memreg_err - why a libmemreg call failed; functions return the
 * negated value.  The values are ABI: new codes are only ever appended.
 */
enum memreg_err {
	MEMREG_OK		= 0,
	MEMREG_E_INVAL		= 1,	/* bad argument (EINVAL) */
	MEMREG_E_NOMODULE	= 2,	/* no /dev/memreg: module not loaded */
	MEMREG_E_PERM		= 3,	/* EPERM/EACCES; context of another process */
	MEMREG_E_FAULT		= 4,	/* range not (fully) mapped (EFAULT) */
	MEMREG_E_ACCESS		= 5,	/* range mapped read-only (EACCES) */
	MEMREG_E_NOENT		= 6,	/* unknown handle (ENOENT) */
	MEMREG_E_LIMIT_REGIONS	= 7,	/* registration count limit (EMFILE) */
	MEMREG_E_LIMIT_HOST	= 8,	/* registered host byte limit (EDQUOT) */
	MEMREG_E_LIMIT_DEVICE	= 9,	/* registered device byte limit (ENOSPC) */
	MEMREG_E_MEMLOCK	= 10,	/* RLIMIT_MEMLOCK (ENOMEM from register) */
	MEMREG_E_NODEVMEM	= 11,	/* not emulated device memory (ENXIO) */
	MEMREG_E_ABI		= 12,	/* E2BIG, ENOTTY or ABI version mismatch */
	MEMREG_E_INTR		= 13,	/* interrupted by a signal (EINTR) */
	MEMREG_E_NOMEM		= 14,	/* out of memory */
	MEMREG_E_IO		= 15,	/* any other error: see errno */
	MEMREG_E_NODEV		= 16,	/* no such emulated device (ENXIO) */
	MEMREG_E_DEVFULL	= 17,	/* the device's capacity is used up (ENOSPC) */
	MEMREG_E_BUSY		= 18,	/* device memory still registered (EBUSY) */
	MEMREG_E_REVOKED	= 19,	/* the peer's grant is gone (EKEYREVOKED) */
	MEMREG_E_RANGE		= 20,	/* outside its registration (ERANGE) */
	MEMREG_E_TOO_MANY	= 21,	/* grant, import or IPC name limit (EMFILE) */
	/* 1.3: dma-bufs and IPC names */
	MEMREG_E_BADF		= 22,	/* the fd is not open (EBADF) */
	MEMREG_E_NOTSUP		= 23,	/* the dma-buf has no CPU mapping (EOPNOTSUPP) */
	MEMREG_E_NOFD		= 24,	/* no free file descriptor (EMFILE) */
	MEMREG_E_NOPROC		= 25,	/* no such process (ESRCH) */
};

/**
 * enum memreg_op - the operation an errno came from, for
 * memreg_errno_to_err(): the module gives some errnos a meaning of their
 * own per command (ENOMEM from MEMREG_IOC_REGISTER is RLIMIT_MEMLOCK, ENXIO
 * from open(2) is a missing driver).  MEMREG_OP_ANY applies only the
 * meanings every operation shares.
 */
enum memreg_op {
	MEMREG_OP_ANY		= 0,
	MEMREG_OP_OPEN		= 1,	/* open(2) of the device node */
	MEMREG_OP_INFO		= 2,	/* MEMREG_IOC_INFO */
	MEMREG_OP_REGISTER	= 3,	/* MEMREG_IOC_REGISTER */
	MEMREG_OP_UNREGISTER	= 4,	/* MEMREG_IOC_UNREGISTER */
	MEMREG_OP_QUERY		= 5,	/* MEMREG_IOC_QUERY */
	MEMREG_OP_DEV_ALLOC	= 6,	/* MEMREG_IOC_DEV_ALLOC */
	MEMREG_OP_DEV_FREE	= 7,	/* MEMREG_IOC_DEV_FREE */
	MEMREG_OP_DEV_INFO	= 8,	/* MEMREG_IOC_DEV_INFO */
	MEMREG_OP_GRANT		= 9,	/* MEMREG_IOC_GRANT */
	MEMREG_OP_REVOKE	= 10,	/* MEMREG_IOC_REVOKE */
	MEMREG_OP_IMPORT	= 11,	/* MEMREG_IOC_IMPORT */
	MEMREG_OP_UNIMPORT	= 12,	/* MEMREG_IOC_UNIMPORT */
	MEMREG_OP_TRANSFER	= 13,	/* MEMREG_IOC_TRANSFER */
	MEMREG_OP_MSTX		= 14,	/* MEMREG_IOC_MSTX */
	MEMREG_OP_DEV_EXPORT	= 15,	/* MEMREG_IOC_DEV_EXPORT */
	MEMREG_OP_REGISTER_DMABUF = 16,	/* MEMREG_IOC_REGISTER, DMABUF type */
	MEMREG_OP_IPC_EXPORT	= 17,	/* MEMREG_IOC_IPC_EXPORT */
	MEMREG_OP_IPC_ALLOW	= 18,	/* MEMREG_IOC_IPC_ALLOW */
	MEMREG_OP_IPC_IMPORT	= 19,	/* MEMREG_IOC_IPC_IMPORT */
	MEMREG_OP_IPC_CLOSE	= 20,	/* MEMREG_IOC_IPC_CLOSE */
	MEMREG_OP_HEADROOM	= 21,	/* MEMREG_IOC_HEADROOM */
	MEMREG_OP_REG_EXPORT	= 22,	/* MEMREG_IOC_REG_EXPORT */
};

/* An open /dev/memreg with what MEMREG_IOC_INFO said at open.  Opaque. */
struct memreg_ctx;

/**
 * struct memreg_lib_info - what memreg_info() reports
 * @abi_version: MEMREG_ABI_VERSION of the module
 * @page_size: the kernel's PAGE_SIZE
 * @features: MEMREG_FEATURE_* bits
 * @instance_id: random id of the running kernel: equal for every process
 *	on this boot, different on another host or after a reboot
 * @max_regions, @max_host_bytes, @max_dev_bytes: effective limits of the
 *	calling process
 * @memlock_limit: RLIMIT_MEMLOCK in bytes; MEMREG_UNLIMITED if the process
 *	has CAP_IPC_LOCK or the limit is infinity
 * @regions, @host_bytes, @dev_bytes: what the process has registered now,
 *	over all of its open contexts
 * @devices: number of emulated devices (ids 0 .. @devices - 1); 0 from a
 *	module without MEMREG_FEATURE_DEVICE
 * @dev_capacity: bytes of memory each emulated device has
 * @incarnation: which life of the calling process the module sees:
 *	issued by the module, never 0, never the same for two address spaces
 *	while it is loaded (0 from a module without MEMREG_FEATURE_INCARNATION)
 * @start_time: when the calling process started, ns since boot
 * @reserved: zero; room for later fields without a new symbol version
 */
struct memreg_lib_info {
	uint32_t abi_version;
	uint32_t page_size;
	uint64_t features;
	uint8_t  instance_id[16];
	uint64_t max_regions;
	uint64_t max_host_bytes;
	uint64_t max_dev_bytes;
	uint64_t memlock_limit;
	uint64_t regions;
	uint64_t host_bytes;
	uint64_t dev_bytes;
	/* Taken from the reserved space in 1.1: the struct keeps its size. */
	uint32_t devices;
	uint32_t reserved0;
	uint64_t dev_capacity;
	/* Taken from the reserved space: the struct keeps its size. */
	uint64_t incarnation;
	uint64_t start_time;
	uint64_t reserved[4];
};

/**
 * memreg_open - open the memreg device and read its INFO once
 * @out: receives the new context
 *
 * Opens /dev/memreg (or the path in the environment variable MEMREG_DEVICE,
 * ignored in set-user-ID programs) and checks that the module speaks
 * MEMREG_ABI_VERSION.  The descriptor is close-on-exec, and a context does
 * not survive fork(): the child's calls fail with -MEMREG_E_PERM.
 *
 * Return: 0, -MEMREG_E_NOMODULE if the device node or its driver is
 * missing, -MEMREG_E_PERM, -MEMREG_E_ABI, -MEMREG_E_NOMEM, ...
 */
int memreg_open(struct memreg_ctx **out);

/**
 * memreg_close - close a context; its registrations end with it
 * @ctx: a context from memreg_open(), or NULL
 */
void memreg_close(struct memreg_ctx *ctx);

/**
 * memreg_info - ask the module for its properties and the process's usage
 * @ctx: an open context
 * @info: filled on success
 *
 * Every call asks the kernel afresh, so the usage figures are current.
 */
int memreg_info(struct memreg_ctx *ctx, struct memreg_lib_info *info);

/**
 * memreg_register - register a range of memory with the module
 * @ctx: an open context
 * @addr: start of the range, any alignment
 * @len: length in bytes, > 0
 * @type: MEMREG_MEM_HOST (pinned) or MEMREG_MEM_DEVICE (emulated device
 *	memory mapped from /dev/memreg)
 * @access: MEMREG_ACCESS_* bits granted to peers, 0 for none
 * @handle: receives the registration's handle, valid on @ctx only
 *
 * Return: 0, or -MEMREG_E_LIMIT_REGIONS, -MEMREG_E_LIMIT_HOST,
 * -MEMREG_E_LIMIT_DEVICE, -MEMREG_E_MEMLOCK, -MEMREG_E_NODEVMEM,
 * -MEMREG_E_FAULT, -MEMREG_E_ACCESS, -MEMREG_E_INVAL, -MEMREG_E_PERM,
 * -MEMREG_E_INTR.
 */
int memreg_register(struct memreg_ctx *ctx, void *addr, size_t len,
		    enum memreg_mem_type type, unsigned int access,
		    uint64_t *handle);

/**
 * memreg_unregister - end a registration
 * @ctx: the context the registration was made on
 * @handle: its handle
 *
 * Return: 0, or -MEMREG_E_NOENT if @handle is not a live registration of
 * @ctx.
 */
int memreg_unregister(struct memreg_ctx *ctx, uint64_t handle);

/**
 * memreg_query - read one batch of the process's registrations
 * @ctx: an open context
 * @regions: room for @max entries (may be NULL if @max is 0)
 * @max: entries @regions has room for
 * @cursor: in: 0 to start, else what the previous call stored; out: where
 *	to resume.  Registrations made or removed between calls neither
 *	repeat nor hide the others.
 * @count: receives the number of entries written; 0 at the end
 * @total: if not NULL, receives the number of registrations now
 */
int memreg_query(struct memreg_ctx *ctx, struct memreg_region *regions,
		 unsigned int max, uint64_t *cursor, unsigned int *count,
		 uint64_t *total);

/*
 * Called by memreg_query_all() once per registration; return 0 to go on,
 * anything else to stop (a positive value keeps it apart from errors).
 */
typedef int (*memreg_region_fn)(const struct memreg_region *region,
				void *arg);

/**
 * memreg_query_all - call @fn for every registration of the process
 * @ctx: an open context
 * @fn: the callback; it may call memreg_unregister() on the region it is
 *	given
 * @arg: passed to @fn
 *
 * Return: 0 once every registration was visited, what @fn returned if it
 * stopped the walk, or a negative memreg_err.
 */
int memreg_query_all(struct memreg_ctx *ctx, memreg_region_fn fn, void *arg);

/**
 * memreg_strerror - a sentence describing an error code
 * @err: a memreg_err, negated (as functions return it) or not
 *
 * Return: a static string; never NULL.
 */
const char *memreg_strerror(int err);

/**
 * memreg_errno_to_err - the memreg_err an errno means for an operation
 * @op: enum memreg_op the errno came from
 * @errnum: the errno
 *
 * For layers that reach the kernel in ways of their own and want the same
 * classification as the core.
 *
 * Return: 0 for @errnum 0, else a negative memreg_err (-MEMREG_E_IO for an
 * errno with no meaning of its own).
 */
int memreg_errno_to_err(int op, int errnum);

/**
 * struct memreg_dev_mem - a piece of emulated device memory, mapped
 * @addr: where it is mapped in the process (page aligned)
 * @len: bytes mapped: what was asked for, rounded up to pages, or to
 *	2 MiB chunks when @huge
 * @handle: the module's handle of the allocation, valid on its context
 * @device: the device it is on
 * @huge: 1 if it is made of 2 MiB-contiguous chunks, 0 if of 4 KiB pages
 */
struct memreg_dev_mem {
	void *addr;
	size_t len;
	uint64_t handle;
	uint32_t device;
	uint32_t huge;
};

/**
 * memreg_dev_alloc - allocate memory on an emulated device and map it
 * @ctx: an open context
 * @device: device id, below memreg_lib_info.devices
 * @policy: enum memreg_dev_policy: MEMREG_DEV_HUGE_FIRST (2 MiB chunks
 *	where the memory is contiguous, else 4 KiB pages; at most 1 MiB is
 *	always 4 KiB pages), MEMREG_DEV_HUGE_ONLY, MEMREG_DEV_NORMAL_ONLY
 * @len: bytes wanted, > 0
 * @mem: filled on success
 *
 * The pages are the device's from this call on (not on first touch), are
 * never swapped, and are not zeroed for the caller to rely on.  They stay
 * the process's until memreg_dev_free(), the close of @ctx, or its exit.
 *
 * Return: 0, or -MEMREG_E_NODEV (no such device), -MEMREG_E_DEVFULL (the
 * device's capacity is used up), -MEMREG_E_NOMEM (HUGE_ONLY found no
 * 2 MiB-contiguous memory, or the kernel is out of memory),
 * -MEMREG_E_INVAL, -MEMREG_E_ABI (a module without device memory).
 */
int memreg_dev_alloc(struct memreg_ctx *ctx, unsigned int device,
		     enum memreg_dev_policy policy, size_t len,
		     struct memreg_dev_mem *mem);

/**
 * memreg_dev_free - give device memory back and unmap it
 * @ctx: the context it was allocated on
 * @mem: what memreg_dev_alloc() filled in
 *
 * The pages return to the device at once unless another mapping of them
 * (a fork's) is still alive; then when that goes.  On failure nothing is
 * changed and @mem stays mapped.
 *
 * Return: 0, or -MEMREG_E_BUSY while a DEVICE registration covers part of
 * it (unregister first), -MEMREG_E_NOENT for an unknown handle.
 */
int memreg_dev_free(struct memreg_ctx *ctx, const struct memreg_dev_mem *mem);

/**
 * struct memreg_dev_stat - one emulated device's memory
 * @capacity: bytes the device has
 * @used: bytes allocated on it, by every process
 * @huge_bytes: of @used, in 2 MiB chunks
 * @normal_bytes: of @used, in 4 KiB pages
 * @proc_bytes: bytes the calling process has allocated on it
 * @reserved: zero
 */
struct memreg_dev_stat {
	uint64_t capacity;
	uint64_t used;
	uint64_t huge_bytes;
	uint64_t normal_bytes;
	uint64_t proc_bytes;
	uint64_t reserved[3];
};

/**
 * memreg_dev_stat - ask the module how a device's memory is used
 * @ctx: an open context
 * @device: device id
 * @st: filled on success
 *
 * Return: 0, or -MEMREG_E_NODEV for an unknown device.
 */
int memreg_dev_stat(struct memreg_ctx *ctx, unsigned int device,
		    struct memreg_dev_stat *st);

/**
 * struct memreg_lib_headroom - what memreg_headroom() reports
 * @cgroup_id: the process's cgroup v2 node (its directory's inode
 *	number); 0 where the module has no cgroup support
 * @dev_total: the most the process's cgroup may hold on the device: its
 *	capacity, or a lower device limit of the cgroup or an ancestor
 * @regions: registrations the process may still make
 * @room: by enum memreg_room_kind (MEMREG_ROOM_HOST, _DEVICE, _DMABUF
 *	registrations, MEMREG_ROOM_DEV_ALLOC allocations on the device):
 *	bytes left (MEMREG_UNLIMITED: no limit), and which limit leaves the
 *	least (struct memreg_room in <linux/memreg.h>)
 * @reserved: zero
 */
struct memreg_lib_headroom {
	uint64_t cgroup_id;
	uint64_t dev_total;
	uint64_t regions;
	struct memreg_room room[MEMREG_ROOM_KINDS];
	uint64_t reserved[4];
};

/**
 * memreg_headroom - how much the process may still register and allocate
 * @ctx: an open context
 * @device: the device of the MEMREG_ROOM_DEV_ALLOC row and @dev_total
 * @out: filled on success
 *
 * Each row is the least of what the process's limits, its cgroup's and
 * every ancestor's (limit minus charge), RLIMIT_MEMLOCK (host), the
 * user's limit, the device's free capacity and the RAM reserve (device
 * allocations) leave, at the time of the call.
 *
 * Return: 0, -MEMREG_E_NODEV for an unknown device, -MEMREG_E_ABI for a
 * module without MEMREG_FEATURE_CGROUP.
 */
int memreg_headroom(struct memreg_ctx *ctx, unsigned int device,
		    struct memreg_lib_headroom *out);

/*
 * dma-bufs (MEMREG_FEATURE_DMABUF): device memory exported as a dma-buf,
 * registrations of any driver's dma-buf, and names that let another
 * process turn a dma-buf into an fd of its own (what CANN's aclrtIpcMem*
 * calls are built on).  The module charges dma-buf registrations to the
 * device byte limit.
 */

/* Bytes of an IPC name: struct memreg_ipc_export.token. */
#define MEMREG_IPC_TOKEN_LEN	16

/**
 * memreg_dev_export - make a dma-buf of part of a device allocation
 * @ctx: the context it was allocated on
 * @mem: what memreg_dev_alloc() filled in
 * @offset: where the dma-buf starts in it, a multiple of the page size
 * @len: bytes, > 0; the dma-buf is @len rounded up to pages
 * @fd: receives the dma-buf's descriptor (close-on-exec); the caller
 *	closes it
 *
 * Freeing the allocation (memreg_dev_free(), closing @ctx, exit) revokes
 * the dma-buf: its mappings fault, registrations of it refuse copies.
 *
 * Return: 0, -MEMREG_E_NOENT (@mem is not a live allocation of @ctx),
 * -MEMREG_E_INVAL (@offset not page-aligned, @len 0), -MEMREG_E_RANGE (the
 * range is not inside the allocation), -MEMREG_E_NOFD.
 */
int memreg_dev_export(struct memreg_ctx *ctx, const struct memreg_dev_mem *mem,
		      size_t offset, size_t len, int *fd);

/**
 * memreg_reg_export - make a dma-buf of a host registration's pages
 * @ctx: the context it was registered on
 * @handle: a host registration of @ctx, registered with MEMREG_ACCESS_ALL
 * @offset: where the dma-buf starts, from the registration's first page
 *	(its address rounded down to the page size), page-aligned
 * @len: bytes, > 0; the dma-buf is @len rounded up to pages
 * @fd: receives the dma-buf's descriptor (close-on-exec); the caller
 *	closes it
 *
 * The dma-buf is the pages the registration pinned: no second pin, no
 * second charge to the process.  Unregistering (or closing @ctx, exit)
 * revokes it; the pages stay pinned until its last user is gone, and
 * until then count against the user's RLIMIT_MEMLOCK.
 *
 * Return: 0, -MEMREG_E_NOENT (@handle is not a live registration of @ctx),
 * -MEMREG_E_NOTSUP (not host memory), -MEMREG_E_PERM (access is not
 * MEMREG_ACCESS_ALL), -MEMREG_E_INVAL, -MEMREG_E_RANGE (the range is not
 * inside the registration's pages), -MEMREG_E_MEMLOCK (the user's exports
 * would pass RLIMIT_MEMLOCK), -MEMREG_E_NOFD.
 */
int memreg_reg_export(struct memreg_ctx *ctx, uint64_t handle, size_t offset,
		      size_t len, int *fd);

/**
 * memreg_register_dmabuf - register a range of a dma-buf
 * @ctx: an open context
 * @fd: the dma-buf (any driver's); the registration holds its own
 *	reference, so @fd may be closed after
 * @offset: where the range starts in the buffer
 * @len: bytes, > 0
 * @access: MEMREG_ACCESS_* bits granted to peers
 * @handle: receives the handle, for memreg_unregister() and grants
 *
 * Return: 0, -MEMREG_E_BADF (@fd is not open), -MEMREG_E_INVAL (not a
 * dma-buf, @len 0), -MEMREG_E_RANGE (the range is not inside the buffer),
 * -MEMREG_E_LIMIT_DEVICE, -MEMREG_E_LIMIT_REGIONS.
 */
int memreg_register_dmabuf(struct memreg_ctx *ctx, int fd, uint64_t offset,
			   size_t len, unsigned int access, uint64_t *handle);

/**
 * memreg_ipc_export - give a dma-buf a name other processes can import
 * @ctx: an open context; the name lives until memreg_ipc_close() or the
 *	close of @ctx
 * @fd: a dma-buf; the name holds its own reference, so @fd may be closed
 * @flags: 0 (only the pids memreg_ipc_allow() names may import) or
 *	MEMREG_IPC_ANY_PID
 * @token: receives the name
 *
 * Return: 0, -MEMREG_E_BADF, -MEMREG_E_INVAL (not a dma-buf, unknown
 * flags), -MEMREG_E_TOO_MANY (the process has the module's max_ipc_names
 * names, or its user holds max_user_files dma-bufs through memreg).
 */
int memreg_ipc_export(struct memreg_ctx *ctx, int fd, unsigned int flags,
		      uint8_t token[MEMREG_IPC_TOKEN_LEN]);

/**
 * memreg_ipc_allow - let processes import a name
 * @ctx: the context that made the name
 * @token: the name
 * @pids: @n process ids, as this process's pid namespace sees them
 * @n: 1 .. MEMREG_IPC_MAX_PIDS (over all calls for the name)
 *
 * The module keeps the processes, not the numbers: a pid reused after the
 * process exited does not inherit the right.
 *
 * Return: 0, -MEMREG_E_NOENT (not a name of @ctx), -MEMREG_E_NOPROC (a pid
 * that does not exist), -MEMREG_E_TOO_MANY (more than MEMREG_IPC_MAX_PIDS
 * distinct pids on the name, or the module's max_ipc_pids on all the
 * process's names), -MEMREG_E_INVAL (@n 0).
 */
int memreg_ipc_allow(struct memreg_ctx *ctx,
		     const uint8_t token[MEMREG_IPC_TOKEN_LEN],
		     const int32_t *pids, size_t n);

/**
 * memreg_ipc_import - turn a name into a dma-buf fd of this process
 * @ctx: an open context
 * @token: a name another process (or this one) made
 * @fd: receives the new dma-buf descriptor (close-on-exec)
 * @len: if not NULL, receives the dma-buf's size in bytes
 *
 * The fd stays valid when the exporter closes the name; it is revoked
 * (mappings fault) when the exporter frees the memory behind it.
 *
 * Return: 0, -MEMREG_E_NOENT (no such name, or closed; or this process is
 * not allowed and of another user than the exporter: one answer, so that
 * guessing learns nothing), -MEMREG_E_PERM (this process is not allowed,
 * and of the exporter's user), -MEMREG_E_IO
 * with errno EAGAIN (this user's failed imports are rationed, the module's
 * ipc_import_fail_rate a second: try again later), -MEMREG_E_NOFD.
 */
int memreg_ipc_import(struct memreg_ctx *ctx,
		      const uint8_t token[MEMREG_IPC_TOKEN_LEN], int *fd,
		      size_t *len);

/**
 * memreg_ipc_close - forget a name; imports made before stay valid
 * @ctx: the context that made it
 * @token: the name
 *
 * Return: 0, or -MEMREG_E_NOENT if @token is not a live name of @ctx.
 */
int memreg_ipc_close(struct memreg_ctx *ctx,
		     const uint8_t token[MEMREG_IPC_TOKEN_LEN]);

#ifdef __cplusplus
}
#endif

#include <memreg/transfer.h>

#endif /* MEMREG_MEMREG_H */
