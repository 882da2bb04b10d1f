// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LinkLlmClusters and UnlinkLlmClusters.  A link is the engine's Connect
 * to the remote's listen address, then a question to the LlmDataDist
 * there (who are you, how many caches have you registered): a peer that
 * is not an LlmDataDist cannot answer for its caches, so the link fails
 * at once rather than at the first pull.  The engine's hello gives us
 * the peer's registrations as they are now, which is why CANN asks for
 * every cache to be registered before the link.
 */
#include <cstdlib>

#include "impl.h"

namespace llm_datadist {

using detail::Err;

namespace {
/* One link: its status; the overall call fails with the first failure. */
void Note(Status &ret, Status st, Status &first)
{
	ret = st;
	if (st != LLM_SUCCESS && first == LLM_SUCCESS)
		first = st;
}
}  // namespace

Status LlmDataDist::LlmDataDistImpl::Link(const detail::Remote *clusters,
					  size_t n, Status *rets,
					  int32_t timeout_ms)
{
	std::lock_guard<std::mutex> api(api_mu_);
	Status first = LLM_SUCCESS;

	if (!initialized_) {
		Err("LinkLlmClusters: not initialized");
		return LLM_FAILED;
	}
	if (timeout_ms <= 0 || !n) {
		Err("LinkLlmClusters: %zu clusters, timeout %d ms (both must be above 0)",
		    n, timeout_ms);
		return LLM_PARAM_INVALID;
	}
	for (size_t i = 0; i < n; i++) {
		const detail::Remote &c = clusters[i];
		Status &ret = rets[i];
		std::string name;

		if (c.n_remote != 1 || c.n_local > 1 ||
		    (name = detail::PeerName(c.ip, c.port)).empty()) {
			Err("LinkLlmClusters: cluster %llu needs one remote IpInfo with a literal IP and a port (and at most one local one)",
			    static_cast<unsigned long long>(c.cluster_id));
			Note(ret, LLM_PARAM_INVALID, first);
			continue;
		}
		if (peers_.count(c.cluster_id)) {
			Err("LinkLlmClusters: cluster %llu is linked already",
			    static_cast<unsigned long long>(c.cluster_id));
			Note(ret, LLM_ALREADY_LINK, first);
			continue;
		}
		adxl_status_t st = adxl_connect(engine_, name.c_str(), timeout_ms);

		if (st == ADXL_ALREADY_CONNECTED) {
			Err("LinkLlmClusters: %s is linked already, as another cluster id",
			    name.c_str());
			Note(ret, LLM_ALREADY_LINK, first);
			continue;
		}
		if (st) {
			Err("LinkLlmClusters: cluster %llu at %s: %s",
			    static_cast<unsigned long long>(c.cluster_id),
			    name.c_str(), adxl_last_error());
			Note(ret, st == ADXL_PARAM_INVALID ? LLM_PARAM_INVALID :
							      LLM_LINK_FAILED, first);
			continue;
		}

		std::vector<uint8_t> ask = detail::EncodeAsk(detail::Ask::kWho, 0);
		uint32_t answer = 0;
		void *ans = nullptr;
		size_t len = 0;
		detail::Who who;

		st = adxl__query(engine_, name.c_str(), ask.data(), ask.size(),
				 &answer, &ans, &len, timeout_ms);
		bool ok = !st && answer == detail::kAnswerOk &&
			  detail::DecodeWho(ans, len, who);
		free(ans);
		if (!ok) {
			Err("LinkLlmClusters: %s did not answer as an LlmDataDist (%s)",
			    name.c_str(), st ? adxl_last_error() :
					       "no LLM-DataDist there");
			adxl_disconnect(engine_, name.c_str(), timeout_ms);
			Note(ret, LLM_LINK_FAILED, first);
			continue;
		}
		/*
		 * CacheIndex.cluster_id names the link by remote_cluster_id;
		 * a peer constructed with another id is told, not refused.
		 */
		if (who.cluster_id != c.cluster_id)
			Err("LinkLlmClusters: warning: %s was made with cluster id %llu, linked as %llu",
			    name.c_str(),
			    static_cast<unsigned long long>(who.cluster_id),
			    static_cast<unsigned long long>(c.cluster_id));
		peers_[c.cluster_id] = Peer{ name, who.reg_seq };
		Note(ret, LLM_SUCCESS, first);
	}
	return first;
}

Status LlmDataDist::LlmDataDistImpl::Unlink(const detail::Remote *clusters,
					    size_t n, Status *rets,
					    int32_t timeout_ms, bool force)
{
	std::lock_guard<std::mutex> api(api_mu_);
	Status first = LLM_SUCCESS;

	if (!initialized_) {
		Err("UnlinkLlmClusters: not initialized");
		return LLM_FAILED;
	}
	if (timeout_ms <= 0 || !n) {
		Err("UnlinkLlmClusters: %zu clusters, timeout %d ms (both must be above 0)",
		    n, timeout_ms);
		return LLM_PARAM_INVALID;
	}
	for (size_t i = 0; i < n; i++) {
		const detail::Remote &c = clusters[i];
		Status &ret = rets[i];
		auto it = peers_.find(c.cluster_id);

		if (it == peers_.end()) {
			Err("UnlinkLlmClusters: cluster %llu is not linked",
			    static_cast<unsigned long long>(c.cluster_id));
			Note(ret, LLM_NOT_YET_LINK, first);
			continue;
		}
		/*
		 * The engine tells the peer (its listener drops our link) and
		 * forgets its memory; a peer already gone is no failure.
		 * force: drop our side whatever the engine says.
		 */
		adxl_status_t st = adxl_disconnect(engine_, it->second.name.c_str(),
						   timeout_ms);

		if (st && st != ADXL_NOT_CONNECTED && !force) {
			Err("UnlinkLlmClusters: cluster %llu: %s",
			    static_cast<unsigned long long>(c.cluster_id),
			    adxl_last_error());
			Note(ret, LLM_UNLINK_FAILED, first);
			continue;
		}
		peers_.erase(it);
		Note(ret, LLM_SUCCESS, first);
	}
	return first;
}

}  // namespace llm_datadist
