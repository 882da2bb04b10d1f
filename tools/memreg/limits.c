// SPDX-License-Identifier: GPL-2.0
/*
 * memreg limits: show the global defaults (from MEMREG_CMD_GET_STATS) or
 * one process's limits (from a MEMREG_CMD_PROC_GET dump filtered by pid),
 * and change either with MEMREG_CMD_SET_LIMITS.
 */
#include <errno.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "comm.h"
#include "tool.h"

static const struct out_column limits_columns[] = {
	{ "pid", 7 },
	{ "regions", 7 },
	{ "host", 7 },
	{ "dev", 7 },
	/* module-wide only: not set per process */
	{ "ipc names", 9 },
	{ "ipc pids", 8 },
	{ "user files", 10 },
};

/* The columns of one process's limits: the first four. */
#define N_PROC_LIMITS_COLUMNS	4

#define N_LIMITS_COLUMNS	(sizeof(limits_columns) / sizeof(limits_columns[0]))

int limits_print(struct out *o, struct nlmsghdr *nlh, bool with_pid)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	if (with_pid) {
		out_block_begin(o, limits_columns, N_PROC_LIMITS_COLUMNS);
		out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
	} else {
		out_block_begin(o, limits_columns + 1, N_LIMITS_COLUMNS - 1);
	}
	out_attr_count(o, "max_regions", tb[MEMREG_A_MAX_REGIONS]);
	out_attr_size(o, "max_host_bytes", tb[MEMREG_A_MAX_HOST_BYTES]);
	out_attr_size(o, "max_dev_bytes", tb[MEMREG_A_MAX_DEV_BYTES]);
	if (!with_pid) {
		out_attr_count(o, "max_ipc_names", tb[MEMREG_A_MAX_IPC_NAMES]);
		out_attr_count(o, "max_ipc_pids", tb[MEMREG_A_MAX_IPC_PIDS]);
		out_attr_count(o, "max_user_files",
			       tb[MEMREG_A_MAX_USER_FILES]);
	}
	out_block_end(o);
	return 0;
}

struct limits_state {
	struct out *o;
	bool with_pid;
	uint32_t pid;
	bool printed;
};

static int limits_reply(struct nlmsghdr *nlh, void *arg)
{
	struct limits_state *s = arg;
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (s->printed)
		return 0;
	/*
	 * Only the asked-for process: were the kernel to ignore the pid
	 * filter, the first row would be someone else's limits.
	 */
	if (s->with_pid) {
		if (attrs_parse(nlh, tb) < 0)
			return -EBADMSG;
		if (!tb[MEMREG_A_PID] || nla_get_u32(tb[MEMREG_A_PID]) != s->pid)
			return 0;
	}
	s->printed = true;
	return limits_print(s->o, nlh, s->with_pid);
}

static int limits_show(struct memreg *m)
{
	struct limits_state s = {
		.o = &m->out,
		.with_pid = m->args.has_pid,
		.pid = m->args.pid,
	};
	struct nlerr_status st;
	struct nl_msg *req;

	if (m->args.has_pid) {
		req = mrnl_request(&m->nl, MEMREG_CMD_PROC_GET, NLM_F_DUMP);
		if (req && nla_put_u32(req, MEMREG_A_PID, m->args.pid) < 0) {
			nlmsg_free(req);
			req = NULL;
		}
	} else {
		req = mrnl_request(&m->nl, MEMREG_CMD_GET_STATS, NLM_F_ACK);
	}
	if (mrnl_transact(&m->nl, req, limits_reply, &s, &st)) {
		if (st.error == ESRCH && m->args.has_pid)
			goto no_context;
		nlerr_report(m->err, "limits show", &st, NULL);
		return 1;
	}
	if (!s.printed && m->args.has_pid)
		goto no_context;
	if (!s.printed) {
		fprintf(m->err, "memreg: limits show: the kernel acknowledged but sent no limits\n");
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;

no_context:
	proc_report_no_context(m->err, m->args.pid);
	return 1;
}

static int limits_reply_ignore(struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return 0;
}

/* The SET_LIMITS request the command line asks for; NULL if out of memory. */
static struct nl_msg *limits_set_request(struct memreg *m)
{
	const struct memreg_args *a = &m->args;
	struct nl_msg *req;

	req = mrnl_request(&m->nl, MEMREG_CMD_SET_LIMITS, NLM_F_ACK);
	if (!req)
		return NULL;
	if ((a->has_pid && nla_put_u32(req, MEMREG_A_PID, a->pid) < 0) ||
	    ((a->set & SET_REGIONS) &&
	     nla_put_u64(req, MEMREG_A_MAX_REGIONS, a->max_regions) < 0) ||
	    ((a->set & SET_HOST) &&
	     nla_put_u64(req, MEMREG_A_MAX_HOST_BYTES, a->max_host_bytes) < 0) ||
	    ((a->set & SET_DEV) &&
	     nla_put_u64(req, MEMREG_A_MAX_DEV_BYTES, a->max_dev_bytes) < 0)) {
		nlmsg_free(req);
		return NULL;
	}
	return req;
}

static int limits_set(struct memreg *m)
{
	struct nlerr_status st;

	if (mrnl_transact(&m->nl, limits_set_request(m), limits_reply_ignore,
			  NULL, &st)) {
		if (st.error == ESRCH && m->args.has_pid)
			proc_report_no_context(m->err, m->args.pid);
		else
			nlerr_report(m->err, "limits set", &st,
				     "CAP_NET_ADMIN");
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}

int cmd_limits(struct memreg *m)
{
	if (m->args.cgroup)
		return cmd_cgroup_limits(m);
	return m->args.action == ACT_SET ? limits_set(m) : limits_show(m);
}
