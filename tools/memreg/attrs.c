// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's view of memreg netlink attributes.
 */
#include <stdio.h>

#include <netlink/genl/genl.h>

#include "attrs.h"
#include "comm.h"
#include "fmt.h"

/*
 * Sizes as the UAPI header documents them.  libnl checks minimum lengths
 * (and the terminating NUL of strings), so the getters below never read
 * past an attribute.
 */
static struct nla_policy memreg_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]			= { .type = NLA_U32 },
	[MEMREG_A_COMM]			= { .type = NLA_STRING },
	[MEMREG_A_UID]			= { .type = NLA_U32 },
	[MEMREG_A_PROCS]		= { .type = NLA_U64 },
	[MEMREG_A_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_A_HOST_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_DEV_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_PEAK_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_A_PEAK_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_PEAK_DEV_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_A_MAX_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_DEV_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_HANDLE]		= { .type = NLA_U64 },
	[MEMREG_A_TYPE]			= { .type = NLA_U32 },
	[MEMREG_A_ADDR]			= { .type = NLA_U64 },
	[MEMREG_A_LEN]			= { .type = NLA_U64 },
	[MEMREG_A_PINNED_PAGES]		= { .type = NLA_U64 },
	[MEMREG_A_AGE_MS]		= { .type = NLA_U64 },
	[MEMREG_A_ACCESS]		= { .type = NLA_U32 },
	[MEMREG_A_REFUSED_REGIONS]	= { .type = NLA_U64 },
	[MEMREG_A_REFUSED_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_REFUSED_DEV_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_REFUSED_MEMLOCK]	= { .type = NLA_U64 },
	[MEMREG_A_REASON]		= { .type = NLA_U32 },
	[MEMREG_A_PINNED_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_INSTANCE_ID]		= { .type = NLA_UNSPEC, .minlen = 16 },
	[MEMREG_A_ID]			= { .type = NLA_U32 },
};

int attrs_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	return genlmsg_parse(nlh, 0, tb, MEMREG_A_MAX, memreg_policy);
}

const char *attrs_mem_type_name(uint32_t type)
{
	switch (type) {
	case MEMREG_MEM_HOST:
		return "host";
	case MEMREG_MEM_DEVICE:
		return "device";
	}
	return NULL;
}

const char *attrs_refusal_name(uint32_t reason)
{
	switch (reason) {
	case MEMREG_REFUSED_REGIONS:
		return "regions";
	case MEMREG_REFUSED_HOST_BYTES:
		return "host_bytes";
	case MEMREG_REFUSED_DEV_BYTES:
		return "dev_bytes";
	case MEMREG_REFUSED_MEMLOCK:
		return "memlock";
	}
	return NULL;
}

const char *attrs_event_name(uint8_t cmd)
{
	switch (cmd) {
	case MEMREG_CMD_EVENT_REG_ADDED:
		return "REG_ADDED";
	case MEMREG_CMD_EVENT_REG_REMOVED:
		return "REG_REMOVED";
	case MEMREG_CMD_EVENT_LIMIT_REFUSED:
		return "LIMIT_REFUSED";
	case MEMREG_CMD_EVENT_PROC_GONE:
		return "PROC_GONE";
	}
	return NULL;
}

const char *attrs_comm(struct nlattr **tb, char *buf, size_t len,
		       bool proc_fallback)
{
	if (tb[MEMREG_A_COMM])
		return nla_get_string(tb[MEMREG_A_COMM]);
	if (proc_fallback && tb[MEMREG_A_PID] &&
	    comm_from_proc(nla_get_u32(tb[MEMREG_A_PID]), buf, len))
		return buf;
	return NULL;
}

void out_attr_u32(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_u64(o, key, nla_get_u32(a));
	else
		out_absent(o, key);
}

void out_attr_u64(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_u64(o, key, nla_get_u64(a));
	else
		out_absent(o, key);
}

void out_attr_count(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_count(o, key, nla_get_u64(a));
	else
		out_absent(o, key);
}

void out_attr_size(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_size(o, key, nla_get_u64(a));
	else
		out_absent(o, key);
}

void out_attr_hex(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_hex(o, key, nla_get_u64(a));
	else
		out_absent(o, key);
}

void out_attr_age(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_age(o, key, nla_get_u64(a));
	else
		out_absent(o, key);
}

void out_attr_mem_type(struct out *o, const char *key,
		       const struct nlattr *a)
{
	char buf[FMT_BUF_LEN];
	const char *name;
	uint32_t type;

	if (!a) {
		out_absent(o, key);
		return;
	}
	type = nla_get_u32(a);
	name = attrs_mem_type_name(type);
	if (!name) {
		/* a type from a newer kernel: still say which */
		snprintf(buf, sizeof(buf), "type%u", type);
		name = buf;
	}
	out_string(o, key, name);
}

void out_attr_json_u64(struct out *o, const char *key,
		       const struct nlattr *a)
{
	if (a)
		out_json_u64(o, key, nla_get_u64(a));
}
