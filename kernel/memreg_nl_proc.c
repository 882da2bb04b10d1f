// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_PROC_GET: dump of the processes that use memreg.
 */
#include "memreg_nl.h"

/* One DEV_USAGE nest {DEVICE, DEV_ALLOC_BYTES} per device the process uses. */
static int memreg_nl_put_dev_usage(struct sk_buff *skb, const u64 *alloc)
{
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < memreg_ndevs; i++) {
		if (!alloc[i])
			continue;
		nest = nla_nest_start(skb, MEMREG_A_DEV_USAGE);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(skb, MEMREG_A_DEVICE, i) ||
		    memreg_nl_put_u64(skb, MEMREG_A_DEV_ALLOC_BYTES, alloc[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	return 0;
}

static int memreg_nl_proc_fill(struct memreg_nl_dump *d, void *entry)
{
	struct memreg_ctx *ctx = entry;
	struct sk_buff *skb = d->skb;
	struct memreg_ctx_snapshot snap;
	struct memreg_limits lim;
	void *hdr;
	int t;

	memreg_ctx_snapshot(ctx, &snap);
	memreg_ctx_limits(ctx, &lim);

	hdr = memreg_nl_dump_begin(d);
	if (!hdr)
		return -EMSGSIZE;
	if (memreg_nl_put_proc(skb, ctx, MEMREG_NL_PID_READER) ||
	    memreg_nl_put_u64(skb, MEMREG_A_INCARNATION, ctx->incarnation) ||
	    memreg_nl_put_u64(skb, MEMREG_A_REGIONS, snap.use.regions) ||
	    memreg_nl_put_u64(skb, MEMREG_A_PEAK_REGIONS, snap.peak.regions) ||
	    memreg_nl_put_u64(skb, MEMREG_A_MAX_REGIONS, lim.max_regions))
		goto cancel;
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		const struct memreg_mem_ops *ops = memreg_mem_types[t];

		if (memreg_nl_put_u64(skb, ops->nl_bytes, snap.use.bytes[t]) ||
		    memreg_nl_put_u64(skb, ops->nl_peak_bytes,
				      snap.peak.bytes[t]) ||
		    /* a type charged to another's limit has none */
		    (ops->nl_max_bytes &&
		     memreg_nl_put_u64(skb, ops->nl_max_bytes,
				       lim.max_bytes[t])))
			goto cancel;
	}
	if (memreg_nl_put_dev_usage(skb, snap.dev_alloc) ||
	    nla_put_u32(skb, MEMREG_A_IMPORTS, atomic_read(&ctx->nr_imports)) ||
	    memreg_nl_put_u64(skb, MEMREG_A_XFER_DESCS,
			      atomic64_read(&ctx->xfer_descs)) ||
	    memreg_nl_put_u64(skb, MEMREG_A_XFER_READ_BYTES,
			      atomic64_read(&ctx->xfer_read_bytes)) ||
	    memreg_nl_put_u64(skb, MEMREG_A_XFER_WRITE_BYTES,
			      atomic64_read(&ctx->xfer_write_bytes)) ||
	    memreg_nl_put_u64(skb, MEMREG_A_IPC_NAMES,
			      atomic_read(&ctx->ipc_names)) ||
	    memreg_nl_put_u64(skb, MEMREG_A_IPC_IMPORT_FAILED,
			      atomic64_read(&ctx->ipc_import_failed)))
		goto cancel;
	return memreg_nl_dump_end(d, hdr, 0);
cancel:
	return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
}

static struct memreg_ctx *memreg_nl_proc_ctx(void *entry)
{
	return entry;
}

const struct memreg_nl_dump_cmd memreg_nl_proc_dump = {
	.cmd	= MEMREG_CMD_PROC_GET,
	.policy	= memreg_nl_pid_policy,
	.xa	= &memreg_ctxs,
	.ctx_of	= memreg_nl_proc_ctx,
	.fill	= memreg_nl_proc_fill,
};
