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

static int memreg_nl_region_fill(struct memreg_nl_dump *d, void *entry)
{
	const struct memreg_reg *reg = entry;
	bool secrets = memreg_nl_may_see_secrets(d, reg->ctx);
	struct sk_buff *skb = d->skb;
	void *hdr;

	hdr = memreg_nl_dump_begin(d);
	if (!hdr)
		return -EMSGSIZE;
	if (memreg_nl_put_proc(skb, reg->ctx, MEMREG_NL_PID_READER) ||
	    nla_put_u32(skb, MEMREG_A_ID, reg->id) ||
	    nla_put_u32(skb, MEMREG_A_TYPE, reg->type) ||
	    nla_put_u32(skb, MEMREG_A_ACCESS, reg->access) ||
	    memreg_nl_put_u64(skb, MEMREG_A_LEN, reg->len) ||
	    memreg_nl_put_u64(skb, MEMREG_A_PINNED_PAGES, reg->pinned_pages) ||
	    memreg_nl_put_u64(skb, MEMREG_A_AGE_MS, memreg_reg_age_ms(reg)))
		return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
	if (reg->ops->fill_nl && reg->ops->fill_nl(skb, reg))
		return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
	/* a child: the registration whose pinned pages it shares */
	if (reg->parent && nla_put_u32(skb, MEMREG_A_PARENT, reg->parent->id))
		return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
	if (nla_put_u32(skb, MEMREG_A_GRANTS, atomic_read(&reg->nr_grants)) ||
	    nla_put_u32(skb, MEMREG_A_IMPORTS, atomic_read(&reg->nr_imports)))
		return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
	if (secrets &&
	    (memreg_nl_put_u64(skb, MEMREG_A_HANDLE, reg->handle) ||
	     memreg_nl_put_u64(skb, MEMREG_A_ADDR, reg->addr)))
		return memreg_nl_dump_end(d, hdr, -EMSGSIZE);
	return memreg_nl_dump_end(d, hdr, 0);
}

static struct memreg_ctx *memreg_nl_region_ctx(void *entry)
{
	return ((struct memreg_reg *)entry)->ctx;
}

const struct memreg_nl_dump_cmd memreg_nl_region_dump = {
	.cmd	= MEMREG_CMD_REGION_GET,
	.policy	= memreg_nl_pid_policy,
	.xa	= &memreg_regs,
	.ctx_of	= memreg_nl_region_ctx,
	.fill	= memreg_nl_region_fill,
};
