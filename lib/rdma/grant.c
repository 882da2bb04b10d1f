// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-rdma.so: grants, a peer's remote key for one MR (rdma_int.h).
 *
 * Where the device has type 2 memory windows (rxe and ConnectX do), the
 * MRs themselves allow no remote access at all, and a peer reaches a
 * registration only through a window bound to that MR on the queue pair
 * that serves it: its rkey is refused on every other queue pair, and a
 * registration made after the peer connected has no window of the peer
 * (there is no key to guess).  So what a peer may reach is exactly what
 * it was granted at Connect, as long as both its queue pair and the MR
 * live: mr_dereg deallocates the MR's windows first and qp_destroy the
 * queue pair's, each revoking its rkeys before returning.
 *
 * Without memory windows (the device has none, or
 * MEMREG_ADXL_RDMA_WINDOWS=0) a grant is the MR's own rkey, which every
 * queue pair of ours accepts: the allow-list at Connect is then the
 * barrier, and describe() says so.
 *
 * A window is bound by a work request on the serving queue pair, which
 * nothing else posts to (its peer initiates, we only answer), waited for
 * on its completion queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdma_int.h"

/* The wr_id of a bind: xfer's are (seq << 32 | index), never this. */
#define BIND_WR_ID	UINT64_MAX

/* Wait for the bind's completion on @q's CQ: its status, or -ETIMEDOUT. */
static int bind_wait(struct adxl_rdma_qp *q, struct ibv_wc *wc)
{
	const struct timespec pause = { .tv_nsec = 100 * 1000 };
	int64_t deadline = rdmap_now_ms() + DRAIN_MS;
	int n;

	for (;;) {
		n = ibv_poll_cq(q->cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n && wc->wr_id == BIND_WR_ID)
			return 0;
		/* nothing else is ever posted on a serving queue pair */
		if (rdmap_now_ms() > deadline)
			return -ETIMEDOUT;
		if (!n)
			nanosleep(&pause, NULL);
	}
}

int rdmap_mr_grant(struct adxl_rdma_qp *q, struct adxl_rdma_mr *m,
		   uint32_t *rkey, char *err)
{
	struct adxl_rdma *r = q->r;
	struct ibv_send_wr wr = { 0 }, *bad = NULL;
	struct adxl_rdma_grant *g;
	struct ibv_wc wc;
	int e;

	if (!r->windows) {
		*rkey = m->mr->rkey;
		return 0;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		rdmap_say(err, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	g->mw = ibv_alloc_mw(r->pd, IBV_MW_TYPE_2);
	if (!g->mw) {
		e = errno ? errno : EIO;
		rdmap_say(err, "ibv_alloc_mw: %s", strerror(e));
		free(g);
		return e == ENOMEM ? -ENOMEM : -EIO;
	}
	wr.wr_id = BIND_WR_ID;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = g->mw;
	/* a type 2 window takes a key the consumer picks: the next one */
	wr.bind_mw.rkey = ibv_inc_rkey(g->mw->rkey);
	wr.bind_mw.bind_info.mr = m->mr;
	wr.bind_mw.bind_info.addr = m->addr;
	wr.bind_mw.bind_info.length = m->len;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ |
					       IBV_ACCESS_REMOTE_WRITE;

	pthread_mutex_lock(&q->lock);
	e = q->qp ? ibv_post_send(q->qp, &wr, &bad) : EINVAL;
	if (e) {
		pthread_mutex_unlock(&q->lock);
		rdmap_say(err, "binding a memory window: ibv_post_send: %s",
			  strerror(e));
		goto fail;
	}
	e = bind_wait(q, &wc);
	pthread_mutex_unlock(&q->lock);
	if (e || wc.status != IBV_WC_SUCCESS) {
		rdmap_say(err, "binding a memory window: %s",
			  e ? strerror(-e) : ibv_wc_status_str(wc.status));
		/* the queue pair may hold the bind yet: it is no use now */
		__atomic_store_n(&q->failed, true, __ATOMIC_RELAXED);
		e = -EIO;
		goto fail;
	}
	g->rkey = wr.bind_mw.rkey;
	g->m = m;
	g->q = q;
	pthread_mutex_lock(&r->lock);
	g->next = r->grants;
	r->grants = g;
	pthread_mutex_unlock(&r->lock);
	*rkey = g->rkey;
	return 0;

fail:
	ibv_dealloc_mw(g->mw);
	free(g);
	return e < 0 ? e : -EIO;
}

/*
 * Revoke every grant of MR @m (or of queue pair @q): deallocating a
 * window invalidates its rkey before ibv_dealloc_mw() returns.
 */
void rdmap_grants_revoke(struct adxl_rdma *r, const struct adxl_rdma_mr *m,
			 const struct adxl_rdma_qp *q)
{
	struct adxl_rdma_grant **pp, *g, *gone = NULL;

	pthread_mutex_lock(&r->lock);
	for (pp = &r->grants; (g = *pp);) {
		if ((m && g->m == m) || (q && g->q == q)) {
			*pp = g->next;
			g->next = gone;
			gone = g;
		} else {
			pp = &g->next;
		}
	}
	pthread_mutex_unlock(&r->lock);
	while ((g = gone)) {
		gone = g->next;
		ibv_dealloc_mw(g->mw);
		free(g);
	}
}
