/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adxl::Status values, descriptors and option keys, source-compatible with
 * CANN's include/adxl/adxl_types.h.  Values are those of <adxl/adxl.h>,
 * which the class in <adxl/adxl_engine.h> calls.
 */
#ifndef MEMREG_ADXL_ADXL_TYPES_H
#define MEMREG_ADXL_ADXL_TYPES_H

#include <cstddef>
#include <cstdint>
#include <graph/ascend_string.h>
#include <acl/acl_rt.h>
#include <adxl/adxl.h>

/*
 * CANN's acl_rt.h has aclrtMemFabricHandle, and so has ours, under this
 * guard; kept here too so that this header still compiles against an
 * acl_rt.h of before it, and defines it once either way.
 */
#ifndef MEMREG_ACL_MEM_FABRIC_HANDLE
#define MEMREG_ACL_MEM_FABRIC_HANDLE
typedef struct {
	uint8_t data[128];
} aclrtMemFabricHandle;
#endif

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

namespace adxl {
using Status = uint32_t;
using AscendString = ge::AscendString;
using TransferReq = void *;
using MemHandle = void *;
using ShareableHandle = aclrtMemFabricHandle;

constexpr const char OPTION_RDMA_TRAFFIC_CLASS[] = "adxl.RdmaTrafficClass";
constexpr const char OPTION_RDMA_SERVICE_LEVEL[] = "adxl.RdmaServiceLevel";
constexpr const char OPTION_BUFFER_POOL[] = "adxl.BufferPool";
constexpr const char OPTION_LOCAL_COMM_RES[] = "adxl.LocalCommRes";
constexpr const char OPTION_AUTO_CONNECT[] = "AutoConnect";

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

struct TransferArgs {
	uint8_t reserved[128] = {};
};

struct NotifyDesc {
	AscendString name;
	AscendString notify_msg;
};
}  // namespace adxl

#endif /* MEMREG_ADXL_ADXL_TYPES_H */
