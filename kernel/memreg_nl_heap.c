// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_CMD_HEAP_GET: dump of the mstx heaps, one message per
 * heap (and one for the regions of a file that lie outside every heap).
 *
 * The cursor is two numbers: the set (file) id and the next heap key of
 * that set (the dump state's cursor and cursor2).  Heaps are read under
 * their set's mutex, so a row is one consistent snapshot of its heap.
 */
#include "memreg_nl.h"
#include "memreg_heap.h"

static int memreg_nl_heap_u64(struct sk_buff *skb, int attr, u64 value)
{
	return nla_put_u64_64bit(skb, attr, value, MEMREG_HEAP_A_PAD);
}

static int memreg_nl_heap_nest(struct sk_buff *skb,
			       const struct memreg_mstx_heap *heap,
			       bool secrets)
{
	const struct memreg_mstx_counts *c = &heap->c;
	struct nlattr *nest;

	nest = nla_nest_start(skb, MEMREG_A_HEAP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MEMREG_HEAP_A_ID, heap->id) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_REGIONS, c->regions) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_REGION_BYTES, c->bytes) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_PEAK_REGIONS,
			       c->peak_regions) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_PEAK_BYTES, c->peak_bytes) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_OUT_OF_HEAP,
			       c->viol[MEMREG_VIOL_OUT_OF_HEAP]) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_UNKNOWN,
			       c->viol[MEMREG_VIOL_UNKNOWN]) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_DUPLICATE,
			       c->viol[MEMREG_VIOL_DUPLICATE]) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_REFUSED,
			       c->viol[MEMREG_VIOL_REFUSED]) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_DROPPED, c->dropped) ||
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_AGE_MS,
			       ktime_ms_delta(ktime_get(), heap->created)))
		return -EMSGSIZE;
	/* the none heap has no range, name or device of its own */
	if (heap->id &&
	    (nla_put_string(skb, MEMREG_HEAP_A_DOMAIN, heap->domain) ||
	     nla_put_u32(skb, MEMREG_HEAP_A_DEVICE, heap->device) ||
	     memreg_nl_heap_u64(skb, MEMREG_HEAP_A_SIZE, heap->size) ||
	     nla_put_u32(skb, MEMREG_HEAP_A_UTIL, memreg_heap_util(heap))))
		return -EMSGSIZE;
	if (heap->id && secrets &&
	    memreg_nl_heap_u64(skb, MEMREG_HEAP_A_ADDR, heap->addr))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int memreg_nl_heap_emit(struct memreg_heaps *set,
			       struct memreg_mstx_heap *heap, void *arg)
{
	struct memreg_nl_dump *d = arg;
	void *hdr;

	if (memreg_nl_dump_skip(d, set->ctx))
		return 0;
	hdr = memreg_nl_dump_begin(d);
	if (!hdr)
		return -EMSGSIZE;
	return memreg_nl_dump_end(d, hdr,
		memreg_nl_put_proc(d->skb, set->ctx, MEMREG_NL_PID_READER) ||
		memreg_nl_heap_nest(d->skb, heap,
				    memreg_nl_may_see_secrets(d, set->ctx)));
}

static void memreg_nl_heap_walk(struct memreg_nl_dump *d)
{
	memreg_heap_walk(&d->st->cursor, &d->st->cursor2, memreg_nl_heap_emit,
			 d);
}

const struct memreg_nl_dump_cmd memreg_nl_heap_dump = {
	.cmd	= MEMREG_CMD_HEAP_GET,
	.policy	= memreg_nl_pid_policy,
	.walk	= memreg_nl_heap_walk,
};
