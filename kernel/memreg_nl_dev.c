// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_DEV_GET: dump of the emulated devices' memory.
 *
 * One message per device: its capacity, what is allocated (huge and normal)
 * and one DEV_USAGE nest {PID, COMM, DEV_ALLOC_BYTES} per process with
 * memory on it.  Should the processes not fit in one message, the device's
 * message is repeated with the next ones (same DEVICE): cb->args[0] is the
 * next device, cb->args[1] the next context id within it, cb->args[2] the
 * DEVICE filter plus one (0: every device).
 */
#include "memreg_nl.h"

int memreg_nl_dev_start(struct netlink_callback *cb)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	int err;

	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, MEMREG_A_MAX, NULL,
			  cb->extack);
	if (err)
		return err;
	cb->args[0] = 0;
	cb->args[1] = 0;
	cb->args[2] = 0;
	if (tb[MEMREG_A_DEVICE]) {
		u32 dev = nla_get_u32(tb[MEMREG_A_DEVICE]);

		if (!memreg_dev_get(dev)) {
			NL_SET_ERR_MSG_ATTR(cb->extack, tb[MEMREG_A_DEVICE],
					    "no such device");
			return -ENODEV;
		}
		cb->args[0] = dev;
		cb->args[2] = (unsigned long)dev + 1;
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
static int memreg_nl_dev_fill(struct sk_buff *skb,
			      struct netlink_callback *cb, u32 dev,
			      unsigned long *cursor)
{
	struct memreg_devmem *d = memreg_dev_get(dev);
	struct memreg_nl_dev_walk w = { .skb = skb, .dev = dev };
	u64 used, huge, normal;
	void *hdr;

	spin_lock(&d->lock);
	used = d->used;
	huge = d->huge_bytes;
	normal = d->normal_bytes;
	spin_unlock(&d->lock);

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &memreg_genl_family, NLM_F_MULTI, MEMREG_CMD_DEV_GET);
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
			      memreg_dev_ram_available())) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}

	/* Contexts are freed only after a grace period. */
	rcu_read_lock();
	memreg_walk(&memreg_ctxs, cursor, memreg_nl_dev_usage_emit, &w);
	rcu_read_unlock();
	if (w.full && !w.emitted) {
		/* no process fit beside the header: all in the next skb */
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	if (w.full)
		return 0;	/* the rest of the processes follow */
	*cursor = 0;
	return 1;
}

int memreg_nl_dev_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long dev = cb->args[0];
	unsigned long cursor = cb->args[1];
	unsigned long last = cb->args[2] ? cb->args[2] : memreg_ndevs;
	int ret;

	while (dev < last) {
		ret = memreg_nl_dev_fill(skb, cb, dev, &cursor);
		if (ret <= 0)
			break;	/* this device (again) in the next skb */
		dev++;
	}
	cb->args[0] = dev;
	cb->args[1] = cursor;
	return skb->len;
}
