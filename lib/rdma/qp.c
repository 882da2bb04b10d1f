// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-rdma.so: RC queue pairs (rdma_int.h).
 *
 * Each queue pair has a completion queue of its own, so that one xfer's
 * completions are never another's, and a completion channel, so that
 * xfer can sleep until its CQ has something (xfer.c says why).  Nothing
 * is ever posted to the receive queue: the engines speak to each other
 * over their control connection, and RDMA READ and WRITE consume no
 * receive work requests at the target.
 *
 * Connecting is the classic state walk, with what the peer sent over the
 * control connection: INIT (created), RTR (where the peer is: its GID,
 * QPN and first PSN), RTS (our first PSN and the transport's timers).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <sys/random.h>

#include "rdma_int.h"

/*
 * The first PSN of our send queue: random, as the spec asks, so that
 * packets of an earlier connection between the same QPNs are not taken
 * for this one's.  Nothing secret: never block on a young VM's entropy.
 */
static uint32_t random_psn(void)
{
	struct timespec ts;
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint32_t)(ts.tv_nsec ^ ts.tv_sec ^ (uintptr_t)&ts) *
		    0x9e3779b1U;
	}
	return v & 0xffffff;
}

static int errno_of(int e)
{
	switch (e) {
	case ENOMEM:
		return -ENOMEM;
	case EINVAL:
		return -EINVAL;
	default:
		return -EIO;
	}
}

void rdmap_qp_destroy(struct adxl_plugin_ep *q)
{
	/*
	 * What the peer was granted goes first; then, in reverse: the QP
	 * holds the CQ, the CQ the channel.
	 */
	rdmap_grants_revoke(q->r, NULL, q);
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->ch)
		ibv_destroy_comp_channel(q->ch);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

void rdmap_qpinfo_put(const struct adxl_rdma_qpinfo *q, uint8_t *out)
{
	uint32_t v[4] = {
		htobe32(q->qpn), htobe32(q->psn), htobe32(q->mtu),
		htobe32(q->lid),
	};

	memcpy(out, q->gid, sizeof(q->gid));
	memcpy(out + sizeof(q->gid), v, sizeof(v));
}

int rdmap_qpinfo_get(const void *in, size_t len, struct adxl_rdma_qpinfo *q)
{
	const uint8_t *p = in;
	uint32_t v[4];

	if (len != QPINFO_LEN)
		return -EINVAL;
	memcpy(q->gid, p, sizeof(q->gid));
	memcpy(v, p + sizeof(q->gid), sizeof(v));
	q->qpn = be32toh(v[0]);
	q->psn = be32toh(v[1]);
	q->mtu = be32toh(v[2]);
	q->lid = be32toh(v[3]);
	return 0;
}

int rdmap_qp_create(struct adxl_plugin_ctx *r, bool serve, const uint8_t *local_ip,
		    struct adxl_rdma_qpinfo *mine, struct adxl_plugin_ep **out,
		    char *err)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = r->sq_depth,
			.max_send_sge = 1,
			/* Unused, but some providers refuse a zero-sized RQ. */
			.max_recv_wr = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = r->port,
		/*
		 * What the peer may do through this QP: what the rkeys allow
		 * if we serve it, else nothing -- a client's QP only
		 * initiates, and the server it connected to must not reach
		 * the client's MRs through it.
		 */
		.qp_access_flags = serve ? IBV_ACCESS_REMOTE_READ |
					   IBV_ACCESS_REMOTE_WRITE : 0,
	};
	struct adxl_plugin_ep *q;
	const char *what;
	int e, flags;

	q = calloc(1, sizeof(*q));
	if (!q) {
		rdmap_say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&q->lock, NULL);
	q->r = r;

	errno = 0;
	what = "ibv_create_comp_channel";
	q->ch = ibv_create_comp_channel(r->ctx);
	if (!q->ch)
		goto fail_errno;
	/* xfer polls it, then reads an event it knows is there. */
	flags = fcntl(q->ch->fd, F_GETFL);
	if (flags < 0 || fcntl(q->ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		what = "fcntl(O_NONBLOCK) on the completion channel";
		goto fail_errno;
	}
	what = "ibv_create_cq";
	q->cq = ibv_create_cq(r->ctx, (int)r->cqe, q, q->ch, 0);
	if (!q->cq)
		goto fail_errno;
	ia.send_cq = q->cq;
	ia.recv_cq = q->cq;
	what = "ibv_create_qp";
	q->qp = ibv_create_qp(r->pd, &ia);
	if (!q->qp)
		goto fail_errno;
	e = ibv_modify_qp(q->qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (e) {
		rdmap_say(err, "ibv_modify_qp to INIT: %s", strerror(e));
		rdmap_qp_destroy(q);
		return errno_of(e);
	}
	q->psn = random_psn();

	/*
	 * Our GID: the one of the address the peer reaches us at (the
	 * control connection's), where the device has it as RoCE v2 -- on a
	 * host with several, the device's first may face another network;
	 * else the device's (or MEMREG_ADXL_RDMA_GID_INDEX's).
	 */
	q->gid_index = r->gid_index;
	memcpy(mine->gid, r->gid.raw, sizeof(mine->gid));
	if (local_ip && !r->gid_forced) {
		struct ibv_gid_entry g;
		int i = rdmap_gid_find(r, local_ip, &g);

		if (i >= 0) {
			q->gid_index = i;
			memcpy(mine->gid, g.gid.raw, sizeof(mine->gid));
		}
	}
	mine->qpn = q->qp->qp_num;
	mine->psn = q->psn;
	mine->mtu = r->mtu;
	mine->lid = r->lid;
	*out = q;
	return 0;

fail_errno:
	e = errno ? errno : EIO;
	rdmap_say(err, "%s: %s", what, strerror(e));
	rdmap_qp_destroy(q);
	return errno_of(e);
}

int rdmap_qp_connect(struct adxl_plugin_ep *q,
		     const struct adxl_rdma_qpinfo *peer,
		     unsigned int traffic_class, unsigned int service_level,
		     char *err)
{
	struct adxl_plugin_ctx *r = q->r;
	struct ibv_qp_attr rtr = {
		.qp_state = IBV_QPS_RTR,
		.dest_qp_num = peer->qpn & 0xffffff,
		.rq_psn = peer->psn & 0xffffff,
		.max_dest_rd_atomic = (uint8_t)r->dest_rd_atomic,
		.min_rnr_timer = MIN_RNR_TIMER,
		.ah_attr = {
			/* RoCE needs the GRH (the GID is the address). */
			.is_global = 1,
			.grh = {
				.sgid_index = (uint8_t)q->gid_index,
				.hop_limit = HOP_LIMIT,
				/* RoCE v2: the IP header's DSCP and ECN */
				.traffic_class = (uint8_t)traffic_class,
			},
			.sl = (uint8_t)(service_level & 0xf),
			.dlid = (uint16_t)peer->lid,
			.port_num = r->port,
		},
	};
	struct ibv_qp_attr rts = {
		.qp_state = IBV_QPS_RTS,
		.sq_psn = q->psn,
		.timeout = (uint8_t)q->r->ack_timeout,
		.retry_cnt = RETRY_CNT,
		.rnr_retry = RNR_RETRY,
		.max_rd_atomic = (uint8_t)r->rd_atomic,
	};
	char gid[INET6_ADDRSTRLEN] = "?";
	int e, ret = 0;

	if (peer->mtu < IBV_MTU_256 || peer->mtu > IBV_MTU_4096) {
		rdmap_say(err, "the peer's MTU (%u) is not an enum ibv_mtu",
			  peer->mtu);
		return -EINVAL;
	}
	/* Both ends must use the smaller: packets above it are dropped. */
	rtr.path_mtu = peer->mtu < (uint32_t)r->mtu ? (enum ibv_mtu)peer->mtu :
						       r->mtu;
	memcpy(rtr.ah_attr.grh.dgid.raw, peer->gid, sizeof(peer->gid));
	inet_ntop(AF_INET6, peer->gid, gid, sizeof(gid));

	/* Not needed by a caller that connects before it transfers: tidy. */
	pthread_mutex_lock(&q->lock);
	if (q->connected || rdmap_qp_failed(q)) {
		pthread_mutex_unlock(&q->lock);
		rdmap_say(err, "the queue pair is connected (or failed) already: make a new one");
		return -EINVAL;
	}
	/*
	 * On RoCE the kernel resolves the peer's GID to a MAC address here
	 * (neighbour discovery on the network device): an address it cannot
	 * reach fails now rather than at the first transfer.
	 */
	e = ibv_modify_qp(q->qp, &rtr, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (e) {
		rdmap_say(err, "ibv_modify_qp to RTR (peer GID %s, QPN 0x%x, GID index %d here): %s",
			  gid, rtr.dest_qp_num, q->gid_index, strerror(e));
		goto fail;
	}
	e = ibv_modify_qp(q->qp, &rts, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	if (e) {
		rdmap_say(err, "ibv_modify_qp to RTS: %s", strerror(e));
		goto fail;
	}
	q->connected = true;
	pthread_mutex_unlock(&q->lock);
	return 0;

fail:
	__atomic_store_n(&q->failed, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&q->lock);
	/* The kernel found no way to the peer's address (see above). */
	switch (e) {
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENODATA:
	case ETIMEDOUT:
		ret = -ECONNRESET;
		break;
	default:
		ret = errno_of(e);
		break;
	}
	return ret;
}

bool rdmap_qp_failed(struct adxl_plugin_ep *q)
{
	return __atomic_load_n(&q->failed, __ATOMIC_RELAXED);
}

/* The plugin's endpoints are queue pairs, and their info a qpinfo. */
int rdmap_ep_create(struct adxl_plugin_ctx *r, bool serve,
		    const uint8_t *local_ip, void *info, size_t *info_len,
		    struct adxl_plugin_ep **out, char *err)
{
	struct adxl_rdma_qpinfo mine;
	int ret;

	if (*info_len < QPINFO_LEN) {
		rdmap_say(err, "no room for a queue pair's info");
		return -EINVAL;
	}
	ret = rdmap_qp_create(r, serve, local_ip, &mine, out, err);
	if (ret)
		return ret;
	rdmap_qpinfo_put(&mine, info);
	*info_len = QPINFO_LEN;
	return 0;
}

/* Sent with the context's traffic class and service level (its conf). */
int rdmap_ep_connect(struct adxl_plugin_ep *q, const void *info,
		     size_t info_len, int64_t deadline, char *err)
{
	struct adxl_rdma_qpinfo peer;

	(void)deadline;	/* INIT -> RTR -> RTS waits for nobody */
	if (rdmap_qpinfo_get(info, info_len, &peer)) {
		rdmap_say(err, "not a queue pair's info (%zu bytes)", info_len);
		return -EINVAL;
	}
	return rdmap_qp_connect(q, &peer, q->r->traffic_class,
				q->r->service_level, err);
}
