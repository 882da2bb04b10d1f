// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): RC queue pairs.
 *
 * ibv_modify_qp() takes the transitions an RC queue pair has, each with
 * the attributes the verbs require for it, and refuses values beyond the
 * device's limits (EINVAL) as a driver does; RTR resolves the peer's GID
 * as RoCE does, and an address no fake port has cannot be reached
 * (EHOSTUNREACH).  What it is given is kept, for fake_qp_info() and for
 * the wire, which pairs two queue pairs only if each was pointed at the
 * other.
 *
 * The send queue holds max_send_wr work requests: a slot is taken at
 * post and freed when the completion is polled (fake_cq.c), and posting
 * into a full queue fails with ENOMEM.  Nothing here runs them, nor
 * flushes them in the error state: the wire does (fake_wire.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_int.h"

/* Under fv.lock. */
struct fqp *fv_qp_find(uint32_t qpn)
{
	struct fqp *q;

	for (q = fv.qps; q; q = q->next)
		if (q->qp.qp_num == qpn)
			return q;
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *ia)
{
	const struct fake_device *d = &((struct fctx *)pd->context)->d->cfg;
	struct fqp *q;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_CREATE_QP);
	if (!e && (ia->qp_type != IBV_QPT_RC || !ia->send_cq ||
		   !ia->recv_cq || !ia->cap.max_send_wr ||
		   ia->cap.max_send_wr > (uint32_t)d->max_qp_wr ||
		   ia->cap.max_recv_wr > (uint32_t)d->max_qp_wr ||
		   !ia->cap.max_send_sge || ia->cap.max_send_sge > 32))
		e = EINVAL;
	q = e ? NULL : calloc(1, sizeof(*q));
	if (!q) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	q->qp.context = pd->context;
	q->qp.qp_context = ia->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = ia->send_cq;
	q->qp.recv_cq = ia->recv_cq;
	q->qp.qp_num = fv.next_qpn++;
	q->qp.state = IBV_QPS_RESET;
	q->qp.qp_type = IBV_QPT_RC;
	q->d = ((struct fctx *)pd->context)->d;
	q->cq = (struct fcq *)ia->send_cq;
	q->sig_all = ia->sq_sig_all;
	q->cap = ia->cap.max_send_wr;
	q->max_sge = ia->cap.max_send_sge;
	q->tail = &q->head;
	q->cq->qps++;
	if (ia->recv_cq != ia->send_cq)
		((struct fcq *)ia->recv_cq)->qps++;
	((struct fpd *)pd)->qps++;
	q->next = fv.qps;
	fv.qps = q;
	fv.live[LIVE_QP]++;
	fv_wire_start();
	pthread_mutex_unlock(&fv.lock);
	return &q->qp;
}

/* Under fv.lock: the queued work requests dropped, as a destroy does. */
static void discard(struct fqp *q)
{
	struct fwr *w;

	while ((w = q->head)) {
		q->head = w->next;
		fv.stats.discarded++;
		free(w);
	}
	q->tail = &q->head;
	q->queued = 0;
	q->reads = 0;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct fqp *q = (struct fqp *)qp, **pp;

	pthread_mutex_lock(&fv.lock);
	for (pp = &fv.qps; *pp && *pp != q; pp = &(*pp)->next)
		;
	if (!*pp) {
		fv_misuse_add("ibv_destroy_qp of a QP that does not exist");
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	*pp = q->next;
	/* Once this returns the NIC is done with every buffer posted. */
	discard(q);
	q->cq->qps--;
	if (qp->recv_cq != qp->send_cq)
		((struct fcq *)qp->recv_cq)->qps--;
	((struct fpd *)qp->pd)->qps--;
	if (fv.live[LIVE_QP])
		fv.live[LIVE_QP]--;
	pthread_mutex_unlock(&fv.lock);
	free(q);
	return 0;
}

/*
 * Under fv.lock: @w is done, with @st.  Its completion goes to the CQ if
 * it was signaled or failed; else its slot is free at once.
 */
void fv_qp_complete(struct fqp *q, struct fwr *w, enum ibv_wc_status st)
{
	struct ibv_wc wc = {
		.wr_id = w->wr_id,
		.status = st,
		.opcode = w->opcode == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
			  w->opcode == IBV_WR_BIND_MW ? IBV_WC_BIND_MW :
							IBV_WC_RDMA_WRITE,
		.byte_len = st == IBV_WC_SUCCESS ? w->sge.length : 0,
		.qp_num = q->qp.qp_num,
	};

	if (st == IBV_WC_WR_FLUSH_ERR)
		fv.stats.flushed++;
	if (w->opcode == IBV_WR_RDMA_READ && q->reads)
		q->reads--;
	if (st == IBV_WC_SUCCESS && !w->signaled && !q->sig_all) {
		q->outstanding--;
		return;
	}
	fv_cq_push(q->cq, &wc);
}

/* Under fv.lock: every queued work request completed as flushed. */
void fv_qp_flush(struct fqp *q)
{
	struct fwr *w;

	while ((w = q->head)) {
		q->head = w->next;
		q->queued--;
		fv_qp_complete(q, w, IBV_WC_WR_FLUSH_ERR);
		free(w);
	}
	q->tail = &q->head;
}

/* The attributes a transition needs, as ibv_modify_qp(3) lists them. */
static int required(enum ibv_qp_state from, enum ibv_qp_state to)
{
	if (to == IBV_QPS_RESET || to == IBV_QPS_ERR)
		return IBV_QP_STATE;
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS;
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR)
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC;
	return -1;
}

/* Under fv.lock: 0 or the errno a driver gives for these values. */
static int check(struct fqp *q, const struct ibv_qp_attr *a)
{
	const struct fake_device *d = &q->d->cfg;
	const struct fake_port *p;
	union ibv_gid sgid;

	switch (a->qp_state) {
	case IBV_QPS_INIT:
		return fv_port_of(q->d, a->port_num) && !a->pkey_index ?
		       0 : EINVAL;
	case IBV_QPS_RTR:
		p = fv_port_of(q->d, q->port);
		if (a->path_mtu < IBV_MTU_256 || a->path_mtu > p->mtu ||
		    a->max_dest_rd_atomic > d->max_qp_rd_atom ||
		    a->ah_attr.port_num != q->port)
			return EINVAL;
		if (p->link_layer != IBV_LINK_LAYER_ETHERNET)
			return a->ah_attr.dlid ? 0 : EINVAL;
		/* RoCE: the GRH is the address, from one of our GIDs. */
		if (!a->ah_attr.is_global ||
		    !fv_port_gid(p, a->ah_attr.grh.sgid_index, &sgid))
			return EINVAL;
		return fv_gid_known(&a->ah_attr.grh.dgid) ? 0 : EHOSTUNREACH;
	case IBV_QPS_RTS:
		return a->max_rd_atomic > d->max_qp_init_rd_atom ||
		       a->retry_cnt > 7 || a->rnr_retry > 7 ||
		       a->timeout > 31 ? EINVAL : 0;
	default:
		return 0;
	}
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	struct fqp *q = (struct fqp *)qp;
	int need, e;

	pthread_mutex_lock(&fv.lock);
	need = mask & IBV_QP_STATE ? required(qp->state, a->qp_state) : -1;
	if (need < 0 || (mask & need) != need) {
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	e = check(q, a);
	if (e) {
		pthread_mutex_unlock(&fv.lock);
		return e;
	}
	switch (a->qp_state) {
	case IBV_QPS_INIT:
		q->port = a->port_num;
		q->access = a->qp_access_flags;
		break;
	case IBV_QPS_RTR:
		q->info.path_mtu = a->path_mtu;
		q->info.dest_qpn = a->dest_qp_num;
		q->info.rq_psn = a->rq_psn;
		q->info.max_dest_rd_atomic = a->max_dest_rd_atomic;
		q->info.sgid_index = a->ah_attr.grh.sgid_index;
		q->info.dgid = a->ah_attr.grh.dgid;
		q->info.traffic_class = a->ah_attr.grh.traffic_class;
		q->info.sl = a->ah_attr.sl;
		q->dlid = a->ah_attr.dlid;
		q->is_global = a->ah_attr.is_global;
		break;
	case IBV_QPS_RTS:
		q->info.sq_psn = a->sq_psn;
		q->info.timeout = a->timeout;
		q->info.retry_cnt = a->retry_cnt;
		q->info.max_rd_atomic = a->max_rd_atomic;
		break;
	case IBV_QPS_ERR:
		/* The wire flushes what is queued, a moment later. */
		q->err_ns = fv_now_ns();
		break;
	case IBV_QPS_RESET:
		discard(q);
		break;
	default:
		break;
	}
	qp->state = a->qp_state;
	fv_wire_kick();
	pthread_mutex_unlock(&fv.lock);
	return 0;
}

int fv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad)
{
	struct fqp *q = (struct fqp *)qp;
	int64_t due;
	struct fwr *w;
	int e = 0;

	pthread_mutex_lock(&fv.lock);
	fv.stats.posts++;
	due = fv_now_ns() + (int64_t)fv.latency_us * 1000;
	for (; wr; wr = wr->next) {
		e = fv_failing(FAKE_POST_SEND);
		if (!e && qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR)
			e = EINVAL;
		/* One SGE is all the wire copies; a bind has none. */
		if (!e && wr->opcode == IBV_WR_BIND_MW) {
			if (!wr->bind_mw.mw ||
			    wr->bind_mw.mw->type != IBV_MW_TYPE_2)
				e = EINVAL;
		} else if (!e && (wr->num_sge != 1 ||
				  (wr->opcode != IBV_WR_RDMA_WRITE &&
				   wr->opcode != IBV_WR_RDMA_READ))) {
			e = EINVAL;
		}
		if (!e && q->outstanding >= q->cap)
			e = ENOMEM;
		w = e ? NULL : calloc(1, sizeof(*w));
		if (!w) {
			e = e ? e : ENOMEM;
			break;
		}
		w->wr_id = wr->wr_id;
		w->opcode = wr->opcode;
		w->signaled = wr->send_flags & IBV_SEND_SIGNALED;
		if (wr->opcode == IBV_WR_BIND_MW) {
			w->bind = wr->bind_mw.bind_info;
			w->mw = wr->bind_mw.mw;
			w->rkey = wr->bind_mw.rkey;
		} else {
			w->sge = wr->sg_list[0];
			w->remote_addr = wr->wr.rdma.remote_addr;
			w->rkey = wr->wr.rdma.rkey;
		}
		w->due_ns = due;
		*q->tail = w;
		q->tail = &w->next;
		q->queued++;
		q->outstanding++;
		if (w->opcode == IBV_WR_RDMA_READ)
			q->reads++;
		fv.stats.wrs++;
		if (w->sge.length > fv.stats.max_wr_len)
			fv.stats.max_wr_len = w->sge.length;
		if (q->outstanding > fv.stats.max_outstanding)
			fv.stats.max_outstanding = q->outstanding;
	}
	/* In the error state the wire flushes them as they come. */
	fv_wire_kick();
	pthread_mutex_unlock(&fv.lock);
	if (e)
		*bad = wr;
	return e;
}
