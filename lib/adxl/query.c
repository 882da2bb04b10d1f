// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Queries (query.h): the asking side on a peer's control connection, the
 * answering side on the listener thread, through the handler a face of
 * the engine installed.
 *
 * They share the peer's io_lock and sequence numbers with notifies, so a
 * query's answer is told from a notify's ack, and an answer that comes
 * after its query timed out is skipped by whoever waits next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

adxl_status_t adxl__set_query_handler(adxl_engine_t *e, adxl_query_fn fn,
				      void *arg)
{
	if (!e)
		return ADXL_PARAM_INVALID;
	/* The listener reads them without a lock: only before it runs. */
	if (e->initialised)
		return ADXL_FAILED;
	e->query_fn = fn;
	e->query_arg = arg;
	return ADXL_SUCCESS;
}

int adxl__query_answer(struct adxl_engine *e, struct adxl_link *l,
		       const uint8_t *p, size_t len)
{
	struct adxl_buf b = { 0 };
	const uint8_t *req;
	size_t req_len, ans_len = 0;
	void *ans = NULL;
	uint32_t seq, status = ADXL_UNSUPPORTED;
	int ret;

	if (adxl__query_decode(p, len, &seq, &req, &req_len))
		return -EPROTO;
	if (e->query_fn)
		status = e->query_fn(e->query_arg, req, req_len, &ans,
				     &ans_len);
	if (ans_len > ADXL_QUERY_MAX_ANSWER) {
		adxl__warn("%s: a query's answer of %zu bytes is too long",
			   e->name, ans_len);
		status = ADXL_FAILED;
		ans_len = 0;
	}
	ret = adxl__query_reply_encode(seq, status, ans, ans_len, &b);
	free(ans);
	if (!ret)
		ret = adxl__frame_msg(&l->out, ADXL_MSG_QUERY_REPLY, b.data,
				      b.len);
	adxl__buf_free(&b);
	return ret;
}

/* The answer to @seq, skipping late acks and answers of earlier ones. */
static int wait_answer(struct adxl_peer *p, uint32_t seq, int64_t deadline,
		       uint32_t *status, void **ans, size_t *ans_len)
{
	for (;;) {
		const uint8_t *a;
		uint32_t type, got;
		uint8_t *msg;
		size_t len, n;
		int ret = adxl__recv_msg(p->fd, &type, &msg, &len, deadline);

		if (ret)
			return ret;
		if (type == ADXL_MSG_NOTIFY_ACK) {
			free(msg);
			continue;
		}
		ret = type == ADXL_MSG_QUERY_REPLY ?
			adxl__query_reply_decode(msg, len, &got, status, &a,
						 &n) : -EPROTO;
		if (!ret && got == seq && n) {
			*ans = malloc(n);
			if (*ans) {
				memcpy(*ans, a, n);
				*ans_len = n;
			} else {
				ret = -ENOMEM;
			}
		}
		free(msg);
		if (ret || got == seq)
			return ret;
	}
}

adxl_status_t adxl__query(adxl_engine_t *e, const char *remote_engine,
			  const void *req, size_t req_len, uint32_t *status,
			  void **answer, size_t *answer_len, int32_t timeout_ms)
{
	int64_t deadline = adxl__deadline(timeout_ms);
	struct adxl_buf b = { 0 };
	struct adxl_peer *p;
	adxl_status_t st;
	uint32_t seq;
	int ret;

	if (!e || !remote_engine || !status || !answer || !answer_len ||
	    timeout_ms <= 0 || (req_len && !req) ||
	    req_len > ADXL_QUERY_MAX_REQ)
		return ADXL_PARAM_INVALID;
	*answer = NULL;
	*answer_len = 0;
	if (!e->initialised) {
		adxl__err("query: the engine is not initialised");
		return ADXL_FAILED;
	}
	p = adxl__peer_for_op(e, remote_engine, timeout_ms, &st);
	if (!p)
		return st;

	pthread_mutex_lock(&p->io_lock);
	seq = ++p->notify_seq;
	ret = adxl__query_encode(seq, req, req_len, &b);
	if (!ret && !adxl__peer_dead(p))
		ret = adxl__send_msg(p->fd, ADXL_MSG_QUERY, b.data, b.len,
				     deadline);
	if (!ret && !adxl__peer_dead(p))
		ret = wait_answer(p, seq, deadline, status, answer,
				  answer_len);
	pthread_mutex_unlock(&p->io_lock);
	adxl__buf_free(&b);

	st = adxl__control_result(p, ret, "query", remote_engine, "answer",
				  timeout_ms);
	if (st) {
		free(*answer);
		*answer = NULL;
		*answer_len = 0;
	}
	adxl__peer_put(e, p);
	return st;
}

size_t adxl__served_links(adxl_engine_t *e)
{
	size_t i, n = 0;

	if (!e)
		return 0;
	/* Links move under notify_lock (server.c); hello_done is theirs. */
	pthread_mutex_lock(&e->notify_lock);
	for (i = 0; i < e->n_links; i++)
		if (e->links[i].hello_done)
			n++;
	pthread_mutex_unlock(&e->notify_lock);
	return n;
}
