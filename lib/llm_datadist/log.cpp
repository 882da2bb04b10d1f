// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Failures on stderr, and the engine's statuses as LLM-DataDist's.
 * CANN logs through its own facility; a program here sees the reason on
 * stderr beside the engine's own "adxl: " lines, which say the rest.
 */
#include <cstdarg>
#include <cstdio>

#include "impl.h"

namespace llm_datadist {
namespace detail {

void Err(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "llm_datadist: %s\n", msg);
}

Status FromAdxl(adxl_status_t st)
{
	switch (st) {
	case ADXL_SUCCESS:
		return LLM_SUCCESS;
	case ADXL_PARAM_INVALID:
		return LLM_PARAM_INVALID;
	case ADXL_TIMEOUT:
		return LLM_TIMEOUT;
	case ADXL_NOT_CONNECTED:
		/* The link is gone (the peer exited or finalized). */
		return LLM_NOT_YET_LINK;
	case ADXL_ALREADY_CONNECTED:
		return LLM_ALREADY_LINK;
	case ADXL_RESOURCE_EXHAUSTED:
		/* The module's registration limits, RLIMIT_MEMLOCK. */
		return LLM_OUT_OF_MEMORY;
	default:
		return LLM_FAILED;
	}
}

}  // namespace detail
}  // namespace llm_datadist
