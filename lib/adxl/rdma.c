// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The RDMA transport: a peer on another kernel is reached with one-sided
 * READs and WRITEs of our NIC where both hosts have RDMA (or always with
 * Transport=rdma), through the verbs plugin (rdma_plugin.h), started on
 * first use (plugged.c): every registration is then also an MR, and a
 * link is a pair of RC queue pairs whose server grants the client an rkey
 * per registration, valid on that queue pair alone.  Nothing of the
 * server runs for a transfer.  A range the NIC cannot register (a dma-buf
 * export's mapping, which memreg never lets anyone pin; RLIMIT_MEMLOCK)
 * stays a registration of the engine, announced without an rkey:
 * transfers that touch it are refused with a message that says why.
 *
 * With Transport=auto, no device here, a refusal there, or a queue pair
 * that does not connect sends Connect on to the next row.
 *
 * What a peer may reach is what it was granted at Connect, and only while
 * it stays registered: DeregisterMem deregisters the MR, which kills every
 * rkey granted for it.  A refused range puts both queue pairs in the
 * error state (RC: a remote access error is fatal to the connection), but
 * the peer is still there: the queue pair is renewed over the control
 * connection before the call returns (a second link hello on the same
 * link, answered with the peer's table as it is now), the call fails
 * naming the descriptor whose range the peer deregistered, and the link
 * goes on.  So does a queue pair that failed otherwise while the control
 * connection still answers.
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

#include "plugged.h"
#include "rdma_plugin.h"

#ifndef ADXL_RDMA_PLUGIN_DIR
#define ADXL_RDMA_PLUGIN_DIR	"/usr/local/lib/memreg"
#endif

/* At least this long to renew a queue pair the peer refused on. */
#define RENEW_MIN_MS	2000
/* A renewal with no deadline of its own has this long. */
#define RENEW_MAX_MS	10000

/* A decimal integer in [lo, hi], all of @s. */
static bool uint_in(const char *s, unsigned long hi, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > hi)
		return false;
	*out = (unsigned int)v;
	return true;
}

/* Options RdmaTrafficClass (0..255, a multiple of 4), RdmaServiceLevel. */
static int rdma_option(const struct adxl_transport_ops *t,
		       struct adxl_engine *e, const char *key, const char *val)
{
	struct adxl_plugin_conf *c = &adxl__plugged_of(e, t)->conf;
	unsigned int v;

	if (!key) {
		c->traffic_class = c->service_level = 0;
		return 0;
	}
	if (!strcmp(key, "RdmaTrafficClass")) {
		if (!uint_in(val, 255, &v) || v % 4)
			return -1;
		c->traffic_class = v;
		return 1;
	}
	if (!strcmp(key, "RdmaServiceLevel")) {
		if (!uint_in(val, 7, &v))
			return -1;
		c->service_level = v;
		return 1;
	}
	return 0;
}

static bool rdma_broken(const struct adxl_transport_ops *t,
			struct adxl_engine *e, struct adxl_peer *p)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	struct adxl_plugged_peer *pp = adxl__plugged_peer(p);
	bool failed;

	if (!pp)
		return false;
	pthread_rwlock_rdlock(&pp->lock);
	failed = pe->plugin->ep_failed(pp->ep);
	pthread_rwlock_unlock(&pp->lock);
	return failed;
}

static adxl_status_t rdma_fill(const struct adxl_transport_ops *t,
			       const struct adxl_resolved *r, void *out)
{
	const char *name = r->x->p->name;

	if (!r->l->tmem[adxl__transport_slot(t)]) {
		adxl__err("transfer to %s: descriptor %zu: our %s memory at 0x%lx is not registered with the RDMA NIC (it refused the memory region: see the warning of RegisterMem or of Connect)",
			  name, r->index,
			  r->l->type == ADXL_MEM_HOST ? "host" : "device",
			  (unsigned long)r->d->local_addr);
		return ADXL_PARAM_INVALID;
	}
	if (!r->r->key) {
		adxl__err("transfer to %s: descriptor %zu: the peer gave no rkey for its %s memory at 0x%lx (its NIC refused the memory region or the memory window: see the peer's log)",
			  name, r->index,
			  r->r->type == ADXL_MEM_HOST ? "host" : "device",
			  (unsigned long)r->d->remote_addr);
		return ADXL_PARAM_INVALID;
	}
	*(struct adxl_plugin_op *)out = (struct adxl_plugin_op){
		.local = r->d->local_addr,
		.remote = r->d->remote_addr,
		.len = r->d->len,
		.key = (uint32_t)r->r->key,
	};
	return ADXL_SUCCESS;
}

/* How one pass over the descriptors ended. */
struct pass {
	int ret;		/* the plugin's, or 0 */
	size_t off, k;		/* the plugin call that failed */
	char err[ADXL_PLUGIN_ERR_LEN];
};

/*
 * One batch, over queue pair generation pp->gen (under pp->lock, read):
 * ADXL_SUCCESS, or the status of a failure that is final; a failed queue
 * pair is left in the pass for rdma_xfer().
 */
static adxl_status_t rdma_send(const struct adxl_transport_ops *t,
			       const struct adxl_batch *b)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(b->x->e, t);
	struct adxl_plugin_ep *ep = adxl__plugged_peer(b->x->p)->ep;
	const char *name = b->x->p->name;
	struct pass *ps = b->ctx;
	int ret;

	ret = pe->plugin->xfer(ep, b->x->op == ADXL_WRITE, b->ops, b->k,
			       b->x->deadline, ps->err);
	if (!ret)
		return ADXL_SUCCESS;
	if (ret == -EAGAIN) {
		/* nothing posted, nothing broken: only out of time */
		adxl__err("transfer to %s: timed out before descriptor %zu over RDMA (%s)",
			  name, b->off, ps->err);
		return ADXL_TIMEOUT;
	}
	if (ret == -ETIMEDOUT) {
		/*
		 * Out of time, with work requests unanswered: the queue pair
		 * is failed, and the next call renews it (or finds the peer
		 * gone); so does a Connect.
		 */
		adxl__err("transfer to %s: timed out in descriptors %zu..%zu over RDMA (%s); the next transfer or Connect renews the link",
			  name, b->off, b->off + b->k - 1, ps->err);
		return ADXL_TIMEOUT;
	}
	if (ret == -EACCES || ret == -ECONNRESET || pe->plugin->ep_failed(ep)) {
		ps->ret = ret;
		ps->off = b->off;
		ps->k = b->k;
		return ADXL_FAILED;
	}
	adxl__err("transfer to %s: RDMA: %s", name, ps->err);
	return ret == -EFAULT ? ADXL_PARAM_INVALID : ADXL_FAILED;
}

/* The descriptors of @x from @from on, as rdma_send() says. */
static adxl_status_t one_pass(const struct adxl_transport_ops *t,
			      const struct adxl_xfer *x, size_t from,
			      struct pass *ps)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(x->e, t);

	ps->ret = 0;
	if (pe->plugin->ep_failed(adxl__plugged_peer(x->p)->ep)) {
		if (__atomic_load_n(&x->p->link_down, __ATOMIC_RELAXED)) {
			adxl__err("transfer to %s: not connected: the RDMA link failed earlier; Connect again",
				  x->p->name);
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
	return adxl__xfer_batches(x, from, ps);
}

/*
 * Client side: the queue pair to @p failed while the peer is still there.
 * A new one, connected to a new one of the peer's over the same control
 * connection, with a fresh table of the peer's registrations and rkeys;
 * the old queue pair goes.  @gen is the generation the caller's transfer
 * ran on: if another thread renewed since, that is enough.  ADXL_SUCCESS,
 * or a status (logged): then the link is down.  The exchange has until
 * @deadline, or @min_ms if that is later, or RENEW_MAX_MS with no
 * deadline.
 */
static adxl_status_t renew(const struct adxl_transport_ops *t,
			   struct adxl_engine *e, struct adxl_peer *p,
			   unsigned int gen, int64_t deadline, int32_t min_ms)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	struct adxl_plugged_peer *pp = adxl__plugged_peer(p);
	char err[ADXL_TRANSPORT_WHY_LEN] = "";
	int64_t least = adxl__deadline(min_ms);
	struct adxl_link_reply in = { 0 };
	adxl_status_t st = ADXL_SUCCESS;
	struct adxl_plugin_ep *ep = NULL;
	struct adxl_rreg *old_rregs;
	uint8_t *msg = NULL;
	size_t old_n;

	if (deadline < 0)
		deadline = adxl__deadline(RENEW_MAX_MS);
	else if (deadline < least)
		deadline = least;
	pthread_rwlock_wrlock(&pp->lock);
	if (pp->gen != gen)
		goto out;
	if (__atomic_load_n(&p->link_down, __ATOMIC_RELAXED) ||
	    adxl__peer_dead(p)) {
		st = ADXL_NOT_CONNECTED;
		goto out;
	}
	pthread_mutex_lock(&p->io_lock);
	st = adxl__plugged_dial(t, e, p, deadline, &ep, &in, &msg, err);
	pthread_mutex_unlock(&p->io_lock);
	if (st == ADXL_NOT_CONNECTED) {
		adxl__err("transfer to %s: a new RDMA queue pair: %s", p->name,
			  err);
		st = ADXL_FAILED;
		goto out;
	}
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
	if (pe->plugin->ep_connect(ep, in.info, in.info_len, deadline, err)) {
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
	pe->plugin->ep_destroy(pp->ep);
	pp->ep = ep;
	ep = NULL;
	pp->gen++;
out:
	pthread_rwlock_unlock(&pp->lock);
	if (ep)
		pe->plugin->ep_destroy(ep);
	free(in.regs);
	free(msg);
	return st;
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

static adxl_status_t rdma_xfer(const struct adxl_transport_ops *t,
			       const struct adxl_xfer *x)
{
	const struct adxl_transfer_desc *descs = x->descs;
	struct adxl_plugged_peer *pp = adxl__plugged_peer(x->p);
	struct adxl_peer *p = x->p;
	struct pass ps = { 0 };
	size_t n = x->n;
	adxl_status_t st;
	unsigned int gen;
	size_t from = 0, gone;
	int tries;

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
		pthread_rwlock_rdlock(&pp->lock);
		gen = pp->gen;
		st = n ? one_pass(t, x, from, &ps) : ADXL_SUCCESS;
		pthread_rwlock_unlock(&pp->lock);
		if (!ps.ret)
			break;
		/*
		 * Retries exhausted may mean a refusal whose answer the
		 * network lost, or a peer whose host is gone: the renewal
		 * tells, within the call's time.  Other failures are the
		 * peer's answer: the renewal gets a little more time.
		 */
		if (renew(t, x->e, p, gen, x->deadline,
			  ps.ret == -ECONNRESET ? 0 : RENEW_MIN_MS)) {
			st = adxl__link_failed(p, "RDMA", ps.err);
			break;
		}
		pthread_rwlock_rdlock(&pp->lock);
		gone = first_gone(p, descs, n, &ps);
		pthread_rwlock_unlock(&pp->lock);
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
	return st;
}

static const struct adxl_plugged rdma = {
	.env = "MEMREG_ADXL_RDMA_PLUGIN",
	.file = ADXL_RDMA_PLUGIN_FILE,
	.dir = ADXL_RDMA_PLUGIN_DIR,
	.package = "libibverbs1",
	.ep_word = "queue pair",
	.connected_note = "one-sided READ and WRITE",
};

const struct adxl_transport_ops adxl__rdma_transport = {
	.name = "rdma",
	.label = "RDMA",
	.wire_id = 2,
	/* 2: the link hello of wire version 2 */
	.wire_version = 2,
	.plugged = &rdma,
	ADXL_PLUGGED_OPS,
	.option = rdma_option,
	.broken = rdma_broken,
	.xfer = rdma_xfer,
	.fill = rdma_fill,
	.send = rdma_send,
};
