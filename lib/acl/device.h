/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Devices and contexts (device.c): what aclrtSetDevice counts, the
 * context each thread has current.
 */
#ifndef MEMREG_ACL_DEVICE_H
#define MEMREG_ACL_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

struct acl_stream;

/* A context: the device it is on and, made on first use, its default stream. */
struct acl_context {
	uint64_t id;		/* unique for the life of the process */
	int32_t device;
	bool is_default;	/* the one aclrtSetDevice made */
	struct acl_stream *default_stream;
};

struct acl_device {
	unsigned int refs;	/* aclrtSetDevice calls not yet reset */
	uint32_t peers;		/* bit n: peer access to device n enabled */
	unsigned int nr_streams;	/* live streams on it, default ones too */
	struct acl_context *default_ctx;
};

/*
 * The calling thread's current context if it is still alive, with
 * rt.lock held; NULL (lock not held) if the thread has none.
 */
struct acl_context *memreg__acl_lock_context(void);
/*
 * Destroy a context's streams and the context; rt.lock held.  @force
 * drops the streams' work that has not started.
 */
void memreg__acl_context_destroy(struct acl_context *ctx, bool force);
/* aclFinalize's part: every context and device; rt.lock held. */
void memreg__acl_devices_release(void);

#endif /* MEMREG_ACL_DEVICE_H */
