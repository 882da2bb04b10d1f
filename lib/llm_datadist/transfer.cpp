// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PullKvCache, PullKvBlocks, PushKvCache, PushKvBlocks: descriptors for
 * one TransferSync of the engine, READ for a pull and WRITE for a push,
 * between the tensors KvCacheExtParam selects.  The local cache is ours;
 * where the remote one is, its LlmDataDist says when asked (a query on
 * the link), so a cache it unregistered is "not there" at once, and one
 * registered after our link -- which the engine's hello did not give us
 * -- is refused by name rather than by a failed transfer.
 *
 * The checks and their statuses follow CANN's own implementation:
 * LLM_PARAM_INVALID for the arguments, LLM_KV_CACHE_NOT_EXIST for a cache
 * id on either side, LLM_NOT_YET_LINK for a cluster not linked (or whose
 * link is gone), LLM_TIMEOUT when OPTION_SYNC_CACHE_WAIT_TIME runs out.
 */
#include <cstdlib>

#include "impl.h"

namespace llm_datadist {

using detail::Err;
using detail::FromAdxl;
using detail::Geometry;
using detail::TensorPairs;

Status LlmDataDist::LlmDataDistImpl::FindLocal(int64_t cache_id, Geometry &g)
{
	std::lock_guard<std::mutex> lock(caches_mu_);
	auto it = caches_.find(cache_id);

	if (it == caches_.end()) {
		Err("no local cache %lld", static_cast<long long>(cache_id));
		return LLM_KV_CACHE_NOT_EXIST;
	}
	g = it->second.g;
	return LLM_SUCCESS;
}

Status LlmDataDist::LlmDataDistImpl::FindRemote(uint64_t cluster_id, int64_t cache_id,
						std::string &peer, Geometry &g)
{
	auto it = peers_.find(cluster_id);
	uint32_t answer = 0;
	void *ans = nullptr;
	size_t len = 0;

	if (it == peers_.end()) {
		Err("cluster %llu is not linked",
		    static_cast<unsigned long long>(cluster_id));
		return LLM_NOT_YET_LINK;
	}
	peer = it->second.name;
	std::vector<uint8_t> ask = detail::EncodeAsk(detail::Ask::kCache,
						     cache_id);
	adxl_status_t st = adxl__query(engine_, peer.c_str(), ask.data(),
				       ask.size(), &answer, &ans, &len,
				       opts_.wait_ms);

	if (st) {
		Err("cluster %llu (%s): %s",
		    static_cast<unsigned long long>(cluster_id), peer.c_str(),
		    adxl_last_error());
		return FromAdxl(st);
	}
	bool ok = answer == detail::kAnswerOk && detail::DecodeCache(ans, len, g);

	free(ans);
	if (answer == detail::kAnswerNoCache) {
		Err("cluster %llu has no cache %lld",
		    static_cast<unsigned long long>(cluster_id),
		    static_cast<long long>(cache_id));
		return LLM_KV_CACHE_NOT_EXIST;
	}
	if (!ok) {
		Err("cluster %llu answered for cache %lld with nothing we read",
		    static_cast<unsigned long long>(cluster_id),
		    static_cast<long long>(cache_id));
		return LLM_FAILED;
	}
	if (g.seq > it->second.reg_seq) {
		Err("cluster %llu registered cache %lld after the link: link again to reach it",
		    static_cast<unsigned long long>(cluster_id),
		    static_cast<long long>(cache_id));
		return LLM_KV_CACHE_NOT_EXIST;
	}
	return LLM_SUCCESS;
}

/*
 * Both caches of a pull or a push and the tensors paired between them:
 * from the peer's into ours (a pull) or from ours into the peer's.
 */
Status LlmDataDist::LlmDataDistImpl::Resolve(int64_t local_id, const CacheIndex &remote,
					     const KvCacheExtParam &p, bool push,
					     Geometry &gl, Geometry &gr, TensorPairs &pairs,
					     std::string &peer)
{
	Status st;

	if ((st = FindLocal(local_id, gl)) != LLM_SUCCESS ||
	    (st = FindRemote(remote.cluster_id, remote.cache_id, peer, gr)) !=
	    LLM_SUCCESS)
		return st;
	return push ? detail::SelectTensors(p, gl.num_tensors(),
					    gr.num_tensors(), true, pairs) :
		      detail::SelectTensors(p, gr.num_tensors(),
					    gl.num_tensors(), false, pairs);
}

Status LlmDataDist::LlmDataDistImpl::Move(const std::string &peer, adxl_transfer_op op,
					  const std::vector<adxl_transfer_desc> &descs)
{
	adxl_status_t st = adxl_transfer_sync(engine_, peer.c_str(), op,
					      descs.data(), descs.size(),
					      opts_.wait_ms);

	if (st)
		Err("%s %s: %s", op == ADXL_READ ? "pull from" : "push to",
		    peer.c_str(), adxl_last_error());
	return FromAdxl(st);
}

namespace {

/* One descriptor per tensor pair: @len bytes at the two offsets. */
void AddSpans(const TensorPairs &pairs, const Geometry &local,
	      uint64_t local_off, const Geometry &remote, uint64_t remote_off,
	      uint64_t len, bool local_is_src,
	      std::vector<adxl_transfer_desc> &descs)
{
	for (const auto &p : pairs) {
		uint32_t lt = local_is_src ? p.first : p.second;
		uint32_t rt = local_is_src ? p.second : p.first;

		descs.push_back(adxl_transfer_desc{
			static_cast<uintptr_t>(local.addrs[lt] + local_off),
			static_cast<uintptr_t>(remote.addrs[rt] + remote_off),
			static_cast<size_t>(len) });
	}
}

/* Block lists of equal, non-zero length, each index within its cache. */
Status CheckBlocks(const std::vector<uint64_t> &src,
		   const std::vector<uint64_t> &dst, const Geometry &gs,
		   const Geometry &gd)
{
	if (src.empty() || src.size() != dst.size()) {
		Err("%zu source and %zu destination blocks (the same number, at least one)",
		    src.size(), dst.size());
		return LLM_PARAM_INVALID;
	}
	if (gs.stride() != gd.stride()) {
		Err("blocks of %llu and %llu bytes differ",
		    static_cast<unsigned long long>(gs.stride()),
		    static_cast<unsigned long long>(gd.stride()));
		return LLM_PARAM_INVALID;
	}
	for (size_t i = 0; i < src.size(); i++) {
		if (src[i] >= gs.dim0 || dst[i] >= gd.dim0) {
			Err("block %llu -> %llu: the caches have %llu and %llu blocks",
			    static_cast<unsigned long long>(src[i]),
			    static_cast<unsigned long long>(dst[i]),
			    static_cast<unsigned long long>(gs.dim0),
			    static_cast<unsigned long long>(gd.dim0));
			return LLM_PARAM_INVALID;
		}
	}
	return LLM_SUCCESS;
}

/* Every block of every tensor pair. */
void AddBlocks(const TensorPairs &pairs, const std::vector<uint64_t> &src,
	       const std::vector<uint64_t> &dst, const Geometry &local,
	       const Geometry &remote, bool local_is_src,
	       std::vector<adxl_transfer_desc> &descs)
{
	uint64_t stride = local.stride();

	for (size_t i = 0; i < src.size(); i++) {
		uint64_t lb = local_is_src ? src[i] : dst[i];
		uint64_t rb = local_is_src ? dst[i] : src[i];

		AddSpans(pairs, local, lb * stride, remote, rb * stride,
			 stride, local_is_src, descs);
	}
}

}  // namespace

Status LlmDataDist::LlmDataDistImpl::PullCache(const CacheIndex &src, const Cache &dst,
					       uint32_t batch_index, int64_t size,
					       const KvCacheExtParam &p)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::vector<adxl_transfer_desc> descs;
	Geometry gl, gr;
	TensorPairs pairs;
	std::string peer;
	Status st;

	if (!initialized_) {
		Err("PullKvCache: not initialized");
		return LLM_FAILED;
	}
	if (size != -1 && size <= 0) {
		Err("PullKvCache: size %lld (-1 or above 0)",
		    static_cast<long long>(size));
		return LLM_PARAM_INVALID;
	}
	if ((st = Resolve(dst.cache_id, src, p, false, gl, gr, pairs, peer)) !=
	    LLM_SUCCESS)
		return st;
	/* -1: a batch of ours, as CANN sizes it. */
	uint64_t len = size < 0 ? gl.stride() : static_cast<uint64_t>(size);

	if (batch_index >= gl.dim0 || src.batch_index >= gr.dim0 ||
	    len > gl.stride() || len > gr.stride()) {
		Err("PullKvCache: batch %u of %llu -> batch %u of %llu, %llu bytes of batches of %llu and %llu",
		    src.batch_index, static_cast<unsigned long long>(gr.dim0),
		    batch_index, static_cast<unsigned long long>(gl.dim0),
		    static_cast<unsigned long long>(len),
		    static_cast<unsigned long long>(gr.stride()),
		    static_cast<unsigned long long>(gl.stride()));
		return LLM_PARAM_INVALID;
	}
	AddSpans(pairs, gl, batch_index * gl.stride(), gr,
		 src.batch_index * gr.stride(), len, false, descs);
	return Move(peer, ADXL_READ, descs);
}

Status LlmDataDist::LlmDataDistImpl::PullBlocks(const CacheIndex &src, const Cache &dst,
						const std::vector<uint64_t> &src_blocks,
						const std::vector<uint64_t> &dst_blocks,
						const KvCacheExtParam &p)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::vector<adxl_transfer_desc> descs;
	Geometry gl, gr;
	TensorPairs pairs;
	std::string peer;
	Status st;

	if (!initialized_) {
		Err("PullKvBlocks: not initialized");
		return LLM_FAILED;
	}
	if (src.batch_index != 0) {
		Err("PullKvBlocks: the source's batch_index is %u (only 0)",
		    src.batch_index);
		return LLM_PARAM_INVALID;
	}
	if ((st = Resolve(dst.cache_id, src, p, false, gl, gr, pairs, peer)) !=
	    LLM_SUCCESS ||
	    (st = CheckBlocks(src_blocks, dst_blocks, gr, gl)) != LLM_SUCCESS)
		return st;
	AddBlocks(pairs, src_blocks, dst_blocks, gl, gr, false, descs);
	return Move(peer, ADXL_READ, descs);
}

Status LlmDataDist::LlmDataDistImpl::PushCache(const Cache &src, const CacheIndex &dst,
					       uint32_t src_batch_index, int64_t size,
					       const KvCacheExtParam &p)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::vector<adxl_transfer_desc> descs;
	Geometry gl, gr;
	TensorPairs pairs;
	std::string peer;
	Status st;

	if (!initialized_) {
		Err("PushKvCache: not initialized");
		return LLM_FAILED;
	}
	/* CANN checks the Cache it is handed, not the registered one. */
	if (src.cache_desc.placement != CachePlacement::kDevice || size != -1) {
		Err("PushKvCache: only from a device cache, and only size -1");
		return LLM_PARAM_INVALID;
	}
	if ((st = Resolve(src.cache_id, dst, p, true, gl, gr, pairs, peer)) !=
	    LLM_SUCCESS)
		return st;
	uint64_t len = gl.stride();

	if (src_batch_index >= gl.dim0 || dst.batch_index >= gr.dim0 ||
	    len > gr.stride()) {
		Err("PushKvCache: batch %u of %llu -> batch %u of %llu, batches of %llu and %llu bytes",
		    src_batch_index, static_cast<unsigned long long>(gl.dim0),
		    dst.batch_index, static_cast<unsigned long long>(gr.dim0),
		    static_cast<unsigned long long>(len),
		    static_cast<unsigned long long>(gr.stride()));
		return LLM_PARAM_INVALID;
	}
	AddSpans(pairs, gl, src_batch_index * gl.stride(), gr,
		 dst.batch_index * gr.stride(), len, true, descs);
	return Move(peer, ADXL_WRITE, descs);
}

Status LlmDataDist::LlmDataDistImpl::PushBlocks(const Cache &src, const CacheIndex &dst,
						const std::vector<uint64_t> &src_blocks,
						const std::vector<uint64_t> &dst_blocks,
						const KvCacheExtParam &p)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::vector<adxl_transfer_desc> descs;
	Geometry gl, gr;
	TensorPairs pairs;
	std::string peer;
	Status st;

	if (!initialized_) {
		Err("PushKvBlocks: not initialized");
		return LLM_FAILED;
	}
	if (src.cache_desc.placement != CachePlacement::kDevice ||
	    dst.batch_index != 0) {
		Err("PushKvBlocks: only from a device cache, and the destination's batch_index only 0");
		return LLM_PARAM_INVALID;
	}
	if (src_blocks.empty() || src_blocks.size() != dst_blocks.size()) {
		Err("PushKvBlocks: %zu source and %zu destination blocks (the same number, at least one)",
		    src_blocks.size(), dst_blocks.size());
		return LLM_PARAM_INVALID;
	}
	if ((st = Resolve(src.cache_id, dst, p, true, gl, gr, pairs, peer)) !=
	    LLM_SUCCESS ||
	    (st = CheckBlocks(src_blocks, dst_blocks, gl, gr)) != LLM_SUCCESS)
		return st;
	AddBlocks(pairs, src_blocks, dst_blocks, gl, gr, true, descs);
	return Move(peer, ADXL_WRITE, descs);
}

}  // namespace llm_datadist
