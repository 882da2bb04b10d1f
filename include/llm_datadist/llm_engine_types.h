/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The role names and option keys of CANN's llm_datadist/llm_engine_types.h
 * (namespace llm), for programs that name them.  LlmDataDist takes its own
 * keys (llm_datadist.h); these are the same strings.
 */
#ifndef MEMREG_LLM_DATADIST_LLM_ENGINE_TYPES_H
#define MEMREG_LLM_DATADIST_LLM_ENGINE_TYPES_H

namespace llm {
constexpr const char kPrompt[] = "Prompt";
constexpr const char kDecoder[] = "Decoder";

constexpr const char LLM_OPTION_CLUSTER_INFO[] = "llm.ClusterInfo";
constexpr const char LLM_OPTION_ROLE[] = "llm.Role";
constexpr const char LLM_OPTION_SYNC_KV_CACHE_WAIT_TIME[] = "llm.SyncKvCacheWaitTime";
constexpr const char LLM_OPTION_OUTPUT_MAX_SIZE[] = "llm.OutputMaxSize";
constexpr const char LLM_OPTION_ENABLE_SWITCH_ROLE[] = "llm.EnableSwitchRole";
constexpr const char LLM_OPTION_BUF_POOL_CFG[] = "llm.BufPoolCfg";
}  // namespace llm

#endif /* MEMREG_LLM_DATADIST_LLM_ENGINE_TYPES_H */
