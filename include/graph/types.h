/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ge::DataType with metadef's values (graph/types.h), which
 * <llm_datadist/llm_datadist.h> names for CacheDesc::data_type.  The
 * values match aclDataType's where both have the type; 5 is unused, as
 * there.  ge::char_t is metadef's name for char, which ge::AscendString's
 * declarations use (<graph/ascend_string.h>).
 */
#ifndef MEMREG_GRAPH_TYPES_H
#define MEMREG_GRAPH_TYPES_H

#include <atomic>
#include <memory>
#include <vector>

namespace ge {
using char_t = char;

enum DataType {
	DT_FLOAT = 0,
	DT_FLOAT16 = 1,
	DT_INT8 = 2,
	DT_INT32 = 3,
	DT_UINT8 = 4,
	DT_INT16 = 6,
	DT_UINT16 = 7,
	DT_UINT32 = 8,
	DT_INT64 = 9,
	DT_UINT64 = 10,
	DT_DOUBLE = 11,
	DT_BOOL = 12,
	DT_STRING = 13,
	DT_DUAL_SUB_INT8 = 14,
	DT_DUAL_SUB_UINT8 = 15,
	DT_COMPLEX64 = 16,
	DT_COMPLEX128 = 17,
	DT_QINT8 = 18,
	DT_QINT16 = 19,
	DT_QINT32 = 20,
	DT_QUINT8 = 21,
	DT_QUINT16 = 22,
	DT_RESOURCE = 23,
	DT_STRING_REF = 24,
	DT_DUAL = 25,
	DT_VARIANT = 26,
	DT_BF16 = 27,
	DT_UNDEFINED = 28,	/* not set */
	DT_INT4 = 29,
	DT_UINT1 = 30,
	DT_INT2 = 31,
	DT_UINT2 = 32,
	DT_COMPLEX32 = 33,
	DT_HIFLOAT8 = 34,
	DT_FLOAT8_E5M2 = 35,
	DT_FLOAT8_E4M3FN = 36,
	DT_FLOAT8_E8M0 = 37,
	DT_FLOAT6_E3M2 = 38,
	DT_FLOAT6_E2M3 = 39,
	DT_FLOAT4_E2M1 = 40,
	DT_FLOAT4_E1M2 = 41,
	DT_HIFLOAT4 = 42,
	DT_MAX = 43,		/* the end of the list */
};
}  // namespace ge

#endif /* MEMREG_GRAPH_TYPES_H */
