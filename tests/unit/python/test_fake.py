# SPDX-License-Identifier: LGPL-2.1-or-later
"""The packages on the fake module of tests/unit/fake (MEMREG_FAKE_LIB:
a libmemreg.so.1 with the fake in it, which the shipped libraries and
extensions load first; MEMREG_ACL_LIB: the shipped libascendcl.so): two
hixl engines, and an llm_datadist prompt and decoder, in one process,
moving bytes that are checked."""

import ctypes
import os
import random
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "vm", "progs"))

FAKE = ctypes.CDLL(os.environ["MEMREG_FAKE_LIB"])

import hixl  # noqa: E402
import llm_datadist as ld  # noqa: E402
from llm_datadist.datadist import LLMDataDist  # noqa: E402
from npu_mem import Acl, HostBuffer, pattern  # noqa: E402

import tap  # noqa: E402

ACL = Acl(os.environ["MEMREG_ACL_LIB"])
S = ld.LLMStatusCode


def fresh_fake():
    """A new fake module, as if the module were loaded again."""
    if FAKE.fake_kernel_setup() != 0:
        raise RuntimeError("fake_kernel_setup failed")
    FAKE.fake_set_instance(0x42)


def free_port():
    return 20000 + random.randrange(40000)


class HixlPair(unittest.TestCase):
    """A server engine with host memory and a client with host and device
    memory, as hixl's example pairs them."""

    SIZE = 64 * 1024

    def setUp(self):
        fresh_fake()
        self.server, self.client = hixl.Hixl(), hixl.Hixl()
        for _ in range(20):
            self.name = f"127.0.0.1:{free_port()}"
            if self.server.initialize(self.name) == hixl.SUCCESS:
                break
        # LocalCommRes 1.3: hixl's client/server engine, which alone
        # answers the batch get_all_transfer_status (docs/adxl.md).
        self.assertEqual(self.client.initialize(
            "127.0.0.1", {hixl.OPTION_AUTO_CONNECT: "0",
                          "LocalCommRes": '{"version": "1.3"}'}),
            hixl.SUCCESS)
        self.remote = HostBuffer(self.SIZE)
        self.local = HostBuffer(self.SIZE)
        self.remote.write(pattern(1, self.SIZE))
        st, self.rh = self.server.register_mem(
            hixl.MemDesc(self.remote.addr, self.SIZE), hixl.MEM_HOST)
        self.assertEqual(st, hixl.SUCCESS)
        st, self.lh = self.client.register_mem(
            hixl.MemDesc(self.local.addr, self.SIZE), hixl.MemType.MEM_HOST)
        self.assertEqual(st, hixl.SUCCESS)
        self.assertNotEqual(self.rh, 0)

    def tearDown(self):
        self.client.finalize()
        self.server.finalize()
        self.remote.close()
        self.local.close()

    def connect(self):
        self.assertEqual(self.client.connect(self.name, timeout_in_millis=2000),
                         hixl.SUCCESS)

    def test_read_write(self):
        self.assertEqual(self.client.transfer_sync(
            self.name, hixl.READ, [hixl.TransferOpDesc(self.local.addr,
                                                       self.remote.addr, 16)]),
                         hixl.NOT_CONNECTED)
        self.connect()
        self.assertEqual(self.client.connect(self.name), hixl.ALREADY_CONNECTED)
        # 16 blocks of 4 KiB, in reverse order.
        blk = 4096
        descs = [hixl.TransferOpDesc(self.local.addr + i * blk,
                                     self.remote.addr + (15 - i) * blk, blk)
                 for i in range(16)]
        self.assertEqual(self.client.transfer_sync(self.name, hixl.READ, descs,
                                                   timeout_in_millis=5000),
                         hixl.SUCCESS)
        want = pattern(1, self.SIZE)
        got = self.local.read()
        for i in range(16):
            self.assertEqual(got[i * blk:(i + 1) * blk],
                             want[(15 - i) * blk:(16 - i) * blk], f"block {i}")
        self.local.write(pattern(2, 1000))
        self.assertEqual(self.client.transfer_sync(
            self.name, hixl.WRITE,
            [hixl.TransferOpDesc(self.local.addr, self.remote.addr + 77, 1000)]),
            hixl.SUCCESS)
        self.assertEqual(self.remote.read(1000, 77), pattern(2, 1000))
        self.assertEqual(self.remote.read(77), want[:77])
        # Outside what the server registered.
        self.assertEqual(self.client.transfer_sync(
            self.name, hixl.READ,
            [hixl.TransferOpDesc(self.local.addr, self.remote.addr + self.SIZE, 1)]),
            hixl.PARAM_INVALID)
        self.assertEqual(self.client.disconnect(self.name), hixl.SUCCESS)

    def test_device_memory(self):
        ACL.set_device(0)
        dev = ACL.malloc(8192)
        try:
            st, h = self.client.register_mem(hixl.MemDesc(dev, 8192),
                                             hixl.MEM_DEVICE)
            self.assertEqual(st, hixl.SUCCESS)
            self.connect()
            self.assertEqual(self.client.transfer_sync(
                self.name, hixl.READ, [hixl.TransferOpDesc(dev, self.remote.addr, 8192)]),
                hixl.SUCCESS)
            self.assertEqual(ACL.read(dev, 8192), pattern(1, self.SIZE)[:8192])
            self.assertEqual(self.client.deregister_mem(h), hixl.SUCCESS)
        finally:
            self.client.disconnect(self.name)
            ACL.free(dev)

    def test_async(self):
        self.connect()
        args = hixl.TransferArgs()
        args.user_data = 1234
        st, req = self.client.transfer_async(
            self.name, hixl.READ,
            [hixl.TransferOpDesc(self.local.addr, self.remote.addr, 4096)], args)
        self.assertEqual(st, hixl.SUCCESS)
        self.assertNotEqual(req, 0)
        for _ in range(500):
            st, status = self.client.get_transfer_status(req)
            if status != hixl.TransferStatus.WAITING:
                break
            time.sleep(0.01)
        self.assertEqual((st, status), (hixl.SUCCESS, hixl.TransferStatus.COMPLETED))
        self.assertEqual(self.local.read(4096), pattern(1, 4096))
        # Reported once: then it is unknown.
        self.assertEqual(self.client.get_transfer_status(req),
                         (hixl.PARAM_INVALID, hixl.TransferStatus.FAILED))
        # The batch query hands back user_data.
        st, req = self.client.transfer_async(
            self.name, hixl.WRITE,
            [hixl.TransferOpDesc(self.local.addr, self.remote.addr, 64)], args)
        self.assertEqual(st, hixl.SUCCESS)
        results = []
        for _ in range(500):
            st, got = self.client.get_all_transfer_status(
                hixl.GetTransferStatusArgs(skip_waiting=True))
            self.assertEqual(st, hixl.SUCCESS)
            results += got
            if results:
                break
            time.sleep(0.01)
        self.assertEqual([(r.req, r.user_data, r.status) for r in results],
                         [(req, 1234, hixl.TransferStatus.COMPLETED)])

    def test_notify_and_async_connect(self):
        self.assertEqual(self.client.connect_async(self.name, 2000), hixl.SUCCESS)
        for _ in range(500):
            st, status = self.client.get_async_connect_status(self.name)
            if status in (hixl.CONNECTED, hixl.CONNECT_FAILED):
                break
            time.sleep(0.01)
        self.assertEqual((st, status), (hixl.SUCCESS, hixl.CONNECTED))
        self.assertEqual(self.client.get_all_async_connect_status(),
                         (hixl.SUCCESS, {self.name: hixl.CONNECTED}))
        self.assertEqual(self.client.send_notify(
            self.name, hixl.NotifyDesc("kv", "ready 1")), hixl.SUCCESS)
        st, notes = self.server.get_notifies()
        self.assertEqual(st, hixl.SUCCESS)
        self.assertEqual([(n.name, n.notify_msg) for n in notes], [("kv", "ready 1")])
        self.assertEqual(self.server.get_notifies(), (hixl.SUCCESS, []))
        self.assertEqual(self.client.disconnect_async(self.name), hixl.SUCCESS)

    def test_handles(self):
        # hixl refuses a null handle; an unknown one is success.
        self.assertEqual(self.server.deregister_mem(0), hixl.PARAM_INVALID)
        self.assertEqual(self.server.deregister_mem(self.rh), hixl.SUCCESS)
        # Registered twice, counted.
        st, h2 = self.client.register_mem(
            hixl.MemDesc(self.local.addr, self.SIZE), hixl.MEM_HOST)
        self.assertEqual((st, h2), (hixl.SUCCESS, self.lh))
        self.assertEqual(self.client.register_mem(
            hixl.MemDesc(self.local.addr + 8, 16), hixl.MEM_HOST)[0],
            hixl.PARAM_INVALID)
        self.assertEqual(self.client.initialize("127.0.0.1"), hixl.SUCCESS)


def _options(port=None, **kw):
    c = ld.LLMConfig()
    c.device_id = 0
    c.enable_cache_manager = True
    c.enable_remote_cache_accessible = True
    c.sync_kv_timeout = 3000
    if port is not None:
        c.listen_ip_info = f"127.0.0.1:{port}"
    for k, v in kw.items():
        setattr(c, k, v)
    return c.generate_options()


def _cluster(cluster_id, port=None):
    c = ld.LLMClusterInfo()
    c.remote_cluster_id = cluster_id
    c.append_local_ip_info("127.0.0.1", 0)
    if port is not None:
        c.append_remote_ip_info("127.0.0.1", port)
    return c


class DataDistPair(unittest.TestCase):
    """A prompt (cluster 1, listening) and a decoder (cluster 2, listening
    too, so that the prompt can link to it), one process.  CANN's package
    has one LLMDataDist a process; this test clears the class's record of
    the first before the second's init."""

    BLOCKS, BLOCK = 8, 256	# each tensor: 8 blocks of 256 bytes
    TENSORS = 4

    def _init(self, role, cluster_id):
        dd = ld.LLMDataDist(role, cluster_id)
        for _ in range(20):
            port = free_port()
            try:
                LLMDataDist._instance = None
                dd.init(_options(port))
                return dd, port
            except ld.LLMException:
                continue
        self.fail("no free port")

    def setUp(self):
        fresh_fake()
        self.p, self.p_port = self._init(ld.LLMRole.PROMPT, 1)
        self.d, self.d_port = self._init(ld.LLMRole.DECODER, 2)
        self.bufs = []
        desc = ld.CacheDesc(self.TENSORS, [self.BLOCKS, self.BLOCK // 2],
                            ld.DataType.DT_FLOAT16)
        self.p_addrs = self._tensors(10)
        self.d_addrs = self._tensors(0)
        pm, dm = self.p.cache_manager, self.d.cache_manager
        self.p_blocks = pm.register_blocks_cache(desc, self.p_addrs,
                                                 ld.BlocksCacheKey(1, 0))
        self.d_blocks = dm.register_blocks_cache(desc, self.d_addrs,
                                                 ld.BlocksCacheKey(2, 0))
        # A contiguous cache each: 2 batches of 512 bytes, one tensor.
        cdesc = ld.CacheDesc(1, [2, 512], ld.DataType.DT_UINT8)
        self.p_flat = self._tensors(20, 1, 1024)
        self.d_flat = self._tensors(0, 1, 1024)
        self.p_cache = pm.register_cache(cdesc, self.p_flat)
        self.d_cache = dm.register_cache(cdesc, self.d_flat)

    def tearDown(self):
        for dd in (self.d, self.p):
            LLMDataDist._instance = dd
            dd.finalize()
        for a in self.bufs:
            ACL.free(a)

    def _tensors(self, seed, n=TENSORS, size=BLOCKS * BLOCK):
        addrs = []
        for t in range(n):
            a = ACL.malloc(size)
            self.bufs.append(a)
            ACL.write(a, pattern(seed + t, size) if seed else bytes(size))
            addrs.append(a)
        return addrs

    def _block(self, addr, b):
        return ACL.read(addr + b * self.BLOCK, self.BLOCK)

    def test_ids(self):
        # As CANN's examples expect: each side's caches from 1.
        self.assertEqual((self.p_blocks.cache_id, self.p_cache.cache_id), (1, 2))
        self.assertEqual((self.d_blocks.cache_id, self.d_cache.cache_id), (1, 2))
        self.assertTrue(self.p_blocks.is_blocks_cache)
        self.assertFalse(self.p_cache.is_blocks_cache)

    def test_pull_blocks_and_cache(self):
        dm = self.d.cache_manager
        ret, rets = self.d.link_clusters([_cluster(1, self.p_port)], 2000)
        self.assertEqual((ret, rets), (S.LLM_SUCCESS, [S.LLM_SUCCESS]))
        dm.pull_blocks(ld.BlocksCacheKey(1, 0), self.d_blocks, [5, 1], [0, 7])
        for t in range(self.TENSORS):
            src = pattern(10 + t, self.BLOCKS * self.BLOCK)
            self.assertEqual(self._block(self.d_addrs[t], 0), src[5 * 256:6 * 256])
            self.assertEqual(self._block(self.d_addrs[t], 7), src[1 * 256:2 * 256])
            self.assertEqual(self._block(self.d_addrs[t], 3), bytes(256))
        # Layer 1 (tensors 2 and 3) of block 2 into layer 0 (tensors 0, 1).
        dm.pull_blocks(ld.BlocksCacheKey(1, 0), self.d_blocks, [2], [2],
                       src_layer_range=range(1, 2), dst_layer_range=range(0, 1))
        self.assertEqual(self._block(self.d_addrs[0], 2),
                         pattern(12, 2048)[512:768])
        self.assertEqual(self._block(self.d_addrs[2], 2), bytes(256))
        # Batch 1 of the prompt's cache 2 into batch 0 of ours.
        dm.pull_cache(ld.CacheKeyByIdAndIndex(1, 2, 1), self.d_cache, 0)
        self.assertEqual(ACL.read(self.d_flat[0], 512), pattern(20, 1024)[512:])
        dm.pull_cache(ld.CacheKeyByIdAndIndex(1, 2, 0), self.d_cache, 1, size=100)
        self.assertEqual(ACL.read(self.d_flat[0] + 512, 100), pattern(20, 100))
        self.assertEqual(self.d.unlink_clusters([_cluster(1)], 2000),
                         (S.LLM_SUCCESS, [S.LLM_SUCCESS]))

    def test_push(self):
        pm = self.p.cache_manager
        ret, _ = self.p.link_clusters([_cluster(2, self.d_port)], 2000)
        self.assertEqual(ret, S.LLM_SUCCESS)
        pm.push_blocks(ld.BlocksCacheKey(2, 0), self.p_blocks, [0, 1, 2], [6, 5, 4])
        for t in range(self.TENSORS):
            src = pattern(10 + t, 2048)
            for s, d in ((0, 6), (1, 5), (2, 4)):
                self.assertEqual(self._block(self.d_addrs[t], d),
                                 src[s * 256:(s + 1) * 256])
        pm.push_cache(ld.CacheKeyByIdAndIndex(2, 2, 1), self.p_cache, 0,
                      tensor_num_per_layer=1)
        self.assertEqual(ACL.read(self.d_flat[0] + 512, 512), pattern(20, 512))
        self.p.unlink_clusters([_cluster(2)])

    def test_errors(self):
        dm = self.d.cache_manager
        def code(f, *a, **kw):
            with self.assertRaises(ld.LLMException) as cm:
                f(*a, **kw)
            return cm.exception.status_code
        # Not linked yet.
        self.assertEqual(code(dm.pull_blocks, ld.BlocksCacheKey(1, 0),
                              self.d_blocks, [0], [0]), S.LLM_NOT_YET_LINK)
        self.assertEqual(self.d.link_clusters([_cluster(1, self.p_port)])[0],
                         S.LLM_SUCCESS)
        # Linked twice.
        ret, rets = self.d.link_clusters([_cluster(1, self.p_port)])
        self.assertEqual(rets, [S.LLM_ALREADY_LINK])
        self.assertEqual(ret, S.LLM_ALREADY_LINK)
        # No blocks cache with that model id, no cache with that id.
        self.assertEqual(code(dm.pull_blocks, ld.BlocksCacheKey(1, 9),
                              self.d_blocks, [0], [0]), S.LLM_KV_CACHE_NOT_EXIST)
        self.assertEqual(code(dm.pull_cache, ld.CacheKeyByIdAndIndex(1, 7),
                              self.d_cache), S.LLM_KV_CACHE_NOT_EXIST)
        # Blocks out of range, lists of other lengths, a batch not there.
        self.assertEqual(code(dm.pull_blocks, ld.BlocksCacheKey(1, 0),
                              self.d_blocks, [8], [0]), S.LLM_PARAM_INVALID)
        self.assertEqual(code(dm.pull_blocks, ld.BlocksCacheKey(1, 0),
                              self.d_blocks, [0, 1], [0]), S.LLM_PARAM_INVALID)
        self.assertEqual(code(dm.pull_cache, ld.CacheKeyByIdAndIndex(1, 2, 2),
                              self.d_cache), S.LLM_PARAM_INVALID)
        # The wrong kind of cache, or of key.
        self.assertEqual(code(dm.pull_cache, ld.CacheKeyByIdAndIndex(1, 2),
                              self.d_blocks), S.LLM_PARAM_INVALID)
        self.assertEqual(code(dm.pull_cache, ld.CacheKey(1, req_id=1),
                              self.d_cache), S.LLM_FEATURE_NOT_ENABLED)
        with self.assertRaises(TypeError):
            dm.push_blocks(ld.CacheKeyByIdAndIndex(1, 1), self.d_blocks, [0], [0])
        self.assertEqual(code(dm.allocate_cache,
                              ld.CacheDesc(1, [1, 8], ld.DataType.DT_UINT8)),
                         S.LLM_FEATURE_NOT_ENABLED)
        # A tensor overlapping a registered one (the engine's rule).
        self.assertEqual(code(dm.register_cache,
                              ld.CacheDesc(1, [1, 8], ld.DataType.DT_UINT8),
                              [self.d_flat[0] + 8], remote_accessible=True),
                         S.LLM_PARAM_INVALID)
        # switch_role with a link up.
        self.assertEqual(code(self.d.switch_role, ld.LLMRole.PROMPT, {}),
                         S.LLM_EXIST_LINK)
        self.assertEqual(self.d.unlink_clusters([_cluster(1)])[0], S.LLM_SUCCESS)
        self.assertEqual(self.d.unlink_clusters([_cluster(1)])[1],
                         [S.LLM_NOT_YET_LINK])
        self.d.switch_role(ld.LLMRole.PROMPT, {})
        # One LLMDataDist a process.
        other = ld.LLMDataDist(ld.LLMRole.MIX, 9)
        self.assertEqual(code(other.init, _options()), S.LLM_FAILED)

    def test_unregister(self):
        dm = self.d.cache_manager
        self.p.cache_manager.unregister_cache(self.p_blocks.cache_id)
        self.p.cache_manager.unregister_cache(77)
        self.assertEqual(self.d.link_clusters([_cluster(1, self.p_port)])[0],
                         S.LLM_SUCCESS)
        with self.assertRaises(ld.LLMException) as cm:
            dm.pull_blocks(ld.BlocksCacheKey(1, 0), self.d_blocks, [0], [0])
        self.assertEqual(cm.exception.status_code, S.LLM_KV_CACHE_NOT_EXIST)
        dm.pull_cache(ld.CacheKeyByIdAndIndex(1, 2), self.d_cache)
        self.assertEqual(ACL.read(self.d_flat[0], 512), pattern(20, 512))


if __name__ == "__main__":
    tap.main("python fake")
