# SPDX-License-Identifier: LGPL-2.1-or-later
"""LLMRole, LLMClusterInfo and LLMConfig: who an LLMDataDist is, whom it
links to, and the options of its init.  LLMConfig makes the option keys
CANN's package makes (generate_options()); LLMDataDist.init reads the
ones that mean something here (docs/python.md)."""

import enum
import json
import socket

from llm_datadist._checks import check_int, check_str_dict, check_type
from llm_datadist.status import expect


class LLMRole(enum.IntEnum):
    """Only a label: transfers do not depend on it."""
    PROMPT = 1
    DECODER = 2
    MIX = 3

    def __str__(self):
        return f"LLMRole.{self.name}"


def ip_to_int(ip):
    """An IPv4 address as CANN's package keeps it: inet_aton's four bytes,
    read little-endian.  An int is taken as it is."""
    if isinstance(ip, int):
        return ip
    try:
        return int.from_bytes(socket.inet_aton(ip), "little")
    except OSError:
        raise RuntimeError(f"cannot parse the IP address {ip!r}") from None


def int_to_ip(value):
    return socket.inet_ntoa(value.to_bytes(4, "little"))


class LLMClusterInfo:
    """A cluster to link to (or unlink from): its id, its listen address
    (append_remote_ip_info) and ours (append_local_ip_info)."""

    def __init__(self):
        self._remote_cluster_id = None
        self._remote_role_type = None
        self._local_ip_info_list = []
        self._remote_ip_info_list = []

    @property
    def remote_cluster_id(self):
        return self._remote_cluster_id

    @remote_cluster_id.setter
    def remote_cluster_id(self, value):
        check_int("remote_cluster_id", value, "uint64")
        self._remote_cluster_id = value

    @property
    def remote_role_type(self):
        return self._remote_role_type

    @remote_role_type.setter
    def remote_role_type(self, value):
        check_type("remote_role_type", value, (LLMRole, int), allow_none=False)
        self._remote_role_type = value

    @property
    def local_ip_info_list(self):
        return self._local_ip_info_list

    @property
    def remote_ip_info_list(self):
        return self._remote_ip_info_list

    @staticmethod
    def _ip_info(ip, port):
        check_type("ip", ip, (str, int), allow_none=False)
        check_int("port", port, "uint16")
        return ip_to_int(ip), port

    def append_local_ip_info(self, ip, port):
        self._local_ip_info_list.append(self._ip_info(ip, port))

    def append_remote_ip_info(self, ip, port):
        self._remote_ip_info_list.append(self._ip_info(ip, port))


def _flag(value):
    return "1" if value else "0"


def _plain(name, types, default):
    """A property that takes a value of types, kept in self._values."""
    def get(self):
        value = self._values.get(name)
        return default if value is None else value

    def put(self, value):
        check_type(name, value, types, allow_none=False)
        self._values[name] = value

    return property(get, put)


class LLMConfig:
    """init's options, made by generate_options() from the properties
    set.  Each property checks its value as it is set."""

    # property: (the type(s) it takes, the option key it makes).  Those
    # with checks or keys of their own are written out below.
    _PLAIN = {
        "listen_ip_info": (str, "llm.listenIpInfo"),
        "deploy_res_path": (str, "llm.deployResPath"),
        "buf_pool_cfg": (str, "llm.BufPoolCfg"),
        "mem_pool_cfg": (str, "llm.MemPoolConfig"),
        "host_mem_pool_cfg": (str, "llm.HostMemPoolConfig"),
        "output_max_size": (int, "llm.OutputMaxSize"),
        "local_comm_res": (str, "llm.LocalCommRes"),
        "transfer_backend": (str, "llm.TransferBackend"),
        "global_resource_config": (str, "llm.GlobalResourceConfig"),
    }
    _FLAGS = {
        "enable_cache_manager": "llm.EnableCacheManager",
        "enable_remote_cache_accessible": "llm.EnableRemoteCacheAccessible",
    }

    def __init__(self):
        self._values = {}
        self._device_id = None
        self._sync_kv_timeout = None
        self._ge_options = {}
        self._enable_switch_role = False
        self._mem_utilization = 0.95
        self._cluster_info = ""
        self._link_total_time = None
        self._link_retry_count = None
        self._rdma_traffic_class = None
        self._rdma_service_level = None
        self._options = {}

    @property
    def device_id(self):
        return self._device_id

    @device_id.setter
    def device_id(self, value):
        ids = list(value) if isinstance(value, (list, tuple)) else [value]
        check_type("device_id", value, (int, list, tuple), allow_none=False)
        for d in ids:
            check_int("device_id", d, "int32")
            expect(d >= 0, "device_id must be 0 or more")
        self._device_id = value

    @property
    def sync_kv_timeout(self):
        return self._sync_kv_timeout

    @sync_kv_timeout.setter
    def sync_kv_timeout(self, value):
        check_type("sync_kv_timeout", value, (int, str), allow_none=False)
        if isinstance(value, str):
            expect(value.isdigit(), "sync_kv_timeout must be digits")
        check_int("sync_kv_timeout", int(value), "int32")
        expect(int(value) > 0, "sync_kv_timeout must be above 0")
        self._sync_kv_timeout = value

    @property
    def ge_options(self):
        return self._ge_options

    @ge_options.setter
    def ge_options(self, value):
        check_str_dict("ge_options", value)
        self._ge_options = value

    @property
    def enable_switch_role(self):
        return self._enable_switch_role

    @enable_switch_role.setter
    def enable_switch_role(self, value):
        check_type("enable_switch_role", value, bool, allow_none=False)
        self._enable_switch_role = value

    @property
    def mem_utilization(self):
        return self._mem_utilization

    @mem_utilization.setter
    def mem_utilization(self, value):
        check_type("mem_utilization", value, float, allow_none=False)
        expect(0.0 <= value <= 1.0,
               f"mem_utilization must be within [0, 1], not {value}")
        self._mem_utilization = value

    @property
    def cluster_info(self):
        return self._cluster_info

    @cluster_info.setter
    def cluster_info(self, value):
        check_type("cluster_info", value, str, allow_none=False)
        info = json.loads(value)
        for ip_info in info.get("listen_ip_info", []):
            ip_info["ip"] = ip_to_int(ip_info["ip"])
        self._cluster_info = json.dumps(info)

    @property
    def link_total_time(self):
        return self._link_total_time or 0

    @link_total_time.setter
    def link_total_time(self, value):
        check_type("link_total_time", value, int, allow_none=False)
        expect(0 <= value <= 2 ** 32 - 1,
               f"link_total_time must be within [0, 2^32-1], not {value}")
        self._link_total_time = value

    @property
    def link_retry_count(self):
        return 1 if self._link_retry_count is None else self._link_retry_count

    @link_retry_count.setter
    def link_retry_count(self, value):
        check_type("link_retry_count", value, int, allow_none=False)
        expect(1 <= value <= 100,
               f"link_retry_count must be within [1, 100], not {value}")
        self._link_retry_count = value

    @property
    def rdma_traffic_class(self):
        return self._rdma_traffic_class

    @rdma_traffic_class.setter
    def rdma_traffic_class(self, value):
        check_int("rdma_traffic_class", value, "uint32")
        self._rdma_traffic_class = value

    @property
    def rdma_service_level(self):
        return self._rdma_service_level

    @rdma_service_level.setter
    def rdma_service_level(self, value):
        check_int("rdma_service_level", value, "uint32")
        self._rdma_service_level = value

    @property
    def options(self):
        return self._options

    def generate_options(self):
        """The options dict for LLMDataDist.init."""
        opts = self._options
        opts.update(self._ge_options)
        if self._device_id is not None:
            ids = self._device_id
            if isinstance(ids, int):
                ids = [ids]
            opts["ge.exec.deviceId"] = ";".join(str(d) for d in ids)
            opts["ge.session_device_id"] = str(ids[0])
        if self._sync_kv_timeout is not None:
            opts["llm.SyncKvCacheWaitTime"] = str(self._sync_kv_timeout)
        for name, (_, key) in LLMConfig._PLAIN.items():
            value = self._values.get(name)
            # An empty string is "not set", but for the keys whose empty
            # value CANN passes on (local_comm_res "": make the defaults).
            if value is None or (value == "" and name not in (
                    "local_comm_res", "transfer_backend",
                    "global_resource_config")):
                continue
            opts[key] = str(value)
        for name, key in LLMConfig._FLAGS.items():
            if name in self._values:
                opts[key] = _flag(self._values[name])
        if self._link_total_time is not None:
            opts["llm.LinkTotalTime"] = str(self._link_total_time)
        if self._link_retry_count is not None:
            opts["llm.LinkRetryCount"] = str(self._link_retry_count)
        if self._rdma_traffic_class is not None:
            opts["llm.RdmaTrafficClass"] = str(self._rdma_traffic_class)
        if self._rdma_service_level is not None:
            opts["llm.RdmaServiceLevel"] = str(self._rdma_service_level)
        if self._cluster_info:
            opts["llm.ClusterInfo"] = self._cluster_info
        if self._enable_switch_role:
            opts["llm.EnableSwitchRole"] = "1"
        if self._mem_utilization is not None:
            opts["llm.MemoryUtilization"] = str(self._mem_utilization)
        return opts

    gen_options = generate_options


for _name, (_types, _key) in LLMConfig._PLAIN.items():
    setattr(LLMConfig, _name,
            _plain(_name, _types, "" if _types is str else None))
for _name in LLMConfig._FLAGS:
    setattr(LLMConfig, _name, _plain(_name, bool, False))
del _name, _types, _key


# The name CANN's package had first.
LlmConfig = LLMConfig
