// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * LlmDataDist from a program built as hixl's examples build theirs:
 * -D_GLIBCXX_USE_CXX11_ABI=0 (libstdc++'s old std::string), C++11, every
 * warning, linked with the shipped libllm_datadist (built with the new one).
 * The strings of the options and ClusterInfos must arrive intact: a bad
 * option is refused for what it is, and good ones get as far as the
 * module (absent here: LLM_FAILED, not LLM_PARAM_INVALID).
 */
#include <cstdio>
#include <llm_datadist/llm_datadist.h>

using namespace llm_datadist;

/*
 * The entry points programs built against memreg's header before 1.1.0's
 * last change call (its inline Initialize and LinkLlmClusters did):
 * lib/llm_datadist/compat.cpp keeps them.
 */
struct OldOption {
	const char *key;
	const char *value;
};
struct OldRemote {
	uint64_t cluster_id;
	const char *ip;
	uint16_t port;
	uint32_t n_remote;
	uint32_t n_local;
};
Status OldInitializeWith(LlmDataDist *self, const OldOption *o, size_t n)
	__asm__("_ZN12llm_datadist11LlmDataDist14InitializeWithEPKNS0_6OptionEm");
Status OldLinkWith(LlmDataDist *self, const OldRemote *c, size_t n,
		   Status *rets, int32_t timeout)
	__asm__("_ZN12llm_datadist11LlmDataDist8LinkWithEPKNS0_6RemoteEmPji");

static int failures;

static void Expect(const char *what, Status got, Status want)
{
	bool ok = got == want;

	printf("%sok - old ABI: %s (0x%x)\n", ok ? "" : "not ", what, got);
	failures += !ok;
}

int main()
{
	static_assert(_GLIBCXX_USE_CXX11_ABI == 0, "built with the old ABI");
	LlmDataDist dd(0, LlmRole::kPrompt);
	std::map<AscendString, AscendString> o;
	std::vector<Status> rets;
	ClusterInfo c;
	IpInfo ip;

	o[OPTION_DEVICE_ID] = "0";
	o[OPTION_LISTEN_IP_INFO] = "127.0.0.1:notaport";
	Expect("a bad listen address is PARAM_INVALID", dd.Initialize(o),
	       LLM_PARAM_INVALID);
	o[OPTION_LISTEN_IP_INFO] = "127.0.0.1:26000";
	o[OPTION_TRANSFER_BACKEND] = "nccl";
	Expect("a bad backend is PARAM_INVALID", dd.Initialize(o),
	       LLM_PARAM_INVALID);
	o[OPTION_TRANSFER_BACKEND] = "hixl";
	Expect("good options reach the engine (no module: FAILED)",
	       dd.Initialize(o), LLM_FAILED);
	ip.ip = "127.0.0.1";
	ip.port = 26001;
	c.remote_ip_infos.push_back(ip);
	Expect("LinkLlmClusters uninitialized is FAILED",
	       dd.LinkLlmClusters({ c }, rets), LLM_FAILED);
	Expect("... with one status per cluster", rets.size() == 1 ? 0 : 1, 0);

	const OldOption old_opts[] = { { OPTION_DEVICE_ID, "0" },
				       { OPTION_LISTEN_IP_INFO, "127.0.0.1:x" } };
	const OldRemote old_remote = { 7, "127.0.0.1", 26001, 1, 0 };
	Status old_ret = 0xdead;

	Expect("the old InitializeWith: a bad listen address is PARAM_INVALID",
	       OldInitializeWith(&dd, old_opts, 2), LLM_PARAM_INVALID);
	Expect("the old LinkWith uninitialized is FAILED",
	       OldLinkWith(&dd, &old_remote, 1, &old_ret, 1000), LLM_FAILED);
	Expect("... its status LLM_SUCCESS, as its caller set it", old_ret,
	       LLM_SUCCESS);
	dd.Finalize();
	return failures;
}
