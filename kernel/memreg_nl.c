// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the generic netlink family "memreg": policies, operations, the
 * "events" group, and helpers shared by the per-command files.
 *
 * Every operation has its own strict policy: an attribute a command does not
 * take is rejected, not ignored.  Every dump goes through one core: one
 * .start and one .dumpit for all of them, with typed state in cb->ctx
 * (struct memreg_nl_dump_state); a dump command is its policy, a walk and
 * a fill function in its own file, and a row below.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <net/sock.h>
#include "memreg_nl.h"

static const struct nla_policy memreg_nl_stats_policy[MEMREG_A_MAX + 1] = {
};

const struct nla_policy memreg_nl_pid_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]			= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy memreg_nl_limits_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]			= NLA_POLICY_MIN(NLA_U32, 1),
	[MEMREG_A_MAX_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_A_MAX_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_DEV_BYTES]	= { .type = NLA_U64 },
};

static const struct memreg_nl_dump_cmd *const memreg_nl_dumps[] = {
	&memreg_nl_proc_dump,
	&memreg_nl_region_dump,
	&memreg_nl_dev_dump,
	&memreg_nl_heap_dump,
	&memreg_nl_cgroup_dump,
};

static const struct memreg_nl_dump_cmd *
memreg_nl_dump_cmd(const struct netlink_callback *cb)
{
	const struct genlmsghdr *g = nlmsg_data(cb->nlh);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(memreg_nl_dumps); i++)
		if (memreg_nl_dumps[i]->cmd == g->cmd)
			return memreg_nl_dumps[i];
	return NULL;
}

static struct memreg_nl_dump_state *
memreg_nl_dump_state(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct memreg_nl_dump_state) > sizeof(cb->ctx));
	return (struct memreg_nl_dump_state *)cb->ctx;
}

/*
 * Every dump's .start: the request's attributes into the state.  The
 * genetlink core has validated them already, but where it keeps the
 * result (genl_dumpit_info) changed shape between 6.1 and 6.12; a second
 * parse of a few small attributes per dump is cheaper than a compat layer.
 */
static int memreg_nl_start(struct netlink_callback *cb)
{
	const struct memreg_nl_dump_cmd *c = memreg_nl_dump_cmd(cb);
	struct memreg_nl_dump_state *st = memreg_nl_dump_state(cb);
	struct nlattr *tb[MEMREG_A_MAX + 1];
	int err;

	if (!c)
		return -EOPNOTSUPP;
	memset(st, 0, sizeof(*st));
	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, MEMREG_A_MAX, c->policy,
			  cb->extack);
	if (err)
		return err;
	if (tb[MEMREG_A_PID])
		st->pid = nla_get_u32(tb[MEMREG_A_PID]);
	return c->start ? c->start(st, tb, cb->extack) : 0;
}

/* One entry of a command's xarray: left out by the pid filter, or filled. */
static int memreg_nl_xa_emit(void *entry, void *arg)
{
	struct memreg_nl_dump *d = arg;

	if (memreg_nl_dump_skip(d, d->c->ctx_of(entry)))
		return 0;
	return d->c->fill(d, entry);
}

/*
 * Every dump's .dumpit: who reads it is decided once per piece, before
 * the command's RCU walk (a capability check may audit).
 */
static int memreg_nl_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct memreg_nl_dump_cmd *c = memreg_nl_dump_cmd(cb);
	struct sock *sk = NETLINK_CB(cb->skb).sk;
	struct memreg_nl_dump d = {
		.skb = skb,
		.cb = cb,
		.st = memreg_nl_dump_state(cb),
		.c = c,
		/*
		 * The reader is who opened the socket (its file's
		 * credentials), not the credentials a sender may attach.
		 */
		.reader = INVALID_UID,
		.admin = netlink_capable(cb->skb, CAP_SYS_ADMIN),
	};

	if (sk && sk->sk_socket && sk->sk_socket->file)
		d.reader = sk->sk_socket->file->f_cred->euid;
	if (c->walk) {
		c->walk(&d);
	} else {
		/* entries and their contexts outlive a grace period */
		rcu_read_lock();
		memreg_walk(c->xa, &d.st->cursor, memreg_nl_xa_emit, &d);
		rcu_read_unlock();
	}
	return skb->len;
}

void *memreg_nl_dump_begin(struct memreg_nl_dump *d)
{
	return genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			   d->cb->nlh->nlmsg_seq, &memreg_genl_family,
			   NLM_F_MULTI, d->c->cmd);
}

int memreg_nl_dump_end(struct memreg_nl_dump *d, void *hdr, int err)
{
	if (err) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	return 0;
}

bool memreg_nl_dump_skip(const struct memreg_nl_dump *d,
			 const struct memreg_ctx *ctx)
{
	return d->st->pid && memreg_ctx_pid(ctx) != d->st->pid;
}

static const struct genl_ops memreg_nl_ops[] = {
	{
		.cmd		= MEMREG_CMD_GET_STATS,
		.doit		= memreg_nl_stats_doit,
		.policy		= memreg_nl_stats_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_PROC_GET,
		.start		= memreg_nl_start,
		.dumpit		= memreg_nl_dumpit,
		.policy		= memreg_nl_pid_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_REGION_GET,
		.start		= memreg_nl_start,
		.dumpit		= memreg_nl_dumpit,
		.policy		= memreg_nl_pid_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_SET_LIMITS,
		.doit		= memreg_nl_limits_doit,
		.policy		= memreg_nl_limits_policy,
		.maxattr	= MEMREG_A_MAX,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= MEMREG_CMD_DEV_GET,
		.start		= memreg_nl_start,
		.dumpit		= memreg_nl_dumpit,
		.policy		= memreg_nl_dev_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_HEAP_GET,
		.start		= memreg_nl_start,
		.dumpit		= memreg_nl_dumpit,
		.policy		= memreg_nl_pid_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_CGROUP_GET,
		.start		= memreg_nl_start,
		.dumpit		= memreg_nl_dumpit,
		.policy		= memreg_nl_cgroup_dump_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		/* CAP_NET_ADMIN or the cgroup's delegate: checked in the doit */
		.cmd		= MEMREG_CMD_CGROUP_SET,
		.doit		= memreg_nl_cgroup_set_doit,
		.policy		= memreg_nl_cgroup_set_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_HEADROOM_GET,
		.doit		= memreg_nl_headroom_doit,
		.policy		= memreg_nl_headroom_policy,
		.maxattr	= MEMREG_A_MAX,
	},
};

static const struct genl_multicast_group memreg_nl_mcgrps[] = {
	[MEMREG_NL_GRP_EVENTS] = { .name = MEMREG_GENL_MCGRP_EVENTS },
};

struct genl_family memreg_genl_family __ro_after_init = {
	.name		= MEMREG_GENL_NAME,
	.version	= MEMREG_GENL_VERSION,
	.maxattr	= MEMREG_A_MAX,
	.module		= THIS_MODULE,
	.ops		= memreg_nl_ops,
	.n_ops		= ARRAY_SIZE(memreg_nl_ops),
	/* 0: every command validates the header's reserved bytes and flags */
	.resv_start_op	= 0,
	.mcgrps		= memreg_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(memreg_nl_mcgrps),
	.parallel_ops	= true,
};

int memreg_nl_put_u64(struct sk_buff *skb, int attr, u64 value)
{
	return nla_put_u64_64bit(skb, attr, value, MEMREG_A_PAD);
}

/* PID (omitted if the reader cannot see the process), COMM and UID. */
int memreg_nl_put_proc(struct sk_buff *skb, const struct memreg_ctx *ctx,
		       enum memreg_nl_pidns ns)
{
	pid_t pid = ns == MEMREG_NL_PID_GLOBAL ? pid_nr(ctx->tgid) :
						 memreg_ctx_pid(ctx);

	if (pid && nla_put_u32(skb, MEMREG_A_PID, pid))
		return -EMSGSIZE;
	if (nla_put_string(skb, MEMREG_A_COMM, ctx->comm) ||
	    nla_put_u32(skb, MEMREG_A_UID,
			from_kuid_munged(&init_user_ns, ctx->uid)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Addresses and handles of a process are for its own user and for
 * CAP_SYS_ADMIN; counts and sizes are for everyone (like rdma's nldev).
 */
bool memreg_nl_may_see_secrets(const struct memreg_nl_dump *d,
			       const struct memreg_ctx *ctx)
{
	return d->admin ||
	       (uid_valid(d->reader) && uid_eq(d->reader, ctx->uid));
}

int memreg_nl_init(void)
{
	return genl_register_family(&memreg_genl_family);
}

void memreg_nl_exit(void)
{
	genl_unregister_family(&memreg_genl_family);
}
