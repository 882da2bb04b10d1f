/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of lib/llm_datadist: LlmDataDist::LlmDataDistImpl, the state
 * behind the public class, and the helpers its files share.  Nothing here is
 * exported: the class is hidden, the helpers live in namespace
 * llm_datadist::detail with hidden visibility (-fvisibility=hidden), and
 * the version script names only LlmDataDist's own methods.
 *
 * One ADXL engine per LlmDataDist (lib/adxl, the engine of adxl::AdxlEngine
 * and hixl::Hixl): a cache's tensors are registrations of it, a link is
 * its Connect, a pull is a READ and a push a WRITE.  What the engine's
 * hello does not tell the peer -- which cache id is which addresses --
 * is asked with a query (lib/adxl/query.h) on the link itself.
 */
#ifndef LLM_DATADIST_IMPL_H
#define LLM_DATADIST_IMPL_H

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <adxl/adxl.h>
#include <llm_datadist/llm_datadist.h>

#include "../adxl/query.h"

namespace llm_datadist {
namespace detail {

/* ---- log.cpp ---- */

/* A failure of the call: stderr, "llm_datadist: ...". */
void Err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An ADXL status as the LLM-DataDist status the same failure has. */
Status FromAdxl(adxl_status_t st);

/* ---- options.cpp ---- */

struct Options {
	int32_t device_id = -1;
	std::string listen;		/* an engine name "ip:port"; "": client */
	int32_t wait_ms = 1000;		/* OPTION_SYNC_CACHE_WAIT_TIME */
	/* Passed on to the engine as hixl's keys (it ignores them too). */
	std::map<std::string, std::string> engine_options;
};

/* Initialize's and SetRole's options, as the library keeps them. */
using OptionMap = std::map<std::string, std::string>;

/*
 * A cluster of LinkLlmClusters and UnlinkLlmClusters as a link needs it
 * (llm_datadist.cpp), pointing into the caller's ClusterInfo.
 */
struct Remote {
	uint64_t cluster_id;
	const char *ip;		/* remote_ip_infos[0], if any */
	uint16_t port;
	uint32_t n_remote;	/* remote_ip_infos.size() */
	uint32_t n_local;	/* local_ip_infos.size() */
};

/* Initialize's options: LLM_SUCCESS or LLM_PARAM_INVALID (logged). */
Status ParseOptions(const OptionMap &options, Options &out);
/*
 * OPTION_LISTEN_IP_INFO ("ip:port") as an engine name ("[v6]:port" for
 * IPv6): LLM_SUCCESS or LLM_PARAM_INVALID.
 */
Status ListenName(const std::string &value, std::string &name);
/* An address and a port as an engine name, "" if either is bad. */
std::string PeerName(const char *ip, uint16_t port);

/* ---- geometry.cpp ---- */

/*
 * A cache as both sides see it: tensors of tensor_bytes each, cut into
 * dim0 batches (or blocks) of stride() bytes.
 */
struct Geometry {
	CachePlacement placement = CachePlacement::kDevice;
	uint64_t tensor_bytes = 0;
	uint64_t dim0 = 0;
	std::vector<uint64_t> addrs;	/* one per tensor */
	uint64_t seq = 0;		/* registered as the seq-th of its side */

	uint64_t stride() const { return tensor_bytes / dim0; }
	uint32_t num_tensors() const
	{
		return static_cast<uint32_t>(addrs.size());
	}
};

/* Bytes of one tensor of @desc: LLM_SUCCESS or LLM_PARAM_INVALID. */
Status TensorBytes(const CacheDesc &desc, uint64_t &bytes);

/* A tensor of the source cache and the one of the destination it goes to. */
using TensorPairs = std::vector<std::pair<uint32_t, uint32_t>>;

/*
 * Which tensors a transfer moves, as KvCacheExtParam says
 * (LLM_PARAM_INVALID, logged, if it cannot be done).  @push: the layers
 * are walked as PushKv* walk them, a range of {-1, -1} being every layer
 * of the source; a pull takes the ranges only when both are given.
 */
Status SelectTensors(const KvCacheExtParam &p, uint32_t n_src,
		     uint32_t n_dst, bool push, TensorPairs &pairs);

/* ---- wire.cpp: the queries a peer's LlmDataDist answers ---- */

enum class Ask : uint32_t { kWho = 1, kCache = 2 };

/* Answer statuses of our handler (besides ADXL_UNSUPPORTED: no handler). */
constexpr uint32_t kAnswerOk = 0;
constexpr uint32_t kAnswerNoCache = 1;
constexpr uint32_t kAnswerBad = 2;

struct Who {
	uint64_t cluster_id = 0;
	int32_t role = 0;
	uint64_t reg_seq = 0;	/* caches registered so far */
};

std::vector<uint8_t> EncodeAsk(Ask what, int64_t cache_id);
bool DecodeAsk(const void *p, size_t len, Ask &what, int64_t &cache_id);
std::vector<uint8_t> EncodeWho(const Who &who);
bool DecodeWho(const void *p, size_t len, Who &who);
std::vector<uint8_t> EncodeCache(const Geometry &g);
bool DecodeCache(const void *p, size_t len, Geometry &g);

}  // namespace detail

class __attribute__((visibility("hidden"))) LlmDataDist::LlmDataDistImpl {
 public:
	LlmDataDistImpl(uint64_t cluster_id, LlmRole role)
		: cluster_id_(cluster_id), role_(role) {}
	~LlmDataDistImpl();

	/* Initialize's and SetRole's options as the library keeps them. */
	static detail::OptionMap
	ToMap(const std::map<AscendString, AscendString> &options)
	{
		detail::OptionMap m;

		for (const auto &kv : options)
			m[kv.first.GetString()] = kv.second.GetString();
		return m;
	}

	Status Initialize(const detail::OptionMap &options);
	void Finalize();
	Status SetRole(LlmRole role, const detail::OptionMap &options);

	Status Link(const detail::Remote *clusters, size_t n, Status *rets,
		    int32_t timeout_ms);
	Status Unlink(const detail::Remote *clusters, size_t n, Status *rets,
		      int32_t timeout_ms, bool force);

	Status Register(const CacheDesc &desc,
			const std::vector<uint64_t> &addrs, int64_t &cache_id);
	Status Unregister(int64_t cache_id);

	Status PullCache(const CacheIndex &src, const Cache &dst,
			 uint32_t batch_index, int64_t size,
			 const KvCacheExtParam &p);
	Status PullBlocks(const CacheIndex &src, const Cache &dst,
			  const std::vector<uint64_t> &src_blocks,
			  const std::vector<uint64_t> &dst_blocks,
			  const KvCacheExtParam &p);
	Status PushCache(const Cache &src, const CacheIndex &dst,
			 uint32_t src_batch_index, int64_t size,
			 const KvCacheExtParam &p);
	Status PushBlocks(const Cache &src, const CacheIndex &dst,
			  const std::vector<uint64_t> &src_blocks,
			  const std::vector<uint64_t> &dst_blocks,
			  const KvCacheExtParam &p);

 private:
	struct LocalCache {
		detail::Geometry g;
		std::vector<adxl_mem_handle_t> handles;	/* one per tensor */
	};
	struct Peer {
		std::string name;	/* the engine linked to */
		uint64_t reg_seq;	/* its caches registered before the link */
	};

	/* engine.cpp */
	Status StartEngine(const std::string &name, adxl_engine_t *&engine,
			   std::map<int64_t, std::vector<adxl_mem_handle_t>> &handles);
	static uint32_t Answer(void *arg, const void *req, size_t len,
			       void **ans, size_t *ans_len) noexcept;
	static uint32_t AnswerOrThrow(void *arg, const void *req, size_t len,
			       void **ans, size_t *ans_len);

	/* cache.cpp */
	static Status RegisterTensors(adxl_engine_t *engine,
				      const detail::Geometry &g,
				      std::vector<adxl_mem_handle_t> &handles);
	static void DeregisterTensors(adxl_engine_t *engine,
				      std::vector<adxl_mem_handle_t> &handles);

	/* transfer.cpp */
	Status FindLocal(int64_t cache_id, detail::Geometry &g);
	Status FindRemote(uint64_t cluster_id, int64_t cache_id,
		      std::string &peer, detail::Geometry &g);
	Status Resolve(int64_t local_id, const CacheIndex &remote,
		       const KvCacheExtParam &p, bool push,
		       detail::Geometry &gl, detail::Geometry &gr,
		       detail::TensorPairs &pairs, std::string &peer);
	Status Move(const std::string &peer, adxl_transfer_op op,
		    const std::vector<adxl_transfer_desc> &descs);

	const uint64_t cluster_id_;
	LlmRole role_;

	/* One call at a time, as CANN's own: the API is not meant to race. */
	std::mutex api_mu_;
	bool initialized_ = false;
	detail::Options opts_;
	std::string name_;			/* the engine's */
	adxl_engine_t *engine_ = nullptr;
	std::map<uint64_t, Peer> peers_;	/* by remote_cluster_id */

	/*
	 * The caches, also read by Answer() on the engine's listener thread:
	 * never held across an engine call that waits for that thread.
	 */
	std::mutex caches_mu_;
	std::map<int64_t, LocalCache> caches_;
	int64_t next_cache_id_ = 1;
	uint64_t reg_seq_ = 0;
};

}  // namespace llm_datadist

#endif /* LLM_DATADIST_IMPL_H */
