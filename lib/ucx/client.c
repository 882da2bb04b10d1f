// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-ucx.so: endpoints to peers and our own batches of reads and writes
 * (ucx_int.h).
 *
 * Reads and writes are active messages (why: ucx_plugin.h), cut into
 * chunks of at most CHUNK bytes, always eager:
 *   READ   id, remote address, length, key         -> DATA   id, status, bytes
 *   WRITE  id, remote address, length, key, bytes  -> DONE   id, status
 * An id names a batch and one of its WINDOW slots, with a generation so
 * that a stale answer finds nothing; the batch's random nonce travels with
 * it, so another peer cannot answer in its place.  Headers are copied out
 * of the message before use (UCX puts them after the payload, unaligned).
 * Both ends are the same build on the same architecture (UCX assumes that
 * too): the headers are native-endian.
 *
 * Endpoints use UCP_ERR_HANDLING_MODE_PEER: a peer that dies fails its
 * endpoint instead of hanging it, and a forced close completes every
 * outstanding request with an error, which is how a batch that runs out
 * of time is taken back before it returns.
 */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>

#include "ucx_int.h"

/* ---- answers to our own requests (inside ucp_worker_progress) ---- */

static uint64_t slot_id(const struct ucxp_batch *b, unsigned int i)
{
	return (uint64_t)b->seq << 32 | (uint64_t)b->slot[i].gen << 16 | i;
}

/* The slot that waits for answer @a, and its batch; NULL if none does. */
static struct ucxp_slot *slot_of(struct adxl_plugin_ctx *u, const struct adxl_ucx_wire_ans *a,
			    struct ucxp_batch **bp)
{
	uint64_t id = a->id;
	unsigned int i = id & 0xffff;
	struct ucxp_batch *b;

	for (b = u->batches; b; b = b->next) {
		if (b->seq != id >> 32)
			continue;
		if (b->nonce != a->nonce)
			return NULL;	/* not from the peer we asked */
		if (i >= WINDOW || !b->slot[i].busy ||
		    b->slot[i].gen != ((id >> 16) & 0xffff))
			return NULL;
		*bp = b;
		return &b->slot[i];
	}
	return NULL;	/* a batch that gave up: its answers are late */
}

static void slot_release(struct ucxp_batch *b, struct ucxp_slot *s)
{
	pthread_cond_broadcast(&b->u->progressed);
	s->busy = false;
	s->gen++;
	b->busy--;
	b->bytes -= s->req.len;
	b->free[b->nfree++] = (uint16_t)(s - b->slot);
}

/* DATA and DONE from the peer we asked. */
ucs_status_t ucxp_on_answer(void *arg, const void *header, size_t hlen,
			      void *data, size_t len,
			      const ucp_am_recv_param_t *prm)
{
	struct adxl_plugin_ctx *u = arg;
	struct adxl_ucx_wire_ans a;
	struct ucxp_batch *b;
	struct ucxp_slot *s;

	if (prm->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
		return UCS_OK;	/* dropped, as in on_request */
	if (hlen != sizeof(a))
		return UCS_OK;
	memcpy(&a, header, sizeof(a));
	s = slot_of(u, &a, &b);
	if (!s)
		return UCS_OK;
	if (a.status && !b->refused) {
		b->refused = a.status;
		b->refused_addr = s->req.addr;
		b->refused_len = s->req.len;
	} else if (!a.status && !b->write) {
		if (len == s->req.len)
			memcpy((void *)(uintptr_t)s->local, data, len);
		else if (!b->refused)
			b->refused = -EPROTO;
	}
	slot_release(b, s);
	return UCS_OK;
}

/* Runs inside ucp_worker_progress, under u->lock. */
static void ep_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct adxl_plugin_ep *e = arg;

	(void)ep;
	e->failed = true;
	e->why = status;
	pthread_cond_broadcast(&e->u->progressed);
}

/* A batch of @u's, not linked: a flush's, or xfer's via batch_new(). */
static struct ucxp_batch *batch_alloc(struct adxl_plugin_ctx *u)
{
	struct ucxp_batch *b = calloc(1, sizeof(*b));

	if (b)
		b->u = u;
	return b;
}

static bool wait_locked(struct adxl_plugin_ctx *u, struct ucxp_batch *b, int64_t deadline);
static bool cancel_locked(struct adxl_plugin_ctx *u, struct adxl_plugin_ep *e,
			  struct ucxp_batch *b);
static void flush_start(struct adxl_plugin_ep *e, struct ucxp_batch *b);

int ucxp_ep_open(struct adxl_plugin_ep *e, const void *addr, size_t len,
		 const uint8_t key[ADXL_UCX_KEY_LEN], int64_t deadline,
		 char *err)
{
	struct adxl_plugin_ctx *u = e->u;
	struct ucxp_batch *b = batch_alloc(u);
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER,
		.address = addr,
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = ep_err, .arg = e },
	};
	ucs_status_t st;
	int ret = 0;

	(void)len;	/* a UCP address carries its own length */
	if (!b) {
		ucxp_say(err, "out of memory");
		return -ENOMEM;
	}
	memcpy(e->key, key, sizeof(e->key));
	pthread_mutex_lock(&u->lock);
	st = ucp_ep_create(u->worker, &ep, &e->ep);
	if (st != UCS_OK) {
		pthread_mutex_unlock(&u->lock);
		ucxp_say(err, "ucp_ep_create: %s", ucs_status_string(st));
		free(b);
		e->ep = NULL;
		return ucxp_errno_of(st);
	}
	/*
	 * A flush completes once the wire-up has: then neither side has a
	 * wire-up message in flight when the other closes (UCX 1.13 aborts a
	 * process whose wire-up reply fails to send).
	 */
	flush_start(e, b);
	if (!wait_locked(u, b, deadline)) {
		ucxp_say(err, "the peer's worker did not answer the wire-up in time");
		ret = -ETIMEDOUT;
	} else if (b->status != UCS_OK || e->failed) {
		ucxp_say(err, "wire-up: %s", ucs_status_string(e->failed ? e->why :
							   b->status));
		ret = ucxp_errno_of(e->failed ? e->why : b->status);
	}
	if (ret) {
		/* closed by force: e stays, failed, for ep_destroy to free */
		if (cancel_locked(u, e, b))
			free(b);
		pthread_mutex_unlock(&u->lock);
		return ret;
	}
	pthread_mutex_unlock(&u->lock);
	free(b);
	e->opened = true;
	return 0;
}

static void req_done(void *req, ucs_status_t status, void *arg)
{
	struct ucxp_batch *b = arg;

	if (status != UCS_OK && b->status == UCS_OK)
		b->status = status;
	b->inflight--;
	ucp_request_free(req);
	/* A caller other than the one whose progress ran this may wait. */
	pthread_cond_broadcast(&b->u->progressed);
}

/*
 * Under u->lock, after a progress call that found nothing: yield a few
 * times, then sleep until the progress thread has handled an event (or
 * 100 ms, or @deadline).  A caller that spun instead would take its CPU
 * from the network stack and from the peer it waits for, when they share
 * one (a VM, a small host).
 */
static void idle_wait(struct adxl_plugin_ctx *u, unsigned int *idle,
		      int64_t deadline)
{
	int64_t until = ucxp_now_ms() + 100;
	struct timespec ts;

	if (++*idle < SPIN) {
		pthread_mutex_unlock(&u->lock);
		sched_yield();
		pthread_mutex_lock(&u->lock);
		return;
	}
	if (deadline >= 0 && deadline < until)
		until = deadline;
	ts.tv_sec = until / 1000;
	ts.tv_nsec = (until % 1000) * 1000000;
	pthread_cond_timedwait(&u->progressed, &u->lock, &ts);
	*idle = 0;
}

/*
 * Under u->lock: wait until the requests of @b (ucp_*_nbx with req_done
 * on @b) are done, or until @deadline; true if they are.
 */
static bool wait_locked(struct adxl_plugin_ctx *u, struct ucxp_batch *b, int64_t deadline)
{
	unsigned int idle = 0;

	while (b->inflight) {
		if (deadline >= 0 && ucxp_now_ms() >= deadline)
			return false;
		if (ucp_worker_progress(u->worker)) {
			idle = 0;
			continue;
		}
		idle_wait(u, &idle, deadline);
	}
	return true;
}

/* Start @r of ucp_*_nbx: counted in @b if it did not complete at once. */
static void track(struct ucxp_batch *b, ucs_status_ptr_t r)
{
	if (UCS_PTR_IS_ERR(r)) {
		if (b->status == UCS_OK)
			b->status = UCS_PTR_STATUS(r);
	} else if (r) {
		b->inflight++;
	}
}

/* Under u->lock: flush @e, the flush counted in @b like an operation. */
static void flush_start(struct adxl_plugin_ep *e, struct ucxp_batch *b)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA,
		.cb.send = req_done,
		.user_data = b,
	};

	track(b, ucp_ep_flush_nbx(e->ep, &prm));
}

/*
 * Under u->lock: close @e by force, which completes its outstanding
 * requests (ours in @b among them) with an error.  False if they did not
 * all come back in time: then @b must not be freed.
 */
static bool cancel_locked(struct adxl_plugin_ctx *u, struct adxl_plugin_ep *e,
			  struct ucxp_batch *b)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_EP_CLOSE_FLAG_FORCE,
	};
	ucs_status_ptr_t r;

	e->failed = true;
	if (e->ep) {
		r = ucp_ep_close_nbx(e->ep, &prm);
		e->ep = NULL;
		if (r && !UCS_PTR_IS_ERR(r)) {
			int64_t end = ucxp_now_ms() + CANCEL_MS;

			while (ucp_request_check_status(r) == UCS_INPROGRESS &&
			       ucxp_now_ms() < end)
				ucp_worker_progress(u->worker);
			ucp_request_free(r);
		}
	}
	return b ? wait_locked(u, b, ucxp_now_ms() + CANCEL_MS) : true;
}

/*
 * The serving end's info: our worker's address and access key,
 * [u32 length, big-endian][address][key]; a client's end has none.
 */
int ucxp_ep_create(struct adxl_plugin_ctx *u, bool serve,
		   const uint8_t *local_ip, void *info, size_t *info_len,
		   struct adxl_plugin_ep **out, char *err)
{
	struct adxl_plugin_ep *e;
	uint8_t *p = info;
	uint32_t n;

	(void)local_ip;	/* UCX picks its own interfaces (UCX_NET_DEVICES) */
	if (serve && *info_len < 4 + u->addr_len + ADXL_UCX_KEY_LEN) {
		ucxp_say(err, "the worker's address does not fit");
		return -EINVAL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		ucxp_say(err, "out of memory");
		return -ENOMEM;
	}
	e->u = u;
	e->serving = serve;
	*info_len = 0;
	if (serve) {
		n = htobe32((uint32_t)u->addr_len);
		memcpy(p, &n, 4);
		memcpy(p + 4, u->addr, u->addr_len);
		memcpy(p + 4 + u->addr_len, u->key, ADXL_UCX_KEY_LEN);
		*info_len = 4 + u->addr_len + ADXL_UCX_KEY_LEN;
	}
	*out = e;
	return 0;
}

int ucxp_ep_connect(struct adxl_plugin_ep *e, const void *info,
		    size_t info_len, int64_t deadline, char *err)
{
	const uint8_t *p = info;
	uint32_t n;

	/* our worker serves whoever has the key: nothing to connect */
	if (e->serving)
		return 0;
	if (e->opened || info_len < 4) {
		ucxp_say(err, e->opened ? "connected already" :
					  "no worker address");
		return -EINVAL;
	}
	memcpy(&n, p, 4);
	n = be32toh(n);
	if (!n || n != info_len - 4 - ADXL_UCX_KEY_LEN ||
	    info_len < 4 + ADXL_UCX_KEY_LEN) {
		ucxp_say(err, "not a worker address and key");
		return -EINVAL;
	}
	return ucxp_ep_open(e, p + 4, n, p + 4 + n, deadline, err);
}

/*
 * The serving side checks each request against what it exposes, and the
 * worker's key is the peer's: no key per range.
 */
int ucxp_ep_grant(struct adxl_plugin_ep *e, struct adxl_plugin_mem *m,
		  uint32_t *key, char *err)
{
	(void)e;
	(void)m;
	(void)err;
	*key = 0;
	return 0;
}

/* A client's end flushes within a second, then goes by force. */
void ucxp_ep_destroy(struct adxl_plugin_ep *e)
{
	if (e->opened || e->ep)
		ucxp_ep_close(e, 1000);
	else
		free(e);
}

void ucxp_ep_close(struct adxl_plugin_ep *e, int timeout_ms)
{
	struct adxl_plugin_ctx *u = e->u;
	struct ucxp_batch *b = batch_alloc(u);
	bool flushed = false;

	pthread_mutex_lock(&u->lock);
	if (e->ep && !e->failed && b) {
		/* Writes we returned from are complete already: be brief. */
		flush_start(e, b);
		flushed = wait_locked(u, b, ucxp_now_ms() + timeout_ms) &&
			  b->status == UCS_OK;
	}
	/*
	 * Forced, flushed or not: a flushing close waits for the peer's
	 * answer, which a powered-off host never sends.
	 */
	if (cancel_locked(u, e, flushed ? NULL : b) || flushed)
		free(b);
	pthread_mutex_unlock(&u->lock);
	free(e);
}

bool ucxp_ep_failed(struct adxl_plugin_ep *e)
{
	return !e->serving && __atomic_load_n(&e->failed, __ATOMIC_RELAXED);
}

/* Under u->lock: send the next chunk of @op, from @off, in a free slot. */
static void send_chunk(struct adxl_plugin_ep *e, struct ucxp_batch *b,
		       const struct adxl_plugin_op *op, uint64_t off)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.cb.send = req_done,
		.user_data = b,
		/* Eager: the serving side drops rendezvous messages. */
		.flags = UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER,
	};
	unsigned int i = b->free[--b->nfree];
	struct ucxp_slot *s = &b->slot[i];
	uint64_t chunk = b->u->chunk;
	uint64_t len = op->len - off < chunk ? op->len - off : chunk;

	s->busy = true;
	s->local = op->local + off;
	s->req = (struct adxl_ucx_wire_req){
		.id = slot_id(b, i), .nonce = b->nonce,
		.addr = op->remote + off, .len = len,
	};
	memcpy(s->req.key, e->key, sizeof(s->req.key));
	b->busy++;
	b->bytes += len;
	/* A write carries its bytes; a read only asks. */
	track(b, ucp_am_send_nbx(e->ep, b->write ? ADXL_UCX_AM_WRITE :
				 ADXL_UCX_AM_READ, &s->req, sizeof(s->req),
				 b->write ? (void *)(uintptr_t)s->local : NULL,
				 b->write ? len : 0, &prm));
}

/*
 * A batch's nonce: only the peer we asked learns it.  Never blocks (a
 * young VM's entropy pool may not be ready); without getrandom, the
 * clock and our address are enough to tell batches of one run apart.
 */
static uint64_t nonce(void)
{
	struct timespec ts;
	uint64_t n;

	if (getrandom(&n, sizeof(n), GRND_NONBLOCK) == sizeof(n))
		return n;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^
		(uint64_t)(uintptr_t)&ts) * 0x9e3779b97f4a7c15ULL;
}

static struct ucxp_batch *batch_new(struct adxl_plugin_ctx *u, bool write)
{
	struct ucxp_batch *b = batch_alloc(u);
	unsigned int i;

	if (!b)
		return NULL;
	b->write = write;
	b->seq = ++u->next_seq;
	b->nonce = nonce();
	for (i = 0; i < WINDOW; i++)
		b->free[i] = (uint16_t)(WINDOW - 1 - i);
	b->nfree = WINDOW;
	b->next = u->batches;
	u->batches = b;
	return b;
}

/* Under u->lock: no answer can find @b any more. */
static void batch_unlink(struct adxl_plugin_ctx *u, struct ucxp_batch *b)
{
	struct ucxp_batch **pp;

	for (pp = &u->batches; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			return;
		}
	}
}

int ucxp_xfer(struct adxl_plugin_ep *e, bool write,
	      const struct adxl_plugin_op *ops, size_t n, int64_t deadline,
	      char *err)
{
	struct adxl_plugin_ctx *u = e->u;
	/*
	 * On the heap: if a forced close does not hand our requests back,
	 * their callbacks may still run later and must find it.
	 */
	struct ucxp_batch *b;
	bool timed_out = false;
	unsigned int idle = 0;
	uint64_t off = 0;
	size_t i = 0;
	int ret = 0;

	pthread_mutex_lock(&u->lock);
	b = batch_new(u, write);
	if (!b) {
		pthread_mutex_unlock(&u->lock);
		ucxp_say(err, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		if (!e->ep || e->failed || b->status != UCS_OK)
			break;
		/* After a refusal, only collect what is in flight. */
		while (i < n && !b->refused && b->nfree &&
		       b->bytes < INFLIGHT_MAX && b->status == UCS_OK) {
			if (off < ops[i].len)
				send_chunk(e, b, &ops[i], off);
			off += u->chunk;
			if (off >= ops[i].len) {
				i++;
				off = 0;
			}
		}
		if (b->status != UCS_OK)
			break;
		if ((i == n || b->refused) && !b->busy && !b->inflight)
			break;
		if (deadline >= 0 && ucxp_now_ms() >= deadline) {
			timed_out = true;
			break;
		}
		if (ucp_worker_progress(u->worker))
			idle = 0;
		else
			idle_wait(u, &idle, deadline);
	}

	if (timed_out) {
		ucxp_say(err, "%zu chunks unanswered, %zu of %zu ranges not yet sent at the deadline",
		    b->busy, n - i, n);
		ret = -ETIMEDOUT;
	} else if (!e->ep || e->failed || b->status != UCS_OK) {
		ucs_status_t why = e->failed && e->why != UCS_OK ? e->why :
				   b->status != UCS_OK ? b->status :
				   UCS_ERR_NOT_CONNECTED;

		ucxp_say(err, "%s", !e->ep && e->failed && why == UCS_ERR_NOT_CONNECTED ?
		    "the endpoint was closed after an earlier failure" :
		    ucs_status_string(why));
		ret = ucxp_errno_of(why);
		if (ret == -EIO || ret == -ENOMEM || ret == -EINVAL)
			ret = -ECONNRESET;	/* answers may be lost: give up the link */
	} else if (b->refused == -EFAULT) {
		ucxp_say(err, "the peer refused [0x%llx, +%llu): it exposes no such memory (deregistered since Connect?)",
		    (unsigned long long)b->refused_addr,
		    (unsigned long long)b->refused_len);
		ret = -EFAULT;
	} else if (b->refused) {
		ucxp_say(err, "the peer answered [0x%llx, +%llu) with: %s",
		    (unsigned long long)b->refused_addr,
		    (unsigned long long)b->refused_len, strerror(-b->refused));
		ret = -EIO;
	}
	batch_unlink(u, b);
	if (ret == -ETIMEDOUT || ret == -ECONNRESET) {
		if (!cancel_locked(u, e, b)) {
			/* Leak @b rather than let a late callback use freed memory. */
			pthread_mutex_unlock(&u->lock);
			return ret;
		}
	}
	pthread_mutex_unlock(&u->lock);
	free(b);
	return ret;
}
