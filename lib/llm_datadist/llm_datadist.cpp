// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The public class: each method hands its call to the LlmDataDistImpl
 * (impl.h), so the class itself is one pointer, as CANN's is.  The four
 * calls CANN's own hixl backend does not offer
 * (docs/zh/api/cpp/unsupported-interface.md of hicann/hixl) answer
 * LLM_FEATURE_NOT_ENABLED, as they do there.
 */
#include <new>

#include "impl.h"

namespace llm_datadist {

namespace {
/*
 * The clusters as the links need them; pointers into @clusters, which
 * the caller holds for the call.
 */
std::vector<detail::Remote> Remotes(const std::vector<ClusterInfo> &clusters)
{
	std::vector<detail::Remote> v;

	v.reserve(clusters.size());
	for (const auto &c : clusters) {
		detail::Remote r = {
			c.remote_cluster_id, nullptr, 0U,
			static_cast<uint32_t>(c.remote_ip_infos.size()),
			static_cast<uint32_t>(c.local_ip_infos.size())
		};

		if (!c.remote_ip_infos.empty()) {
			r.ip = c.remote_ip_infos[0].ip.GetString();
			r.port = c.remote_ip_infos[0].port;
		}
		v.push_back(r);
	}
	return v;
}
}  // namespace

LlmDataDist::LlmDataDist(uint64_t cluster_id, LlmRole role)
	: impl_(new (std::nothrow) LlmDataDistImpl(cluster_id, role))
{
}

LlmDataDist::~LlmDataDist() = default;

/* Out of memory in the constructor shows here, as LLM_FAILED. */
#define IMPL_OR_FAIL()                       \
	do {                                 \
		if (!impl_)                  \
			return LLM_FAILED;   \
	} while (0)

Status LlmDataDist::Initialize(const std::map<AscendString, AscendString> &options)
{
	IMPL_OR_FAIL();
	return impl_->Initialize(LlmDataDistImpl::ToMap(options));
}

void LlmDataDist::Finalize()
{
	if (impl_)
		impl_->Finalize();
}

Status LlmDataDist::SetRole(LlmRole role,
			    const std::map<AscendString, AscendString> &options)
{
	IMPL_OR_FAIL();
	return impl_->SetRole(role, LlmDataDistImpl::ToMap(options));
}

/* @rets gets one status per cluster, LLM_SUCCESS until a link says otherwise. */
Status LlmDataDist::LinkLlmClusters(const std::vector<ClusterInfo> &clusters,
				    std::vector<Status> &rets,
				    int32_t timeout_in_millis)
{
	std::vector<detail::Remote> v = Remotes(clusters);

	rets.assign(v.size(), LLM_SUCCESS);
	IMPL_OR_FAIL();
	return impl_->Link(v.data(), v.size(), rets.data(), timeout_in_millis);
}

Status LlmDataDist::UnlinkLlmClusters(const std::vector<ClusterInfo> &clusters,
				      std::vector<Status> &rets,
				      int32_t timeout_in_millis, bool force_flag)
{
	std::vector<detail::Remote> v = Remotes(clusters);

	rets.assign(v.size(), LLM_SUCCESS);
	IMPL_OR_FAIL();
	return impl_->Unlink(v.data(), v.size(), rets.data(), timeout_in_millis,
			     force_flag);
}

Status LlmDataDist::AllocateCache(const CacheDesc &, Cache &)
{
	detail::Err("AllocateCache: not with the hixl transfer backend (allocate with aclrtMalloc and RegisterKvCache)");
	return LLM_FEATURE_NOT_ENABLED;
}

Status LlmDataDist::DeallocateCache(int64_t)
{
	detail::Err("DeallocateCache: not with the hixl transfer backend");
	return LLM_FEATURE_NOT_ENABLED;
}

Status LlmDataDist::PullKvCache(const CacheIndex &src_cache_index,
				const Cache &dst_cache, uint32_t batch_index,
				int64_t size, const KvCacheExtParam &ext_param)
{
	IMPL_OR_FAIL();
	return impl_->PullCache(src_cache_index, dst_cache, batch_index, size,
				ext_param);
}

Status LlmDataDist::PullKvBlocks(const CacheIndex &src_cache_index,
				 const Cache &dst_cache,
				 const std::vector<uint64_t> &src_blocks,
				 const std::vector<uint64_t> &dst_blocks,
				 const KvCacheExtParam &ext_param)
{
	IMPL_OR_FAIL();
	return impl_->PullBlocks(src_cache_index, dst_cache, src_blocks,
				 dst_blocks, ext_param);
}

Status LlmDataDist::CopyKvCache(const Cache &, const Cache &, uint32_t,
				uint32_t, uint64_t, int64_t)
{
	detail::Err("CopyKvCache: not with the hixl transfer backend");
	return LLM_FEATURE_NOT_ENABLED;
}

Status LlmDataDist::CopyKvBlocks(const Cache &, const Cache &,
				 const std::vector<uint64_t> &,
				 const std::vector<std::vector<uint64_t>> &)
{
	detail::Err("CopyKvBlocks: not with the hixl transfer backend");
	return LLM_FEATURE_NOT_ENABLED;
}

Status LlmDataDist::PushKvCache(const Cache &src_cache,
				const CacheIndex &dst_cache_index,
				uint32_t src_batch_index, int64_t size,
				const KvCacheExtParam &ext_param)
{
	IMPL_OR_FAIL();
	return impl_->PushCache(src_cache, dst_cache_index, src_batch_index,
				size, ext_param);
}

Status LlmDataDist::PushKvBlocks(const Cache &src_cache,
				 const CacheIndex &dst_cache_index,
				 const std::vector<uint64_t> &src_blocks,
				 const std::vector<uint64_t> &dst_blocks,
				 const KvCacheExtParam &ext_param)
{
	IMPL_OR_FAIL();
	return impl_->PushBlocks(src_cache, dst_cache_index, src_blocks,
				 dst_blocks, ext_param);
}

Status LlmDataDist::RegisterKvCache(const CacheDesc &cache_desc,
				    const std::vector<uint64_t> &addrs,
				    const RegisterCfg &, int64_t &cache_id)
{
	IMPL_OR_FAIL();
	return impl_->Register(cache_desc, addrs, cache_id);
}

Status LlmDataDist::UnregisterKvCache(int64_t cache_id)
{
	IMPL_OR_FAIL();
	return impl_->Unregister(cache_id);
}

}  // namespace llm_datadist
