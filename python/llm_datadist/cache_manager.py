# SPDX-License-Identifier: LGPL-2.1-or-later
"""CacheManager: the caches of an LLMDataDist and the transfers between
them and a linked peer's, as CANN's package has them in its CacheManager
mode with remote cache access (every transfer one-sided, through the
engine).  The calls of its memory pools, copies, swaps and the layer-wise
asynchronous transfer raise LLMException(LLM_FEATURE_NOT_ENABLED)
(docs/python.md)."""

from llm_datadist._checks import check_int, check_type
from llm_datadist.cache import (
    BlocksCacheKey, Cache, CacheDesc, CacheKey, CacheKeyByIdAndIndex,
    check_layer_range)
from llm_datadist.status import check_call, expect, log, not_enabled

# A layer is a K and a V tensor unless the caller says otherwise.
TENSORS_PER_LAYER = 2
# Where the engine takes the tensors of a layer in one byte.
_MAX_TENSORS_PER_LAYER = 255


def _per_layer(value, what):
    check_int("tensor_num_per_layer", value, "uint32")
    expect(0 < value <= _MAX_TENSORS_PER_LAYER,
           f"[{what}] tensor_num_per_layer {value} must be within "
           f"[1, {_MAX_TENSORS_PER_LAYER}]")
    return value


def _pair(r):
    """A range of layers as the engine takes it: first and last, or -1s."""
    return (-1, -1) if r is None else (r.start, r.stop - 1)


def _ranges(src, dst, local, per_layer, push):
    """The engine's layer ranges.  Neither given: every tensor (a pull:
    each to its namesake; a push: every layer of the source).  One
    given: the other is every layer of our cache, from 0."""
    check_layer_range("src_layer_range", src)
    check_layer_range("dst_layer_range", dst)
    if src is None and dst is None:
        return (-1, -1, -1, -1)
    every = range(0, max(local.cache_desc.num_tensors // per_layer, 1))
    src = every if src is None else src
    dst = every if dst is None else dst
    expect(len(src) == len(dst),
           f"src_layer_range {src} and dst_layer_range {dst} differ in length")
    if push:
        expect(src == dst, "a push moves layers to the same layers "
               f"(src_layer_range {src}, dst_layer_range {dst})")
    return _pair(src) + _pair(dst)


class CacheManager:
    """Reached as LLMDataDist.cache_manager after init."""

    def __init__(self, datadist, engine, remote_accessible):
        self._datadist = datadist
        self._engine = engine
        self._remote_accessible = remote_accessible
        self._initialized = True

    def _live(self):
        if not self._initialized:
            raise RuntimeError("llm datadist is not initialized")
        return self._engine

    # ------------------------------------------------------- registration

    def _register(self, what, cache_desc, addrs, blocks, key, remote_accessible):
        engine = self._live()
        check_type("cache_desc", cache_desc, CacheDesc, allow_none=False)
        check_type("addrs", addrs, list, int, allow_none=False)
        # Every cache is reachable by the peers that link after it.
        check_type("remote_accessible", remote_accessible, bool)
        expect(len(addrs) > 0, f"[{what}] addrs is empty")
        if not blocks:
            expect(len(addrs) == cache_desc.num_tensors,
                   f"[{what}] {len(addrs)} addresses for "
                   f"{cache_desc.num_tensors} tensors")
        expect(all(a != 0 for a in addrs), f"[{what}] an address is 0")
        expect(cache_desc.batch_dim == 0,
               f"[{what}] batch_dim_index {cache_desc.batch_dim}: only 0 "
               "(shape[0] counts the batches or blocks)")
        size = cache_desc.size
        code, cache_id = engine.register(
            int(cache_desc.placement), cache_desc.num_tensors,
            cache_desc.data_type.value, list(cache_desc.shape), list(addrs),
            blocks, key is not None, key.model_id if key is not None else 0,
            size // cache_desc.shape[0])
        check_call(code, f"[{what}] cache_desc = {cache_desc}")
        log.info("[%s] cache %d registered", what, cache_id)
        return Cache(cache_id, cache_desc, list(addrs), self, True, blocks)

    def register_cache(self, cache_desc, addrs, cache_keys=(),
                       remote_accessible=None):
        """A cache of the caller's memory: one address per tensor."""
        check_type("cache_keys", cache_keys, (list, tuple), CacheKey,
                   allow_none=False)
        if cache_keys:
            not_enabled("register_cache with cache_keys",
                        "a peer's cache is named by id "
                        "(CacheKeyByIdAndIndex), not by CacheKey")
        return self._register("register_cache", cache_desc, addrs, False,
                              None, remote_accessible)

    def register_blocks_cache(self, cache_desc, addrs, blocks_cache_key=None,
                              remote_accessible=None):
        """A blocks cache of the caller's memory; with a BlocksCacheKey a
        linked peer finds it by that key's model id."""
        check_type("blocks_cache_key", blocks_cache_key, BlocksCacheKey)
        return self._register("register_blocks_cache", cache_desc, addrs,
                              True, blocks_cache_key, remote_accessible)

    def unregister_cache(self, cache_id):
        engine = self._live()
        check_int("cache_id", cache_id, "int64")
        check_call(engine.unregister(cache_id),
                   f"[unregister_cache] cache_id = {cache_id}")
        log.info("[unregister_cache] cache %d unregistered", cache_id)

    # ---------------------------------------------------------- transfers

    def pull_cache(self, cache_key, cache, batch_index=0, size=-1, **kwargs):
        """Batch cache_key.batch_index of a peer's cache into batch
        batch_index of ours; size bytes of each tensor (-1: a batch)."""
        engine = self._live()
        check_type("cache_key", cache_key, (CacheKeyByIdAndIndex, CacheKey),
                   allow_none=False)
        check_type("cache", cache, Cache, allow_none=False)
        check_int("batch_index", batch_index, "uint32")
        check_int("size", size, "int64")
        if isinstance(cache_key, CacheKey):
            not_enabled("pull_cache by CacheKey",
                        "a peer's cache is named by CacheKeyByIdAndIndex")
        expect(not cache.is_blocks_cache,
               "[pull_cache] the destination is a blocks cache: pull_blocks")
        expect(size == -1 or size > 0,
               f"[pull_cache] size {size}: -1 or above 0")
        per = _per_layer(kwargs.get("tensor_num_per_layer", TENSORS_PER_LAYER),
                         "pull_cache")
        ranges = _ranges(kwargs.get("src_layer_range"),
                         kwargs.get("dst_layer_range"), cache, per, False)
        code = engine.pull_cache(cache_key.cluster_id, cache_key.cache_id,
                                 cache_key.batch_index, cache.cache_id,
                                 int(cache.cache_desc.placement), batch_index,
                                 size, ranges, per)
        check_call(code, f"[pull_cache] cache_key = {cache_key}")

    def pull_blocks(self, src_cache_key, dst_cache, src_blocks=(),
                    dst_blocks=(), **kwargs):
        """Blocks src_blocks of a peer's blocks cache into blocks
        dst_blocks of ours."""
        engine = self._live()
        check_type("src_cache_key", src_cache_key,
                   (CacheKey, CacheKeyByIdAndIndex, BlocksCacheKey),
                   allow_none=False)
        check_type("dst_cache", dst_cache, Cache, allow_none=False)
        check_type("src_blocks", src_blocks, (list, tuple), int)
        check_type("dst_blocks", dst_blocks, (list, tuple), int,
                   allow_none=False)
        expect(dst_cache.is_blocks_cache,
               "[pull_blocks] the destination must be a blocks cache")
        expect(len(dst_blocks) > 0, "[pull_blocks] dst_blocks is empty")
        if not isinstance(src_cache_key, BlocksCacheKey):
            not_enabled("pull_blocks from a cache that is not a blocks cache",
                        "name the peer's blocks cache by BlocksCacheKey")
        src_blocks = list(src_blocks or ())
        expect(len(src_blocks) > 0, "[pull_blocks] src_blocks is empty")
        per = _per_layer(kwargs.get("tensor_num_per_layer", TENSORS_PER_LAYER),
                         "pull_blocks")
        ranges = _ranges(kwargs.get("src_layer_range"),
                         kwargs.get("dst_layer_range"), dst_cache, per, False)
        desc = dst_cache.cache_desc
        code = engine.pull_blocks(src_cache_key.cluster_id, True,
                                  src_cache_key.model_id, dst_cache.cache_id,
                                  int(desc.placement), desc.num_tensors,
                                  desc.size // desc.shape[0], src_blocks,
                                  list(dst_blocks), ranges, per)
        check_call(code, f"[pull_blocks] src_cache_key = {src_cache_key}")

    def _check_push(self, what):
        expect(self._remote_accessible,
               f"{what} needs enable_remote_cache_accessible (or "
               "local_comm_res, or transfer_backend)")

    def push_cache(self, dst_cache_key, src_cache, src_batch_index=0,
                   src_layer_range=None, dst_layer_range=None, size=-1,
                   tensor_num_per_layer=TENSORS_PER_LAYER):
        """Batch src_batch_index of our cache into batch
        dst_cache_key.batch_index of a peer's."""
        engine = self._live()
        self._check_push("push_cache")
        check_type("dst_cache_key", dst_cache_key, CacheKeyByIdAndIndex,
                   allow_none=False)
        check_type("src_cache", src_cache, Cache, allow_none=False)
        check_int("src_batch_index", src_batch_index, "uint32")
        expect(not src_cache.is_blocks_cache,
               "[push_cache] the source is a blocks cache: push_blocks")
        per = _per_layer(tensor_num_per_layer, "push_cache")
        ranges = _ranges(src_layer_range, dst_layer_range, src_cache, per, True)
        check_int("size", size, "int64")
        expect(size == -1, f"[push_cache] size {size}: only -1")
        code = engine.push_cache(src_cache.cache_id,
                                 int(src_cache.cache_desc.placement),
                                 dst_cache_key.cluster_id,
                                 dst_cache_key.cache_id,
                                 dst_cache_key.batch_index, src_batch_index,
                                 size, ranges, per)
        check_call(code, f"[push_cache] dst_cache_key = {dst_cache_key}")

    def push_blocks(self, dst_cache_key, src_cache, src_blocks=(),
                    dst_blocks=(), src_layer_range=None, dst_layer_range=None,
                    tensor_num_per_layer=TENSORS_PER_LAYER):
        """Blocks src_blocks of our blocks cache into blocks dst_blocks of
        the peer's blocks cache with that key."""
        engine = self._live()
        self._check_push("push_blocks")
        check_type("dst_cache_key", dst_cache_key, BlocksCacheKey,
                   allow_none=False)
        check_type("src_cache", src_cache, Cache, allow_none=False)
        check_type("src_blocks", src_blocks, (list, tuple), int)
        check_type("dst_blocks", dst_blocks, (list, tuple), int,
                   allow_none=False)
        expect(src_cache.is_blocks_cache,
               "[push_blocks] the source must be a blocks cache")
        expect(len(dst_blocks) > 0, "[push_blocks] dst_blocks is empty")
        per = _per_layer(tensor_num_per_layer, "push_blocks")
        ranges = _ranges(src_layer_range, dst_layer_range, src_cache, per, True)
        desc = src_cache.cache_desc
        code = engine.push_blocks(src_cache.cache_id, int(desc.placement),
                                  desc.num_tensors, desc.size // desc.shape[0],
                                  dst_cache_key.cluster_id, True,
                                  dst_cache_key.model_id,
                                  list(src_blocks or ()), list(dst_blocks),
                                  ranges, per)
        check_call(code, f"[push_blocks] dst_cache_key = {dst_cache_key}")

    # ------------------------------------------------- not carried out here

    def _pool(self, what):
        not_enabled(what, "memreg has no memory pool: register the caller's "
                    "memory with register_cache or register_blocks_cache")

    def allocate_cache(self, cache_desc, cache_keys=()):
        self._pool("allocate_cache")

    def allocate_blocks_cache(self, cache_desc, blocks_cache_key=None):
        self._pool("allocate_blocks_cache")

    def deallocate_cache(self, cache):
        self._pool("deallocate_cache")

    def deallocate_blocks_cache(self, cache):
        self._pool("deallocate_blocks_cache")

    def copy_cache(self, dst, src, dst_batch_index=0, src_batch_index=0,
                   offset=0, size=-1, req_id=None):
        not_enabled("copy_cache", "local copies are the caller's (aclrtMemcpy)")

    def copy_blocks(self, cache, copy_block_info):
        not_enabled("copy_blocks", "local copies are the caller's (aclrtMemcpy)")

    def swap_blocks(self, src_cache, dst_cache, src_to_dst):
        not_enabled("swap_blocks", "local copies are the caller's (aclrtMemcpy)")

    def transfer_cache_async(self, src_cache, layer_synchronizer,
                             transfer_configs, src_block_indices=None,
                             dst_block_indices=None, dst_block_memory_size=None):
        not_enabled("transfer_cache_async",
                    "push layer by layer with push_cache or push_blocks")

    def remove_cache_key(self, cache_key):
        not_enabled("remove_cache_key", "caches are not named by CacheKey")

    def remap_registered_memory(self, mem_infos):
        not_enabled("remap_registered_memory", "no memory UCE to repair")
