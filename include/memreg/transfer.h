/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libmemreg - single-copy transfers between the registrations of two
 * processes (MEMREG_FEATURE_TRANSFER).  Included by <memreg/memreg.h>.
 *
 * The owner of a registration grants it and hands the 16-byte token to a
 * peer by any means; the peer imports the token and may then read or
 * write inside the granted range with memreg_transfer().  A token dies at
 * once when it is revoked, when its registration is unregistered, or when
 * the owner's context is closed (or the owner exits).
 *
 * Errors follow <memreg/memreg.h>: a negative enum memreg_err, errno set.
 * ENOENT (unknown handle or token) is -MEMREG_E_NOENT, EACCES (more
 * access than the grant allows) -MEMREG_E_ACCESS, EKEYREVOKED (the grant
 * behind an import is gone) and EOWNERDEAD (its owner is gone: exit,
 * exec, close) -MEMREG_E_REVOKED, ERANGE (a range is not
 * inside its registration) -MEMREG_E_RANGE, EMFILE (64 grants of one
 * registration, 65536 imports of one process) -MEMREG_E_TOO_MANY.
 */
#ifndef MEMREG_TRANSFER_H
#define MEMREG_TRANSFER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>

#ifdef __cplusplus
extern "C" {
#endif

struct memreg_ctx;

#define MEMREG_TOKEN_LEN	16

/**
 * struct memreg_remote - an imported registration, as memreg_import() saw it
 * @handle: remote handle for memreg_transfer() on the importing context
 * @addr, @len: the registration's range in the owner's address space
 *	(the addresses transfer descriptors name)
 * @type: enum memreg_mem_type
 * @access: MEMREG_ACCESS_* the grant allows
 * @device: DEVICE type: the device id
 * @pid: the owner's pid (0 if not visible in the caller's pid namespace)
 * @incarnation: the owner's (struct memreg_lib_info's @incarnation); a
 *	transfer through @handle after that life ended fails with
 *	-MEMREG_E_REVOKED and errno EOWNERDEAD, whatever now runs at the
 *	owner's pid, port or addresses
 */
struct memreg_remote {
	uint64_t handle;
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	uint32_t access;
	uint32_t device;
	uint32_t pid;
	/* Taken from the reserved space: the struct keeps its size. */
	uint64_t incarnation;
	uint64_t reserved[3];
};

/**
 * memreg_grant - let peers that hold the returned token reach a registration
 * @ctx: the context the registration was made on
 * @handle: the registration
 * @access: MEMREG_ACCESS_* for peers, within what the registration allows
 * @token: receives the token
 *
 * Return: 0, -MEMREG_E_NOENT (unknown handle), -MEMREG_E_ACCESS (more
 * access than the registration allows), -MEMREG_E_INVAL.
 */
int memreg_grant(struct memreg_ctx *ctx, uint64_t handle, unsigned int access,
		 uint8_t token[MEMREG_TOKEN_LEN]);

/**
 * memreg_revoke - end a grant; imports of it fail from now on
 * Return: 0, or -MEMREG_E_NOENT if @token is not a live grant of @ctx.
 */
int memreg_revoke(struct memreg_ctx *ctx,
		  const uint8_t token[MEMREG_TOKEN_LEN]);

/**
 * memreg_import - turn a peer's token into a remote handle
 * Return: 0, or -MEMREG_E_NOENT for an unknown or dead token.
 */
int memreg_import(struct memreg_ctx *ctx,
		  const uint8_t token[MEMREG_TOKEN_LEN],
		  struct memreg_remote *remote);

/**
 * memreg_unimport - drop a remote handle
 * Return: 0, or -MEMREG_E_NOENT for an unknown remote handle.
 */
int memreg_unimport(struct memreg_ctx *ctx, uint64_t remote_handle);

/**
 * memreg_transfer - copy between own registrations and imported ones
 * @ctx: the context holding the local registrations and the imports
 * @descs: @count descriptors (struct memreg_xfer_desc of the UAPI header;
 *	flags must be 0), done in order
 * @count: any number; the library splits it into batches of at most
 *	MEMREG_XFER_MAX_DESCS, one ioctl each
 * @done: if not NULL, receives the number of descriptors completed (all of
 *	them on success; on failure the index of the one that failed)
 * @bytes: if not NULL, receives the bytes copied
 *
 * A batch of MEMREG_COPY_SPLIT_MIN bytes or more is copied by up to
 * memreg_copy_threads() threads at once: the caller's and helper threads
 * of this process that libmemreg starts on the first such batch and ends
 * in memreg_close() (their CPU time is the process's and its cgroup's).
 * Such a batch is split only if no descriptor writes bytes another
 * descriptor reads or writes (as the descriptors name them: local
 * addresses, and addresses in each import); its descriptors are then
 * copied in no fixed order, and when one fails, others after it may have
 * been copied too (@bytes counts them).  Smaller batches, and batches
 * that overlap, are copied by the calling thread in order.
 *
 * Return: 0, or the error of the first descriptor that failed (see the
 * header comment); -MEMREG_E_INTR only for a
 * fatal signal.
 */
int memreg_transfer(struct memreg_ctx *ctx,
		    const struct memreg_xfer_desc *descs, size_t count,
		    size_t *done, uint64_t *bytes);

/* A batch this large may be copied by several threads. */
#define MEMREG_COPY_SPLIT_MIN	(2ull << 20)
/* Threads one transfer is copied by, at most. */
#define MEMREG_COPY_THREADS_MAX	16

/**
 * memreg_set_copy_threads - how many threads copy one large transfer
 * @ctx: the context
 * @threads: 1 (the calling thread alone) to MEMREG_COPY_THREADS_MAX; 0 for
 *	the default: the environment's MEMREG_COPY_THREADS, else the CPUs
 *	the process may run on, up to 4
 *
 * Takes effect at the next memreg_transfer().  Helper threads already
 * started stay until memreg_close(); asking for more starts them anew.
 *
 * Return: 0, or -MEMREG_E_INVAL for more than MEMREG_COPY_THREADS_MAX.
 */
int memreg_set_copy_threads(struct memreg_ctx *ctx, unsigned int threads);

/**
 * memreg_copy_threads - the threads one large transfer is copied by
 * Return: 1 to MEMREG_COPY_THREADS_MAX, or 0 for a NULL @ctx.
 */
unsigned int memreg_copy_threads(struct memreg_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_TRANSFER_H */
