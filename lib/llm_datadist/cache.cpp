// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * RegisterKvCache and UnregisterKvCache: the application's tensors become
 * registrations of the engine (device memory from aclrtMalloc, or host
 * memory), so a linked peer can read and write them, and the cache gets
 * the next id of this LlmDataDist -- 1 first, as the examples expect of
 * a peer's first cache.  The memory stays the application's: nothing is
 * allocated or copied here.
 */
#include "impl.h"

namespace llm_datadist {

using detail::Err;
using detail::FromAdxl;
using detail::Geometry;

namespace {
/* CANN's limit on a cache's addresses. */
constexpr size_t kMaxAddrs = 240;
}  // namespace

Status LlmDataDist::LlmDataDistImpl::RegisterTensors(adxl_engine_t *engine,
						     const Geometry &g,
						     std::vector<adxl_mem_handle_t> &handles)
{
	adxl_mem_type type = g.placement == CachePlacement::kHost ?
		ADXL_MEM_HOST : ADXL_MEM_DEVICE;

	handles.clear();
	for (uint64_t addr : g.addrs) {
		adxl_mem_desc d = { static_cast<uintptr_t>(addr),
				    static_cast<size_t>(g.tensor_bytes) };
		adxl_mem_handle_t h = nullptr;
		adxl_status_t st = adxl_register_mem(engine, &d, type, &h);

		if (st) {
			Err("RegisterKvCache: tensor at 0x%llx (%llu bytes): %s",
			    static_cast<unsigned long long>(addr),
			    static_cast<unsigned long long>(g.tensor_bytes),
			    adxl_last_error());
			DeregisterTensors(engine, handles);
			return FromAdxl(st);
		}
		handles.push_back(h);
	}
	return LLM_SUCCESS;
}

void LlmDataDist::LlmDataDistImpl::DeregisterTensors(adxl_engine_t *engine,
						     std::vector<adxl_mem_handle_t> &handles)
{
	/* Identical ranges were counted by the engine: one call each. */
	for (adxl_mem_handle_t h : handles)
		adxl_deregister_mem(engine, h);
	handles.clear();
}

Status LlmDataDist::LlmDataDistImpl::Register(const CacheDesc &desc,
					      const std::vector<uint64_t> &addrs,
					      int64_t &cache_id)
{
	std::lock_guard<std::mutex> api(api_mu_);
	LocalCache c;
	Status st;

	if (!initialized_) {
		Err("RegisterKvCache: not initialized");
		return LLM_FAILED;
	}
	if (addrs.empty() || addrs.size() != desc.num_tensors ||
	    addrs.size() > kMaxAddrs) {
		Err("RegisterKvCache: %zu addresses for %u tensors (1 to %zu, one per tensor)",
		    addrs.size(), desc.num_tensors, kMaxAddrs);
		return LLM_PARAM_INVALID;
	}
	for (uint64_t a : addrs) {
		if (!a) {
			Err("RegisterKvCache: a tensor address is 0");
			return LLM_PARAM_INVALID;
		}
	}
	if (desc.placement != CachePlacement::kHost &&
	    desc.placement != CachePlacement::kDevice) {
		Err("RegisterKvCache: placement %u is neither host nor device",
		    static_cast<unsigned int>(desc.placement));
		return LLM_PARAM_INVALID;
	}
	st = detail::TensorBytes(desc, c.g.tensor_bytes);
	if (st != LLM_SUCCESS)
		return st;
	c.g.placement = desc.placement;
	c.g.dim0 = static_cast<uint64_t>(desc.shape[0]);
	c.g.addrs = addrs;
	st = RegisterTensors(engine_, c.g, c.handles);
	if (st != LLM_SUCCESS)
		return st;

	std::lock_guard<std::mutex> lock(caches_mu_);
	c.g.seq = ++reg_seq_;
	cache_id = next_cache_id_++;
	caches_[cache_id] = std::move(c);
	return LLM_SUCCESS;
}

Status LlmDataDist::LlmDataDistImpl::Unregister(int64_t cache_id)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::vector<adxl_mem_handle_t> handles;

	if (!initialized_) {
		Err("UnregisterKvCache: not initialized");
		return LLM_FAILED;
	}
	{
		std::lock_guard<std::mutex> lock(caches_mu_);
		auto it = caches_.find(cache_id);

		/* CANN: an id that is not (or no longer) there is success. */
		if (it == caches_.end())
			return LLM_SUCCESS;
		handles = std::move(it->second.handles);
		caches_.erase(it);
	}
	/*
	 * The engine revokes each grant: a peer's transfer in flight ends,
	 * a later one fails, and a peer asking for the id hears "no such
	 * cache" from now on.
	 */
	DeregisterTensors(engine_, handles);
	return LLM_SUCCESS;
}

}  // namespace llm_datadist
