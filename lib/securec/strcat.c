// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * strcat_s and strncat_s: append a string, or its first count characters,
 * to the string in a buffer of destMax (the whole buffer, not what is
 * left of it).
 *
 * strDest must hold a terminated string within destMax: if it does not,
 * the buffer is not a string at all and the call fails with
 * EINVAL_AND_RESET (an argument error), where a string that merely leaves
 * too little room fails with ERANGE_AND_RESET.  Overlap between the
 * bytes read and the bytes the result occupies is EOVERLAP_AND_RESET,
 * and appending a string to itself is refused as too long, as the library
 * documents.  After the destMax and NULL checks every failure leaves
 * strDest the empty string.
 */
#include "securec_int.h"

/* Append at most @count characters of @strSrc. */
static errno_t cat_limit(char *strDest, size_t destMax, const char *strSrc,
			 size_t count)
{
	size_t dlen = strnlen(strDest, destMax);
	bool unterminated = dlen == destMax;
	size_t slen;

	/*
	 * The source is read only as far as could fit.  (The library reads
	 * strncat_s's source up to count: a source that does not fit and
	 * also runs into strDest is EOVERLAP_AND_RESET there, ERANGE_AND_RESET
	 * here.  Either way the call fails and strDest is emptied.)
	 */
	if (count > destMax - dlen)
		count = destMax - dlen;
	slen = strnlen(strSrc, count);
	/*
	 * The result is strDest[0 .. dlen + slen], from strSrc[0 .. slen].
	 * A source beyond an unterminated destination is not an overlap of
	 * the caller's making: the destination is the argument at fault.
	 * strDest == strSrc is not taken for an overlap but refused below,
	 * as the library does (ERANGE_AND_RESET, even when it would fit).
	 */
	if (strDest != strSrc &&
	    sec_overlap(strDest, dlen + slen + 1, strSrc, slen + 1)) {
		strDest[0] = '\0';
		if (unterminated && (uintptr_t)strSrc >= (uintptr_t)strDest + dlen)
			return EINVAL_AND_RESET;
		return EOVERLAP_AND_RESET;
	}
	if (dlen + slen >= destMax || strDest == strSrc) {
		strDest[0] = '\0';
		return unterminated ? EINVAL_AND_RESET : ERANGE_AND_RESET;
	}
	memcpy(strDest + dlen, strSrc, slen);
	strDest[dlen + slen] = '\0';
	return EOK;
}

/* The argument checks both make; EOK when they may go on. */
static errno_t cat_args(char *strDest, size_t destMax, const char *strSrc)
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

errno_t strcat_s(char *strDest, size_t destMax, const char *strSrc)
{
	errno_t ret = cat_args(strDest, destMax, strSrc);

	if (ret != EOK)
		return ret;
	return cat_limit(strDest, destMax, strSrc, destMax);
}

errno_t strncat_s(char *strDest, size_t destMax, const char *strSrc,
		  size_t count)
{
	errno_t ret = cat_args(strDest, destMax, strSrc);

	if (ret != EOK)
		return ret;
	if (count > SECUREC_STRING_MAX_LEN) {
		strDest[0] = '\0';
		return ERANGE_AND_RESET;
	}
	return cat_limit(strDest, destMax, strSrc, count);
}
