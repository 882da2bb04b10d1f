/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: values go to a FILE as they are produced,
 * through an output buffer of fixed size, so a dump of 100,000 rows never
 * sits in memory.  The buffer is flushed when a top-level value ends.
 */
#ifndef MEMREG_TOOL_JSON_H
#define MEMREG_TOOL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "obuf.h"

struct json {
	struct obuf buf;	/* the text layouts of struct out share it */
	bool pretty;
	unsigned int depth;
	bool need_comma;	/* the open container already holds a value */
	bool after_key;		/* a key was written; its value comes next */
};

void json_init(struct json *j, FILE *f, bool pretty);

/* Closing a top-level container ends the line (one document per line). */
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);

/* @key is one of the tool's names: ASCII that needs no escape. */
void json_key(struct json *j, const char *key);
void json_u64(struct json *j, uint64_t v);
void json_bool(struct json *j, bool v);
void json_string(struct json *j, const char *s);

/* Key and value in one call. */
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_string(struct json *j, const char *key, const char *s);

/*
 * Write @s as a quoted JSON string.  Control characters are escaped, and
 * bytes that are not valid UTF-8 (a task's comm is any 15 bytes) become
 * U+FFFD so that the output is always valid JSON.
 */
void json_write_string(FILE *f, const char *s);
void json_put_string(struct obuf *b, const char *s);

#endif /* MEMREG_TOOL_JSON_H */
