// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Streams: each has a worker thread that runs the stream's tasks one after
 * the other in the order they were queued, while the thread that queued
 * them goes on; aclrtSynchronizeStream waits for what was queued before
 * it.  This is the asynchrony of a device queue, with the copies done by
 * the CPU.
 *
 * A stream's handle is its struct, found through the table of live
 * streams, so a destroyed or made-up handle is refused rather than used.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

/* Set in each worker: the stream whose work the thread runs. */
static __thread struct acl_stream *worker_stream;

aclrtStream memreg__acl_stream_handle(struct acl_stream *s)
{
	return s;
}

static void run_task(struct acl_task *t)
{
	if (t->src)
		memmove(t->dst, t->src, t->count);
	else
		memset(t->dst, t->value, t->count);
	memreg__acl_stage_put(t);
}

static void *worker_main(void *arg)
{
	struct acl_stream *s = arg;
	struct acl_task *t;

	worker_stream = s;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->stopping)
			pthread_cond_wait(&s->work_cv, &s->lock);
		/* Stopping drains the queue first: queued work is not lost. */
		t = s->head;
		if (!t)
			break;
		pthread_mutex_unlock(&s->lock);
		run_task(t);
		pthread_mutex_lock(&s->lock);
		s->head = t->next;
		if (!s->head)
			s->tail = NULL;
		s->done++;
		pthread_cond_broadcast(&s->done_cv);
		free(t);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct acl_stream *memreg__acl_stream_new(struct acl_context *ctx,
					  aclError *err)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_stream *s = calloc(1, sizeof(*s));

	*err = ACL_ERROR_BAD_ALLOC;
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->refs = 1;	/* the table's */
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work_cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	if (memreg__ptrmap_put(&rt->streams, s, s))
		goto err_free;
	if (pthread_create(&s->worker, NULL, worker_main, s)) {
		memreg__ptrmap_del(&rt->streams, s);
		*err = ACL_ERROR_RT_NO_STREAM_RESOURCE;
		goto err_free;
	}
	*err = ACL_SUCCESS;
	return s;

err_free:
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->work_cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

void memreg__acl_stream_put(struct acl_stream *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->work_cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static void stream_ref(struct acl_stream *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

struct acl_stream *memreg__acl_stream_get(aclrtStream stream, aclError *err)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;
	struct acl_stream *s;

	if (stream) {
		pthread_mutex_lock(&rt->lock);
		s = memreg__ptrmap_get(&rt->streams, stream);
		if (s)
			stream_ref(s);
		pthread_mutex_unlock(&rt->lock);
		*err = s ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
		return s;
	}

	/* The default stream of the current context, made when first used. */
	ctx = memreg__acl_lock_context();
	if (!ctx) {
		*err = ACL_ERROR_RT_CONTEXT_NULL;
		return NULL;
	}
	*err = ACL_SUCCESS;
	if (!ctx->default_stream)
		ctx->default_stream = memreg__acl_stream_new(ctx, err);
	s = ctx->default_stream;
	if (s)
		stream_ref(s);
	pthread_mutex_unlock(&rt->lock);
	return s;
}

struct acl_stream **memreg__acl_streams_ref(struct acl_context *ctx,
					    int32_t device, size_t *n)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_stream **all;
	size_t i, total, k = 0;

	*n = 0;
	total = memreg__ptrmap_values(&rt->streams, NULL, 0);
	if (!total)
		return NULL;
	all = calloc(total, sizeof(*all));
	if (!all)
		return NULL;
	memreg__ptrmap_values(&rt->streams, (void **)all, total);
	for (i = 0; i < total; i++) {
		if ((ctx && all[i]->ctx != ctx) ||
		    (device >= 0 && all[i]->ctx->device != device))
			continue;
		stream_ref(all[i]);
		all[k++] = all[i];
	}
	*n = k;
	return all;
}

void memreg__acl_stream_destroy(struct acl_stream *s)
{
	struct acl_runtime *rt = &memreg__acl_rt;

	/* Someone else destroyed it while rt.lock was dropped. */
	if (memreg__ptrmap_get(&rt->streams, s) != s)
		return;
	memreg__ptrmap_del(&rt->streams, s);
	if (s->ctx->default_stream == s)
		s->ctx->default_stream = NULL;
	/*
	 * A later stream may get the same address: it must not inherit this
	 * one's allocator.  (CANN keeps the entry; nothing can use it.)
	 */
	aclrtAllocatorUnregister(s);

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_signal(&s->work_cv);
	pthread_mutex_unlock(&s->lock);
	/*
	 * The worker may be in a user's allocator callback that calls into
	 * the runtime: do not hold rt.lock while it finishes.
	 */
	if (worker_stream == s) {
		/*
		 * Destroyed from its own worker (a callback): the thread
		 * still runs on the struct, so it keeps the table's
		 * reference, and the struct is never freed.
		 */
		pthread_detach(s->worker);
		return;
	}
	pthread_mutex_unlock(&rt->lock);
	pthread_join(s->worker, NULL);
	pthread_mutex_lock(&rt->lock);
	memreg__acl_stream_put(s);	/* the table's reference */
}

aclError memreg__acl_stream_enqueue(struct acl_stream *s, struct acl_task *t)
{
	pthread_mutex_lock(&s->lock);
	if (s->stopping) {
		pthread_mutex_unlock(&s->lock);
		return ACL_ERROR_INVALID_PARAM;
	}
	t->next = NULL;
	if (s->tail)
		s->tail->next = t;
	else
		s->head = t;
	s->tail = t;
	s->queued++;
	pthread_cond_signal(&s->work_cv);
	pthread_mutex_unlock(&s->lock);
	return ACL_SUCCESS;
}

aclError memreg__acl_stream_sync(struct acl_stream *s)
{
	aclError err;
	uint64_t upto;

	/* The worker waiting for itself would never return. */
	if (worker_stream == s)
		return ACL_ERROR_RT_STREAM_CONTEXT;
	pthread_mutex_lock(&s->lock);
	upto = s->queued;
	while (s->done < upto)
		pthread_cond_wait(&s->done_cv, &s->lock);
	err = s->error;
	s->error = ACL_SUCCESS;
	pthread_mutex_unlock(&s->lock);
	return err;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	aclError err;

	if (!stream)
		return ACL_ERROR_INVALID_PARAM;
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return ACL_ERROR_RT_CONTEXT_NULL;
	s = memreg__acl_stream_new(ctx, &err);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (s)
		*stream = s;
	return err;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_stream *s;

	/* The default stream goes with its context, never on its own. */
	if (!stream)
		return ACL_ERROR_INVALID_PARAM;
	pthread_mutex_lock(&rt->lock);
	s = memreg__ptrmap_get(&rt->streams, stream);
	if (!s || s->ctx->default_stream == s) {
		pthread_mutex_unlock(&rt->lock);
		return ACL_ERROR_INVALID_PARAM;
	}
	stream_ref(s);
	memreg__acl_stream_destroy(s);
	pthread_mutex_unlock(&rt->lock);
	memreg__acl_stream_put(s);
	return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err;

	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return err;
	err = memreg__acl_stream_sync(s);
	memreg__acl_stream_put(s);
	return err;
}
