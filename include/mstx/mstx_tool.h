/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx: the side of a tool.  A library that wants to receive a program's
 * mstx calls exports this function; the program's mstx header finds it
 * (through MSTX_INJECTION_PATH, or among the libraries already loaded)
 * and calls it once per module that includes the header.  The tool fills
 * the function slots it implements (see mstx_detail/mstx_types.h for the
 * modules and slot ids) and returns MSTX_SUCCESS to be attached.
 *
 * libmemreg exports it: programs built against <mstx/ms_tools_ext.h>, or
 * against CANN's own copy, report their heaps and regions to memreg.
 * Programs that only call mstx do not need this header.
 */
#ifndef MEMREG_MSTX_TOOL_H
#define MEMREG_MSTX_TOOL_H

#include "ms_tools_ext.h"

#ifdef __cplusplus
extern "C" {
#endif

int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_MSTX_TOOL_H */
