// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hixl::Hixl's ConnectAsync, DisconnectAsync and GetAsyncConnectStatus:
 * a queue of connects and disconnects run by one worker thread per
 * engine, started on first use, and the state of the last one asked for
 * each peer.
 *
 * One worker is enough: adxl_connect() takes the engine's conn_lock, so
 * connects never run side by side anyway, and one worker keeps the
 * operations on a peer in the order they were asked.  The states move as
 * in the reference: PENDING when queued, CONNECTING/DISCONNECTING when
 * started, then CONNECTED or CONNECT_FAILED, or (a finished disconnect)
 * no state, read as NOT_CONNECT.  A result that the caller has already
 * overtaken (a connect finishing after a disconnect was queued, or the
 * other way round) leaves the newer PENDING state alone.
 */
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

struct adxl_ca_task {
	struct adxl_ca_task *next;
	char *name;
	bool connect;
	int32_t timeout_ms;
};

struct adxl_ca_state {
	struct adxl_ca_state *next;
	char *name;
	enum adxl_connect_status status;
};

static struct adxl_ca_state **state_find(struct adxl_engine *e,
					 const char *name)
{
	struct adxl_ca_state **sp;

	for (sp = &e->ca_states; *sp; sp = &(*sp)->next)
		if (!strcmp((*sp)->name, name))
			break;
	return sp;
}

/* Under ca_lock.  False only if out of memory for a new state. */
static bool set_status(struct adxl_engine *e, const char *name,
		       enum adxl_connect_status status)
{
	struct adxl_ca_state **sp = state_find(e, name), *s = *sp;
	enum adxl_connect_status cur = s ? s->status : ADXL_CONN_NOT_CONNECT;

	switch (status) {
	case ADXL_CONN_CONNECTING:
	case ADXL_CONN_CONNECTED:
	case ADXL_CONN_CONNECT_FAILED:
		if (cur == ADXL_CONN_DISCONNECT_PENDING)
			return true;
		break;
	case ADXL_CONN_DISCONNECTING:
	case ADXL_CONN_NOT_CONNECT:
		if (cur == ADXL_CONN_CONNECT_PENDING)
			return true;
		break;
	default:
		break;
	}
	if (status == ADXL_CONN_NOT_CONNECT) {
		if (s) {
			*sp = s->next;
			free(s->name);
			free(s);
		}
		return true;
	}
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (s)
			s->name = strdup(name);
		if (!s || !s->name) {
			free(s);
			return false;
		}
		*sp = s;
	}
	s->status = status;
	return true;
}

static void *worker_main(void *arg)
{
	struct adxl_engine *e = arg;
	enum adxl_connect_status done;
	struct adxl_ca_task *t;
	adxl_status_t st;

	pthread_mutex_lock(&e->ca_lock);
	for (;;) {
		while (!e->ca_stop && !e->ca_head)
			pthread_cond_wait(&e->ca_cond, &e->ca_lock);
		if (e->ca_stop)
			break;
		t = e->ca_head;
		e->ca_head = t->next;
		if (!e->ca_head)
			e->ca_tail = &e->ca_head;
		e->ca_queued--;
		/* Setting a state that exists already needs no memory. */
		set_status(e, t->name, t->connect ? ADXL_CONN_CONNECTING :
						    ADXL_CONN_DISCONNECTING);
		pthread_mutex_unlock(&e->ca_lock);

		if (t->connect) {
			st = adxl_connect(e, t->name, t->timeout_ms);
			done = st == ADXL_SUCCESS || st == ADXL_ALREADY_CONNECTED ?
				ADXL_CONN_CONNECTED : ADXL_CONN_CONNECT_FAILED;
		} else {
			adxl_disconnect(e, t->name, t->timeout_ms);
			done = ADXL_CONN_NOT_CONNECT;
		}

		pthread_mutex_lock(&e->ca_lock);
		set_status(e, t->name, done);
		free(t->name);
		free(t);
	}
	pthread_mutex_unlock(&e->ca_lock);
	return NULL;
}

static adxl_status_t submit(struct adxl_engine *e, const char *what,
			    const char *remote_engine, int32_t timeout_ms,
			    bool connect)
{
	struct adxl_ca_task *t;
	struct adxl_name addr;
	adxl_status_t st;
	int err;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, what);
	if (st)
		return st;
	if (!remote_engine || timeout_ms <= 0 ||
	    adxl__parse_name(remote_engine, &addr))
		return ADXL_PARAM_INVALID;
	t = calloc(1, sizeof(*t));
	if (t)
		t->name = strdup(remote_engine);
	if (!t || !t->name) {
		free(t);
		adxl__err("%s: out of memory", what);
		return ADXL_FAILED;
	}
	t->connect = connect;
	t->timeout_ms = timeout_ms;

	pthread_mutex_lock(&e->ca_lock);
	if (e->ca_queued >= ADXL_CONNECT_ASYNC_MAX_PENDING) {
		adxl__err("%s: %d operations queued already", what,
			  ADXL_CONNECT_ASYNC_MAX_PENDING);
		st = ADXL_RESOURCE_EXHAUSTED;
		goto err_unlock;
	}
	if (!e->ca_running) {
		e->ca_stop = false;
		err = pthread_create(&e->ca_worker, NULL, worker_main, e);
		if (err) {
			adxl__err("%s: cannot start the worker: %s", what,
				  strerror(err));
			st = ADXL_FAILED;
			goto err_unlock;
		}
		e->ca_running = true;
	}
	if (!set_status(e, remote_engine, connect ? ADXL_CONN_CONNECT_PENDING :
						    ADXL_CONN_DISCONNECT_PENDING)) {
		adxl__err("%s: out of memory", what);
		st = ADXL_FAILED;
		goto err_unlock;
	}
	*e->ca_tail = t;
	e->ca_tail = &t->next;
	e->ca_queued++;
	pthread_cond_signal(&e->ca_cond);
	pthread_mutex_unlock(&e->ca_lock);
	return ADXL_SUCCESS;

err_unlock:
	pthread_mutex_unlock(&e->ca_lock);
	free(t->name);
	free(t);
	return st;
}

adxl_status_t adxl_connect_async(adxl_engine_t *e, const char *remote_engine,
				 int32_t timeout_ms)
{
	return submit(e, "ConnectAsync", remote_engine, timeout_ms, true);
}

adxl_status_t adxl_disconnect_async(adxl_engine_t *e,
				    const char *remote_engine,
				    int32_t timeout_ms)
{
	return submit(e, "DisconnectAsync", remote_engine, timeout_ms, false);
}

adxl_status_t adxl_get_async_connect_status(adxl_engine_t *e,
					    const char *remote_engine,
					    enum adxl_connect_status *status)
{
	struct adxl_ca_state *s;
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	/* hixl: FAILED before Initialize and after Finalize (no states). */
	st = adxl__ready(e, "GetAsyncConnectStatus");
	if (st)
		return st;
	if (!remote_engine || !status)
		return ADXL_PARAM_INVALID;
	pthread_mutex_lock(&e->ca_lock);
	s = *state_find(e, remote_engine);
	*status = s ? s->status : ADXL_CONN_NOT_CONNECT;
	pthread_mutex_unlock(&e->ca_lock);
	return ADXL_SUCCESS;
}

adxl_status_t adxl_get_async_connect_statuses(adxl_engine_t *e,
					      adxl_connect_status_fn fn,
					      void *arg)
{
	struct adxl_ca_state *s, *copy = NULL, **tail = &copy;
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "GetAsyncConnectStatus");
	if (st)
		return st;
	if (!fn)
		return ADXL_PARAM_INVALID;
	/* A copy, so that @fn runs unlocked and may call the engine. */
	pthread_mutex_lock(&e->ca_lock);
	for (s = e->ca_states; s; s = s->next) {
		struct adxl_ca_state *c = calloc(1, sizeof(*c));

		if (c)
			c->name = strdup(s->name);
		if (!c || !c->name) {
			free(c);
			st = ADXL_FAILED;
			break;
		}
		c->status = s->status;
		*tail = c;
		tail = &c->next;
	}
	pthread_mutex_unlock(&e->ca_lock);

	while ((s = copy)) {
		copy = s->next;
		if (!st)
			fn(s->name, s->status, arg);
		free(s->name);
		free(s);
	}
	if (st)
		adxl__err("GetAsyncConnectStatus: out of memory");
	return st;
}

void adxl__conn_async_stop(struct adxl_engine *e)
{
	struct adxl_ca_task *t;
	struct adxl_ca_state *s;

	pthread_mutex_lock(&e->ca_lock);
	e->ca_stop = true;
	pthread_cond_signal(&e->ca_cond);
	pthread_mutex_unlock(&e->ca_lock);
	if (e->ca_running)
		pthread_join(e->ca_worker, NULL);
	e->ca_running = false;

	while ((t = e->ca_head)) {
		e->ca_head = t->next;
		free(t->name);
		free(t);
	}
	e->ca_tail = &e->ca_head;
	e->ca_queued = 0;
	while ((s = e->ca_states)) {
		e->ca_states = s->next;
		free(s->name);
		free(s);
	}
}
