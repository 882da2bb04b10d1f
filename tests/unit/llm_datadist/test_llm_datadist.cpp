// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two LlmDataDist instances of this process, a prompt that listens and a
 * decoder that links to it, on a fake module that copies the bytes of a
 * TRANSFER (tests/unit/fake): caches registered and unregistered, links,
 * pulls and pushes of whole batches and of blocks (as hicann/hixl's
 * examples do them, every byte checked), role switching, and the
 * statuses of the calls that must fail.  The caches are host memory: the
 * engine's device registrations are covered by tests/unit/adxl and the VM.
 */
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <string>
#include <unistd.h>
extern "C" {
#include <cmocka.h>
}

#include <acl/acl_rt.h>
#include <adxl/adxl.h>
#include <llm_datadist/llm_datadist.h>
#include <llm_datadist/llm_error_codes.h>

extern "C" {
#include "fake_kernel.h"
}

using namespace llm_datadist;

namespace {

/* The examples' caches: 4 tensors of 8 x 16 int32, 8 blocks of 64 bytes. */
constexpr uint32_t kTensors = 4;
constexpr size_t kElems = 8 * 16;
constexpr size_t kBlock = 16;		/* elements */

unsigned int g_port;

std::string Addr(unsigned int port)
{
	return "127.0.0.1:" + std::to_string(port);
}

struct Side {
	LlmDataDist dd;
	int32_t buf[kTensors][kElems];
	int64_t cache_id = -1;

	Side(uint64_t id, LlmRole role) : dd(id, role) {}

	Status Init(unsigned int port)
	{
		std::map<AscendString, AscendString> o;

		o[OPTION_DEVICE_ID] = "0";
		if (port)
			o[OPTION_LISTEN_IP_INFO] = Addr(port).c_str();
		o[OPTION_TRANSFER_BACKEND] = "hixl";
		return dd.Initialize(o);
	}

	/* fill: element i of every tensor is i (as the prompt examples). */
	Status Register(bool fill)
	{
		CacheDesc d{};
		std::vector<uint64_t> addrs;

		d.placement = CachePlacement::kHost;
		d.num_tensors = kTensors;
		d.data_type = DT_INT32;
		d.shape = { 8, 16 };
		for (uint32_t t = 0; t < kTensors; t++) {
			for (size_t i = 0; i < kElems; i++)
				buf[t][i] = fill ? static_cast<int32_t>(i) : -1;
			addrs.push_back(reinterpret_cast<uint64_t>(buf[t]));
		}
		return dd.RegisterKvCache(d, addrs, {}, cache_id);
	}

	/* Blocks @blocks of every tensor hold i at element i. */
	bool Has(std::initializer_list<size_t> blocks, uint32_t t0 = 0,
		 uint32_t t1 = kTensors) const
	{
		for (uint32_t t = t0; t < t1; t++)
			for (size_t b : blocks)
				for (size_t i = b * kBlock; i < (b + 1) * kBlock; i++)
					if (buf[t][i] != static_cast<int32_t>(i))
						return false;
		return true;
	}

	/* Every element outside @blocks is still -1. */
	bool Untouched(std::initializer_list<size_t> blocks) const
	{
		for (uint32_t t = 0; t < kTensors; t++)
			for (size_t i = 0; i < kElems; i++) {
				bool in = false;

				for (size_t b : blocks)
					in |= i / kBlock == b;
				if (!in && buf[t][i] != -1)
					return false;
			}
		return true;
	}
};

ClusterInfo Cluster(uint64_t id, unsigned int port)
{
	ClusterInfo c;
	IpInfo ip;

	c.remote_cluster_id = id;
	ip.ip = "127.0.0.1";
	ip.port = static_cast<uint16_t>(port);
	c.remote_ip_infos.push_back(ip);
	return c;
}

Status Link(Side &s, uint64_t id, unsigned int port, int32_t timeout = 2000)
{
	std::vector<Status> rets;
	Status st = s.dd.LinkLlmClusters({ Cluster(id, port) }, rets, timeout);

	assert_int_equal(rets.size(), 1);
	assert_int_equal(rets[0], st);
	return st;
}

Status Unlink(Side &s, uint64_t id, unsigned int port)
{
	std::vector<Status> rets;

	return s.dd.UnlinkLlmClusters({ Cluster(id, port) }, rets, 2000);
}

/* A prompt (cluster 0) listening at g_port, a decoder (1) at g_port + 1. */
struct Pair {
	Side prompt{ 0, LlmRole::kPrompt };
	Side decoder{ 1, LlmRole::kDecoder };
};

int Setup(void **state)
{
	if (fake_kernel_setup())
		return -1;
	fake_set_instance(0x42);
	Pair *p = new Pair;

	for (int tries = 0;; tries++) {
		g_port = 20000 + static_cast<unsigned int>(rand()) % 40000;
		if (p->prompt.Init(g_port) == LLM_SUCCESS) {
			if (p->decoder.Init(g_port + 1) == LLM_SUCCESS)
				break;
			p->prompt.dd.Finalize();
		}
		if (tries == 50)
			return -1;
	}
	if (p->prompt.Register(true) != LLM_SUCCESS ||
	    p->decoder.Register(false) != LLM_SUCCESS)
		return -1;
	*state = p;
	return 0;
}

int Teardown(void **state)
{
	delete static_cast<Pair *>(*state);
	fake_kernel_teardown();
	return 0;
}

void TestRegister(void **state)
{
	Pair *p = static_cast<Pair *>(*state);
	CacheDesc d{};
	int64_t id = -1;
	int32_t mem[64];
	uint64_t a = reinterpret_cast<uint64_t>(mem);

	/* Ids count from 1 in each instance, as the examples rely on. */
	assert_int_equal(p->prompt.cache_id, 1);
	assert_int_equal(p->decoder.cache_id, 1);

	d.placement = CachePlacement::kHost;
	d.num_tensors = 1;
	d.data_type = DT_FLOAT16;
	d.shape = { 4, 16 };
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { a }, {}, id),
			 LLM_SUCCESS);
	assert_int_equal(id, 2);
	assert_int_equal(p->prompt.dd.UnregisterKvCache(id), LLM_SUCCESS);
	/* Unknown, or gone already: success, as CANN documents. */
	assert_int_equal(p->prompt.dd.UnregisterKvCache(id), LLM_SUCCESS);
	assert_int_equal(p->prompt.dd.UnregisterKvCache(77), LLM_SUCCESS);

	/* Bad descriptions. */
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { a, a }, {}, id),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { 0 }, {}, id),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, {}, {}, id),
			 LLM_PARAM_INVALID);
	d.data_type = DT_UNDEFINED;
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { a }, {}, id),
			 LLM_PARAM_INVALID);
	d.data_type = DT_INT32;
	d.shape = {};
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { a }, {}, id),
			 LLM_PARAM_INVALID);
	d.shape = { 0, 4 };
	assert_int_equal(p->prompt.dd.RegisterKvCache(d, { a }, {}, id),
			 LLM_PARAM_INVALID);
	/* Overlapping a tensor of cache 1 (the engine's rule). */
	d.shape = { 2, 4 };
	assert_int_equal(p->prompt.dd.RegisterKvCache(
				 d, { reinterpret_cast<uint64_t>(&p->prompt.buf[0][4]) },
				 {}, id),
			 LLM_PARAM_INVALID);
}

void TestInitialize(void **)
{
	LlmDataDist dd(5, LlmRole::kDecoder), bad(6, static_cast<LlmRole>(9));
	std::map<AscendString, AscendString> o;
	CacheDesc d{};
	int64_t id;
	std::vector<Status> rets;

	assert_int_equal(fake_kernel_setup(), 0);
	/* Not initialized: LLM_FAILED, as CANN's. */
	assert_int_equal(dd.RegisterKvCache(d, { 1 }, {}, id), LLM_FAILED);
	assert_int_equal(dd.LinkLlmClusters({ Cluster(0, 1) }, rets), LLM_FAILED);
	assert_int_equal(dd.SetRole(LlmRole::kPrompt), LLM_FAILED);

	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);	/* no device */
	o[OPTION_DEVICE_ID] = "zero";
	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);
	o[OPTION_DEVICE_ID] = "0";
	o[OPTION_LISTEN_IP_INFO] = "127.0.0.1";
	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);
	o[OPTION_LISTEN_IP_INFO] = "localhost:26000";
	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);
	o.erase(OPTION_LISTEN_IP_INFO);
	o[OPTION_TRANSFER_BACKEND] = "hccl";
	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);
	o[OPTION_TRANSFER_BACKEND] = "hixl";
	o[OPTION_SYNC_CACHE_WAIT_TIME] = "0";
	assert_int_equal(dd.Initialize(o), LLM_PARAM_INVALID);
	o[OPTION_SYNC_CACHE_WAIT_TIME] = "500";
	o[OPTION_LOCAL_COMM_RES] = "";
	assert_int_equal(bad.Initialize(o), LLM_PARAM_INVALID);
	/* a device the module does not have: the set-device fails */
	o[OPTION_DEVICE_ID] = "64";
	assert_int_equal(dd.Initialize(o), LLM_FAILED);
	o[OPTION_DEVICE_ID] = "1";
	assert_int_equal(dd.Initialize(o), LLM_SUCCESS);
	assert_int_equal(dd.Initialize(o), LLM_SUCCESS);	/* again: fine */
	/* as CANN's: this thread now works on the device (aclrtMalloc) */
	int32_t dev = -1;
	assert_int_equal(aclrtGetDevice(&dev), ACL_SUCCESS);
	assert_int_equal(dev, 1);

	/* What CANN's hixl backend does not offer. */
	Cache c;
	assert_int_equal(dd.AllocateCache(d, c), LLM_FEATURE_NOT_ENABLED);
	assert_int_equal(dd.DeallocateCache(1), LLM_FEATURE_NOT_ENABLED);
	assert_int_equal(dd.CopyKvCache(c, c), LLM_FEATURE_NOT_ENABLED);
	assert_int_equal(dd.CopyKvBlocks(c, c, { 0 }, { { 0 } }),
			 LLM_FEATURE_NOT_ENABLED);
	dd.Finalize();
	dd.Finalize();
	fake_kernel_teardown();
}

void TestStatusValues(void **)
{
	/* The two headers agree, and with CANN's numbers. */
	static_assert(LLM_PARAM_INVALID == ge::LLM_PARAM_INVALID, "");
	static_assert(LLM_NOT_YET_LINK == ge::LLM_NOT_YET_LINK, "");
	static_assert(LLM_KV_CACHE_NOT_EXIST == ge::LLM_KV_CACHE_NOT_EXIST, "");
	static_assert(LLM_OUT_OF_MEMORY == ge::LLM_OUT_OF_MEMORY, "");
	static_assert(LLM_EXIST_LINK == 0x5010B018U, "");
	static_assert(LLM_FAILED == ge::FAILED, "");
	static_assert(ge::DT_BF16 == 27 && ge::DT_UNDEFINED == 28, "");
	static_assert(sizeof(LlmDataDist) == sizeof(void *), "");
	(void)0;
}

void TestLink(void **state)
{
	Pair *p = static_cast<Pair *>(*state);
	std::vector<Status> rets;
	ClusterInfo two_remotes = Cluster(0, g_port);

	assert_int_equal(Link(p->decoder, 0, g_port), LLM_SUCCESS);
	assert_int_equal(Link(p->decoder, 0, g_port), LLM_ALREADY_LINK);
	/* The same address as another cluster id: linked already. */
	assert_int_equal(Link(p->decoder, 7, g_port), LLM_ALREADY_LINK);
	two_remotes.remote_ip_infos.push_back(two_remotes.remote_ip_infos[0]);
	assert_int_equal(p->decoder.dd.LinkLlmClusters({ two_remotes }, rets),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.LinkLlmClusters({ Cluster(0, g_port) },
						       rets, 0),
			 LLM_PARAM_INVALID);
	/* Linked: the prompt's role cannot change under the decoder. */
	assert_int_equal(p->prompt.dd.SetRole(LlmRole::kDecoder),
			 LLM_EXIST_LINK);
	assert_int_equal(p->decoder.dd.SetRole(LlmRole::kPrompt),
			 LLM_EXIST_LINK);
	assert_int_equal(Unlink(p->decoder, 0, g_port), LLM_SUCCESS);
	assert_int_equal(Unlink(p->decoder, 0, g_port), LLM_NOT_YET_LINK);

	/* Nobody there: the link fails within its timeout. */
	assert_int_equal(Link(p->decoder, 3, g_port + 2, 200), LLM_LINK_FAILED);

	/* A plain engine is no LlmDataDist: it cannot say where caches are. */
	adxl_engine_t *e;
	std::string name = Addr(g_port + 3);

	assert_int_equal(adxl_engine_create(&e), ADXL_SUCCESS);
	if (adxl_initialize(e, name.c_str(), nullptr, 0) == ADXL_SUCCESS) {
		assert_int_equal(Link(p->decoder, 4, g_port + 3), LLM_LINK_FAILED);
		/* ... and the failed link is not left behind. */
		assert_int_equal(Unlink(p->decoder, 4, g_port + 3),
				 LLM_NOT_YET_LINK);
	}
	adxl_engine_destroy(e);
}

void TestPull(void **state)
{
	Pair *p = static_cast<Pair *>(*state);
	CacheIndex idx{};
	Cache dst;

	p->decoder.Register(false);	/* cache 2, all -1, after no link */
	assert_int_equal(p->decoder.cache_id, 2);
	assert_int_equal(Link(p->decoder, 0, g_port), LLM_SUCCESS);
	idx.cluster_id = 0;
	idx.cache_id = 1;
	dst.cache_id = p->decoder.cache_id;

	/* As decoder_pull_cache_and_blocks: blocks 1-3, then batch 0. */
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 1, 2, 3 },
						    { 1, 2, 3 }),
			 LLM_SUCCESS);
	assert_true(p->decoder.Has({ 1, 2, 3 }));
	assert_true(p->decoder.Untouched({ 1, 2, 3 }));
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 0), LLM_SUCCESS);
	assert_true(p->decoder.Has({ 0, 1, 2, 3 }));
	assert_true(p->decoder.Untouched({ 0, 1, 2, 3 }));

	/* Batch 6 of the prompt into batch 5, 8 bytes only, layer 1 only. */
	KvCacheExtParam layer1;
	layer1.src_layer_range = { 1, 1 };
	layer1.dst_layer_range = { 1, 1 };
	idx.batch_index = 6;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 5, 8, layer1),
			 LLM_SUCCESS);
	for (uint32_t t = 0; t < kTensors; t++) {
		bool moved = t == 2 || t == 3;

		assert_int_equal(p->decoder.buf[t][5 * kBlock],
				 moved ? 6 * kBlock : static_cast<size_t>(-1));
		assert_int_equal(p->decoder.buf[t][5 * kBlock + 1],
				 moved ? 6 * kBlock + 1 : static_cast<size_t>(-1));
		assert_int_equal(p->decoder.buf[t][5 * kBlock + 2], -1);
	}
	/* Blocks to other places: prompt block 7 into decoder block 4. */
	idx.batch_index = 0;
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 7 }, { 4 }),
			 LLM_SUCCESS);
	for (uint32_t t = 0; t < kTensors; t++)
		assert_int_equal(p->decoder.buf[t][4 * kBlock + 3], 7 * kBlock + 3);
}

void TestPullErrors(void **state)
{
	Pair *p = static_cast<Pair *>(*state);
	CacheIndex idx{};
	Cache dst;
	KvCacheExtParam uneven;

	idx.cache_id = 1;
	dst.cache_id = 1;
	/* Not linked yet. */
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst), LLM_NOT_YET_LINK);
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 1 }, { 1 }),
			 LLM_NOT_YET_LINK);
	assert_int_equal(Link(p->decoder, 0, g_port), LLM_SUCCESS);

	/* Unknown caches, either side. */
	idx.cache_id = 9;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst),
			 LLM_KV_CACHE_NOT_EXIST);
	idx.cache_id = 1;
	dst.cache_id = 9;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst),
			 LLM_KV_CACHE_NOT_EXIST);
	dst.cache_id = 1;
	/* A cluster id that names no link. */
	idx.cluster_id = 5;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst), LLM_NOT_YET_LINK);
	idx.cluster_id = 0;

	/* Bad arguments. */
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 8), LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 0, 0),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 0, 65),
			 LLM_PARAM_INVALID);
	uneven.src_layer_range = { 0, 1 };
	uneven.dst_layer_range = { 0, 0 };
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 0, -1, uneven),
			 LLM_PARAM_INVALID);
	uneven.src_layer_range = { 2, 2 };	/* layer 2 of 2-tensor layers */
	uneven.dst_layer_range = { 2, 2 };
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst, 0, -1, uneven),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 1, 2 }, { 1 }),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, {}, {}),
			 LLM_PARAM_INVALID);
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 8 }, { 1 }),
			 LLM_PARAM_INVALID);
	idx.batch_index = 1;
	assert_int_equal(p->decoder.dd.PullKvBlocks(idx, dst, { 1 }, { 1 }),
			 LLM_PARAM_INVALID);
	idx.batch_index = 0;
	assert_true(p->decoder.Untouched({}));

	/* A cache the prompt registered after the link is out of reach. */
	int32_t late[kElems];
	CacheDesc d{};
	int64_t late_id;

	d.placement = CachePlacement::kHost;
	d.num_tensors = 1;
	d.data_type = DT_INT32;
	d.shape = { 8, 16 };
	assert_int_equal(p->prompt.dd.RegisterKvCache(
				 d, { reinterpret_cast<uint64_t>(late) }, {},
				 late_id),
			 LLM_SUCCESS);
	idx.cache_id = late_id;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst),
			 LLM_KV_CACHE_NOT_EXIST);
	/* And one it unregistered is gone at once. */
	assert_int_equal(p->prompt.dd.UnregisterKvCache(1), LLM_SUCCESS);
	idx.cache_id = 1;
	assert_int_equal(p->decoder.dd.PullKvCache(idx, dst),
			 LLM_KV_CACHE_NOT_EXIST);
	assert_true(p->decoder.Untouched({}));
}

void TestPush(void **state)
{
	Pair *p = static_cast<Pair *>(*state);
	CacheIndex idx{};
	Cache src;

	/* As prompt_push_cache_and_blocks: the prompt links to the decoder. */
	assert_int_equal(Link(p->prompt, 1, g_port + 1), LLM_SUCCESS);
	src.cache_id = p->prompt.cache_id;
	idx.cluster_id = 1;
	idx.cache_id = 1;
	for (int32_t t = 0; t < static_cast<int32_t>(kTensors); t++) {
		KvCacheExtParam one;

		one.src_layer_range = { t, t };
		one.dst_layer_range = { t, t };
		one.tensor_num_per_layer = 1;
		assert_int_equal(p->prompt.dd.PushKvBlocks(src, idx, { 5, 6, 7 },
							   { 5, 6, 7 }, one),
				 LLM_SUCCESS);
		assert_true(p->decoder.Has({ 5, 6, 7 }, 0, t + 1));
	}
	assert_true(p->decoder.Untouched({ 5, 6, 7 }));
	KvCacheExtParam all4;
	all4.src_layer_range = { 0, 0 };
	all4.dst_layer_range = { 0, 0 };
	all4.tensor_num_per_layer = 4;
	idx.batch_index = 4;
	assert_int_equal(p->prompt.dd.PushKvCache(src, idx, 4, -1, all4),
			 LLM_SUCCESS);
	assert_true(p->decoder.Has({ 4, 5, 6, 7 }));
	assert_true(p->decoder.Untouched({ 4, 5, 6, 7 }));
	/* Default ranges: every layer; batch 0 to batch 2. */
	idx.batch_index = 2;
	assert_int_equal(p->prompt.dd.PushKvCache(src, idx, 0), LLM_SUCCESS);
	for (uint32_t t = 0; t < kTensors; t++)
		assert_int_equal(p->decoder.buf[t][2 * kBlock + 9], 9);

	/* Refused as CANN refuses them. */
	idx.batch_index = 0;
	assert_int_equal(p->prompt.dd.PushKvCache(src, idx, 0, 64),
			 LLM_PARAM_INVALID);
	Cache host = src;
	host.cache_desc.placement = CachePlacement::kHost;
	assert_int_equal(p->prompt.dd.PushKvCache(host, idx), LLM_PARAM_INVALID);
	idx.batch_index = 1;
	assert_int_equal(p->prompt.dd.PushKvBlocks(src, idx, { 1 }, { 1 }),
			 LLM_PARAM_INVALID);
	idx.batch_index = 0;
	idx.cache_id = 3;
	assert_int_equal(p->prompt.dd.PushKvBlocks(src, idx, { 1 }, { 1 }),
			 LLM_KV_CACHE_NOT_EXIST);
	idx.cluster_id = 0;
	assert_int_equal(p->prompt.dd.PushKvBlocks(src, idx, { 1 }, { 1 }),
			 LLM_NOT_YET_LINK);
}

/*
 * As the switch_roles examples: the decoder (a client) pulls from the
 * prompt, unlinks and becomes a server; the prompt becomes a client,
 * links to it and pushes.
 */
void TestSwitchRoles(void **)
{
	Side prompt(0, LlmRole::kPrompt), decoder(1, LlmRole::kDecoder);
	std::map<AscendString, AscendString> listen;
	CacheIndex idx{};
	Cache c;
	unsigned int port;
	int tries;

	assert_int_equal(fake_kernel_setup(), 0);
	fake_set_instance(0x42);
	for (tries = 0; tries < 50; tries++) {
		port = 20000 + static_cast<unsigned int>(rand()) % 40000;
		if (prompt.Init(port) == LLM_SUCCESS)
			break;
	}
	assert_true(tries < 50);
	assert_int_equal(decoder.Init(0), LLM_SUCCESS);
	assert_int_equal(prompt.Register(true), LLM_SUCCESS);
	assert_int_equal(decoder.Register(false), LLM_SUCCESS);

	assert_int_equal(Link(decoder, 0, port), LLM_SUCCESS);
	idx.cluster_id = 0;
	idx.cache_id = 1;
	c.cache_id = decoder.cache_id;
	assert_int_equal(decoder.dd.PullKvBlocks(idx, c, { 1, 2, 3 }, { 1, 2, 3 }),
			 LLM_SUCCESS);
	assert_int_equal(decoder.dd.PullKvCache(idx, c, 0), LLM_SUCCESS);
	assert_true(decoder.Has({ 0, 1, 2, 3 }));
	assert_int_equal(Unlink(decoder, 0, port), LLM_SUCCESS);

	/* The prompt hears the BYE on its listener thread: give it a moment. */
	for (tries = 0; tries < 200; tries++) {
		Status st = prompt.dd.SetRole(LlmRole::kDecoder);

		if (st != LLM_EXIST_LINK) {
			assert_int_equal(st, LLM_SUCCESS);
			break;
		}
		usleep(10000);
	}
	assert_true(tries < 200);
	listen[OPTION_LISTEN_IP_INFO] = Addr(port + 1).c_str();
	assert_int_equal(decoder.dd.SetRole(LlmRole::kPrompt, listen), LLM_SUCCESS);
	/* The old server is gone: nobody listens at port any more. */
	assert_int_equal(Link(decoder, 0, port, 200), LLM_LINK_FAILED);

	assert_int_equal(Link(prompt, 1, port + 1), LLM_SUCCESS);
	KvCacheExtParam all4;
	all4.src_layer_range = { 0, 0 };
	all4.dst_layer_range = { 0, 0 };
	all4.tensor_num_per_layer = 4;
	idx.cluster_id = 1;
	idx.cache_id = 1;
	idx.batch_index = 0;
	c.cache_id = prompt.cache_id;
	assert_int_equal(prompt.dd.PushKvBlocks(c, idx, { 5, 6, 7 }, { 5, 6, 7 }),
			 LLM_SUCCESS);
	idx.batch_index = 4;
	assert_int_equal(prompt.dd.PushKvCache(c, idx, 4, -1, all4), LLM_SUCCESS);
	assert_true(decoder.Has({ 0, 1, 2, 3, 4, 5, 6, 7 }));

	/* A bad listen address changes nothing. */
	listen[OPTION_LISTEN_IP_INFO] = "127.0.0.1:0";
	assert_int_equal(decoder.dd.SetRole(LlmRole::kPrompt, listen),
			 LLM_PARAM_INVALID);
	assert_int_equal(decoder.dd.SetRole(static_cast<LlmRole>(0)),
			 LLM_PARAM_INVALID);
	prompt.dd.Finalize();
	decoder.dd.Finalize();
	fake_kernel_teardown();
}

}  // namespace

int main(int argc, char **argv)
{
	const struct CMUnitTest pair_tests[] = {
		cmocka_unit_test_setup_teardown(TestRegister, Setup, Teardown),
		cmocka_unit_test_setup_teardown(TestLink, Setup, Teardown),
		cmocka_unit_test_setup_teardown(TestPull, Setup, Teardown),
		cmocka_unit_test_setup_teardown(TestPullErrors, Setup, Teardown),
		cmocka_unit_test_setup_teardown(TestPush, Setup, Teardown),
	};
	const struct CMUnitTest alone[] = {
		cmocka_unit_test(TestInitialize),
		cmocka_unit_test(TestStatusValues),
		cmocka_unit_test(TestSwitchRoles),
	};

	srand(static_cast<unsigned int>(time(nullptr)) ^
	      static_cast<unsigned int>(getpid()));
	/* test_llm_datadist GLOB: only the tests whose names match */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("llm_datadist: two instances on a fake module",
					   pair_tests, nullptr, nullptr) +
	       cmocka_run_group_tests_name("llm_datadist: alone", alone,
					   nullptr, nullptr);
}
