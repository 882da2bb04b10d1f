// SPDX-License-Identifier: GPL-2.0
/*
 * memreg dev: one row per emulated device, from the MEMREG_CMD_DEV_GET
 * dump: capacity, what is allocated (and how: 2 MiB chunks or 4 KiB
 * pages), the RAM allocations leave to the system (the module's reserve)
 * and what is available now (MemAvailable), and which processes hold it.
 *
 * The per-process usage is one DEV_USAGE nest per process.  The table
 * puts them in the last column as "PID/COMM SIZE, ..."; JSON has a
 * "usage" array of objects.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "fmt.h"
#include "json.h"
#include "listing.h"
#include "tool.h"

static const struct out_column dev_columns[] = {
	{ "DEV", 4 },
	{ "CAPACITY", 9 },
	{ "USED", 9 },
	{ "HUGE", 9 },
	{ "NORMAL", 9 },
	{ "RESERVE", 9 },
	{ "AVAIL", 9 },
	{ "USAGE", 0 },
};

void dev_table_begin(struct out *o)
{
	out_table_begin(o, dev_columns,
			sizeof(dev_columns) / sizeof(dev_columns[0]));
}

/* Room for a few dozen processes; the rest is cut with "...". */
#define DEV_USAGE_TEXT	1024

static void dev_usage_text(char *text, size_t len, size_t *n,
			   struct nlattr **ub)
{
	char size[FMT_BUF_LEN] = "-", comm[64];
	const char *c = attrs_comm(ub, comm, sizeof(comm), true);
	int w;

	if (ub[MEMREG_A_DEV_ALLOC_BYTES])
		fmt_size(size, sizeof(size),
			 nla_get_u64(ub[MEMREG_A_DEV_ALLOC_BYTES]));
	if (ub[MEMREG_A_PID])
		w = snprintf(text + *n, len - *n, "%s%u/%s %s", *n ? ", " : "",
			     nla_get_u32(ub[MEMREG_A_PID]), c ? c : "-", size);
	else
		w = snprintf(text + *n, len - *n, "%s%s %s", *n ? ", " : "",
			     c ? c : "-", size);
	if (w < 0 || (size_t)w >= len - *n) {
		/* full: end with "..." and write no more */
		strcpy(text + len - 4, "...");
		*n = len;
		return;
	}
	*n += w;
}

static void dev_usage_json(struct json *j, struct nlattr **ub)
{
	json_object_begin(j);
	if (ub[MEMREG_A_PID])
		json_kv_u64(j, "pid", nla_get_u32(ub[MEMREG_A_PID]));
	if (ub[MEMREG_A_COMM])
		json_kv_string(j, "comm", nla_get_string(ub[MEMREG_A_COMM]));
	if (ub[MEMREG_A_DEV_ALLOC_BYTES])
		json_kv_u64(j, "dev_alloc_bytes",
			    nla_get_u64(ub[MEMREG_A_DEV_ALLOC_BYTES]));
	json_object_end(j);
}

static void dev_usage(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *ub[MEMREG_A_MAX + 1];
	char text[DEV_USAGE_TEXT] = "";
	struct nlattr *a;
	size_t n = 0;
	int rem;

	if (o->json_mode) {
		json_key(&o->json, "usage");
		json_array_begin(&o->json);
	}
	nlmsg_for_each_attr(a, nlh, GENL_HDRLEN, rem) {
		if (nla_type(a) != MEMREG_A_DEV_USAGE)
			continue;
		attrs_parse_nested(a, ub);
		if (o->json_mode)
			dev_usage_json(&o->json, ub);
		else if (n < sizeof(text))
			dev_usage_text(text, sizeof(text), &n, ub);
	}
	if (o->json_mode)
		json_array_end(&o->json);
	else
		out_text(o, n ? text : "-");
}

int dev_print_row(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	/* the nests too, before a field is printed */
	if (attrs_parse(nlh, tb) < 0 ||
	    attrs_check_dev_usage(nlh, MEMREG_A_PID) < 0)
		return -EBADMSG;
	out_row_begin(o);
	out_attr_u32(o, "device", tb[MEMREG_A_DEVICE]);
	out_attr_size(o, "capacity", tb[MEMREG_A_CAPACITY]);
	out_attr_size(o, "used_bytes", tb[MEMREG_A_USED_BYTES]);
	out_attr_size(o, "huge_bytes", tb[MEMREG_A_HUGE_BYTES]);
	out_attr_size(o, "normal_bytes", tb[MEMREG_A_NORMAL_BYTES]);
	out_attr_size(o, "ram_reserve", tb[MEMREG_A_RAM_RESERVE]);
	out_attr_size(o, "ram_available", tb[MEMREG_A_RAM_AVAILABLE]);
	dev_usage(o, nlh);
	out_row_end(o);
	return 0;
}

int dev_sort_key(struct nlmsghdr *nlh, uint64_t key[2])
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	key[0] = listing_key_u32(tb[MEMREG_A_DEVICE]);
	key[1] = 0;
	return 0;
}

int cmd_dev(struct memreg *m)
{
	static const struct listing dev_listing = {
		.what = "dev show",
		.cmd = MEMREG_CMD_DEV_GET,
		.begin = dev_table_begin,
		.print_row = dev_print_row,
		.sort_key = dev_sort_key,
	};

	return listing_run(m, &dev_listing);
}
