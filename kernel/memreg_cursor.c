// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - resumable walks over an xarray of registrations or processes.
 *
 * The netlink dumps and MEMREG_IOC_QUERY return long lists in pieces.  The
 * cursor is the next index to visit, so entries added or removed between
 * pieces neither repeat nor hide the entries that stay.
 */
#include "memreg_internal.h"

/*
 * Visit the entries of @xa from *@cursor on.  @emit returns 0 when it has
 * consumed an entry (written it, or filtered it out) and nonzero when it
 * has no room: the walk stops and *@cursor still points at that entry.
 * Returns the number of entries consumed.  The caller holds whatever keeps
 * the entries alive (rcu_read_lock() here).
 */
unsigned long memreg_walk(struct xarray *xa, unsigned long *cursor,
			  int (*emit)(void *entry, void *arg), void *arg)
{
	unsigned long id, n = 0;
	void *entry;

	xa_for_each_start(xa, id, entry, *cursor) {
		if (emit(entry, arg))
			break;
		*cursor = id + 1;
		n++;
	}
	return n;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_walk);
