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
 *
 * Besides copies, a stream runs event records and waits (event.c) and
 * host callbacks (report.c) as tasks, so that they are ordered with the
 * copies exactly as the program queued them.  A task that fails sets the
 * stream's error, which the next synchronisation returns, and calls the
 * program's exception callback (exception.c); the tasks after it still
 * run, as on a device, unless aclrtSetStreamFailureMode made the stream
 * stop on failure: then they are dropped until a synchronisation
 * returns the error.
 *
 * aclrtStreamAbort drops what was queued and has not started, lets the
 * task running finish (a wait in it gives up), and returns once the
 * queue is empty: the stream then takes new work, its error cleared.
 *
 * aclrtDestroyStreamForce and aclrtResetDeviceForce do not wait for the
 * queue: the task running finishes (a copy cannot be stopped halfway),
 * waits in tasks give up, and the tasks that have not started are
 * dropped, their resources given back.
 *
 * While a model is captured from a stream (model.c), what is queued on
 * it goes to the model instead: nothing of it will run on the stream, so
 * synchronising, querying or destroying the stream is refused with
 * CANN's ACL_ERROR_RT_STREAM_CAPTURED rather than answered.  A
 * persistent stream (ACL_STREAM_PERSISTENT) runs nothing itself either:
 * bound to a model being built (build.c), its tasks go to the model;
 * bound to none, it refuses them.  Its queue stays empty, so
 * synchronising it returns at once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "build.h"
#include "device.h"
#include "errors.h"
#include "exception.h"
#include "model.h"
#include "ptrmap.h"
#include "report.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "wait.h"

static uint32_t next_stream_id;

/* Set in each worker: the stream whose work the thread runs. */
static __thread struct acl_stream *worker_stream;

bool memreg__acl_stream_forced(struct acl_stream *s)
{
	return __atomic_load_n(&s->force, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&s->aborts, __ATOMIC_ACQUIRE);
}

bool memreg__acl_stream_capturing(struct acl_stream *s)
{
	bool ret;

	pthread_mutex_lock(&s->lock);
	ret = s->capture != NULL;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

bool memreg__acl_stream_keeps_tasks(struct acl_stream *s)
{
	/* The flags are set before anyone has the handle. */
	return (s->flags & ACL_STREAM_PERSISTENT) ||
	       memreg__acl_stream_capturing(s);
}

/* The refusal of a call that would wait for or look at a captured stream. */
static aclError refuse_captured(struct acl_stream *s, const char *what)
{
	return acl_fail(ACL_ERROR_RT_STREAM_CAPTURED,
			"stream %u is being captured into a model: %s it is not allowed until aclmdlRICaptureEnd",
			s->id, what);
}

aclrtStream memreg__acl_stream_handle(struct acl_stream *s)
{
	return s;
}

static void *worker_main(void *arg)
{
	struct acl_stream *s = arg;
	struct acl_task *t;
	aclError err;
	bool drop;

	worker_stream = s;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->stopping)
			pthread_cond_wait(&s->work_cv, &s->lock);
		/*
		 * Stopping drains the queue first: queued work is not lost,
		 * unless the stream is destroyed by force.
		 */
		t = s->head;
		if (!t)
			break;
		/*
		 * Dropped: by force, by aclrtStreamAbort, or behind a
		 * failure the stream stops on (until the sync that tells
		 * of it clears the error).
		 */
		drop = s->force || t->seq <= s->abort_upto ||
		       (s->error && s->failure_mode == ACL_STOP_ON_FAILURE);
		pthread_mutex_unlock(&s->lock);
		err = memreg__acl_task_run(s, t, drop);
		/* A model's run told the callback of each task that failed. */
		if (err && !drop && !t->ops->tells_exceptions)
			memreg__acl_exception(t, s->id, s->device, err);
		pthread_mutex_lock(&s->lock);
		s->head = t->next;
		if (!s->head)
			s->tail = NULL;
		s->done++;
		if (err && !s->error)
			s->error = err;
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
	pthread_condattr_t attr;

	memreg__acl_wait_init();
	/* The device's stream table is full, as a real one gets. */
	if (rt->devices[ctx->device].nr_streams >= ACL_EMU_MAX_STREAMS) {
		free(s);
		*err = acl_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE,
				"device %d already has %u streams, its most",
				ctx->device, ACL_EMU_MAX_STREAMS);
		return NULL;
	}
	*err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (!s)
		return NULL;
	s->ctx = ctx;
	s->refs = 1;	/* the table's */
	s->id = __atomic_fetch_add(&next_stream_id, 1, __ATOMIC_RELAXED);
	s->device = ctx->device;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->work_cv, NULL);
	/* Timed waits on it use memreg__acl_deadline(): CLOCK_MONOTONIC. */
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->done_cv, &attr);
	pthread_condattr_destroy(&attr);
	if (memreg__ptrmap_put(&rt->streams, s, s))
		goto err_free;
	if (pthread_create(&s->worker, NULL, worker_main, s)) {
		memreg__ptrmap_del(&rt->streams, s);
		*err = acl_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE,
				"no thread for the stream's worker");
		goto err_free;
	}
	rt->devices[ctx->device].nr_streams++;
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
		*err = s ? ACL_SUCCESS :
			acl_fail(ACL_ERROR_INVALID_PARAM,
				 "stream %p is unknown or already destroyed",
				 stream);
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

void memreg__acl_stream_destroy(struct acl_stream *s, bool force)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_model *capture;

	/* Someone else destroyed it while rt.lock was dropped. */
	if (memreg__ptrmap_get(&rt->streams, s) != s)
		return;
	memreg__ptrmap_del(&rt->streams, s);
	/*
	 * The program's own destroy of a capturing stream is refused; this
	 * is the runtime's (context, device, aclFinalize): the capture ends
	 * with the stream, and the model it was building goes.
	 */
	pthread_mutex_lock(&s->lock);
	capture = s->capture;
	s->capture = NULL;
	pthread_mutex_unlock(&s->lock);
	if (capture)
		memreg__acl_model_abandon(capture);
	/* A bound stream leaves its model; what it gave the model stays. */
	memreg__acl_stream_unbind(s);
	rt->devices[s->device].nr_streams--;
	if (s->ctx->default_stream == s)
		s->ctx->default_stream = NULL;
	/*
	 * A later stream may get the same address: it must not inherit this
	 * one's allocator.  (CANN keeps the entry; nothing can use it.)
	 */
	aclrtAllocatorUnregister(s);

	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	if (force)
		__atomic_store_n(&s->force, true, __ATOMIC_RELEASE);
	pthread_cond_signal(&s->work_cv);
	pthread_mutex_unlock(&s->lock);
	/*
	 * By force, its pending host callbacks go now, and a task waiting
	 * in it gives up.  Otherwise the queue, callbacks included, runs
	 * first: the subscription goes after the worker.
	 */
	if (force || worker_stream == s)
		memreg__acl_report_stream_gone(s);
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
	memreg__acl_report_stream_gone(s);
	pthread_mutex_lock(&rt->lock);
	memreg__acl_stream_put(s);	/* the table's reference */
}

aclError memreg__acl_stream_enqueue(struct acl_stream *s, struct acl_task *t)
{
	aclError err;

	pthread_mutex_lock(&s->lock);
	if (s->stopping) {
		pthread_mutex_unlock(&s->lock);
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"stream %u is being destroyed", s->id);
	}
	if (s->capture) {
		t->tid = (uint32_t)gettid();
		memreg__acl_model_add(s->capture, t);
		pthread_mutex_unlock(&s->lock);
		return ACL_SUCCESS;
	}
	if (s->flags & ACL_STREAM_PERSISTENT) {
		t->tid = (uint32_t)gettid();
		err = memreg__acl_binding_keep(s, t);
		pthread_mutex_unlock(&s->lock);
		return err;
	}
	/*
	 * Here, under the stream's lock, so that the numbers follow the
	 * order of the queue, and a task that never reaches a queue (a
	 * captured one, a stopping stream) takes none.
	 */
	memreg__acl_task_queued(t);
	t->next = NULL;
	t->seq = s->queued + 1;
	t->tid = (uint32_t)gettid();
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
	return memreg__acl_stream_sync_timeout(s, -1);
}

aclError memreg__acl_stream_sync_timeout(struct acl_stream *s, int32_t timeout)
{
	struct timespec ts;
	aclError err;
	uint64_t upto;

	/* The worker waiting for itself would never return. */
	if (worker_stream == s)
		return acl_fail(ACL_ERROR_RT_STREAM_CONTEXT,
				"a callback of stream %u cannot wait for its own stream",
				s->id);
	if (memreg__acl_stream_capturing(s))
		return refuse_captured(s, "synchronising");
	if (timeout > 0)
		memreg__acl_deadline(&ts, timeout);
	pthread_mutex_lock(&s->lock);
	upto = s->queued;
	while (s->done < upto && timeout) {
		if (timeout < 0)
			pthread_cond_wait(&s->done_cv, &s->lock);
		else if (pthread_cond_timedwait(&s->done_cv, &s->lock, &ts) ==
			 ETIMEDOUT)
			break;
	}
	if (s->done < upto) {
		/* Its error stays for the synchronisation that succeeds. */
		pthread_mutex_unlock(&s->lock);
		return acl_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
				"stream %u has not finished within %d ms",
				s->id, timeout);
	}
	err = s->error;
	/* The task failed in the worker: here is where the caller learns. */
	if (err == ACL_ERROR_RT_SYS_DMA)
		acl_fail(err,
			 "a task on stream %u found its device memory freed (aclrtFree before the stream was synchronised)",
			 s->id);
	else if (err)
		acl_fail(err,
			 "a task queued on stream %u failed since the last synchronisation",
			 s->id);
	s->error = ACL_SUCCESS;
	pthread_mutex_unlock(&s->lock);
	return err;
}

/* A stream of the current context, made with @priority and @flags. */
static aclError create_stream(aclrtStream *stream, uint32_t priority,
			      uint32_t flags)
{
	struct acl_context *ctx;
	struct acl_stream *s;
	aclError err;

	if (!stream)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL");
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return ACL_ERROR_RT_CONTEXT_NULL;
	s = memreg__acl_stream_new(ctx, &err);
	if (s) {
		/* Set before anyone has the handle: read without a lock. */
		s->priority = priority;
		s->flags = flags;
		*stream = s;
	}
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return err;
}

aclError aclrtCreateStream(aclrtStream *stream)
{
	return acl_ret(create_stream(stream, ACL_EMU_DEFAULT_PRIORITY, 0));
}

/*
 * CANN's flags, checked.  Every stream here is a worker thread that
 * starts its tasks at once: the flags that make a device stream faster
 * (FAST_LAUNCH, FAST_SYNC), larger (HUGE) or meant for the AI CPU's
 * scheduler (CPU_SCHEDULE) or the device alone (DEVICE_USE_ONLY) change
 * nothing but what aclrtStreamGetFlags reads back.  A PERSISTENT
 * stream runs nothing itself: it keeps its tasks for the model
 * aclmdlRIBindStream binds it to (build.c).  Unknown bits are dropped,
 * as CANN's runtime drops them.
 */
static aclError stream_flags(uint64_t flag, uint32_t *out)
{
	uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC |
			 ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
			 ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;

	*out = (uint32_t)(flag & known);
	/* CANN's runtime: the device-only flag cannot be combined. */
	if ((*out & ACL_STREAM_DEVICE_USE_ONLY) &&
	    *out != ACL_STREAM_DEVICE_USE_ONLY)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flag %#x: ACL_STREAM_DEVICE_USE_ONLY goes alone",
				*out);
	return ACL_SUCCESS;
}

/*
 * The priority is recorded, not used: streams are threads the kernel
 * schedules alike.  CANN does not check its range here either.
 */
aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority,
				     uint32_t flag)
{
	uint32_t flags;
	aclError err;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream is NULL"));
	err = stream_flags(flag, &flags);
	if (err)
		return acl_ret(err);
	return acl_ret(create_stream(stream, priority, flags));
}

/*
 * A config handle is CANN's public struct, zeroed: priority 0, no
 * flags, no work memory.
 */
aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
	return calloc(1, sizeof(aclrtStreamConfigHandle));
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
	if (!handle)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL"));
	free(handle);
	return acl_ret(ACL_SUCCESS);
}

/*
 * Each attribute's value has exactly its C type's size, as CANN checks
 * (with one exception, below).
 */
aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle,
				 aclrtStreamConfigAttr attr,
				 const void *attrValue, size_t valueSize)
{
	static const size_t sizes[] = {
		[ACL_RT_STREAM_WORK_ADDR_PTR] = sizeof(void *),
		[ACL_RT_STREAM_WORK_SIZE] = sizeof(size_t),
		[ACL_RT_STREAM_FLAG] = sizeof(size_t),
		[ACL_RT_STREAM_PRIORITY] = sizeof(uint32_t),
	};
	uint32_t prio, flag32;

	if (!handle || !attrValue)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					handle ? "attrValue" : "handle"));
	if ((unsigned int)attr > ACL_RT_STREAM_PRIORITY)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"attr %d is no aclrtStreamConfigAttr",
					(int)attr));
	/*
	 * CANN's implementation takes the flag as a size_t only, but its
	 * own sample (3_stream_config_query) passes a uint32_t: both go.
	 */
	if (attr == ACL_RT_STREAM_FLAG && valueSize == sizeof(flag32)) {
		memcpy(&flag32, attrValue, sizeof(flag32));
		handle->flag = flag32;
		return acl_ret(ACL_SUCCESS);
	}
	if (valueSize != sizes[attr])
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"valueSize %zu, attr %d takes %zu",
					valueSize, (int)attr, sizes[attr]));
	switch (attr) {
	case ACL_RT_STREAM_WORK_ADDR_PTR:
		memcpy(&handle->workptr, attrValue, sizeof(void *));
		break;
	case ACL_RT_STREAM_WORK_SIZE:
		memcpy(&handle->workSize, attrValue, sizeof(size_t));
		break;
	case ACL_RT_STREAM_FLAG:
		memcpy(&handle->flag, attrValue, sizeof(size_t));
		break;
	case ACL_RT_STREAM_PRIORITY:
		memcpy(&prio, attrValue, sizeof(prio));
		if (prio > ACL_EMU_LEAST_PRIORITY)
			return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
						"priority %u: 0 to %d", prio,
						ACL_EMU_LEAST_PRIORITY));
		handle->priority = prio;
		break;
	}
	return acl_ret(ACL_SUCCESS);
}

/*
 * NULL: as aclrtCreateStream.  The work memory a handle may name is for
 * a model's tasks; a stream here needs none, so it is not used.
 */
aclError aclrtCreateStreamV2(aclrtStream *stream,
			     const aclrtStreamConfigHandle *handle)
{
	uint32_t flags = 0;
	aclError err;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL"));
	if (!handle)
		return acl_ret(create_stream(stream, ACL_EMU_DEFAULT_PRIORITY,
					     0));
	/* The struct is public: its priority may not have been checked. */
	if (handle->priority > ACL_EMU_LEAST_PRIORITY)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"priority %u: 0 to %d",
					handle->priority,
					ACL_EMU_LEAST_PRIORITY));
	err = stream_flags(handle->flag, &flags);
	if (err)
		return acl_ret(err);
	return acl_ret(create_stream(stream, handle->priority, flags));
}

/* What a stream (NULL: the default one) was made with. */
static aclError stream_read(aclrtStream stream, int what, uint32_t *out)
{
	struct acl_stream *s;
	aclError err;

	if (!out)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "output is NULL");
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return err;
	*out = what == 0 ? s->priority : what == 1 ? s->flags : s->id;
	memreg__acl_stream_put(s);
	return ACL_SUCCESS;
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
	return acl_ret(stream_read(stream, 0, priority));
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
	return acl_ret(stream_read(stream, 1, flags));
}

/* The id exception info reports for its tasks. */
aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
	return acl_ret(stream_read(stream, 2, (uint32_t *)streamId));
}

aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
	struct acl_context *ctx;

	if (!streamCount)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "streamCount is NULL"));
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	*streamCount = ACL_EMU_MAX_STREAMS -
		       memreg__acl_rt.devices[ctx->device].nr_streams;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return acl_ret(ACL_SUCCESS);
}

/* CANN's range, either pointer may be NULL; no device needed. */
aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority,
					   int32_t *greatestPriority)
{
	if (leastPriority)
		*leastPriority = ACL_EMU_LEAST_PRIORITY;
	if (greatestPriority)
		*greatestPriority = ACL_EMU_GREATEST_PRIORITY;
	return acl_ret(ACL_SUCCESS);
}

static aclError destroy_stream(aclrtStream stream, bool force)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_stream *s;

	/* The default stream goes with its context, never on its own. */
	if (!stream)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"stream is NULL: the default stream goes with its context");
	pthread_mutex_lock(&rt->lock);
	s = memreg__ptrmap_get(&rt->streams, stream);
	if (!s || s->ctx->default_stream == s) {
		pthread_mutex_unlock(&rt->lock);
		return acl_fail(ACL_ERROR_INVALID_PARAM, s ?
				"stream %p is a default stream: it goes with its context" :
				"stream %p is unknown or already destroyed",
				stream);
	}
	/* CANN refuses it, forced or not: the capture must end first. */
	if (memreg__acl_stream_capturing(s)) {
		pthread_mutex_unlock(&rt->lock);
		return refuse_captured(s, "destroying");
	}
	stream_ref(s);
	memreg__acl_stream_destroy(s, force);
	pthread_mutex_unlock(&rt->lock);
	memreg__acl_stream_put(s);
	return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream)
{
	return acl_ret(destroy_stream(stream, false));
}

aclError aclrtDestroyStreamForce(aclrtStream stream)
{
	return acl_ret(destroy_stream(stream, true));
}

aclError aclrtSynchronizeStream(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err;

	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	err = memreg__acl_stream_sync(s);
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
	struct acl_stream *s;
	aclError err;

	/* -1 waits for ever, 0 only looks; nothing else below 0 means anything. */
	if (timeout < -1)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"timeout %d ms: -1 waits for ever, below that means nothing",
					timeout));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	err = memreg__acl_stream_sync_timeout(s, timeout);
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
	struct acl_stream *s;
	aclError err;

	if (!status)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"status is NULL"));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	pthread_mutex_lock(&s->lock);
	if (s->capture)
		err = refuse_captured(s, "querying");
	else
		*status = s->done == s->queued ? ACL_STREAM_STATUS_COMPLETE :
						 ACL_STREAM_STATUS_NOT_READY;
	pthread_mutex_unlock(&s->lock);
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

/* The handle of the current context's default stream (made if need be). */
aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
	struct acl_stream *s;
	aclError err;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL"));
	s = memreg__acl_stream_get(NULL, &err);
	if (!s)
		return acl_ret(err);
	*stream = memreg__acl_stream_handle(s);
	memreg__acl_stream_put(s);
	return acl_ret(ACL_SUCCESS);
}

/*
 * Overflow detection per stream: 1 on, 0 off.  Only recorded (no
 * operator runs here to overflow); aclrtGetStreamOverflowSwitch reads it.
 */
aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
	struct acl_stream *s;
	aclError err;

	if (flag > 1)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u: 0 (off) or 1 (on)", flag));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	__atomic_store_n(&s->overflow_switch, flag, __ATOMIC_RELAXED);
	memreg__acl_stream_put(s);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
	struct acl_stream *s;
	aclError err;

	if (!flag)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "flag is NULL"));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	*flag = __atomic_load_n(&s->overflow_switch, __ATOMIC_RELAXED);
	memreg__acl_stream_put(s);
	return acl_ret(ACL_SUCCESS);
}

/*
 * CANN's header: the stream cannot be NULL (the default stream is not
 * aborted).  Refused from the stream's own callback, which would wait
 * for itself, and while captured: nothing of it is queued to drop.
 */
aclError aclrtStreamAbort(aclrtStream stream)
{
	struct acl_stream *s;
	aclError err;
	uint64_t upto;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream is NULL: the default stream cannot be aborted"));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	if (worker_stream == s) {
		err = acl_fail(ACL_ERROR_RT_STREAM_CONTEXT,
			       "a callback of stream %u cannot abort its own stream",
			       s->id);
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	if (s->capture) {
		pthread_mutex_unlock(&s->lock);
		err = refuse_captured(s, "aborting");
		goto out;
	}
	upto = s->queued;
	if (upto > s->abort_upto)
		s->abort_upto = upto;
	__atomic_add_fetch(&s->aborts, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	/* A wait in the task running looks at aborts when woken. */
	pthread_mutex_lock(&memreg__acl_wait_lock);
	pthread_cond_broadcast(&memreg__acl_wait_cv);
	pthread_mutex_unlock(&memreg__acl_wait_lock);

	pthread_mutex_lock(&s->lock);
	while (s->done < upto)
		pthread_cond_wait(&s->done_cv, &s->lock);
	/* What failed or gave up is aborted work, not the stream's error. */
	s->error = ACL_SUCCESS;
	__atomic_sub_fetch(&s->aborts, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->lock);
	err = ACL_SUCCESS;
out:
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

/*
 * Read by the worker as it takes each task: a mode set while tasks are
 * queued applies from the next task taken.  NULL is the default stream,
 * as for the other stream calls.
 */
aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
	struct acl_stream *s;
	aclError err;

	if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"mode %llu: ACL_CONTINUE_ON_FAILURE (0) or ACL_STOP_ON_FAILURE (1)",
					(unsigned long long)mode));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	pthread_mutex_lock(&s->lock);
	s->failure_mode = mode;
	pthread_mutex_unlock(&s->lock);
	memreg__acl_stream_put(s);
	return acl_ret(ACL_SUCCESS);
}
