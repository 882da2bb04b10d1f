// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_HEAP_GET (placeholder until the mstx work lands).
 */
#include "memreg_nl.h"

const struct nla_policy memreg_nl_heap_policy[MEMREG_A_MAX + 1] = {
};

int memreg_nl_heap_start(struct netlink_callback *cb)
{
	return -EOPNOTSUPP;
}

int memreg_nl_heap_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return 0;
}
