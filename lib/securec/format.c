// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The one check the *printf functions make on the format itself: %n.
 *
 * The formatting is the C library's vsnprintf, so the output is glibc's
 * (the library's own formatter follows the Linux format too).  But %n
 * stores the count so far through a pointer argument, the classic way a
 * format string under an attacker's control becomes a write primitive;
 * the library's formatter has no %n and these functions never write
 * anywhere but strDest, so a format with %n is refused before anything
 * is formatted.
 */
#include <printf.h>
#include <stdlib.h>

#include "securec_int.h"

/*
 * What may stand between '%' and the conversion: an argument number or
 * width or precision ("1$", "*2$", ".3"), flags ("-+ #0'" and glibc's
 * 'I') and length modifiers (hh h l ll L q j z Z t).
 */
#define SPEC_PREFIX	"0123456789$*.-+ #'IhlqjztLZ"

/*
 * Whether the C library's own parser finds an argument that %n would
 * store through (an int of any size, by pointer).  The library that
 * formats is the judge: glibc 2.39 took C23's "%w32n" and "%wf64n",
 * which no list of modifiers written before them knows.
 */
static bool libc_sees_n(const char *format)
{
	int types[16], *t = types;
	size_t n, i;
	bool found = false;

	n = parse_printf_format(format, sizeof(types) / sizeof(types[0]), t);
	if (n > sizeof(types) / sizeof(types[0])) {
		t = calloc(n, sizeof(*t));
		if (!t)
			return true;	/* cannot tell: refuse */
		parse_printf_format(format, n, t);
	}
	for (i = 0; i < n && !found; i++)
		found = (t[i] & PA_FLAG_PTR) &&
			(t[i] & ~PA_FLAG_MASK) == PA_INT;
	if (t != types)
		free(t);
	return found;
}

bool sec_format_has_n(const char *format)
{
	const char *p = format;

	if (libc_sees_n(format))
		return true;
	while ((p = strchr(p, '%'))) {
		p++;
		p += strspn(p, SPEC_PREFIX);
		if (*p == 'n')
			return true;
		if (*p == '\0')
			break;
		p++;		/* the conversion, '%' of "%%" too */
	}
	return false;
}
