// SPDX-License-Identifier: GPL-2.0
/*
 * memreg stats: the module's totals, refusals by reason, and the global
 * default limits, from one MEMREG_CMD_GET_STATS doit.
 */
#include <errno.h>

#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "fmt.h"
#include "tool.h"

/* Titles as people read them; JSON keys follow the attribute names. */
static const struct out_column stats_columns[] = {
	{ "processes", 15 },
	{ "registrations", 15 },
	{ "host", 15 },
	{ "device", 15 },
	{ "devices", 15 },
	{ "pinned", 15 },
	{ "refused regions", 15 },
	{ "refused host", 15 },
	{ "refused device", 15 },
	{ "refused memlock", 15 },
	{ "default regions", 15 },
	{ "default host", 15 },
	{ "default device", 15 },
	{ "instance", 15 },
};

int stats_print(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	char id[FMT_BUF_LEN];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;

	out_block_begin(o, stats_columns,
			sizeof(stats_columns) / sizeof(stats_columns[0]));
	out_attr_u64(o, "procs", tb[MEMREG_A_PROCS]);
	out_attr_u64(o, "regions", tb[MEMREG_A_REGIONS]);
	out_attr_size(o, "host_bytes", tb[MEMREG_A_HOST_BYTES]);
	out_attr_size(o, "dev_bytes", tb[MEMREG_A_DEV_BYTES]);
	out_attr_json_u64(o, "dmabuf_bytes", tb[MEMREG_A_DMABUF_BYTES]);
	out_attr_u32(o, "devices", tb[MEMREG_A_DEVICES]);
	out_attr_size(o, "pinned_bytes", tb[MEMREG_A_PINNED_BYTES]);
	out_attr_u64(o, "refused_regions", tb[MEMREG_A_REFUSED_REGIONS]);
	out_attr_u64(o, "refused_host_bytes",
		     tb[MEMREG_A_REFUSED_HOST_BYTES]);
	out_attr_u64(o, "refused_dev_bytes", tb[MEMREG_A_REFUSED_DEV_BYTES]);
	out_attr_u64(o, "refused_memlock", tb[MEMREG_A_REFUSED_MEMLOCK]);
	/* per cgroup: for scripts (memreg limits show cgroup for people) */
	out_attr_json_u64(o, "refused_cgroup", tb[MEMREG_A_REFUSED_CGROUP]);
	out_attr_json_u64(o, "cgroups", tb[MEMREG_A_CGROUPS]);
	out_attr_json_u64(o, "ipc_import_failed",
			  tb[MEMREG_A_IPC_IMPORT_FAILED]);
	out_attr_json_u64(o, "ipc_import_throttled",
			  tb[MEMREG_A_IPC_IMPORT_THROTTLED]);
	out_attr_count(o, "max_regions", tb[MEMREG_A_MAX_REGIONS]);
	out_attr_size(o, "max_host_bytes", tb[MEMREG_A_MAX_HOST_BYTES]);
	out_attr_size(o, "max_dev_bytes", tb[MEMREG_A_MAX_DEV_BYTES]);
	if (tb[MEMREG_A_INSTANCE_ID]) {
		fmt_hexbytes(id, sizeof(id), nla_data(tb[MEMREG_A_INSTANCE_ID]),
			     16);
		out_string(o, "instance_id", id);
	} else {
		out_absent(o, "instance_id");
	}
	out_block_end(o);
	return 0;
}

struct stats_state {
	struct out *o;
	bool printed;
};

static int stats_reply(struct nlmsghdr *nlh, void *arg)
{
	struct stats_state *s = arg;

	/* one answer expected; a second would make the JSON two documents */
	if (s->printed)
		return 0;
	s->printed = true;
	return stats_print(s->o, nlh);
}

int cmd_stats(struct memreg *m)
{
	struct stats_state s = { .o = &m->out };
	struct nlerr_status st;

	if (mrnl_transact(&m->nl,
			  mrnl_request(&m->nl, MEMREG_CMD_GET_STATS, NLM_F_ACK),
			  stats_reply, &s, &st)) {
		nlerr_report(m->err, "stats", &st, NULL);
		return 1;
	}
	if (!s.printed) {
		fprintf(m->err, "memreg: stats: the kernel acknowledged but sent no statistics\n");
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}
