// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_HEADROOM_GET: what a process (PID), or a cgroup
 * (CGROUP_DIR; none: the sender's own), may still register and allocate,
 * and which limit leaves the least of each kind (memreg_headroom.c).
 * Figures of processes and cgroups are for every reader, like the other
 * counters; nothing secret is in them.
 */
#include <linux/cgroup.h>
#include <linux/sched/task.h>
#include "memreg_nl.h"

const struct nla_policy memreg_nl_headroom_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]		= NLA_POLICY_MIN(NLA_U32, 1),
	[MEMREG_A_CGROUP_DIR]	= { .type = NLA_NUL_STRING,
				    .len = PATH_MAX - 1 },
	[MEMREG_A_DEVICE]	= { .type = NLA_U32 },
};

static int memreg_nl_room_fill(struct sk_buff *msg, u32 kind,
			       const struct memreg_room *r)
{
	struct nlattr *nest = nla_nest_start(msg, MEMREG_A_ROOM);
	int err;

	if (!nest)
		return -EMSGSIZE;
	err = nla_put_u32(msg, MEMREG_A_ROOM_KIND, kind) ||
	      memreg_nl_put_u64(msg, MEMREG_A_ROOM_BYTES, r->bytes) ||
	      nla_put_u32(msg, MEMREG_A_ROOM_BY, r->by) ||
	      memreg_nl_put_u64(msg, MEMREG_A_ROOM_LIMIT, r->limit) ||
	      memreg_nl_put_u64(msg, MEMREG_A_ROOM_USED, r->used);
	if (!err && r->by == MEMREG_ROOM_BY_CGROUP)
		err = memreg_nl_put_cgroup_id(msg, r->cgroup_id);
	if (err) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int memreg_nl_headroom_fill(struct sk_buff *msg,
				   const struct memreg_headroom *h,
				   struct cgroup *cgrp)
{
	u32 k;

	if (nla_put_u32(msg, MEMREG_A_DEVICE, h->device) ||
	    memreg_nl_put_u64(msg, MEMREG_A_CAPACITY, h->dev_total) ||
	    (h->regions != MEMREG_UNLIMITED &&
	     memreg_nl_put_u64(msg, MEMREG_A_REGIONS, h->regions)) ||
	    (cgrp && memreg_nl_put_cgroup(msg, cgrp, false)))
		return -EMSGSIZE;
	for (k = 0; k < MEMREG_ROOM_KINDS; k++)
		if (memreg_nl_room_fill(msg, k, &h->room[k]))
			return -EMSGSIZE;
	return 0;
}

/* Process @pid's context and task, referenced; -ESRCH if it has none. */
static int memreg_nl_headroom_pid(struct genl_info *info,
				  struct memreg_ctx **ctx,
				  struct task_struct **task)
{
	const struct nlattr *a = info->attrs[MEMREG_A_PID];
	struct pid *pid = find_get_pid(nla_get_u32(a));

	*task = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
	*ctx = *task ? memreg_ctx_find_pid(nla_get_u32(a)) : NULL;
	/*
	 * Two lookups by number: the process may have exited and its pid
	 * gone to another in between.  Both must be of the one struct pid.
	 */
	if (*ctx && (*ctx)->tgid != pid) {
		memreg_ctx_put(*ctx);
		*ctx = NULL;
	}
	put_pid(pid);
	if (*ctx)
		return 0;
	if (*task)
		put_task_struct(*task);
	NL_SET_ERR_MSG_ATTR(info->extack, a, "process has no memreg context");
	return -ESRCH;
}

int memreg_nl_headroom_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct memreg_headroom h = {};
	struct task_struct *task = NULL;
	struct memreg_ctx *ctx = NULL;
	struct cgroup *cgrp = NULL;
	struct sk_buff *msg;
	void *hdr;
	int err;

	if (tb[MEMREG_A_PID] && tb[MEMREG_A_CGROUP_DIR]) {
		GENL_SET_ERR_MSG(info, "a process or a cgroup, not both");
		return -EINVAL;
	}
	if (tb[MEMREG_A_DEVICE])
		h.device = nla_get_u32(tb[MEMREG_A_DEVICE]);
	if (tb[MEMREG_A_PID]) {
		err = memreg_nl_headroom_pid(info, &ctx, &task);
		if (err)
			return err;
		cgrp = memreg_cg_task_cgroup(task);
	} else if (tb[MEMREG_A_CGROUP_DIR]) {
		/* without cgroups: EOPNOTSUPP */
		cgrp = memreg_nl_cgroup_dir(tb[MEMREG_A_CGROUP_DIR],
					    info->extack, false, false);
		if (IS_ERR(cgrp))
			return PTR_ERR(cgrp);
	} else {
		cgrp = memreg_cg_current_cgroup();
	}

	err = memreg_headroom(ctx, task, cgrp, &h);
	if (err) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MEMREG_A_DEVICE],
				    "no such device");
		goto out;
	}
	err = -ENOMEM;
	/* room for a cgroup path in the answer and in each kind's nest */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE + (MEMREG_ROOM_KINDS + 1) *
			  nla_total_size(MEMREG_NL_CGROUP_PATH_MAX + 1),
			  GFP_KERNEL);
	if (!msg)
		goto out;
	hdr = genlmsg_put_reply(msg, info, &memreg_genl_family, 0,
				MEMREG_CMD_HEADROOM_GET);
	err = hdr ? memreg_nl_headroom_fill(msg, &h, cgrp) : -EMSGSIZE;
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	genlmsg_end(msg, hdr);
	err = genlmsg_reply(msg, info);
out:
	memreg_cgroup_put(cgrp);
	if (ctx)
		memreg_ctx_put(ctx);
	if (task)
		put_task_struct(task);
	return err;
}
