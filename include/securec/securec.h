/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * securec.h - bounds-checked memory and string functions, source
 * compatible with the commonly used part of Huawei's secure C library
 * (libboundscheck), which a CANN toolkit ships as include/securec.h and
 * lib64/libc_sec.so and CANN's samples call (memset_s, memcpy_s, ...).
 * memreg's CANN tree has this header in include/ and the functions in
 * lib64/libc_sec.so (lib/securec); libmemreg itself does not export them,
 * so a program that brings its own libboundscheck keeps it.
 *
 * Every function takes the size of the destination, destMax, and checks
 * its arguments before writing.  On a violation it returns an error and,
 * when the destination is usable (not NULL, destMax in 1 ..
 * SECUREC_*_MAX_LEN), resets it so that no half-written data remains:
 * the mem* functions fill all destMax bytes (with 0, or memset_s's value),
 * the str* and *printf functions make it the empty string.  The codes:
 *
 *   EOK                  success
 *   EINVAL               dest is NULL (nothing was written)
 *   EINVAL_AND_RESET     src is NULL, or strcat_s/strncat_s's dest has no
 *                        terminator within destMax; dest was reset
 *   ERANGE               destMax is 0 or above SECUREC_*_MAX_LEN (nothing
 *                        was written)
 *   ERANGE_AND_RESET     the result does not fit in destMax (or count is
 *                        above SECUREC_STRING_MAX_LEN); dest was reset
 *   EOVERLAP_AND_RESET   source and destination overlap (not memmove_s);
 *                        dest was reset
 *
 * The *printf functions return the length written (without the
 * terminator) or -1; see each below.  %n is refused (-1): it would write
 * through an argument, which these functions never do.
 */
#ifndef MEMREG_SECUREC_H
#define MEMREG_SECUREC_H

#include <errno.h>
#include <stdarg.h>

#include "securectype.h"

/* errno_t, as C11's Annex K names it; the C library has none. */
#ifndef SECUREC_DEFINED_ERRNO_TYPE
#define SECUREC_DEFINED_ERRNO_TYPE
#ifndef errno_t
typedef int errno_t;
#endif
#endif

/*
 * The library's documented values: EINVAL and ERANGE are the C library's
 * (22 and 34 on Linux); a *_AND_RESET code is the plain one | 128, and
 * the overlap code is 54 | 128.
 */
#ifndef EOK
#define EOK			0
#endif
#ifndef EINVAL
#define EINVAL			22
#endif
#ifndef ERANGE
#define ERANGE			34
#endif
#ifndef EINVAL_AND_RESET
#define EINVAL_AND_RESET	150
#endif
#ifndef ERANGE_AND_RESET
#define ERANGE_AND_RESET	162
#endif
#ifndef EOVERLAP_AND_RESET
#define EOVERLAP_AND_RESET	182
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Copy @count bytes of @src to @dest (a buffer of @destMax bytes).  The
 * regions must not overlap (EOVERLAP_AND_RESET); dest == src copies
 * nothing and succeeds.  count 0 succeeds.
 */
errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count);

/* As memcpy_s, but the regions may overlap. */
errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count);

/*
 * Set @count bytes of @dest to (unsigned char)@c.  count > destMax sets
 * all destMax bytes and returns ERANGE_AND_RESET.  The stores are not
 * optimised away: use it to wipe secrets.
 */
errno_t memset_s(void *dest, size_t destMax, int c, size_t count);

/* Copy the string @strSrc with its terminator; it must fit in destMax. */
errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc);

/*
 * Copy at most @count characters of @strSrc and a terminator.  The result
 * must fit in destMax; count 0 makes strDest the empty string.
 */
errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc,
		  size_t count);

/*
 * Append @strSrc to the string in @strDest; destMax is the size of the
 * whole buffer, not of what is left.
 */
errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc);

/* Append at most @count characters of @strSrc, and a terminator. */
errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc,
		  size_t count);

/*
 * Format into @strDest.  Returns the length written; -1 if the arguments
 * are invalid, the format is, or the output does not fit in destMax (the
 * destination is then the empty string).
 */
int sprintf_s(char *strDest, size_t destMax, const char *format, ...)
	SECUREC_ATTRIBUTE(3, 4);
int vsprintf_s(char *strDest, size_t destMax, const char *format,
	       va_list argList) SECUREC_ATTRIBUTE(3, 0);

/*
 * Format at most @count characters into @strDest.  Returns the length
 * written, or -1:
 *  - count < destMax and the output is longer than count: the first count
 *    characters are kept, terminated (truncation is reported as -1);
 *  - count >= destMax and the output does not fit in destMax: the
 *    destination is the empty string;
 *  - invalid arguments (count above SECUREC_STRING_MAX_LEN - 1 too) or
 *    format: the destination is the empty string.
 */
int snprintf_s(char *strDest, size_t destMax, size_t count,
	       const char *format, ...) SECUREC_ATTRIBUTE(4, 5);
int vsnprintf_s(char *strDest, size_t destMax, size_t count,
		const char *format, va_list argList) SECUREC_ATTRIBUTE(4, 0);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_SECUREC_H */
