// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TransferSync, and what every transport's transfers share: the checks of
 * the descriptors, the look-ups of their local and remote registrations,
 * the loop over batches with its deadline, and the words for a link that
 * broke.
 *
 * The local range of each descriptor must lie in one of our
 * registrations; the remote one in a registration the peer announced
 * before we connected (found by address).  Where the carrier does not
 * check the remote range itself (a plugin: no module on the path), it is
 * checked here before anything is sent.  Each transport turns a resolved
 * descriptor into its own element (its @fill) and sends a batch of them
 * (its @send), in batches of the size the transport says: as large as
 * its carrier takes, or what bounds the memory a call allocates.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

/* Small transfers, the common case, cost no allocation: 1.5 KiB of stack. */
#define ON_STACK_BYTES	1536

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

/*
 * Under reg_lock (read): @k descriptors of @x from @off on, into the
 * transport's elements at @out; ADXL_SUCCESS or a status (logged).
 */
static adxl_status_t resolve(const struct adxl_xfer *x, size_t off, size_t k,
			     uint8_t *out)
{
	const struct adxl_transport_ops *t = x->p->via;
	struct adxl_resolved r = { .x = x };
	adxl_status_t st = ADXL_SUCCESS;
	size_t i;

	pthread_rwlock_rdlock(&x->e->reg_lock);
	for (i = 0; i < k; i++) {
		r.index = off + i;
		r.d = &x->descs[r.index];
		st = adxl__desc_regs(x->e, x->p, r.d, r.index, &r.l, &r.r);
		if (st)
			break;
		if (!t->carrier_checks_remote &&
		    r.d->len > r.r->len - (r.d->remote_addr - r.r->addr)) {
			adxl__err("transfer to %s: descriptor %zu: range runs past the end of its registration",
				  x->p->name, r.index);
			st = ADXL_PARAM_INVALID;
			break;
		}
		/*
		 * Our own Deregister racing with a transfer on the local
		 * range is the caller's bug, whatever the transport.
		 */
		st = t->fill(t, &r, out + i * t->op_size);
		if (st)
			break;
	}
	pthread_rwlock_unlock(&x->e->reg_lock);
	return st;
}

adxl_status_t adxl__xfer_batches(const struct adxl_xfer *x, size_t from,
				 void *ctx)
{
	const struct adxl_transport_ops *t = x->p->via;
	uint64_t stack[ON_STACK_BYTES / sizeof(uint64_t)];
	size_t most = x->n - from < t->batch_max ? x->n - from : t->batch_max;
	struct adxl_batch b = { .x = x, .ctx = ctx };
	adxl_status_t st = ADXL_SUCCESS;
	uint8_t *ops;

	ops = most * t->op_size <= sizeof(stack) ? (uint8_t *)stack :
						   malloc(most * t->op_size);
	if (!ops) {
		adxl__err("transfer to %s: out of memory", x->p->name);
		return ADXL_FAILED;
	}
	b.ops = ops;
	for (b.off = from; b.off < x->n; b.off += t->batch_max) {
		b.k = x->n - b.off < t->batch_max ? x->n - b.off : t->batch_max;
		if (!t->carrier_keeps_deadline && b.off > from &&
		    x->deadline >= 0 && adxl__now_ms() >= x->deadline) {
			adxl__err("transfer to %s: timed out after %zu of %zu descriptors",
				  x->p->name, b.off, x->n);
			st = ADXL_TIMEOUT;
			break;
		}
		st = resolve(x, b.off, b.k, ops);
		if (st)
			break;
		st = t->send(t, &b);
		if (st)
			break;
	}
	if (ops != (uint8_t *)stack)
		free(ops);
	return st;
}

adxl_status_t adxl__link_failed(struct adxl_peer *p, const char *label,
				const char *why)
{
	__atomic_store_n(&p->link_down, true, __ATOMIC_RELAXED);
	adxl__err("transfer to %s: the %s link failed (%s): the peer or its host is gone; Connect again",
		  p->name, label, why);
	return ADXL_FAILED;
}

adxl_status_t adxl__transfer(struct adxl_engine *e, struct adxl_peer *p,
			     enum adxl_transfer_op op,
			     const struct adxl_transfer_desc *descs, size_t n,
			     int64_t deadline)
{
	/*
	 * A peer that died took its grants with it, so the module tells us
	 * (EOWNERDEAD) without a system call of ours per transfer; only an
	 * empty transfer, which reaches no module, looks at the socket.  A
	 * network transport looks every time: a restarted peer's new memory
	 * at the old addresses must never be reached through the old
	 * connection's keys, and the socket says so before any timeout.
	 */
	if (adxl__peer_dead(p) ||
	    ((!n || !p->via->refuses_dead_owner) && adxl__sock_dead(p->fd)))
		return adxl__peer_gone(p, "transfer to", deadline);
	return p->via->xfer(p->via, &(struct adxl_xfer){
		.e = e, .p = p, .op = op, .descs = descs, .n = n,
		.deadline = deadline,
	});
}

adxl_status_t adxl_transfer_sync(adxl_engine_t *e, const char *remote_engine,
				 enum adxl_transfer_op op,
				 const struct adxl_transfer_desc *descs,
				 size_t n_descs, int32_t timeout_ms)
{
	struct adxl_peer *p;
	adxl_status_t st;
	int64_t deadline;
	bool staged;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "TransferSync");
	if (st)
		return st;
	if (!remote_engine || timeout_ms <= 0)
		return ADXL_PARAM_INVALID;
	st = adxl__check_descs(op, descs, n_descs);
	if (st)
		return st;
	p = adxl__peer_for_op(e, remote_engine, timeout_ms, &st);
	if (!p)
		return st;
	deadline = adxl__deadline(timeout_ms);
	/* Memory not registered goes through the buffer pool (pool.c). */
	st = adxl__pool_transfer(e, p, op, descs, n_descs, deadline, &staged);
	if (!staged)
		st = adxl__transfer(e, p, op, descs, n_descs, deadline);
	adxl__peer_put(e, p);
	return st;
}
