// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * llm_datadist._datadist: what the Python package llm_datadist stands on,
 * one LlmDataDist of <llm_datadist/llm_datadist.h> (libllm_datadist.so)
 * per Engine, and a directory of its caches that linked peers read.
 *
 * The package's CacheManager names a peer's cache two ways: by id
 * (CacheKeyByIdAndIndex: the id register_cache returned over there) and by
 * key (BlocksCacheKey(cluster_id, model_id): whatever blocks cache the
 * peer registered with that key).  The C++ API knows ids only.  So each
 * Engine keeps a directory -- which of its caches carries which key --
 * in a small host buffer it registers as a cache of its own, before any
 * cache of the application's, and a peer reads it with an ordinary pull
 * the first time it needs to know (as CANN's remote-cache-accessible mode
 * caches the peer's index at its first pull, and sees nothing the peer
 * registers after that).  A second buffer receives a peer's directory.
 *
 * Those two are the LlmDataDist's caches 1 and 2, so the application's
 * caches are 3, 4, ... there; the package shows them as 1, 2, ..., the
 * ids CANN's examples expect (a peer's first cache is 1), and adds 2 to
 * a peer's ids when the peer has a directory.  A peer without one (a C++
 * LlmDataDist) is reached with its ids as they are, and by id only.
 *
 * Every call returns an LLM status (the package raises LLMException);
 * the GIL is released while the engine works.
 */
#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <llm_datadist/llm_datadist.h>
#include <llm_datadist/llm_error_codes.h>
#include <acl/error_codes/rt_error_codes.h>

namespace py = pybind11;
using namespace llm_datadist;

namespace {

/* The directory: a header, then one entry per cache of the application. */
constexpr char kMagic[8] = { 'm', 'r', 'L', 'L', 'M', 'd', 'i', 'r' };
constexpr uint32_t kVersion = 1;
constexpr size_t kDirBytes = 8192;

struct DirHeader {
	char magic[8];
	uint32_t version;
	uint32_t count;
	uint64_t checksum;	/* FNV-1a of count and the entries */
	uint64_t reserved;
};

enum : uint32_t { kBlocks = 1, kKeyed = 2 };

struct DirEntry {
	int64_t id;		/* the LlmDataDist's id */
	uint64_t model_id;	/* the BlocksCacheKey's, if kKeyed */
	uint32_t flags;
	uint32_t num_tensors;
	uint64_t block_bytes;	/* a tensor's bytes / shape[0] */
};

static_assert(sizeof(DirHeader) == 32 && sizeof(DirEntry) == 32,
	      "directory layout");
constexpr size_t kDirEntries = (kDirBytes - sizeof(DirHeader)) / sizeof(DirEntry);

/* The LlmDataDist's ids of the directory, the buffer and the first cache. */
constexpr int64_t kDirId = 1;
constexpr int64_t kRecvId = 2;
constexpr int64_t kIdBase = 2;

uint64_t Fnv(const void *p, size_t n, uint64_t h = 0xcbf29ce484222325ULL)
{
	const unsigned char *b = static_cast<const unsigned char *>(p);

	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint64_t Checksum(uint32_t count, const DirEntry *e)
{
	return Fnv(e, count * sizeof(*e), Fnv(&count, sizeof(count)));
}

/* What a link knows of its peer's directory, read at the first need. */
struct PeerDir {
	bool read = false;
	bool has_dir = false;
	std::vector<DirEntry> entries;
};

/* Layer ranges as the C++ API takes them: inclusive pairs, -1: none. */
using Ranges = std::tuple<int32_t, int32_t, int32_t, int32_t>;
/* A cluster to link: id, remote ip, port, remote and local IpInfo counts. */
using ClusterTuple = std::tuple<uint64_t, std::string, uint16_t, uint32_t, uint32_t>;
using Statuses = std::pair<Status, std::vector<Status>>;

KvCacheExtParam Ext(const Ranges &r, uint32_t per_layer)
{
	KvCacheExtParam p;

	p.src_layer_range = { std::get<0>(r), std::get<1>(r) };
	p.dst_layer_range = { std::get<2>(r), std::get<3>(r) };
	p.tensor_num_per_layer = static_cast<uint8_t>(per_layer);
	return p;
}

Cache Local(int64_t id, uint32_t placement)
{
	Cache c;

	c.cache_id = id;
	c.cache_desc.placement = static_cast<CachePlacement>(placement);
	return c;
}

std::map<AscendString, AscendString> Options(
	const std::map<std::string, std::string> &options)
{
	std::map<AscendString, AscendString> out;

	for (const auto &kv : options)
		out.emplace(AscendString(kv.first.c_str()),
			    AscendString(kv.second.c_str()));
	return out;
}

std::vector<ClusterInfo> Clusters(const std::vector<ClusterTuple> &in)
{
	std::vector<ClusterInfo> out;

	for (const auto &t : in) {
		ClusterInfo c{};
		IpInfo ip{};

		c.remote_cluster_id = std::get<0>(t);
		ip.ip = AscendString(std::get<1>(t).c_str());
		ip.port = std::get<2>(t);
		/* The counts are checked by the library; only the first is used. */
		c.remote_ip_infos.assign(std::get<3>(t), ip);
		c.local_ip_infos.assign(std::get<4>(t), IpInfo{});
		out.push_back(c);
	}
	return out;
}

class Engine {
 public:
	Engine(uint64_t cluster_id, int32_t role)
		: dd_(cluster_id, static_cast<LlmRole>(role))
	{
	}

	Engine(const Engine &) = delete;
	Engine &operator=(const Engine &) = delete;

	~Engine()
	{
		py::gil_scoped_release nogil;

		Finalize();
		Unmap();
	}

	Status Initialize(const std::map<std::string, std::string> &options)
	{
		std::unique_lock<std::shared_mutex> lock(mu_);
		int64_t dir = -1, recv = -1;
		Status st;

		if (up_)
			return LLM_SUCCESS;
		if (!Map())
			return LLM_OUT_OF_MEMORY;
		st = dd_.Initialize(Options(options));
		if (st != LLM_SUCCESS)
			return st;
		if ((st = RegisterBuffer(dir_, dir)) != LLM_SUCCESS ||
		    (st = RegisterBuffer(recv_, recv)) != LLM_SUCCESS ||
		    dir != kDirId || recv != kRecvId) {
			dd_.Finalize();
			return st != LLM_SUCCESS ? st : LLM_FAILED;
		}
		entries_.clear();
		peers_.clear();
		Publish();
		up_ = true;
		return LLM_SUCCESS;
	}

	void Finalize()
	{
		std::unique_lock<std::shared_mutex> lock(mu_);

		if (!up_)
			return;
		dd_.Finalize();
		up_ = false;
	}

	Status SetRole(int32_t role, const std::map<std::string, std::string> &options)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		if (!up_)
			return LLM_FAILED;
		return dd_.SetRole(static_cast<LlmRole>(role), Options(options));
	}

	/* The application's cache, and its entry in the directory. */
	std::pair<Status, int64_t> Register(uint32_t placement, uint32_t num_tensors,
					    int32_t data_type,
					    const std::vector<int64_t> &shape,
					    const std::vector<uint64_t> &addrs,
					    bool blocks, bool keyed,
					    uint64_t model_id, uint64_t block_bytes)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		CacheDesc desc;
		RegisterCfg cfg;
		int64_t id = -1;

		if (!up_)
			return { LLM_FAILED, -1 };
		desc.placement = static_cast<CachePlacement>(placement);
		desc.num_tensors = num_tensors;
		desc.data_type = static_cast<DataType>(data_type);
		desc.shape = shape;
		std::lock_guard<std::mutex> dl(dir_mu_);
		if (entries_.size() >= kDirEntries)
			return { LLM_OUT_OF_MEMORY, -1 };
		Status st = dd_.RegisterKvCache(desc, addrs, cfg, id);

		if (st != LLM_SUCCESS)
			return { st, -1 };
		entries_.push_back(DirEntry{ id, keyed ? model_id : 0,
					     (blocks ? kBlocks : 0u) |
						     (keyed ? kKeyed : 0u),
					     num_tensors, block_bytes });
		Publish();
		return { LLM_SUCCESS, id - kIdBase };
	}

	Status Unregister(int64_t cache_id)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);

		if (!up_)
			return LLM_FAILED;
		/* The two buffers are not the application's to drop. */
		if (cache_id < 1)
			return LLM_SUCCESS;
		std::lock_guard<std::mutex> dl(dir_mu_);
		Status st = dd_.UnregisterKvCache(cache_id + kIdBase);

		for (auto it = entries_.begin(); it != entries_.end(); ++it) {
			if (it->id == cache_id + kIdBase) {
				entries_.erase(it);
				break;
			}
		}
		Publish();
		return st;
	}

	Statuses Link(const std::vector<ClusterTuple> &clusters, int32_t timeout)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		std::vector<Status> rets;

		if (!up_)
			return { LLM_FAILED, std::vector<Status>(clusters.size(), LLM_FAILED) };
		Status st = dd_.LinkLlmClusters(Clusters(clusters), rets, timeout);

		Forget(clusters);
		return { st, rets };
	}

	Statuses Unlink(const std::vector<ClusterTuple> &clusters, int32_t timeout,
			bool force)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		std::vector<Status> rets;

		if (!up_)
			return { LLM_FAILED, std::vector<Status>(clusters.size(), LLM_FAILED) };
		Status st = dd_.UnlinkLlmClusters(Clusters(clusters), rets, timeout,
						  force);

		Forget(clusters);
		return { st, rets };
	}

	/*
	 * The remote cache: @by_key names it by the model id of its
	 * BlocksCacheKey, else @key is the id its package gave it.
	 */
	Status PullCache(uint64_t cluster, int64_t key, uint32_t remote_batch,
			 int64_t dst_id, uint32_t placement, uint32_t batch_index,
			 int64_t size, const Ranges &r, uint32_t per_layer)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		CacheIndex src{};

		if (!up_)
			return LLM_FAILED;
		Status st = Remote(cluster, false, key, 0, 0, src.cache_id);

		if (st != LLM_SUCCESS)
			return st;
		src.cluster_id = cluster;
		src.batch_index = remote_batch;
		return dd_.PullKvCache(src, Local(dst_id + kIdBase, placement),
				       batch_index, size, Ext(r, per_layer));
	}

	Status PullBlocks(uint64_t cluster, bool by_key, int64_t key,
			  int64_t dst_id, uint32_t placement,
			  uint32_t num_tensors, uint64_t block_bytes,
			  const std::vector<uint64_t> &src_blocks,
			  const std::vector<uint64_t> &dst_blocks,
			  const Ranges &r, uint32_t per_layer)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		CacheIndex src{};

		if (!up_)
			return LLM_FAILED;
		Status st = Remote(cluster, by_key, key, num_tensors, block_bytes,
				   src.cache_id);

		if (st != LLM_SUCCESS)
			return st;
		src.cluster_id = cluster;
		return dd_.PullKvBlocks(src, Local(dst_id + kIdBase, placement),
					src_blocks, dst_blocks, Ext(r, per_layer));
	}

	Status PushCache(int64_t src_id, uint32_t placement, uint64_t cluster,
			 int64_t key, uint32_t remote_batch,
			 uint32_t src_batch_index, int64_t size, const Ranges &r,
			 uint32_t per_layer)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		CacheIndex dst{};

		if (!up_)
			return LLM_FAILED;
		Status st = Remote(cluster, false, key, 0, 0, dst.cache_id);

		if (st != LLM_SUCCESS)
			return st;
		dst.cluster_id = cluster;
		dst.batch_index = remote_batch;
		return dd_.PushKvCache(Local(src_id + kIdBase, placement), dst,
				       src_batch_index, size, Ext(r, per_layer));
	}

	Status PushBlocks(int64_t src_id, uint32_t placement, uint32_t num_tensors,
			  uint64_t block_bytes, uint64_t cluster, bool by_key,
			  int64_t key, const std::vector<uint64_t> &src_blocks,
			  const std::vector<uint64_t> &dst_blocks,
			  const Ranges &r, uint32_t per_layer)
	{
		std::shared_lock<std::shared_mutex> lock(mu_);
		CacheIndex dst{};

		if (!up_)
			return LLM_FAILED;
		Status st = Remote(cluster, by_key, key, num_tensors, block_bytes,
				   dst.cache_id);

		if (st != LLM_SUCCESS)
			return st;
		dst.cluster_id = cluster;
		return dd_.PushKvBlocks(Local(src_id + kIdBase, placement), dst,
					src_blocks, dst_blocks, Ext(r, per_layer));
	}

	/* The directory as the peer would read it, for the tests. */
	py::bytes Directory()
	{
		std::lock_guard<std::mutex> dl(dir_mu_);

		return dir_ ? py::bytes(static_cast<const char *>(dir_), kDirBytes) :
			      py::bytes();
	}

 private:
	bool Map()
	{
		if (dir_)
			return true;
		void *p = mmap(nullptr, 2 * kDirBytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return false;
		dir_ = p;
		recv_ = static_cast<char *>(p) + kDirBytes;
		return true;
	}

	void Unmap()
	{
		if (dir_)
			munmap(dir_, 2 * kDirBytes);
		dir_ = recv_ = nullptr;
	}

	Status RegisterBuffer(void *buf, int64_t &id)
	{
		CacheDesc desc;
		RegisterCfg cfg;

		desc.placement = CachePlacement::kHost;
		desc.num_tensors = 1;
		desc.data_type = DT_UINT8;
		desc.shape = { 1, static_cast<int64_t>(kDirBytes) };
		return dd_.RegisterKvCache(desc, { reinterpret_cast<uint64_t>(buf) },
					   cfg, id);
	}

	/* The entries into the registered buffer (under dir_mu_). */
	void Publish()
	{
		DirHeader *h = static_cast<DirHeader *>(dir_);
		DirEntry *e = reinterpret_cast<DirEntry *>(h + 1);
		uint32_t n = static_cast<uint32_t>(entries_.size());

		std::memcpy(e, entries_.data(), n * sizeof(*e));
		std::memcpy(h->magic, kMagic, sizeof(kMagic));
		h->version = kVersion;
		h->count = n;
		h->checksum = Checksum(n, e);
	}

	void Forget(const std::vector<ClusterTuple> &clusters)
	{
		std::lock_guard<std::mutex> dl(dir_mu_);

		for (const auto &c : clusters)
			peers_.erase(std::get<0>(c));
	}

	/*
	 * The peer's directory into @d, read once per link.  A peer whose
	 * cache 1 is not one (a C++ LlmDataDist: no such cache, another
	 * shape, other bytes) has none; a pull that fails otherwise (not
	 * linked, the link gone, out of time) is the caller's failure.  A
	 * directory read while the peer rewrote it fails its checksum and
	 * is read again.
	 */
	Status ReadDirectory(uint64_t cluster, PeerDir &d)
	{
		CacheIndex src{};
		KvCacheExtParam p;

		src.cluster_id = cluster;
		src.cache_id = kDirId;
		p.tensor_num_per_layer = 1;
		for (int attempt = 0; attempt < 5; attempt++) {
			Status st = dd_.PullKvCache(src, Local(kRecvId, 0), 0, -1, p);

			if (st == LLM_KV_CACHE_NOT_EXIST || st == LLM_PARAM_INVALID) {
				d.read = true;
				return LLM_SUCCESS;
			}
			if (st != LLM_SUCCESS)
				return st;
			const DirHeader *h = static_cast<const DirHeader *>(recv_);
			const DirEntry *e = reinterpret_cast<const DirEntry *>(h + 1);

			if (std::memcmp(h->magic, kMagic, sizeof(kMagic)) ||
			    h->version != kVersion || h->count > kDirEntries) {
				d.read = true;
				return LLM_SUCCESS;
			}
			if (h->checksum == Checksum(h->count, e)) {
				d.entries.assign(e, e + h->count);
				d.has_dir = d.read = true;
				return LLM_SUCCESS;
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		return LLM_FAILED;
	}

	/*
	 * The peer's LlmDataDist id of a cache: by id (the package's, so
	 * plus kIdBase where the peer has a directory), or by key: the
	 * blocks caches with that model id, the one of our geometry first,
	 * else the last registered.
	 */
	Status Remote(uint64_t cluster, bool by_key, int64_t key,
		      uint32_t num_tensors, uint64_t block_bytes, int64_t &id)
	{
		std::lock_guard<std::mutex> dl(dir_mu_);
		PeerDir &d = peers_[cluster];

		if (!d.read) {
			Status st = ReadDirectory(cluster, d);

			if (st != LLM_SUCCESS) {
				peers_.erase(cluster);
				return st;
			}
		}
		if (!by_key) {
			id = d.has_dir ? key + kIdBase : key;
			return LLM_SUCCESS;
		}
		const DirEntry *best = nullptr;

		for (const DirEntry &e : d.entries) {
			if ((e.flags & (kBlocks | kKeyed)) != (kBlocks | kKeyed) ||
			    e.model_id != static_cast<uint64_t>(key))
				continue;
			if (!best || (e.num_tensors == num_tensors &&
				      e.block_bytes == block_bytes) ||
			    !(best->num_tensors == num_tensors &&
			      best->block_bytes == block_bytes))
				best = &e;
		}
		if (!best)
			return LLM_KV_CACHE_NOT_EXIST;
		id = best->id;
		return LLM_SUCCESS;
	}

	LlmDataDist dd_;
	std::shared_mutex mu_;	/* Finalize against the other calls */
	bool up_ = false;
	std::mutex dir_mu_;	/* the directory, the buffer, peers_ */
	void *dir_ = nullptr;
	void *recv_ = nullptr;
	std::vector<DirEntry> entries_;
	std::map<uint64_t, PeerDir> peers_;
};

}  // namespace

PYBIND11_MODULE(_datadist, m)
{
	using nogil = py::call_guard<py::gil_scoped_release>;

	m.doc() = "LlmDataDist for the llm_datadist package (docs/python.md)";

	/* The status values of <llm_datadist/llm_error_codes.h>. */
	const std::pair<const char *, Status> codes[] = {
		{ "SUCCESS", ge::SUCCESS },
		{ "FAILED", ge::FAILED },
		{ "PARAM_INVALID", ge::LLM_PARAM_INVALID },
		{ "WAIT_PROC_TIMEOUT", ge::LLM_WAIT_PROC_TIMEOUT },
		{ "KV_CACHE_NOT_EXIST", ge::LLM_KV_CACHE_NOT_EXIST },
		{ "REPEAT_REQUEST", ge::LLM_REPEAT_REQUEST },
		{ "REQUEST_ALREADY_COMPLETED", ge::LLM_REQUEST_ALREADY_COMPLETED },
		{ "ENGINE_FINALIZED", ge::LLM_ENGINE_FINALIZED },
		{ "NOT_YET_LINK", ge::LLM_NOT_YET_LINK },
		{ "ALREADY_LINK", ge::LLM_ALREADY_LINK },
		{ "LINK_FAILED", ge::LLM_LINK_FAILED },
		{ "UNLINK_FAILED", ge::LLM_UNLINK_FAILED },
		{ "NOTIFY_PROMPT_UNLINK_FAILED", ge::LLM_NOTIFY_PROMPT_UNLINK_FAILED },
		{ "CLUSTER_NUM_EXCEED_LIMIT", ge::LLM_CLUSTER_NUM_EXCEED_LIMIT },
		{ "PROCESSING_LINK", ge::LLM_PROCESSING_LINK },
		{ "DEVICE_OUT_OF_MEMORY", ge::LLM_DEVICE_OUT_OF_MEMORY },
		{ "PREFIX_ALREADY_EXIST", ge::LLM_PREFIX_ALREADY_EXIST },
		{ "PREFIX_NOT_EXIST", ge::LLM_PREFIX_NOT_EXIST },
		{ "SEQ_LEN_OVER_LIMIT", ge::LLM_SEQ_LEN_OVER_LIMIT },
		{ "NO_FREE_BLOCK", ge::LLM_NO_FREE_BLOCK },
		{ "BLOCKS_OUT_OF_MEMORY", ge::LLM_BLOCKS_OUT_OF_MEMORY },
		{ "EXIST_LINK", ge::LLM_EXIST_LINK },
		{ "FEATURE_NOT_ENABLED", ge::LLM_FEATURE_NOT_ENABLED },
		{ "TIMEOUT", ge::LLM_TIMEOUT },
		{ "LINK_BUSY", ge::LLM_LINK_BUSY },
		{ "OUT_OF_MEMORY", ge::LLM_OUT_OF_MEMORY },
		/* The runtime's, which CANN's package reports as they are. */
		{ "DEVICE_MEM_ERROR", ACL_ERROR_RT_DEVICE_MEM_ERROR },
		{ "SUSPECT_REMOTE_ERROR", ACL_ERROR_RT_SUSPECT_REMOTE_ERROR },
	};
	py::dict status;

	for (const auto &c : codes)
		status[c.first] = py::int_(c.second);
	m.attr("STATUS") = status;

	/* ge::DataType of the element types the package names. */
	py::dict types;

	types["DT_FLOAT"] = py::int_(static_cast<int>(ge::DT_FLOAT));
	types["DT_FLOAT16"] = py::int_(static_cast<int>(ge::DT_FLOAT16));
	types["DT_BF16"] = py::int_(static_cast<int>(ge::DT_BF16));
	types["DT_INT8"] = py::int_(static_cast<int>(ge::DT_INT8));
	types["DT_INT16"] = py::int_(static_cast<int>(ge::DT_INT16));
	types["DT_UINT16"] = py::int_(static_cast<int>(ge::DT_UINT16));
	types["DT_UINT8"] = py::int_(static_cast<int>(ge::DT_UINT8));
	types["DT_INT32"] = py::int_(static_cast<int>(ge::DT_INT32));
	types["DT_INT64"] = py::int_(static_cast<int>(ge::DT_INT64));
	types["DT_UINT32"] = py::int_(static_cast<int>(ge::DT_UINT32));
	types["DT_UINT64"] = py::int_(static_cast<int>(ge::DT_UINT64));
	types["DT_BOOL"] = py::int_(static_cast<int>(ge::DT_BOOL));
	types["DT_DOUBLE"] = py::int_(static_cast<int>(ge::DT_DOUBLE));
	types["DT_STRING"] = py::int_(static_cast<int>(ge::DT_STRING));
	m.attr("DATA_TYPES") = types;
	m.attr("DIRECTORY_ENTRIES") = py::int_(kDirEntries);

	py::class_<Engine>(m, "Engine")
		.def(py::init<uint64_t, int32_t>())
		.def("initialize", &Engine::Initialize, nogil())
		.def("finalize", &Engine::Finalize, nogil())
		.def("set_role", &Engine::SetRole, nogil())
		.def("register", &Engine::Register, nogil())
		.def("unregister", &Engine::Unregister, nogil())
		.def("link", &Engine::Link, nogil())
		.def("unlink", &Engine::Unlink, nogil())
		.def("pull_cache", &Engine::PullCache, nogil())
		.def("pull_blocks", &Engine::PullBlocks, nogil())
		.def("push_cache", &Engine::PushCache, nogil())
		.def("push_blocks", &Engine::PushBlocks, nogil())
		.def("directory", &Engine::Directory);
}
