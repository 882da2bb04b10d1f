/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hixl::Status values, descriptors and option keys, source-compatible with
 * CANN's include/hixl/hixl_types.h.  hixl::Hixl is the successor of
 * adxl::AdxlEngine and here the same engine: the values are those of
 * <adxl/adxl.h>, which the class in <hixl/hixl.h> calls.
 */
#ifndef MEMREG_HIXL_HIXL_TYPES_H
#define MEMREG_HIXL_HIXL_TYPES_H

#include <cstddef>
#include <cstdint>
/*
 * What CANN's header chain brings in, for programs that rely on it:
 * hixl_types.h -> ge_common/api_error_codes.h (<map>, <string>) ->
 * graph/ascend_string.h (<string>, <memory>, <functional>) ->
 * graph/types.h (<atomic>, <memory>, <vector>).  hixl's own examples
 * use std::cerr and std::endl without including <iostream>: on a CANN
 * toolkit it comes through that chain (metadef's config_options.h, not
 * in the public snapshots read), so it is included here too.
 */
#include <iostream>
#include <map>
#include <string>
#include <graph/ascend_string.h>
#include <adxl/adxl.h>

/*
 * As CANN's headers have it: the classes are exported from a library
 * built with FUNC_VISIBILITY (memreg's are) and plain to its users.
 */
#ifndef ASCEND_FUNC_VISIBILITY
#ifdef FUNC_VISIBILITY
#define ASCEND_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ASCEND_FUNC_VISIBILITY
#endif
#endif

namespace hixl {
using Status = uint32_t;
using AscendString = ge::AscendString;
using TransferReq = void *;
using MemHandle = void *;

/* The adxl keys without "adxl."; the engine takes either spelling. */
constexpr const char OPTION_ENABLE_USE_FABRIC_MEM[] = "EnableUseFabricMem";
constexpr const char OPTION_RDMA_TRAFFIC_CLASS[] = "RdmaTrafficClass";
constexpr const char OPTION_RDMA_SERVICE_LEVEL[] = "RdmaServiceLevel";
constexpr const char OPTION_BUFFER_POOL[] = "BufferPool";
constexpr const char OPTION_GLOBAL_RESOURCE_CONFIG[] = "GlobalResourceConfig";
constexpr const char OPTION_AUTO_CONNECT[] = "AutoConnect";
constexpr const char OPTION_LOCAL_COMM_RES[] = "LocalCommRes";

constexpr Status SUCCESS = ADXL_SUCCESS;
constexpr Status PARAM_INVALID = ADXL_PARAM_INVALID;
constexpr Status TIMEOUT = ADXL_TIMEOUT;
constexpr Status NOT_CONNECTED = ADXL_NOT_CONNECTED;
constexpr Status ALREADY_CONNECTED = ADXL_ALREADY_CONNECTED;
constexpr Status NOTIFY_FAILED = ADXL_NOTIFY_FAILED;
constexpr Status UNSUPPORTED = ADXL_UNSUPPORTED;
constexpr Status FAILED = ADXL_FAILED;
constexpr Status RESOURCE_EXHAUSTED = ADXL_RESOURCE_EXHAUSTED;

enum FeatureType : int32_t {
	AUTO_CONNECT = ADXL_FEATURE_AUTO_CONNECT,
	CLIENT_SERVER_COMM = ADXL_FEATURE_CLIENT_SERVER_COMM,
};
constexpr int32_t FEATURE_SUPPORTED = ADXL_FEATURE_SUPPORTED;
constexpr int32_t FEATURE_NOT_SUPPORTED = ADXL_FEATURE_NOT_SUPPORTED;

enum MemType { MEM_DEVICE = ADXL_MEM_DEVICE, MEM_HOST = ADXL_MEM_HOST };
enum TransferOp { READ = ADXL_READ, WRITE = ADXL_WRITE };

struct MemDesc {
	uintptr_t addr;
	size_t len;
	uint8_t reserved[128] = {};
};

struct TransferOpDesc {
	uintptr_t local_addr;
	uintptr_t remote_addr;
	size_t len;
};

enum class TransferStatus { WAITING, COMPLETED, TIMEOUT, FAILED };

/* 128 bytes, as adxl::TransferArgs, with the caller's pointer first. */
struct TransferArgs {
	const void *user_data = nullptr;
	uint8_t reserved[120] = {};
};

struct GetTransferStatusArgs {
	uint32_t max_query_count = UINT32_MAX;
	bool skip_waiting = false;
	uint8_t reserved[123] = {};
};

struct TransferResult {
	TransferReq req = nullptr;
	const void *user_data = nullptr;
	TransferStatus status = TransferStatus::WAITING;
	uint8_t reserved[108] = {};
};

struct NotifyDesc {
	AscendString name;
	AscendString notify_msg;
};

enum class AsyncConnectStatus {
	NOT_CONNECT = ADXL_CONN_NOT_CONNECT,
	CONNECT_PENDING = ADXL_CONN_CONNECT_PENDING,
	CONNECTING = ADXL_CONN_CONNECTING,
	CONNECTED = ADXL_CONN_CONNECTED,
	CONNECT_FAILED = ADXL_CONN_CONNECT_FAILED,
	DISCONNECT_PENDING = ADXL_CONN_DISCONNECT_PENDING,
	DISCONNECTING = ADXL_CONN_DISCONNECTING
};
}  // namespace hixl

#endif /* MEMREG_HIXL_HIXL_TYPES_H */
