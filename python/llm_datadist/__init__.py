# SPDX-License-Identifier: LGPL-2.1-or-later
"""LLM-DataDist's Python API on memreg: the package CANN ships (import
llm_datadist), in its CacheManager mode, over libllm_datadist.so.
docs/python.md says what is covered, what differs and what is left."""

from llm_datadist.status import LLMException, LLMStatusCode, Status
from llm_datadist.configs import LLMClusterInfo, LLMConfig, LLMRole, LlmConfig
from llm_datadist.data_type import DataType
from llm_datadist.cache import (
    BlocksCacheKey, Cache, CacheDesc, CacheKey, CacheKeyByIdAndIndex,
    CacheTask, LayerSynchronizer, MemInfo, Memtype, Placement,
    RegisterMemStatus, TransferConfig, TransferWithCacheKeyConfig)
from llm_datadist.cache_manager import CacheManager
from llm_datadist.datadist import LLMDataDist

__all__ = [
    "LLMDataDist", "LLMRole", "LLMConfig", "LlmConfig", "LLMClusterInfo",
    "LLMStatusCode", "LLMException", "Status", "DataType",
    "CacheDesc", "Cache", "CacheKey", "CacheKeyByIdAndIndex",
    "BlocksCacheKey", "Placement", "RegisterMemStatus", "Memtype",
    "MemInfo", "LayerSynchronizer", "TransferConfig",
    "TransferWithCacheKeyConfig", "CacheTask", "CacheManager",
]
