// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strcpy_s and strncpy_s: copy a string, or its first count characters,
 * with a terminator, into a buffer of destMax.
 *
 * The source is read only as far as could fit (strnlen with destMax), so
 * an unterminated source never makes these functions read past what
 * they could copy.  The checks come in the library's documented order:
 * destMax (ERANGE), NULL pointers (EINVAL, EINVAL_AND_RESET), then
 * whether the result fits (ERANGE_AND_RESET), then overlap
 * (EOVERLAP_AND_RESET).  After the first two a failure leaves strDest
 * the empty string.
 */
#include "securec_int.h"

/* The argument checks both make; EOK when they may go on. */
static errno_t str_args(char *strDest, size_t destMax, const char *strSrc)
{
	if (!sec_str_max_ok(destMax))
		return ERANGE;
	if (!strDest)
		return EINVAL;
	if (!strSrc) {
		strDest[0] = '\0';
		return EINVAL_AND_RESET;
	}
	return EOK;
}

/*
 * Copy @len characters and a terminator, unless the @len + 1 bytes read
 * and the @len + 1 written overlap.  strDest == strSrc is no overlap: the
 * string is already there (strncpy_s still cuts it at @len).
 */
static errno_t copy_len(char *strDest, const char *strSrc, size_t len)
{
	if (strDest != strSrc) {
		if (sec_overlap(strDest, len + 1, strSrc, len + 1)) {
			strDest[0] = '\0';
			return EOVERLAP_AND_RESET;
		}
		memcpy(strDest, strSrc, len);
	}
	strDest[len] = '\0';
	return EOK;
}

errno_t strcpy_s(char *strDest, size_t destMax, const char *strSrc)
{
	errno_t ret = str_args(strDest, destMax, strSrc);
	size_t len;

	if (ret != EOK)
		return ret;
	len = strnlen(strSrc, destMax);
	if (len == destMax) {	/* no room for the terminator */
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	return copy_len(strDest, strSrc, len);
}

errno_t strncpy_s(char *strDest, size_t destMax, const char *strSrc,
		  size_t count)
{
	errno_t ret = str_args(strDest, destMax, strSrc);
	size_t len;

	if (ret != EOK)
		return ret;
	if (count > SECUREC_STRING_MAX_LEN) {
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	/* count < destMax always fits; otherwise the string must end first. */
	len = strnlen(strSrc, count < destMax ? count : destMax);
	if (len == destMax) {
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	return copy_len(strDest, strSrc, len);
}
