// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * TransferAsync and GetTransferStatus: one worker thread per engine,
 * started on first use, runs queued requests in order.
 *
 * A request is named by an id, not a pointer, so that a stale or foreign
 * TransferReq is told apart safely (PARAM_INVALID) instead of being
 * dereferenced.
 * It is released once COMPLETED or FAILED has been reported, as in the
 * reference.  At most ADXL_ASYNC_MAX_PENDING requests may be unreleased
 * (the HIXL limit): the next is RESOURCE_EXHAUSTED.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

struct adxl_req {
	struct adxl_req *next;		/* every unreleased request */
	uint64_t id;
	struct adxl_peer *peer;
	enum adxl_transfer_op op;
	struct adxl_transfer_desc *descs;
	size_t n;
	const void *user_data;		/* the caller's, handed back */
	bool done;
	bool report;			/* get_transfer_statuses: release */
	adxl_status_t result;
};

static struct adxl_req *next_queued(struct adxl_engine *e)
{
	struct adxl_req *r, *oldest = NULL;

	/* The list is newest first; run the oldest waiting request. */
	for (r = e->reqs; r; r = r->next)
		if (!r->done && r->peer)
			oldest = r;
	return oldest;
}

static void *worker_main(void *arg)
{
	struct adxl_engine *e = arg;
	struct adxl_req *r = NULL;
	struct adxl_peer *peer;

	pthread_mutex_lock(&e->async_lock);
	for (;;) {
		while (!e->worker_stop && !(r = next_queued(e)))
			pthread_cond_wait(&e->async_cond, &e->async_lock);
		if (e->worker_stop)
			break;
		pthread_mutex_unlock(&e->async_lock);

		r->result = adxl__transfer(e, r->peer, r->op, r->descs, r->n, -1);

		pthread_mutex_lock(&e->async_lock);
		peer = r->peer;
		r->peer = NULL;
		free(r->descs);
		r->descs = NULL;
		r->done = true;
		/* The engine lock nests outside async_lock: put it unlocked. */
		pthread_mutex_unlock(&e->async_lock);
		adxl__peer_put(e, peer);
		pthread_mutex_lock(&e->async_lock);
	}
	pthread_mutex_unlock(&e->async_lock);
	return NULL;
}

adxl_status_t adxl_transfer_async(adxl_engine_t *e, const char *remote_engine,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *descs,
				  size_t n_descs, adxl_transfer_req_t *req)
{
	return adxl_transfer_async_ex(e, remote_engine, op, descs, n_descs,
				      NULL, req);
}

adxl_status_t adxl_transfer_async_ex(adxl_engine_t *e,
				     const char *remote_engine,
				     enum adxl_transfer_op op,
				     const struct adxl_transfer_desc *descs,
				     size_t n_descs, const void *user_data,
				     adxl_transfer_req_t *req)
{
	struct adxl_peer *p;
	struct adxl_req *r;
	adxl_status_t st;
	int err;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "TransferAsync");
	if (st)
		return st;
	if (!remote_engine || !req)
		return ADXL_PARAM_INVALID;
	st = adxl__check_descs(op, descs, n_descs);
	if (st)
		return st;
	p = adxl__peer_for_op(e, remote_engine, 1000, &st);
	if (!p)
		return st;

	r = calloc(1, sizeof(*r));
	if (r && n_descs)
		r->descs = malloc(n_descs * sizeof(*descs));
	if (!r || (n_descs && !r->descs)) {
		free(r);
		adxl__peer_put(e, p);
		adxl__err("TransferAsync: out of memory");
		return ADXL_FAILED;
	}
	/* The caller's vector may be gone before the worker runs. */
	if (n_descs)
		memcpy(r->descs, descs, n_descs * sizeof(*descs));
	r->n = n_descs;
	r->op = op;
	r->peer = p;
	r->user_data = user_data;

	pthread_mutex_lock(&e->async_lock);
	if (e->n_reqs >= ADXL_ASYNC_MAX_PENDING) {
		pthread_mutex_unlock(&e->async_lock);
		adxl__err("TransferAsync: %d requests not yet reported done; query them with GetTransferStatus",
			  ADXL_ASYNC_MAX_PENDING);
		st = ADXL_RESOURCE_EXHAUSTED;
		goto err_free;
	}
	if (!e->worker_running) {
		e->worker_stop = false;
		err = pthread_create(&e->worker, NULL, worker_main, e);
		if (err) {
			pthread_mutex_unlock(&e->async_lock);
			adxl__err("TransferAsync: cannot start the worker: %s",
				  strerror(err));
			st = ADXL_FAILED;
			goto err_free;
		}
		e->worker_running = true;
	}
	/* Ids start at 1: a NULL TransferReq is never a request. */
	r->id = ++e->next_req_id;
	r->next = e->reqs;
	e->reqs = r;
	e->n_reqs++;
	pthread_cond_signal(&e->async_cond);
	pthread_mutex_unlock(&e->async_lock);
	*req = (adxl_transfer_req_t)(uintptr_t)r->id;
	return ADXL_SUCCESS;

err_free:
	adxl__peer_put(e, p);
	free(r->descs);
	free(r);
	return st;
}

adxl_status_t adxl_get_transfer_status(adxl_engine_t *e,
				       adxl_transfer_req_t req,
				       enum adxl_transfer_status *status)
{
	uint64_t id = (uintptr_t)req;
	struct adxl_req **rp, *r;
	adxl_status_t st;

	if (!e || !status)
		return ADXL_PARAM_INVALID;
	/*
	 * hixl's codes, each with the status FAILED: not initialised and
	 * a NULL request FAILED, a request it does not know (never made,
	 * or released once reported done) PARAM_INVALID.
	 */
	*status = ADXL_TRANSFER_FAILED;
	st = adxl__ready(e, "GetTransferStatus");
	if (st)
		return st;
	if (!req) {
		adxl__err("GetTransferStatus: NULL request");
		return ADXL_FAILED;
	}
	pthread_mutex_lock(&e->async_lock);
	for (rp = &e->reqs; *rp; rp = &(*rp)->next)
		if ((*rp)->id == id)
			break;
	r = *rp;
	if (!r) {
		pthread_mutex_unlock(&e->async_lock);
		adxl__err("GetTransferStatus: unknown request %p (already reported done?)",
			  req);
		return ADXL_PARAM_INVALID;
	}
	if (!r->done) {
		pthread_mutex_unlock(&e->async_lock);
		*status = ADXL_TRANSFER_WAITING;
		return ADXL_SUCCESS;
	}
	*rp = r->next;
	e->n_reqs--;
	pthread_mutex_unlock(&e->async_lock);

	st = r->result;
	*status = st ? ADXL_TRANSFER_FAILED : ADXL_TRANSFER_COMPLETED;
	free(r);
	return st;
}

static enum adxl_transfer_status req_status(const struct adxl_req *r)
{
	if (!r->done)
		return ADXL_TRANSFER_WAITING;
	return r->result ? ADXL_TRANSFER_FAILED : ADXL_TRANSFER_COMPLETED;
}

adxl_status_t adxl_get_transfer_statuses(adxl_engine_t *e, uint32_t max_count,
					 int skip_waiting,
					 adxl_transfer_result_fn fn, void *arg)
{
	struct adxl_transfer_result *res = NULL;
	struct adxl_req **all = NULL, **rp, *r;
	size_t i, n = 0, n_res = 0;
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "GetTransferStatus");
	if (st)
		return st;
	if (!fn)
		return ADXL_PARAM_INVALID;
	/*
	 * hixl answers the batch form only in its client/server engine; its
	 * default engine, the one this is, says UNSUPPORTED.
	 */
	if (!e->hixl_cs) {
		adxl__err("GetTransferStatus(args): UNSUPPORTED, as hixl without LocalCommRes version 1.3 or a protocol_desc with uboe:device or ub_rtp:device; ask each request with GetTransferStatus(req)");
		return ADXL_UNSUPPORTED;
	}
	if (!max_count)
		return ADXL_SUCCESS;
	pthread_mutex_lock(&e->async_lock);
	if (e->n_reqs) {
		all = malloc(e->n_reqs * sizeof(*all));
		res = malloc(e->n_reqs * sizeof(*res));
		if (!all || !res) {
			pthread_mutex_unlock(&e->async_lock);
			free(all);
			free(res);
			adxl__err("GetTransferStatus: out of memory");
			return ADXL_FAILED;
		}
	}
	/* The list is newest first: report from its end. */
	for (r = e->reqs; r; r = r->next)
		all[n++] = r;
	for (i = n; i-- > 0 && n_res < max_count;) {
		r = all[i];
		if (!r->done && skip_waiting)
			continue;
		res[n_res].req = (adxl_transfer_req_t)(uintptr_t)r->id;
		res[n_res].user_data = r->user_data;
		res[n_res].status = req_status(r);
		n_res++;
		r->report = r->done;
	}
	/* Release what was reported done. */
	for (rp = &e->reqs; *rp;) {
		r = *rp;
		if (r->report) {
			*rp = r->next;
			e->n_reqs--;
			free(r);
		} else {
			rp = &r->next;
		}
	}
	pthread_mutex_unlock(&e->async_lock);

	for (i = 0; i < n_res; i++)
		fn(&res[i], arg);
	free(all);
	free(res);
	return ADXL_SUCCESS;
}

void adxl__async_stop(struct adxl_engine *e)
{
	struct adxl_req *r;

	pthread_mutex_lock(&e->async_lock);
	e->worker_stop = true;
	pthread_cond_signal(&e->async_cond);
	pthread_mutex_unlock(&e->async_lock);
	if (e->worker_running)
		pthread_join(e->worker, NULL);
	e->worker_running = false;

	/* Requests never run or never queried: nobody will ask any more. */
	while ((r = e->reqs)) {
		e->reqs = r->next;
		if (r->peer)
			adxl__peer_put(e, r->peer);
		free(r->descs);
		free(r);
	}
	e->n_reqs = 0;
}
