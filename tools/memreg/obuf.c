// SPDX-License-Identifier: GPL-2.0
/*
 * The output buffer's way to its FILE.  The tool has one thread: the
 * unlocked stdio calls save a lock per call (a call per text row).
 */
#include "obuf.h"

void obuf_flush(struct obuf *b)
{
	/* a short write sets the FILE's error flag, which the caller checks */
	if (b->len)
		fwrite_unlocked(b->data, 1, b->len, b->f);
	b->len = 0;
}

void obuf_write_slow(struct obuf *b, const void *p, size_t n)
{
	obuf_flush(b);
	if (n > OBUF_SIZE) {
		fwrite_unlocked(p, 1, n, b->f);
		return;
	}
	memcpy(b->data, p, n);
	b->len = n;
}
