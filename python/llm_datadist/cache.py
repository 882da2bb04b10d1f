# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cache types of the package: what a cache is (CacheDesc, Cache,
Placement), how a peer's cache is named (CacheKeyByIdAndIndex,
BlocksCacheKey, CacheKey), and the types of the calls not carried out
here, kept so that programs naming them import (docs/python.md)."""

import abc
import enum

from llm_datadist._checks import check_int, check_ints, check_type
from llm_datadist.data_type import DataType, ELEMENT_BYTES
from llm_datadist.status import LLMException, LLMStatusCode, expect

INVALID_ID = 2 ** 64 - 1


class Placement(enum.IntEnum):
    """Where a cache's tensors are: host memory or device memory."""
    HOST = 0
    DEVICE = 1

    def __str__(self):
        return f"Placement.{self.name}"


class Memtype(enum.Enum):
    MEM_TYPE_DEVICE = 0
    MEM_TYPE_HOST = 1


class RegisterMemStatus(enum.Enum):
    OK = 0
    PREPARING = 1
    FAILED = 2


class CacheDesc:
    """num_tensors tensors of one shape and data type.  shape[0] counts
    the batches of a cache, or the blocks of a blocks cache."""

    def __init__(self, num_tensors, shape, data_type,
                 placement=Placement.DEVICE, batch_dim_index=0,
                 seq_len_dim_index=-1, kv_tensor_format=None):
        check_int("num_tensors", num_tensors, "uint32")
        check_type("shape", shape, (list, tuple), int, allow_none=False)
        check_type("data_type", data_type, DataType, allow_none=False)
        check_type("placement", placement, Placement, allow_none=False)
        check_type("batch_dim_index", batch_dim_index, int, allow_none=False)
        check_int("seq_len_dim_index", seq_len_dim_index, "int32")
        check_type("kv_tensor_format", kv_tensor_format, str)
        expect(0 <= batch_dim_index < len(shape),
               f"batch_dim_index {batch_dim_index} is not a dimension of "
               f"{len(shape)}")
        expect(seq_len_dim_index == -1 or 0 <= seq_len_dim_index < len(shape),
               f"seq_len_dim_index {seq_len_dim_index} is neither -1 nor a "
               f"dimension of {len(shape)}")
        check_ints("shape", shape, "int64")
        self._num_tensors = num_tensors
        self._shape = shape
        self._data_type = data_type
        self._placement = placement
        self._batch_dim = batch_dim_index
        self._seq_len_dim_index = seq_len_dim_index
        self._kv_tensor_format = kv_tensor_format
        self._size = None

    @property
    def num_tensors(self):
        return self._num_tensors

    @property
    def shape(self):
        return self._shape

    @property
    def data_type(self):
        return self._data_type

    @property
    def placement(self):
        return self._placement

    @property
    def batch_dim(self):
        return self._batch_dim

    @property
    def batch_size(self):
        return self._shape[self._batch_dim]

    @property
    def seq_len_dim_index(self):
        return self._seq_len_dim_index

    @property
    def kv_tensor_format(self):
        return self._kv_tensor_format

    @property
    def size(self):
        """Bytes of one tensor."""
        if self._size is None:
            elem = ELEMENT_BYTES.get(self._data_type)
            if elem is None or not self._shape or any(d <= 0 for d in self._shape):
                raise LLMException(
                    f"cannot size a tensor of shape {list(self._shape)} "
                    f"and {self._data_type}",
                    status_code=LLMStatusCode.LLM_PARAM_INVALID)
            n = elem
            for d in self._shape:
                n *= d
            self._size = n
        return self._size

    def update_dim(self, dim_index, dim_value):
        self._shape[dim_index] = dim_value
        self._size = None

    def __repr__(self):
        return (f"CacheDesc(num_tensors={self._num_tensors}, "
                f"shape={self._shape}, data_type={self._data_type}, "
                f"placement={self._placement}, "
                f"batch_dim_index={self._batch_dim}, "
                f"seq_len_dim_index={self._seq_len_dim_index}, "
                f"kv_tensor_format={self._kv_tensor_format})")


class Cache:
    """A registered cache, as register_cache and register_blocks_cache
    return it: its id (1, 2, ... in the order of registration), its
    description and its tensors' addresses."""

    def __init__(self, cache_id, cache_desc, tensor_addrs, cache_manager=None,
                 is_registered=False, is_blocks_cache=False):
        check_int("cache_id", cache_id, "int64")
        self._cache_id = cache_id
        self._cache_desc = cache_desc
        self._tensor_addrs = tensor_addrs
        self._cache_manager = cache_manager
        self._is_registered = is_registered
        self._is_blocks_cache = is_blocks_cache
        self._valid = True

    @property
    def cache_id(self):
        return self._cache_id

    @property
    def cache_desc(self):
        return self._cache_desc

    @property
    def tensor_addrs(self):
        return self._tensor_addrs

    @property
    def is_blocks_cache(self):
        return self._is_blocks_cache

    @classmethod
    def create_cpu_cache(cls, cache_desc, addrs):
        """A host cache that is not registered (id -1), for swap_blocks."""
        check_type("cache_desc", cache_desc, CacheDesc, allow_none=False)
        check_type("addrs", addrs, list, int, allow_none=False)
        expect(cache_desc.placement == Placement.HOST,
               "a cpu cache's placement must be HOST")
        expect(cache_desc.num_tensors == len(addrs),
               f"{len(addrs)} addresses for {cache_desc.num_tensors} tensors")
        return cls(-1, cache_desc, addrs, None, False, True)

    def __repr__(self):
        return (f"Cache(cache_id={self._cache_id}, "
                f"tensors={len(self._tensor_addrs)}, "
                f"is_blocks_cache={self._is_blocks_cache})")


def _key_args(args, kwargs, names, most):
    """Positional arguments by names, with CANN's prompt_cluster_id as a
    second name of cluster_id."""
    expect(len(args) + len(kwargs) <= most, "too many arguments")
    for name, value in zip(names, args):
        expect(name not in kwargs, f"{name} given twice")
        kwargs[name] = value
    valid = set(names) | {"prompt_cluster_id"}
    for k in kwargs:
        expect(k in valid, f"unknown argument {k}")
    expect("cluster_id" in kwargs or "prompt_cluster_id" in kwargs,
           "cluster_id (or prompt_cluster_id) is required")
    key_name = "cluster_id" if "cluster_id" in kwargs else "prompt_cluster_id"
    return kwargs, key_name


class BlocksCacheKey:
    """A peer's blocks cache by key: the cluster it is in and the model id
    it was registered with (register_blocks_cache(..., BlocksCacheKey))."""

    def __init__(self, *args, **kwargs):
        kwargs, self._key_name = _key_args(args, kwargs,
                                           ("cluster_id", "model_id"), 2)
        self._cluster_id = kwargs[self._key_name]
        self._model_id = kwargs.get("model_id", 0)
        check_type("cluster_id", self._cluster_id, int, allow_none=False)
        check_type("model_id", self._model_id, int, allow_none=False)

    @property
    def cluster_id(self):
        return self._cluster_id

    @property
    def prompt_cluster_id(self):
        return self._cluster_id

    @property
    def model_id(self):
        return self._model_id

    def __repr__(self):
        return (f"BlocksCacheKey({self._key_name}={self._cluster_id}, "
                f"model_id={self._model_id})")


class CacheKey:
    """A peer's cache by request id (or prefix id).  Named by CANN's
    package for its caches without remote access; not carried out here."""

    def __init__(self, *args, **kwargs):
        kwargs, self._key_name = _key_args(
            args, kwargs, ("cluster_id", "req_id", "model_id", "prefix_id"), 4)
        expect("req_id" in kwargs, "req_id is required")
        self._cluster_id = kwargs[self._key_name]
        self._req_id = kwargs["req_id"]
        self._model_id = kwargs.get("model_id", 0)
        self._prefix_id = kwargs.get("prefix_id", INVALID_ID)
        for name, value in (("cluster_id", self._cluster_id),
                            ("req_id", self._req_id),
                            ("model_id", self._model_id),
                            ("prefix_id", self._prefix_id)):
            check_int(name, value, "uint64")

    @property
    def cluster_id(self):
        return self._cluster_id

    @property
    def prompt_cluster_id(self):
        return self._cluster_id

    @property
    def req_id(self):
        return self._req_id

    @property
    def model_id(self):
        return self._model_id

    @property
    def prefix_id(self):
        return self._prefix_id

    def __repr__(self):
        return (f"CacheKey(cluster_id={self._cluster_id}, "
                f"req_id={self._req_id}, prefix_id={self._prefix_id}, "
                f"model_id={self._model_id})")


class CacheKeyByIdAndIndex:
    """A peer's cache by the id register_cache returned there, and one of
    its batches."""

    def __init__(self, cluster_id, cache_id, batch_index=0):
        check_int("cluster_id", cluster_id, "uint64")
        check_int("cache_id", cache_id, "int64")
        check_int("batch_index", batch_index, "uint32")
        self._cluster_id = cluster_id
        self._cache_id = cache_id
        self._batch_index = batch_index

    @property
    def cluster_id(self):
        return self._cluster_id

    @property
    def cache_id(self):
        return self._cache_id

    @property
    def batch_index(self):
        return self._batch_index

    def __repr__(self):
        return (f"CacheKeyByIdAndIndex(cluster_id={self._cluster_id}, "
                f"cache_id={self._cache_id}, batch_index={self._batch_index})")


class MemInfo:
    """Memory for remap_registered_memory (not carried out here)."""

    def __init__(self, mem_type, addr, size):
        check_type("mem_type", mem_type, Memtype, allow_none=False)
        check_type("addr", addr, int, allow_none=False)
        check_type("size", size, int, allow_none=False)
        self._mem_type = mem_type
        self._addr = addr
        self._size = size

    @property
    def mem_type(self):
        return self._mem_type

    @property
    def addr(self):
        return self._addr

    @property
    def size(self):
        return self._size

    def __repr__(self):
        return (f"MemInfo(mem_type={self._mem_type}, addr={self._addr}, "
                f"size={self._size})")


class LayerSynchronizer(abc.ABC):
    """What transfer_cache_async waits on, layer by layer (the call is not
    carried out here; the type is, for programs that define one)."""

    @abc.abstractmethod
    def synchronize_layer(self, layer_index, timeout_in_millis):
        """True once layer layer_index is computed."""


def check_layer_range(name, layer_range):
    """None, or a range of step 1 within [0, ...)."""
    if layer_range is None:
        return
    check_type(name, layer_range, range, allow_none=False)
    expect(layer_range.step == 1, f"{name} must have step 1")
    expect(0 <= layer_range.start < layer_range.stop,
           f"{name} = {layer_range}: must satisfy 0 <= start < stop")


class TransferConfig:
    """A destination of transfer_cache_async by address (not carried out
    here)."""

    def __init__(self, dst_cluster_id, dst_addrs, src_layer_range=None,
                 src_batch_index=0):
        check_int("dst_cluster_id", dst_cluster_id, "uint64")
        check_type("dst_addrs", dst_addrs, (list, tuple), int,
                   allow_none=False)
        check_ints("dst_addrs", dst_addrs, "uint64")
        check_layer_range("src_layer_range", src_layer_range)
        check_int("src_batch_index", src_batch_index, "uint32")
        self.dst_cluster_id = dst_cluster_id
        self.dst_addrs = dst_addrs
        self.src_layer_range = src_layer_range
        self.src_batch_index = src_batch_index
        self.dst_layer_range = None


class TransferWithCacheKeyConfig:
    """A destination of transfer_cache_async by key (not carried out
    here)."""

    def __init__(self, cache_key, src_layer_range=None, dst_layer_range=None,
                 src_batch_index=0):
        check_type("cache_key", cache_key,
                   (BlocksCacheKey, CacheKeyByIdAndIndex), allow_none=False)
        for name, r in (("src_layer_range", src_layer_range),
                        ("dst_layer_range", dst_layer_range)):
            check_type(name, r, range, allow_none=False)
            check_layer_range(name, r)
        expect(len(src_layer_range) == len(dst_layer_range),
               "src_layer_range and dst_layer_range differ in length")
        check_int("src_batch_index", src_batch_index, "uint32")
        expect(not (isinstance(cache_key, BlocksCacheKey) and src_batch_index),
               "src_batch_index must be 0 with a BlocksCacheKey")
        self.cache_key = cache_key
        self.src_layer_range = src_layer_range
        self.dst_layer_range = dst_layer_range
        self.src_batch_index = src_batch_index
        self.dst_cluster_id = cache_key.cluster_id


class CacheTask:
    """What transfer_cache_async returns (the call is not carried out
    here, so no CacheTask is ever made)."""

    def __init__(self, task):
        self._task = task

    def synchronize(self, timeout_in_millis=None):
        return self._task.get(timeout_in_millis)

    def get_results(self, timeout_in_millis=None):
        return self._task.get_results(timeout_in_millis)
