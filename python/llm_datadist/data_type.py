# SPDX-License-Identifier: LGPL-2.1-or-later
"""DataType: the element types a CacheDesc names, with ge::DataType's
numbers (<graph/types.h>) as values."""

import enum

from llm_datadist import _datadist

_TYPES = _datadist.DATA_TYPES


class DataType(enum.Enum):
    DT_FLOAT = _TYPES["DT_FLOAT"]
    DT_FLOAT16 = _TYPES["DT_FLOAT16"]
    DT_BF16 = _TYPES["DT_BF16"]
    DT_INT8 = _TYPES["DT_INT8"]
    DT_INT16 = _TYPES["DT_INT16"]
    DT_UINT16 = _TYPES["DT_UINT16"]
    DT_UINT8 = _TYPES["DT_UINT8"]
    DT_INT32 = _TYPES["DT_INT32"]
    DT_INT64 = _TYPES["DT_INT64"]
    DT_UINT32 = _TYPES["DT_UINT32"]
    DT_UINT64 = _TYPES["DT_UINT64"]
    DT_BOOL = _TYPES["DT_BOOL"]
    DT_DOUBLE = _TYPES["DT_DOUBLE"]
    DT_STRING = _TYPES["DT_STRING"]


# Bytes of one element; a string has no fixed size.
ELEMENT_BYTES = {
    DataType.DT_FLOAT: 4, DataType.DT_FLOAT16: 2, DataType.DT_BF16: 2,
    DataType.DT_INT8: 1, DataType.DT_INT16: 2, DataType.DT_UINT16: 2,
    DataType.DT_UINT8: 1, DataType.DT_INT32: 4, DataType.DT_INT64: 8,
    DataType.DT_UINT32: 4, DataType.DT_UINT64: 8, DataType.DT_BOOL: 1,
    DataType.DT_DOUBLE: 8,
}
