/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx (MindStudio Tools Extension): marks, ranges and domains, source
 * compatible with CANN's <mstx/ms_tools_ext.h>.  The memory-pool API is in
 * <mstx/ms_tools_ext_mem.h>, included from here.
 *
 * A program built against this header needs no library.  With no tool
 * attached every call does nothing: handles are NULL, range ids 0,
 * mstxGetToolId() says MSTX_TOOL_INVALID_ID.  A tool is attached on the
 * first call: the library named by the environment variable
 * MSTX_INJECTION_PATH, or one already in the process (linked, or
 * LD_PRELOADed), that exports InitInjectionMstx.  libmemreg is such a tool.
 */
#ifndef MEMREG_MSTX_MS_TOOLS_EXT_H
#define MEMREG_MSTX_MS_TOOLS_EXT_H

#include "mstx_detail/mstx_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default domain: data reported without a domain of its own. */
static mstxDomainHandle_t const globalDomain = NULL;

/* A point in time, with a message; @stream may be NULL. */
MSTX_DECLSPEC void mstxMarkA(const char *message, aclrtStream stream);

/* Start a range; the id ends it.  0 when it failed (or no tool). */
MSTX_DECLSPEC mstxRangeId mstxRangeStartA(const char *message,
					  aclrtStream stream);
MSTX_DECLSPEC void mstxRangeEnd(mstxRangeId id);

/* Domains scope marks, ranges and heaps.  NULL when it failed (or no tool). */
MSTX_DECLSPEC mstxDomainHandle_t mstxDomainCreateA(const char *name);
MSTX_DECLSPEC void mstxDomainDestroy(mstxDomainHandle_t domain);
MSTX_DECLSPEC void mstxDomainMarkA(mstxDomainHandle_t domain,
				   const char *message, aclrtStream stream);
MSTX_DECLSPEC mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
						const char *message,
						aclrtStream stream);
MSTX_DECLSPEC void mstxDomainRangeEnd(mstxDomainHandle_t domain,
				      mstxRangeId id);

/* The id of the attached tool, MSTX_TOOL_INVALID_ID when there is none. */
MSTX_DECLSPEC void mstxGetToolId(uint64_t *id);

#ifdef __cplusplus
}
#endif

#include "ms_tools_ext_mem.h"
#include "mstx_detail/mstx_types.h"
#if !defined(MSTX_NO_IMPL)
#include "mstx_detail/mstx_impl.h"
#endif

#endif /* MEMREG_MSTX_MS_TOOLS_EXT_H */
