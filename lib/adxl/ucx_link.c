// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The UCX hello: after the ordinary hello, a client that will reach the
 * peer over UCX asks for the peer's UCP worker address and its table of
 * registrations (UCX_HELLO / UCX_REPLY on the control connection), and
 * opens an endpoint to that worker.  As with tokens on one host, the
 * table is the one at that moment: later registrations need a new
 * Connect.  With the address goes the worker's access key, which every
 * request must carry: the peer's plugin serves requests with the key for
 * the ranges it exposes and refuses the rest.  The listener answers a UCX
 * hello only on a link whose hello it accepted (trust.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

/* Server side: the reply to a UCX hello, framed into @reply. */
int adxl__ucx_answer(struct adxl_engine *e, const uint8_t *p, size_t len,
		     struct adxl_buf *reply)
{
	struct adxl_ucx_reply out;
	struct adxl_buf b = { 0 };
	size_t i;
	int ret;

	if (adxl__ucx_hello_decode(p, len))
		return -EPROTO;
	memset(&out, 0, sizeof(out));
	if (e->transport == ADXL_TRANSPORT_KERNEL) {
		out.status = ADXL_UCX_REFUSED;
		snprintf(out.msg, sizeof(out.msg),
			 "engine %s has Transport=kernel: no UCX", e->name);
	} else if (adxl__ucx_start(e)) {
		out.status = ADXL_UCX_REFUSED;
		snprintf(out.msg, sizeof(out.msg),
			 "engine %s cannot start UCX: %s", e->name,
			 adxl_last_error());
	}
	/* Under reg_lock until encoded: a consistent table. */
	pthread_rwlock_rdlock(&e->reg_lock);
	if (!out.status) {
		const void *addr;
		size_t alen;

		e->ucx_ops->address(e->ucx, &addr, &alen);
		e->ucx_ops->access_key(e->ucx, out.key);
		out.addr = addr;
		out.addr_len = (uint32_t)alen;
		out.regs = e->n_regs ? calloc(e->n_regs, sizeof(*out.regs)) : NULL;
		if (e->n_regs && !out.regs) {
			pthread_rwlock_unlock(&e->reg_lock);
			return -ENOMEM;
		}
		out.n_regs = e->n_regs;
		for (i = 0; i < e->n_regs; i++) {
			const struct adxl_reg *r = &e->regs[i];

			out.regs[i] = (struct adxl_wreg){
				.addr = r->addr, .len = r->len, .type = r->type,
			};
		}
	}
	ret = adxl__ucx_reply_encode(&out, &b);
	pthread_rwlock_unlock(&e->reg_lock);
	free(out.regs);
	memset(out.key, 0, sizeof(out.key));
	if (!ret)
		ret = adxl__frame_msg(reply, ADXL_MSG_UCX_REPLY, b.data, b.len);
	adxl__buf_free(&b);
	return ret;
}

adxl_status_t adxl__ucx_connect(struct adxl_engine *e, struct adxl_peer *p,
				int64_t deadline)
{
	char err[ADXL_UCX_ERR_LEN] = "";
	struct adxl_ucx_reply in;
	struct adxl_buf b = { 0 };
	adxl_status_t st;
	uint8_t *msg = NULL;
	uint32_t type;
	size_t len;
	int ret;

	st = adxl__ucx_start(e);
	if (st)
		return st;
	adxl__trace("Connect %s: UCX started, sending the UCX hello", p->name);
	ret = adxl__ucx_hello_encode(&b);
	if (!ret)
		ret = adxl__send_msg(p->fd, ADXL_MSG_UCX_HELLO, b.data, b.len,
				     deadline);
	adxl__buf_free(&b);
	if (!ret)
		ret = adxl__recv_msg(p->fd, &type, &msg, &len, deadline);
	if (ret == -ETIMEDOUT) {
		adxl__err("Connect %s: no answer to the UCX hello in time",
			  p->name);
		return ADXL_TIMEOUT;
	}
	if (!ret)
		ret = type == ADXL_MSG_UCX_REPLY ?
			adxl__ucx_reply_decode(msg, len, &in) : -EPROTO;
	if (ret) {
		free(msg);
		adxl__err("Connect %s: UCX hello failed: %s", p->name,
			  ret == -EPROTO ? "the peer does not speak it" :
					   strerror(-ret));
		return ADXL_FAILED;
	}
	if (in.status) {
		adxl__err("Connect %s: the peer refused UCX: %s", p->name,
			  in.msg);
		st = ADXL_FAILED;
		goto out;
	}
	adxl__trace("Connect %s: UCX reply, opening the endpoint", p->name);
	ret = e->ucx_ops->ep_open(e->ucx, in.addr, in.addr_len, in.key,
				  deadline, &p->ep, err);
	if (ret) {
		adxl__err("Connect %s: UCX endpoint: %s", p->name, err);
		st = ret == -ETIMEDOUT ? ADXL_TIMEOUT : ADXL_FAILED;
		goto out;
	}
	st = adxl__rregs_set(p, in.regs, in.n_regs);
out:
	free(in.regs);
	free(msg);
	return st;
}

/* The last reference to a UCX peer: its endpoint. */
void adxl__ucx_peer_release(struct adxl_engine *e, struct adxl_peer *p)
{
	e->ucx_ops->ep_close(e->ucx, p->ep, 1000);
	p->ep = NULL;
}
