// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers to a peer reached over UCX.  Each ADXL descriptor becomes one
 * read or write of the plugin (chunked active messages): the local range
 * must lie in one of our registrations, the remote one wholly inside a
 * registration the peer announced at Connect.  No module checks the
 * remote range on this path: we check it here before anything is sent,
 * and the peer's plugin checks it again against what it still exposes
 * (a range deregistered since Connect is refused: FAILED, link kept).
 *
 * A batch that runs out of time, or whose endpoint fails (the peer died,
 * its host went away), is cancelled by closing the endpoint: the call
 * returns TIMEOUT or FAILED within the deadline, nothing touches the
 * buffers afterwards, and the link is marked down so that the next
 * Connect replaces the peer.  Notifies go on over the control connection
 * while it lives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

/* Descriptors resolved per plugin call (bounds what we allocate). */
#define BATCH		4096
#define ON_STACK	16

static adxl_status_t resolve(struct adxl_engine *e, struct adxl_peer *p,
			     const struct adxl_transfer_desc *descs, size_t n,
			     size_t first, struct adxl_ucx_op *out)
{
	const struct adxl_reg *l = NULL;
	const struct adxl_rreg *r;
	adxl_status_t st = ADXL_SUCCESS;
	size_t i;

	pthread_rwlock_rdlock(&e->reg_lock);
	for (i = 0; i < n; i++) {
		const struct adxl_transfer_desc *d = &descs[i];

		st = adxl__desc_regs(e, p, d, first + i, &l, &r);
		if (st)
			break;
		/* No module checks the remote end on this path: we do. */
		if (d->len > r->len - (d->remote_addr - r->addr)) {
			adxl__err("transfer to %s: descriptor %zu: range runs past the end of its registration",
				  p->name, first + i);
			st = ADXL_PARAM_INVALID;
			break;
		}
		/*
		 * Our own Deregister racing with a transfer on the local
		 * range is the caller's bug, as on one host.
		 */
		out[i] = (struct adxl_ucx_op){
			.local = d->local_addr,
			.remote = d->remote_addr,
			.len = d->len,
		};
	}
	pthread_rwlock_unlock(&e->reg_lock);
	return st;
}

/* The link broke: say why, and make the next Connect replace the peer. */
static adxl_status_t link_failed(struct adxl_peer *p, int ret,
				 const char *err, size_t off, size_t n)
{
	__atomic_store_n(&p->link_down, true, __ATOMIC_RELAXED);
	if (ret == -ETIMEDOUT) {
		adxl__err("transfer to %s: timed out in descriptors %zu..%zu over UCX (%s); the link is closed, Connect again",
			  p->name, off, off + n - 1, err);
		return ADXL_TIMEOUT;
	}
	adxl__err("transfer to %s: the UCX link failed (%s): the peer or its host is gone; Connect again",
		  p->name, err);
	return ADXL_FAILED;
}

adxl_status_t adxl__ucx_transfer(struct adxl_engine *e, struct adxl_peer *p,
				 enum adxl_transfer_op op,
				 const struct adxl_transfer_desc *descs,
				 size_t n, int64_t deadline)
{
	char err[ADXL_UCX_ERR_LEN] = "";
	struct adxl_ucx_op stack[ON_STACK], *ops;
	adxl_status_t st = ADXL_SUCCESS;
	size_t off;
	int ret;

	if (e->ucx_ops->ep_failed(p->ep)) {
		/* Found failed between calls: the first caller hears why. */
		if (!__atomic_exchange_n(&p->link_down, true, __ATOMIC_RELAXED)) {
			adxl__err("transfer to %s: the UCX link failed: the peer or its host is gone; Connect again",
				  p->name);
			return ADXL_FAILED;
		}
		adxl__err("transfer to %s: not connected: the UCX link failed earlier; Connect again",
			  p->name);
		return ADXL_NOT_CONNECTED;
	}
	if (!n)
		return ADXL_SUCCESS;
	ops = n <= ON_STACK ? stack : malloc((n < BATCH ? n : BATCH) * sizeof(*ops));
	if (!ops) {
		adxl__err("transfer to %s: out of memory", p->name);
		return ADXL_FAILED;
	}
	for (off = 0; off < n; off += BATCH) {
		size_t k = n - off < BATCH ? n - off : BATCH;

		st = resolve(e, p, descs + off, k, off, ops);
		if (st)
			break;
		ret = e->ucx_ops->xfer(e->ucx, p->ep, op == ADXL_WRITE, ops, k,
				       deadline, err);
		if (ret == -ETIMEDOUT || ret == -ECONNRESET) {
			st = link_failed(p, ret, err, off, k);
			break;
		}
		if (ret) {
			adxl__err("transfer to %s: UCX: %s", p->name, err);
			st = ADXL_FAILED;
			break;
		}
	}
	if (ops != stack)
		free(ops);
	return st;
}
