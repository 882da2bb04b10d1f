/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - generic netlink internals: the family and the helpers that the
 * per-command files (memreg_nl_*.c) share.
 */
#ifndef _MEMREG_NL_H
#define _MEMREG_NL_H

#include <net/genetlink.h>
#include "memreg_internal.h"

extern struct genl_family memreg_genl_family;

/* Index of the "events" group in the family's mcgrps. */
#define MEMREG_NL_GRP_EVENTS	0

/* Which pid numbering a message uses. */
enum memreg_nl_pidns {
	MEMREG_NL_PID_READER,	/* the reader's pid namespace (dumps) */
	MEMREG_NL_PID_GLOBAL,	/* the initial namespace (events) */
};

/*
 * The dump core (memreg_nl.c), in the manner of ethtool's ethnl_dump_ctx.
 * A dump's state between the pieces of its reply lives typed in cb->ctx:
 * the core fills it from the request when the dump starts (the pid
 * filter, and what the command's own start adds), the command's walk
 * moves the cursors.
 */
struct memreg_nl_dump_state {
	unsigned long cursor;	/* the next id of the walk */
	/* within that entry: a device's next process id, a file's next heap */
	unsigned long cursor2;
	pid_t pid;		/* only this process's entries; 0: all */
	u32 dev_end;		/* DEV_GET: one past the last device */
};

/* One piece of a dump: what a command's walk and fill functions get. */
struct memreg_nl_dump_cmd;

struct memreg_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct memreg_nl_dump_state *st;
	const struct memreg_nl_dump_cmd *c;	/* the command's row */
	kuid_t reader;		/* who asked */
	bool admin;		/* the reader has CAP_SYS_ADMIN */
};

/*
 * A dump command: its policy, an optional start that reads its own
 * request attributes into the state, and what it dumps.  Most dumps are
 * one message per entry of an xarray whose entries are freed only after
 * an RCU grace period: @xa, the process of an entry (@ctx_of, for the pid
 * filter) and @fill, one entry's message; the core walks.  A dump of
 * another shape has a @walk of its own, which emits entries from the
 * state's cursors until it is done or the skb is full.
 */
struct memreg_nl_dump_cmd {
	u8 cmd;
	const struct nla_policy *policy;	/* [MEMREG_A_MAX + 1] */
	int (*start)(struct memreg_nl_dump_state *st, struct nlattr **tb,
		     struct netlink_ext_ack *extack);
	struct xarray *xa;
	struct memreg_ctx *(*ctx_of)(void *entry);
	int (*fill)(struct memreg_nl_dump *d, void *entry);
	void (*walk)(struct memreg_nl_dump *d);
};

extern const struct memreg_nl_dump_cmd memreg_nl_proc_dump;
extern const struct memreg_nl_dump_cmd memreg_nl_region_dump;
extern const struct memreg_nl_dump_cmd memreg_nl_dev_dump;
extern const struct memreg_nl_dump_cmd memreg_nl_heap_dump;

/* The policy of the dumps that take only the pid filter; DEV_GET's. */
extern const struct nla_policy memreg_nl_pid_policy[MEMREG_A_MAX + 1];
extern const struct nla_policy memreg_nl_dev_policy[MEMREG_A_MAX + 1];

/* A dump entry's message: begin, then end (0) or cancel (-EMSGSIZE). */
void *memreg_nl_dump_begin(struct memreg_nl_dump *d);
int memreg_nl_dump_end(struct memreg_nl_dump *d, void *hdr, int err);
/* Whether the pid filter leaves out @ctx's entries. */
bool memreg_nl_dump_skip(const struct memreg_nl_dump *d,
			 const struct memreg_ctx *ctx);
bool memreg_nl_may_see_secrets(const struct memreg_nl_dump *d,
			       const struct memreg_ctx *ctx);

int memreg_nl_put_u64(struct sk_buff *skb, int attr, u64 value);
int memreg_nl_put_proc(struct sk_buff *skb, const struct memreg_ctx *ctx,
		       enum memreg_nl_pidns ns);

/*
 * CGROUP_ID and CGROUP (memreg_nl_cgroup.c): the path in the reader's
 * cgroup namespace, or with @global (events) from the hierarchy's root;
 * a path longer than MEMREG_NL_CGROUP_PATH_MAX bytes is left out.
 */
#define MEMREG_NL_CGROUP_PATH_MAX	1024
struct cgroup;
int memreg_nl_put_cgroup(struct sk_buff *skb, struct cgroup *cgrp,
			 bool global);
int memreg_nl_put_cgroup_id(struct sk_buff *skb, u64 id);
extern const struct memreg_nl_dump_cmd memreg_nl_cgroup_dump;
extern const struct nla_policy memreg_nl_cgroup_dump_policy[MEMREG_A_MAX + 1];
extern const struct nla_policy memreg_nl_cgroup_set_policy[MEMREG_A_MAX + 1];
extern const struct nla_policy memreg_nl_headroom_policy[MEMREG_A_MAX + 1];
struct cgroup *memreg_nl_cgroup_dir(const struct nlattr *attr,
				    struct netlink_ext_ack *extack, bool set,
				    bool admin);
int memreg_nl_cgroup_set_doit(struct sk_buff *skb, struct genl_info *info);
int memreg_nl_headroom_doit(struct sk_buff *skb, struct genl_info *info);

/* Events (memreg_nl_event.c): every one is built and sent there. */
struct sk_buff *memreg_nl_event_begin(u8 cmd, void **hdr);
void memreg_nl_event_send(struct sk_buff *skb, void *hdr, int err);

int memreg_nl_stats_doit(struct sk_buff *skb, struct genl_info *info);
int memreg_nl_limits_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _MEMREG_NL_H */
