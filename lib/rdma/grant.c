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
 * on its completion queue.  A bind that fails takes the queue pair to
 * the error state, where it is no use any more (the engine refuses RDMA
 * on that link); one that does not complete in DRAIN_MS destroys the
 * queue pair's verbs object first, so that the NIC is done with the
 * window before it is deallocated, as xfer does with a wedged NIC.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdma_int.h"

/*
 * The wr_id of a bind: a flag over this queue pair's count of binds, so
 * that a late completion of an earlier bind is never taken for this one
 * (xfer's wr_ids are on client queue pairs, where nothing is bound).
 */
#define BIND_WR_FLAG	(1ULL << 63)

/*
 * Wait for the completion of bind @wr_id on @q's CQ: 0 with it in *wc,
 * or -ETIMEDOUT.  Nothing else is posted on a serving queue pair, and a
 * bind never outlives its call, so another completion is not expected;
 * it would be dropped.
 */
static int bind_wait(struct adxl_plugin_ep *q, uint64_t wr_id,
		     struct ibv_wc *wc)
{
	const struct timespec pause = { .tv_nsec = 100 * 1000 };
	int64_t deadline = rdmap_now_ms() + DRAIN_MS;
	int n;

	for (;;) {
		n = ibv_poll_cq(q->cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n && wc->wr_id == wr_id)
			return 0;
		if (rdmap_now_ms() > deadline)
			return -ETIMEDOUT;
		if (!n)
			nanosleep(&pause, NULL);
	}
}

/*
 * The bind failed or never completed: the queue pair is failed, and if
 * the bind may still be in the NIC, its verbs object goes now (the NIC
 * is done with it when ibv_destroy_qp() returns).  Under q->lock.
 */
static void bind_failed(struct adxl_plugin_ep *q, bool pending)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	__atomic_store_n(&q->failed, true, __ATOMIC_RELAXED);
	if (!q->qp)
		return;
	if (!pending) {
		ibv_modify_qp(q->qp, &attr, IBV_QP_STATE);
		return;
	}
	if (!ibv_destroy_qp(q->qp))
		q->qp = NULL;
}

int rdmap_mr_grant(struct adxl_plugin_ep *q, struct adxl_plugin_mem *m,
		   uint32_t *rkey, char *err)
{
	struct adxl_plugin_ctx *r = q->r;
	struct ibv_send_wr wr = { 0 }, *bad = NULL;
	struct adxl_rdma_grant *g;
	struct ibv_wc wc;
	int e;

	if (!r->windows) {
		*rkey = m->mr->rkey;
		return 0;
	}
	if (rdmap_qp_failed(q)) {
		rdmap_say(err, "the queue pair failed before: make a new one");
		return -EIO;
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
	wr.wr_id = BIND_WR_FLAG | ++q->binds;
	e = q->qp ? ibv_post_send(q->qp, &wr, &bad) : EINVAL;
	if (e) {
		pthread_mutex_unlock(&q->lock);
		rdmap_say(err, "binding a memory window: ibv_post_send: %s",
			  strerror(e));
		goto fail;
	}
	e = bind_wait(q, wr.wr_id, &wc);
	if (e || wc.status != IBV_WC_SUCCESS) {
		rdmap_say(err, "binding a memory window: %s%s",
			  e ? "no completion in 5 s" :
			      ibv_wc_status_str(wc.status),
			  e ? " (destroyed the queue pair)" : "");
		bind_failed(q, e != 0);
		pthread_mutex_unlock(&q->lock);
		e = -EIO;
		goto fail;
	}
	pthread_mutex_unlock(&q->lock);
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
void rdmap_grants_revoke(struct adxl_plugin_ctx *r, const struct adxl_plugin_mem *m,
			 const struct adxl_plugin_ep *q)
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
