// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memcpy_s and memmove_s: copy count bytes into a buffer of destMax.
 *
 * The checks come in the library's documented order, which decides the
 * code when several arguments are wrong: destMax first (nothing can be
 * written, ERANGE), then a NULL pointer (EINVAL, or EINVAL_AND_RESET when
 * dest is usable), then count against destMax, then (memcpy_s only)
 * overlap.  Every error after the first two fills dest with zeros, so a
 * caller that ignores the code reads no stale or partial data.
 */
#include "securec_int.h"

/* The checks both functions make; EOK when the copy may go ahead. */
static errno_t copy_check(void *dest, size_t destMax, const void *src,
			  size_t count)
{
	if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
		return ERANGE;
	if (!dest)
		return EINVAL;
	if (!src) {
		memset(dest, 0, destMax);
		return EINVAL_AND_RESET;
	}
	if (count > destMax) {
		memset(dest, 0, destMax);
		return ERANGE_AND_RESET;
	}
	return EOK;
}

errno_t memcpy_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t ret = copy_check(dest, destMax, src, count);

	/* dest == src is a copy onto itself: nothing to do, not an error. */
	if (ret != EOK || dest == src || count == 0)
		return ret;
	if (sec_overlap(dest, count, src, count)) {
		memset(dest, 0, destMax);
		return EOVERLAP_AND_RESET;
	}
	memcpy(dest, src, count);
	return EOK;
}

errno_t memmove_s(void *dest, size_t destMax, const void *src, size_t count)
{
	errno_t ret = copy_check(dest, destMax, src, count);

	if (ret != EOK || dest == src || count == 0)
		return ret;
	memmove(dest, src, count);
	return EOK;
}
