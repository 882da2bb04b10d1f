// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the generic netlink family "memreg": policies, operations, the
 * "events" group, and helpers shared by the per-command files.
 *
 * Every operation has its own strict policy: an attribute a command does not
 * take is rejected, not ignored.  Dumps keep their cursor (the next id) in
 * cb->args[0] and their pid filter in cb->args[1], parsed once in .start.
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

static const struct nla_policy memreg_nl_dump_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]			= NLA_POLICY_MIN(NLA_U32, 1),
};

static const struct nla_policy memreg_nl_limits_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_PID]			= NLA_POLICY_MIN(NLA_U32, 1),
	[MEMREG_A_MAX_REGIONS]		= { .type = NLA_U64 },
	[MEMREG_A_MAX_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_DEV_BYTES]	= { .type = NLA_U64 },
};

static const struct nla_policy memreg_nl_dev_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_DEVICE]		= { .type = NLA_U32 },
};

static int memreg_nl_dump_start(struct netlink_callback *cb)
{
	return memreg_nl_dump_filter(cb);
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
		.start		= memreg_nl_dump_start,
		.dumpit		= memreg_nl_proc_dumpit,
		.policy		= memreg_nl_dump_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_REGION_GET,
		.start		= memreg_nl_dump_start,
		.dumpit		= memreg_nl_region_dumpit,
		.policy		= memreg_nl_dump_policy,
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
		.start		= memreg_nl_dev_start,
		.dumpit		= memreg_nl_dev_dumpit,
		.policy		= memreg_nl_dev_policy,
		.maxattr	= MEMREG_A_MAX,
	},
	{
		.cmd		= MEMREG_CMD_HEAP_GET,
		.start		= memreg_nl_heap_start,
		.dumpit		= memreg_nl_heap_dumpit,
		.policy		= memreg_nl_heap_policy,
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
 * Parse the optional pid filter of a dump request into cb->args[1].  The
 * genetlink core has validated it already, but where it keeps the result
 * (genl_dumpit_info) changed shape between 6.1 and 6.12; a second parse of
 * one small attribute per dump is cheaper than a compat layer.
 */
int memreg_nl_dump_filter(struct netlink_callback *cb)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	int err;

	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, MEMREG_A_MAX,
			  memreg_nl_dump_policy, cb->extack);
	if (err)
		return err;
	cb->args[0] = 0;
	cb->args[1] = tb[MEMREG_A_PID] ? nla_get_u32(tb[MEMREG_A_PID]) : 0;
	return 0;
}

/*
 * Who reads the dump, decided once per piece and before the RCU walk (a
 * capability check may audit).
 */
void memreg_nl_dump_init(struct memreg_nl_dump *d, struct sk_buff *skb,
			 struct netlink_callback *cb)
{
	struct sock *sk = NETLINK_CB(cb->skb).sk;

	d->skb = skb;
	d->cb = cb;
	/*
	 * The reader is who opened the socket (its file's credentials), not
	 * the credentials a sender may attach to a message.
	 */
	d->reader = INVALID_UID;
	if (sk && sk->sk_socket && sk->sk_socket->file)
		d->reader = sk->sk_socket->file->f_cred->euid;
	d->admin = netlink_capable(cb->skb, CAP_SYS_ADMIN);
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
