// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-ucx.so: the UCX transport of libmemreg's ADXL engine.  The contract
 * is lib/adxl/ucx_plugin.h; this file is the only one that includes UCX.
 *
 * One UCP context and worker per engine, in serialized thread mode behind
 * one mutex.  The mutex covers every UCX call and the batch bookkeeping
 * that callbacks update, so callbacks (which run inside
 * ucp_worker_progress) need no lock of their own.  A progress thread
 * sleeps on the worker's event fd and serves peers' requests whatever our
 * application is doing at the time.
 *
 * Reads and writes are active messages (why: ucx_plugin.h), cut into
 * chunks of at most CHUNK bytes, always eager:
 *   READ   id, remote address, length          -> DATA   id, status, bytes
 *   WRITE  id, remote address, length, bytes   -> DONE   id, status
 * The serving side answers on the reply endpoint UCX hands it, after
 * checking the range against what it exposed; it copies the bytes of an
 * answer into the message itself, so nothing refers to exposed memory
 * once the handler returns (that is what makes mem_hide immediate).  An
 * id names a batch and one of its WINDOW slots, with a generation so that
 * a stale answer finds nothing; the batch's random nonce travels with it,
 * so another peer cannot answer in its place.  Headers are copied out of
 * the message before use (UCX puts them after the payload, unaligned).
 * Both ends are the same build on the same architecture (UCX assumes that
 * too): the headers are native-endian.
 *
 * Endpoints use UCP_ERR_HANDLING_MODE_PEER: a peer that dies fails its
 * endpoint instead of hanging it, and a forced close completes every
 * outstanding request with an error, which is how a batch that runs out
 * of time is taken back before it returns.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/random.h>

#include <ucp/api/ucp.h>

#include "../adxl/ucx_plugin.h"
#include "adxl_ucx_wire.h"

_Static_assert(ADXL_UCX_KEY_LEN == ADXL_UCX_WIRE_KEY_LEN,
	       "the plugin's key is the one on the wire");

/* Chunks in flight per batch: enough to fill a link, bounded memory. */
#define WINDOW		256
/*
 * The largest chunk, and the bytes a batch keeps in flight (a new chunk
 * goes out while fewer are, so at most INFLIGHT_MAX + CHUNK).
 */
#define CHUNK		(1U << 20)
#define CHUNK_MAX	ADXL_UCX_CHUNK_MAX
#define INFLIGHT_MAX	(16U << 20)
/*
 * The most bytes of answers the serving side holds until UCX has sent
 * them, over all its peers: our clients keep 16 MiB in flight per call,
 * one that ignores that (or its peer's slow link) gets -EBUSY.
 */
#define ANSWERS_MAX	(256U << 20)

/* An answer on its way: the header and bytes UCX sends from. */
struct answer {
	struct adxl_ucx *u;
	size_t len;
	struct adxl_ucx_wire_ans h;	/* followed by len bytes */
};
/* Idle polls of a waiting caller before it sleeps until the next event. */
#define SPIN		32
/* How long a forced close may take to hand back our requests. */
#define CANCEL_MS	5000

struct adxl_ucx {
	pthread_mutex_t lock;
	pthread_cond_t progressed;	/* the progress thread did something */
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_address_t *addr;
	size_t addr_len;
	uint8_t key[ADXL_UCX_KEY_LEN];	/* peers' requests must carry it */
	int efd;			/* the worker's event fd */
	int wake_fd;			/* eventfd: stop the progress thread */
	pthread_t progress;
	struct adxl_ucx_mem *mems;	/* exposed ranges */
	struct adxl_ucx_mem *last_hit;
	struct batch *batches;		/* xfer calls waiting for answers */
	uint64_t chunk;
	size_t answer_bytes;		/* of answers UCX has not sent yet */
	uint32_t next_seq;
};

struct adxl_ucx_mem {
	struct adxl_ucx_mem *next;
	uintptr_t addr;
	size_t len;
};

struct adxl_ucx_ep {
	struct adxl_ucx *u;
	uint8_t key[ADXL_UCX_KEY_LEN];	/* the peer worker's access key */
	ucp_ep_h ep;			/* NULL once closed */
	bool failed;
	ucs_status_t why;
};

/* A chunk waiting for its answer. */
struct slot {
	struct adxl_ucx_wire_req req;	/* as sent: UCX reads it until the send ends */
	uint64_t local;
	uint16_t gen;
	bool busy;
};

/*
 * One xfer call's (or one flush's) outstanding requests and chunks; see
 * xfer() for why on the heap.
 */
struct batch {
	struct batch *next;
	struct adxl_ucx *u;
	uint32_t seq;
	uint64_t nonce;
	bool write;
	size_t inflight;	/* UCX requests (sends, flushes) not done */
	size_t busy;		/* chunks without an answer */
	size_t bytes;		/* their bytes */
	ucs_status_t status;	/* the first UCX error */
	int refused;		/* the first error the peer answered */
	uint64_t refused_addr, refused_len;
	unsigned int nfree;
	uint16_t free[WINDOW];
	struct slot slot[WINDOW];
};

static void say(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ADXL_UCX_ERR_LEN, fmt, ap);
	va_end(ap);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int errno_of(ucs_status_t st)
{
	switch (st) {
	case UCS_ERR_NO_MEMORY:
		return -ENOMEM;
	case UCS_ERR_INVALID_PARAM:
		return -EINVAL;
	case UCS_ERR_ENDPOINT_TIMEOUT:
	case UCS_ERR_CONNECTION_RESET:
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_CANCELED:
	case UCS_ERR_REJECTED:
	case UCS_ERR_NOT_CONNECTED:
		return -ECONNRESET;
	default:
		return -EIO;
	}
}

/* ---- serving a peer's requests (inside ucp_worker_progress) ---- */

/* The exposed range that holds [@addr, +@len), or NULL. */
static struct adxl_ucx_mem *exposed(struct adxl_ucx *u, uint64_t addr,
				    uint64_t len)
{
	struct adxl_ucx_mem *m = u->last_hit;

	if (m && addr >= m->addr && len <= m->len &&
	    addr - m->addr <= m->len - len)
		return m;
	for (m = u->mems; m; m = m->next) {
		if (addr >= m->addr && len <= m->len &&
		    addr - m->addr <= m->len - len) {
			u->last_hit = m;
			return m;
		}
	}
	return NULL;
}

static void answer_free(struct answer *x)
{
	x->u->answer_bytes -= x->len;
	free(x);
}

static void answer_sent(void *req, ucs_status_t status, void *arg)
{
	(void)status;	/* a peer that went away: nothing to tell it */
	answer_free(arg);
	ucp_request_free(req);
}

/*
 * Answer request @q on @ep: @status, and for DATA the @len bytes at @src,
 * copied into the message (one allocation, which lives until UCX has sent
 * it).
 */
static void answer(struct adxl_ucx *u, ucp_ep_h ep, unsigned int am,
		   const struct adxl_ucx_wire_req *q, int status, const void *src,
		   size_t len)
{
	struct answer *x = NULL;
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.cb.send = answer_sent,
		.flags = UCP_AM_SEND_FLAG_EAGER,
	};
	ucs_status_ptr_t r;

	if (len && u->answer_bytes + len > ANSWERS_MAX) {
		status = -EBUSY;
		len = 0;
	}
	x = malloc(sizeof(*x) + len);
	if (!x && len) {
		status = -ENOMEM;
		len = 0;
		x = malloc(sizeof(*x));
	}
	if (!x)
		return;	/* the peer's deadline will tell it */
	x->u = u;
	x->len = len;
	x->h = (struct adxl_ucx_wire_ans){
		.id = q->id, .nonce = q->nonce, .status = status,
	};
	if (len)
		memcpy(&x->h + 1, src, len);
	u->answer_bytes += len;
	prm.user_data = x;
	r = ucp_am_send_nbx(ep, am, &x->h, sizeof(x->h),
			    len ? (void *)(&x->h + 1) : NULL, len, &prm);
	if (!UCS_PTR_IS_PTR(r))
		answer_free(x);	/* sent at once, or failed: no callback */
}

/* The key compared in constant time: no timing tells how much matched. */
static bool key_ok(const struct adxl_ucx *u, const uint8_t *key)
{
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < ADXL_UCX_KEY_LEN; i++)
		diff |= u->key[i] ^ key[i];
	return !diff;
}

/* READ and WRITE from a peer. */
static ucs_status_t on_request(void *arg, const void *header, size_t hlen,
			       void *data, size_t len,
			       const ucp_am_recv_param_t *prm, bool write)
{
	struct adxl_ucx *u = arg;
	struct adxl_ucx_mem *m;
	struct adxl_ucx_wire_req q;
	int status = 0;

	/*
	 * Our peers send eager only.  Returning UCS_OK without receiving
	 * drops a rendezvous message (UCX releases it itself).
	 */
	if (prm->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
		return UCS_OK;
	if (hlen != sizeof(q) || !(prm->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		return UCS_OK;	/* not ours, and no one to answer */
	memcpy(&q, header, sizeof(q));
	m = exposed(u, q.addr, q.len);
	if (!key_ok(u, q.key))
		status = -EACCES;
	else if (!m || q.len > CHUNK_MAX)
		status = -EFAULT;
	else if (write && len != q.len)
		status = -EPROTO;
	if (!write) {
		answer(u, prm->reply_ep, ADXL_UCX_AM_DATA, &q, status,
		       (const void *)(uintptr_t)q.addr, status ? 0 : q.len);
		return UCS_OK;
	}
	if (!status)
		memcpy((void *)(uintptr_t)q.addr, data, len);
	answer(u, prm->reply_ep, ADXL_UCX_AM_DONE, &q, status, NULL, 0);
	return UCS_OK;
}

static ucs_status_t on_read(void *arg, const void *header, size_t hlen,
			    void *data, size_t len,
			    const ucp_am_recv_param_t *prm)
{
	return on_request(arg, header, hlen, data, len, prm, false);
}

static ucs_status_t on_write(void *arg, const void *header, size_t hlen,
			     void *data, size_t len,
			     const ucp_am_recv_param_t *prm)
{
	return on_request(arg, header, hlen, data, len, prm, true);
}

/* ---- answers to our own requests (inside ucp_worker_progress) ---- */

static uint64_t slot_id(const struct batch *b, unsigned int i)
{
	return (uint64_t)b->seq << 32 | (uint64_t)b->slot[i].gen << 16 | i;
}

/* The slot that waits for answer @a, and its batch; NULL if none does. */
static struct slot *slot_of(struct adxl_ucx *u, const struct adxl_ucx_wire_ans *a,
			    struct batch **bp)
{
	uint64_t id = a->id;
	unsigned int i = id & 0xffff;
	struct batch *b;

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

static void slot_release(struct batch *b, struct slot *s)
{
	pthread_cond_broadcast(&b->u->progressed);
	s->busy = false;
	s->gen++;
	b->busy--;
	b->bytes -= s->req.len;
	b->free[b->nfree++] = (uint16_t)(s - b->slot);
}

/* DATA and DONE from the peer we asked. */
static ucs_status_t on_answer(void *arg, const void *header, size_t hlen,
			      void *data, size_t len,
			      const ucp_am_recv_param_t *prm)
{
	struct adxl_ucx *u = arg;
	struct adxl_ucx_wire_ans a;
	struct batch *b;
	struct slot *s;

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

static ucs_status_t set_handler(ucp_worker_h w, unsigned int id,
				ucp_am_recv_callback_t cb, void *arg)
{
	ucp_am_handler_param_t hp = {
		.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
			      UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
			      UCP_AM_HANDLER_PARAM_FIELD_CB |
			      UCP_AM_HANDLER_PARAM_FIELD_ARG,
		.id = id,
		.flags = UCP_AM_FLAG_WHOLE_MSG,
		.cb = cb,
		.arg = arg,
	};

	return ucp_worker_set_am_recv_handler(w, &hp);
}

static void *progress_main(void *arg)
{
	struct adxl_ucx *u = arg;
	struct pollfd pfd[2] = {
		{ .fd = u->wake_fd, .events = POLLIN },
		{ .fd = u->efd, .events = POLLIN },
	};
	ucs_status_t st;

	for (;;) {
		unsigned int n = 0;

		pthread_mutex_lock(&u->lock);
		/* Bounded: callers and mem_hide get the lock between rounds. */
		while (n < 64 && ucp_worker_progress(u->worker))
			n++;
		if (n)
			pthread_cond_broadcast(&u->progressed);
		st = n == 64 ? UCS_ERR_BUSY : ucp_worker_arm(u->worker);
		pthread_mutex_unlock(&u->lock);
		if (st == UCS_ERR_BUSY)
			continue;
		/* Armed: sleep until there is work.  Else look again soon. */
		if (poll(pfd, 2, st == UCS_OK ? -1 : 10) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
	}
	return NULL;
}

static const char *version(void)
{
	return ucp_get_version_string();
}

static void close_ctx(struct adxl_ucx *u)
{
	uint64_t one = 1;

	if (u->wake_fd >= 0) {
		if (write(u->wake_fd, &one, sizeof(one)) == sizeof(one))
			pthread_join(u->progress, NULL);
		close(u->wake_fd);
	}
	if (u->addr)
		ucp_worker_release_address(u->worker, u->addr);
	if (u->worker)
		ucp_worker_destroy(u->worker);
	if (u->ctx)
		ucp_cleanup(u->ctx);
	pthread_cond_destroy(&u->progressed);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static int open_ctx(struct adxl_ucx **out, char *err)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
	};
	ucp_worker_params_t wparams = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_SERIALIZED,
	};
	struct adxl_ucx *u;
	ucp_config_t *cfg;
	ucs_status_t st;
	int ret;

	u = calloc(1, sizeof(*u));
	if (!u) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_condattr_t ca;

	pthread_mutex_init(&u->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->progressed, &ca);
	pthread_condattr_destroy(&ca);
	u->wake_fd = -1;
	/* Blocks only until the kernel's pool is ready: a key must not be guessable. */
	if (getrandom(u->key, sizeof(u->key), 0) != sizeof(u->key)) {
		say(err, "getrandom: %s", strerror(errno));
		pthread_cond_destroy(&u->progressed);
		pthread_mutex_destroy(&u->lock);
		free(u);
		return -EIO;
	}
	u->chunk = getenv("MEMREG_ADXL_UCX_CHUNK") ?
		   strtoull(getenv("MEMREG_ADXL_UCX_CHUNK"), NULL, 0) : CHUNK;
	if (!u->chunk || u->chunk > CHUNK_MAX)
		u->chunk = CHUNK;
	/* NULL, NULL: UCX_TLS, UCX_NET_DEVICES & co. from the environment. */
	st = ucp_config_read(NULL, NULL, &cfg);
	if (st == UCS_OK) {
		st = ucp_init(&params, cfg, &u->ctx);
		ucp_config_release(cfg);
	}
	if (st != UCS_OK) {
		say(err, "ucp_init: %s", ucs_status_string(st));
		goto fail;
	}
	st = ucp_worker_create(u->ctx, &wparams, &u->worker);
	if (st != UCS_OK) {
		say(err, "ucp_worker_create: %s", ucs_status_string(st));
		goto fail;
	}
	st = ucp_worker_get_address(u->worker, &u->addr, &u->addr_len);
	if (st == UCS_OK)
		st = ucp_worker_get_efd(u->worker, &u->efd);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_READ, on_read, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_WRITE, on_write, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_DATA, on_answer, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_DONE, on_answer, u);
	if (st != UCS_OK) {
		say(err, "worker address, event fd or handlers: %s",
		    ucs_status_string(st));
		goto fail;
	}
	u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->wake_fd < 0) {
		say(err, "eventfd: %s", strerror(errno));
		goto fail;
	}
	ret = pthread_create(&u->progress, NULL, progress_main, u);
	if (ret) {
		close(u->wake_fd);
		u->wake_fd = -1;
		say(err, "progress thread: %s", strerror(ret));
		goto fail;
	}
	*out = u;
	return 0;

fail:
	close_ctx(u);
	return st == UCS_ERR_NO_MEMORY ? -ENOMEM : -EIO;
}

static void address(struct adxl_ucx *u, const void **addr, size_t *len)
{
	*addr = u->addr;
	*len = u->addr_len;
}

static void access_key(struct adxl_ucx *u, uint8_t key[ADXL_UCX_KEY_LEN])
{
	memcpy(key, u->key, ADXL_UCX_KEY_LEN);
}

static int mem_expose(struct adxl_ucx *u, void *addr, size_t len,
		      struct adxl_ucx_mem **out, char *err)
{
	struct adxl_ucx_mem *m = calloc(1, sizeof(*m));

	if (!m) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	m->addr = (uintptr_t)addr;
	m->len = len;
	pthread_mutex_lock(&u->lock);
	m->next = u->mems;
	u->mems = m;
	pthread_mutex_unlock(&u->lock);
	*out = m;
	return 0;
}

/*
 * Immediate: handlers run under u->lock and copy what they answer, so
 * once the range is off the list no request can reach it.
 */
static void mem_hide(struct adxl_ucx *u, struct adxl_ucx_mem *m)
{
	struct adxl_ucx_mem **pp;

	pthread_mutex_lock(&u->lock);
	for (pp = &u->mems; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	}
	if (u->last_hit == m)
		u->last_hit = NULL;
	pthread_mutex_unlock(&u->lock);
	free(m);
}

/* Runs inside ucp_worker_progress, under u->lock. */
static void ep_err(void *arg, ucp_ep_h ep, ucs_status_t status)
{
	struct adxl_ucx_ep *e = arg;

	(void)ep;
	e->failed = true;
	e->why = status;
	pthread_cond_broadcast(&e->u->progressed);
}

/* A batch of @u's, not linked: a flush's, or xfer's via batch_new(). */
static struct batch *batch_alloc(struct adxl_ucx *u)
{
	struct batch *b = calloc(1, sizeof(*b));

	if (b)
		b->u = u;
	return b;
}

static bool wait_locked(struct adxl_ucx *u, struct batch *b, int64_t deadline);
static bool cancel_locked(struct adxl_ucx *u, struct adxl_ucx_ep *e,
			  struct batch *b);
static void flush_start(struct adxl_ucx_ep *e, struct batch *b);

static int ep_open(struct adxl_ucx *u, const void *addr, size_t len,
		   const uint8_t key[ADXL_UCX_KEY_LEN], int64_t deadline,
		   struct adxl_ucx_ep **out, char *err)
{
	struct adxl_ucx_ep *e = calloc(1, sizeof(*e));
	struct batch *b = batch_alloc(u);
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
	if (!e || !b) {
		free(e);
		free(b);
		say(err, "out of memory");
		return -ENOMEM;
	}
	e->u = u;
	memcpy(e->key, key, sizeof(e->key));
	pthread_mutex_lock(&u->lock);
	st = ucp_ep_create(u->worker, &ep, &e->ep);
	if (st != UCS_OK) {
		pthread_mutex_unlock(&u->lock);
		say(err, "ucp_ep_create: %s", ucs_status_string(st));
		free(b);
		free(e);
		return errno_of(st);
	}
	/*
	 * A flush completes once the wire-up has: then neither side has a
	 * wire-up message in flight when the other closes (UCX 1.13 aborts a
	 * process whose wire-up reply fails to send).
	 */
	flush_start(e, b);
	if (!wait_locked(u, b, deadline)) {
		say(err, "the peer's worker did not answer the wire-up in time");
		ret = -ETIMEDOUT;
	} else if (b->status != UCS_OK || e->failed) {
		say(err, "wire-up: %s", ucs_status_string(e->failed ? e->why :
							   b->status));
		ret = errno_of(e->failed ? e->why : b->status);
	}
	if (ret) {
		if (cancel_locked(u, e, b))
			free(b);
		pthread_mutex_unlock(&u->lock);
		free(e);
		return ret;
	}
	pthread_mutex_unlock(&u->lock);
	free(b);
	*out = e;
	return 0;
}

static void req_done(void *req, ucs_status_t status, void *arg)
{
	struct batch *b = arg;

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
static void idle_wait(struct adxl_ucx *u, unsigned int *idle,
		      int64_t deadline)
{
	int64_t until = now_ms() + 100;
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
static bool wait_locked(struct adxl_ucx *u, struct batch *b, int64_t deadline)
{
	unsigned int idle = 0;

	while (b->inflight) {
		if (deadline >= 0 && now_ms() >= deadline)
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
static void track(struct batch *b, ucs_status_ptr_t r)
{
	if (UCS_PTR_IS_ERR(r)) {
		if (b->status == UCS_OK)
			b->status = UCS_PTR_STATUS(r);
	} else if (r) {
		b->inflight++;
	}
}

/* Under u->lock: flush @e, the flush counted in @b like an operation. */
static void flush_start(struct adxl_ucx_ep *e, struct batch *b)
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
static bool cancel_locked(struct adxl_ucx *u, struct adxl_ucx_ep *e,
			  struct batch *b)
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
			int64_t end = now_ms() + CANCEL_MS;

			while (ucp_request_check_status(r) == UCS_INPROGRESS &&
			       now_ms() < end)
				ucp_worker_progress(u->worker);
			ucp_request_free(r);
		}
	}
	return b ? wait_locked(u, b, now_ms() + CANCEL_MS) : true;
}

static void ep_close(struct adxl_ucx *u, struct adxl_ucx_ep *e, int timeout_ms)
{
	struct batch *b = batch_alloc(u);
	bool flushed = false;

	pthread_mutex_lock(&u->lock);
	if (e->ep && !e->failed && b) {
		/* Writes we returned from are complete already: be brief. */
		flush_start(e, b);
		flushed = wait_locked(u, b, now_ms() + timeout_ms) &&
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

static bool ep_failed(struct adxl_ucx_ep *e)
{
	return __atomic_load_n(&e->failed, __ATOMIC_RELAXED);
}

/* Under u->lock: send the next chunk of @op, from @off, in a free slot. */
static void send_chunk(struct adxl_ucx_ep *e, struct batch *b,
		       const struct adxl_ucx_op *op, uint64_t off)
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
	struct slot *s = &b->slot[i];
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

static struct batch *batch_new(struct adxl_ucx *u, bool write)
{
	struct batch *b = batch_alloc(u);
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
static void batch_unlink(struct adxl_ucx *u, struct batch *b)
{
	struct batch **pp;

	for (pp = &u->batches; *pp; pp = &(*pp)->next) {
		if (*pp == b) {
			*pp = b->next;
			return;
		}
	}
}

static int xfer(struct adxl_ucx *u, struct adxl_ucx_ep *e, bool write,
		const struct adxl_ucx_op *ops, size_t n, int64_t deadline,
		char *err)
{
	/*
	 * On the heap: if a forced close does not hand our requests back,
	 * their callbacks may still run later and must find it.
	 */
	struct batch *b;
	bool timed_out = false;
	unsigned int idle = 0;
	uint64_t off = 0;
	size_t i = 0;
	int ret = 0;

	pthread_mutex_lock(&u->lock);
	b = batch_new(u, write);
	if (!b) {
		pthread_mutex_unlock(&u->lock);
		say(err, "out of memory");
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
		if (deadline >= 0 && now_ms() >= deadline) {
			timed_out = true;
			break;
		}
		if (ucp_worker_progress(u->worker))
			idle = 0;
		else
			idle_wait(u, &idle, deadline);
	}

	if (timed_out) {
		say(err, "%zu chunks unanswered, %zu of %zu ranges not yet sent at the deadline",
		    b->busy, n - i, n);
		ret = -ETIMEDOUT;
	} else if (!e->ep || e->failed || b->status != UCS_OK) {
		ucs_status_t why = e->failed && e->why != UCS_OK ? e->why :
				   b->status != UCS_OK ? b->status :
				   UCS_ERR_NOT_CONNECTED;

		say(err, "%s", !e->ep && e->failed && why == UCS_ERR_NOT_CONNECTED ?
		    "the endpoint was closed after an earlier failure" :
		    ucs_status_string(why));
		ret = errno_of(why);
		if (ret == -EIO || ret == -ENOMEM || ret == -EINVAL)
			ret = -ECONNRESET;	/* answers may be lost: give up the link */
	} else if (b->refused == -EFAULT) {
		say(err, "the peer refused [0x%llx, +%llu): it exposes no such memory (deregistered since Connect?)",
		    (unsigned long long)b->refused_addr,
		    (unsigned long long)b->refused_len);
		ret = -EFAULT;
	} else if (b->refused) {
		say(err, "the peer answered [0x%llx, +%llu) with: %s",
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

static const struct adxl_ucx_ops ops = {
	.abi = ADXL_UCX_PLUGIN_ABI,
	.version = version,
	.open = open_ctx,
	.close = close_ctx,
	.address = address,
	.access_key = access_key,
	.mem_expose = mem_expose,
	.mem_hide = mem_hide,
	.ep_open = ep_open,
	.ep_close = ep_close,
	.ep_failed = ep_failed,
	.xfer = xfer,
};

__attribute__((visibility("default")))
const struct adxl_ucx_ops *adxl_ucx_plugin(void)
{
	return &ops;
}
