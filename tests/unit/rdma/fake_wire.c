// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): the wire, one thread that plays
 * every NIC at once.
 *
 * Round after round it takes the oldest queued work request of each
 * queue pair in RTS whose latency has passed, and does what the two
 * NICs of a connection would: find the peer queue pair, check the local
 * key, the responder's limits and the remote key, copy the bytes, and
 * complete it.  All under fv.lock, so that a queue pair destroyed or
 * moved to ERR is never half-way through a copy: when ibv_destroy_qp()
 * or a flush returns, no byte of that queue pair moves any more.
 *
 * A peer that does not answer: RETRY_EXC_ERR at once (a NIC's timers
 * would take seconds); unless the peer is silent (fake_peer_silent()),
 * when nothing runs at all and the work requests wait to be flushed.
 *
 * The error state flushes a queue pair's work requests FLUSH_NS after
 * the transition, not within ibv_modify_qp(): a NIC does it on its own
 * time, and a consumer that returns without reaping them all would
 * leave some behind, which the tests see (fake_qp_info()'s in_nic).
 */
#define FLUSH_NS	2000000
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_int.h"

/*
 * Under fv.lock: the queue pair @q reaches, if both were connected to
 * each other as an RC connection needs (the responder takes the
 * requester's first PSN, on the same path MTU, at its own address).
 */
static struct fqp *peer_of(struct fqp *q)
{
	const struct fake_port *mine = fv_port_of(q->d, q->port);
	const struct fake_port *theirs;
	union ibv_gid gid;
	struct fqp *p;

	p = fv_qp_find(q->info.dest_qpn);
	if (!p || (p->qp.state != IBV_QPS_RTR && p->qp.state != IBV_QPS_RTS) ||
	    p->info.dest_qpn != q->qp.qp_num ||
	    p->info.path_mtu != q->info.path_mtu ||
	    p->info.rq_psn != q->info.sq_psn)
		return NULL;
	theirs = fv_port_of(p->d, p->port);
	if (mine->link_layer != IBV_LINK_LAYER_ETHERNET)
		return q->dlid == theirs->lid ? p : NULL;
	if (!fv_port_gid(theirs, p->info.sgid_index, &gid) ||
	    memcmp(&gid, &q->info.dgid, sizeof(gid)))
		return NULL;
	return p;
}

/*
 * Under fv.lock: how the two NICs of a connection end @w, @q's oldest
 * work request, in the order they would find out.
 */
static enum ibv_wc_status judge(struct fqp *q, const struct fwr *w)
{
	const struct fake_port *port = fv_port_of(q->d, q->port);
	bool read = w->opcode == IBV_WR_RDMA_READ;
	uint64_t len = w->sge.length;
	enum ibv_wc_status st;
	unsigned int in_flight;
	struct fqp *p;

	p = fv.retry_exc ? NULL : peer_of(q);
	if (!p)
		return IBV_WC_RETRY_EXC_ERR;
	if (len > port->max_msg_sz)
		return IBV_WC_LOC_LEN_ERR;
	st = fv_mr_check(w->sge.lkey, false, q, w->sge.addr, len,
			 read ? IBV_ACCESS_LOCAL_WRITE : 0);
	if (st != IBV_WC_SUCCESS)
		return st;
	/*
	 * The READs the requester has out now, this one among them: more
	 * than the responder takes is a NAK, invalid request.
	 */
	in_flight = q->reads < q->info.max_rd_atomic ? q->reads :
						       q->info.max_rd_atomic;
	if (read && in_flight > p->info.max_dest_rd_atomic)
		return IBV_WC_REM_INV_REQ_ERR;
	if (!(p->access & (read ? IBV_ACCESS_REMOTE_READ :
				  IBV_ACCESS_REMOTE_WRITE)))
		return IBV_WC_REM_ACCESS_ERR;
	return fv_mr_check(w->rkey, true, p, w->remote_addr, len,
			   read ? IBV_ACCESS_REMOTE_READ :
				  IBV_ACCESS_REMOTE_WRITE);
}

/* Under fv.lock: @q's oldest work request, from queue to completion. */
static void execute(struct fqp *q)
{
	struct fwr *w = q->head;
	void *local = (void *)(uintptr_t)w->sge.addr;
	void *remote = (void *)(uintptr_t)w->remote_addr;
	enum ibv_wc_status st;

	q->head = w->next;
	if (!q->head)
		q->tail = &q->head;
	q->queued--;
	fv.stats.executed++;
	/* a bind is the NIC's own business: no peer takes part */
	if (w->opcode == IBV_WR_BIND_MW)
		st = fv_mw_bind(q, w);
	else if ((st = judge(q, w)) != IBV_WC_SUCCESS)
		;
	else if (w->opcode == IBV_WR_RDMA_READ)
		memmove(local, remote, w->sge.length);
	else
		memmove(remote, local, w->sge.length);
	fv_qp_complete(q, w, st);
	free(w);
	if (st == IBV_WC_SUCCESS)
		return;
	/* A failed work request takes its queue pair to the error state. */
	q->qp.state = IBV_QPS_ERR;
	q->err_ns = fv_now_ns();
}

/*
 * Under fv.lock: runs or flushes what is due on @q; else lowers *next to
 * when something will be.  Whether it did anything.
 */
static bool step(struct fqp *q, int64_t now, int64_t *next)
{
	int64_t due;

	if (!q->head)
		return false;
	if (q->qp.state == IBV_QPS_ERR) {
		if (fv.never_flush)
			return false;
		due = q->err_ns + FLUSH_NS;
		if (due <= now) {
			fv_qp_flush(q);
			return true;
		}
	} else if (q->qp.state == IBV_QPS_RTS && !fv.silent) {
		due = q->head->due_ns;
		if (due <= now) {
			execute(q);
			return true;
		}
	} else {
		return false;
	}
	if (due < *next)
		*next = due;
	return false;
}

static void *wire(void *arg)
{
	struct timespec ts;
	int64_t now, next;
	struct fqp *q;
	bool ran;

	(void)arg;
	pthread_mutex_lock(&fv.lock);
	while (!fv.wire_stop) {
		now = fv_now_ns();
		next = INT64_MAX;
		ran = false;
		for (q = fv.qps; q; q = q->next)
			ran |= step(q, now, &next);
		if (ran)
			continue;
		if (next == INT64_MAX) {
			pthread_cond_wait(&fv.wake, &fv.lock);
			continue;
		}
		ts.tv_sec = next / 1000000000;
		ts.tv_nsec = next % 1000000000;
		pthread_cond_timedwait(&fv.wake, &fv.lock, &ts);
	}
	pthread_mutex_unlock(&fv.lock);
	return NULL;
}

/* Under fv.lock, at the first queue pair. */
void fv_wire_start(void)
{
	if (fv.wire_started)
		return;
	if (pthread_create(&fv.wire, NULL, wire, NULL)) {
		fv_misuse_add("fake libibverbs: cannot start the wire thread");
		return;
	}
	fv.wire_started = true;
}

/* At exit. */
void fv_wire_stop(void)
{
	pthread_mutex_lock(&fv.lock);
	if (!fv.wire_started) {
		pthread_mutex_unlock(&fv.lock);
		return;
	}
	fv.wire_stop = true;
	pthread_cond_broadcast(&fv.wake);
	pthread_mutex_unlock(&fv.lock);
	pthread_join(fv.wire, NULL);
}

/* Under fv.lock: there may be something to do. */
void fv_wire_kick(void)
{
	pthread_cond_broadcast(&fv.wake);
}
