// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON writer.  Compact output has no blanks at all; pretty output
 * puts one member per line, indented by two spaces per level.
 */
#include <string.h>

#include "fmt.h"
#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	obuf_init(&j->buf, f);
	j->pretty = pretty;
	j->depth = 0;
	j->need_comma = false;
	j->after_key = false;
}

static void json_indent(struct json *j)
{
	unsigned int i;

	obuf_putc(&j->buf, '\n');
	for (i = 0; i < j->depth; i++)
		obuf_write(&j->buf, "  ", 2);
}

/* Separator and indentation due before a key, or a value not after a key. */
static inline void json_before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma)
		obuf_putc(&j->buf, ',');
	if (j->pretty && j->depth)
		json_indent(j);
}

static void json_open(struct json *j, char c)
{
	json_before_value(j);
	obuf_putc(&j->buf, c);
	j->depth++;
	j->need_comma = false;
}

static void json_close(struct json *j, char c)
{
	j->depth--;
	/* an empty container stays on one line: {} and [] */
	if (j->pretty && j->need_comma)
		json_indent(j);
	obuf_putc(&j->buf, c);
	j->need_comma = true;
	if (!j->depth) {
		/* a whole document: now it may be read (monitor -j) */
		obuf_putc(&j->buf, '\n');
		obuf_flush(&j->buf);
		j->need_comma = false;
	}
}

void json_object_begin(struct json *j)
{
	json_open(j, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, '}');
}

void json_array_begin(struct json *j)
{
	json_open(j, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, ']');
}

void json_key(struct json *j, const char *key)
{
	size_t n = strlen(key);
	char *p;

	json_before_value(j);
	/* keys are the tool's own names, with nothing to escape */
	p = obuf_room(&j->buf, n + 4);
	p[0] = '"';
	memcpy(p + 1, key, n);
	p[n + 1] = '"';
	p[n + 2] = ':';
	p[n + 3] = ' ';
	j->buf.len += n + (j->pretty ? 4 : 3);
	j->after_key = true;
}

void json_u64(struct json *j, uint64_t v)
{
	json_before_value(j);
	j->buf.len += fmt_u64(obuf_room(&j->buf, FMT_U64_LEN), v);
	j->need_comma = true;
}

void json_bool(struct json *j, bool v)
{
	json_before_value(j);
	obuf_write(&j->buf, v ? "true" : "false", v ? 4 : 5);
	j->need_comma = true;
}

void json_string(struct json *j, const char *s)
{
	json_before_value(j);
	json_put_string(&j->buf, s);
	j->need_comma = true;
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

/*
 * Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 if it is not one.
 */
static size_t utf8_sequence_len(const unsigned char *p)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		if (p[0] == 0xe0)
			lo = 0xa0;
		else if (p[0] == 0xed)
			hi = 0x9f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		if (p[0] == 0xf0)
			lo = 0x90;
		else if (p[0] == 0xf4)
			hi = 0x8f;
	} else {
		return 0;
	}
	/* only the second byte has a narrowed range; a NUL ends it early */
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* The escape of @c, a byte that cannot stand for itself in a string. */
static void json_put_escape(struct obuf *b, unsigned char c)
{
	static const char digits[] = "0123456789abcdef";
	char u[6] = { '\\', 'u', '0', '0' };

	switch (c) {
	case '"':
		obuf_write(b, "\\\"", 2);
		return;
	case '\\':
		obuf_write(b, "\\\\", 2);
		return;
	case '\b':
		obuf_write(b, "\\b", 2);
		return;
	case '\f':
		obuf_write(b, "\\f", 2);
		return;
	case '\n':
		obuf_write(b, "\\n", 2);
		return;
	case '\r':
		obuf_write(b, "\\r", 2);
		return;
	case '\t':
		obuf_write(b, "\\t", 2);
		return;
	}
	/* the other controls and DEL, all below 0x80: \u00XX */
	u[4] = digits[c >> 4];
	u[5] = digits[c & 0xf];
	obuf_write(b, u, sizeof(u));
}

/*
 * Runs of bytes that need no escape are copied whole: keys and most
 * values are plain ASCII, and a byte at a time is what made this slow.
 */
void json_put_string(struct obuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run;
	size_t n;

	obuf_putc(b, '"');
	run = p;
	while (*p) {
		if (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') {
			p++;
			continue;
		}
		obuf_write(b, run, p - run);
		if (*p < 0x80) {
			json_put_escape(b, *p++);
		} else {
			n = utf8_sequence_len(p);
			if (n) {
				obuf_write(b, p, n);
				p += n;
			} else {
				obuf_write(b, "\\ufffd", 6);
				p++;
			}
		}
		run = p;
	}
	obuf_write(b, run, p - run);
	obuf_putc(b, '"');
}

void json_write_string(FILE *f, const char *s)
{
	struct obuf b;

	obuf_init(&b, f);
	json_put_string(&b, s);
	obuf_flush(&b);
}
