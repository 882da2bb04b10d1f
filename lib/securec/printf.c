// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sprintf_s, vsprintf_s, snprintf_s and vsnprintf_s: format into a buffer
 * of destMax, by the C library's vsnprintf (format.c says why %n is
 * refused).
 *
 * What happens to an output that does not fit is the library's
 * documented behaviour, which differs between the two families:
 *  - sprintf_s has no count: an output longer than destMax - 1 is an
 *    error, -1, and strDest is emptied rather than left truncated;
 *  - snprintf_s with count < destMax asks for truncation at count: the
 *    first count characters are kept, terminated, but the return value
 *    is still -1 (not the length, as C's snprintf), so a caller testing
 *    for < 0 sees that the output was cut;
 *  - snprintf_s with count >= destMax is bounded by destMax alone and
 *    behaves as sprintf_s.
 * Invalid arguments (strDest or format NULL, destMax 0 or above
 * SECUREC_STRING_MAX_LEN, count above SECUREC_STRING_MAX_LEN - 1) return
 * -1 and empty strDest when it is usable.
 */
#include "securec_int.h"

/* strDest's first byte, when the arguments say it may be written. */
static void clear_dest(char *strDest, size_t destMax)
{
	if (strDest && sec_str_max_ok(destMax))
		strDest[0] = '\0';
}

/*
 * Format into @size bytes; the length the whole output needs, or -1 for
 * a format refused or that the C library could not format.
 */
static int format_into(char *strDest, size_t size, const char *format,
		       va_list argList)
{
	if (sec_format_has_n(format))
		return -1;
	return vsnprintf(strDest, size, format, argList);
}

/*
 * The output bounded by destMax alone (sprintf_s, and snprintf_s with
 * count >= destMax), the arguments already checked.  The public entry
 * points call these static functions, not each other, so that another
 * secure C library in the process cannot take over half a call.
 */
static int print_whole(char *strDest, size_t destMax, const char *format,
		       va_list argList)
{
	int n = format_into(strDest, destMax, format, argList);

	if (n < 0 || (size_t)n >= destMax) {
		strDest[0] = '\0';
		return -1;
	}
	return n;
}

static int print_sprintf(char *strDest, size_t destMax, const char *format,
			 va_list argList)
{
	if (!strDest || !format || !sec_str_max_ok(destMax)) {
		clear_dest(strDest, destMax);
		return -1;
	}
	return print_whole(strDest, destMax, format, argList);
}

static int print_snprintf(char *strDest, size_t destMax, size_t count,
			  const char *format, va_list argList)
{
	int n;

	if (!strDest || !format || !sec_str_max_ok(destMax) ||
	    count > SECUREC_STRING_MAX_LEN - 1) {
		clear_dest(strDest, destMax);
		return -1;
	}
	if (count >= destMax)
		return print_whole(strDest, destMax, format, argList);

	n = format_into(strDest, count + 1, format, argList);
	if (n < 0) {
		strDest[0] = '\0';
		return -1;
	}
	/* Truncated at count: the text stays, the caller is told. */
	if ((size_t)n > count)
		return -1;
	return n;
}

int vsprintf_s(char *strDest, size_t destMax, const char *format,
	       va_list argList)
{
	return print_sprintf(strDest, destMax, format, argList);
}

int vsnprintf_s(char *strDest, size_t destMax, size_t count,
		const char *format, va_list argList)
{
	return print_snprintf(strDest, destMax, count, format, argList);
}

int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = print_sprintf(strDest, destMax, format, ap);
	va_end(ap);
	return n;
}

int snprintf_s(char *strDest, size_t destMax, size_t count,
	       const char *format, ...)
{
	va_list ap;
	int n;

	va_start(ap, format);
	n = print_snprintf(strDest, destMax, count, format, ap);
	va_end(ap);
	return n;
}
