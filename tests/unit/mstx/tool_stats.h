/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * lib/mstx's own counters, for the tests (stats.c).  The fake module
 * behind lib/core's ioctl hook is tests/unit/fake's, as in every suite.
 */
#ifndef MSTX_TOOL_STATS_H
#define MSTX_TOOL_STATS_H

#include <stdint.h>

uint64_t tool_refused(void);
uint64_t tool_handles_written(void);
unsigned int tool_buf_ops(void);

#endif /* MSTX_TOOL_STATS_H */
