// SPDX-License-Identifier: GPL-2.0
/*
 * memreg headroom [pid PID | cgroup PATH] [dev N]: what a process (or a
 * cgroup; neither: our own cgroup) may still register and allocate, of
 * each kind, and which limit leaves the least: who holds the rest
 * (MEMREG_CMD_HEADROOM_GET).
 */
#include <errno.h>
#include <limits.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "comm.h"
#include "tool.h"

static const struct out_column headroom_columns[] = {
	{ "kind", 9 },
	{ "headroom", 9 },
	{ "limited by", 10 },
	{ "limit", 9 },
	{ "held", 9 },
	{ "cgroup", 12 },
};

#define N_HEADROOM_COLUMNS \
	(sizeof(headroom_columns) / sizeof(headroom_columns[0]))

static const char *const room_kinds[MEMREG_ROOM_KINDS] = {
	[MEMREG_ROOM_HOST]	= "host",
	[MEMREG_ROOM_DEVICE]	= "dev",
	[MEMREG_ROOM_DMABUF]	= "dmabuf",
	[MEMREG_ROOM_DEV_ALLOC]	= "dev-alloc",
};

static const char *const room_by[] = {
	[MEMREG_ROOM_BY_NONE]		= "nothing",
	[MEMREG_ROOM_BY_PROCESS]	= "process",
	[MEMREG_ROOM_BY_CGROUP]		= "cgroup",
	[MEMREG_ROOM_BY_MEMLOCK]	= "memlock",
	[MEMREG_ROOM_BY_USER]		= "user",
	[MEMREG_ROOM_BY_DEVICE]		= "device",
	[MEMREG_ROOM_BY_RAM]		= "ram",
};

static int headroom_row(struct out *o, struct nlattr *nest,
			struct nlattr **top)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	uint32_t kind, by;

	if (attrs_parse_nested(nest, tb) < 0 || !tb[MEMREG_A_ROOM_KIND] ||
	    !tb[MEMREG_A_ROOM_BY])
		return -EBADMSG;
	kind = nla_get_u32(tb[MEMREG_A_ROOM_KIND]);
	by = nla_get_u32(tb[MEMREG_A_ROOM_BY]);
	out_row_begin(o);
	out_string(o, "kind", kind < MEMREG_ROOM_KINDS ? room_kinds[kind] : "?");
	out_attr_count(o, "bytes", tb[MEMREG_A_ROOM_BYTES]);
	out_string(o, "by", by < sizeof(room_by) / sizeof(room_by[0]) ?
			    room_by[by] : "?");
	out_attr_count(o, "limit", tb[MEMREG_A_ROOM_LIMIT]);
	out_attr_count(o, "used", tb[MEMREG_A_ROOM_USED]);
	if (tb[MEMREG_A_CGROUP])
		out_string(o, "cgroup", nla_get_string(tb[MEMREG_A_CGROUP]));
	else
		out_absent(o, "cgroup");
	out_attr_json_u64(o, "cgroup_id", tb[MEMREG_A_CGROUP_ID]);
	/* the whole answer's figures, in every row for scripts */
	out_attr_json_u32(o, "device", top[MEMREG_A_DEVICE]);
	out_attr_json_u64(o, "dev_total", top[MEMREG_A_CAPACITY]);
	out_attr_json_u64(o, "regions", top[MEMREG_A_REGIONS]);
	out_attr_json_u64(o, "own_cgroup_id", top[MEMREG_A_CGROUP_ID]);
	out_row_end(o);
	return 0;
}

int headroom_print(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1], *a;
	int rem, ret;

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	out_table_begin(o, headroom_columns, N_HEADROOM_COLUMNS);
	nlmsg_for_each_attr(a, nlh, GENL_HDRLEN, rem) {
		if (nla_type(a) != MEMREG_A_ROOM)
			continue;
		ret = headroom_row(o, a, tb);
		if (ret)
			return ret;
	}
	out_table_end(o);
	return 0;
}

static int headroom_reply(struct nlmsghdr *nlh, void *arg)
{
	return headroom_print(arg, nlh);
}

int cmd_headroom(struct memreg *m)
{
	const struct memreg_args *a = &m->args;
	struct nlerr_status st;
	char dir[PATH_MAX];
	struct nl_msg *req;

	if (a->cgroup && cgroup_dir(a->cgroup, dir, sizeof(dir), m->err))
		return 1;
	req = mrnl_request(&m->nl, MEMREG_CMD_HEADROOM_GET, NLM_F_ACK);
	if (req &&
	    ((a->has_pid && nla_put_u32(req, MEMREG_A_PID, a->pid) < 0) ||
	     (a->cgroup &&
	      nla_put_string(req, MEMREG_A_CGROUP_DIR, dir) < 0) ||
	     (a->has_device &&
	      nla_put_u32(req, MEMREG_A_DEVICE, a->device) < 0))) {
		nlmsg_free(req);
		req = NULL;
	}
	if (mrnl_transact(&m->nl, req, headroom_reply, &m->out, &st)) {
		if (st.error == ESRCH && a->has_pid)
			proc_report_no_context(m->err, a->pid);
		else
			nlerr_report(m->err, "headroom", &st, NULL);
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}
