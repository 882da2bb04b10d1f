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
 * the entries alive (rcu_read_lock() here); @emit must not sleep.
 *
 * One xa_state serves the whole walk, so each step moves on within the
 * node it is in.  xa_for_each_start() searched again from the root for
 * every entry (xa_find_after(), with an RCU read section of its own),
 * which in a dump of 100,000 registrations was a descent of the tree per
 * row.  The state needs the RCU read lock across the steps; nested in
 * the caller's, it costs nothing more.
 */
unsigned long memreg_walk(struct xarray *xa, unsigned long *cursor,
			  int (*emit)(void *entry, void *arg), void *arg)
{
	XA_STATE(xas, xa, *cursor);
	unsigned long n = 0;
	void *entry;

	rcu_read_lock();
	xas_for_each(&xas, entry, ULONG_MAX) {
		/* a node being replaced, or an id reserved but not stored */
		if (xas_retry(&xas, entry))
			continue;
		if (emit(entry, arg))
			break;
		*cursor = xas.xa_index + 1;
		n++;
	}
	rcu_read_unlock();
	return n;
}
MEMREG_EXPORT_FOR_KUNIT(memreg_walk);
