/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output buffer in front of a FILE.  A listing of 100,000 rows is
 * about 20 MB of text; written a field or a character at a time through
 * stdio that costs more than everything else the tool does, so the JSON
 * writer and the text layouts append to this buffer with plain stores and
 * hand it to the FILE in large blocks.
 *
 * What is in the buffer is not in the FILE yet: whoever ends a record that
 * must be seen (a top-level JSON value, a table, an event line) calls
 * obuf_flush().
 */
#ifndef MEMREG_TOOL_OBUF_H
#define MEMREG_TOOL_OBUF_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define OBUF_SIZE	(64 * 1024)

struct obuf {
	FILE *f;
	size_t len;
	char data[OBUF_SIZE];
};

static inline void obuf_init(struct obuf *b, FILE *f)
{
	b->f = f;
	b->len = 0;
}

/* Everything buffered to the FILE (errors show in ferror(b->f)). */
void obuf_flush(struct obuf *b);

/* Append @n bytes; more than the buffer holds go straight to the FILE. */
void obuf_write_slow(struct obuf *b, const void *p, size_t n);

/*
 * Room for @n (at most OBUF_SIZE) more bytes: where to store them.  The
 * caller then adds what it stored to b->len.
 */
static inline char *obuf_room(struct obuf *b, size_t n)
{
	if (b->len + n > OBUF_SIZE)
		obuf_flush(b);
	return b->data + b->len;
}

/*
 * Most pieces are a few bytes (a number, a key, a separator): copied with
 * two overlapping fixed-size moves, which compile to a load and a store
 * each, rather than a call to memcpy for a length it must first examine.
 */
static inline void obuf_copy_small(char *d, const char *p, size_t n)
{
	if (n >= 8) {
		memcpy(d, p, 8);
		memcpy(d + n - 8, p + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, p, 4);
		memcpy(d + n - 4, p + n - 4, 4);
	} else if (n) {
		d[0] = p[0];
		d[n / 2] = p[n / 2];
		d[n - 1] = p[n - 1];
	}
}

static inline void obuf_write(struct obuf *b, const void *p, size_t n)
{
	if (b->len + n > OBUF_SIZE) {
		obuf_write_slow(b, p, n);
		return;
	}
	if (n <= 16)
		obuf_copy_small(b->data + b->len, p, n);
	else
		memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void obuf_putc(struct obuf *b, char c)
{
	if (b->len == OBUF_SIZE)
		obuf_flush(b);
	b->data[b->len++] = c;
}

static inline void obuf_puts(struct obuf *b, const char *s)
{
	obuf_write(b, s, strlen(s));
}

/*
 * @n blanks (at most OBUF_SIZE).  A table's padding is a few blanks per
 * cell: a store of 32 of them, of which @n count, beats a memset call.
 */
static inline void obuf_spaces(struct obuf *b, size_t n)
{
	static const char blanks[32] = "                                ";

	if (n <= sizeof(blanks))
		memcpy(obuf_room(b, sizeof(blanks)), blanks, sizeof(blanks));
	else
		memset(obuf_room(b, n), ' ', n);
	b->len += n;
}

#endif /* MEMREG_TOOL_OBUF_H */
