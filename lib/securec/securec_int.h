/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the files of libc_sec.so share: the public header, and the test
 * for overlapping regions that every copying function makes.
 */
#ifndef MEMREG_SECUREC_INT_H
#define MEMREG_SECUREC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <securec.h>

/*
 * Whether [a, a + alen) and [b, b + blen) share a byte.  By distance, not
 * by end pointers: a + alen may lie past the end of the address space
 * for a caller's bogus length, and pointers into different objects may
 * only be compared as integers.
 */
static inline bool sec_overlap(const void *a, size_t alen,
			       const void *b, size_t blen)
{
	uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;

	return x <= y ? y - x < alen : x - y < blen;
}

/* destMax as every str* and *printf function accepts it. */
static inline bool sec_str_max_ok(size_t destMax)
{
	return destMax > 0 && destMax <= SECUREC_STRING_MAX_LEN;
}

/* Whether @format has a %n conversion (format.c). */
bool sec_format_has_n(const char *format);

#endif /* MEMREG_SECUREC_INT_H */
