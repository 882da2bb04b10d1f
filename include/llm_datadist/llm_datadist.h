/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * llm_datadist::LlmDataDist, source-compatible with CANN's
 * llm_datadist/llm_datadist.h: KV caches in registered memory, moved
 * between LlmDataDist instances of linked clusters.  libllm_datadist.so
 * carries it (-lllm_datadist in the CANN tree, pkg-config
 * memreg-llm-datadist) on the ADXL engine of <adxl/adxl.h>, the one
 * adxl::AdxlEngine and hixl::Hixl use; docs/adxl.md ("LLM-DataDist") says
 * what is done and what is refused.
 *
 * The class is CANN's: one std::unique_ptr to its state, every method
 * out of line in libllm_datadist.so, and no argument a std::string, so a
 * program of either libstdc++ string ABI (hixl's examples build with
 * _GLIBCXX_USE_CXX11_ABI=0) uses the same symbols.
 */
#ifndef MEMREG_LLM_DATADIST_LLM_DATADIST_H
#define MEMREG_LLM_DATADIST_LLM_DATADIST_H

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>
#include <ge_common/api_error_codes.h>

/* As <adxl/adxl_types.h>: default visibility in a FUNC_VISIBILITY build. */
#ifndef ASCEND_FUNC_VISIBILITY
#ifdef FUNC_VISIBILITY
#define ASCEND_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ASCEND_FUNC_VISIBILITY
#endif
#endif

namespace llm_datadist {
/* KvCacheExtParam's default: a layer is a K and a V tensor. */
constexpr uint8_t kDefaultTensorNumPerLayer = 2U;

using Status = ge::Status;
using AscendString = ge::AscendString;
using DataType = ge::DataType;

/* Initialize and SetRole options. */
constexpr const char OPTION_LISTEN_IP_INFO[] = "llm.ListenIpInfo";
constexpr const char OPTION_DEVICE_ID[] = "llm.DeviceId";
constexpr const char OPTION_SYNC_CACHE_WAIT_TIME[] = "llm.SyncKvCacheWaitTime";
constexpr const char OPTION_BUF_POOL_CFG[] = "llm.BufPoolCfg";
constexpr const char OPTION_ENABLE_SET_ROLE[] = "llm.EnableSwitchRole";
constexpr const char OPTION_LOCAL_COMM_RES[] = "llm.LocalCommRes";
constexpr const char OPTION_TRANSFER_BACKEND[] = "llm.TransferBackend";
constexpr const char OPTION_GLOBAL_RESOURCE_CONFIG[] = "llm.GlobalResourceConfig";

/* What the methods return: ge's LLM error numbers (llm_error_codes.h). */
constexpr Status LLM_SUCCESS = 0x0U;
constexpr Status LLM_FAILED = 0xFFFFFFFFU;
constexpr Status LLM_WAIT_PROC_TIMEOUT = 0x5010B001U;
constexpr Status LLM_KV_CACHE_NOT_EXIST = 0x5010B002U;
constexpr Status LLM_PARAM_INVALID = 0x5010B005U;
constexpr Status LLM_NOT_YET_LINK = 0x5010B007U;
constexpr Status LLM_ALREADY_LINK = 0x5010B008U;
constexpr Status LLM_LINK_FAILED = 0x5010B009U;
constexpr Status LLM_UNLINK_FAILED = 0x5010B00AU;
constexpr Status LLM_NOTIFY_PROMPT_UNLINK_FAILED = 0x5010B00BU;
constexpr Status LLM_CLUSTER_NUM_EXCEED_LIMIT = 0x5010B00CU;
constexpr Status LLM_PROCESSING_LINK = 0x5010B00DU;
constexpr Status LLM_DEVICE_OUT_OF_MEMORY = 0x5010B00EU;
constexpr Status LLM_EXIST_LINK = 0x5010B018U;
constexpr Status LLM_FEATURE_NOT_ENABLED = 0x5010B019U;
constexpr Status LLM_TIMEOUT = 0x5010B01AU;
constexpr Status LLM_LINK_BUSY = 0x5010B01BU;
constexpr Status LLM_OUT_OF_MEMORY = 0x5010B01CU;

/* The element types, by the names CANN's header brings in from ge. */
using ge::DT_BF16;
using ge::DT_BOOL;
using ge::DT_COMPLEX128;
using ge::DT_COMPLEX32;
using ge::DT_COMPLEX64;
using ge::DT_DOUBLE;
using ge::DT_DUAL;
using ge::DT_DUAL_SUB_INT8;
using ge::DT_DUAL_SUB_UINT8;
using ge::DT_FLOAT;
using ge::DT_FLOAT16;
using ge::DT_FLOAT4_E1M2;
using ge::DT_FLOAT4_E2M1;
using ge::DT_FLOAT6_E2M3;
using ge::DT_FLOAT6_E3M2;
using ge::DT_FLOAT8_E4M3FN;
using ge::DT_FLOAT8_E5M2;
using ge::DT_FLOAT8_E8M0;
using ge::DT_HIFLOAT8;
using ge::DT_INT16;
using ge::DT_INT2;
using ge::DT_INT32;
using ge::DT_INT4;
using ge::DT_INT64;
using ge::DT_INT8;
using ge::DT_QINT16;
using ge::DT_QINT32;
using ge::DT_QINT8;
using ge::DT_QUINT16;
using ge::DT_QUINT8;
using ge::DT_RESOURCE;
using ge::DT_STRING;
using ge::DT_STRING_REF;
using ge::DT_UINT1;
using ge::DT_UINT16;
using ge::DT_UINT2;
using ge::DT_UINT32;
using ge::DT_UINT64;
using ge::DT_UINT8;
using ge::DT_UNDEFINED;
using ge::DT_VARIANT;

/* A host address and port ("ip" is a literal IPv4 or IPv6 address). */
struct IpInfo {
	AscendString ip;
	uint16_t port = 0U;
	uint8_t reserved[128];
};

/* A cluster to link or unlink: one remote (and at most one local) IpInfo. */
struct ClusterInfo {
	uint64_t remote_cluster_id = 0U;
	int32_t remote_role_type = 0;
	std::vector<IpInfo> local_ip_infos;
	std::vector<IpInfo> remote_ip_infos;
	uint8_t reserved[128];
};

/* Only a label: the role changes nothing about transfers. */
enum class LlmRole : int32_t { kPrompt = 1, kDecoder = 2, kMix = 3, kEnd };

/* A cache of a linked cluster: cluster_id is its remote_cluster_id. */
struct CacheIndex {
	uint64_t cluster_id;
	int64_t cache_id;
	uint32_t batch_index;
	uint8_t reserved[128];
};

enum class CachePlacement : uint32_t {
	kHost = 0U,
	kDevice = 1U,
};

/*
 * num_tensors tensors of one shape and type; shape[0] counts the batches
 * (or blocks) of each tensor.
 */
struct CacheDesc {
	CachePlacement placement = CachePlacement::kDevice;
	uint32_t num_tensors = 0U;
	DataType data_type = DT_UNDEFINED;
	std::vector<int64_t> shape;
	uint8_t reserved[128];
};

/* The transfer calls read only cache_id (and PushKv* the placement). */
struct Cache {
	int64_t cache_id = -1;
	std::vector<uintptr_t> tensor_addrs;
	CacheDesc cache_desc;
	uint8_t reserved[128];
};

/*
 * Which layers to move; a layer is tensor_num_per_layer consecutive
 * tensors.  {-1, -1} is every layer.
 */
struct KvCacheExtParam {
	std::pair<int32_t, int32_t> src_layer_range = {-1, -1};
	std::pair<int32_t, int32_t> dst_layer_range{-1, -1};
	uint8_t tensor_num_per_layer = kDefaultTensorNumPerLayer;
	uint8_t reserved[127];
};

struct RegisterCfg {
	uint8_t reserved[128] = {0};
};

/*
 * One endpoint of KV cache transfers.  Initialize, then RegisterKvCache
 * every cache a peer may reach, then LinkLlmClusters (peers see only
 * what was registered before the link), then pull or push by CacheIndex.
 */
class ASCEND_FUNC_VISIBILITY LlmDataDist {
 public:
	LlmDataDist(uint64_t cluster_id, LlmRole role);
	~LlmDataDist();

	/* OPTION_DEVICE_ID is required; OPTION_LISTEN_IP_INFO makes a server. */
	Status Initialize(const std::map<AscendString, AscendString> &options);
	void Finalize();

	/* With no link left; OPTION_LISTEN_IP_INFO: listen, none: client. */
	Status SetRole(LlmRole role,
		       const std::map<AscendString, AscendString> &options = {});

	Status LinkLlmClusters(const std::vector<ClusterInfo> &clusters,
			       std::vector<Status> &rets,
			       int32_t timeout_in_millis = 1000);
	Status UnlinkLlmClusters(const std::vector<ClusterInfo> &clusters,
				 std::vector<Status> &rets,
				 int32_t timeout_in_millis = 1000,
				 bool force_flag = false);

	/* Not with this transfer backend: LLM_FEATURE_NOT_ENABLED. */
	Status AllocateCache(const CacheDesc &cache_desc, Cache &cache);
	Status DeallocateCache(int64_t cache_id);

	/* size -1: a whole batch. */
	Status PullKvCache(const CacheIndex &src_cache_index,
			   const Cache &dst_cache, uint32_t batch_index = 0U,
			   int64_t size = -1,
			   const KvCacheExtParam &ext_param = {});
	Status PullKvBlocks(const CacheIndex &src_cache_index,
			    const Cache &dst_cache,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<uint64_t> &dst_blocks,
			    const KvCacheExtParam &ext_param = {});

	/* Not with this transfer backend: LLM_FEATURE_NOT_ENABLED. */
	Status CopyKvCache(const Cache &src_cache, const Cache &dst_cache,
			   uint32_t src_batch_index = 0U,
			   uint32_t dst_batch_index = 0U, uint64_t offset = 0U,
			   int64_t size = -1);
	Status CopyKvBlocks(const Cache &src_cache, const Cache &dst_cache,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<std::vector<uint64_t>> &dst_blocks_list);

	/* size: only -1. */
	Status PushKvCache(const Cache &src_cache,
			   const CacheIndex &dst_cache_index,
			   uint32_t src_batch_index = 0U, int64_t size = -1,
			   const KvCacheExtParam &ext_param = {});
	Status PushKvBlocks(const Cache &src_cache,
			    const CacheIndex &dst_cache_index,
			    const std::vector<uint64_t> &src_blocks,
			    const std::vector<uint64_t> &dst_blocks,
			    const KvCacheExtParam &ext_param = {});

	/* cache_id: 1, 2, ... in the order of registration. */
	Status RegisterKvCache(const CacheDesc &cache_desc,
			       const std::vector<uint64_t> &addrs,
			       const RegisterCfg &cfg, int64_t &cache_id);
	/* An unknown id is LLM_SUCCESS. */
	Status UnregisterKvCache(int64_t cache_id);

 private:
	class LlmDataDistImpl;
	std::unique_ptr<LlmDataDistImpl> impl_;
};
}  // namespace llm_datadist

#endif /* MEMREG_LLM_DATADIST_LLM_DATADIST_H */
