// SPDX-License-Identifier: GPL-2.0
/*
 * memreg proc: one row per process with a memreg context, from the
 * MEMREG_CMD_PROC_GET dump.
 */
#include <errno.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "fmt.h"
#include "json.h"
#include "listing.h"
#include "tool.h"

/*
 * PEAK and LIMITS are "regions/host/dev" in one column each: three
 * columns apiece would push the table past any terminal.  JSON has all
 * six values as members of their own.
 */
static const struct out_column proc_columns[] = {
	{ "PID", 7 },
	{ "COMM", 15 },
	{ "UID", 6 },
	{ "REGIONS", 7 },
	{ "HOST", 9 },
	{ "DEV", 9 },
	{ "PEAK", 21 },
	{ "LIMITS", 27 },
	{ "IMPORTS", 7 },
	{ "XFER READ/WRITE", 19 },
	{ "DEVMEM", 0 },
};

void proc_table_begin(struct out *o)
{
	out_table_begin(o, proc_columns,
			sizeof(proc_columns) / sizeof(proc_columns[0]));
}

/*
 * "regions/host/dev" from a count and two sizes; "-" for a missing part.
 * In JSON, the members @keys[] of those that are present.
 */
static void out_triple(struct out *o, const char *const keys[3],
		       struct nlattr *regions, struct nlattr *host,
		       struct nlattr *dev)
{
	char r[FMT_BUF_LEN] = "-", h[FMT_BUF_LEN] = "-", d[FMT_BUF_LEN] = "-";
	char text[3 * FMT_BUF_LEN + 2];

	if (o->json_mode) {
		out_attr_json_u64(o, keys[0], regions);
		out_attr_json_u64(o, keys[1], host);
		out_attr_json_u64(o, keys[2], dev);
		return;
	}
	if (regions)
		fmt_count(r, sizeof(r), nla_get_u64(regions));
	if (host)
		fmt_size(h, sizeof(h), nla_get_u64(host));
	if (dev)
		fmt_size(d, sizeof(d), nla_get_u64(dev));
	snprintf(text, sizeof(text), "%s/%s/%s", r, h, d);
	out_text(o, text);
}

/*
 * Device memory the process has allocated, one DEV_USAGE nest per device:
 * "0:4.0MiB 1:2.0MiB" in the table, "dev_usage":[{"device":0,
 * "dev_alloc_bytes":4194304}, ...] in JSON.  A process with none has no
 * nest, and like every absent attribute no JSON member.
 */
static void proc_dev_usage(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *ub[MEMREG_A_MAX + 1];
	char text[256] = "", size[FMT_BUF_LEN];
	struct nlattr *a;
	size_t n = 0;
	int rem, w;

	nlmsg_for_each_attr(a, nlh, GENL_HDRLEN, rem) {
		if (nla_type(a) != MEMREG_A_DEV_USAGE)
			continue;
		attrs_parse_nested(a, ub);
		if (o->json_mode) {
			if (!n++) {
				json_key(&o->json, "dev_usage");
				json_array_begin(&o->json);
			}
			json_object_begin(&o->json);
			json_kv_u64(&o->json, "device",
				    nla_get_u32(ub[MEMREG_A_DEVICE]));
			json_kv_u64(&o->json, "dev_alloc_bytes",
				    nla_get_u64(ub[MEMREG_A_DEV_ALLOC_BYTES]));
			json_object_end(&o->json);
			continue;
		}
		fmt_size(size, sizeof(size),
			 nla_get_u64(ub[MEMREG_A_DEV_ALLOC_BYTES]));
		w = snprintf(text + n, sizeof(text) - n, "%s%u:%s",
			     n ? " " : "", nla_get_u32(ub[MEMREG_A_DEVICE]),
			     size);
		if (w > 0 && (size_t)w < sizeof(text) - n)
			n += w;
	}
	if (o->json_mode && n)
		json_array_end(&o->json);
	else if (!o->json_mode)
		out_text(o, n ? text : "-");
}

/*
 * What the process's transfers moved: "read/written" in the table; in
 * JSON the descriptor count and both byte counts.
 */
static void proc_xfer(struct out *o, struct nlattr **tb)
{
	char r[FMT_BUF_LEN] = "-", w[FMT_BUF_LEN] = "-";
	char text[2 * FMT_BUF_LEN + 1];

	if (o->json_mode) {
		out_attr_json_u64(o, "xfer_descs", tb[MEMREG_A_XFER_DESCS]);
		out_attr_json_u64(o, "xfer_read_bytes",
				  tb[MEMREG_A_XFER_READ_BYTES]);
		out_attr_json_u64(o, "xfer_write_bytes",
				  tb[MEMREG_A_XFER_WRITE_BYTES]);
		return;
	}
	if (tb[MEMREG_A_XFER_READ_BYTES])
		fmt_size(r, sizeof(r), nla_get_u64(tb[MEMREG_A_XFER_READ_BYTES]));
	if (tb[MEMREG_A_XFER_WRITE_BYTES])
		fmt_size(w, sizeof(w),
			 nla_get_u64(tb[MEMREG_A_XFER_WRITE_BYTES]));
	snprintf(text, sizeof(text), "%s/%s", r, w);
	out_text(o, text);
}

static const char *const peak_keys[3] = {
	"peak_regions", "peak_host_bytes", "peak_dev_bytes",
};

static const char *const limit_keys[3] = {
	"max_regions", "max_host_bytes", "max_dev_bytes",
};

int proc_print_row(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	char buf[64];
	const char *comm;

	/* the nests too, before a field is printed */
	if (attrs_parse(nlh, tb) < 0 ||
	    attrs_check_dev_usage(nlh, MEMREG_A_DEVICE) < 0)
		return -EBADMSG;

	out_row_begin(o);
	out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
	comm = attrs_comm(tb, buf, sizeof(buf), true);
	if (comm)
		out_string(o, "comm", comm);
	else
		out_absent(o, "comm");
	out_attr_u32(o, "uid", tb[MEMREG_A_UID]);
	/* JSON only: which life of the process (a peer tells restarts) */
	out_attr_json_u64(o, "incarnation", tb[MEMREG_A_INCARNATION]);
	out_attr_u64(o, "regions", tb[MEMREG_A_REGIONS]);
	out_attr_size(o, "host_bytes", tb[MEMREG_A_HOST_BYTES]);
	out_attr_size(o, "dev_bytes", tb[MEMREG_A_DEV_BYTES]);
	out_attr_json_u64(o, "pinned_bytes", tb[MEMREG_A_PINNED_BYTES]);
	/* JSON only: dma-buf bytes, which count towards the device limit */
	out_attr_json_u64(o, "dmabuf_bytes", tb[MEMREG_A_DMABUF_BYTES]);
	out_attr_json_u64(o, "peak_dmabuf_bytes",
			  tb[MEMREG_A_PEAK_DMABUF_BYTES]);
	out_triple(o, peak_keys, tb[MEMREG_A_PEAK_REGIONS],
		   tb[MEMREG_A_PEAK_HOST_BYTES], tb[MEMREG_A_PEAK_DEV_BYTES]);
	out_triple(o, limit_keys, tb[MEMREG_A_MAX_REGIONS],
		   tb[MEMREG_A_MAX_HOST_BYTES], tb[MEMREG_A_MAX_DEV_BYTES]);
	out_attr_u32(o, "imports", tb[MEMREG_A_IMPORTS]);
	proc_xfer(o, tb);
	proc_dev_usage(o, nlh);
	out_row_end(o);
	return 0;
}

int proc_sort_key(struct nlmsghdr *nlh, uint64_t key[2])
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	key[0] = listing_key_u32(tb[MEMREG_A_PID]);
	key[1] = 0;
	return 0;
}

int cmd_proc(struct memreg *m)
{
	static const struct listing proc_listing = {
		.what = "proc show",
		.cmd = MEMREG_CMD_PROC_GET,
		.begin = proc_table_begin,
		.print_row = proc_print_row,
		.sort_key = proc_sort_key,
	};

	return listing_run(m, &proc_listing);
}
