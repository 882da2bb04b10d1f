// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memset_s: set count bytes of a buffer of destMax.
 *
 * Unlike the copies, an oversized count is still carried out as far as
 * the buffer goes: all destMax bytes are set to the value (the library's
 * documented reset for this function), and ERANGE_AND_RESET says the
 * request was larger.
 */
#include "securec_int.h"

/*
 * memset_s is what programs call to wipe keys and passwords before the
 * memory is freed.  A call into this library cannot be elided by the
 * caller's compiler, but a link-time optimiser that sees both sides
 * could drop stores it finds dead: the empty asm says the memory is read.
 */
static void set_bytes(void *dest, int c, size_t n)
{
	memset(dest, c, n);
	__asm__ __volatile__("" : : "r"(dest) : "memory");
}

errno_t memset_s(void *dest, size_t destMax, int c, size_t count)
{
	if (destMax == 0 || destMax > SECUREC_MEM_MAX_LEN)
		return ERANGE;
	if (!dest)
		return EINVAL;
	if (count > destMax) {
		set_bytes(dest, c, destMax);
		return ERANGE_AND_RESET;
	}
	set_bytes(dest, c, count);
	return EOK;
}
