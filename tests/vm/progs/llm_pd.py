#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A prefill/decode pair on llm_datadist's documented Python API (CANN's
docs/zh/api/python: LLMDataDist, LLMConfig, LLMClusterInfo, CacheManager,
CacheDesc, BlocksCacheKey, CacheKeyByIdAndIndex), two processes on
memreg:

  prompt:  a KV cache of 2 layers (K, V: 4 tensors) of 16 blocks in
           device memory, registered as a blocks cache under
           BlocksCacheKey(1, 0), and a first-token cache of 2 batches;
           listens; waits for the decoder; checks what it pushed.
  decoder: links to the prompt, pulls 4 blocks into other block indices,
           one layer of one block, and batch 1 of the first-token cache,
           checks every byte, pushes 2 blocks of its own back, unlinks.

  llm_pd.py --role prompt|decoder --dir DIR [--port PORT]

DIR holds the two processes' rendezvous files (prompt.ready,
decoder.done): the pair needs no channel beside LLM-DataDist but these.
Prints "pass ..." lines and exits 0, or says what failed and exits 1."""

import argparse
import json
import os
import sys
import time

import llm_datadist as ld
from llm_datadist import (BlocksCacheKey, CacheDesc, CacheKeyByIdAndIndex,
                          DataType, LLMClusterInfo, LLMConfig, LLMDataDist,
                          LLMException, LLMRole, LLMStatusCode, Placement)
from npu_mem import Acl, pattern

PROMPT_CLUSTER, DECODER_CLUSTER = 1, 2
TENSORS, BLOCKS, BLOCK_ELEMS = 4, 16, 2048	# float16: 4 KiB a block
BLOCK = BLOCK_ELEMS * 2
TENSOR = BLOCKS * BLOCK
FIRST = 1024	# bytes of a batch of the first-token cache


def say(*args):
    print(*args, flush=True)


def fail(what):
    say(f"FAIL {what}")
    sys.exit(1)


def wait_for(path, secs=120):
    deadline = time.monotonic() + secs
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            fail(f"{path} never came")
        time.sleep(0.05)
    with open(path) as f:
        return json.load(f)


def publish(path, what):
    with open(path + ".tmp", "w") as f:
        json.dump(what, f)
    os.rename(path + ".tmp", path)


def start(role, cluster_id, device, listen=None):
    dd = LLMDataDist(role, cluster_id)
    config = LLMConfig()
    config.device_id = device
    config.enable_cache_manager = True
    config.enable_remote_cache_accessible = True
    config.sync_kv_timeout = 20000
    if listen:
        config.listen_ip_info = listen
    dd.init(config.generate_options())
    return dd


def tensors(acl, seed, n=TENSORS, size=TENSOR):
    addrs = []
    for t in range(n):
        a = acl.malloc(size)
        acl.write(a, pattern(seed + t, size) if seed is not None else bytes(size))
        addrs.append(a)
    return addrs


def kv_desc():
    return CacheDesc(num_tensors=TENSORS, shape=[BLOCKS, BLOCK_ELEMS],
                     data_type=DataType.DT_FLOAT16, placement=Placement.DEVICE)


def first_desc():
    return CacheDesc(1, [2, FIRST], DataType.DT_UINT8, Placement.DEVICE)


def block_of(acl, addr, b):
    return acl.read(addr + b * BLOCK, BLOCK)


def prompt(args, acl):
    dd = start(LLMRole.PROMPT, PROMPT_CLUSTER, 0, f"127.0.0.1:{args.port}")
    cm = dd.cache_manager
    kv = tensors(acl, 10)
    first = tensors(acl, 30, 1, 2 * FIRST)
    kv_cache = cm.register_blocks_cache(kv_desc(), kv,
                                        BlocksCacheKey(PROMPT_CLUSTER, 0))
    first_cache = cm.register_cache(first_desc(), first)
    say(f"pass prompt: caches {kv_cache.cache_id} (blocks) and "
        f"{first_cache.cache_id} registered, listening on {args.port}")
    publish(os.path.join(args.dir, "prompt.ready"),
            {"first_token_cache": first_cache.cache_id})
    done = wait_for(os.path.join(args.dir, "decoder.done"))
    if done.get("status") != "ok":
        fail(f"prompt: the decoder says {done}")
    for t in range(TENSORS):
        mine = pattern(10 + t, TENSOR)
        theirs = pattern(50 + t, TENSOR)
        for src, dst in ((12, 14), (13, 15)):
            if block_of(acl, kv[t], dst) != theirs[src * BLOCK:(src + 1) * BLOCK]:
                fail(f"prompt: tensor {t} block {dst} is not the decoder's "
                     f"block {src}")
        if block_of(acl, kv[t], 13) != mine[13 * BLOCK:14 * BLOCK]:
            fail(f"prompt: tensor {t} block 13 changed")
    say("pass prompt: the decoder's push_blocks checked (2 blocks x 4 tensors)")
    cm.unregister_cache(kv_cache.cache_id)
    cm.unregister_cache(first_cache.cache_id)
    dd.finalize()
    for a in kv + first:
        acl.free(a)
    say("pass prompt finalized")


def decoder(args, acl):
    dd = start(LLMRole.DECODER, DECODER_CLUSTER, 1)
    cm = dd.cache_manager
    kv = tensors(acl, None)
    first = tensors(acl, None, 1, 2 * FIRST)
    kv_cache = cm.register_blocks_cache(kv_desc(), kv,
                                        BlocksCacheKey(DECODER_CLUSTER, 0))
    first_cache = cm.register_cache(first_desc(), first)
    ready = wait_for(os.path.join(args.dir, "prompt.ready"))
    status = "failed"
    try:
        cluster = LLMClusterInfo()
        cluster.remote_cluster_id = PROMPT_CLUSTER
        cluster.append_local_ip_info("127.0.0.1", 0)
        cluster.append_remote_ip_info("127.0.0.1", args.port)
        ret, rets = dd.link_clusters([cluster], 5000)
        if ret != LLMStatusCode.LLM_SUCCESS:
            fail(f"decoder: link_clusters: {ret} {rets}")
        say("pass decoder: linked to the prompt")

        t0 = time.monotonic()
        src, dst = [3, 4, 5, 9], [0, 1, 2, 3]
        cm.pull_blocks(BlocksCacheKey(PROMPT_CLUSTER, 0), kv_cache,
                       src_blocks=src, dst_blocks=dst)
        secs = time.monotonic() - t0
        for t in range(TENSORS):
            want = pattern(10 + t, TENSOR)
            for s, d in zip(src, dst):
                if block_of(acl, kv[t], d) != want[s * BLOCK:(s + 1) * BLOCK]:
                    fail(f"decoder: tensor {t} block {d} is not the prompt's "
                         f"block {s}")
            if block_of(acl, kv[t], 4) != bytes(BLOCK):
                fail(f"decoder: tensor {t} block 4 was written")
        say(f"pass decoder: pull_blocks {len(src)} blocks x {TENSORS} tensors "
            f"checked ({secs:.3f} s)")

        # Layer 1 (tensors 2 and 3) of block 10 into layer 1 of block 8.
        cm.pull_blocks(BlocksCacheKey(PROMPT_CLUSTER, 0), kv_cache, [10], [8],
                       src_layer_range=range(1, 2), dst_layer_range=range(1, 2))
        for t in range(TENSORS):
            want = (pattern(10 + t, TENSOR)[10 * BLOCK:11 * BLOCK] if t >= 2
                    else bytes(BLOCK))
            if block_of(acl, kv[t], 8) != want:
                fail(f"decoder: layer pull: tensor {t} block 8")
        say("pass decoder: pull_blocks of layer 1 alone checked")

        key = CacheKeyByIdAndIndex(PROMPT_CLUSTER, ready["first_token_cache"], 1)
        cm.pull_cache(key, first_cache, batch_index=0)
        if acl.read(first[0], FIRST) != pattern(30, 2 * FIRST)[FIRST:]:
            fail("decoder: pull_cache: batch 1 of the first-token cache")
        say("pass decoder: pull_cache of batch 1 checked")

        try:
            cm.pull_blocks(BlocksCacheKey(PROMPT_CLUSTER, 9), kv_cache, [0], [0])
            fail("decoder: a key nobody registered was pulled")
        except LLMException as e:
            if e.status_code != LLMStatusCode.LLM_KV_CACHE_NOT_EXIST:
                fail(f"decoder: unknown key: {e.status_code}")
        say("pass decoder: an unknown BlocksCacheKey is LLM_KV_CACHE_NOT_EXIST")

        for t in range(TENSORS):
            acl.write(kv[t] + 12 * BLOCK,
                      pattern(50 + t, TENSOR)[12 * BLOCK:14 * BLOCK])
        cm.push_blocks(BlocksCacheKey(PROMPT_CLUSTER, 0), kv_cache,
                       src_blocks=[12, 13], dst_blocks=[14, 15])
        say("pass decoder: push_blocks of 2 blocks")

        ret, rets = dd.unlink_clusters([cluster], 5000)
        if (ret, rets) != (LLMStatusCode.LLM_SUCCESS, [LLMStatusCode.LLM_SUCCESS]):
            fail(f"decoder: unlink_clusters: {ret} {rets}")
        status = "ok"
    finally:
        publish(os.path.join(args.dir, "decoder.done"), {"status": status})
    cm.unregister_cache(kv_cache.cache_id)
    cm.unregister_cache(first_cache.cache_id)
    dd.finalize()
    for a in kv + first:
        acl.free(a)
    say(f"pass decoder finalized ({ld.__name__} {os.path.dirname(ld.__file__)})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--role", required=True, choices=["prompt", "decoder"])
    p.add_argument("--dir", required=True)
    p.add_argument("--port", type=int, default=26000)
    args = p.parse_args()
    acl = Acl()
    (prompt if args.role == "prompt" else decoder)(args, acl)


if __name__ == "__main__":
    main()
