// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers to a peer reached over RDMA: each ADXL descriptor becomes one
 * RDMA READ or WRITE of the plugin (cut into work requests there), from
 * our MR that holds the local range to the peer's MR that holds the remote
 * one, named by the rkey the peer gave at Connect.  We check the remote
 * range against the registration it was announced with before anything is
 * posted; the peer's NIC checks it again against the MR, which is gone
 * once the peer deregistered it (-EACCES: FAILED, and the queue pair is
 * in error: Connect again).
 *
 * A batch that runs out of time, or whose queue pair fails (the peer's
 * host went away: retries exhausted), is taken back by the plugin before
 * it returns -- the queue pair is put in error and every work request
 * flushed -- so nothing touches the buffers afterwards, and the link is
 * marked down so that the next Connect replaces the peer.
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
			     size_t first, struct adxl_rdma_op *out)
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
		if (d->len > r->len - (d->remote_addr - r->addr)) {
			adxl__err("transfer to %s: descriptor %zu: range runs past the end of its registration",
				  p->name, first + i);
			st = ADXL_PARAM_INVALID;
			break;
		}
		if (!l->rmr) {
			adxl__err("transfer to %s: descriptor %zu: our %s memory at 0x%lx is not registered with the RDMA NIC (it refused the memory region: see the warning of RegisterMem or of Connect)",
				  p->name, first + i,
				  l->type == ADXL_MEM_HOST ? "host" : "device",
				  (unsigned long)d->local_addr);
			st = ADXL_PARAM_INVALID;
			break;
		}
		if (!r->rkey) {
			adxl__err("transfer to %s: descriptor %zu: the peer gave no rkey for its %s memory at 0x%lx (its NIC refused the memory region or the memory window: see the peer's log)",
				  p->name, first + i,
				  r->type == ADXL_MEM_HOST ? "host" : "device",
				  (unsigned long)d->remote_addr);
			st = ADXL_PARAM_INVALID;
			break;
		}
		out[i] = (struct adxl_rdma_op){
			.local = d->local_addr,
			.remote = d->remote_addr,
			.len = d->len,
			.rkey = r->rkey,
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
		adxl__err("transfer to %s: timed out in descriptors %zu..%zu over RDMA (%s); the link is closed, Connect again",
			  p->name, off, off + n - 1, err);
		return ADXL_TIMEOUT;
	}
	if (ret == -EACCES) {
		adxl__err("transfer to %s: the peer refused a range over RDMA (%s): deregistered since Connect? Connect again",
			  p->name, err);
		return ADXL_FAILED;
	}
	adxl__err("transfer to %s: the RDMA link failed (%s): the peer or its host is gone; Connect again",
		  p->name, err);
	return ADXL_FAILED;
}

adxl_status_t adxl__rdma_transfer(struct adxl_engine *e, struct adxl_peer *p,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *descs,
				  size_t n, int64_t deadline)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	struct adxl_rdma_op stack[ON_STACK], *ops;
	adxl_status_t st = ADXL_SUCCESS;
	size_t off;
	int ret;

	if (e->rdma_ops->qp_failed(p->qp)) {
		/* Found failed between calls: the first caller hears why. */
		if (!__atomic_exchange_n(&p->link_down, true, __ATOMIC_RELAXED)) {
			adxl__err("transfer to %s: the RDMA link failed earlier: Connect again",
				  p->name);
			return ADXL_FAILED;
		}
		adxl__err("transfer to %s: not connected: the RDMA link failed earlier; Connect again",
			  p->name);
		return ADXL_NOT_CONNECTED;
	}
	if (!n)
		return ADXL_SUCCESS;
	ops = n <= ON_STACK ? stack :
			      malloc((n < BATCH ? n : BATCH) * sizeof(*ops));
	if (!ops) {
		adxl__err("transfer to %s: out of memory", p->name);
		return ADXL_FAILED;
	}
	for (off = 0; off < n; off += BATCH) {
		size_t k = n - off < BATCH ? n - off : BATCH;

		st = resolve(e, p, descs + off, k, off, ops);
		if (st)
			break;
		ret = e->rdma_ops->xfer(p->qp, op == ADXL_WRITE, ops, k,
					deadline, err);
		if (ret == -EAGAIN) {
			/* nothing posted, nothing broken: only out of time */
			adxl__err("transfer to %s: timed out before descriptor %zu over RDMA (%s)",
				  p->name, off, err);
			st = ADXL_TIMEOUT;
			break;
		}
		if (ret == -ETIMEDOUT || ret == -ECONNRESET || ret == -EACCES ||
		    (ret && e->rdma_ops->qp_failed(p->qp))) {
			/* the queue pair is in error: so is the link */
			st = link_failed(p, ret, err, off, k);
			break;
		}
		if (ret) {
			adxl__err("transfer to %s: RDMA: %s", p->name, err);
			st = ret == -EFAULT ? ADXL_PARAM_INVALID : ADXL_FAILED;
			break;
		}
	}
	if (ops != stack)
		free(ops);
	return st;
}
