/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ge::Status and the macro that composes GE's error numbers, as metadef's
 * external/ge_common/api_error_codes.h provides them to
 * <llm_datadist/llm_datadist.h> and <llm_datadist/llm_error_codes.h>.
 * Only what those headers and their callers use: no error registry (the
 * numbers are constants; nothing here looks a description up).
 */
#ifndef MEMREG_GE_COMMON_API_ERROR_CODES_H
#define MEMREG_GE_COMMON_API_ERROR_CODES_H

#include <cstdint>
#include <map>
#include <string>
#include <graph/ascend_string.h>
#include <graph/types.h>

namespace ge {
using Status = uint32_t;

/*
 * An error number: 2 bits runtime, 2 bits type, 3 bits level, 8 bits
 * system, 5 bits module, 12 bits value, from the top bit down.
 */
#ifndef GE_ERRORNO_DEFINE
#define GE_ERRORNO_DEFINE(runtime, type, level, sysid, modid, name, value) \
	constexpr ge::Status name =                                          \
		((static_cast<uint32_t>(runtime) & 0xFFU) << 30U) |          \
		((static_cast<uint32_t>(type) & 0xFFU) << 28U) |             \
		((static_cast<uint32_t>(level) & 0xFFU) << 25U) |            \
		((static_cast<uint32_t>(sysid) & 0xFFU) << 17U) |            \
		((static_cast<uint32_t>(modid) & 0xFFU) << 12U) |            \
		(static_cast<uint32_t>(value) & 0x0FFFU)
#endif

constexpr Status SUCCESS = 0U;
constexpr Status FAILED = 0xFFFFFFFFU;
}  // namespace ge

#endif /* MEMREG_GE_COMMON_API_ERROR_CODES_H */
