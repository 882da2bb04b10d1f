// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ge::AscendString, adxl::AdxlEngine, hixl::Hixl and llm_datadist's
 * LlmDataDist declared the way CANN's headers declare them (metadef's
 * graph/ascend_string.h, hixl's adxl/adxl_engine.h, adxl_types.h,
 * hixl/hixl.h, hixl_types.h, llm_datadist/llm_datadist.h): every method
 * out of line, each class one smart pointer (AscendString a shared_ptr of
 * std::string, the others a unique_ptr to an Impl).  Written here, as a
 * CANN user compiles against them, and none of memreg's headers is
 * included: the programs of this suite prove that such a program links
 * against memreg's libraries and runs, with either libstdc++ string ABI.
 */
#ifndef ABI_CANN_DECLS_H
#define ABI_CANN_DECLS_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

/* acl/acl_rt.h */
typedef struct aclrtMemFabricHandle {
	uint8_t data[128];
} aclrtMemFabricHandle;

/* graph/types.h, graph/ascend_string.h */
namespace ge {
using char_t = char;

enum DataType {
	DT_FLOAT = 0,
	DT_FLOAT16 = 1,
	DT_INT8 = 2,
	DT_UNDEFINED = 28,
};

class AscendString {
 public:
	AscendString() = default;
	~AscendString() = default;
	AscendString(const char_t *const name);
	AscendString(const char_t *const name, size_t length);
	const char_t *GetString() const;
	size_t GetLength() const;
	size_t Find(const AscendString &ascend_string) const;
	size_t Hash() const;
	bool operator<(const AscendString &d) const;
	bool operator>(const AscendString &d) const;
	bool operator<=(const AscendString &d) const;
	bool operator>=(const AscendString &d) const;
	bool operator==(const AscendString &d) const;
	bool operator!=(const AscendString &d) const;
	bool operator==(const char_t *const d) const;
	bool operator!=(const char_t *const d) const;

 private:
	std::shared_ptr<std::string> name_;
};

/* external/ge_common/api_error_codes.h */
using Status = uint32_t;
}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
	size_t operator()(const ge::AscendString &name) const
	{
		return name.Hash();
	}
};
}  // namespace std

/* adxl/adxl_types.h, adxl/adxl_engine.h */
namespace adxl {
using Status = uint32_t;
using AscendString = ge::AscendString;
using TransferReq = void *;
using MemHandle = void *;
using ShareableHandle = aclrtMemFabricHandle;

constexpr Status SUCCESS = 0U;
constexpr Status PARAM_INVALID = 103900U;
constexpr Status NOT_CONNECTED = 103902U;
constexpr Status FAILED = 503900U;

enum FeatureType : int32_t { AUTO_CONNECT = 0, CLIENT_SERVER_COMM = 1 };
enum MemType { MEM_DEVICE, MEM_HOST };
enum TransferOp { READ, WRITE };

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

class AdxlEngine {
 public:
	AdxlEngine();
	~AdxlEngine();
	Status Initialize(const AscendString &local_engine,
			  const std::map<AscendString, AscendString> &options);
	void Finalize();
	Status RegisterMem(const MemDesc &mem, MemType type,
			   MemHandle &mem_handle);
	Status DeregisterMem(MemHandle mem_handle);
	Status Connect(const AscendString &remote_engine,
		       int32_t timeout_in_millis = 1000);
	Status Disconnect(const AscendString &remote_engine,
			  int32_t timeout_in_millis = 1000);
	Status TransferSync(const AscendString &remote_engine,
			    TransferOp operation,
			    const std::vector<TransferOpDesc> &op_descs,
			    int32_t timeout_in_millis = 1000);
	Status TransferAsync(const AscendString &remote_engine,
			     TransferOp operation,
			     const std::vector<TransferOpDesc> &op_descs,
			     const TransferArgs &optional_args, TransferReq &req);
	Status GetTransferStatus(const TransferReq &req, TransferStatus &status);
	Status SendNotify(const AscendString &remote_engine,
			  const NotifyDesc &notify,
			  int32_t timeout_in_millis = 1000);
	Status GetNotifies(std::vector<NotifyDesc> &notifies);
	static Status MallocMem(MemType type, size_t size, void **ptr);
	static Status ExportToShareableHandle(void *addr,
					      ShareableHandle &handle);
	static Status FreeMem(void *ptr);
	static Status GetCapability(FeatureType feature_type, int32_t &value);

 private:
	class AdxlEngineImpl;
	std::unique_ptr<AdxlEngineImpl> impl_;
};
}  // namespace adxl

/* hixl/hixl_types.h, hixl/hixl.h */
namespace hixl {
using Status = uint32_t;
using AscendString = ge::AscendString;
using TransferReq = void *;
using MemHandle = void *;

constexpr Status SUCCESS = 0U;
constexpr Status PARAM_INVALID = 103900U;
constexpr Status FAILED = 503900U;

enum FeatureType : int32_t { AUTO_CONNECT = 0, CLIENT_SERVER_COMM = 1 };
enum MemType { MEM_DEVICE, MEM_HOST };
enum TransferOp { READ, WRITE };

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
	NOT_CONNECT,
	CONNECT_PENDING,
	CONNECTING,
	CONNECTED,
	CONNECT_FAILED,
	DISCONNECT_PENDING,
	DISCONNECTING
};

class Hixl {
 public:
	Hixl();
	~Hixl();
	Status Initialize(const AscendString &local_engine,
			  const std::map<AscendString, AscendString> &options);
	void Finalize();
	Status RegisterMem(const MemDesc &mem, MemType type,
			   MemHandle &mem_handle);
	Status DeregisterMem(MemHandle mem_handle);
	Status Connect(const AscendString &remote_engine,
		       int32_t timeout_in_millis = 1000);
	Status Disconnect(const AscendString &remote_engine,
			  int32_t timeout_in_millis = 1000);
	Status ConnectAsync(const AscendString &remote_engine,
			    int32_t timeout_in_millis = 1000);
	Status DisconnectAsync(const AscendString &remote_engine,
			       int32_t timeout_in_millis = 1000);
	Status GetAsyncConnectStatus(const AscendString &remote_engine,
				     AsyncConnectStatus &status);
	Status GetAsyncConnectStatus(
		std::map<AscendString, AsyncConnectStatus> &statuses);
	Status TransferSync(const AscendString &remote_engine,
			    TransferOp operation,
			    const std::vector<TransferOpDesc> &op_descs,
			    int32_t timeout_in_millis = 1000);
	Status TransferAsync(const AscendString &remote_engine,
			     TransferOp operation,
			     const std::vector<TransferOpDesc> &op_descs,
			     const TransferArgs &optional_args, TransferReq &req);
	Status GetTransferStatus(const TransferReq &req, TransferStatus &status);
	Status GetTransferStatus(const GetTransferStatusArgs &args,
				 std::vector<TransferResult> &results);
	Status SendNotify(const AscendString &remote_engine,
			  const NotifyDesc &notify,
			  int32_t timeout_in_millis = 1000);
	Status GetNotifies(std::vector<NotifyDesc> &notifies);
	static Status GetCapability(FeatureType feature_type, int32_t &value);

 private:
	class HixlImpl;
	std::unique_ptr<HixlImpl> impl_;
};
}  // namespace hixl

/* llm_datadist/llm_datadist.h */
namespace llm_datadist {
using Status = ge::Status;
using AscendString = ge::AscendString;
using DataType = ge::DataType;

constexpr Status LLM_SUCCESS = 0x0U;
constexpr Status LLM_PARAM_INVALID = 0x5010B005U;

struct IpInfo {
	AscendString ip;
	uint16_t port = 0U;
	uint8_t reserved[128];
};

struct ClusterInfo {
	uint64_t remote_cluster_id = 0U;
	int32_t remote_role_type = 0;
	std::vector<IpInfo> local_ip_infos;
	std::vector<IpInfo> remote_ip_infos;
	uint8_t reserved[128];
};

enum class LlmRole : int32_t { kPrompt = 1, kDecoder = 2, kMix = 3, kEnd };

struct CacheIndex {
	uint64_t cluster_id;
	int64_t cache_id;
	uint32_t batch_index;
	uint8_t reserved[128];
};

enum class CachePlacement : uint32_t { kHost = 0U, kDevice = 1U };

struct CacheDesc {
	CachePlacement placement = CachePlacement::kDevice;
	uint32_t num_tensors = 0U;
	DataType data_type = ge::DT_UNDEFINED;
	std::vector<int64_t> shape;
	uint8_t reserved[128];
};

struct Cache {
	int64_t cache_id = -1;
	std::vector<uintptr_t> tensor_addrs;
	CacheDesc cache_desc;
	uint8_t reserved[128];
};

struct KvCacheExtParam {
	std::pair<int32_t, int32_t> src_layer_range = {-1, -1};
	std::pair<int32_t, int32_t> dst_layer_range{-1, -1};
	uint8_t tensor_num_per_layer = 2U;
	uint8_t reserved[127];
};

struct RegisterCfg {
	uint8_t reserved[128] = {0};
};

class LlmDataDist {
 public:
	LlmDataDist(uint64_t cluster_id, LlmRole role);
	~LlmDataDist();
	Status Initialize(const std::map<AscendString, AscendString> &options);
	void Finalize();
	Status SetRole(LlmRole role,
		       const std::map<AscendString, AscendString> &options = {});
	Status LinkLlmClusters(const std::vector<ClusterInfo> &clusters,
			       std::vector<Status> &rets,
			       int32_t timeout_in_millis = 1000);
	Status UnlinkLlmClusters(const std::vector<ClusterInfo> &clusters,
				 std::vector<Status> &rets,
				 int32_t timeout_in_millis = 1000,
				 bool force_flag = false);
	Status AllocateCache(const CacheDesc &cache_desc, Cache &cache);
	Status DeallocateCache(int64_t cache_id);
	Status PullKvCache(const CacheIndex &src_cache_index,
			   const Cache &dst_cache, uint32_t batch_index = 0U,
			   int64_t size = -1,
			   const KvCacheExtParam &ext_param = {});
	Status PullKvBlocks(const CacheIndex &src_cache_index,
			    const Cache &dst_cache,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<uint64_t> &dst_blocks,
			    const KvCacheExtParam &ext_param = {});
	Status CopyKvCache(const Cache &src_cache, const Cache &dst_cache,
			   uint32_t src_batch_index = 0U,
			   uint32_t dst_batch_index = 0U, uint64_t offset = 0U,
			   int64_t size = -1);
	Status CopyKvBlocks(const Cache &src_cache, const Cache &dst_cache,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<std::vector<uint64_t>> &dst_blocks_list);
	Status PushKvCache(const Cache &src_cache,
			   const CacheIndex &dst_cache_index,
			   uint32_t src_batch_index = 0U, int64_t size = -1,
			   const KvCacheExtParam &ext_param = {});
	Status PushKvBlocks(const Cache &src_cache,
			    const CacheIndex &dst_cache_index,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<uint64_t> &dst_blocks,
			    const KvCacheExtParam &ext_param = {});
	Status RegisterKvCache(const CacheDesc &cache_desc,
			       const std::vector<uint64_t> &addrs,
			       const RegisterCfg &cfg, int64_t &cache_id);
	Status UnregisterKvCache(int64_t cache_id);

 private:
	class LlmDataDistImpl;
	std::unique_ptr<LlmDataDistImpl> impl_;
};
}  // namespace llm_datadist

#endif /* ABI_CANN_DECLS_H */
