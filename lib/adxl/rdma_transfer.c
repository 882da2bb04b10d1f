// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers to a peer reached over RDMA: each ADXL descriptor becomes one
 * RDMA READ or WRITE of the plugin (cut into work requests there), from
 * our MR that holds the local range to the peer's MR that holds the remote
 * one, named by the rkey the peer gave at Connect (or at the last renewal).
 * We check the remote range against the registration it was announced
 * with before anything is posted; the peer's NIC checks it again against
 * the MR, which is gone once the peer deregistered it.
 *
 * A refused range puts both queue pairs in the error state (RC: a remote
 * access error is fatal to the connection), but the peer is still there:
 * the queue pair is renewed over the control connection before the call
 * returns (rdma_link.c), the call fails naming the descriptor whose range
 * the peer deregistered, and the link goes on.  So does a queue pair
 * that failed otherwise while the control connection still answers.
 *
 * A failed batch is taken back by the plugin before it returns -- the
 * queue pair is put in error and every work request flushed -- so nothing
 * touches the buffers afterwards.  When the deadline passed mid-batch,
 * the call says TIMEOUT and the next one renews the queue pair; when a
 * renewal finds no peer (its host went away), the link is marked down
 * so that the next Connect replaces the peer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

/* Descriptors resolved per plugin call (bounds what we allocate). */
#define BATCH		4096
#define ON_STACK	16
/* At least this long to renew a queue pair the peer refused on. */
#define RENEW_MIN_MS	2000

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
static adxl_status_t link_failed(struct adxl_peer *p, const char *err)
{
	__atomic_store_n(&p->link_down, true, __ATOMIC_RELAXED);
	adxl__err("transfer to %s: the RDMA link failed (%s): the peer or its host is gone; Connect again",
		  p->name, err);
	return ADXL_FAILED;
}

/* How one pass over the descriptors ended. */
struct pass {
	int ret;		/* the plugin's, or 0 */
	size_t off, k;		/* the plugin call that failed */
	char err[ADXL_RDMA_ERR_LEN];
};

/*
 * The descriptors from @from on, over queue pair generation p->rdma_gen
 * (under p->rdma_lock, read): ADXL_SUCCESS, or the status of a failure
 * that is final; a failed queue pair is left in @ps for the caller.
 */
static adxl_status_t one_pass(struct adxl_engine *e, struct adxl_peer *p,
			      enum adxl_transfer_op op,
			      const struct adxl_transfer_desc *descs, size_t n,
			      size_t from, int64_t deadline,
			      struct adxl_rdma_op *ops, struct pass *ps)
{
	adxl_status_t st;
	size_t off;
	int ret;

	ps->ret = 0;
	if (e->rdma_ops->qp_failed(p->qp)) {
		if (__atomic_load_n(&p->link_down, __ATOMIC_RELAXED)) {
			adxl__err("transfer to %s: not connected: the RDMA link failed earlier; Connect again",
				  p->name);
			return ADXL_NOT_CONNECTED;
		}
		/* another thread's transfer failed it: renew, as it does */
		ps->ret = -EIO;
		ps->off = from;
		ps->k = 0;
		snprintf(ps->err, sizeof(ps->err),
			 "the queue pair failed in another transfer");
		return ADXL_FAILED;
	}
	for (off = from; off < n; off += BATCH) {
		size_t k = n - off < BATCH ? n - off : BATCH;

		st = resolve(e, p, descs + off, k, off, ops);
		if (st)
			return st;
		ret = e->rdma_ops->xfer(p->qp, op == ADXL_WRITE, ops, k,
					deadline, ps->err);
		if (!ret)
			continue;
		if (ret == -EAGAIN) {
			/* nothing posted, nothing broken: only out of time */
			adxl__err("transfer to %s: timed out before descriptor %zu over RDMA (%s)",
				  p->name, off, ps->err);
			return ADXL_TIMEOUT;
		}
		if (ret == -ETIMEDOUT) {
			/*
			 * Out of time, with work requests unanswered: the
			 * queue pair is failed, and the next call renews it
			 * (or finds the peer gone); so does a Connect.
			 */
			adxl__err("transfer to %s: timed out in descriptors %zu..%zu over RDMA (%s); the next transfer or Connect renews the link",
				  p->name, off, off + k - 1, ps->err);
			return ADXL_TIMEOUT;
		}
		if (ret == -EACCES || ret == -ECONNRESET ||
		    e->rdma_ops->qp_failed(p->qp)) {
			ps->ret = ret;
			ps->off = off;
			ps->k = k;
			return ADXL_FAILED;
		}
		adxl__err("transfer to %s: RDMA: %s", p->name, ps->err);
		return ret == -EFAULT ? ADXL_PARAM_INVALID : ADXL_FAILED;
	}
	return ADXL_SUCCESS;
}

/*
 * The first descriptor of @ps's failed call whose remote range the peer's
 * table (just renewed) no longer holds, or @n.
 */
static size_t first_gone(struct adxl_peer *p,
			 const struct adxl_transfer_desc *descs, size_t n,
			 const struct pass *ps)
{
	size_t i, end = ps->k ? ps->off + ps->k : n;

	for (i = ps->off; i < end && i < n; i++) {
		const struct adxl_rreg *r = adxl__rreg_find(p, descs[i].remote_addr);

		if (!r || descs[i].len > r->len - (descs[i].remote_addr - r->addr))
			return i;
	}
	return n;
}

adxl_status_t adxl__rdma_transfer(struct adxl_engine *e, struct adxl_peer *p,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *descs,
				  size_t n, int64_t deadline)
{
	struct adxl_rdma_op stack[ON_STACK], *ops;
	struct pass ps = { 0 };
	adxl_status_t st;
	unsigned int gen;
	size_t from = 0, gone;
	int tries;

	ops = n <= ON_STACK ? stack :
			      malloc((n < BATCH ? n : BATCH) * sizeof(*ops));
	if (!ops) {
		adxl__err("transfer to %s: out of memory", p->name);
		return ADXL_FAILED;
	}
	/*
	 * A queue pair in error while the peer is still there -- its NIC
	 * refused a range it deregistered, which fails both ends' queue
	 * pairs, or flushed our work requests for it -- is renewed over the
	 * control connection before this call returns, with a fresh table
	 * of the peer's registrations, so the link and its other transfers
	 * go on.  A range the new table lacks fails this call (FAILED, it
	 * was deregistered); if none does, the failure was the link's and
	 * the rest of the call runs once more on the new queue pair.
	 */
	for (tries = 0;; tries++) {
		pthread_rwlock_rdlock(&p->rdma_lock);
		gen = p->rdma_gen;
		st = n ? one_pass(e, p, op, descs, n, from, deadline, ops, &ps) :
			 ADXL_SUCCESS;
		pthread_rwlock_unlock(&p->rdma_lock);
		if (!ps.ret)
			break;
		/*
		 * Retries exhausted may mean a refusal whose answer the
		 * network lost, or a peer whose host is gone: the renewal
		 * tells, within the call's time.  Other failures are the
		 * peer's answer: the renewal gets a little more time.
		 */
		if (adxl__rdma_renew(e, p, gen, deadline,
				     ps.ret == -ECONNRESET ? 0 : RENEW_MIN_MS)) {
			st = link_failed(p, ps.err);
			break;
		}
		pthread_rwlock_rdlock(&p->rdma_lock);
		gone = first_gone(p, descs, n, &ps);
		pthread_rwlock_unlock(&p->rdma_lock);
		if (gone < n) {
			adxl__err("transfer to %s: descriptor %zu: the peer deregistered [0x%lx, +%zu) (%s); the RDMA link was renewed and goes on",
				  p->name, gone,
				  (unsigned long)descs[gone].remote_addr,
				  descs[gone].len, ps.err);
			st = ADXL_FAILED;
			break;
		}
		if (tries) {
			adxl__err("transfer to %s: RDMA failed again on a renewed queue pair (%s)",
				  p->name, ps.err);
			st = ADXL_FAILED;
			break;
		}
		adxl__info("transfer to %s: RDMA queue pair renewed after: %s",
			   p->name, ps.err);
		from = ps.off;
	}
	if (ops != stack)
		free(ops);
	return st;
}
