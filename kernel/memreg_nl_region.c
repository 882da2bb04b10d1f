// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_REGION_GET: dump of the registrations.
 *
 * The cursor is the next registration id.  Ids are allocated cyclically,
 * so registrations made while a dump runs appear (if their id is past the
 * cursor) or not, registrations removed simply vanish, and no other entry
 * is skipped or repeated.
 */
#include "memreg_nl.h"

static int memreg_nl_region_fill(const struct memreg_nl_dump *d,
				 const struct memreg_reg *reg)
{
	bool secrets = memreg_nl_may_see_secrets(d, reg->ctx);
	struct netlink_callback *cb = d->cb;
	struct sk_buff *skb = d->skb;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &memreg_genl_family, NLM_F_MULTI,
			  MEMREG_CMD_REGION_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (memreg_nl_put_proc(skb, reg->ctx, MEMREG_NL_PID_READER) ||
	    nla_put_u32(skb, MEMREG_A_ID, reg->id) ||
	    nla_put_u32(skb, MEMREG_A_TYPE, reg->type) ||
	    nla_put_u32(skb, MEMREG_A_ACCESS, reg->access) ||
	    memreg_nl_put_u64(skb, MEMREG_A_LEN, reg->len) ||
	    memreg_nl_put_u64(skb, MEMREG_A_PINNED_PAGES, reg->pinned_pages) ||
	    memreg_nl_put_u64(skb, MEMREG_A_AGE_MS, memreg_region_age_ms(reg)))
		goto cancel;
	if (reg->ops->fill_nl && reg->ops->fill_nl(skb, reg))
		goto cancel;
	if (nla_put_u32(skb, MEMREG_A_GRANTS, atomic_read(&reg->nr_grants)) ||
	    nla_put_u32(skb, MEMREG_A_IMPORTS, atomic_read(&reg->nr_imports)))
		goto cancel;
	if (secrets &&
	    (memreg_nl_put_u64(skb, MEMREG_A_HANDLE, reg->handle) ||
	     memreg_nl_put_u64(skb, MEMREG_A_ADDR, reg->addr)))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int memreg_nl_region_emit(void *entry, void *arg)
{
	struct memreg_nl_dump *d = arg;
	struct memreg_reg *reg = entry;
	pid_t filter = d->cb->args[1];

	if (filter && memreg_ctx_pid(reg->ctx) != filter)
		return 0;
	return memreg_nl_region_fill(d, reg);
}

int memreg_nl_region_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long cursor = cb->args[0];
	struct memreg_nl_dump d;

	memreg_nl_dump_init(&d, skb, cb);
	/* Entries and their contexts are freed only after a grace period. */
	rcu_read_lock();
	memreg_walk(&memreg_regions, &cursor, memreg_nl_region_emit, &d);
	rcu_read_unlock();
	cb->args[0] = cursor;
	return skb->len;
}
