// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_SET_LIMITS: global defaults, or one process's limits.
 * GENL_ADMIN_PERM: the genetlink core asks for CAP_NET_ADMIN.
 */
#include "memreg_nl.h"

int memreg_nl_limits_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct memreg_limits lim = {};
	unsigned int which = 0;
	struct memreg_ctx *ctx;
	int t;

	if (tb[MEMREG_A_MAX_REGIONS]) {
		lim.max_regions = nla_get_u64(tb[MEMREG_A_MAX_REGIONS]);
		which |= MEMREG_OVR_REGIONS;
	}
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		u16 attr = memreg_mem_types[t]->nl_max_bytes;
		const struct nlattr *a = attr ? tb[attr] : NULL;

		if (a) {
			lim.max_bytes[t] = nla_get_u64(a);
			which |= MEMREG_OVR_BYTES(t);
		}
	}
	if (!which) {
		GENL_SET_ERR_MSG(info, "no limit given");
		return -EINVAL;
	}

	if (!tb[MEMREG_A_PID]) {
		memreg_set_default_limits(&lim, which);
		return 0;
	}

	ctx = memreg_ctx_find_pid(nla_get_u32(tb[MEMREG_A_PID]));
	if (!ctx) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MEMREG_A_PID],
				    "process has no memreg context");
		return -ESRCH;
	}
	memreg_ctx_set_limits(ctx, &lim, which);
	memreg_ctx_put(ctx);
	return 0;
}
