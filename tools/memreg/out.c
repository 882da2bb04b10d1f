// SPDX-License-Identifier: GPL-2.0
/*
 * Field-by-field output: text layouts and JSON behind one interface.
 *
 * Text goes through the JSON writer's output buffer (o->json.buf), the
 * one buffer of struct out, so that the two never interleave out of
 * order.  JSON is flushed in blocks, when the buffer fills and when a
 * top-level value ends; text at the end of each row, line and block.
 * Numbers are formatted by hand (fmt_u64): a listing is 100,000 rows of
 * them.
 */
#include <string.h>

#include "fmt.h"
#include "out.h"

void out_init(struct out *o, FILE *f, bool json, bool pretty)
{
	memset(o, 0, sizeof(*o));
	o->f = f;
	o->json_mode = json;
	json_init(&o->json, f, pretty);
}

static void out_layout_begin(struct out *o, enum out_layout layout,
			     const struct out_column *cols, unsigned int ncols)
{
	o->layout = layout;
	o->cols = cols;
	o->ncols = ncols;
	o->col = 0;
}

/* Characters a terminal shows for @s: UTF-8 continuation bytes add none. */
static size_t display_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void out_pad(struct obuf *b, size_t have, size_t want)
{
	if (have < want)
		obuf_spaces(b, want - have);
}

/*
 * Put @text (@len bytes, @width characters on a terminal) into the next
 * column.  @present false means the value is unknown: tables and blocks
 * keep their shape with "-", an event line just leaves the field out.
 */
static void out_cell_n(struct out *o, const char *text, size_t len,
		       size_t width, bool present)
{
	struct obuf *b = &o->json.buf;
	const struct out_column *c;
	bool last;

	if (o->col >= o->ncols)
		return;		/* more fields than columns: a caller bug */
	c = &o->cols[o->col++];
	last = o->col == o->ncols;
	if (!present) {
		text = "-";
		len = width = 1;
	}

	switch (o->layout) {
	case OUT_TABLE:
		obuf_write(b, text, len);
		/* a value wider than its column pushes the rest right */
		if (!last) {
			out_pad(b, width, c->width);
			obuf_putc(b, ' ');
		}
		break;
	case OUT_LINE:
		if (present) {
			obuf_putc(b, ' ');
			obuf_puts(b, c->title);
			obuf_putc(b, ' ');
			obuf_write(b, text, len);
		}
		break;
	case OUT_BLOCK:
		obuf_puts(b, c->title);
		out_pad(b, strlen(c->title), c->width);
		obuf_putc(b, ' ');
		obuf_write(b, text, len);
		obuf_putc(b, '\n');
		break;
	}
}

static void out_cell(struct out *o, const char *text, bool present)
{
	if (!present)
		out_cell_n(o, NULL, 0, 0, false);
	else
		out_cell_n(o, text, strlen(text), display_width(text), true);
}

/* A cell of ASCII: as many characters as bytes. */
static void out_cell_ascii(struct out *o, const char *text, size_t len)
{
	out_cell_n(o, text, len, len, true);
}

void out_flush(struct out *o)
{
	obuf_flush(&o->json.buf);
}

void out_table_begin(struct out *o, const struct out_column *cols,
		     unsigned int ncols)
{
	unsigned int i;

	out_layout_begin(o, OUT_TABLE, cols, ncols);
	if (o->json_mode) {
		json_array_begin(&o->json);
		return;
	}
	for (i = 0; i < ncols; i++)
		out_cell(o, cols[i].title, true);
	obuf_putc(&o->json.buf, '\n');
}

void out_row_begin(struct out *o)
{
	o->col = 0;
	if (o->json_mode)
		json_object_begin(&o->json);
}

void out_row_end(struct out *o)
{
	if (o->json_mode) {
		json_object_end(&o->json);
		return;
	}
	/*
	 * A text row is a whole line, and is in the FILE once written, as
	 * it always was: one fwrite per row, not one call per character.
	 * JSON rows are not a document on their own and wait for the buffer
	 * to fill or the table to end.
	 */
	obuf_putc(&o->json.buf, '\n');
	out_flush(o);
}

void out_table_end(struct out *o)
{
	if (o->json_mode)
		json_array_end(&o->json);
	out_flush(o);
}

void out_line_begin(struct out *o, const struct out_column *cols,
		    unsigned int ncols, const char *tag)
{
	out_layout_begin(o, OUT_LINE, cols, ncols);
	if (o->json_mode) {
		json_object_begin(&o->json);
		json_kv_string(&o->json, "event", tag);
	} else {
		obuf_puts(&o->json.buf, tag);
	}
}

void out_line_end(struct out *o)
{
	if (o->json_mode)
		json_object_end(&o->json);
	else
		obuf_putc(&o->json.buf, '\n');
	/* an event is seen when it happens, not a buffer later */
	out_flush(o);
}

void out_block_begin(struct out *o, const struct out_column *cols,
		     unsigned int ncols)
{
	out_layout_begin(o, OUT_BLOCK, cols, ncols);
	if (o->json_mode)
		json_object_begin(&o->json);
}

void out_block_end(struct out *o)
{
	if (o->json_mode)
		json_object_end(&o->json);
	out_flush(o);
}

void out_u64(struct out *o, const char *key, uint64_t v)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, v);
		return;
	}
	out_cell_ascii(o, buf, fmt_u64(buf, v));
}

void out_count(struct out *o, const char *key, uint64_t v)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, v);
		return;
	}
	fmt_count(buf, sizeof(buf), v);
	out_cell(o, buf, true);
}

void out_size(struct out *o, const char *key, uint64_t bytes)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, bytes);
		return;
	}
	fmt_size(buf, sizeof(buf), bytes);
	out_cell(o, buf, true);
}

void out_hex(struct out *o, const char *key, uint64_t v)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, v);
		return;
	}
	buf[0] = '0';
	buf[1] = 'x';
	out_cell_ascii(o, buf, 2 + fmt_hex(buf + 2, v));
}

void out_handle(struct out *o, const char *key, uint64_t v)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, v);
		return;
	}
	buf[0] = '0';
	buf[1] = 'x';
	out_cell_ascii(o, buf, 2 + fmt_hex16(buf + 2, v));
}

void out_age(struct out *o, const char *key, uint64_t ms)
{
	char buf[FMT_BUF_LEN];

	if (o->json_mode) {
		json_kv_u64(&o->json, key, ms);
		return;
	}
	fmt_age(buf, sizeof(buf), ms);
	out_cell(o, buf, true);
}

/*
 * Text output shows control characters as '?', as ps(1) does: a comm set
 * with prctl(PR_SET_NAME) must not be able to move the cursor or break the
 * one-record-per-line shape of the output.
 */
void out_string(struct out *o, const char *key, const char *s)
{
	char buf[256];
	size_t i;

	if (o->json_mode) {
		json_kv_string(&o->json, key, s);
		return;
	}
	for (i = 0; s[i] && i < sizeof(buf) - 1; i++) {
		unsigned char c = s[i];

		buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[i] = '\0';
	out_cell(o, buf, true);
}

void out_absent(struct out *o, const char *key)
{
	(void)key;
	if (!o->json_mode)
		out_cell(o, NULL, false);
}

void out_text(struct out *o, const char *text)
{
	if (!o->json_mode)
		out_cell(o, text, true);
}

void out_json_u64(struct out *o, const char *key, uint64_t v)
{
	if (o->json_mode)
		json_kv_u64(&o->json, key, v);
}
