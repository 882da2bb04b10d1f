// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib/mstx's counters for the tests.  A file of its own: lib/mstx's
 * internal header wants the mstx declarations only (MSTX_NO_IMPL), the
 * tests want the header's implementation.
 */
#include "mstx.h"
#include "tool_stats.h"

uint64_t tool_refused(void)
{
	return __atomic_load_n(&mstx__stats.refused, __ATOMIC_RELAXED);
}

uint64_t tool_handles_written(void)
{
	return __atomic_load_n(&mstx__stats.handles_written, __ATOMIC_RELAXED);
}

unsigned int tool_buf_ops(void)
{
	return MSTX_BUF_OPS;
}
