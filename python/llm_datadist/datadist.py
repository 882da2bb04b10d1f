# SPDX-License-Identifier: LGPL-2.1-or-later
"""LLMDataDist: one per process, as in CANN's package.  init starts an
LlmDataDist of libllm_datadist.so (one ADXL engine, listening if
listen_ip_info is set); link_clusters connects it to peers; its
cache_manager registers caches and moves them.  docs/python.md: what is
covered and how it differs."""

import atexit

from llm_datadist import _datadist
from llm_datadist._checks import check_int, check_str_dict, check_type
from llm_datadist.cache_manager import CacheManager
from llm_datadist.configs import LLMClusterInfo, LLMRole, int_to_ip
from llm_datadist.status import (
    LLMException, LLMStatusCode, check_call, expect, log, not_enabled,
    to_status)

# The options of CANN's package that mean something here, and the
# LlmDataDist option each becomes (<llm_datadist/llm_datadist.h>).
_PASSED_ON = {
    "llm.listenIpInfo": "llm.ListenIpInfo",
    "llm.SyncKvCacheWaitTime": "llm.SyncKvCacheWaitTime",
    "llm.TransferBackend": "llm.TransferBackend",
    "llm.LocalCommRes": "llm.LocalCommRes",
    "llm.GlobalResourceConfig": "llm.GlobalResourceConfig",
}


def _device_id(options):
    """The device: ge.session_device_id, else the first of
    ge.exec.deviceId ("0" or "0;1"), else llm.DeviceId."""
    for key in ("ge.session_device_id", "ge.exec.deviceId", "llm.DeviceId"):
        if key in options:
            return options[key].split(";")[0].strip()
    return None


def _engine_options(options):
    out = {v: options[k] for k, v in _PASSED_ON.items() if k in options}
    device = _device_id(options)
    if device is not None:
        out["llm.DeviceId"] = device
    return out


def _clusters(clusters):
    """(cluster id, remote ip, port, remote and local IpInfo counts)."""
    out = []
    for c in clusters:
        check_int("remote_cluster_id", c.remote_cluster_id, "uint64")
        remote = c.remote_ip_info_list
        ip, port = (int_to_ip(remote[0][0]), remote[0][1]) if remote else ("", 0)
        out.append((c.remote_cluster_id, ip, port, len(remote),
                    len(c.local_ip_info_list)))
    return out


class LLMDataDist:
    """LLMDataDist(role, cluster_id): cluster_id names this one to the
    peers that link to it; the role is a label."""

    _instance = None

    def __init__(self, role, cluster_id):
        check_type("role", role, LLMRole, allow_none=False)
        check_int("cluster_id", cluster_id, "uint64")
        self._role = role
        self._cluster_id = cluster_id
        self._engine = None
        self._cache_manager = None
        self._options = {}
        self._initialized = False

    @property
    def cluster_id(self):
        return self._cluster_id

    def _check_initialized(self):
        if not self._initialized:
            raise RuntimeError("llm datadist is not initialized")

    def init(self, options):
        """Start with options (LLMConfig.generate_options()): device_id
        required, and the CacheManager mode (enable_cache_manager, or
        local_comm_res)."""
        if self._initialized:
            return
        expect(LLMDataDist._instance is None,
               "an LLMDataDist of this process is initialized already",
               LLMStatusCode.LLM_FAILED)
        check_str_dict("options", options)
        opts = dict(options)
        comm_res = "llm.LocalCommRes" in opts
        if comm_res:
            opts.setdefault("llm.EnableCacheManager", "1")
            opts.setdefault("llm.EnableRemoteCacheAccessible", "1")
        if opts.get("llm.EnableCacheManager") != "1":
            not_enabled("init without the CacheManager mode",
                        "set enable_cache_manager = True (or local_comm_res) "
                        "in LLMConfig; the kv_cache_manager mode is CANN's "
                        "older package")
        if "llm.TransferBackend" in opts:
            opts.setdefault("llm.EnableRemoteCacheAccessible", "1")
            expect(opts["llm.EnableRemoteCacheAccessible"] == "1",
                   "llm.TransferBackend needs llm.EnableRemoteCacheAccessible")
            expect("llm.listenIpInfo" in opts,
                   "llm.TransferBackend needs llm.listenIpInfo")
        engine = _datadist.Engine(self._cluster_id, int(self._role))
        check_call(engine.initialize(_engine_options(opts)),
                   f"[LLMDataDist.init] options = {options}")
        self._engine = engine
        self._options = opts
        self._cache_manager = CacheManager(
            self, engine, opts.get("llm.EnableRemoteCacheAccessible") == "1")
        self._initialized = True
        LLMDataDist._instance = self
        log.info("[LLMDataDist.init] cluster %d as %s", self._cluster_id,
                 self._role)

    def finalize(self):
        """Unlink from every peer, drop every cache, stop the engine."""
        if not self._initialized:
            return
        self._engine.finalize()
        self._cache_manager._initialized = False
        self._initialized = False
        if LLMDataDist._instance is self:
            LLMDataDist._instance = None

    @property
    def cache_manager(self):
        self._check_initialized()
        return self._cache_manager

    @property
    def kv_cache_manager(self):
        self._check_initialized()
        not_enabled("kv_cache_manager", "this package has the CacheManager "
                    "mode only (LLMDataDist.cache_manager)")

    def _links(self, what, clusters, timeout):
        check_int("timeout", timeout, "int32")
        expect(timeout > 0, f"[{what}] timeout must be above 0")
        check_type("clusters", clusters, (list, tuple), LLMClusterInfo,
                   allow_none=False)
        return _clusters(clusters)

    def link_clusters(self, clusters, timeout=3000):
        """Link to each cluster's listen address: (status, [status of each
        cluster]), LLMStatusCode both."""
        self._check_initialized()
        tuples = self._links("link_clusters", clusters, timeout)
        comm_res = self._options.get("llm.LocalCommRes", "")
        for c in clusters:
            expect(comm_res or c.local_ip_info_list,
                   "local_ip_info_list is empty: append_local_ip_info, or "
                   "set local_comm_res")
        code, codes = self._engine.link(tuples, timeout)
        return to_status(code), [to_status(c) for c in codes]

    def unlink_clusters(self, clusters, timeout=3000, force=False):
        """Unlink from each cluster: (status, [status of each cluster])."""
        self._check_initialized()
        tuples = self._links("unlink_clusters", clusters, timeout)
        check_type("force", force, bool, allow_none=False)
        code, codes = self._engine.unlink(tuples, timeout, force)
        return to_status(code), [to_status(c) for c in codes]

    def switch_role(self, role, switch_options=None):
        """Another role; with llm.listenIpInfo in switch_options, listen
        there (a server), without it stop listening (a client).  Every
        link must be gone first (LLM_EXIST_LINK)."""
        self._check_initialized()
        check_type("role", role, LLMRole, allow_none=False)
        check_type("switch_options", switch_options, dict)
        opts = dict(switch_options or {})
        check_str_dict("switch_options", opts)
        check_call(self._engine.set_role(int(role), _engine_options(opts)),
                   f"[switch_role] {self._role.name} -> {role.name}")
        log.info("[switch_role] %s -> %s", self._role.name, role.name)
        self._role = role

    def link(self, comm_name, cluster_rank_info, rank_table):
        self._check_initialized()
        not_enabled("link", "there is no HCCL communication domain: "
                    "link_clusters")

    def unlink(self, comm_id):
        self._check_initialized()
        not_enabled("unlink", "there is no HCCL communication domain: "
                    "unlink_clusters")

    def query_register_mem_status(self, comm_id):
        self._check_initialized()
        not_enabled("query_register_mem_status",
                    "there is no HCCL communication domain")

    def check_link_status(self, remote_cluster_id):
        self._check_initialized()
        not_enabled("check_link_status", "the kv_cache_manager mode's call")


def _finalize_at_exit():
    dd = LLMDataDist._instance
    if dd is not None:
        try:
            dd.finalize()
        except LLMException as e:
            log.warning("finalize at exit: %s", e)


atexit.register(_finalize_at_exit)
