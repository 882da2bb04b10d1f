/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The runtime's state (init.c): what aclInit and the first
 * aclrtSetDevice set up, and the tables of what the program holds.
 * Each concern of lib/acl has a header of its own for the rest (stream.h,
 * task.h, memory.h, ...).  External names carry the "memreg__" prefix:
 * the version script exports only acl*.
 *
 * Locking, outermost first: rt.lock (init state, devices, contexts, the
 * live-stream and event tables, device and host memory tables) -> a
 * stream's lock -> the wait lock (event states, report subscriptions and
 * queue).  rt.lock -> devmem_use.  rt.lock -> the model table's lock
 * (model.c), which nests in no stream's lock: a stream being captured
 * adds its tasks to the model under its own lock alone.  A built model's
 * build lock (model_internal.h) -> a stream's lock -> the label lock (label.c):
 * a bound stream adds its tasks to its binding under its own lock, and a
 * label or switch checks the labels under it too.  The allocator
 * table has a lock of its own that nests in nothing, and no lock is held
 * while a user's allocator, host or exception callback runs.
 */
#ifndef MEMREG_ACL_RUNTIME_H
#define MEMREG_ACL_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptrmap.h"

struct memreg_ctx;
struct acl_device;
struct acl_devmem;

struct acl_runtime {
	pthread_mutex_t lock;
	unsigned int init_refs;		/* aclInit calls not yet finalized */
	bool was_initialized;		/* for aclFinalize's repeat code */
	char *config;			/* contents of aclInit's file, or NULL */
	size_t config_len;

	struct memreg_ctx *mctx;	/* opened by the first aclrtSetDevice */
	uint32_t nr_devices;
	uint64_t dev_capacity;
	struct acl_device *devices;	/* nr_devices of them */
	uint64_t next_ctx_id;

	struct ptrmap contexts;		/* live contexts: itself -> itself */
	struct ptrmap streams;		/* live streams: itself -> itself */
	struct ptrmap hostmem;		/* aclrtMallocHost address -> struct */
	struct ptrmap events;		/* live events: itself -> itself */

	/*
	 * Read-held by a stream task while it copies to or from device
	 * memory, write-held by aclrtFree while it unmaps: a task either
	 * finds its memory gone or copies before it goes, never into a
	 * hole.  Taken with rt.lock held, or without any lock.
	 */
	pthread_rwlock_t devmem_use;

	/* aclrtMalloc'd memory, sorted by address, for range lookups. */
	struct acl_devmem **devmem;
	size_t nr_devmem, cap_devmem;
};

extern struct acl_runtime memreg__acl_rt;

#endif /* MEMREG_ACL_RUNTIME_H */
