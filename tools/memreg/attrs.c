// SPDX-License-Identifier: GPL-2.0
/*
 * The tool's view of memreg netlink attributes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
	[MEMREG_A_DEVICES]		= { .type = NLA_U32 },
	[MEMREG_A_DEVICE]		= { .type = NLA_U32 },
	[MEMREG_A_CAPACITY]		= { .type = NLA_U64 },
	[MEMREG_A_USED_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_HUGE_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_NORMAL_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_RAM_RESERVE]		= { .type = NLA_U64 },
	[MEMREG_A_RAM_AVAILABLE]	= { .type = NLA_U64 },
	[MEMREG_A_DEV_ALLOC_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_DEV_USAGE]		= { .type = NLA_NESTED },
	[MEMREG_A_HEAP]			= { .type = NLA_NESTED },
	[MEMREG_A_GRANTS]		= { .type = NLA_U32 },
	[MEMREG_A_IMPORTS]		= { .type = NLA_U32 },
	[MEMREG_A_XFER_DESCS]		= { .type = NLA_U64 },
	[MEMREG_A_XFER_READ_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_XFER_WRITE_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_DMABUF_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_PEAK_DMABUF_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_EXPORTER]		= { .type = NLA_STRING },
	[MEMREG_A_DMABUF_SIZE]		= { .type = NLA_U64 },
	[MEMREG_A_DMABUF_INO]		= { .type = NLA_U64 },
	[MEMREG_A_REVOKED]		= { .type = NLA_FLAG },
	[MEMREG_A_NO_CPU_ACCESS]	= { .type = NLA_FLAG },
	[MEMREG_A_MAX_IPC_NAMES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_IPC_PIDS]		= { .type = NLA_U64 },
	[MEMREG_A_MAX_USER_FILES]	= { .type = NLA_U64 },
	[MEMREG_A_IPC_IMPORT_FAILED]	= { .type = NLA_U64 },
	[MEMREG_A_IPC_IMPORT_THROTTLED]	= { .type = NLA_U64 },
	[MEMREG_A_IPC_NAMES]		= { .type = NLA_U64 },
	[MEMREG_A_CGROUP_DIR]		= { .type = NLA_STRING },
	[MEMREG_A_CGROUP]		= { .type = NLA_STRING },
	[MEMREG_A_CGROUP_ID]		= { .type = NLA_U64 },
	[MEMREG_A_MAX_DMABUF_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_REFUSED_CGROUP]	= { .type = NLA_U64 },
	[MEMREG_A_CGROUPS]		= { .type = NLA_U64 },
	[MEMREG_A_ROOM]			= { .type = NLA_NESTED },
	[MEMREG_A_ROOM_KIND]		= { .type = NLA_U32 },
	[MEMREG_A_ROOM_BYTES]		= { .type = NLA_U64 },
	[MEMREG_A_ROOM_BY]		= { .type = NLA_U32 },
	[MEMREG_A_ROOM_LIMIT]		= { .type = NLA_U64 },
	[MEMREG_A_ROOM_USED]		= { .type = NLA_U64 },
	[MEMREG_A_INCARNATION]		= { .type = NLA_U64 },
	[MEMREG_A_PARENT]		= { .type = NLA_U32 },
};

/*
 * libnl's minimum payload for a policy entry, of the types used here;
 * NLA_STRING also wants its last byte to be the NUL.
 */
static int attrs_minlen(const struct nla_policy *pt)
{
	if (pt->minlen)
		return pt->minlen;
	switch (pt->type) {
	case NLA_U32:
		return sizeof(uint32_t);
	case NLA_U64:
		return sizeof(uint64_t);
	case NLA_STRING:
		return 1;
	}
	return 0;
}

static struct nla_policy heap_policy[MEMREG_HEAP_A_MAX + 1] = {
	[MEMREG_HEAP_A_ID]		= { .type = NLA_U32 },
	[MEMREG_HEAP_A_DOMAIN]		= { .type = NLA_STRING },
	[MEMREG_HEAP_A_DEVICE]		= { .type = NLA_U32 },
	[MEMREG_HEAP_A_ADDR]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_SIZE]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_REGION_BYTES]	= { .type = NLA_U64 },
	[MEMREG_HEAP_A_PEAK_REGIONS]	= { .type = NLA_U64 },
	[MEMREG_HEAP_A_PEAK_BYTES]	= { .type = NLA_U64 },
	[MEMREG_HEAP_A_UTIL]		= { .type = NLA_U32 },
	[MEMREG_HEAP_A_OUT_OF_HEAP]	= { .type = NLA_U64 },
	[MEMREG_HEAP_A_UNKNOWN]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_DROPPED]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_DUPLICATE]	= { .type = NLA_U64 },
	[MEMREG_HEAP_A_REFUSED]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_AGE_MS]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_EVENT]		= { .type = NLA_U32 },
	[MEMREG_HEAP_A_COUNT]		= { .type = NLA_U64 },
	[MEMREG_HEAP_A_BYTES]		= { .type = NLA_U64 },
};

/*
 * A policy boiled down to what the parser looks at per attribute: the
 * payload's bounds, and whether it is a string that must end in its NUL.
 */
struct attrs_check {
	uint16_t minlen;
	uint16_t maxlen;	/* 0: none */
	bool string;
};

static struct attrs_check memreg_checks[MEMREG_A_MAX + 1];
static struct attrs_check heap_checks[MEMREG_HEAP_A_MAX + 1];

static void attrs_checks_init(struct attrs_check *c,
			      const struct nla_policy *policy, int maxtype)
{
	int i;

	for (i = 0; i <= maxtype; i++) {
		c[i].minlen = attrs_minlen(&policy[i]);
		c[i].maxlen = policy[i].maxlen;
		c[i].string = policy[i].type == NLA_STRING;
	}
}

static void attrs_init(void)
{
	static bool done;

	if (done)
		return;
	attrs_checks_init(memreg_checks, memreg_policy, MEMREG_A_MAX);
	attrs_checks_init(heap_checks, heap_policy, MEMREG_HEAP_A_MAX);
	done = true;
}

/*
 * nla_parse() with the same checks as libnl's (validate_nla() of libnl
 * 3.x, for the policy types used above): minimum lengths, strings ending
 * in their NUL, attributes past @maxtype ignored, the last of a repeated
 * attribute kept.  It is here because a listing parses 100,000 messages
 * and libnl's version, a call per attribute and per check into the shared
 * library, cost as much as formatting the row.  Inlined into each caller,
 * so that clearing @tb is a memset of known size.
 */
static __always_inline int
attrs_parse_stream(struct nlattr **tb, int maxtype,
		   const struct attrs_check *checks, const void *head, int len)
{
	const struct nlattr *a = head;
	const struct attrs_check *c;
	int type, alen;

	memset(tb, 0, sizeof(*tb) * (maxtype + 1));
	while (len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	       a->nla_len <= len) {
		type = a->nla_type & NLA_TYPE_MASK;
		if (type <= maxtype) {
			c = &checks[type];
			alen = a->nla_len - NLA_HDRLEN;
			if (alen < c->minlen || (c->maxlen && alen > c->maxlen))
				return -NLE_RANGE;
			if (c->string &&
			    ((const char *)a)[NLA_HDRLEN + alen - 1])
				return -NLE_INVAL;
			tb[type] = (struct nlattr *)a;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a +
					    NLA_ALIGN(a->nla_len));
	}
	return 0;
}

int attrs_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	const char *attrs = (const char *)nlh + NLMSG_HDRLEN + GENL_HDRLEN;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -NLE_MSG_TOOSHORT;
	attrs_init();
	return attrs_parse_stream(tb, MEMREG_A_MAX, memreg_checks, attrs,
				  nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
}

int attrs_parse_nested(const struct nlattr *nest, struct nlattr **tb)
{
	attrs_init();
	return attrs_parse_stream(tb, MEMREG_A_MAX, memreg_checks,
				  nla_data(nest), nla_len(nest));
}

int attrs_parse_heap(const struct nlattr *nest, struct nlattr **tb)
{
	attrs_init();
	return attrs_parse_stream(tb, MEMREG_HEAP_A_MAX, heap_checks,
				  nla_data(nest), nla_len(nest));
}

int attrs_check_dev_usage(struct nlmsghdr *nlh, int who)
{
	struct nlattr *ub[MEMREG_A_MAX + 1];
	struct nlattr *a;
	int rem;

	nlmsg_for_each_attr(a, nlh, GENL_HDRLEN, rem) {
		if (nla_type(a) != MEMREG_A_DEV_USAGE)
			continue;
		if (attrs_parse_nested(a, ub) < 0 || !ub[who] ||
		    !ub[MEMREG_A_DEV_ALLOC_BYTES])
			return -EBADMSG;
	}
	return 0;
}

const char *attrs_heap_event_name(uint32_t ev)
{
	switch (ev) {
	case MEMREG_HEAP_EV_ADDED:
		return "added";
	case MEMREG_HEAP_EV_REMOVED:
		return "removed";
	case MEMREG_HEAP_EV_OUT_OF_HEAP:
		return "out_of_heap";
	case MEMREG_HEAP_EV_UNKNOWN:
		return "unknown";
	case MEMREG_HEAP_EV_DROPPED:
		return "dropped";
	case MEMREG_HEAP_EV_DUPLICATE:
		return "duplicate";
	case MEMREG_HEAP_EV_REFUSED:
		return "refused";
	}
	return NULL;
}

const char *attrs_mem_type_name(uint32_t type)
{
	switch (type) {
	case MEMREG_MEM_HOST:
		return "host";
	case MEMREG_MEM_DEVICE:
		return "device";
	case MEMREG_MEM_DMABUF:
		return "dmabuf";
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
	case MEMREG_REFUSED_CGROUP:
		return "cgroup";
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
	case MEMREG_CMD_EVENT_HEAP:
		return "HEAP";
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

/* nla_get_u32/u64 without a call into libnl: a listing's every field */
static inline uint32_t attr_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline uint64_t attr_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

void out_attr_u32(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_u64(o, key, attr_u32(a));
	else
		out_absent(o, key);
}

void out_attr_u64(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_u64(o, key, attr_u64(a));
	else
		out_absent(o, key);
}

void out_attr_count(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_count(o, key, attr_u64(a));
	else
		out_absent(o, key);
}

void out_attr_size(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_size(o, key, attr_u64(a));
	else
		out_absent(o, key);
}

void out_attr_hex(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_hex(o, key, attr_u64(a));
	else
		out_absent(o, key);
}

void out_attr_handle(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_handle(o, key, attr_u64(a));
	else
		out_absent(o, key);
}

void out_attr_age(struct out *o, const char *key, const struct nlattr *a)
{
	if (a)
		out_age(o, key, attr_u64(a));
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
	type = attr_u32(a);
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

void out_attr_json_u32(struct out *o, const char *key,
		       const struct nlattr *a)
{
	if (a)
		out_json_u64(o, key, nla_get_u32(a));
}
