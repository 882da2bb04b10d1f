# SPDX-License-Identifier: LGPL-2.1-or-later
"""hixl's Python API on memreg: the package CANN's hixl ships (import hixl),
its names from the extension module hixl.hixl.  Calls return status codes,
or tuples that begin with one; docs/python.md says what differs."""

from hixl import hixl as _ext

# Status codes, option keys, capability values.
_CONSTANTS = (
    "SUCCESS", "PARAM_INVALID", "TIMEOUT", "NOT_CONNECTED",
    "ALREADY_CONNECTED", "NOTIFY_FAILED", "UNSUPPORTED", "FAILED",
    "RESOURCE_EXHAUSTED",
    "OPTION_ENABLE_USE_FABRIC_MEM", "OPTION_RDMA_TRAFFIC_CLASS",
    "OPTION_RDMA_SERVICE_LEVEL", "OPTION_BUFFER_POOL",
    "OPTION_GLOBAL_RESOURCE_CONFIG", "OPTION_AUTO_CONNECT",
    "OPTION_LOCAL_COMM_RES",
    "FEATURE_SUPPORTED", "FEATURE_NOT_SUPPORTED",
)
# Enums, and the values the extension puts beside them in the module.
_ENUMS = (
    "MemType", "MEM_DEVICE", "MEM_HOST",
    "TransferOp", "READ", "WRITE",
    "TransferStatus",
    "AsyncConnectStatus", "NOT_CONNECT", "CONNECT_PENDING", "CONNECTING",
    "CONNECTED", "CONNECT_FAILED", "DISCONNECT_PENDING", "DISCONNECTING",
    "FeatureType", "AUTO_CONNECT", "CLIENT_SERVER_COMM",
)
_CLASSES = (
    "MemDesc", "TransferOpDesc", "TransferArgs", "GetTransferStatusArgs",
    "TransferResult", "NotifyDesc", "Hixl", "get_capability",
)

__all__ = list(_CONSTANTS + _ENUMS + _CLASSES)
globals().update({name: getattr(_ext, name) for name in __all__})
del _CONSTANTS, _ENUMS, _CLASSES
