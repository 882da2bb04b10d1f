// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-ucx.so: the UCX transport of libmemreg's ADXL engine (ucx_int.h
 * says which file does what).  This file: the UCP context and worker, the
 * progress thread that sleeps on the worker's event fd and serves peers'
 * requests whatever our application is doing at the time, the ranges
 * exposed to peers, and the plugin's table of operations.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/random.h>

#include "ucx_int.h"

void ucxp_say(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void ucxp_say(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ADXL_PLUGIN_ERR_LEN, fmt, ap);
	va_end(ap);
}

int64_t ucxp_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ucxp_errno_of(ucs_status_t st)
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
	struct adxl_plugin_ctx *u = arg;
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

/* "UCX 1.13.1": the library it runs on. */
static const char *describe(struct adxl_plugin_ctx *u)
{
	return u->desc;
}

static void close_ctx(struct adxl_plugin_ctx *u)
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

/* Nothing of @conf concerns UCX: it finds its interfaces itself. */
static int open_ctx(const struct adxl_plugin_conf *conf,
		    struct adxl_plugin_ctx **out, char *err)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
	};
	ucp_worker_params_t wparams = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_SERIALIZED,
	};
	struct adxl_plugin_ctx *u;
	ucp_config_t *cfg;
	ucs_status_t st;
	int ret;

	(void)conf;
	u = calloc(1, sizeof(*u));
	if (!u) {
		ucxp_say(err, "out of memory");
		return -ENOMEM;
	}
	snprintf(u->desc, sizeof(u->desc), "UCX %s", ucp_get_version_string());
	pthread_condattr_t ca;

	pthread_mutex_init(&u->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&u->progressed, &ca);
	pthread_condattr_destroy(&ca);
	u->wake_fd = -1;
	/* Blocks only until the kernel's pool is ready: a key must not be guessable. */
	if (getrandom(u->key, sizeof(u->key), 0) != sizeof(u->key)) {
		ucxp_say(err, "getrandom: %s", strerror(errno));
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
	/*
	 * TCP unless the user says otherwise (UCX_TLS or UCX_NET_DEVICES):
	 * RDMA has a path of its own
	 * (adxl-rdma.so), and UCX 1.13's verbs transports abort the process
	 * on soft-RoCE ("ucp_request.c:684 Assertion ... got REQ message"
	 * when both hosts have rxe).
	 */
	if (st == UCS_OK) {
		/* (a user who names devices picks the transports too) */
		if (!getenv("UCX_TLS") && !getenv("UCX_NET_DEVICES"))
			st = ucp_config_modify(cfg, "TLS", "tcp");
		if (st == UCS_OK)
			st = ucp_init(&params, cfg, &u->ctx);
		ucp_config_release(cfg);
	}
	if (st != UCS_OK) {
		ucxp_say(err, "ucp_init: %s", ucs_status_string(st));
		goto fail;
	}
	st = ucp_worker_create(u->ctx, &wparams, &u->worker);
	if (st != UCS_OK) {
		ucxp_say(err, "ucp_worker_create: %s", ucs_status_string(st));
		goto fail;
	}
	st = ucp_worker_get_address(u->worker, &u->addr, &u->addr_len);
	if (st == UCS_OK)
		st = ucp_worker_get_efd(u->worker, &u->efd);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_READ, ucxp_on_read, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_WRITE, ucxp_on_write, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_DATA, ucxp_on_answer, u);
	if (st == UCS_OK)
		st = set_handler(u->worker, ADXL_UCX_AM_DONE, ucxp_on_answer, u);
	if (st != UCS_OK) {
		ucxp_say(err, "worker address, event fd or handlers: %s",
		    ucs_status_string(st));
		goto fail;
	}
	u->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (u->wake_fd < 0) {
		ucxp_say(err, "eventfd: %s", strerror(errno));
		goto fail;
	}
	ret = pthread_create(&u->progress, NULL, progress_main, u);
	if (ret) {
		close(u->wake_fd);
		u->wake_fd = -1;
		ucxp_say(err, "progress thread: %s", strerror(ret));
		goto fail;
	}
	*out = u;
	return 0;

fail:
	close_ctx(u);
	return st == UCS_ERR_NO_MEMORY ? -ENOMEM : -EIO;
}

static int mem_expose(struct adxl_plugin_ctx *u, void *addr, size_t len,
		      struct adxl_plugin_mem **out, char *err)
{
	struct adxl_plugin_mem *m = calloc(1, sizeof(*m));

	if (!m) {
		ucxp_say(err, "out of memory");
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
static void mem_hide(struct adxl_plugin_ctx *u, struct adxl_plugin_mem *m)
{
	struct adxl_plugin_mem **pp;

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

static const struct adxl_plugin plugin = {
	.transport = "ucx",
	.open = open_ctx,
	.close = close_ctx,
	.describe = describe,
	.mem_reg = mem_expose,
	.mem_dereg = mem_hide,
	.ep_create = ucxp_ep_create,
	.ep_connect = ucxp_ep_connect,
	.ep_grant = ucxp_ep_grant,
	.ep_destroy = ucxp_ep_destroy,
	.ep_failed = ucxp_ep_failed,
	.xfer = ucxp_xfer,
};

__attribute__((visibility("default")))
const struct adxl_plugin *adxl_transport_plugin_v1(void)
{
	return &plugin;
}
