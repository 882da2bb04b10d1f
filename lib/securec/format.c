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
#include "securec_int.h"

/*
 * What may stand between '%' and the conversion: an argument number or
 * width or precision ("1$", "*2$", ".3"), flags ("-+ #0'" and glibc's
 * 'I') and length modifiers (hh h l ll L q j z Z t).
 */
#define SPEC_PREFIX	"0123456789$*.-+ #'IhlqjztLZ"

bool sec_format_has_n(const char *format)
{
	const char *p = format;

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
