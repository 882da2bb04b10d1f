// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming JSON writer.  Compact output has no blanks at all; pretty output
 * puts one member per line, indented by two spaces per level.
 */
#include <inttypes.h>

#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->need_comma = false;
	j->after_key = false;
}

static void json_indent(struct json *j)
{
	unsigned int i;

	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and indentation due before a key, or a value not after a key. */
static void json_before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma)
		fputc(',', j->f);
	if (j->pretty && j->depth)
		json_indent(j);
}

static void json_open(struct json *j, char c)
{
	json_before_value(j);
	fputc(c, j->f);
	j->depth++;
	j->need_comma = false;
}

static void json_close(struct json *j, char c)
{
	j->depth--;
	/* an empty container stays on one line: {} and [] */
	if (j->pretty && j->need_comma)
		json_indent(j);
	fputc(c, j->f);
	j->need_comma = true;
	if (!j->depth) {
		fputc('\n', j->f);
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
	json_before_value(j);
	json_write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void json_u64(struct json *j, uint64_t v)
{
	json_before_value(j);
	fprintf(j->f, "%" PRIu64, v);
	j->need_comma = true;
}

void json_string(struct json *j, const char *s)
{
	json_before_value(j);
	json_write_string(j->f, s);
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

void json_write_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	fputc('"', f);
	while (*p) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				n = utf8_sequence_len(p);
				if (!n) {
					fputs("\\ufffd", f);
					break;
				}
				fwrite(p, 1, n, f);
				p += n;
				continue;
			}
		}
		p++;
	}
	fputc('"', f);
}
