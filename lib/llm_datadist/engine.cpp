// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine under an LlmDataDist: made by Initialize, remade by SetRole
 * when the listen address changes, torn down by Finalize.  A server's
 * engine is named by OPTION_LISTEN_IP_INFO and listens there; a client's
 * has no port.  The engine answers peers' queries through Answer(), on
 * its listener thread.
 */
#include <cstdlib>
#include <cstring>

#include <acl/acl_rt.h>

#include "impl.h"

namespace llm_datadist {

using detail::Err;
using detail::FromAdxl;

namespace {
/* A client's engine: no port, so it listens nowhere; only a label. */
constexpr const char kClientName[] = "0.0.0.0";

bool RoleOk(LlmRole role)
{
	return role == LlmRole::kPrompt || role == LlmRole::kDecoder ||
	       role == LlmRole::kMix;
}

/* Bytes into a malloc()ed answer for the engine, which frees it. */
void Give(const std::vector<uint8_t> &b, void **ans, size_t *len)
{
	*ans = malloc(b.size());
	if (*ans) {
		memcpy(*ans, b.data(), b.size());
		*len = b.size();
	}
}
}  // namespace

LlmDataDist::LlmDataDistImpl::~LlmDataDistImpl()
{
	Finalize();
}

uint32_t LlmDataDist::LlmDataDistImpl::AnswerOrThrow(void *arg, const void *req,
						     size_t len, void **ans, size_t *ans_len)
{
	LlmDataDistImpl *self = static_cast<LlmDataDistImpl *>(arg);
	detail::Ask what;
	int64_t id;

	if (!detail::DecodeAsk(req, len, what, id))
		return detail::kAnswerBad;
	/* Only caches_mu_: the API lock may be held by a call waiting for us. */
	std::lock_guard<std::mutex> lock(self->caches_mu_);
	if (what == detail::Ask::kWho) {
		detail::Who who;

		who.cluster_id = self->cluster_id_;
		who.role = static_cast<int32_t>(self->role_);
		who.reg_seq = self->reg_seq_;
		Give(detail::EncodeWho(who), ans, ans_len);
		return *ans ? detail::kAnswerOk : detail::kAnswerBad;
	}
	auto it = self->caches_.find(id);

	if (it == self->caches_.end())
		return detail::kAnswerNoCache;
	Give(detail::EncodeCache(it->second.g), ans, ans_len);
	return *ans ? detail::kAnswerOk : detail::kAnswerBad;
}

/*
 * The engine's listener thread (C) calls this: nothing may be thrown
 * through it (std::bad_alloc of the answer's vectors would terminate the
 * process), so a failure is a bad answer.
 */
uint32_t LlmDataDist::LlmDataDistImpl::Answer(void *arg, const void *req, size_t len,
					      void **ans, size_t *ans_len) noexcept
{
	try {
		return AnswerOrThrow(arg, req, len, ans, ans_len);
	} catch (...) {
		return detail::kAnswerBad;
	}
}

Status LlmDataDist::LlmDataDistImpl::StartEngine(
						 const std::string &name, adxl_engine_t *&engine,
						 std::map<int64_t, std::vector<adxl_mem_handle_t>> &handles)
{
	std::vector<adxl_option> opts;
	adxl_status_t st;

	engine = nullptr;
	handles.clear();
	if (adxl_engine_create(&engine)) {
		Err("out of memory for an engine");
		return LLM_FAILED;
	}
	for (const auto &kv : opts_.engine_options)
		opts.push_back(adxl_option{ kv.first.c_str(), kv.second.c_str() });
	adxl__set_query_handler(engine, Answer, this);
	st = adxl_initialize(engine, name.c_str(), opts.data(), opts.size());
	if (st) {
		Err("the engine %s did not start: %s", name.c_str(),
		    adxl_last_error());
		adxl_engine_destroy(engine);
		engine = nullptr;
		return FromAdxl(st);
	}
	/* A new engine has none of the caches yet: register them again. */
	for (auto &kv : caches_) {
		Status s = RegisterTensors(engine, kv.second.g,
					   handles[kv.first]);

		if (s != LLM_SUCCESS) {
			adxl_engine_destroy(engine);	/* drops them all */
			engine = nullptr;
			handles.clear();
			return s;
		}
	}
	return LLM_SUCCESS;
}

Status LlmDataDist::LlmDataDistImpl::Initialize(const detail::OptionMap &options)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::map<int64_t, std::vector<adxl_mem_handle_t>> none;
	Status st;

	/* CANN: a second Initialize is a success that changes nothing. */
	if (initialized_)
		return LLM_SUCCESS;
	if (!RoleOk(role_)) {
		Err("Initialize: role %d is not Prompt, Decoder or Mix",
		    static_cast<int>(role_));
		return LLM_PARAM_INVALID;
	}
	st = detail::ParseOptions(options, opts_);
	if (st != LLM_SUCCESS)
		return st;
	/*
	 * As CANN's: the calling thread works on OPTION_DEVICE_ID from now
	 * on (its default context), so that the program's aclrtMalloc of
	 * the caches finds a device; Finalize resets it.
	 */
	if (aclrtSetDevice(opts_.device_id) != ACL_SUCCESS) {
		Err("Initialize: aclrtSetDevice(%d): %s", opts_.device_id,
		    aclGetRecentErrMsg());
		return LLM_FAILED;
	}
	name_ = opts_.listen.empty() ? kClientName : opts_.listen;
	st = StartEngine(name_, engine_, none);
	if (st != LLM_SUCCESS) {
		(void)aclrtResetDevice(opts_.device_id);
		return st;
	}
	initialized_ = true;
	return LLM_SUCCESS;
}

void LlmDataDist::LlmDataDistImpl::Finalize()
{
	std::lock_guard<std::mutex> api(api_mu_);

	if (!initialized_)
		return;
	/*
	 * The engine says goodbye to each peer, stops its listener (no more
	 * Answer() calls) and drops every registration.
	 */
	adxl_engine_destroy(engine_);
	engine_ = nullptr;
	peers_.clear();
	{
		std::lock_guard<std::mutex> lock(caches_mu_);

		caches_.clear();
	}
	(void)aclrtResetDevice(opts_.device_id);
	initialized_ = false;
}

Status LlmDataDist::LlmDataDistImpl::SetRole(LlmRole role,
					     const detail::OptionMap &options)
{
	std::lock_guard<std::mutex> api(api_mu_);
	std::map<int64_t, std::vector<adxl_mem_handle_t>> handles;
	std::string name = kClientName;
	adxl_engine_t *engine;
	Status st;

	if (!initialized_) {
		Err("SetRole: not initialized");
		return LLM_FAILED;
	}
	if (!RoleOk(role)) {
		Err("SetRole: role %d is not Prompt, Decoder or Mix",
		    static_cast<int>(role));
		return LLM_PARAM_INVALID;
	}
	auto it = options.find(OPTION_LISTEN_IP_INFO);

	if (it != options.end()) {
		st = detail::ListenName(it->second, name);
		if (st != LLM_SUCCESS)
			return st;
	}
	/* Links of ours, or peers' links to us: unlink first (CANN's rule). */
	if (!peers_.empty() || adxl__served_links(engine_)) {
		Err("SetRole: %zu link(s) of ours and %zu of peers to us remain: unlink first",
		    peers_.size(), adxl__served_links(engine_));
		return LLM_EXIST_LINK;
	}
	if (name != name_) {
		/*
		 * Listening somewhere else (or no longer) is another engine
		 * name: a new engine with the caches, then the old one goes.
		 * On failure the old one stays as it was.
		 */
		st = StartEngine(name, engine, handles);
		if (st != LLM_SUCCESS)
			return st;
		adxl_engine_destroy(engine_);
		engine_ = engine;
		name_ = name;
		std::lock_guard<std::mutex> lock(caches_mu_);
		for (auto &kv : caches_)
			kv.second.handles = std::move(handles[kv.first]);
	}
	std::lock_guard<std::mutex> lock(caches_mu_);
	role_ = role;
	return LLM_SUCCESS;
}

}  // namespace llm_datadist
