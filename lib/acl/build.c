// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Models built from persistent streams (CANN's aclmdlRIBuildBegin,
 * aclmdlRIBindStream, aclmdlRIEndTask, aclmdlRIBuildEnd,
 * aclmdlRIUnbindStream), and the run of a built model.
 *
 * A stream made with ACL_STREAM_PERSISTENT runs nothing itself.  Bound to
 * a model being built, what is queued on it is kept in the model, in
 * order, as a captured stream's tasks are (memreg__acl_binding_keep);
 * bound to none, it refuses what is queued (CANN's persistent streams
 * are for models only: a task there would never run).  aclmdlRIEndTask
 * adds the model's end to one of its streams; aclmdlRIBuildEnd fixes the
 * model: its streams take no more tasks, and each label switch learns
 * where the labels of its list were set (label.c).
 *
 * A run of a built model is one task on the stream it runs on
 * (model_run_ops), not a copy of each kept task queued at once as
 * for a captured model: where a label switch goes is decided by device
 * memory when the run gets there.  The worker of that stream runs the
 * model's tasks itself, in order, from the start of its head stream: a
 * fresh copy of each kept task runs as the stream's own task would (a
 * record or wait takes its record number then), a label is a position
 * and does nothing, a switch moves to the stream and position of the
 * label it picks (the stream it was on stops, as CANN documents), the
 * end finishes the run.  A backward switch is a loop; one that never
 * ends holds the stream as it would hold a device's, until the stream is
 * destroyed by force (or its context or device reset by force).
 *
 * One head stream per model: the run is one thread of control, so the
 * streams a model starts with cannot run side by side as a device's do.
 * Streams bound with ACL_MODEL_STREAM_FLAG_DEFAULT run when a switch
 * moves there.
 *
 * Locking: a model's build_lock guards its bindings while it is built;
 * it nests inside rt.lock and exec_lock, outside the streams' locks.  A
 * binding's task list grows under its stream's lock (the stream queues
 * to it), is sealed under that lock by aclmdlRIBuildEnd and read without
 * a lock afterwards.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "build.h"
#include "device.h"
#include "errors.h"
#include "exception.h"
#include "model_internal.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"

/* A reference to the built model @handle; *err set (recorded) if not. */
static struct acl_model *built_get(aclmdlRI handle, aclError *err)
{
	struct acl_model *m = memreg__acl_model_get(handle, false, err);

	if (m && !m->built) {
		/* CANN's runtime: "ACL Graph mode is not supported". */
		*err = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"modelRI %u was captured, not built with aclmdlRIBuildBegin",
				m->id);
		memreg__acl_model_put(m);
		return NULL;
	}
	return m;
}

aclError memreg__acl_binding_append(struct acl_binding *b, struct acl_task *t)
{
	struct acl_task **v;
	size_t cap;

	if (b->n == b->cap) {
		cap = b->cap ? b->cap * 2 : 16;
		v = realloc(b->tasks, cap * sizeof(*v));
		if (!v)
			return acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of memory keeping task %zu of stream %u",
					b->n, b->stream_id);
		b->tasks = v;
		b->cap = cap;
	}
	t->next = NULL;
	b->tasks[b->n++] = t;
	return ACL_SUCCESS;
}

aclError memreg__acl_binding_keep(struct acl_stream *s, struct acl_task *t)
{
	struct acl_binding *b = s->bound;

	if (!b)
		return acl_fail(ACL_ERROR_RT_STREAM_MODEL,
				"stream %u is persistent and bound to no model: it runs nothing itself (aclmdlRIBindStream first)",
				s->id);
	/* CANN's documentation: no tasks after aclmdlRIBuildEnd. */
	if (b->sealed)
		return acl_fail(ACL_ERROR_RT_STREAM_MODEL,
				"stream %u is bound to modelRI %u, whose build ended: it takes no more tasks",
				s->id, b->model->id);
	return memreg__acl_binding_append(b, t);
}

/*
 * Take @b's stream out of its model; the model's build_lock held.  The
 * labels set on it are free again (CANN's runtime recycles them with the
 * stream's tasks).  Before the build ended, the stream takes its tasks
 * with it: the model never had them.  After, the model keeps what it
 * was built with and runs it still.
 */
static void unbind(struct acl_binding *b)
{
	struct acl_model *m = b->model;
	struct acl_stream *s = b->s;
	size_t k;

	pthread_mutex_lock(&s->lock);
	if (s->bound == b)
		s->bound = NULL;
	pthread_mutex_unlock(&s->lock);
	b->s = NULL;
	for (k = 0; k < b->n; k++)
		if (b->tasks[k]->ops->unbound)
			b->tasks[k]->ops->unbound(b->tasks[k], b);
	if (!m->build_done) {
		for (k = 0; k < b->n; k++)
			memreg__acl_task_release(b->tasks[k]);
		b->n = 0;
		if (m->head_binding == (int32_t)b->index)
			m->head_binding = -1;
		if (m->end_binding == (int32_t)b->index)
			m->end_binding = -1;
	}
	memreg__acl_stream_put(s);
}

void memreg__acl_model_unbind_all(struct acl_model *m)
{
	uint32_t i;

	pthread_mutex_lock(&m->build_lock);
	for (i = 0; i < m->nr_bindings; i++)
		if (m->bindings[i]->s)
			unbind(m->bindings[i]);
	pthread_mutex_unlock(&m->build_lock);
}

void memreg__acl_stream_unbind(struct acl_stream *s)
{
	struct acl_binding *b;
	struct acl_model *m = NULL;

	/* The model outlives the stream's binding (model_internal.h). */
	pthread_mutex_lock(&s->lock);
	b = s->bound;
	if (b) {
		m = b->model;
		__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&s->lock);
	if (!m)
		return;
	pthread_mutex_lock(&m->build_lock);
	if (b->s == s)
		unbind(b);
	pthread_mutex_unlock(&m->build_lock);
	memreg__acl_model_put(m);
}

aclError aclmdlRIBuildBegin(aclmdlRI *modelRI, uint32_t flag)
{
	struct acl_model *m;

	if (!modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL"));
	if (flag)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"flag %u: reserved, 0", flag));
	/* CANN makes the model in the current context. */
	if (!memreg__acl_lock_context())
		return acl_ret(acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
					"no current context (aclrtSetDevice first)"));
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	m = memreg__acl_model_new();
	if (!m)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	m->built = true;
	if (memreg__acl_model_publish(m)) {
		memreg__acl_model_put(m);
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	}
	*modelRI = m;
	return acl_ret(ACL_SUCCESS);
}

/* Room for one more binding in @m; build_lock held.  0 or -1. */
static int bindings_grow(struct acl_model *m)
{
	struct acl_binding **v;

	v = realloc(m->bindings, (m->nr_bindings + 1) * sizeof(*v));
	if (!v)
		return -1;
	m->bindings = v;
	return 0;
}

/*
 * CANN's checks, in its order where it has them: the flag, the stream
 * persistent and not FAST_LAUNCH, not being captured, not bound already.
 * A NULL stream is the default stream, which is not persistent.
 */
aclError aclmdlRIBindStream(aclmdlRI modelRI, aclrtStream stream, uint32_t flag)
{
	struct acl_binding *b = NULL;
	struct acl_stream *s = NULL;
	struct acl_model *m;
	aclError err;

	if (!modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL"));
	if (flag != ACL_MODEL_STREAM_FLAG_HEAD &&
	    flag != ACL_MODEL_STREAM_FLAG_DEFAULT)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"flag %#x: ACL_MODEL_STREAM_FLAG_HEAD or _DEFAULT",
					flag));
	m = built_get(modelRI, &err);
	if (!m)
		return acl_ret(err);
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		goto out;
	if (!(s->flags & ACL_STREAM_PERSISTENT)) {
		err = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
			       "stream %u is not persistent (ACL_STREAM_PERSISTENT): it cannot be bound to a model",
			       s->id);
		goto out;
	}
	if (s->flags & ACL_STREAM_FAST_LAUNCH) {
		err = acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			       "stream %u has ACL_STREAM_FAST_LAUNCH: it cannot be bound to a model",
			       s->id);
		goto out;
	}
	err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	b = calloc(1, sizeof(*b));
	if (!b)
		goto out;

	pthread_mutex_lock(&m->build_lock);
	if (m->build_done) {
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "modelRI %u is built already (aclmdlRIBuildEnd): no stream is bound to it now",
			       m->id);
		goto unlock;
	}
	if (flag == ACL_MODEL_STREAM_FLAG_HEAD && m->head_binding >= 0) {
		err = acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			       "modelRI %u has a head stream already (stream %u): memreg runs one per model",
			       m->id, m->bindings[m->head_binding]->stream_id);
		goto unlock;
	}
	if (bindings_grow(m))
		goto unlock;
	pthread_mutex_lock(&s->lock);
	if (s->capture)
		err = acl_fail(ACL_ERROR_RT_STREAM_CAPTURED,
			       "stream %u is being captured: it cannot be bound to a model",
			       s->id);
	else if (s->bound)
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "stream %u is bound to modelRI %u already",
			       s->id, s->bound->model->id);
	else if (s->stopping)
		err = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "stream %u is being destroyed", s->id);
	else
		err = ACL_SUCCESS;
	if (!err)
		s->bound = b;
	pthread_mutex_unlock(&s->lock);
	if (err)
		goto unlock;
	b->model = m;
	b->index = m->nr_bindings;
	b->stream_id = s->id;
	b->head = flag == ACL_MODEL_STREAM_FLAG_HEAD;
	b->s = s;	/* the reference memreg__acl_stream_get took */
	s = NULL;
	m->bindings[m->nr_bindings++] = b;
	if (b->head)
		m->head_binding = (int32_t)b->index;
	b = NULL;
unlock:
	pthread_mutex_unlock(&m->build_lock);
out:
	free(b);
	if (s)
		memreg__acl_stream_put(s);
	memreg__acl_model_put(m);
	return acl_ret(err);
}

aclError aclmdlRIUnbindStream(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_binding *b;
	struct acl_model *m, *bm = NULL;
	struct acl_stream *s;
	aclError err;

	if (!modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL"));
	m = built_get(modelRI, &err);
	if (!m)
		return acl_ret(err);
	s = memreg__acl_stream_get(stream, &err);
	if (!s) {
		memreg__acl_model_put(m);
		return acl_ret(err);
	}
	pthread_mutex_lock(&m->build_lock);
	/* Only compared: another model's binding may go meanwhile. */
	pthread_mutex_lock(&s->lock);
	b = s->bound;
	if (b)
		bm = b->model;
	pthread_mutex_unlock(&s->lock);
	if (bm != m) {
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "stream %u is not bound to modelRI %u", s->id,
			       m->id);
	} else {
		unbind(b);
		err = ACL_SUCCESS;
	}
	pthread_mutex_unlock(&m->build_lock);
	memreg__acl_stream_put(s);
	memreg__acl_model_put(m);
	return acl_ret(err);
}

/* The model's end: the run stops there. */
static aclError model_end_steer(const struct acl_task *t,
				struct acl_model_pc *pc)
{
	(void)t;
	pc->end = true;
	return ACL_SUCCESS;
}

/* Only a built model keeps it, and its run steers by it: never queued. */
static const struct acl_task_ops model_end_ops = {
	.name = "MODEL_END_GRAPH",
	.steer = model_end_steer,
};

/*
 * The model's end, on one of its streams.  CANN's runtime keeps one end
 * per model and wants the stream bound to it; both refusals are its
 * ACL_ERROR_RT_INTERNAL_ERROR.
 */
aclError aclmdlRIEndTask(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_binding *b;
	struct acl_stream *s;
	struct acl_model *m;
	struct acl_task *t;
	aclError err;

	if (!modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL"));
	m = built_get(modelRI, &err);
	if (!m)
		return acl_ret(err);
	s = memreg__acl_stream_get(stream, &err);
	if (!s) {
		memreg__acl_model_put(m);
		return acl_ret(err);
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	t->ops = &model_end_ops;
	t->tid = (uint32_t)gettid();
	pthread_mutex_lock(&m->build_lock);
	pthread_mutex_lock(&s->lock);
	b = s->bound;
	if (m->end_binding >= 0)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "modelRI %u has its end already: one aclmdlRIEndTask per model",
			       m->id);
	else if (!b || b->model != m)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "stream %u must be bound to modelRI %u for its end",
			       s->id, m->id);
	else if (b->sealed)
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "modelRI %u is built already", m->id);
	else
		err = memreg__acl_binding_append(b, t);
	pthread_mutex_unlock(&s->lock);
	if (!err) {
		m->end_binding = (int32_t)b->index;
		t = NULL;
	}
	pthread_mutex_unlock(&m->build_lock);
	free(t);
out:
	memreg__acl_stream_put(s);
	memreg__acl_model_put(m);
	return acl_ret(err);
}

/* Seal (or unseal) the bound streams of @m; build_lock held. */
static void seal(struct acl_model *m, bool sealed)
{
	struct acl_binding *b;
	uint32_t i;

	for (i = 0; i < m->nr_bindings; i++) {
		b = m->bindings[i];
		if (!b->s)
			continue;
		pthread_mutex_lock(&b->s->lock);
		b->sealed = sealed;
		pthread_mutex_unlock(&b->s->lock);
	}
}

/*
 * What each task kept by @m's bound streams needs before the model runs
 * (where a label switch goes): the part that may fail first, for every
 * task, 0 or -1; then the rest, which cannot.  build_lock held, the
 * streams sealed.
 */
/* every task @m's bound streams keep, as @t */
#define for_each_bound_task(m, b, t, i, k)				\
	for ((i) = 0; (i) < (m)->nr_bindings; (i)++)			\
		for ((b) = (m)->bindings[(i)], (k) = 0;			\
		     (b)->s && (k) < (b)->n && ((t) = (b)->tasks[(k)]); \
		     (k)++)

static int seal_prepare(struct acl_model *m)
{
	struct acl_binding *b;
	struct acl_task *t;
	uint32_t i;
	size_t k;

	for_each_bound_task(m, b, t, i, k)
		if (t->ops->seal_prepare && t->ops->seal_prepare(t))
			return -1;
	return 0;
}

static void seal_tasks(struct acl_model *m)
{
	struct acl_binding *b;
	struct acl_task *t;
	uint32_t i;
	size_t k;

	for_each_bound_task(m, b, t, i, k)
		if (t->ops->seal)
			t->ops->seal(m, t);
}

/*
 * CANN's checks: a stream bound (ACL_ERROR_RT_STREAM_MODEL) and an end
 * (ACL_ERROR_RT_MODEL_EXECUTE); memreg's own: a head stream to start
 * from (a device would start nothing, and the run never end).
 */
aclError aclmdlRIBuildEnd(aclmdlRI modelRI, void *reserve)
{
	struct acl_model *m;
	uint32_t i, bound = 0;
	aclError err = ACL_SUCCESS;

	if (!modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL"));
	if (reserve)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"reserve is reserved: NULL"));
	m = built_get(modelRI, &err);
	if (!m)
		return acl_ret(err);
	pthread_mutex_lock(&m->build_lock);
	for (i = 0; i < m->nr_bindings; i++)
		bound += m->bindings[i]->s != NULL;
	if (m->build_done)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "modelRI %u is built already: one aclmdlRIBuildEnd per model",
			       m->id);
	else if (!bound)
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "modelRI %u has no stream bound (aclmdlRIBindStream)",
			       m->id);
	else if (m->end_binding < 0)
		err = acl_fail(ACL_ERROR_RT_MODEL_EXECUTE,
			       "modelRI %u has no end: aclmdlRIEndTask on one of its streams first",
			       m->id);
	else if (m->head_binding < 0)
		err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
			       "modelRI %u has no head stream (ACL_MODEL_STREAM_FLAG_HEAD): nothing would start its runs",
			       m->id);
	if (err)
		goto out;
	/*
	 * Sealed first, so that no label is set and no switch added
	 * meanwhile; then the room for the targets (the one step that can
	 * fail, undone if it does), then where each switch goes.
	 */
	seal(m, true);
	if (seal_prepare(m)) {
		seal(m, false);
		err = acl_fail(ACL_ERROR_BAD_ALLOC,
			       "out of memory for the targets of modelRI %u's switches",
			       m->id);
		goto out;
	}
	seal_tasks(m);
	__atomic_store_n(&m->build_done, true, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&m->build_lock);
	memreg__acl_model_put(m);
	return acl_ret(err);
}

/* ---- the run of a built model, and the model's end ---- */

/* The task of one run of a built model: a reference to the model. */
struct model_run_task {
	struct acl_task task;
	struct acl_model *model;
};
ACL_KIND_BEGINS_WITH_TASK(struct model_run_task);

static struct model_run_task *model_run_task(const struct acl_task *t)
{
	return acl_task_data(t, struct model_run_task);
}

/*
 * One kept task of a run, as its stream's own task would run: a fresh
 * copy (event reference, random-number description, staged bytes of its
 * own), numbered now if it records or waits, its failure told to the
 * exception callback under the run's task id.
 */
static aclError run_one(struct acl_stream *s, struct acl_task *run,
			const struct acl_task *op)
{
	struct acl_task *c = memreg__acl_task_clone(op, s);
	aclError err;

	if (!c) {
		memreg__acl_exception(run, s->id, s->device,
				      ACL_ERROR_BAD_ALLOC);
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	c->seq = run->seq;
	memreg__acl_task_queued(c);
	err = memreg__acl_task_run(s, c, false);
	if (err)
		memreg__acl_exception(c, s->id, s->device, err);
	free(c);
	return err;
}

/*
 * The model's fixed streams are read without a lock: the run was queued
 * after aclmdlRIBuildEnd published them.  A failed task does not stop
 * the run (the tasks after it run, as on a device); a task that steers
 * the run (a label switch) and cannot tell where to go does, as nothing
 * says where it would continue.  Falling off the end of a stream ends
 * the run too: a device would wait for the model's end for ever.
 */
static aclError model_run_run(struct acl_stream *s, struct acl_task *t)
{
	struct acl_model *m = model_run_task(t)->model;
	struct acl_model_pc pc = { .binding = 0, .pos = 0, .end = false };
	const struct acl_binding *b = NULL;
	const struct acl_task *op;
	aclError err, first = ACL_SUCCESS;

	if (m->head_binding >= 0) {
		pc.binding = (uint32_t)m->head_binding;
		b = m->bindings[pc.binding];
	}
	while (b && pc.pos < b->n && !memreg__acl_stream_forced(s)) {
		op = b->tasks[pc.pos++];
		if (op->ops->steer) {
			err = op->ops->steer(op, &pc);
			if (pc.end)
				break;
			if (!err) {
				b = m->bindings[pc.binding];
				continue;
			}
			memreg__acl_exception(t, s->id, s->device, err);
			b = NULL;
		} else {
			err = run_one(s, t, op);
		}
		if (err && !first)
			first = err;
	}
	memreg__acl_model_put(m);
	return first;
}

static void model_run_release(struct acl_task *t)
{
	memreg__acl_model_put(model_run_task(t)->model);
}

static void model_run_drop(struct acl_stream *s, struct acl_task *t)
{
	(void)s;
	model_run_release(t);
}

/* Captured after all (its stream began capturing meanwhile): runs again. */
static struct acl_task *model_run_clone(const struct acl_task *t,
					struct acl_stream *s)
{
	struct model_run_task *c = malloc(sizeof(*c));

	(void)s;
	if (!c)
		return NULL;
	*c = *model_run_task(t);
	__atomic_add_fetch(&c->model->refs, 1, __ATOMIC_RELAXED);
	return &c->task;
}

static const struct acl_task_ops model_run_ops = {
	.name = "MODEL_EXECUTE",
	.run = model_run_run,
	.drop = model_run_drop,
	.release = model_run_release,
	.clone = model_run_clone,
	.tells_exceptions = true,
};

aclError memreg__acl_built_run(struct acl_model *m, struct acl_stream *s)
{
	struct model_run_task *r;
	aclError err;

	if (!memreg__acl_model_built(m))
		return acl_fail(ACL_ERROR_RT_MODEL_EXECUTE,
				"modelRI %u is still being built: aclmdlRIBuildEnd first",
				m->id);
	r = calloc(1, sizeof(*r));
	if (!r)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	r->task.ops = &model_run_ops;
	__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	r->model = m;
	err = memreg__acl_stream_enqueue(s, &r->task);
	if (err)
		memreg__acl_task_release(&r->task);
	return err;
}
