// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): memory regions.
 *
 * Keys come from one counter and are never reused, so an rkey that was
 * deregistered finds nothing ever after: what a NIC guarantees once
 * ibv_dereg_mr() has returned, and what lets a test tell a revoked key
 * from a recycled one.
 *
 * Type 2 memory windows: allocated free, bound by an IBV_WR_BIND_MW work
 * request (the wire runs fv_mw_bind()), after which their rkey reaches
 * their range of the MR through the queue pair they were bound on, and
 * through no other; deallocating one kills its rkey.
 */
#include <errno.h>
#include <stdlib.h>

#include "fake_int.h"

/* verbs.h makes ibv_reg_mr() an inline choosing between two symbols. */
#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			  int access)
{
	struct fmr *m;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_REG_MR);
	/* The verbs rule: a remote may write only where we may. */
	if (!e && (access & IBV_ACCESS_REMOTE_WRITE) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		e = EINVAL;
	m = e ? NULL : calloc(1, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = fv.next_key++;
	m->mr.rkey = fv.next_key++;
	m->access = access;
	m->next = fv.mrs;
	fv.mrs = m;
	((struct fpd *)pd)->mrs++;
	fv.live[LIVE_MR]++;
	pthread_mutex_unlock(&fv.lock);
	return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct fmr **pp;
	struct fmw *w;

	pthread_mutex_lock(&fv.lock);
	for (pp = &fv.mrs; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mr == mr)
			break;
	}
	if (!*pp) {
		fv_misuse_add("ibv_dereg_mr of an MR that is not registered");
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	/* NICs refuse it: the windows' rkeys would outlive the MR's */
	for (w = fv.mws; w; w = w->next) {
		if (w->mr == *pp) {
			fv_misuse_add("ibv_dereg_mr of an MR with a memory window bound");
			pthread_mutex_unlock(&fv.lock);
			return EBUSY;
		}
	}
	*pp = (*pp)->next;
	((struct fpd *)mr->pd)->mrs--;
	if (fv.live[LIVE_MR])
		fv.live[LIVE_MR]--;
	pthread_mutex_unlock(&fv.lock);
	free((struct fmr *)mr);
	return 0;
}

/*
 * Under fv.lock: whether the MR of @key (an rkey if @remote) is in @pd,
 * holds all of [@addr, +@len) and allows @access; else the status a NIC
 * completes the work request with.
 */
static bool inside(uint64_t addr, uint64_t len, uint64_t start, uint64_t n)
{
	return addr >= start && len <= n && addr - start <= n - len;
}

enum ibv_wc_status fv_mr_check(uint32_t key, bool remote, struct fqp *q,
				 uint64_t addr, uint64_t len, int access)
{
	const enum ibv_wc_status bad = remote ? IBV_WC_REM_ACCESS_ERR :
						IBV_WC_LOC_PROT_ERR;
	struct ibv_pd *pd = q->qp.pd;
	struct fmw *w;
	struct fmr *m;

	/* a window's rkey: bound, on this queue pair, its range, its rights */
	for (w = remote ? fv.mws : NULL; w; w = w->next) {
		if (!w->mr || w->mw.rkey != key)
			continue;
		if (w->qp != q || (w->access & access) != access ||
		    !inside(addr, len, w->addr, w->len))
			return bad;
		return IBV_WC_SUCCESS;
	}

	for (m = fv.mrs; m; m = m->next) {
		uint64_t start = (uintptr_t)m->mr.addr;

		if ((remote ? m->mr.rkey : m->mr.lkey) != key)
			continue;
		if (m->mr.pd != pd || (m->access & access) != access ||
		    !inside(addr, len, start, m->mr.length))
			return bad;
		return IBV_WC_SUCCESS;
	}
	return bad;
}

struct ibv_mw *fv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	const struct fake_device *d = &((struct fctx *)pd->context)->d->cfg;
	struct fmw *w;

	if (d->no_windows || type != IBV_MW_TYPE_2) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&fv.lock);
	w->mw.context = pd->context;
	w->mw.pd = pd;
	w->mw.type = type;
	/* the key byte is the consumer's: a bind must change it */
	w->mw.rkey = (fv.next_key++ << 8) & ~0xffU;
	w->next = fv.mws;
	fv.mws = w;
	fv.live[LIVE_MW]++;
	pthread_mutex_unlock(&fv.lock);
	return &w->mw;
}

int fv_dealloc_mw(struct ibv_mw *mw)
{
	struct fmw **pp;

	pthread_mutex_lock(&fv.lock);
	for (pp = &fv.mws; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mw == mw)
			break;
	}
	if (!*pp) {
		fv_misuse_add("ibv_dealloc_mw of a window that is not allocated");
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	*pp = (*pp)->next;
	if (fv.live[LIVE_MW])
		fv.live[LIVE_MW]--;
	pthread_mutex_unlock(&fv.lock);
	free((struct fmw *)mw);
	return 0;
}

/*
 * Under fv.lock: the bind of @w on @q, as a NIC checks it: a free window
 * of the queue pair's PD, a new key of the same index, an MR of that PD
 * that allows binding (and local writes, for remote writes), the range
 * inside it.
 */
enum ibv_wc_status fv_mw_bind(struct fqp *q, const struct fwr *w)
{
	struct fmw *mw;
	struct fmr *m;

	if (fv_failing(FAKE_BIND))
		return IBV_WC_MW_BIND_ERR;
	for (mw = fv.mws; mw; mw = mw->next)
		if (&mw->mw == w->mw)
			break;
	for (m = fv.mrs; m; m = m->next)
		if (&m->mr == w->bind.mr)
			break;
	if (!mw || !m || mw->mr || mw->mw.pd != q->qp.pd ||
	    m->mr.pd != q->qp.pd || !(m->access & IBV_ACCESS_MW_BIND) ||
	    (w->rkey & ~0xffU) != (mw->mw.rkey & ~0xffU) ||
	    w->rkey == mw->mw.rkey ||
	    ((w->bind.mw_access_flags & IBV_ACCESS_REMOTE_WRITE) &&
	     !(m->access & IBV_ACCESS_LOCAL_WRITE)) ||
	    !inside(w->bind.addr, w->bind.length, (uintptr_t)m->mr.addr,
		    m->mr.length))
		return IBV_WC_MW_BIND_ERR;
	mw->mr = m;
	mw->qp = q;
	mw->addr = w->bind.addr;
	mw->len = w->bind.length;
	mw->access = (int)w->bind.mw_access_flags;
	mw->mw.rkey = w->rkey;
	return IBV_WC_SUCCESS;
}
