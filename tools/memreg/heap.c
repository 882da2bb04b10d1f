// SPDX-License-Identifier: GPL-2.0
/*
 * memreg heap: one row per mstx heap, from the MEMREG_CMD_HEAP_GET dump;
 * heap "none" is a process's regions outside every heap (and its counts
 * of what broke the rules but belongs to no live heap).  ADDR of another
 * user's process is "-" unless the reader has CAP_SYS_ADMIN.
 */
#include <errno.h>
#include <stdio.h>

#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "fmt.h"
#include "listing.h"
#include "tool.h"

/*
 * The five violation counts share one column, "OOB/UNK/DUP/DROP/REF",
 * as proc's PEAK does; JSON has a member for each.
 */
static const struct out_column heap_columns[] = {
	{ "PID", 7 },
	{ "COMM", 15 },
	{ "HEAP", 5 },
	{ "DOMAIN", 12 },
	{ "DEV", 4 },
	{ "ADDR", 18 },
	{ "SIZE", 9 },
	{ "REGIONS", 8 },
	{ "USED", 9 },
	{ "PEAK", 9 },
	{ "UTIL", 7 },
	{ "OOB/UNK/DUP/DROP/REF", 0 },
};

void heap_table_begin(struct out *o)
{
	out_table_begin(o, heap_columns,
			sizeof(heap_columns) / sizeof(heap_columns[0]));
}

/* Utilisation in 1/10000 as "12.5%"; JSON: "util_bp" as sent. */
static void heap_util(struct out *o, const struct nlattr *a)
{
	char buf[FMT_BUF_LEN];
	uint32_t bp;

	if (!a) {
		out_absent(o, "util_bp");
		return;
	}
	bp = nla_get_u32(a);
	if (o->json_mode) {
		out_u64(o, "util_bp", bp);
		return;
	}
	snprintf(buf, sizeof(buf), "%u.%u%%", bp / 100, bp % 100 / 10);
	out_text(o, buf);
}

static const struct {
	int attr;
	const char *key;
} heap_violations[] = {
	{ MEMREG_HEAP_A_OUT_OF_HEAP, "out_of_heap" },
	{ MEMREG_HEAP_A_UNKNOWN, "unknown" },
	{ MEMREG_HEAP_A_DUPLICATE, "duplicate" },
	{ MEMREG_HEAP_A_DROPPED, "dropped" },
	{ MEMREG_HEAP_A_REFUSED, "refused" },
};

#define N_VIOLATIONS	(sizeof(heap_violations) / sizeof(heap_violations[0]))

static void heap_violation_counts(struct out *o, struct nlattr **hb)
{
	char text[N_VIOLATIONS * 21 + N_VIOLATIONS] = "";
	size_t i, n = 0;

	for (i = 0; i < N_VIOLATIONS; i++) {
		const struct nlattr *a = hb[heap_violations[i].attr];

		if (o->json_mode) {
			out_attr_json_u64(o, heap_violations[i].key, a);
			continue;
		}
		if (a)
			n += snprintf(text + n, sizeof(text) - n, "%s%llu",
				      i ? "/" : "",
				      (unsigned long long)nla_get_u64(a));
		else
			n += snprintf(text + n, sizeof(text) - n, "%s-",
				      i ? "/" : "");
	}
	if (!o->json_mode)
		out_text(o, text);
}

int heap_print_row(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	struct nlattr *hb[MEMREG_HEAP_A_MAX + 1];
	char buf[64];
	const char *comm;

	if (attrs_parse(nlh, tb) < 0 || !tb[MEMREG_A_HEAP] ||
	    attrs_parse_heap(tb[MEMREG_A_HEAP], hb) < 0)
		return -EBADMSG;

	out_row_begin(o);
	out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
	comm = attrs_comm(tb, buf, sizeof(buf), true);
	if (comm)
		out_string(o, "comm", comm);
	else
		out_absent(o, "comm");
	out_attr_json_u32(o, "uid", tb[MEMREG_A_UID]);
	/* heap 0 is "none" in the table, 0 in JSON */
	if (!o->json_mode && hb[MEMREG_HEAP_A_ID] &&
	    !nla_get_u32(hb[MEMREG_HEAP_A_ID]))
		out_text(o, "none");
	else
		out_attr_u32(o, "heap", hb[MEMREG_HEAP_A_ID]);
	if (hb[MEMREG_HEAP_A_DOMAIN])
		out_string(o, "domain", nla_get_string(hb[MEMREG_HEAP_A_DOMAIN]));
	else
		out_absent(o, "domain");
	out_attr_u32(o, "device", hb[MEMREG_HEAP_A_DEVICE]);
	out_attr_hex(o, "addr", hb[MEMREG_HEAP_A_ADDR]);
	out_attr_size(o, "size", hb[MEMREG_HEAP_A_SIZE]);
	out_attr_u64(o, "regions", hb[MEMREG_HEAP_A_REGIONS]);
	out_attr_size(o, "region_bytes", hb[MEMREG_HEAP_A_REGION_BYTES]);
	out_attr_json_u64(o, "peak_regions", hb[MEMREG_HEAP_A_PEAK_REGIONS]);
	out_attr_size(o, "peak_bytes", hb[MEMREG_HEAP_A_PEAK_BYTES]);
	heap_util(o, hb[MEMREG_HEAP_A_UTIL]);
	heap_violation_counts(o, hb);
	out_attr_json_u64(o, "age_ms", hb[MEMREG_HEAP_A_AGE_MS]);
	out_row_end(o);
	return 0;
}

/* By pid, then heap id: a process's "none" row (heap 0) comes first. */
int heap_sort_key(struct nlmsghdr *nlh, uint64_t key[2])
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	struct nlattr *hb[MEMREG_HEAP_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0 || !tb[MEMREG_A_HEAP] ||
	    attrs_parse_heap(tb[MEMREG_A_HEAP], hb) < 0)
		return -EBADMSG;
	key[0] = listing_key_u32(tb[MEMREG_A_PID]);
	key[1] = listing_key_u32(hb[MEMREG_HEAP_A_ID]);
	return 0;
}

int cmd_heap(struct memreg *m)
{
	static const struct listing heap_listing = {
		.what = "heap show",
		.cmd = MEMREG_CMD_HEAP_GET,
		.begin = heap_table_begin,
		.print_row = heap_print_row,
		.sort_key = heap_sort_key,
	};

	return listing_run(m, &heap_listing);
}
