// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_DEV_GET: dump of the emulated devices' memory.
 *
 * One message per device: its capacity, what is allocated (huge and normal)
 * and one DEV_USAGE nest {PID, COMM, DEV_ALLOC_BYTES} per process with
 * memory on it.  Should the processes not fit in one message, the device's
 * message is repeated with the next ones (same DEVICE).  In the dump
 * state: cursor is the next device, cursor2 the next context id within
 * it, dev_end one past the last device to dump (the DEVICE filter's).
 */
#include "memreg_nl.h"

const struct nla_policy memreg_nl_dev_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_DEVICE]		= { .type = NLA_U32 },
};

static int memreg_nl_dev_start(struct memreg_nl_dump_state *st,
			       struct nlattr **tb,
			       struct netlink_ext_ack *extack)
{
	st->dev_end = memreg_ndevs;
	if (tb[MEMREG_A_DEVICE]) {
		u32 dev = nla_get_u32(tb[MEMREG_A_DEVICE]);

		if (!memreg_dev_get(dev)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MEMREG_A_DEVICE],
					    "no such device");
			return -ENODEV;
		}
		st->cursor = dev;
		st->dev_end = dev + 1;
	}
	return 0;
}

struct memreg_nl_dev_walk {
	struct sk_buff *skb;
	u32 dev;
	unsigned int emitted;
	bool full;		/* stopped for want of room */
};

static int memreg_nl_dev_usage_emit(void *entry, void *arg)
{
	struct memreg_nl_dev_walk *w = arg;
	struct memreg_ctx *ctx = entry;
	struct nlattr *nest;
	u64 bytes;

	bytes = memreg_ctx_dev_alloc_bytes(ctx, w->dev);
	if (!bytes)
		return 0;

	nest = nla_nest_start(w->skb, MEMREG_A_DEV_USAGE);
	if (!nest)
		goto full;
	if (memreg_nl_put_proc(w->skb, ctx, MEMREG_NL_PID_READER) ||
	    memreg_nl_put_u64(w->skb, MEMREG_A_DEV_ALLOC_BYTES, bytes)) {
		nla_nest_cancel(w->skb, nest);
		goto full;
	}
	nla_nest_end(w->skb, nest);
	w->emitted++;
	return 0;
full:
	w->full = true;
	return -EMSGSIZE;
}

/*
 * One message for device @dev, processes from *@cursor on.  Returns 1 if
 * every process fit, 0 if some are left for another message, or -EMSGSIZE
 * if not even the header fit.
 */
static int memreg_nl_dev_fill(struct memreg_nl_dump *dump, u32 dev,
			      unsigned long *cursor)
{
	struct memreg_devmem *d = memreg_dev_get(dev);
	struct sk_buff *skb = dump->skb;
	struct memreg_nl_dev_walk w = { .skb = skb, .dev = dev };
	u64 used, huge, normal;
	void *hdr;

	spin_lock(&d->lock);
	used = d->used;
	huge = d->huge_bytes;
	normal = d->normal_bytes;
	spin_unlock(&d->lock);

	hdr = memreg_nl_dump_begin(dump);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MEMREG_A_DEVICE, dev) ||
	    memreg_nl_put_u64(skb, MEMREG_A_CAPACITY,
			      memreg_dev_capacity_bytes()) ||
	    memreg_nl_put_u64(skb, MEMREG_A_USED_BYTES, used) ||
	    memreg_nl_put_u64(skb, MEMREG_A_HUGE_BYTES, huge) ||
	    memreg_nl_put_u64(skb, MEMREG_A_NORMAL_BYTES, normal) ||
	    memreg_nl_put_u64(skb, MEMREG_A_RAM_RESERVE,
			      memreg_dev_ram_reserve_bytes()) ||
	    memreg_nl_put_u64(skb, MEMREG_A_RAM_AVAILABLE,
			      memreg_dev_ram_available()))
		return memreg_nl_dump_end(dump, hdr, -EMSGSIZE);

	/* Contexts are freed only after a grace period. */
	rcu_read_lock();
	memreg_walk(&memreg_ctxs, cursor, memreg_nl_dev_usage_emit, &w);
	rcu_read_unlock();
	/* no process fit beside the header: all in the next skb */
	if (w.full && !w.emitted)
		return memreg_nl_dump_end(dump, hdr, -EMSGSIZE);
	memreg_nl_dump_end(dump, hdr, 0);
	if (w.full)
		return 0;	/* the rest of the processes follow */
	*cursor = 0;
	return 1;
}

static void memreg_nl_dev_walk(struct memreg_nl_dump *d)
{
	struct memreg_nl_dump_state *st = d->st;

	while (st->cursor < st->dev_end) {
		if (memreg_nl_dev_fill(d, st->cursor, &st->cursor2) <= 0)
			break;	/* this device (again) in the next skb */
		st->cursor++;
	}
}

const struct memreg_nl_dump_cmd memreg_nl_dev_dump = {
	.cmd	= MEMREG_CMD_DEV_GET,
	.policy	= memreg_nl_dev_policy,
	.start	= memreg_nl_dev_start,
	.walk	= memreg_nl_dev_walk,
};
