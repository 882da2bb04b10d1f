// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_EVENT_HEAP on the "events" multicast group: heaps
 * that come and go, and rule violations (once per kind, heap and batch,
 * with a count, so that a program breaking the rules a million times does
 * not send a million messages).  Open to every user: no address.
 */
#include "memreg_nl.h"
#include "memreg_heap.h"

void memreg_heap_event(const struct memreg_ctx *ctx,
		       const struct memreg_mstx_heap *heap,
		       enum memreg_heap_event ev, u64 count, u64 bytes)
{
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	skb = memreg_nl_event_begin(MEMREG_CMD_EVENT_HEAP, &hdr);
	if (!skb)
		return;
	if (memreg_nl_put_proc(skb, ctx, MEMREG_NL_PID_GLOBAL))
		goto err;
	nest = nla_nest_start(skb, MEMREG_A_HEAP);
	if (!nest ||
	    nla_put_u32(skb, MEMREG_HEAP_A_EVENT, ev) ||
	    nla_put_u32(skb, MEMREG_HEAP_A_ID, heap->id))
		goto err;
	if (heap->id &&
	    (nla_put_string(skb, MEMREG_HEAP_A_DOMAIN, heap->domain) ||
	     nla_put_u32(skb, MEMREG_HEAP_A_DEVICE, heap->device) ||
	     nla_put_u64_64bit(skb, MEMREG_HEAP_A_SIZE, heap->size,
			       MEMREG_HEAP_A_PAD)))
		goto err;
	if (count &&
	    (nla_put_u64_64bit(skb, MEMREG_HEAP_A_COUNT, count,
			       MEMREG_HEAP_A_PAD) ||
	     nla_put_u64_64bit(skb, MEMREG_HEAP_A_BYTES, bytes,
			       MEMREG_HEAP_A_PAD)))
		goto err;
	nla_nest_end(skb, nest);
	memreg_nl_event_send(skb, hdr, 0);
	return;
err:
	memreg_nl_event_send(skb, hdr, -EMSGSIZE);
}
