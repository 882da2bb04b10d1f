// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MEMREG_IOC_QUERY, one batch at a time or as a walk over all of them.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core.h"

/* 64 entries of 64 bytes: one page of stack per memreg_query_all(). */
#define QUERY_BATCH	64

int memreg_query(struct memreg_ctx *ctx, struct memreg_region *regions,
		 unsigned int max, uint64_t *cursor, unsigned int *count,
		 uint64_t *total)
{
	struct memreg_query q;

	if (!ctx || !cursor || !count || (max && !regions))
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.cursor = *cursor;
	q.regions = (uintptr_t)regions;
	q.count = max;
	/* Lets a module with a longer struct memreg_region write ours. */
	q.entry_size = sizeof(*regions);
	if (memreg__ioctl(ctx->fd, MEMREG_IOC_QUERY, &q))
		return memreg__fail(MEMREG_OP_QUERY);

	/* The module wrote past the room we gave it: refuse to go on. */
	if (q.count > max)
		return memreg__refuse(MEMREG_E_IO, EPROTO);

	*cursor = q.cursor;
	*count = q.count;
	if (total)
		*total = q.total;
	return 0;
}

int memreg_query_all(struct memreg_ctx *ctx, memreg_region_fn fn, void *arg)
{
	struct memreg_region batch[QUERY_BATCH];
	uint64_t cursor = 0, prev;
	unsigned int n, i;
	int ret, more;

	if (!ctx || !fn)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);

	for (;;) {
		prev = cursor;
		ret = memreg_query(ctx, batch, QUERY_BATCH, &cursor, &n, NULL);
		if (ret)
			return ret;
		/*
		 * An empty batch is the end, as the UAPI documents.  A short
		 * one is not: the module caps the entries of one call.
		 */
		if (n == 0)
			return 0;
		/*
		 * Defence against a module that breaks that contract: a
		 * cursor back at 0 would start over (0 only ever means "from
		 * the start"), so take it as "this batch was the last"; one
		 * that did not move would give the same batch forever.
		 */
		more = cursor != 0;
		if (more && cursor == prev)
			return memreg__refuse(MEMREG_E_IO, EPROTO);

		/* The callback may unregister: the cursor is already past it. */
		for (i = 0; i < n; i++) {
			ret = fn(&batch[i], arg);
			if (ret)
				return ret;
		}
		if (!more)
			return 0;
	}
}
