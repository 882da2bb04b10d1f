// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Initialize's and SetRole's options, checked as CANN documents them.
 * The listen address becomes the engine's name: "ip:port" makes the
 * engine listen, as OPTION_LISTEN_IP_INFO makes LLM-DataDist a server.
 */
#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>

#include "impl.h"

namespace llm_datadist {
namespace detail {
namespace {

/* A decimal integer in [lo, hi], the whole string. */
bool ParseInt(const std::string &s, long lo, long hi, long &out)
{
	char *end = nullptr;

	if (s.empty() || s[0] == '+' || s[0] == ' ')
		return false;
	errno = 0;
	out = strtol(s.c_str(), &end, 10);
	return !errno && *end == '\0' && out >= lo && out <= hi;
}

/* The engine name of a literal address and a port; "" if not one. */
std::string EngineName(const std::string &ip, long port)
{
	unsigned char buf[16];

	if (port < 1 || port > 65535)
		return "";
	if (inet_pton(AF_INET, ip.c_str(), buf) == 1)
		return ip + ":" + std::to_string(port);
	if (inet_pton(AF_INET6, ip.c_str(), buf) == 1)
		return "[" + ip + "]:" + std::to_string(port);
	return "";
}

}  // namespace

Status ListenName(const std::string &value, std::string &name)
{
	size_t colon = value.rfind(':');
	std::string ip;
	long port;

	if (colon == std::string::npos ||
	    !ParseInt(value.substr(colon + 1), 1, 65535, port)) {
		Err("%s=\"%s\": not \"ip:port\"", OPTION_LISTEN_IP_INFO,
		    value.c_str());
		return LLM_PARAM_INVALID;
	}
	ip = value.substr(0, colon);
	/* "[v6]:port" as well as CANN's bare "v6:port". */
	if (ip.size() > 2 && ip.front() == '[' && ip.back() == ']')
		ip = ip.substr(1, ip.size() - 2);
	name = EngineName(ip, port);
	if (name.empty()) {
		Err("%s=\"%s\": the IP must be a literal address",
		    OPTION_LISTEN_IP_INFO, value.c_str());
		return LLM_PARAM_INVALID;
	}
	return LLM_SUCCESS;
}

std::string PeerName(const char *ip, uint16_t port)
{
	return ip ? EngineName(ip, port) : "";
}

Status ParseOptions(const OptionMap &options, Options &out)
{
	out = Options();
	for (const auto &kv : options) {
		const std::string &key = kv.first, &value = kv.second;
		long v;

		if (key == OPTION_DEVICE_ID) {
			/* One device per process: "0", not "0;1". */
			if (!ParseInt(value, 0, INT32_MAX, v)) {
				Err("%s=\"%s\": not a device id",
				    OPTION_DEVICE_ID, value.c_str());
				return LLM_PARAM_INVALID;
			}
			out.device_id = static_cast<int32_t>(v);
		} else if (key == OPTION_LISTEN_IP_INFO) {
			Status st = ListenName(value, out.listen);

			if (st != LLM_SUCCESS)
				return st;
		} else if (key == OPTION_SYNC_CACHE_WAIT_TIME) {
			if (!ParseInt(value, 1, INT32_MAX, v)) {
				Err("%s=\"%s\": not a time in ms above 0",
				    OPTION_SYNC_CACHE_WAIT_TIME, value.c_str());
				return LLM_PARAM_INVALID;
			}
			out.wait_ms = static_cast<int32_t>(v);
		} else if (key == OPTION_TRANSFER_BACKEND) {
			/* The engine is hixl's successor: "hixl" is what it is. */
			if (value != "hixl") {
				Err("%s=\"%s\": the only backend is \"hixl\"",
				    OPTION_TRANSFER_BACKEND, value.c_str());
				return LLM_PARAM_INVALID;
			}
		} else if (key == OPTION_LOCAL_COMM_RES) {
			out.engine_options["LocalCommRes"] = value;
		} else if (key == OPTION_GLOBAL_RESOURCE_CONFIG) {
			out.engine_options["GlobalResourceConfig"] = value;
		}
		/*
		 * BufPoolCfg (a staging pool), EnableSwitchRole (SetRole works
		 * without it) and keys of other releases: nothing to do.
		 */
	}
	if (out.device_id < 0) {
		Err("%s is required", OPTION_DEVICE_ID);
		return LLM_PARAM_INVALID;
	}
	return LLM_SUCCESS;
}

}  // namespace detail
}  // namespace llm_datadist
