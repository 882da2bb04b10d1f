// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Notifies: SendNotify on the sender's control connection, the receiving
 * engine's queue, GetNotifies.
 *
 * A notify goes in two steps, so that one whose SendNotify timed out is
 * never handed out: NOTIFY_HOLD, which the receiver keeps aside and
 * acks, and, once that ack came within the timeout, NOTIFY_COMMIT, which
 * queues it for GetNotifies and is acked in turn.  Without a timely ack
 * the sender commits nothing, and the receiver drops what it holds with
 * the link's next hold or the link.  Acks carry the notify's sequence
 * number: an ack that comes after its SendNotify gave up is recognised
 * and skipped by the next one.  At most ADXL_NOTIFY_MAX_PENDING
 * unconsumed notifies per link, as the reference; the next one is
 * refused with RESOURCE_EXHAUSTED until GetNotifies empties the queue.
 * The one-step NOTIFY of engines before is still served: queued at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

bool adxl__notify_queue(struct adxl_engine *e, struct adxl_link *l,
			const char *name, size_t name_len,
			const char *msg, size_t msg_len, uint32_t *status)
{
	struct adxl_notify *n;

	pthread_mutex_lock(&e->notify_lock);
	if (l->pending >= ADXL_NOTIFY_MAX_PENDING) {
		pthread_mutex_unlock(&e->notify_lock);
		*status = ADXL_RESOURCE_EXHAUSTED;
		return true;
	}
	n = calloc(1, sizeof(*n));
	if (n) {
		n->name = dup_n(name, name_len);
		n->msg = dup_n(msg, msg_len);
	}
	if (!n || !n->name || !n->msg) {
		pthread_mutex_unlock(&e->notify_lock);
		if (n) {
			free(n->name);
			free(n->msg);
			free(n);
		}
		return false;
	}
	n->link_id = l->id;
	n->name_len = name_len;
	n->msg_len = msg_len;
	*e->ntail = n;
	e->ntail = &n->next;
	l->pending++;
	pthread_mutex_unlock(&e->notify_lock);
	*status = ADXL_SUCCESS;
	return true;
}

static void notify_free(struct adxl_notify *n)
{
	if (n) {
		free(n->name);
		free(n->msg);
		free(n);
	}
}

bool adxl__notify_hold(struct adxl_engine *e, struct adxl_link *l,
		       uint32_t seq, const char *name, size_t name_len,
		       const char *msg, size_t msg_len, uint32_t *status)
{
	struct adxl_notify *n;
	bool full;

	/* The sender gave up on what it held before: it is never handed out. */
	adxl__notify_unhold(l);
	pthread_mutex_lock(&e->notify_lock);
	full = l->pending >= ADXL_NOTIFY_MAX_PENDING;
	pthread_mutex_unlock(&e->notify_lock);
	if (full) {
		*status = ADXL_RESOURCE_EXHAUSTED;
		return true;
	}
	n = calloc(1, sizeof(*n));
	if (n) {
		n->name = dup_n(name, name_len);
		n->msg = dup_n(msg, msg_len);
	}
	if (!n || !n->name || !n->msg) {
		notify_free(n);
		return false;
	}
	n->link_id = l->id;
	n->name_len = name_len;
	n->msg_len = msg_len;
	l->held = n;
	l->held_seq = seq;
	*status = ADXL_SUCCESS;
	return true;
}

uint32_t adxl__notify_commit(struct adxl_engine *e, struct adxl_link *l,
			     uint32_t seq)
{
	struct adxl_notify *n = l->held;

	if (!n || l->held_seq != seq)
		return ADXL_FAILED;
	l->held = NULL;
	/* Only this link adds to its count, and it held one: still room. */
	pthread_mutex_lock(&e->notify_lock);
	*e->ntail = n;
	e->ntail = &n->next;
	l->pending++;
	pthread_mutex_unlock(&e->notify_lock);
	return ADXL_SUCCESS;
}

void adxl__notify_unhold(struct adxl_link *l)
{
	notify_free(l->held);
	l->held = NULL;
}

/* Notifies of a closed link stay queued: they did arrive. */
void adxl__notify_link_gone(struct adxl_engine *e, uint64_t link_id)
{
	(void)e;
	(void)link_id;
}

static struct adxl_notify *take_all(struct adxl_engine *e)
{
	struct adxl_notify *head;
	size_t i;

	pthread_mutex_lock(&e->notify_lock);
	head = e->nhead;
	e->nhead = NULL;
	e->ntail = &e->nhead;
	for (i = 0; i < e->n_links; i++)
		e->links[i].pending = 0;
	pthread_mutex_unlock(&e->notify_lock);
	return head;
}

static void free_list(struct adxl_notify *n)
{
	while (n) {
		struct adxl_notify *next = n->next;

		notify_free(n);
		n = next;
	}
}

void adxl__notify_drop_all(struct adxl_engine *e)
{
	free_list(take_all(e));
}

adxl_status_t adxl_get_notifies(adxl_engine_t *e, adxl_notify_fn fn, void *arg)
{
	struct adxl_notify *head, *n;
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "GetNotifies");
	if (st)
		return st;
	if (!fn)
		return ADXL_PARAM_INVALID;
	head = take_all(e);
	for (n = head; n; n = n->next)
		fn(n->name, n->name_len, n->msg, n->msg_len, arg);
	free_list(head);
	return ADXL_SUCCESS;
}

/*
 * Wait for the ack of @seq, skipping late acks of earlier notifies and
 * late answers of queries (they share the sequence numbers).
 */
static int wait_ack(struct adxl_peer *p, uint32_t seq, int64_t deadline,
		    uint32_t *status)
{
	for (;;) {
		uint32_t type, got;
		uint8_t *msg;
		size_t len;
		int ret = adxl__recv_msg(p->fd, &type, &msg, &len, deadline);

		if (ret)
			return ret;
		/* The late answer of a query that timed out (query.c). */
		if (type == ADXL_MSG_QUERY_REPLY) {
			free(msg);
			continue;
		}
		ret = type == ADXL_MSG_NOTIFY_ACK ?
			adxl__ack_decode(msg, len, &got, status) : -EPROTO;
		free(msg);
		if (ret)
			return ret;
		if (got == seq)
			return 0;
	}
}

/*
 * What a request on the control connection (a notify, a query) came to,
 * @ret being its send-and-wait's result.  A connection that is gone, or a
 * stream out of step (a message cut by an earlier timeout, or a broken
 * peer: nothing read from it can be trusted any more), loses the peer:
 * Connect again.
 */
adxl_status_t adxl__control_result(struct adxl_peer *p, int ret,
				   const char *op, const char *remote_engine,
				   const char *reply, int32_t timeout_ms)
{
	/* says whether it exited or restarted: one WHO at its name */
	if (adxl__peer_dead(p) || ret == -ECONNRESET || ret == -EPIPE)
		return adxl__peer_gone(p, op, adxl__deadline(timeout_ms));
	if (ret == -EPROTO) {
		adxl__peer_lost(p);
		adxl__err("%s %s: the peer's control stream is out of step: not connected any more",
			  op, remote_engine);
		return ADXL_NOT_CONNECTED;
	}
	if (ret == -ETIMEDOUT) {
		adxl__err("%s %s: no %s within %d ms", op, remote_engine, reply,
			  timeout_ms);
		return ADXL_TIMEOUT;
	}
	if (ret) {
		adxl__err("%s %s: %s", op, remote_engine, strerror(-ret));
		return ADXL_FAILED;
	}
	return ADXL_SUCCESS;
}

/*
 * Under io_lock: the notify of @seq (its NOTIFY_HOLD payload @b) held by
 * the peer, then committed.  0 with *status the peer's answer, or -errno
 * of the connection (-ETIMEDOUT: no timely ack to the hold, so nothing
 * was committed and the peer never hands it out).  Once the commit is
 * written the notify is the peer's: its ack is awaited until @deadline,
 * and if it is late the notify still counts as sent (the peer hands it
 * out once it reads its connection).
 */
static int hold_and_commit(struct adxl_peer *p, const char *remote_engine,
			   uint32_t seq, const struct adxl_buf *b,
			   int64_t deadline, uint32_t *status)
{
	struct adxl_buf c = { 0 };
	int ret;

	ret = adxl__send_msg(p->fd, ADXL_MSG_NOTIFY_HOLD, b->data, b->len,
			     deadline);
	if (!ret && !adxl__peer_dead(p))
		ret = wait_ack(p, seq, deadline, status);
	if (ret || *status)
		return ret;
	ret = adxl__commit_encode(seq, &c);
	if (!ret)
		ret = adxl__send_msg(p->fd, ADXL_MSG_NOTIFY_COMMIT, c.data,
				     c.len, deadline);
	adxl__buf_free(&c);
	if (!ret)
		ret = wait_ack(p, seq, deadline, status);
	if (ret == -ETIMEDOUT) {
		adxl__warn("SendNotify %s: committed, the peer has not confirmed it yet: it hands the notify out once it reads its connection",
			   remote_engine);
		*status = ADXL_SUCCESS;
		ret = 0;
	}
	return ret;
}

adxl_status_t adxl_send_notify(adxl_engine_t *e, const char *remote_engine,
			       const char *name, size_t name_len,
			       const char *msg, size_t msg_len,
			       int32_t timeout_ms)
{
	int64_t deadline = adxl__deadline(timeout_ms);
	struct adxl_buf b = { 0 };
	struct adxl_peer *p;
	adxl_status_t st;
	uint32_t seq, status = ADXL_FAILED;
	int ret;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "SendNotify");
	if (st)
		return st;
	if (!remote_engine || timeout_ms <= 0 ||
	    (name_len && !name) || (msg_len && !msg) ||
	    name_len > ADXL_NOTIFY_MAX_LEN || msg_len > ADXL_NOTIFY_MAX_LEN)
		return ADXL_PARAM_INVALID;
	p = adxl__peer_for_op(e, remote_engine, timeout_ms, &st);
	if (!p)
		return st;

	pthread_mutex_lock(&p->io_lock);
	seq = ++p->notify_seq;
	ret = adxl__notify_encode(seq, name, name_len, msg, msg_len, &b);
	if (!ret && !adxl__peer_dead(p))
		ret = hold_and_commit(p, remote_engine, seq, &b, deadline,
				      &status);
	pthread_mutex_unlock(&p->io_lock);
	adxl__buf_free(&b);

	st = adxl__control_result(p, ret, "SendNotify", remote_engine, "ack",
				  timeout_ms);
	if (!st) {
		st = status;
		if (st == ADXL_RESOURCE_EXHAUSTED)
			adxl__err("SendNotify %s: the peer holds %d unconsumed notifies from us already",
				  remote_engine, ADXL_NOTIFY_MAX_PENDING);
		else if (st)
			adxl__err("SendNotify %s: the peer could not queue it",
				  remote_engine);
	}
	adxl__peer_put(e, p);
	return st;
}
