// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The entry points libllm_datadist.so had before its class was CANN's.
 * memreg's header then made Initialize, SetRole, LinkLlmClusters and
 * UnlinkLlmClusters inline: they read the AscendStrings in the program
 * (AscendString was inline too) and passed plain pointers to four private
 * methods, InitializeWith, SetRoleWith, LinkWith and UnlinkWith, which
 * programs built against that header call.  Those symbols stay, under
 * their names and node (LLM_DATADIST_1.0), so that such programs keep
 * running: the header no longer declares the methods, so each is a
 * function given the method's mangled name (an asm label) that takes the
 * object first, as the Itanium C++ ABI passes `this`, and calls the
 * public method it stood for.  No new program can call them.
 */
#include <algorithm>

#include "impl.h"

namespace llm_datadist {
namespace detail {
/*
 * LlmDataDist::Option of the old header.  Not in an anonymous namespace:
 * the functions below, which take it, must keep external linkage.
 */
struct OldOption {
	const char *key;
	const char *value;
};
}  // namespace detail

using detail::OldOption;

namespace {
std::map<AscendString, AscendString> Options(const OldOption *o, size_t n)
{
	std::map<AscendString, AscendString> m;

	for (size_t i = 0; i < n; i++)
		if (o[i].key && o[i].value)
			m[AscendString(o[i].key)] = AscendString(o[i].value);
	return m;
}

/*
 * The ClusterInfos the old header read LlmDataDist::Remote (the layout of
 * detail::Remote) from: the first remote IpInfo and as many IpInfos of
 * each kind, which is all the links look at.
 */
std::vector<ClusterInfo> Clusters(const detail::Remote *r, size_t n)
{
	std::vector<ClusterInfo> v(n);

	for (size_t i = 0; i < n; i++) {
		v[i].remote_cluster_id = r[i].cluster_id;
		v[i].remote_ip_infos.resize(r[i].n_remote);
		v[i].local_ip_infos.resize(r[i].n_local);
		if (r[i].n_remote && r[i].ip) {
			v[i].remote_ip_infos[0].ip = AscendString(r[i].ip);
			v[i].remote_ip_infos[0].port = r[i].port;
		}
	}
	return v;
}

}  // namespace

#define OLD_METHOD(mangled) \
	__asm__(mangled) __attribute__((visibility("default")))

/* LlmDataDist::InitializeWith(Option const *, size_t) */
Status OldInitializeWith(LlmDataDist *self, const OldOption *options,
			 size_t n)
	OLD_METHOD("_ZN12llm_datadist11LlmDataDist14InitializeWithEPKNS0_6OptionEm");
/* LlmDataDist::SetRoleWith(LlmRole, Option const *, size_t) */
Status OldSetRoleWith(LlmDataDist *self, LlmRole role,
		      const OldOption *options, size_t n)
	OLD_METHOD("_ZN12llm_datadist11LlmDataDist11SetRoleWithENS_7LlmRoleEPKNS0_6OptionEm");
/* LlmDataDist::LinkWith(Remote const *, size_t, Status *, int32_t) */
Status OldLinkWith(LlmDataDist *self, const detail::Remote *clusters,
		   size_t n, Status *rets, int32_t timeout_in_millis)
	OLD_METHOD("_ZN12llm_datadist11LlmDataDist8LinkWithEPKNS0_6RemoteEmPji");
/* LlmDataDist::UnlinkWith(Remote const *, size_t, Status *, int32_t, bool) */
Status OldUnlinkWith(LlmDataDist *self, const detail::Remote *clusters,
		     size_t n, Status *rets, int32_t timeout_in_millis,
		     bool force_flag)
	OLD_METHOD("_ZN12llm_datadist11LlmDataDist10UnlinkWithEPKNS0_6RemoteEmPjib");

Status OldInitializeWith(LlmDataDist *self, const OldOption *options, size_t n)
{
	return self->Initialize(Options(options, n));
}

Status OldSetRoleWith(LlmDataDist *self, LlmRole role,
		      const OldOption *options, size_t n)
{
	return self->SetRole(role, Options(options, n));
}

/* The old inline caller made @rets hold one status per cluster. */
Status OldLinkWith(LlmDataDist *self, const detail::Remote *clusters,
		   size_t n, Status *rets, int32_t timeout_in_millis)
{
	std::vector<Status> v;
	Status st = self->LinkLlmClusters(Clusters(clusters, n), v,
					  timeout_in_millis);

	std::copy(v.begin(), v.end(), rets);
	return st;
}

Status OldUnlinkWith(LlmDataDist *self, const detail::Remote *clusters,
		     size_t n, Status *rets, int32_t timeout_in_millis,
		     bool force_flag)
{
	std::vector<Status> v;
	Status st = self->UnlinkLlmClusters(Clusters(clusters, n), v,
					    timeout_in_millis, force_flag);

	std::copy(v.begin(), v.end(), rets);
	return st;
}

}  // namespace llm_datadist
