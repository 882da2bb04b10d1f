// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A program of CANN's adxl::AdxlEngine, ge::AscendString and
 * llm_datadist::LlmDataDist, declared as CANN declares them
 * (cann_decls.h) and linked the way Mooncake's ascend_direct transport
 * links them: -lascendcl -lllm_datadist -lmetadef.  Built twice, with
 * -D_GLIBCXX_USE_CXX11_ABI=0 and =1, against memreg's libraries built
 * with the default: every std::string the program makes stays its own,
 * every one the libraries make stays theirs.
 *
 * Run on a fake module (the suite's libmemreg.so.1 of tests/unit/fake,
 * under the real faces): two engines of this process move bytes through
 * it, a notify goes from one to the other, two LlmDataDist instances
 * link and pull a cache.
 */
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "cann_decls.h"
#include "tap.h"

namespace {

constexpr size_t kLen = 1 << 20;

bool Check(bool ok, const char *what)
{
	return tap::Check("adxl", ok, what);
}

/* Out-of-line AscendString held, copied and destroyed by the program. */
void TestAscendString()
{
	/* Longer than any short-string buffer: on the heap of the library. */
	const std::string lng(100, 'x');
	ge::AscendString a("127.0.0.1:26000"), b(std::string("127.0.0.1:26000").c_str());
	ge::AscendString l(lng.c_str()), copy;
	std::map<ge::AscendString, int> sorted;
	std::unordered_map<ge::AscendString, int> hashed;

	Check(a == b && !(a != b) && !(a < b) && a <= b && a >= b &&
		      a.GetLength() == 15 &&
		      std::strcmp(a.GetString(), "127.0.0.1:26000") == 0,
	      "AscendString compares by content");
	Check(a == "127.0.0.1:26000" && a != "127.0.0.1", "AscendString == and != a char_t *");
	Check(ge::AscendString("x\0y", 3).GetLength() == 3 &&
		      std::memcmp(ge::AscendString("x\0y", 3).GetString(), "x\0y", 3) == 0,
	      "AscendString of bytes, NUL included");
	Check(l.GetLength() == 100 && std::string(l.GetString(), l.GetLength()) == lng,
	      "a 100-byte AscendString comes back whole into the program's std::string");
	{
		ge::AscendString c1(l);
		ge::AscendString c2 = c1;

		copy = c2;
	}
	Check(copy == l && copy.GetLength() == 100,
	      "copies made and dropped in the program share the library's string");
	Check(ge::AscendString().GetLength() == 0 &&
		      ge::AscendString().GetString()[0] == '\0' &&
		      ge::AscendString(nullptr) == ge::AscendString() &&
		      ge::AscendString() != ge::AscendString("") &&
		      ge::AscendString() < ge::AscendString("") &&
		      ge::AscendString() == static_cast<const char *>(nullptr),
	      "a null AscendString: \"\", length 0, before and unequal to \"\" (metadef's)");
	Check(ge::AscendString("hello world").Find("world") == 6 &&
		      ge::AscendString("hello").Find("xyz") == std::string::npos &&
		      ge::AscendString().Find("a") == std::string::npos,
	      "AscendString::Find");
	sorted["b"] = 2;
	sorted["a"] = 1;
	sorted["c"] = 3;
	Check(sorted.size() == 3 && sorted.begin()->second == 1 &&
		      sorted.rbegin()->second == 3,
	      "std::map<AscendString> in the library's order");
	hashed[a] = 1;
	Check(hashed.count(b) == 1 && a.Hash() == b.Hash() &&
		      a.Hash() == std::hash<std::string>()("127.0.0.1:26000") &&
		      ge::AscendString().Hash() == ge::AscendString("").Hash(),
	      "std::hash<AscendString> is Hash(), libstdc++'s hash of the bytes");
}

struct Pair {
	adxl::AdxlEngine a, b;
	std::string an, bn;	/* their names */
	uint8_t *la, *rb;	/* a's buffer, b's */
	adxl::MemHandle ha = nullptr, hb = nullptr;
};

bool Start(Pair &p)
{
	std::map<adxl::AscendString, adxl::AscendString> options;

	options["adxl.BufferPool"] = "4:8";
	options["adxl.RdmaTrafficClass"] = "132";
	for (int tries = 0; tries < 50; tries++) {
		unsigned int port = tap::Port();

		p.an = tap::Name(port);
		p.bn = tap::Name(port + 1);
		if (p.a.Initialize(p.an.c_str(), options) != adxl::SUCCESS)
			continue;
		if (p.b.Initialize(p.bn.c_str(), options) == adxl::SUCCESS)
			return true;
		p.a.Finalize();
	}
	return false;
}

void TestEngines()
{
	Pair p;
	adxl::MemDesc m{};
	std::vector<adxl::TransferOpDesc> d(1);
	bool same = true;

	if (!Check(Start(p), "two engines Initialize (a map<AscendString, AscendString> of options)"))
		return;
	p.la = static_cast<uint8_t *>(::aligned_alloc(4096, kLen));
	p.rb = static_cast<uint8_t *>(::aligned_alloc(4096, kLen));
	m.addr = reinterpret_cast<uintptr_t>(p.la);
	m.len = kLen;
	Check(p.a.RegisterMem(m, adxl::MEM_HOST, p.ha) == adxl::SUCCESS && p.ha,
	      "RegisterMem (a)");
	m.addr = reinterpret_cast<uintptr_t>(p.rb);
	Check(p.b.RegisterMem(m, adxl::MEM_HOST, p.hb) == adxl::SUCCESS && p.hb,
	      "RegisterMem (b)");
	Check(p.a.Connect(p.bn.c_str(), 2000) == adxl::SUCCESS, "a Connects to b");

	for (size_t i = 0; i < kLen; i++)
		p.rb[i] = static_cast<uint8_t>(i * 7);
	std::memset(p.la, 0, kLen);
	d[0] = { reinterpret_cast<uintptr_t>(p.la), reinterpret_cast<uintptr_t>(p.rb), kLen };
	Check(p.a.TransferSync(p.bn.c_str(), adxl::READ, d) == adxl::SUCCESS &&
		      std::memcmp(p.la, p.rb, kLen) == 0,
	      "TransferSync READ of 1 MiB: the bytes arrive");
	for (size_t i = 0; i < kLen; i++)
		p.la[i] = static_cast<uint8_t>(i * 13);
	d[0] = { reinterpret_cast<uintptr_t>(p.la) + 4096,
		 reinterpret_cast<uintptr_t>(p.rb) + 8192, 65536 };
	Check(p.a.TransferSync(p.bn.c_str(), adxl::WRITE, d, 1000) == adxl::SUCCESS &&
		      std::memcmp(p.la + 4096, p.rb + 8192, 65536) == 0,
	      "TransferSync WRITE of 64 KiB at offsets");

	adxl::TransferReq req = nullptr;
	adxl::TransferStatus st = adxl::TransferStatus::WAITING;

	std::memset(p.la, 0, kLen);
	d[0] = { reinterpret_cast<uintptr_t>(p.la), reinterpret_cast<uintptr_t>(p.rb), kLen };
	Check(p.a.TransferAsync(p.bn.c_str(), adxl::READ, d, adxl::TransferArgs(), req) ==
			      adxl::SUCCESS && req,
	      "TransferAsync READ");
	for (int i = 0; i < 500 && st == adxl::TransferStatus::WAITING; i++) {
		if (p.a.GetTransferStatus(req, st) != adxl::SUCCESS)
			break;
		if (st == adxl::TransferStatus::WAITING)
			usleep(10000);
	}
	Check(st == adxl::TransferStatus::COMPLETED && std::memcmp(p.la, p.rb, kLen) == 0,
	      "GetTransferStatus: COMPLETED, the bytes arrived");

	/* The NotifyDescs the library makes, the program drops. */
	std::vector<adxl::NotifyDesc> got;
	const std::string msg(300, 'm');

	Check(p.a.SendNotify(p.bn.c_str(), { "kv-ready", msg.c_str() }) == adxl::SUCCESS,
	      "SendNotify a -> b");
	for (int i = 0; i < 200 && got.empty(); i++) {
		if (p.b.GetNotifies(got) != adxl::SUCCESS)
			break;
		if (got.empty())
			usleep(10000);
	}
	Check(got.size() == 1 && got[0].name == "kv-ready" &&
		      std::string(got[0].notify_msg.GetString(),
				  got[0].notify_msg.GetLength()) == msg,
	      "GetNotifies: b has it, name and 300-byte message whole");
	got.clear();

	Check(p.a.Disconnect(p.bn.c_str()) == adxl::SUCCESS, "Disconnect");
	Check(p.a.DeregisterMem(p.ha) == adxl::SUCCESS &&
		      p.b.DeregisterMem(p.hb) == adxl::SUCCESS,
	      "DeregisterMem");
	p.a.Finalize();
	p.b.Finalize();
	for (size_t i = 0; i < kLen && same; i++)
		same = p.rb[i] == static_cast<uint8_t>(i * 7) ||
		       (i >= 8192 && i < 8192 + 65536);
	Check(same, "b's memory outside the WRITE is as b wrote it");
	std::free(p.la);
	std::free(p.rb);
}

void TestStatics()
{
	int32_t v = -1;
	void *mem = nullptr;
	adxl::ShareableHandle h{};

	Check(adxl::AdxlEngine::GetCapability(adxl::AUTO_CONNECT, v) == adxl::SUCCESS &&
		      (v == 0 || v == 1),
	      "static GetCapability");
	Check(adxl::AdxlEngine::MallocMem(adxl::MEM_HOST, 4096, &mem) == adxl::SUCCESS &&
		      mem && adxl::AdxlEngine::FreeMem(mem) == adxl::SUCCESS,
	      "static MallocMem and FreeMem of host memory");
	Check(adxl::AdxlEngine::ExportToShareableHandle(&v, h) == adxl::PARAM_INVALID,
	      "static ExportToShareableHandle of memory MallocMem did not give: PARAM_INVALID");
}

/* A prompt with a host cache, a decoder that links to it and pulls it. */
void TestLlmDataDist()
{
	using namespace llm_datadist;
	LlmDataDist prompt(7, LlmRole::kPrompt), decoder(8, LlmRole::kDecoder);
	LlmDataDist bad(9, LlmRole::kPrompt);
	std::map<AscendString, AscendString> o;
	std::vector<int32_t> src(4 * 256), dst(4 * 256, -1);
	CacheDesc desc;
	Cache dst_cache;
	int64_t src_id = -1;
	unsigned int port = 0;
	std::vector<Status> rets;

	o["llm.DeviceId"] = "0";
	o["llm.ListenIpInfo"] = "127.0.0.1:notaport";
	Check(bad.Initialize(o) == LLM_PARAM_INVALID,
	      "LlmDataDist::Initialize reads the program's options: a bad listen address is PARAM_INVALID");
	for (int tries = 0; tries < 50; tries++) {
		port = tap::Port();
		o["llm.ListenIpInfo"] = tap::Name(port).c_str();
		if (prompt.Initialize(o) == LLM_SUCCESS)
			break;
		port = 0;
	}
	o.erase("llm.ListenIpInfo");
	if (!Check(port && decoder.Initialize(o) == LLM_SUCCESS,
		   "LlmDataDist::Initialize, a prompt listening and a decoder"))
		return;

	for (size_t i = 0; i < src.size(); i++)
		src[i] = static_cast<int32_t>(i * 3);
	desc.placement = CachePlacement::kHost;
	desc.num_tensors = 1;
	desc.data_type = ge::DT_FLOAT;	/* 4 bytes, as int32 */
	desc.shape = { 4, 256 };
	Check(prompt.RegisterKvCache(desc, { reinterpret_cast<uint64_t>(src.data()) },
				     RegisterCfg(), src_id) == LLM_SUCCESS,
	      "RegisterKvCache (prompt)");
	Check(decoder.RegisterKvCache(desc, { reinterpret_cast<uint64_t>(dst.data()) },
				      RegisterCfg(), dst_cache.cache_id) == LLM_SUCCESS,
	      "RegisterKvCache (decoder)");

	ClusterInfo c;
	IpInfo ip;

	c.remote_cluster_id = 7;
	ip.ip = "127.0.0.1";
	ip.port = static_cast<uint16_t>(port);
	c.remote_ip_infos.push_back(ip);
	Check(decoder.LinkLlmClusters({ c }, rets, 2000) == LLM_SUCCESS &&
		      rets.size() == 1 && rets[0] == LLM_SUCCESS,
	      "LinkLlmClusters: a ClusterInfo with the program's AscendString ip");

	CacheIndex idx{};

	idx.cluster_id = 7;
	idx.cache_id = src_id;
	idx.batch_index = 2;
	Check(decoder.PullKvCache(idx, dst_cache, 1) == LLM_SUCCESS &&
		      std::memcmp(&dst[256], &src[512], 1024) == 0 && dst[0] == -1,
	      "PullKvCache: batch 2 of the prompt's cache into batch 1 of the decoder's");
	Check(decoder.UnlinkLlmClusters({ c }, rets) == LLM_SUCCESS,
	      "UnlinkLlmClusters");
	Check(decoder.UnregisterKvCache(dst_cache.cache_id) == LLM_SUCCESS &&
		      prompt.UnregisterKvCache(src_id) == LLM_SUCCESS,
	      "UnregisterKvCache");
	decoder.Finalize();
	prompt.Finalize();
}

}  // namespace

int main()
{
	TestAscendString();
	TestEngines();
	TestStatics();
	TestLlmDataDist();
	return tap::Failed() ? 1 : 0;
}
