/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Work memory of stream tasks (staging.c): from the allocator registered
 * on the stream, or the runtime's pool.
 */
#ifndef MEMREG_ACL_STAGING_H
#define MEMREG_ACL_STAGING_H

#include <stdbool.h>
#include <stddef.h>

#include <acl/acl_rt.h>

struct acl_stream;

/* Work memory a task holds: an allocator's block, or the pool's buffer. */
struct acl_stage {
	void *block;
	aclrtAllocator obj;
	aclrtAllocatorFreeFunc free_fn;
	void *pool_buf;
	size_t pool_len;
};

/*
 * Work memory of @len bytes for a task on @s, from the allocator
 * registered on it or else the runtime's pool; recorded in @st so that
 * the task gives it back.  Returns the address to use, NULL on failure.
 */
void *memreg__acl_stage_get(struct acl_stream *s, size_t len,
			    struct acl_stage *st);
/* Give back what memreg__acl_stage_get() recorded in @st. */
void memreg__acl_stage_put(struct acl_stage *st);
/* Does @st hold work memory? */
static inline bool memreg__acl_staged(const struct acl_stage *st)
{
	return st->free_fn || st->pool_buf;
}
/* aclFinalize's part: free the pool. */
void memreg__acl_stage_drain(void);

#endif /* MEMREG_ACL_STAGING_H */
