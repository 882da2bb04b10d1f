// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Work memory the runtime needs for a task on a stream: today the staging
 * buffer of ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, which holds the caller's
 * bytes from aclrtMemcpyAsync until the worker copies them to the device.
 *
 * If the program registered an allocator on the stream, the memory comes
 * from it, called the way GE calls it (reference §1.5): allocFunc, then
 * getAddrFromBlockFunc once on the block; freeFunc with the block when
 * the task is done.  When the runtime wants memory again on a stream
 * where it used an address of this allocator before, it asks for that
 * address with allocAdviseFunc (if set), so an allocator that honours the
 * hint hands back the same memory.  Otherwise the memory comes from the
 * runtime's own pool.
 */
#include <stdlib.h>

#include "allocator.h"
#include "staging.h"
#include "stream.h"

/* The pool: free buffers by power-of-two size class, 4 KiB .. 64 MiB. */
#define POOL_MIN_SHIFT	12
#define POOL_MAX_SHIFT	26
#define POOL_KEEP	4	/* free buffers kept per class */

struct pool_buf {
	struct pool_buf *next;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pool_buf *pool_free[POOL_MAX_SHIFT - POOL_MIN_SHIFT + 1];
static unsigned int pool_count[POOL_MAX_SHIFT - POOL_MIN_SHIFT + 1];

static unsigned int size_shift(size_t len)
{
	unsigned int shift = POOL_MIN_SHIFT;

	while (shift < 8 * sizeof(size_t) - 1 && ((size_t)1 << shift) < len)
		shift++;
	return shift;
}

static void *pool_get(size_t len, struct acl_stage *st)
{
	unsigned int shift = size_shift(len), c;
	struct pool_buf *b = NULL;

	if (shift > POOL_MAX_SHIFT) {
		/* Too big to keep: the bytes are allocated for this task. */
		st->pool_buf = malloc(len);
		st->pool_len = len;
		return st->pool_buf;
	}
	c = shift - POOL_MIN_SHIFT;
	pthread_mutex_lock(&pool_lock);
	b = pool_free[c];
	if (b) {
		pool_free[c] = b->next;
		pool_count[c]--;
	}
	pthread_mutex_unlock(&pool_lock);
	if (!b)
		b = malloc((size_t)1 << shift);
	st->pool_buf = b;
	st->pool_len = (size_t)1 << shift;
	return b;
}

static void pool_put(void *buf, size_t len)
{
	unsigned int shift = size_shift(len), c;
	struct pool_buf *b = buf;

	if (shift > POOL_MAX_SHIFT || ((size_t)1 << shift) != len) {
		free(buf);
		return;
	}
	c = shift - POOL_MIN_SHIFT;
	pthread_mutex_lock(&pool_lock);
	if (pool_count[c] < POOL_KEEP) {
		b->next = pool_free[c];
		pool_free[c] = b;
		pool_count[c]++;
		b = NULL;
	}
	pthread_mutex_unlock(&pool_lock);
	free(b);
}

void memreg__acl_stage_drain(void)
{
	struct pool_buf *b;
	unsigned int c;

	pthread_mutex_lock(&pool_lock);
	for (c = 0; c <= POOL_MAX_SHIFT - POOL_MIN_SHIFT; c++) {
		while ((b = pool_free[c])) {
			pool_free[c] = b->next;
			free(b);
		}
		pool_count[c] = 0;
	}
	pthread_mutex_unlock(&pool_lock);
}

void *memreg__acl_stage_get(struct acl_stream *s, size_t len,
			    struct acl_stage *st)
{
	struct acl_allocator a;
	void *block, *addr, *hint;

	if (memreg__acl_allocator_lookup(memreg__acl_stream_handle(s), &a))
		return pool_get(len, st);

	/* No lock is held while the program's callbacks run. */
	pthread_mutex_lock(&s->lock);
	hint = s->stage_obj == a.obj ? s->stage_addr : NULL;
	pthread_mutex_unlock(&s->lock);
	if (hint && a.advise)
		block = a.advise(a.obj, len, hint);
	else
		block = a.alloc(a.obj, len);
	if (!block)
		return NULL;
	addr = a.get_addr(block);
	if (!addr) {
		a.free(a.obj, block);
		return NULL;
	}

	pthread_mutex_lock(&s->lock);
	s->stage_obj = a.obj;
	s->stage_addr = addr;
	pthread_mutex_unlock(&s->lock);
	/* Given back with the allocator it came from, registered or not. */
	st->block = block;
	st->obj = a.obj;
	st->free_fn = a.free;
	return addr;
}

void memreg__acl_stage_put(struct acl_stage *st)
{
	if (st->free_fn)
		st->free_fn(st->obj, st->block);
	else if (st->pool_buf)
		pool_put(st->pool_buf, st->pool_len);
	st->free_fn = NULL;
	st->pool_buf = NULL;
}
