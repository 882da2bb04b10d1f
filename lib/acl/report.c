// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host callbacks: aclrtSubscribeReport, aclrtLaunchCallback,
 * aclrtProcessReport, aclrtUnSubscribeReport.
 *
 * As in CANN, a callback is a task of its stream, and it does not run on
 * the stream: when the worker reaches it, it is handed to the thread
 * subscribed to the stream, which runs it inside its next
 * aclrtProcessReport.  ACL_CALLBACK_BLOCK holds the stream until the
 * callback has returned, so work queued after it waits for it;
 * ACL_CALLBACK_NO_BLOCK lets the stream go on at once.
 *
 * Reports still queued when the stream is unsubscribed or destroyed are
 * dropped without running, and the stream is let go.
 */
#include <errno.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "errors.h"
#include "report.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"
#include "wait.h"

struct acl_report {
	struct acl_report *next;
	uint64_t tid;			/* the subscribed thread */
	const struct acl_stream *s;	/* only compared, never used */
	aclrtCallback fn;
	void *user;
	bool block;
	bool done;	/* block: ran or dropped; the worker frees it */
};

struct subscription {
	uint64_t tid;
	const struct acl_stream *s;
};

/* All under the wait lock. */
static struct acl_report *queue_head, *queue_tail;
static struct subscription *subs;
static size_t nr_subs, cap_subs;

static bool thread_subscribed(uint64_t tid)
{
	size_t i;

	for (i = 0; i < nr_subs; i++)
		if (subs[i].tid == tid)
			return true;
	return false;
}

/* Finish a report that leaves the queue: free it, or let its worker go. */
static void report_finish(struct acl_report *r)
{
	if (r->block)
		r->done = true;
	else
		free(r);
}

/* Take @s's reports out of the queue without running them; wait lock held. */
static void drop_reports(const struct acl_stream *s)
{
	struct acl_report **pp = &queue_head, *r;

	queue_tail = NULL;
	while ((r = *pp)) {
		if (r->s != s) {
			queue_tail = r;
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		report_finish(r);
	}
}

/* Forget @s's subscription, if any; wait lock held. */
static void unsubscribe(struct acl_stream *s)
{
	size_t i;

	for (i = 0; i < nr_subs; i++) {
		if (subs[i].s == s) {
			subs[i] = subs[--nr_subs];
			break;
		}
	}
	s->subscribed = false;
	drop_reports(s);
	pthread_cond_broadcast(&memreg__acl_wait_cv);
}

void memreg__acl_report_stream_gone(struct acl_stream *s)
{
	pthread_mutex_lock(&memreg__acl_wait_lock);
	unsubscribe(s);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	struct subscription *n;
	struct acl_stream *s;
	aclError ret;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return acl_ret(ret);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (s->subscribed) {
		ret = acl_fail(ACL_ERROR_REPEAT_SUBSCRIBE,
			       "stream %u is already subscribed (by thread %llu)",
			       s->id, (unsigned long long)s->report_tid);
	} else if (nr_subs == cap_subs &&
		   !(n = realloc(subs, (cap_subs * 2 + 8) * sizeof(*subs)))) {
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	} else {
		if (nr_subs == cap_subs) {
			subs = n;
			cap_subs = cap_subs * 2 + 8;
		}
		subs[nr_subs].tid = threadId;
		subs[nr_subs++].s = s;
		s->subscribed = true;
		s->report_tid = threadId;
	}
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	memreg__acl_stream_put(s);
	return acl_ret(ret);
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)
{
	struct acl_stream *s;
	aclError ret;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return acl_ret(ret);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (!s->subscribed)
		ret = acl_fail(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
			       "stream %u has no subscribed thread", s->id);
	else if (s->report_tid != threadId)
		ret = acl_fail(ACL_ERROR_STREAM_NOT_SUBSCRIBE,
			       "stream %u is subscribed by thread %llu, not %llu",
			       s->id, (unsigned long long)s->report_tid,
			       (unsigned long long)threadId);
	else
		unsubscribe(s);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	memreg__acl_stream_put(s);
	return acl_ret(ret);
}

/* The task of aclrtLaunchCallback. */
struct callback_task {
	struct acl_task task;
	aclrtCallback fn;
	void *user;
	bool blocking;		/* ACL_CALLBACK_BLOCK */
};
ACL_KIND_BEGINS_WITH_TASK(struct callback_task);

static struct callback_task *callback_task(const struct acl_task *t)
{
	return acl_task_data(t, struct callback_task);
}

/*
 * Hand the callback to the stream's subscribed thread, and, if it
 * blocks, hold the stream until it has run (or was dropped).
 */
static aclError callback_run(struct acl_stream *s, struct acl_task *t)
{
	struct callback_task *ct = callback_task(t);
	struct acl_report *r;
	aclError ret = ACL_SUCCESS;

	r = calloc(1, sizeof(*r));
	if (!r)
		return ACL_ERROR_BAD_ALLOC;
	r->fn = ct->fn;
	r->user = ct->user;
	r->block = ct->blocking;
	r->s = s;
	pthread_mutex_lock(&memreg__acl_wait_lock);
	/* Unsubscribed since it was queued: nobody to run it. */
	if (!s->subscribed) {
		pthread_mutex_unlock(&memreg__acl_wait_lock);
		free(r);
		return ACL_ERROR_RT_STREAM_NO_CB_REG;
	}
	r->tid = s->report_tid;
	if (queue_tail)
		queue_tail->next = r;
	else
		queue_head = r;
	queue_tail = r;
	pthread_cond_broadcast(&memreg__acl_wait_cv);
	if (r->block) {
		/* Dropping it (unsubscribe, forced destroy) also sets done. */
		while (!r->done)
			pthread_cond_wait(&memreg__acl_wait_cv, &memreg__acl_wait_lock);
		free(r);
	}
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	return ret;
}

static struct acl_task *callback_clone(const struct acl_task *t,
				       struct acl_stream *s)
{
	struct callback_task *c = malloc(sizeof(*c));

	(void)s;
	if (c)
		*c = *callback_task(t);
	return c ? &c->task : NULL;
}

static void callback_print(const struct acl_task_printer *p,
			   const struct acl_task *t)
{
	const struct callback_task *ct = callback_task(t);

	memreg__acl_print_addr(p, "fn", (uintptr_t)ct->fn);
	memreg__acl_print_ptr(p, "user_data", ct->user);
	memreg__acl_print_bool(p, "block", ct->blocking);
}

/* Dropped, or never queued: it holds nothing. */
static const struct acl_task_ops callback_ops = {
	.name = "HOST_CALLBACK",
	.run = callback_run,
	.clone = callback_clone,
	.print = callback_print,
};

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData,
			     aclrtCallbackBlockType blockType, aclrtStream stream)
{
	struct callback_task *ct;
	struct acl_stream *s;
	bool subscribed;
	aclError ret;

	if (!fn)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "fn is NULL"));
	if (blockType != ACL_CALLBACK_NO_BLOCK &&
	    blockType != ACL_CALLBACK_BLOCK)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"blockType %d: ACL_CALLBACK_NO_BLOCK or ACL_CALLBACK_BLOCK",
					(int)blockType));
	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return acl_ret(ret);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	subscribed = s->subscribed;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	/* No thread would ever run it. */
	ret = acl_fail(ACL_ERROR_RT_STREAM_NO_CB_REG,
		       "stream %u has no thread subscribed (aclrtSubscribeReport) to run callbacks",
		       s->id);
	if (!subscribed)
		goto out;
	ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	ct = calloc(1, sizeof(*ct));
	if (!ct)
		goto out;
	ct->task.ops = &callback_ops;
	ct->fn = fn;
	ct->user = userData;
	ct->blocking = blockType == ACL_CALLBACK_BLOCK;
	ret = memreg__acl_stream_enqueue(s, &ct->task);
	if (ret)
		memreg__acl_task_release(&ct->task);
out:
	memreg__acl_stream_put(s);
	return acl_ret(ret);
}

/* The first report for @tid, out of the queue; wait lock held. */
static struct acl_report *take_report(uint64_t tid)
{
	struct acl_report **pp, *r, *prev = NULL;

	for (pp = &queue_head; (r = *pp); prev = r, pp = &r->next) {
		if (r->tid != tid)
			continue;
		*pp = r->next;
		if (queue_tail == r)
			queue_tail = prev;
		return r;
	}
	return NULL;
}

aclError aclrtProcessReport(int32_t timeout)
{
	uint64_t self = (uint64_t)pthread_self();
	struct acl_report *r = NULL;
	struct timespec ts;
	aclError ret = ACL_SUCCESS;

	/* Milliseconds; -1 waits for ever. */
	if (timeout < -1)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"timeout %d ms: -1 waits for ever, below that means nothing",
					timeout));
	if (timeout > 0)
		memreg__acl_deadline(&ts, timeout);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	for (;;) {
		if (!thread_subscribed(self)) {
			ret = acl_fail(ACL_ERROR_THREAD_NOT_SUBSCRIBE,
				       "this thread (%llu) is subscribed to no stream",
				       (unsigned long long)self);
			break;
		}
		r = take_report(self);
		if (r)
			break;
		if (!timeout) {
			ret = acl_fail(ACL_ERROR_WAIT_CALLBACK_TIMEOUT,
				       "no callback waiting to run");
			break;
		}
		if (timeout < 0) {
			pthread_cond_wait(&memreg__acl_wait_cv, &memreg__acl_wait_lock);
		} else if (pthread_cond_timedwait(&memreg__acl_wait_cv,
						  &memreg__acl_wait_lock, &ts) == ETIMEDOUT) {
			r = take_report(self);
			if (!r)
				ret = acl_fail(ACL_ERROR_WAIT_CALLBACK_TIMEOUT,
					       "no callback came within %d ms",
					       timeout);
			break;
		}
	}
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	if (!r)
		return acl_ret(ret);
	/* The program's code, without any of the runtime's locks. */
	r->fn(r->user);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	report_finish(r);
	pthread_cond_broadcast(&memreg__acl_wait_cv);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	return acl_ret(ACL_SUCCESS);
}
