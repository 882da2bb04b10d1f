// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - notifications on the "events" multicast group.
 *
 * The group is open to every user, so events carry no address and no
 * handle: only who (pid, comm, uid), what (id, type, length) and why.
 * Nothing is built when nobody listens.  Every event, the mstx heaps'
 * too (memreg_heap_event.c), begins and is sent here.
 */
#include "memreg_nl.h"

struct sk_buff *memreg_nl_event_begin(u8 cmd, void **hdr)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&memreg_genl_family, &init_net,
				MEMREG_NL_GRP_EVENTS))
		return NULL;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	*hdr = genlmsg_put(skb, 0, 0, &memreg_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(skb);
		return NULL;
	}
	return skb;
}

void memreg_nl_event_send(struct sk_buff *skb, void *hdr, int err)
{
	if (err) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&memreg_genl_family, skb, 0, MEMREG_NL_GRP_EVENTS,
			  GFP_KERNEL);
}

void memreg_event_region(const struct memreg_reg *reg, u8 cmd)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	skb = memreg_nl_event_begin(cmd, &hdr);
	if (!skb)
		return;
	err = memreg_nl_put_proc(skb, reg->ctx, MEMREG_NL_PID_GLOBAL) ||
	      nla_put_u32(skb, MEMREG_A_ID, reg->id) ||
	      nla_put_u32(skb, MEMREG_A_TYPE, reg->type) ||
	      memreg_nl_put_u64(skb, MEMREG_A_LEN, reg->len) ||
	      (reg->parent &&
	       nla_put_u32(skb, MEMREG_A_PARENT, reg->parent->id));
	memreg_nl_event_send(skb, hdr, err);
}

/* @cgrp: the cgroup whose limit refused (reason CGROUP), else NULL */
void memreg_event_refused(const struct memreg_ctx *ctx, u32 type, u64 len,
			  enum memreg_refusal why, struct cgroup *cgrp)
{
	struct sk_buff *skb;
	void *hdr;
	int err;

	skb = memreg_nl_event_begin(MEMREG_CMD_EVENT_LIMIT_REFUSED, &hdr);
	if (!skb)
		return;
	err = memreg_nl_put_proc(skb, ctx, MEMREG_NL_PID_GLOBAL) ||
	      nla_put_u32(skb, MEMREG_A_REASON, why) ||
	      nla_put_u32(skb, MEMREG_A_TYPE, type) ||
	      memreg_nl_put_u64(skb, MEMREG_A_LEN, len) ||
	      (cgrp && memreg_nl_put_cgroup(skb, cgrp, true));
	memreg_nl_event_send(skb, hdr, err);
}

void memreg_event_proc_gone(const struct memreg_ctx *ctx)
{
	struct sk_buff *skb;
	void *hdr;

	skb = memreg_nl_event_begin(MEMREG_CMD_EVENT_PROC_GONE, &hdr);
	if (!skb)
		return;
	memreg_nl_event_send(skb, hdr,
			  memreg_nl_put_proc(skb, ctx, MEMREG_NL_PID_GLOBAL));
}
