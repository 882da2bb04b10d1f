/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * securectype.h - the limits and configuration macros of the secure C
 * functions (<securec.h>), under the names of Huawei's secure C library
 * (libboundscheck; securectype.h in a CANN toolkit's include/).  Programs
 * include <securec.h>, which includes this file.
 */
#ifndef MEMREG_SECURECTYPE_H
#define MEMREG_SECURECTYPE_H

/*
 * What the library's header brings in, for programs that call memcpy(),
 * printf() or malloc() after including only <securec.h>.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The largest destMax (and, for the strn* functions, count) a call
 * accepts: 2 GiB - 1, as documented for the library.  A larger destMax
 * is taken for an underflowed size (a negative length cast to size_t)
 * and refused with ERANGE.  The library decides with its own values;
 * defining these before the include changes only what the program sees.
 */
#ifndef SECUREC_STRING_MAX_LEN
#define SECUREC_STRING_MAX_LEN	0x7fffffffUL
#endif
#ifndef SECUREC_MEM_MAX_LEN
#define SECUREC_MEM_MAX_LEN	0x7fffffffUL
#endif

/*
 * The printf-like functions carry no format attribute unless the program
 * asks for one with -DSECUREC_SUPPORT_FORMAT_WARNING=1, as with the
 * library's own header: code written against it that passes, say, a
 * uint64_t to %lu must build here with -Wall -Werror too.
 */
#ifndef SECUREC_SUPPORT_FORMAT_WARNING
#define SECUREC_SUPPORT_FORMAT_WARNING	0
#endif
#if SECUREC_SUPPORT_FORMAT_WARNING
#define SECUREC_ATTRIBUTE(x, y)	__attribute__((format(printf, (x), (y))))
#else
#define SECUREC_ATTRIBUTE(x, y)
#endif

#endif /* MEMREG_SECURECTYPE_H */
