// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-ucx.so: the UCX transport of libmemreg's ADXL engine.  The contract
 * is lib/adxl/ucx_plugin.h; this file is the only one that includes UCX.
 *
 * One UCP context and worker per engine, in serialized thread mode behind
 * one mutex.  The mutex covers every UCX call and the batch bookkeeping
 * that completion callbacks update, so callbacks (which run inside
 * ucp_worker_progress) need no lock of their own.  A progress thread
 * sleeps on the worker's event fd: UCX over TCP carries a peer's reads and
 * writes as messages that our worker must process, whatever our
 * application is doing at the time.
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

#include <ucp/api/ucp.h>

#include "../adxl/ucx_plugin.h"

/* Operations in flight per batch: enough to fill a link, bounded memory. */
#define WINDOW		256
/* How long a forced close may take to hand back our requests. */
#define CANCEL_MS	5000

struct adxl_ucx {
	pthread_mutex_t lock;
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_address_t *addr;
	size_t addr_len;
	int efd;			/* the worker's event fd */
	int wake_fd;			/* eventfd: stop the progress thread */
	pthread_t progress;
};

struct adxl_ucx_mem {
	ucp_mem_h memh;
	void *rkey_buf;
	size_t rkey_len;
};

struct adxl_ucx_ep {
	ucp_ep_h ep;			/* NULL once closed */
	bool failed;
	ucs_status_t why;
};

struct adxl_ucx_rkey {
	ucp_rkey_h rkey;
};

/* One batch's outstanding requests; see xfer() for why on the heap. */
struct batch {
	size_t inflight;
	ucs_status_t status;
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

static void *progress_main(void *arg)
{
	struct adxl_ucx *u = arg;
	struct pollfd pfd[2] = {
		{ .fd = u->wake_fd, .events = POLLIN },
		{ .fd = u->efd, .events = POLLIN },
	};
	ucs_status_t st;

	for (;;) {
		pthread_mutex_lock(&u->lock);
		while (ucp_worker_progress(u->worker))
			;
		st = ucp_worker_arm(u->worker);
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
	pthread_mutex_destroy(&u->lock);
	free(u);
}

static int open_ctx(struct adxl_ucx **out, char *err)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_RMA | UCP_FEATURE_WAKEUP,
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
	pthread_mutex_init(&u->lock, NULL);
	u->wake_fd = -1;
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
	if (st != UCS_OK) {
		say(err, "worker address or event fd: %s",
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

static int mem_map(struct adxl_ucx *u, void *addr, size_t len,
		   struct adxl_ucx_mem **out, char *err)
{
	ucp_mem_map_params_t mp = {
		.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
			      UCP_MEM_MAP_PARAM_FIELD_LENGTH,
		.address = addr,
		.length = len,
	};
	struct adxl_ucx_mem *m = calloc(1, sizeof(*m));
	ucs_status_t st;

	if (!m) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_lock(&u->lock);
	st = ucp_mem_map(u->ctx, &mp, &m->memh);
	if (st == UCS_OK) {
		st = ucp_rkey_pack(u->ctx, m->memh, &m->rkey_buf,
				   &m->rkey_len);
		if (st != UCS_OK)
			ucp_mem_unmap(u->ctx, m->memh);
	}
	pthread_mutex_unlock(&u->lock);
	if (st != UCS_OK) {
		say(err, "ucp_mem_map [%p, +%zu): %s", addr, len,
		    ucs_status_string(st));
		free(m);
		return errno_of(st);
	}
	*out = m;
	return 0;
}

static void mem_rkey(struct adxl_ucx_mem *m, const void **buf, size_t *len)
{
	*buf = m->rkey_buf;
	*len = m->rkey_len;
}

static void mem_unmap(struct adxl_ucx *u, struct adxl_ucx_mem *m)
{
	pthread_mutex_lock(&u->lock);
	ucp_rkey_buffer_release(m->rkey_buf);
	ucp_mem_unmap(u->ctx, m->memh);
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
}

static bool wait_locked(struct adxl_ucx *u, struct batch *b, int64_t deadline);
static bool cancel_locked(struct adxl_ucx *u, struct adxl_ucx_ep *e,
			  struct batch *b);
static void flush_start(struct adxl_ucx_ep *e, struct batch *b);

static int ep_open(struct adxl_ucx *u, const void *addr, size_t len,
		   int64_t deadline, struct adxl_ucx_ep **out, char *err)
{
	struct adxl_ucx_ep *e = calloc(1, sizeof(*e));
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
			      UCP_EP_PARAM_FIELD_ERR_HANDLER,
		.address = addr,
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
		.err_handler = { .cb = ep_err, .arg = e },
	};
	ucs_status_t st;

	(void)len;	/* a UCP address carries its own length */
	if (!e) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	struct batch *b = calloc(1, sizeof(*b));
	int ret = 0;

	if (!b) {
		free(e);
		say(err, "out of memory");
		return -ENOMEM;
	}
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
}

/*
 * Under u->lock: wait for the request @r (of ucp_*_nbx with req_done on
 * @b) or until @deadline; true if it (and everything else of @b) is done.
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
		/* Let the progress thread and other callers in now and then. */
		if (++idle % 64 == 0) {
			pthread_mutex_unlock(&u->lock);
			sched_yield();
			pthread_mutex_lock(&u->lock);
		}
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
	struct batch *b = calloc(1, sizeof(*b));
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

static int rkey_unpack(struct adxl_ucx *u, struct adxl_ucx_ep *e,
		       const void *buf, size_t len, struct adxl_ucx_rkey **out,
		       char *err)
{
	struct adxl_ucx_rkey *k = calloc(1, sizeof(*k));
	ucs_status_t st = UCS_ERR_NOT_CONNECTED;

	(void)len;
	if (!k) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_lock(&u->lock);
	if (e->ep)
		st = ucp_ep_rkey_unpack(e->ep, buf, &k->rkey);
	pthread_mutex_unlock(&u->lock);
	if (st != UCS_OK) {
		say(err, "ucp_ep_rkey_unpack: %s", ucs_status_string(st));
		free(k);
		return errno_of(st);
	}
	*out = k;
	return 0;
}

static void rkey_destroy(struct adxl_ucx *u, struct adxl_ucx_rkey *k)
{
	pthread_mutex_lock(&u->lock);
	ucp_rkey_destroy(k->rkey);
	pthread_mutex_unlock(&u->lock);
	free(k);
}

static ucs_status_ptr_t post(struct adxl_ucx_ep *e, bool write,
			     const struct adxl_ucx_op *op,
			     ucp_request_param_t *prm)
{
	prm->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
			    UCP_OP_ATTR_FIELD_USER_DATA;
	if (op->lmem) {
		prm->op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
		prm->memh = op->lmem->memh;
	}
	if (write)
		return ucp_put_nbx(e->ep, (void *)(uintptr_t)op->local,
				   op->len, op->remote, op->rkey->rkey, prm);
	return ucp_get_nbx(e->ep, (void *)(uintptr_t)op->local, op->len,
			   op->remote, op->rkey->rkey, prm);
}

static int xfer(struct adxl_ucx *u, struct adxl_ucx_ep *e, bool write,
		const struct adxl_ucx_op *ops, size_t n, int64_t deadline,
		char *err)
{
	/*
	 * On the heap: if a forced close does not hand our requests back,
	 * their callbacks may still run later and must find it.
	 */
	struct batch *b = calloc(1, sizeof(*b));
	ucp_request_param_t prm = { .cb.send = req_done, .user_data = b };
	bool timed_out = false, flushed = false;
	size_t i = 0;
	int ret = 0;

	if (!b) {
		say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_lock(&u->lock);
	for (;;) {
		if (!e->ep || e->failed || b->status != UCS_OK)
			break;
		while (i < n && b->inflight < WINDOW && b->status == UCS_OK)
			track(b, post(e, write, &ops[i++], &prm));
		if (b->status != UCS_OK)
			break;
		if (i == n && !b->inflight) {
			/* A put is complete locally; a flush makes it remote. */
			if (!write || flushed)
				break;
			flush_start(e, b);
			flushed = true;
			continue;
		}
		if (deadline >= 0 && now_ms() >= deadline) {
			timed_out = true;
			break;
		}
		if (!ucp_worker_progress(u->worker)) {
			pthread_mutex_unlock(&u->lock);
			sched_yield();
			pthread_mutex_lock(&u->lock);
		}
	}

	if (timed_out) {
		say(err, "%zu of %zu operations not complete by the deadline",
		    b->inflight + (n - i), n);
		ret = -ETIMEDOUT;
	} else if (!e->ep || e->failed || b->status != UCS_OK) {
		ucs_status_t why = e->failed && e->why != UCS_OK ? e->why :
				   b->status != UCS_OK ? b->status :
				   UCS_ERR_NOT_CONNECTED;

		say(err, "%s", !e->ep && e->failed && why == UCS_ERR_NOT_CONNECTED ?
		    "the endpoint was closed after an earlier failure" :
		    ucs_status_string(why));
		ret = errno_of(why);
		if (ret == -EIO || ret == -ENOMEM || ret == -EINVAL) {
			/* Not the link: it stays; wait for what is in flight. */
			if (!wait_locked(u, b, now_ms() + CANCEL_MS))
				ret = -ECONNRESET;
		}
	}
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
	.mem_map = mem_map,
	.mem_rkey = mem_rkey,
	.mem_unmap = mem_unmap,
	.ep_open = ep_open,
	.ep_close = ep_close,
	.ep_failed = ep_failed,
	.rkey_unpack = rkey_unpack,
	.rkey_destroy = rkey_destroy,
	.xfer = xfer,
};

__attribute__((visibility("default")))
const struct adxl_ucx_ops *adxl_ucx_plugin(void)
{
	return &ops;
}
