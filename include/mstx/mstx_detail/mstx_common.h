/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx (MindStudio Tools Extension) - what ms_tools_ext.h and
 * ms_tools_ext_mem.h share: return codes, tool ids, handle types, and how
 * the API functions are declared.  Included by those two; not on its own.
 *
 * MSTX_DECLSPEC: by default every API function is defined in the header
 * (static inline), NVTX style, so a program needs no library to call it.
 * With MSTX_NO_IMPL the functions are only declared (for a library that
 * implements them itself).  MSTX_DISABLE compiles every call to nothing.
 */
#ifndef MEMREG_MSTX_COMMON_H
#define MEMREG_MSTX_COMMON_H

#include <stddef.h>
#include <stdint.h>

#if defined(MSTX_NO_IMPL)
#define MSTX_DECLSPEC
#else
#define MSTX_DECLSPEC inline static
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_SUCCESS	0
#define MSTX_FAIL	1

/* What mstxGetToolId() reports. */
#define MSTX_TOOL_INVALID_ID		0x0
#define MSTX_TOOL_MSPROF_ID		0x1000
#define MSTX_TOOL_MSOPPROF_ID		0x1001
#define MSTX_TOOL_MSSANITIZER_ID	0x1002
#define MSTX_TOOL_MSLEAKS_ID		0x1003

typedef uint64_t mstxRangeId;		/* 0: invalid, or the call failed */

/* The same type as ACL's; repeating an identical typedef is allowed. */
typedef void *aclrtStream;

struct mstxDomainRegistration_st;
typedef struct mstxDomainRegistration_st mstxDomainRegistration_t;
typedef mstxDomainRegistration_t *mstxDomainHandle_t;

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_MSTX_COMMON_H */
