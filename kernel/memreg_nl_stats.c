// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_GET_STATS: module-wide totals and default limits.
 */
#include "memreg_nl.h"

static int memreg_nl_stats_fill(struct sk_buff *msg)
{
	struct memreg_stats *st = &memreg_stats;
	struct memreg_limits lim;
	int t;

	memreg_default_limits(&lim);
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		const struct memreg_mem_ops *ops = memreg_mem_types[t];

		if (memreg_nl_put_u64(msg, ops->nl_bytes,
				      atomic64_read(&st->bytes[t])) ||
		    (ops->nl_max_bytes &&
		     memreg_nl_put_u64(msg, ops->nl_max_bytes,
				       lim.max_bytes[t])))
			return -EMSGSIZE;
	}
	if (memreg_nl_put_u64(msg, MEMREG_A_PROCS, atomic64_read(&st->procs)) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REGIONS,
			      atomic64_read(&st->regions)) ||
	    memreg_nl_put_u64(msg, MEMREG_A_PINNED_BYTES,
			      atomic64_read(&st->pinned_pages) << PAGE_SHIFT) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REFUSED_REGIONS,
			      atomic64_read(&st->refused[MEMREG_REFUSED_REGIONS])) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REFUSED_HOST_BYTES,
			      atomic64_read(&st->refused[MEMREG_REFUSED_HOST_BYTES])) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REFUSED_DEV_BYTES,
			      atomic64_read(&st->refused[MEMREG_REFUSED_DEV_BYTES])) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REFUSED_MEMLOCK,
			      atomic64_read(&st->refused[MEMREG_REFUSED_MEMLOCK])) ||
	    memreg_nl_put_u64(msg, MEMREG_A_REFUSED_CGROUP,
			      atomic64_read(&st->refused[MEMREG_REFUSED_CGROUP])) ||
	    memreg_nl_put_u64(msg, MEMREG_A_CGROUPS, memreg_cg_records()) ||
	    memreg_nl_put_u64(msg, MEMREG_A_MAX_REGIONS, lim.max_regions) ||
	    nla_put(msg, MEMREG_A_INSTANCE_ID, sizeof(memreg_instance_id),
		    memreg_instance_id) ||
	    nla_put_u32(msg, MEMREG_A_DEVICES, memreg_ndevs) ||
	    memreg_nl_put_u64(msg, MEMREG_A_CAPACITY,
			      memreg_dev_capacity_bytes()) ||
	    memreg_nl_put_u64(msg, MEMREG_A_MAX_IPC_NAMES,
			      memreg_ipc_max_names()) ||
	    memreg_nl_put_u64(msg, MEMREG_A_MAX_IPC_PIDS,
			      memreg_ipc_max_pids()) ||
	    memreg_nl_put_u64(msg, MEMREG_A_MAX_USER_FILES,
			      memreg_user_max_files()) ||
	    memreg_nl_put_u64(msg, MEMREG_A_IPC_IMPORT_FAILED,
			      atomic64_read(&st->ipc_import_failed)) ||
	    memreg_nl_put_u64(msg, MEMREG_A_IPC_IMPORT_THROTTLED,
			      atomic64_read(&st->ipc_import_throttled)))
		return -EMSGSIZE;
	return 0;
}

int memreg_nl_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &memreg_genl_family, 0,
				MEMREG_CMD_GET_STATS);
	if (!hdr) {
		err = -EMSGSIZE;
		goto free;
	}
	err = memreg_nl_stats_fill(msg);
	if (err)
		goto free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
free:
	nlmsg_free(msg);
	return err;
}
