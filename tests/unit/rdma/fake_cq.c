// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): completion channels and queues.
 *
 * A channel is a pipe: an event is the CQ's address, written when a
 * completion lands on a CQ that ibv_req_notify_cq() armed, which disarms
 * it.  As on a NIC, arming reports the next completion only, not those
 * already waiting: a consumer that arms and sleeps without polling once
 * more can sleep through one.  ibv_get_cq_event() reads the pipe (the
 * consumer may make it non-blocking); every event got must be acked
 * before its CQ is destroyed, where a real libibverbs waits forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_int.h"

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct fchan *c;
	int p[2], e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_CREATE_CHANNEL);
	c = e ? NULL : calloc(1, sizeof(*c));
	if (c && pipe2(p, O_CLOEXEC)) {
		e = errno;
		free(c);
		c = NULL;
	}
	if (!c) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	/* The wire writes under fv.lock: it must never block there. */
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	c->ch.context = ctx;
	c->ch.fd = p[0];
	c->wfd = p[1];
	((struct fctx *)ctx)->children++;
	fv.live[LIVE_CHANNEL]++;
	pthread_mutex_unlock(&fv.lock);
	return &c->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	struct fchan *c = (struct fchan *)ch;

	pthread_mutex_lock(&fv.lock);
	if (c->cqs) {
		fv_misuse_add("ibv_destroy_comp_channel with %u CQs on it",
				c->cqs);
		pthread_mutex_unlock(&fv.lock);
		return EBUSY;
	}
	((struct fctx *)ch->context)->children--;
	if (fv.live[LIVE_CHANNEL])
		fv.live[LIVE_CHANNEL]--;
	pthread_mutex_unlock(&fv.lock);
	close(c->ch.fd);
	close(c->wfd);
	free(c);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context,
			     struct ibv_comp_channel *ch, int comp_vector)
{
	const struct fake_device *d = &((struct fctx *)ctx)->d->cfg;
	struct fcq *q;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_CREATE_CQ);
	if (!e && (cqe < 1 || cqe > d->max_cqe || comp_vector))
		e = EINVAL;
	q = e ? NULL : calloc(1, sizeof(*q));
	if (q) {
		q->ring = calloc((size_t)cqe, sizeof(*q->ring));
		if (!q->ring) {
			free(q);
			q = NULL;
		}
	}
	if (!q) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	q->cq.context = ctx;
	q->cq.channel = ch;
	q->cq.cq_context = cq_context;
	q->cq.cqe = cqe;
	q->ch = (struct fchan *)ch;
	if (q->ch)
		q->ch->cqs++;
	((struct fctx *)ctx)->children++;
	fv.live[LIVE_CQ]++;
	pthread_mutex_unlock(&fv.lock);
	return &q->cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct fcq *q = (struct fcq *)cq;

	pthread_mutex_lock(&fv.lock);
	if (q->qps || q->unacked) {
		fv_misuse_add("ibv_destroy_cq with %u QPs on it and %u events not acked (libibverbs would wait forever)",
				q->qps, q->unacked);
		pthread_mutex_unlock(&fv.lock);
		return EBUSY;
	}
	if (q->ch)
		q->ch->cqs--;
	((struct fctx *)cq->context)->children--;
	if (fv.live[LIVE_CQ])
		fv.live[LIVE_CQ]--;
	pthread_mutex_unlock(&fv.lock);
	free(q->ring);
	free(q);
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq,
		     void **cq_context)
{
	struct fcq *q;

	if (read(ch->fd, &q, sizeof(q)) != (ssize_t)sizeof(q))
		return -1;
	pthread_mutex_lock(&fv.lock);
	q->unacked++;
	pthread_mutex_unlock(&fv.lock);
	*cq = &q->cq;
	*cq_context = q->cq.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
	struct fcq *q = (struct fcq *)cq;

	pthread_mutex_lock(&fv.lock);
	if (n > q->unacked) {
		fv_misuse_add("ibv_ack_cq_events(%u) with %u events got",
				n, q->unacked);
		n = q->unacked;
	}
	q->unacked -= n;
	pthread_mutex_unlock(&fv.lock);
}

/* Under fv.lock: a completion onto @cq, and its event if it is armed. */
void fv_cq_push(struct fcq *q, const struct ibv_wc *wc)
{
	unsigned int cap = (unsigned int)q->cq.cqe;

	if (q->count == cap) {
		/* A NIC raises IBV_EVENT_CQ_ERR and the CQ is lost. */
		fv_misuse_add("CQ overrun: %u completions waiting", cap);
		return;
	}
	q->ring[(q->head + q->count) % cap] = *wc;
	q->count++;
	if (q->armed && q->ch) {
		q->armed = false;
		if (write(q->ch->wfd, &q, sizeof(q)) != (ssize_t)sizeof(q))
			fv_misuse_add("completion channel full: events never read");
		fv.stats.events++;
	}
}

int fv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fcq *q = (struct fcq *)cq;
	unsigned int cap = (unsigned int)cq->cqe;
	struct fqp *qp;
	int k = 0;

	pthread_mutex_lock(&fv.lock);
	if (fv_failing(FAKE_POLL_CQ)) {
		pthread_mutex_unlock(&fv.lock);
		return -1;
	}
	while (k < n && q->count) {
		wc[k] = q->ring[q->head];
		q->head = (q->head + 1) % cap;
		q->count--;
		/* Polling a completion frees its send queue slot. */
		qp = fv_qp_find(wc[k].qp_num);
		if (qp && qp->outstanding)
			qp->outstanding--;
		k++;
	}
	pthread_mutex_unlock(&fv.lock);
	return k;
}

int fv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct fcq *q = (struct fcq *)cq;
	int e;

	(void)solicited_only;
	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_NOTIFY_CQ);
	if (!e)
		q->armed = true;
	pthread_mutex_unlock(&fv.lock);
	return e;
}

/* The strings libibverbs has for them. */
const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
	};

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]) &&
	    names[status])
		return names[status];
	return "unknown";
}
