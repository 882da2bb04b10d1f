// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Just enough JSON for the two options hixl takes as JSON text,
 * LocalCommRes and GlobalResourceConfig: whether a text is JSON at all
 * (hixl refuses one that is not: PARAM_INVALID), and whether a member of
 * its top-level object is a given string, or an array that holds it
 * (which of hixl's engines the options select, engine.c).
 *
 * A strict reader of RFC 8259, recursive and bounded in depth; it keeps
 * nothing.  Strings are compared after their escapes are decoded, so
 * "1\u002e3" is "1.3", as hixl's JSON library reads it.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "adxl_int.h"

#define DEPTH_MAX	64

struct jrd {
	const char *p;
	int depth;
};

static void skip_ws(struct jrd *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')
		j->p++;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * A string at j->p (its opening quote): 0 with j->p past it, -1 if it is
 * not one.  With @want, *@eq says whether it decodes to @want exactly
 * (a \u escape is compared as the one byte it is below 0x80, and is
 * unequal above: hixl's values are ASCII).
 */
static int read_string(struct jrd *j, const char *want, bool *eq)
{
	const char *w = want;
	bool same = want != NULL;

	if (*j->p != '"')
		return -1;
	j->p++;
	for (;;) {
		unsigned char c = (unsigned char)*j->p;
		uint32_t u;
		int byte;

		if (c == '"')
			break;
		if (c < 0x20)	/* controls, and the end of the text */
			return -1;
		j->p++;
		byte = c;
		if (c == '\\') {
			c = (unsigned char)*j->p++;
			switch (c) {
			case '"': case '\\': case '/':
				byte = c;
				break;
			case 'b': byte = '\b'; break;
			case 'f': byte = '\f'; break;
			case 'n': byte = '\n'; break;
			case 'r': byte = '\r'; break;
			case 't': byte = '\t'; break;
			case 'u':
				if (hex4(j->p, &u))
					return -1;
				j->p += 4;
				byte = u < 0x80 ? (int)u : -1;
				break;
			default:
				return -1;
			}
		}
		if (same) {
			if (byte < 0 || !*w || (unsigned char)*w != byte)
				same = false;
			else
				w++;
		}
	}
	j->p++;
	if (eq)
		*eq = same && !*w;
	return 0;
}

static int read_number(struct jrd *j)
{
	const char *p = j->p;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return -1;
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (*p < '0' || *p > '9')
			return -1;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	j->p = p;
	return 0;
}

static int read_word(struct jrd *j, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(j->p, word, n))
		return -1;
	j->p += n;
	return 0;
}

/*
 * Any value at j->p (no white space before it): 0 with j->p past it.
 * With @want, *@has says whether it is the string @want or an array
 * with that string among its elements.
 */
static int read_value(struct jrd *j, const char *want, bool *has)
{
	bool eq;
	int ret = 0;

	if (has)
		*has = false;
	if (++j->depth > DEPTH_MAX)
		return -1;
	switch (*j->p) {
	case '{':
		j->p++;
		skip_ws(j);
		if (*j->p == '}') {
			j->p++;
			break;
		}
		for (;;) {
			skip_ws(j);
			if (read_string(j, NULL, NULL))
				return -1;
			skip_ws(j);
			if (*j->p++ != ':')
				return -1;
			skip_ws(j);
			if (read_value(j, NULL, NULL))
				return -1;
			skip_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != '}')
				return -1;
			break;
		}
		break;
	case '[':
		j->p++;
		skip_ws(j);
		if (*j->p == ']') {
			j->p++;
			break;
		}
		for (;;) {
			skip_ws(j);
			if (*j->p == '"' && want) {
				if (read_string(j, want, &eq))
					return -1;
				if (eq && has)
					*has = true;
			} else if (read_value(j, NULL, NULL)) {
				return -1;
			}
			skip_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p++ != ']')
				return -1;
			break;
		}
		break;
	case '"':
		ret = read_string(j, want, &eq);
		if (!ret && has)
			*has = eq;
		break;
	case 't':
		ret = read_word(j, "true");
		break;
	case 'f':
		ret = read_word(j, "false");
		break;
	case 'n':
		ret = read_word(j, "null");
		break;
	default:
		ret = read_number(j);
		break;
	}
	j->depth--;
	return ret;
}

int adxl__json_check(const char *text, bool *is_object)
{
	struct jrd j = { .p = text };

	skip_ws(&j);
	if (is_object)
		*is_object = *j.p == '{';
	if (read_value(&j, NULL, NULL))
		return -1;
	skip_ws(&j);
	return *j.p ? -1 : 0;
}

bool adxl__json_member_has(const char *text, const char *key,
			   const char *want)
{
	struct jrd j = { .p = text };
	bool found = false, eq, has;

	skip_ws(&j);
	if (*j.p != '{')
		return false;
	j.p++;
	j.depth = 1;
	skip_ws(&j);
	if (*j.p == '}')
		return false;
	for (;;) {
		skip_ws(&j);
		if (read_string(&j, key, &eq))
			return false;
		skip_ws(&j);
		if (*j.p++ != ':')
			return false;
		skip_ws(&j);
		if (read_value(&j, eq ? want : NULL, &has))
			return false;
		/* hixl's library keeps the last of duplicate members */
		if (eq)
			found = has;
		skip_ws(&j);
		if (*j.p == ',') {
			j.p++;
			continue;
		}
		return *j.p == '}' ? found : false;
	}
}

/*
 * The integer at @p: a JSON number without fraction or exponent, or a
 * string holding one (hixl reads both); 0 and *@out, or -1.
 */
static int int_at(const char *p, long long *out)
{
	bool quoted = *p == '"';
	char *end;

	if (quoted)
		p++;
	if (*p != '-' && (*p < '0' || *p > '9'))
		return -1;
	errno = 0;
	*out = strtoll(p, &end, 10);
	if (errno || *end == '.' || *end == 'e' || *end == 'E')
		return -1;
	return quoted && *end != '"' ? -1 : 0;
}

int adxl__json_member_int(const char *text, const char *key, long long *out)
{
	struct jrd j = { .p = text };
	int found = 1;
	bool eq;

	skip_ws(&j);
	if (*j.p != '{')
		return -1;
	j.p++;
	j.depth = 1;
	skip_ws(&j);
	if (*j.p == '}')
		return 1;
	for (;;) {
		skip_ws(&j);
		if (read_string(&j, key, &eq))
			return -1;
		skip_ws(&j);
		if (*j.p++ != ':')
			return -1;
		skip_ws(&j);
		/* hixl's library keeps the last of duplicate members */
		if (eq)
			found = int_at(j.p, out);
		if (read_value(&j, NULL, NULL))
			return -1;
		skip_ws(&j);
		if (*j.p == ',') {
			j.p++;
			continue;
		}
		return *j.p == '}' ? found : -1;
	}
}
