// SPDX-License-Identifier: GPL-2.0
/*
 * memreg region: one row per registration, from the MEMREG_CMD_REGION_GET
 * dump.  The kernel leaves out ADDR and HANDLE of another user's process
 * unless the reader has CAP_SYS_ADMIN; such cells read "-", and JSON
 * leaves the members out.
 */
#include <errno.h>

#include <netlink/msg.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "json.h"
#include "listing.h"
#include "tool.h"

static const struct out_column region_columns[] = {
	{ "PID", 7 },
	{ "COMM", 15 },
	{ "ID", 8 },
	{ "HANDLE", 18 },
	{ "TYPE", 6 },
	{ "DEV", 4 },
	{ "ADDR", 18 },
	{ "LEN", 9 },
	{ "PINNED", 8 },
	{ "GRANTS", 6 },
	{ "IMPORTS", 7 },
	{ "AGE", 0 },
};

void region_table_begin(struct out *o)
{
	out_table_begin(o, region_columns,
			sizeof(region_columns) / sizeof(region_columns[0]));
}

/* JSON only: "access":["remote_read","remote_write"]. */
static void region_access(struct out *o, const struct nlattr *a)
{
	uint32_t access;

	if (!o->json_mode || !a)
		return;
	access = nla_get_u32(a);
	json_key(&o->json, "access");
	json_array_begin(&o->json);
	if (access & MEMREG_ACCESS_REMOTE_READ)
		json_string(&o->json, "remote_read");
	if (access & MEMREG_ACCESS_REMOTE_WRITE)
		json_string(&o->json, "remote_write");
	json_array_end(&o->json);
}

/*
 * JSON only: a DMABUF registration's buffer (its whole size and inode, as
 * /sys/kernel/debug/dma_buf/bufinfo lists it), whether the exporter
 * revoked it, and whether the kernel can copy through it.
 */
static void region_dmabuf(struct out *o, struct nlattr **tb)
{
	if (!o->json_mode || !tb[MEMREG_A_EXPORTER])
		return;
	out_attr_json_u64(o, "dmabuf_size", tb[MEMREG_A_DMABUF_SIZE]);
	out_attr_json_u64(o, "dmabuf_ino", tb[MEMREG_A_DMABUF_INO]);
	json_key(&o->json, "revoked");
	json_bool(&o->json, tb[MEMREG_A_REVOKED] != NULL);
	json_key(&o->json, "cpu_access");
	json_bool(&o->json, tb[MEMREG_A_NO_CPU_ACCESS] == NULL);
}

void region_fields(struct out *o, struct nlattr **tb, bool proc_fallback)
{
	char buf[64];
	const char *comm;

	out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
	comm = attrs_comm(tb, buf, sizeof(buf), proc_fallback);
	if (comm)
		out_string(o, "comm", comm);
	else
		out_absent(o, "comm");
	out_attr_u32(o, "id", tb[MEMREG_A_ID]);
	out_attr_handle(o, "handle", tb[MEMREG_A_HANDLE]);
	out_attr_mem_type(o, "type", tb[MEMREG_A_TYPE]);
	/*
	 * only DEVICE registrations have one: "-", and no JSON member; a
	 * DMABUF registration shows its exporter there (the driver that owns
	 * the memory: udmabuf, system, memreg, ...)
	 */
	if (tb[MEMREG_A_DEVICE])
		out_attr_u32(o, "device", tb[MEMREG_A_DEVICE]);
	else if (tb[MEMREG_A_EXPORTER])
		out_string(o, "exporter", nla_get_string(tb[MEMREG_A_EXPORTER]));
	else
		out_absent(o, "device");
	out_attr_hex(o, "addr", tb[MEMREG_A_ADDR]);
	out_attr_size(o, "len", tb[MEMREG_A_LEN]);
	/*
	 * a registration that shares another's pages pinned none: the table
	 * says whose ("of ID"), JSON has "parent"
	 */
	if (tb[MEMREG_A_PARENT] && !o->json_mode) {
		snprintf(buf, sizeof(buf), "of %u",
			 nla_get_u32(tb[MEMREG_A_PARENT]));
		out_text(o, buf);
	} else {
		out_attr_u64(o, "pinned_pages", tb[MEMREG_A_PINNED_PAGES]);
	}
	/* live grants to peers, and the peers' imports of them */
	out_attr_u32(o, "grants", tb[MEMREG_A_GRANTS]);
	out_attr_u32(o, "imports", tb[MEMREG_A_IMPORTS]);
	out_attr_age(o, "age_ms", tb[MEMREG_A_AGE_MS]);
	out_attr_json_u32(o, "parent", tb[MEMREG_A_PARENT]);
	region_access(o, tb[MEMREG_A_ACCESS]);
	region_dmabuf(o, tb);
}

int region_print_row(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	out_row_begin(o);
	region_fields(o, tb, true);
	out_row_end(o);
	return 0;
}

int region_sort_key(struct nlmsghdr *nlh, uint64_t key[2])
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	key[0] = listing_key_u32(tb[MEMREG_A_PID]);
	key[1] = listing_key_u32(tb[MEMREG_A_ID]);
	return 0;
}

int cmd_region(struct memreg *m)
{
	static const struct listing region_listing = {
		.what = "region show",
		.cmd = MEMREG_CMD_REGION_GET,
		.begin = region_table_begin,
		.print_row = region_print_row,
		.sort_key = region_sort_key,
	};

	return listing_run(m, &region_listing);
}
