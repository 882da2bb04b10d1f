/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - generic netlink internals: the family and the helpers that the
 * per-command files (memreg_nl_*.c) share.
 */
#ifndef _MEMREG_NL_H
#define _MEMREG_NL_H

#include <net/genetlink.h>
#include "memreg.h"

extern struct genl_family memreg_genl_family;

/* Index of the "events" group in the family's mcgrps. */
#define MEMREG_NL_GRP_EVENTS	0

/* Which pid numbering a message uses. */
enum memreg_nl_pidns {
	MEMREG_NL_PID_READER,	/* the reader's pid namespace (dumps) */
	MEMREG_NL_PID_GLOBAL,	/* the initial namespace (events) */
};

/* What a dump's memreg_walk() callback needs. */
struct memreg_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	kuid_t reader;		/* who asked */
	bool admin;		/* the reader has CAP_SYS_ADMIN */
};

int memreg_nl_put_u64(struct sk_buff *skb, int attr, u64 value);
int memreg_nl_put_proc(struct sk_buff *skb, const struct memreg_ctx *ctx,
		       enum memreg_nl_pidns ns);
int memreg_nl_dump_filter(struct netlink_callback *cb);
void memreg_nl_dump_init(struct memreg_nl_dump *d, struct sk_buff *skb,
			 struct netlink_callback *cb);
bool memreg_nl_may_see_secrets(const struct memreg_nl_dump *d,
			       const struct memreg_ctx *ctx);

int memreg_nl_stats_doit(struct sk_buff *skb, struct genl_info *info);
int memreg_nl_proc_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int memreg_nl_region_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int memreg_nl_limits_doit(struct sk_buff *skb, struct genl_info *info);
int memreg_nl_dev_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int memreg_nl_dev_start(struct netlink_callback *cb);

/* memreg_nl_heap.c: MEMREG_CMD_HEAP_GET, its policy and .start */
extern const struct nla_policy memreg_nl_heap_policy[MEMREG_A_MAX + 1];
int memreg_nl_heap_start(struct netlink_callback *cb);
int memreg_nl_heap_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _MEMREG_NL_H */
