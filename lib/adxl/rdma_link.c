// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The RDMA hello: after the ordinary hello, a client that will reach the
 * peer over RDMA makes an RC queue pair and sends what connects to it
 * (RDMA_HELLO on the control connection).  The server makes its own queue
 * pair for this link, connects it to the client's and answers with what
 * connects to it and its table of registrations (RDMA_REPLY), each with
 * an rkey granted to this link's queue pair alone (a memory window, where
 * the NIC has them: lib/rdma/grant.c); the client connects its queue pair
 * and is done.  From then on transfers are the client's NIC reading and
 * writing the server's MRs: nothing of the server runs for them.
 *
 * What a peer may reach is what it was given here: the rkeys granted for
 * the registrations at that moment (later registrations need a new
 * Connect, as for tokens and UCX, or come with a renewal of the queue
 * pair after a failure: adxl__rdma_renew()), and only while they stay
 * registered --
 * DeregisterMem deregisters the MR, which kills every rkey granted for it.
 * The server's queue pair lives as long as the link: when the peer
 * disconnects, exits or its host goes away, the link closes and the queue
 * pair goes, with its grants.
 *
 * With Transport=auto a peer on another kernel is tried over RDMA first;
 * if either end has no RDMA device (or the plugin), the server refuses
 * and the client goes on with UCX, saying so with MEMREG_ADXL_VERBOSE=1.
 * The listener answers an RDMA hello only on a link whose hello it
 * accepted (trust.c).
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "adxl_int.h"

/*
 * The IPv4 address our end of control connection @fd has (4 bytes into
 * @ip), or NULL: the plugin picks the GID of that address, which is the
 * one facing the peer on a host with several.
 */
static const uint8_t *local_ipv4(int fd, uint8_t *ip)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return NULL;
	if (ss.ss_family == AF_INET) {
		memcpy(ip, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		return ip;
	}
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
		memcpy(ip, ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr + 12,
		       4);
		return ip;
	}
	return NULL;
}

/* Server side: our queue pair for link @l, connected to @peer's. */
static int link_qp(struct adxl_engine *e, struct adxl_link *l,
		   const struct adxl_rdma_qpinfo *peer,
		   struct adxl_rdma_qpinfo *mine, char *err)
{
	struct adxl_rdma_qp *qp;
	uint8_t ip[4];
	int ret;

	ret = e->rdma_ops->qp_create(e->rdma, true, local_ipv4(l->fd, ip),
				     mine, &qp, err);
	if (ret)
		return ret;
	ret = e->rdma_ops->qp_connect(qp, peer, e->rdma_tc, e->rdma_sl, err);
	if (ret) {
		e->rdma_ops->qp_destroy(qp);
		return ret;
	}
	l->qp = qp;
	return 0;
}

/*
 * Registration @r as link @l's peer sees it: with the rkey granted to
 * its queue pair.  A range that could not be granted goes without one
 * (transfers to it are refused), unless the queue pair broke binding it:
 * then RDMA is refused on this link (its queue pair destroyed), and with
 * Transport=auto the client goes on with UCX.
 */
static void grant(struct adxl_engine *e, struct adxl_link *l,
		  const struct adxl_reg *r, struct adxl_wreg *w,
		  struct adxl_rdma_reply *out)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	uint32_t rkey = 0;

	if (r->rmr && e->rdma_ops->mr_grant(l->qp, r->rmr, &rkey, err)) {
		rkey = 0;
		if (e->rdma_ops->qp_failed(l->qp)) {
			snprintf(out->msg, sizeof(out->msg),
				 "engine %.64s: RDMA: %.160s", e->name, err);
			out->status = ADXL_RDMA_REFUSED;
			adxl__warn("RDMA refused to a peer: %s", err);
			e->rdma_ops->qp_destroy(l->qp);
			l->qp = NULL;
			return;
		}
		adxl__warn("RDMA: no grant of [0x%lx, +%zu) for a peer: %s; it cannot reach that range",
			   (unsigned long)r->addr, r->len, err);
	}
	*w = (struct adxl_wreg){
		.addr = r->addr, .len = r->len, .type = r->type, .rkey = rkey,
	};
}

/*
 * A second RDMA hello on a link asks for a new queue pair: the client's
 * failed (our NIC refused a range the peer read after we deregistered
 * it, which fails our queue pair too).  It costs us what a new Connect
 * would, and is rationed per link: RENEW_RATE a second, as many at once.
 */
#define RENEW_RATE	10

static bool may_renew(struct adxl_link *l)
{
	int64_t now = adxl__now_ms();

	if (!l->qp_renew_at) {
		l->qp_renew_tokens = RENEW_RATE;
	} else {
		l->qp_renew_tokens += (now - l->qp_renew_at) * RENEW_RATE / 1000.0;
		if (l->qp_renew_tokens > RENEW_RATE)
			l->qp_renew_tokens = RENEW_RATE;
	}
	l->qp_renew_at = now;
	if (l->qp_renew_tokens < 1)
		return false;
	l->qp_renew_tokens -= 1;
	return true;
}

int adxl__rdma_answer(struct adxl_engine *e, struct adxl_link *l,
		      const uint8_t *p, size_t len, struct adxl_buf *reply)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	struct adxl_rdma_qpinfo peer;
	struct adxl_rdma_reply out;
	struct adxl_buf b = { 0 };
	size_t i;
	int ret;

	if (adxl__rdma_hello_decode(p, len, &peer))
		return -EPROTO;
	memset(&out, 0, sizeof(out));
	if (l->qp && !may_renew(l)) {
		/* a peer cannot make us churn queue pairs */
		snprintf(out.msg, sizeof(out.msg),
			 "this link renewed its queue pair too often (%d a second at most)",
			 RENEW_RATE);
	} else if (e->transport == ADXL_TRANSPORT_KERNEL ||
		   e->transport == ADXL_TRANSPORT_UCX) {
		snprintf(out.msg, sizeof(out.msg),
			 "engine %.64s has Transport=%s: no RDMA", e->name,
			 e->transport == ADXL_TRANSPORT_UCX ? "ucx" : "kernel");
	} else if (adxl__rdma_start(e, err)) {
		snprintf(out.msg, sizeof(out.msg), "engine %.64s: RDMA: %.160s",
			 e->name, err);
	} else {
		/* a renewal: the old queue pair goes, with its grants */
		adxl__rdma_link_release(e, l);
		if (link_qp(e, l, &peer, &out.qp, err))
			snprintf(out.msg, sizeof(out.msg),
				 "engine %.64s: RDMA: %.160s", e->name, err);
	}
	if (out.msg[0])
		out.status = ADXL_RDMA_REFUSED;
	/*
	 * Under reg_lock until encoded: a consistent table, and no
	 * DeregisterMem of an MR while it is being granted.
	 */
	pthread_rwlock_rdlock(&e->reg_lock);
	if (!out.status && e->n_regs) {
		out.regs = calloc(e->n_regs, sizeof(*out.regs));
		if (!out.regs) {
			pthread_rwlock_unlock(&e->reg_lock);
			return -ENOMEM;
		}
		out.n_regs = e->n_regs;
		for (i = 0; i < e->n_regs && !out.status; i++)
			grant(e, l, &e->regs[i], &out.regs[i], &out);
	}
	ret = adxl__rdma_reply_encode(&out, &b);
	pthread_rwlock_unlock(&e->reg_lock);
	free(out.regs);
	if (!ret)
		ret = adxl__frame_msg(reply, ADXL_MSG_RDMA_REPLY, b.data, b.len);
	adxl__buf_free(&b);
	return ret;
}

/* Send our hello and wait for the answer: 0, or an ADXL status (logged). */
static adxl_status_t exchange(struct adxl_peer *p,
			      const struct adxl_rdma_qpinfo *mine,
			      int64_t deadline, struct adxl_rdma_reply *in,
			      uint8_t **msg)
{
	struct adxl_buf b = { 0 };
	uint32_t type;
	size_t len;
	int ret;

	ret = adxl__rdma_hello_encode(mine, &b);
	if (!ret)
		ret = adxl__send_msg(p->fd, ADXL_MSG_RDMA_HELLO, b.data, b.len,
				     deadline);
	adxl__buf_free(&b);
	/*
	 * A renewal's answer may come after the late ack of a notify, or
	 * the late answer of a query, that timed out earlier (notify.c).
	 */
	while (!ret) {
		ret = adxl__recv_msg(p->fd, &type, msg, &len, deadline);
		if (ret || (type != ADXL_MSG_NOTIFY_ACK &&
			    type != ADXL_MSG_QUERY_REPLY))
			break;
		free(*msg);
		*msg = NULL;
	}
	if (ret == -ETIMEDOUT) {
		adxl__err("Connect %s: no answer to the RDMA hello in time",
			  p->name);
		return ADXL_TIMEOUT;
	}
	if (!ret)
		ret = type == ADXL_MSG_RDMA_REPLY ?
			adxl__rdma_reply_decode(*msg, len, in) : -EPROTO;
	if (ret) {
		adxl__err("Connect %s: RDMA hello failed: %s", p->name,
			  ret == -EPROTO ? "the peer does not speak it" :
					   strerror(-ret));
		return ADXL_FAILED;
	}
	return ADXL_SUCCESS;
}

adxl_status_t adxl__rdma_connect(struct adxl_engine *e, struct adxl_peer *p,
				 int64_t deadline, bool may_refuse)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	struct adxl_rdma_reply in = { 0 };
	struct adxl_rdma_qpinfo mine;
	struct adxl_rdma_qp *qp;
	uint8_t *msg = NULL;
	adxl_status_t st;
	uint8_t ip[4];

	if (adxl__rdma_start(e, may_refuse ? err : NULL)) {
		if (!may_refuse)
			return ADXL_FAILED;
		adxl__info("Connect %s: no RDMA on this host (%s): over UCX",
			   p->name, err);
		return ADXL_NOT_CONNECTED;
	}
	if (e->rdma_ops->qp_create(e->rdma, false, local_ipv4(p->fd, ip),
				   &mine, &qp, err)) {
		if (may_refuse) {
			adxl__info("Connect %s: no RDMA queue pair here (%s): over UCX",
				   p->name, err);
			return ADXL_NOT_CONNECTED;
		}
		adxl__err("Connect %s: RDMA queue pair: %s", p->name, err);
		return ADXL_FAILED;
	}
	st = exchange(p, &mine, deadline, &in, &msg);
	if (st)
		goto fail;
	if (in.status) {
		if (may_refuse) {
			adxl__info("Connect %s: the peer has no RDMA (%s): over UCX",
				   p->name, in.msg);
			st = ADXL_NOT_CONNECTED;
		} else {
			adxl__err("Connect %s: the peer refused RDMA: %s",
				  p->name, in.msg);
			st = ADXL_FAILED;
		}
		goto fail;
	}
	if (e->rdma_ops->qp_connect(qp, &in.qp, e->rdma_tc, e->rdma_sl,
				    err)) {
		if (may_refuse) {
			/* the server's queue pair goes with the link */
			adxl__info("Connect %s: RDMA queue pair: %s: over UCX",
				   p->name, err);
			st = ADXL_NOT_CONNECTED;
		} else {
			adxl__err("Connect %s: RDMA queue pair: %s", p->name,
				  err);
			st = ADXL_FAILED;
		}
		goto fail;
	}
	st = adxl__rregs_set(p, in.regs, in.n_regs);
	if (st)
		goto fail;
	p->qp = qp;
	adxl__info("Connect %s: over RDMA, %s, one-sided READ and WRITE",
		   p->name, e->rdma_ops->describe(e->rdma));
	free(in.regs);
	free(msg);
	return ADXL_SUCCESS;

fail:
	e->rdma_ops->qp_destroy(qp);
	free(in.regs);
	free(msg);
	return st;
}

/*
 * Client side: the queue pair to @p failed while the peer is still there
 * (rdma_transfer.c).  A new one, connected to a new one of the peer's over
 * the same control connection, with a fresh table of the peer's
 * registrations and rkeys; the old queue pair goes.  @gen is the
 * generation the caller's transfer ran on: if another thread renewed
 * since, that is enough.  ADXL_SUCCESS, or a status (logged): then the
 * link is down.  The exchange has until @deadline, or @min_ms if that is
 * later, or RENEW_MAX_MS with no deadline.
 */
#define RENEW_MAX_MS	10000

adxl_status_t adxl__rdma_renew(struct adxl_engine *e, struct adxl_peer *p,
			       unsigned int gen, int64_t deadline,
			       int32_t min_ms)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	struct adxl_rdma_reply in = { 0 };
	struct adxl_rdma_qpinfo mine;
	struct adxl_rdma_qp *qp = NULL;
	int64_t least = adxl__deadline(min_ms);
	adxl_status_t st = ADXL_SUCCESS;
	struct adxl_rreg *old_rregs;
	size_t old_n;
	uint8_t *msg = NULL;
	uint8_t ip[4];

	if (deadline < 0)
		deadline = adxl__deadline(RENEW_MAX_MS);
	else if (deadline < least)
		deadline = least;
	pthread_rwlock_wrlock(&p->rdma_lock);
	if (p->rdma_gen != gen)
		goto out;
	if (__atomic_load_n(&p->link_down, __ATOMIC_RELAXED) ||
	    adxl__peer_dead(p)) {
		st = ADXL_NOT_CONNECTED;
		goto out;
	}
	if (e->rdma_ops->qp_create(e->rdma, false, local_ipv4(p->fd, ip),
				   &mine, &qp, err)) {
		adxl__err("transfer to %s: a new RDMA queue pair: %s", p->name,
			  err);
		st = ADXL_FAILED;
		goto out;
	}
	pthread_mutex_lock(&p->io_lock);
	st = exchange(p, &mine, deadline, &in, &msg);
	pthread_mutex_unlock(&p->io_lock);
	if (st) {
		/* the control stream may be out of step now: lose the peer */
		adxl__peer_lost(p);
		goto out;
	}
	if (in.status) {
		adxl__err("transfer to %s: the peer refused a new RDMA queue pair: %s",
			  p->name, in.msg);
		st = ADXL_FAILED;
		goto out;
	}
	if (e->rdma_ops->qp_connect(qp, &in.qp, e->rdma_tc, e->rdma_sl,
				    err)) {
		adxl__err("transfer to %s: a new RDMA queue pair: %s", p->name,
			  err);
		st = ADXL_FAILED;
		goto out;
	}
	old_rregs = p->rregs;
	old_n = p->n_rregs;
	st = adxl__rregs_set(p, in.regs, in.n_regs);
	if (st) {
		p->rregs = old_rregs;
		p->n_rregs = old_n;
		goto out;
	}
	free(old_rregs);
	e->rdma_ops->qp_destroy(p->qp);
	p->qp = qp;
	qp = NULL;
	p->rdma_gen++;
out:
	pthread_rwlock_unlock(&p->rdma_lock);
	if (qp)
		e->rdma_ops->qp_destroy(qp);
	free(in.regs);
	free(msg);
	return st;
}

bool adxl__rdma_failed(struct adxl_engine *e, struct adxl_peer *p)
{
	bool failed;

	pthread_rwlock_rdlock(&p->rdma_lock);
	failed = p->qp && e->rdma_ops->qp_failed(p->qp);
	pthread_rwlock_unlock(&p->rdma_lock);
	return failed;
}

/* The last reference to an RDMA peer: its queue pair. */
void adxl__rdma_peer_release(struct adxl_engine *e, struct adxl_peer *p)
{
	e->rdma_ops->qp_destroy(p->qp);
	p->qp = NULL;
}

void adxl__rdma_link_release(struct adxl_engine *e, struct adxl_link *l)
{
	if (!l->qp)
		return;
	e->rdma_ops->qp_destroy(l->qp);
	l->qp = NULL;
}
