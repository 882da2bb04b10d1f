/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One set of field calls, three text layouts and JSON.
 *
 * A caller describes a record field by field: out_u64(o, "pid", pid), ...
 * With -j each call writes a JSON member named by its key.  Without it each
 * call fills the next column of the layout that was begun:
 *
 *   table  fixed-width columns under a header of column titles (listings)
 *   line   "TAG title value title value ..." on one line (monitor events)
 *   block  "title   value", one field per line (stats, limits)
 *
 * so a field's text label (the column title) and its JSON key are chosen
 * once, in the caller's column array and in its call, and never drift apart
 * between the two outputs.
 */
#ifndef MEMREG_TOOL_OUT_H
#define MEMREG_TOOL_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct out_column {
	const char *title;
	unsigned int width;	/* minimum; the last column is not padded */
};

enum out_layout {
	OUT_TABLE,
	OUT_LINE,
	OUT_BLOCK,
};

struct out {
	FILE *f;		/* written through json.buf, see out_flush() */
	bool json_mode;
	struct json json;
	enum out_layout layout;
	const struct out_column *cols;
	unsigned int ncols;
	unsigned int col;	/* next column to fill */
};

void out_init(struct out *o, FILE *f, bool json, bool pretty);

/*
 * Hand what is buffered to the FILE.  Ending a table, a line or a block
 * does it; call it before writing to the FILE by other means.
 */
void out_flush(struct out *o);

/* A listing: header (text) or '[' (JSON); then rows; then the end. */
void out_table_begin(struct out *o, const struct out_column *cols,
		     unsigned int ncols);
void out_row_begin(struct out *o);
void out_row_end(struct out *o);
void out_table_end(struct out *o);

/* One event line: text starts with @tag, JSON has "event": @tag. */
void out_line_begin(struct out *o, const struct out_column *cols,
		    unsigned int ncols, const char *tag);
void out_line_end(struct out *o);

/* One record of "title value" lines, or one JSON object. */
void out_block_begin(struct out *o, const struct out_column *cols,
		     unsigned int ncols);
void out_block_end(struct out *o);

/* Fields.  Each fills one column in text, one member in JSON. */
void out_u64(struct out *o, const char *key, uint64_t v);
void out_count(struct out *o, const char *key, uint64_t v);	/* "unlimited" */
void out_size(struct out *o, const char *key, uint64_t bytes);	/* 4.0MiB */
void out_hex(struct out *o, const char *key, uint64_t v);	/* 0x... */
/* 0x and 16 digits: a handle's high bits are random, often 0 at the top */
void out_handle(struct out *o, const char *key, uint64_t v);
void out_age(struct out *o, const char *key, uint64_t ms);	/* 3m05s */
void out_string(struct out *o, const char *key, const char *s);

/* A value that is not known: "-" in tables and blocks; nothing elsewhere. */
void out_absent(struct out *o, const char *key);

/* A column of text that JSON carries differently (or not at all). */
void out_text(struct out *o, const char *text);

/* A JSON member that has no column of its own. */
void out_json_u64(struct out *o, const char *key, uint64_t v);

#endif /* MEMREG_TOOL_OUT_H */
