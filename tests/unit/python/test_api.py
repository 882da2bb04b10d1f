# SPDX-License-Identifier: LGPL-2.1-or-later
"""The packages as built, with no module on this host: the names, values
and argument checks of hixl and llm_datadist, and the statuses of calls
that need the module (they fail, and say so).  The names are those of
CANN's packages (hicann/hixl: src/python/hixl_py, src/python/llm_datadist;
docs/zh/api/python)."""

import unittest

import hixl
import llm_datadist as ld

import tap


class HixlNames(unittest.TestCase):
    def test_all(self):
        want = {
            "SUCCESS", "PARAM_INVALID", "TIMEOUT", "NOT_CONNECTED",
            "ALREADY_CONNECTED", "NOTIFY_FAILED", "UNSUPPORTED", "FAILED",
            "RESOURCE_EXHAUSTED", "OPTION_ENABLE_USE_FABRIC_MEM",
            "OPTION_RDMA_TRAFFIC_CLASS", "OPTION_RDMA_SERVICE_LEVEL",
            "OPTION_BUFFER_POOL", "OPTION_GLOBAL_RESOURCE_CONFIG",
            "OPTION_AUTO_CONNECT", "OPTION_LOCAL_COMM_RES",
            "FEATURE_SUPPORTED", "FEATURE_NOT_SUPPORTED", "MemType",
            "MEM_DEVICE", "MEM_HOST", "TransferOp", "READ", "WRITE",
            "TransferStatus", "AsyncConnectStatus", "NOT_CONNECT",
            "CONNECT_PENDING", "CONNECTING", "CONNECTED", "CONNECT_FAILED",
            "DISCONNECT_PENDING", "DISCONNECTING", "FeatureType",
            "AUTO_CONNECT", "CLIENT_SERVER_COMM", "MemDesc", "TransferOpDesc",
            "TransferArgs", "GetTransferStatusArgs", "TransferResult",
            "NotifyDesc", "Hixl", "get_capability",
        }
        self.assertEqual(set(hixl.__all__), want)
        for name in want:
            self.assertTrue(hasattr(hixl, name), name)

    def test_status_values(self):
        # hixl::Status, as <hixl/hixl_types.h> (and ADXL's) has them.
        self.assertEqual((hixl.SUCCESS, hixl.PARAM_INVALID, hixl.TIMEOUT,
                          hixl.NOT_CONNECTED, hixl.ALREADY_CONNECTED,
                          hixl.NOTIFY_FAILED, hixl.UNSUPPORTED,
                          hixl.RESOURCE_EXHAUSTED, hixl.FAILED),
                         (0, 103900, 103901, 103902, 103903, 103904, 103905,
                          203900, 503900))
        self.assertEqual((hixl.FEATURE_SUPPORTED, hixl.FEATURE_NOT_SUPPORTED),
                         (1, 0))

    def test_option_keys(self):
        self.assertEqual(hixl.OPTION_AUTO_CONNECT, "AutoConnect")
        self.assertEqual(hixl.OPTION_GLOBAL_RESOURCE_CONFIG,
                         "GlobalResourceConfig")
        self.assertEqual(hixl.OPTION_BUFFER_POOL, "BufferPool")
        self.assertEqual(hixl.OPTION_LOCAL_COMM_RES, "LocalCommRes")
        self.assertEqual(hixl.OPTION_ENABLE_USE_FABRIC_MEM, "EnableUseFabricMem")
        self.assertEqual(hixl.OPTION_RDMA_TRAFFIC_CLASS, "RdmaTrafficClass")
        self.assertEqual(hixl.OPTION_RDMA_SERVICE_LEVEL, "RdmaServiceLevel")

    def test_enums(self):
        self.assertEqual(int(hixl.MemType.MEM_DEVICE), 0)
        self.assertEqual(int(hixl.MemType.MEM_HOST), 1)
        self.assertIs(hixl.MEM_DEVICE, hixl.MemType.MEM_DEVICE)
        self.assertEqual((int(hixl.READ), int(hixl.WRITE)), (0, 1))
        self.assertEqual([int(getattr(hixl.TransferStatus, n)) for n in
                          ("WAITING", "COMPLETED", "TIMEOUT", "FAILED")],
                         [0, 1, 2, 3])
        self.assertEqual([int(getattr(hixl.AsyncConnectStatus, n)) for n in
                          ("NOT_CONNECT", "CONNECT_PENDING", "CONNECTING",
                           "CONNECTED", "CONNECT_FAILED", "DISCONNECT_PENDING",
                           "DISCONNECTING")], list(range(7)))
        self.assertIs(hixl.CONNECTED, hixl.AsyncConnectStatus.CONNECTED)
        self.assertEqual((int(hixl.AUTO_CONNECT), int(hixl.CLIENT_SERVER_COMM)),
                         (0, 1))
        # TransferStatus's values stay in their enum: hixl.TIMEOUT and
        # hixl.FAILED are the status codes.
        self.assertFalse(hasattr(hixl, "WAITING"))
        self.assertEqual(hixl.TIMEOUT, 103901)

    def test_structs(self):
        d = hixl.MemDesc(0x1000, 64)
        self.assertEqual((d.addr, d.len), (0x1000, 64))
        d = hixl.MemDesc(addr=5, len=6)
        d.len = 7
        self.assertEqual((d.addr, d.len), (5, 7))
        t = hixl.TransferOpDesc(local_addr=1, remote_addr=2, len=3)
        self.assertEqual((t.local_addr, t.remote_addr, t.len), (1, 2, 3))
        a = hixl.TransferArgs()
        self.assertEqual(a.user_data, 0)
        a.user_data = 42
        self.assertEqual(a.user_data, 42)
        g = hixl.GetTransferStatusArgs()
        self.assertEqual((g.max_query_count, g.skip_waiting), (2 ** 32 - 1, False))
        g = hixl.GetTransferStatusArgs(8, True)
        self.assertEqual((g.max_query_count, g.skip_waiting), (8, True))
        r = hixl.TransferResult()
        self.assertEqual((r.req, r.user_data, r.status),
                         (0, 0, hixl.TransferStatus.WAITING))
        n = hixl.NotifyDesc("name", "msg")
        self.assertEqual((n.name, n.notify_msg), ("name", "msg"))
        n.notify_msg = "other"
        self.assertEqual(n.notify_msg, "other")
        with self.assertRaises(TypeError):
            hixl.MemDesc("x", 1)
        with self.assertRaises(TypeError):
            hixl.TransferOpDesc(1, 2)

    def test_capability(self):
        self.assertEqual(hixl.get_capability(hixl.AUTO_CONNECT),
                         (hixl.SUCCESS, hixl.FEATURE_SUPPORTED))
        self.assertEqual(hixl.get_capability(hixl.CLIENT_SERVER_COMM),
                         (hixl.SUCCESS, hixl.FEATURE_SUPPORTED))


class HixlWithoutModule(unittest.TestCase):
    def test_not_initialized(self):
        e = hixl.Hixl()
        F = hixl.FAILED
        self.assertEqual(e.register_mem(hixl.MemDesc(4096, 4096), hixl.MEM_HOST),
                         (F, 0))
        self.assertEqual(e.deregister_mem(1), F)
        self.assertEqual(e.connect("127.0.0.1:1"), F)
        self.assertEqual(e.disconnect("127.0.0.1:1", timeout_in_millis=5), F)
        self.assertEqual(e.connect_async("127.0.0.1:1"), F)
        self.assertEqual(e.disconnect_async("127.0.0.1:1"), F)
        self.assertEqual(e.get_async_connect_status("127.0.0.1:1"),
                         (F, hixl.NOT_CONNECT))
        self.assertEqual(e.get_all_async_connect_status(), (F, {}))
        self.assertEqual(e.transfer_sync("127.0.0.1:1", hixl.READ,
                                         [hixl.TransferOpDesc(1, 2, 3)]), F)
        self.assertEqual(e.transfer_async("127.0.0.1:1", hixl.WRITE, []), (F, 0))
        self.assertEqual(e.get_transfer_status(1),
                         (F, hixl.TransferStatus.FAILED))
        self.assertEqual(e.get_all_transfer_status(), (F, []))
        self.assertEqual(e.send_notify("127.0.0.1:1", hixl.NotifyDesc("a", "b")), F)
        self.assertEqual(e.get_notifies(), (F, []))
        e.finalize()
        e.finalize()

    def test_initialize_fails(self):
        e = hixl.Hixl()
        # A name that is not an engine name is refused before the module.
        self.assertEqual(e.initialize("not-an-address"), hixl.PARAM_INVALID)
        # No /dev/memreg here.
        self.assertEqual(e.initialize("127.0.0.1:26000",
                                      {hixl.OPTION_AUTO_CONNECT: "1"}),
                         hixl.FAILED)
        self.assertEqual(e.connect("127.0.0.1:26001"), hixl.FAILED)

    def test_argument_types(self):
        e = hixl.Hixl()
        with self.assertRaises(TypeError):
            e.initialize(5)
        with self.assertRaises(TypeError):
            e.initialize("127.0.0.1", {"AutoConnect": 1})
        with self.assertRaises(TypeError):
            e.register_mem((1, 2), hixl.MEM_HOST)
        with self.assertRaises(TypeError):
            e.transfer_sync("127.0.0.1:1", 0, [])


class DataDistNames(unittest.TestCase):
    def test_all(self):
        for name in ("LLMDataDist", "LLMRole", "LLMConfig", "LlmConfig",
                     "LLMClusterInfo", "LLMStatusCode", "LLMException",
                     "Status", "DataType", "CacheDesc", "Cache", "CacheKey",
                     "CacheKeyByIdAndIndex", "BlocksCacheKey", "Placement",
                     "RegisterMemStatus", "Memtype", "MemInfo",
                     "LayerSynchronizer", "TransferConfig",
                     "TransferWithCacheKeyConfig", "CacheTask"):
            self.assertIn(name, ld.__all__)
            self.assertTrue(hasattr(ld, name), name)
        self.assertIs(ld.LlmConfig, ld.LLMConfig)

    def test_status_codes(self):
        S = ld.LLMStatusCode
        self.assertEqual(S.LLM_SUCCESS, 0)
        self.assertEqual(S.LLM_FAILED, 0xFFFFFFFF)
        self.assertEqual(S.LLM_WAIT_PROCESS_TIMEOUT, 0x5010B001)
        self.assertEqual(S.LLM_KV_CACHE_NOT_EXIST, 0x5010B002)
        self.assertEqual(S.LLM_PARAM_INVALID, 0x5010B005)
        self.assertEqual(S.LLM_NOT_YET_LINK, 0x5010B007)
        self.assertEqual(S.LLM_ALREADY_LINK, 0x5010B008)
        self.assertEqual(S.LLM_LINK_FAILED, 0x5010B009)
        self.assertEqual(S.LLM_EXIST_LINK, 0x5010B018)
        self.assertEqual(S.LLM_FEATURE_NOT_ENABLED, 0x5010B019)
        self.assertEqual(S.LLM_TIMEOUT, 0x5010B01A)
        self.assertEqual(S.LLM_OUT_OF_MEMORY, 0x5010B01C)
        self.assertEqual(S.LLM_DEVICE_MEM_ERROR, 507053)
        self.assertEqual(S.LLM_UNKNOWN_ERROR, -1)
        self.assertEqual(str(S.LLM_TIMEOUT), "LLMStatusCode.LLM_TIMEOUT")
        e = ld.LLMException("x", status_code=S.LLM_TIMEOUT)
        self.assertIsInstance(e, RuntimeError)
        self.assertEqual(e.status_code, S.LLM_TIMEOUT)
        self.assertTrue(ld.Status(S.LLM_SUCCESS).is_ok())
        self.assertFalse(ld.Status(S.LLM_FAILED).is_ok())

    def test_enums(self):
        self.assertEqual([int(r) for r in (ld.LLMRole.PROMPT, ld.LLMRole.DECODER,
                                           ld.LLMRole.MIX)], [1, 2, 3])
        self.assertEqual((int(ld.Placement.HOST), int(ld.Placement.DEVICE)), (0, 1))
        # ge::DataType's numbers.
        self.assertEqual(ld.DataType.DT_FLOAT.value, 0)
        self.assertEqual(ld.DataType.DT_FLOAT16.value, 1)
        self.assertEqual(ld.DataType.DT_BF16.value, 27)
        self.assertEqual(ld.DataType.DT_UINT8.value, 4)
        self.assertEqual(len(ld.DataType), 14)
        self.assertEqual(ld.RegisterMemStatus.PREPARING.value, 1)
        self.assertEqual(ld.Memtype.MEM_TYPE_HOST.value, 1)

    def test_config(self):
        c = ld.LLMConfig()
        c.device_id = 3
        c.enable_cache_manager = True
        c.enable_remote_cache_accessible = True
        c.listen_ip_info = "127.0.0.1:26000"
        c.sync_kv_timeout = 2000
        c.local_comm_res = ""
        c.transfer_backend = "hixl"
        opts = c.generate_options()
        self.assertEqual(opts["ge.exec.deviceId"], "3")
        self.assertEqual(opts["ge.session_device_id"], "3")
        self.assertEqual(opts["llm.EnableCacheManager"], "1")
        self.assertEqual(opts["llm.EnableRemoteCacheAccessible"], "1")
        self.assertEqual(opts["llm.listenIpInfo"], "127.0.0.1:26000")
        self.assertEqual(opts["llm.SyncKvCacheWaitTime"], "2000")
        self.assertEqual(opts["llm.LocalCommRes"], "")
        self.assertEqual(opts["llm.TransferBackend"], "hixl")
        self.assertEqual(c.listen_ip_info, "127.0.0.1:26000")
        c.device_id = [1, 2]
        self.assertEqual(c.generate_options()["ge.exec.deviceId"], "1;2")
        self.assertEqual(ld.LLMConfig().local_comm_res, "")
        self.assertFalse(ld.LLMConfig().enable_cache_manager)
        with self.assertRaises(TypeError):
            c.device_id = "0"
        with self.assertRaises(TypeError):
            c.listen_ip_info = 26000
        with self.assertRaises(TypeError):
            c.enable_cache_manager = 1
        with self.assertRaises(ValueError):
            c.rdma_traffic_class = -1
        with self.assertRaises(ld.LLMException) as cm:
            c.sync_kv_timeout = 0
        self.assertEqual(cm.exception.status_code,
                         ld.LLMStatusCode.LLM_PARAM_INVALID)
        with self.assertRaises(ld.LLMException):
            c.link_retry_count = 101

    def test_cluster_info(self):
        c = ld.LLMClusterInfo()
        c.remote_cluster_id = 7
        c.append_remote_ip_info("10.1.2.3", 26000)
        c.append_local_ip_info("127.0.0.1", 0)
        # CANN keeps an IPv4 address as inet_aton's bytes, little-endian.
        self.assertEqual(c.remote_ip_info_list, [(0x0302010A, 26000)])
        self.assertEqual(c.local_ip_info_list, [(0x0100007F, 0)])
        with self.assertRaises(ValueError):
            c.remote_cluster_id = -1
        with self.assertRaises(ValueError):
            c.append_remote_ip_info("10.1.2.3", 70000)
        with self.assertRaises(TypeError):
            c.append_remote_ip_info(1.5, 1)
        with self.assertRaises(RuntimeError):
            c.append_remote_ip_info("not an ip", 1)

    def test_cache_types(self):
        d = ld.CacheDesc(2, [4, 8], ld.DataType.DT_BF16, ld.Placement.HOST)
        self.assertEqual((d.num_tensors, d.batch_size, d.size), (2, 4, 64))
        d = ld.CacheDesc(num_tensors=1, shape=(3, 5), data_type=ld.DataType.DT_FLOAT)
        self.assertEqual((d.size, d.placement), (60, ld.Placement.DEVICE))
        with self.assertRaises(TypeError):
            ld.CacheDesc(1, [2, "4"], ld.DataType.DT_INT8)
        with self.assertRaises(TypeError):
            ld.CacheDesc(1, [2, 4], 4)
        with self.assertRaises(ValueError):
            ld.CacheDesc(-1, [2, 4], ld.DataType.DT_INT8)
        with self.assertRaises(ld.LLMException):
            ld.CacheDesc(1, [2, 4], ld.DataType.DT_INT8, batch_dim_index=2)
        with self.assertRaises(ld.LLMException):
            _ = ld.CacheDesc(1, [2], ld.DataType.DT_STRING).size
        k = ld.BlocksCacheKey(1, 2)
        self.assertEqual((k.cluster_id, k.model_id), (1, 2))
        k = ld.BlocksCacheKey(prompt_cluster_id=4)
        self.assertEqual((k.prompt_cluster_id, k.model_id), (4, 0))
        with self.assertRaises(ld.LLMException):
            ld.BlocksCacheKey(model_id=1)
        k = ld.CacheKeyByIdAndIndex(1, 2, 3)
        self.assertEqual((k.cluster_id, k.cache_id, k.batch_index), (1, 2, 3))
        with self.assertRaises(ValueError):
            ld.CacheKeyByIdAndIndex(1, 2, -1)
        k = ld.CacheKey(1, req_id=9)
        self.assertEqual((k.req_id, k.prefix_id), (9, 2 ** 64 - 1))
        with self.assertRaises(ld.LLMException):
            ld.CacheKey(1)
        c = ld.Cache.create_cpu_cache(
            ld.CacheDesc(1, [2, 4], ld.DataType.DT_INT8, ld.Placement.HOST), [4096])
        self.assertEqual((c.cache_id, c.is_blocks_cache), (-1, True))


class DataDistWithoutModule(unittest.TestCase):
    def _options(self, **kw):
        c = ld.LLMConfig()
        c.device_id = 0
        c.enable_cache_manager = True
        for k, v in kw.items():
            setattr(c, k, v)
        return c.generate_options()

    def test_constructor(self):
        with self.assertRaises(TypeError):
            ld.LLMDataDist(1, 0)
        with self.assertRaises(ValueError):
            ld.LLMDataDist(ld.LLMRole.PROMPT, -1)
        dd = ld.LLMDataDist(ld.LLMRole.DECODER, 2)
        self.assertEqual(dd.cluster_id, 2)
        with self.assertRaises(RuntimeError):
            _ = dd.cache_manager
        with self.assertRaises(RuntimeError):
            dd.link_clusters([])
        dd.finalize()

    def test_init(self):
        dd = ld.LLMDataDist(ld.LLMRole.PROMPT, 1)
        with self.assertRaises(TypeError):
            dd.init({"ge.exec.deviceId": 0})
        # The kv_cache_manager mode (CANN's older package) is not here.
        c = ld.LLMConfig()
        c.device_id = 0
        with self.assertRaises(ld.LLMException) as cm:
            dd.init(c.generate_options())
        self.assertEqual(cm.exception.status_code,
                         ld.LLMStatusCode.LLM_FEATURE_NOT_ENABLED)
        # A transfer backend needs a listen address, as CANN's.
        with self.assertRaises(ld.LLMException) as cm:
            dd.init(self._options(transfer_backend="hixl"))
        self.assertEqual(cm.exception.status_code,
                         ld.LLMStatusCode.LLM_PARAM_INVALID)
        # No /dev/memreg: the device cannot be set.
        with self.assertRaises(ld.LLMException) as cm:
            dd.init(self._options(listen_ip_info="127.0.0.1:26000"))
        self.assertEqual(cm.exception.status_code, ld.LLMStatusCode.LLM_FAILED)
        # A device id is required; a bad listen address is refused.
        with self.assertRaises(ld.LLMException) as cm:
            dd.init({"llm.EnableCacheManager": "1"})
        self.assertEqual(cm.exception.status_code,
                         ld.LLMStatusCode.LLM_PARAM_INVALID)
        with self.assertRaises(ld.LLMException) as cm:
            dd.init(self._options(listen_ip_info="nowhere:1"))
        self.assertEqual(cm.exception.status_code,
                         ld.LLMStatusCode.LLM_PARAM_INVALID)
        # Nothing half made: the cache manager is still out of reach.
        with self.assertRaises(RuntimeError):
            _ = dd.cache_manager


if __name__ == "__main__":
    tap.main("python api")
