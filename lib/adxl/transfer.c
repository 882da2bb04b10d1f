// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TransferSync, and the transfer path TransferAsync's worker shares.
 *
 * Each ADXL descriptor becomes one memreg descriptor: the local range must
 * lie in one of our registrations, the remote one in a registration the
 * peer granted before we connected (found by address; the kernel checks
 * the whole range again and answers ERANGE if it sticks out).  The
 * descriptors go to the module in batches as large as it takes
 * (MEMREG_XFER_MAX_DESCS): one ioctl per batch is the point of the
 * design, and the timeout is checked between batches, as the reference
 * checks it between its batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

/* Descriptors resolved per ioctl; also bounds the array we allocate. */
#define BATCH	MEMREG_XFER_MAX_DESCS
#define ON_STACK	32	/* 1.5 KiB of stack */

adxl_status_t adxl__check_descs(enum adxl_transfer_op op,
				const struct adxl_transfer_desc *descs,
				size_t n)
{
	size_t i;

	if (op != ADXL_READ && op != ADXL_WRITE)
		return ADXL_PARAM_INVALID;
	if (n && !descs)
		return ADXL_PARAM_INVALID;
	for (i = 0; i < n; i++)
		if (!descs[i].local_addr || !descs[i].remote_addr ||
		    !descs[i].len)
			return ADXL_PARAM_INVALID;
	return ADXL_SUCCESS;
}

const struct adxl_rreg *adxl__rreg_find(const struct adxl_peer *p,
					uint64_t addr)
{
	size_t lo = 0, hi = p->n_rregs;

	/* The last one starting at or before @addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->rregs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0)
		if (addr - p->rregs[lo].addr < p->rregs[lo].len)
			return &p->rregs[lo];
	return NULL;
}

adxl_status_t adxl__desc_regs(struct adxl_engine *e, struct adxl_peer *p,
			      const struct adxl_transfer_desc *d, size_t index,
			      const struct adxl_reg **last,
			      const struct adxl_rreg **remote)
{
	const struct adxl_reg *l = *last;

	/* Batches usually walk one buffer: try the last hit first. */
	if (!l || d->local_addr - l->addr >= l->len ||
	    d->len > l->len - (d->local_addr - l->addr))
		l = adxl__reg_find(e, d->local_addr, d->len);
	if (!l) {
		adxl__err("transfer to %s: descriptor %zu: local [0x%lx, +%zu) is not inside memory registered with this engine",
			  p->name, index, (unsigned long)d->local_addr, d->len);
		return ADXL_PARAM_INVALID;
	}
	*last = l;
	*remote = adxl__rreg_find(p, d->remote_addr);
	if (!*remote) {
		adxl__err("transfer to %s: descriptor %zu: remote 0x%lx is not in memory %s registered before Connect",
			  p->name, index, (unsigned long)d->remote_addr,
			  p->name);
		return ADXL_PARAM_INVALID;
	}
	return ADXL_SUCCESS;
}

/* Fill @out from @descs; ADXL_SUCCESS or PARAM_INVALID (logged). */
static adxl_status_t resolve(struct adxl_engine *e, struct adxl_peer *p,
			     enum adxl_transfer_op op,
			     const struct adxl_transfer_desc *descs, size_t n,
			     size_t first, struct memreg_xfer_desc *out)
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
		out[i] = (struct memreg_xfer_desc){
			.op = op == ADXL_READ ? MEMREG_XFER_READ :
						MEMREG_XFER_WRITE,
			.local_handle = l->handle,
			.local_addr = d->local_addr,
			.remote_handle = r->handle,
			.remote_addr = d->remote_addr,
			.len = d->len,
		};
	}
	pthread_rwlock_unlock(&e->reg_lock);
	return st;
}

static adxl_status_t kernel_failed(struct adxl_peer *p, int err, int errnum,
				   size_t index)
{
	switch (errnum) {
	case EKEYREVOKED:
		if (adxl__sock_dead(p->fd))
			adxl__peer_lost(p);
		adxl__err("transfer to %s: descriptor %zu: the peer's memory is gone (deregistered, or the peer exited): grant revoked",
			  p->name, index);
		return adxl__peer_dead(p) ? ADXL_NOT_CONNECTED : ADXL_FAILED;
	case ERANGE:
		adxl__err("transfer to %s: descriptor %zu: range runs past the end of its registration",
			  p->name, index);
		return ADXL_PARAM_INVALID;
	default:
		adxl__err("transfer to %s: descriptor %zu: %s", p->name, index,
			  memreg_strerror(err));
		return ADXL_FAILED;
	}
}

adxl_status_t adxl__transfer(struct adxl_engine *e, struct adxl_peer *p,
			     enum adxl_transfer_op op,
			     const struct adxl_transfer_desc *descs, size_t n,
			     int64_t deadline)
{
	struct memreg_xfer_desc stack[ON_STACK], *md;
	adxl_status_t st = ADXL_SUCCESS;
	size_t off, done;
	int err;

	/*
	 * A peer that died took its grants with it, so the module tells us
	 * (EKEYREVOKED) without a system call of ours per transfer; only an
	 * empty transfer, which reaches no module, looks at the socket.
	 */
	if (adxl__peer_dead(p) || (!n && adxl__sock_dead(p->fd))) {
		adxl__peer_lost(p);
		adxl__err("transfer to %s: not connected: the peer's control connection is gone (it exited or finalized)",
			  p->name);
		return ADXL_NOT_CONNECTED;
	}
	if (p->qp)
		return adxl__rdma_transfer(e, p, op, descs, n, deadline);
	if (p->ep)
		return adxl__ucx_transfer(e, p, op, descs, n, deadline);
	if (!p->same_kernel) {
		adxl__err("transfer to %s: the peer runs on another kernel and this engine has Transport=kernel; use auto or ucx",
			  p->name);
		return ADXL_FAILED;
	}
	if (!n)
		return ADXL_SUCCESS;

	/* Small transfers, the common case, cost no allocation. */
	md = n <= ON_STACK ? stack : malloc((n < BATCH ? n : BATCH) * sizeof(*md));
	if (!md) {
		adxl__err("transfer to %s: out of memory", p->name);
		return ADXL_FAILED;
	}
	for (off = 0; off < n; off += done) {
		size_t k = n - off < BATCH ? n - off : BATCH;

		if (off && deadline >= 0 && adxl__now_ms() >= deadline) {
			adxl__err("transfer to %s: timed out after %zu of %zu descriptors",
				  p->name, off, n);
			st = ADXL_TIMEOUT;
			break;
		}
		st = resolve(e, p, op, descs + off, k, off, md);
		if (st)
			break;
		err = memreg_transfer(e->ctx, md, k, &done, NULL);
		if (err) {
			st = kernel_failed(p, err, errno, off + done);
			break;
		}
	}
	if (md != stack)
		free(md);
	return st;
}

adxl_status_t adxl_transfer_sync(adxl_engine_t *e, const char *remote_engine,
				 enum adxl_transfer_op op,
				 const struct adxl_transfer_desc *descs,
				 size_t n_descs, int32_t timeout_ms)
{
	struct adxl_peer *p;
	adxl_status_t st;

	if (!e || !remote_engine || timeout_ms <= 0)
		return ADXL_PARAM_INVALID;
	st = adxl__check_descs(op, descs, n_descs);
	if (st)
		return st;
	if (!e->initialised) {
		adxl__err("TransferSync: the engine is not initialised");
		return ADXL_FAILED;
	}
	p = adxl__peer_for_op(e, remote_engine, timeout_ms, &st);
	if (!p)
		return st;
	st = adxl__transfer(e, p, op, descs, n_descs,
			    adxl__deadline(timeout_ms));
	adxl__peer_put(e, p);
	return st;
}
