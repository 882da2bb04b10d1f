// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - pure arithmetic: range validation, limit checks, handles.
 *
 * Nothing here touches global state: each function reads only what it is
 * given (the memory types too), so KUnit (memreg_kunit.c) can test every
 * edge (overflow, exact limit, unlimited) directly.
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/export.h>
#include <linux/limits.h>
#include "memreg_internal.h"

/*
 * Validate a user range and compute the page-aligned start and the number of
 * PAGE_SIZE pages it spans.  The range must not wrap, and neither may its
 * page-aligned end.  -EINVAL for a malformed range; whether it is mapped is
 * for the pinning code to find out.
 */
int memreg_check_range(u64 addr, u64 len, u64 *first, unsigned long *npages)
{
	u64 end, aligned_end, start;

	if (!len)
		return -EINVAL;
	if (check_add_overflow(addr, len, &end))
		return -EINVAL;
	aligned_end = round_up(end, PAGE_SIZE);
	if (aligned_end < end)
		return -EINVAL;
	start = round_down(addr, PAGE_SIZE);
	if ((aligned_end - start) >> PAGE_SHIFT > ULONG_MAX / sizeof(void *))
		return -EINVAL;
	*first = start;
	*npages = (aligned_end - start) >> PAGE_SHIFT;
	return 0;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_check_range);

/*
 * Is [@addr, @addr + @len) inside [@base, @base + @blen)?  No sum is
 * formed, so no input can wrap around.
 */
bool memreg_range_inside(u64 base, u64 blen, u64 addr, u64 len)
{
	return addr >= base && addr - base <= blen && len <= blen - (addr - base);
}
MEMREG_EXPORT_FOR_KUNIT(memreg_range_inside);

/*
 * May a process with usage @use and limits @lim register @len more bytes of
 * @type?  @types says which limit each type counts against (the module's
 * memreg_mem_types).  Each reason of refusal has its own errno (see the
 * UAPI header).  A registration of no bytes (one that shares the pages of
 * another, memreg_share.c) is one registration more and nothing else: no
 * byte limit refuses it, even one an administrator set below the bytes
 * held already.
 */
int memreg_check_limits(const struct memreg_usage *use,
			const struct memreg_limits *lim,
			const struct memreg_mem_ops *const *types, u32 type,
			u64 len, enum memreg_refusal *why)
{
	u32 lt = types[type]->limit_type, t;
	bool wrapped = false;
	u64 sum = len;

	if (use->regions >= lim->max_regions) {
		*why = MEMREG_REFUSED_REGIONS;
		return -EMFILE;
	}
	if (!len)
		return 0;
	/*
	 * Each limit has its own refusal and errno, and counts the bytes of
	 * every type charged against it (dma-buf bytes are device bytes).
	 */
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		/* a sum that wraps must not look small */
		if (types[t]->limit_type == lt &&
		    check_add_overflow(sum, use->bytes[t], &sum))
			wrapped = true;
	}
	if (wrapped || sum > lim->max_bytes[lt]) {
		*why = types[type]->over_limit;
		return types[type]->over_limit_errno;
	}
	return 0;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_check_limits);

/* Per-process values where an administrator set them, defaults elsewhere. */
void memreg_effective_limits(const struct memreg_limits *own,
			     unsigned int overridden,
			     const struct memreg_limits *defaults,
			     struct memreg_limits *out)
{
	int t;

	out->max_regions = overridden & MEMREG_OVR_REGIONS ?
			   own->max_regions : defaults->max_regions;
	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		out->max_bytes[t] = overridden & MEMREG_OVR_BYTES(t) ?
				    own->max_bytes[t] : defaults->max_bytes[t];
}
MEMREG_EXPORT_FOR_KUNIT(memreg_effective_limits);

/*
 * A handle is the registration's id (low 32 bits, what the registry is
 * keyed by) and a random cookie (high 32 bits).  The cookie is never shown
 * to other users, so a handle cannot be guessed from the id alone.
 */
u64 memreg_handle_make(u32 id, u32 cookie)
{
	return (u64)cookie << 32 | id;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_handle_make);

u32 memreg_handle_id(u64 handle)
{
	return lower_32_bits(handle);
}
MEMREG_EXPORT_FOR_KUNIT(memreg_handle_id);

/*
 * May @len more bytes be charged where @use is charged and @max the
 * limit (MEMREG_UNLIMITED: none)?  No sum is formed, so none can wrap.
 */
bool memreg_fits(u64 use, u64 max, u64 len)
{
	if (max == MEMREG_UNLIMITED)
		return true;
	return len <= max && use <= max - len;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_fits);

/* A headroom row before any limit is looked at: nothing limits it. */
void memreg_room_init(struct memreg_room *room)
{
	memset(room, 0, sizeof(*room));
	room->bytes = MEMREG_UNLIMITED;
	room->limit = MEMREG_UNLIMITED;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_room_init);

/*
 * One more limit on a headroom row: @limit (MEMREG_UNLIMITED: none, the
 * row stays), of which @used is taken.  The row keeps the limit that
 * leaves the least; of two that leave as much, the first given (callers
 * give the process's, then the cgroups' from the caller's up).  Charges
 * above a limit (one lowered below them) leave 0, not a wrapped figure.
 */
void memreg_room_min(struct memreg_room *room, u32 by, u64 limit, u64 used,
		     u64 cgroup_id)
{
	u64 left;

	if (limit == MEMREG_UNLIMITED)
		return;
	left = limit > used ? limit - used : 0;
	if (room->by != MEMREG_ROOM_BY_NONE && left >= room->bytes)
		return;
	room->bytes = left;
	room->limit = limit;
	room->used = used;
	room->by = by;
	room->cgroup_id = by == MEMREG_ROOM_BY_CGROUP ? cgroup_id : 0;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_room_min);
