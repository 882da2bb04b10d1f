// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Model runtime instances (CANN's aclmdlRI*): the table of them, those
 * made by stream capture, running, destroying and printing them.  Those
 * built from bound persistent streams are build.c's; their labels
 * label.c's.
 *
 * Between aclmdlRICaptureBegin and aclmdlRICaptureEnd on a stream, what
 * the program queues on that stream does not run: the task is kept in a
 * model (memreg__acl_stream_enqueue hands it to memreg__acl_model_add).
 * aclmdlRIExecuteAsync queues a fresh copy of each kept task on a
 * stream, in the order of the capture; aclmdlRIExecute does the same on
 * a stream of the model's own and waits.  The kept tasks are templates:
 * a run's task owns what it holds (its own event reference, its own
 * random-number description), takes its event record number when it is
 * queued, and reads the memory it names when it runs, so a model run
 * twice records and waits twice, and copies the bytes of each run.
 *
 * A memreg model is the tasks of one stream.  CANN follows events from
 * the capturing stream to other streams (a record captured here, waited
 * for on another stream, pulls that stream into the capture) and joins
 * them back at the end; memreg does not: a wait on another stream for a
 * record captured here is an ordinary wait, queued at once, for the
 * records the event had before (the captured one has no number until
 * the model runs), and that stream's tasks run at once.  Events link a
 * model to the streams outside it each time it runs (EXTERNAL flags, or
 * plain records and waits of capturing events).
 *
 * Capture modes (CANN's, as CUDA's): a capture begun in GLOBAL mode
 * forbids the "unsafe" calls (aclrtMemcpy, aclrtMemset) to every thread
 * whose own mode (aclmdlRICaptureThreadExchangeMode, GLOBAL by default)
 * is GLOBAL; one begun in THREAD_LOCAL or GLOBAL mode forbids them to
 * its own thread unless that thread switched to RELAXED; a RELAXED
 * capture forbids nothing.  Process-wide here, per context in CANN.
 *
 * Locking: model_lock guards the table of models and each model's
 * capturing state; it nests inside rt.lock and in no stream's lock.  A
 * model's task list grows under its capturing stream's lock and is fixed
 * once the capture ended, when it is read without a lock.  exec_lock
 * (per model) is outermost: it orders the making and the destroying of
 * aclmdlRIExecute's stream.  A built model's build_lock (build.c) nests
 * inside exec_lock and rt.lock, outside the streams' locks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "device.h"
#include "errors.h"
#include "model.h"
#include "model_internal.h"
#include "ptrmap.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"

static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrmap models = PTRMAP_INIT;	/* live: handle -> model */
static struct acl_model *capturing_list;	/* the captures going on */
static unsigned int nr_capturing;		/* their number, atomic */
static uint32_t next_model_id;

/* The calling thread's mode for unsafe calls; GLOBAL (0) by default. */
static __thread aclmdlRICaptureMode thread_mode;

static const char *const mode_names[] = {
	[ACL_MODEL_RI_CAPTURE_MODE_GLOBAL] = "GLOBAL",
	[ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL] = "THREAD_LOCAL",
	[ACL_MODEL_RI_CAPTURE_MODE_RELAXED] = "RELAXED",
};

static bool mode_valid(aclmdlRICaptureMode mode)
{
	return (unsigned int)mode <= ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
}

/* A built model's streams and the tasks they gave it. */
static void bindings_free(struct acl_model *m)
{
	struct acl_binding *b;
	uint32_t i;
	size_t k;

	for (i = 0; i < m->nr_bindings; i++) {
		b = m->bindings[i];
		for (k = 0; k < b->n; k++)
			memreg__acl_task_release(b->tasks[k]);
		/*
		 * Unbound before the last reference went (aclmdlRIDestroy,
		 * or the streams gone first at aclFinalize); should one be
		 * left, its stream must not keep pointing here.
		 */
		if (b->s) {
			pthread_mutex_lock(&b->s->lock);
			if (b->s->bound == b)
				b->s->bound = NULL;
			pthread_mutex_unlock(&b->s->lock);
			memreg__acl_stream_put(b->s);
		}
		free(b->tasks);
		free(b);
	}
	free(m->bindings);
}

void memreg__acl_model_put(struct acl_model *m)
{
	struct acl_task *t;

	if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL))
		return;
	while ((t = m->head)) {
		m->head = t->next;
		memreg__acl_task_release(t);
	}
	bindings_free(m);
	if (m->exec)
		memreg__acl_stream_put(m->exec);
	pthread_mutex_destroy(&m->build_lock);
	pthread_mutex_destroy(&m->exec_lock);
	free(m);
}

struct acl_model *memreg__acl_model_new(void)
{
	struct acl_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->refs = 1;	/* the table's */
	m->id = __atomic_add_fetch(&next_model_id, 1, __ATOMIC_RELAXED);
	m->head_binding = -1;
	m->end_binding = -1;
	pthread_mutex_init(&m->exec_lock, NULL);
	pthread_mutex_init(&m->build_lock, NULL);
	return m;
}

int memreg__acl_model_publish(struct acl_model *m)
{
	int ret;

	pthread_mutex_lock(&model_lock);
	ret = memreg__ptrmap_put(&models, m, m);
	pthread_mutex_unlock(&model_lock);
	return ret ? -1 : 0;
}

bool memreg__acl_model_built(const struct acl_model *m)
{
	return __atomic_load_n(&m->build_done, __ATOMIC_ACQUIRE);
}

struct acl_model *memreg__acl_model_get(aclmdlRI handle, bool ended,
					aclError *err)
{
	struct acl_model *m;

	if (!handle) {
		*err = acl_fail(ACL_ERROR_INVALID_PARAM, "modelRI is NULL");
		return NULL;
	}
	pthread_mutex_lock(&model_lock);
	m = memreg__ptrmap_get(&models, handle);
	if (m && ended && m->capturing) {
		*err = acl_fail(ACL_ERROR_RT_MODEL_CAPTURED,
				"modelRI %p is still being captured from stream %u",
				handle, m->stream_id);
		m = NULL;
	} else if (m) {
		__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	} else {
		*err = acl_fail(ACL_ERROR_INVALID_PARAM,
				"modelRI %p is no live model (destroyed, or never made)",
				handle);
	}
	pthread_mutex_unlock(&model_lock);
	return m;
}

/* Take @m out of the table (if it is still there) and drop its reference. */
static void model_discard(struct acl_model *m)
{
	bool listed;

	pthread_mutex_lock(&model_lock);
	listed = memreg__ptrmap_get(&models, m) == m;
	if (listed)
		memreg__ptrmap_del(&models, m);
	pthread_mutex_unlock(&model_lock);
	if (listed)
		memreg__acl_model_put(m);
}

void memreg__acl_model_add(struct acl_model *m, struct acl_task *t)
{
	t->next = NULL;
	if (m->tail)
		m->tail->next = t;
	else
		m->head = t;
	m->tail = t;
	m->nr_tasks++;
	/* A record's event is "being captured" until the capture ends. */
	memreg__acl_task_captured(t, 1);
}

/*
 * @m's capture is over (it was going on): out of the list, and its
 * events' records no longer count as being captured.
 */
static void capture_close(struct acl_model *m)
{
	struct acl_model **pp;
	struct acl_task *t;

	pthread_mutex_lock(&model_lock);
	for (pp = &capturing_list; *pp; pp = &(*pp)->next_capturing) {
		if (*pp == m) {
			*pp = m->next_capturing;
			break;
		}
	}
	m->capturing = false;
	__atomic_sub_fetch(&nr_capturing, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&model_lock);
	for (t = m->head; t; t = t->next)
		memreg__acl_task_captured(t, -1);
}

void memreg__acl_model_abandon(struct acl_model *m)
{
	capture_close(m);
	model_discard(m);
}

aclError memreg__acl_capture_mode_check(const char *call)
{
	aclmdlRICaptureMode mine = thread_mode, strictest_own;
	uint32_t tid;
	struct acl_model *m;
	bool global = false, refused;

	/* The common case: no capture anywhere, nothing to look at. */
	if (!__atomic_load_n(&nr_capturing, __ATOMIC_ACQUIRE) ||
	    mine == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
		return ACL_SUCCESS;
	tid = (uint32_t)gettid();
	/* RELAXED + 1: no capture of this thread's own. */
	strictest_own = ACL_MODEL_RI_CAPTURE_MODE_RELAXED + 1;
	pthread_mutex_lock(&model_lock);
	for (m = capturing_list; m; m = m->next_capturing) {
		if (m->mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
			global = true;
		if (m->begin_tid == tid && m->mode < strictest_own)
			strictest_own = m->mode;
	}
	pthread_mutex_unlock(&model_lock);
	if (mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
		refused = global ||
			  strictest_own == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
	else
		refused = strictest_own <= ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
	if (!refused)
		return ACL_SUCCESS;
	return acl_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
			"%s while a stream is captured: this thread's capture mode is %s; aclmdlRICaptureThreadExchangeMode(RELAXED) allows it",
			call, mode_names[mine]);
}

aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode)
{
	struct acl_stream *s;
	struct acl_model *m;
	bool taken, bound;
	aclError err;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream is NULL: the default stream cannot be captured"));
	if (!mode_valid(mode))
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"mode %d is no aclmdlRICaptureMode", (int)mode));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	m = memreg__acl_model_new();
	if (!m)
		goto out;
	m->mode = mode;
	m->begin_tid = (uint32_t)gettid();
	m->stream_id = s->id;
	m->capturing = true;

	pthread_mutex_lock(&model_lock);
	if (memreg__ptrmap_put(&models, m, m)) {
		pthread_mutex_unlock(&model_lock);
		memreg__acl_model_put(m);
		goto out;
	}
	m->next_capturing = capturing_list;
	capturing_list = m;
	__atomic_add_fetch(&nr_capturing, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&model_lock);

	pthread_mutex_lock(&s->lock);
	/* A bound stream's tasks are its model's (build.c). */
	bound = s->bound != NULL;
	taken = s->capture || s->stopping || bound;
	if (!taken)
		s->capture = m;
	pthread_mutex_unlock(&s->lock);
	err = ACL_SUCCESS;
	if (taken) {
		err = bound ? acl_fail(ACL_ERROR_RT_STREAM_MODEL,
				       "stream %u is bound to a model being built: it cannot be captured",
				       s->id) :
			      acl_fail(ACL_ERROR_RT_STREAM_CAPTURED,
				       "stream %u is already being captured",
				       s->id);
		memreg__acl_model_abandon(m);
	}
out:
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

aclError aclmdlRICaptureGetInfo(aclrtStream stream,
				aclmdlRICaptureStatus *status,
				aclmdlRI *modelRI)
{
	struct acl_stream *s;
	struct acl_model *m;
	aclError err;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL"));
	if (!status && !modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"status and modelRI are both NULL"));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	pthread_mutex_lock(&s->lock);
	m = s->capture;
	pthread_mutex_unlock(&s->lock);
	memreg__acl_stream_put(s);
	/* memreg invalidates no capture: ACTIVE until it ends. */
	if (status)
		*status = m ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE :
			      ACL_MODEL_RI_CAPTURE_STATUS_NONE;
	if (modelRI)
		*modelRI = m;
	return acl_ret(ACL_SUCCESS);
}

/*
 * Ending in another thread than the one that began is CANN's error
 * unless the capture is RELAXED; as CANN, the capture ends anyway, and
 * the model it built goes.
 */
aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *modelRI)
{
	struct acl_stream *s;
	struct acl_model *m;
	bool wrong_thread;
	aclError err;

	if (!stream || !modelRI)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					stream ? "modelRI" : "stream"));
	s = memreg__acl_stream_get(stream, &err);
	if (!s)
		return acl_ret(err);
	pthread_mutex_lock(&s->lock);
	m = s->capture;
	s->capture = NULL;
	pthread_mutex_unlock(&s->lock);
	if (!m) {
		err = acl_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
			       "stream %u is not being captured (no aclmdlRICaptureBegin)",
			       s->id);
		memreg__acl_stream_put(s);
		return acl_ret(err);
	}
	memreg__acl_stream_put(s);
	capture_close(m);
	wrong_thread = m->begin_tid != (uint32_t)gettid() &&
		       m->mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
	if (wrong_thread) {
		err = acl_fail(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
			       "the capture was begun in thread %u in mode %s: only that thread ends it (the capture is dropped)",
			       m->begin_tid, mode_names[m->mode]);
		model_discard(m);
		return acl_ret(err);
	}
	*modelRI = m;
	return acl_ret(ACL_SUCCESS);
}

aclError aclmdlRICaptureThreadExchangeMode(aclmdlRICaptureMode *mode)
{
	aclmdlRICaptureMode old = thread_mode;

	if (!mode)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "mode is NULL"));
	if (!mode_valid(*mode))
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"mode %d is no aclmdlRICaptureMode",
					(int)*mode));
	thread_mode = *mode;
	*mode = old;
	return acl_ret(ACL_SUCCESS);
}

/*
 * Queue a run of @m on @s.  On a failure the tasks queued before it stay
 * queued (and run): a device model fails the same way, part done.
 */
static aclError model_run(struct acl_model *m, struct acl_stream *s)
{
	const struct acl_task *t;
	struct acl_task *c;
	size_t i = 0;
	aclError err;

	if (memreg__acl_stream_capturing(s))
		return acl_fail(ACL_ERROR_RT_STREAM_CAPTURED,
				"stream %u is being captured: a model does not run on it",
				s->id);
	/* CANN's runtime: a persistent (sink) stream executes no model. */
	if (s->flags & ACL_STREAM_PERSISTENT)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"stream %u is persistent: a model does not run on it",
				s->id);
	if (m->built)
		return memreg__acl_built_run(m, s);
	for (t = m->head; t; t = t->next, i++) {
		c = memreg__acl_task_clone(t, s);
		if (!c)
			return acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of memory queueing task %zu of the model",
					i);
		err = memreg__acl_stream_enqueue(s, c);
		if (err) {
			memreg__acl_task_release(c);
			return err;
		}
	}
	return ACL_SUCCESS;
}

aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream)
{
	struct acl_stream *s;
	struct acl_model *m;
	aclError err;

	m = memreg__acl_model_get(modelRI, true, &err);
	if (!m)
		return acl_ret(err);
	s = memreg__acl_stream_get(stream, &err);
	if (s) {
		err = model_run(m, s);
		memreg__acl_stream_put(s);
	}
	memreg__acl_model_put(m);
	return acl_ret(err);
}

/* Has @s tasks queued that have not finished? */
static bool stream_busy(struct acl_stream *s)
{
	bool busy;

	pthread_mutex_lock(&s->lock);
	busy = s->done < s->queued;
	pthread_mutex_unlock(&s->lock);
	return busy;
}

/*
 * A reference to aclmdlRIExecute's stream for @m: the model's own, or,
 * the first time (or after its context went), a new stream of the
 * current context.
 */
static struct acl_stream *exec_stream(struct acl_model *m, aclError *err)
{
	struct acl_context *ctx;
	struct acl_stream *s = NULL, *made, *old;

	pthread_mutex_lock(&m->exec_lock);
	/* The model's reference keeps a stream gone from being reused. */
	if (m->exec)
		s = memreg__acl_stream_get(memreg__acl_stream_handle(m->exec),
					   err);
	if (s)
		goto out;
	ctx = memreg__acl_lock_context();
	if (!ctx) {
		*err = ACL_ERROR_RT_CONTEXT_NULL;
		goto out;
	}
	made = memreg__acl_stream_new(ctx, err);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (!made)
		goto out;
	/* The model's reference, then the caller's. */
	s = memreg__acl_stream_get(memreg__acl_stream_handle(made), err);
	if (!s)
		goto out;
	old = m->exec;
	m->exec = s;
	if (old)
		memreg__acl_stream_put(old);
	s = memreg__acl_stream_get(memreg__acl_stream_handle(made), err);
out:
	pthread_mutex_unlock(&m->exec_lock);
	return s;
}

/*
 * On the model's own stream, waiting @timeout ms (-1: for ever) for the
 * run to finish.  A run that did not finish in time goes on.
 */
aclError aclmdlRIExecute(aclmdlRI modelRI, int32_t timeout)
{
	struct acl_stream *s;
	struct acl_model *m;
	aclError err;

	m = memreg__acl_model_get(modelRI, true, &err);
	if (!m)
		return acl_ret(err);
	/* CANN's runtime: -1, or a positive number of ms. */
	if (timeout < -1 || timeout == 0) {
		memreg__acl_model_put(m);
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"timeout %d: -1 or more than 0 ms",
					(int)timeout));
	}
	s = exec_stream(m, &err);
	if (s) {
		err = model_run(m, s);
		if (!err)
			err = memreg__acl_stream_sync_timeout(s, timeout);
		memreg__acl_stream_put(s);
	}
	memreg__acl_model_put(m);
	return acl_ret(err);
}

/*
 * Runs queued by aclmdlRIExecuteAsync own what they use: the model can
 * go under them (a built model's run holds a reference to it).  A built
 * model's streams still bound are unbound, as aclmdlRIUnbindStream does.
 * aclmdlRIExecute's stream goes with the model, so a run
 * still on it (one that outlived its timeout) is CANN's
 * ACL_ERROR_RT_MODEL_RUNNING, and the model stays.
 */
aclError aclmdlRIDestroy(aclmdlRI modelRI)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_model *m;
	aclError err;
	bool listed;

	m = memreg__acl_model_get(modelRI, false, &err);
	if (!m)
		return acl_ret(err);
	err = ACL_SUCCESS;
	pthread_mutex_lock(&m->exec_lock);
	/* A stream's lock and model_lock do not nest: looked at first. */
	if (m->exec && stream_busy(m->exec))
		err = acl_fail(ACL_ERROR_RT_MODEL_RUNNING,
			       "modelRI %p is still running on aclmdlRIExecute's stream",
			       modelRI);
	pthread_mutex_lock(&model_lock);
	if (!err && m->capturing)
		err = acl_fail(ACL_ERROR_RT_MODEL_CAPTURED,
			       "modelRI %p is still being captured from stream %u",
			       modelRI, m->stream_id);
	listed = !err && memreg__ptrmap_get(&models, m) == m;
	if (listed)
		memreg__ptrmap_del(&models, m);
	else if (!err)
		err = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "modelRI %p is already destroyed", modelRI);
	pthread_mutex_unlock(&model_lock);
	if (listed && m->exec) {
		pthread_mutex_lock(&rt->lock);
		memreg__acl_stream_destroy(m->exec, false);
		pthread_mutex_unlock(&rt->lock);
	}
	/* Its streams are free again, its labels too; queued runs go on. */
	if (listed && m->built)
		memreg__acl_model_unbind_all(m);
	pthread_mutex_unlock(&m->exec_lock);
	if (listed)
		memreg__acl_model_put(m);	/* the table's */
	memreg__acl_model_put(m);
	return acl_ret(err);
}

void memreg__acl_models_release(void)
{
	struct acl_model *m;

	/* The streams went first: no capture is left, no run queued. */
	pthread_mutex_lock(&model_lock);
	while (memreg__ptrmap_values(&models, (void **)&m, 1)) {
		memreg__ptrmap_del(&models, m);
		pthread_mutex_unlock(&model_lock);
		memreg__acl_model_put(m);
		pthread_mutex_lock(&model_lock);
	}
	memreg__ptrmap_clear(&models);
	pthread_mutex_unlock(&model_lock);
}

/* ---- aclmdlRIDebugPrint, aclmdlRIDebugJsonPrint ---- */

/* One task's parameters, after its type: see task_print.h. */
static void print_params(FILE *f, const struct acl_task *t, bool json,
			 bool verbose)
{
	const struct acl_task_printer p = {
		.f = f,
		.json = json,
		.verbose = verbose,
	};

	memreg__acl_task_print(&p, t);
}

/*
 * A built model prints once built (its streams' tasks are fixed then);
 * build_lock held while printing, for the streams it unbinds.
 */
static aclError print_begin(struct acl_model *m)
{
	if (!m->built)
		return ACL_SUCCESS;
	if (!memreg__acl_model_built(m))
		return acl_fail(ACL_ERROR_RT_MODEL_EXECUTE,
				"modelRI %u is still being built: aclmdlRIBuildEnd first",
				m->id);
	pthread_mutex_lock(&m->build_lock);
	return ACL_SUCCESS;
}

static void print_end(struct acl_model *m)
{
	if (m->built)
		pthread_mutex_unlock(&m->build_lock);
}

/* Every task of a built model, over its streams. */
static size_t built_tasks(const struct acl_model *m)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < m->nr_bindings; i++)
		n += m->bindings[i]->n;
	return n;
}

static const char *binding_flag(const struct acl_binding *b)
{
	return b->head ? "HEAD" : "DEFAULT";
}

aclError aclmdlRIDebugPrint(aclmdlRI modelRI)
{
	const struct acl_binding *b;
	const struct acl_task *t;
	struct acl_model *m;
	aclError err;
	size_t i = 0;
	uint32_t k;

	m = memreg__acl_model_get(modelRI, true, &err);
	if (!m)
		return acl_ret(err);
	err = print_begin(m);
	if (err) {
		memreg__acl_model_put(m);
		return acl_ret(err);
	}
	if (!m->built) {
		printf("aclmdlRI %u: %zu task(s), captured from stream %u in mode %s\n",
		       m->id, m->nr_tasks, m->stream_id, mode_names[m->mode]);
		for (t = m->head; t; t = t->next, i++) {
			printf("  task %zu: %s", i, t->ops->name);
			print_params(stdout, t, false, false);
			putchar('\n');
		}
	} else {
		printf("aclmdlRI %u: %zu task(s) on %u stream(s), built\n",
		       m->id, built_tasks(m), m->nr_bindings);
		for (k = 0; k < m->nr_bindings; k++) {
			b = m->bindings[k];
			printf("  stream %u (%s%s): %zu task(s)\n", b->stream_id,
			       binding_flag(b), b->s ? "" : ", unbound", b->n);
			for (i = 0; i < b->n; i++) {
				t = b->tasks[i];
				printf("    task %zu: %s", i, t->ops->name);
				print_params(stdout, t, false, false);
				putchar('\n');
			}
		}
	}
	fflush(stdout);
	print_end(m);
	memreg__acl_model_put(m);
	return acl_ret(ACL_SUCCESS);
}

/* The "tasks" array of a model's JSON: @n tasks, from @head or @v. */
static void json_tasks(FILE *f, struct acl_task *head,
		       struct acl_task *const *v, size_t n, const char *indent,
		       bool verbose)
{
	const struct acl_task *t = head;
	size_t i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (v)
			t = v[i];
		fprintf(f, "%s\n%s  {\"index\": %zu, \"type\": \"%s\"",
			i ? "," : "", indent, i, t->ops->name);
		print_params(f, t, true, verbose);
		fputc('}', f);
		if (!v)
			t = t->next;
	}
	fprintf(f, "%s%s]", n ? "\n" : "", n ? indent : "");
}

aclError aclmdlRIDebugJsonPrint(aclmdlRI modelRI, const char *path,
				uint32_t flags)
{
	bool verbose = flags == ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE;
	const struct acl_binding *b;
	struct acl_model *m;
	aclError err;
	uint32_t k;
	FILE *f;

	m = memreg__acl_model_get(modelRI, true, &err);
	if (!m)
		return acl_ret(err);
	err = ACL_SUCCESS;
	if (!path)
		err = acl_fail(ACL_ERROR_INVALID_PARAM, "path is NULL");
	else if (flags > ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE)
		err = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "flags %u: ACL_MDLRI_DEBUG_JSON_PRINT_SUMMARY or _VERBOSE",
			       flags);
	if (!err)
		err = print_begin(m);
	if (err) {
		memreg__acl_model_put(m);
		return acl_ret(err);
	}
	f = fopen(path, "w");
	if (!f) {
		err = acl_fail(ACL_ERROR_INVALID_PARAM, "opening %s: %s", path,
			       strerror(errno));
		goto out;
	}
	if (!m->built) {
		fprintf(f, "{\n  \"modelRI\": %u,\n  \"stream\": %u,\n  \"mode\": \"%s\",\n"
			"  \"task_count\": %zu,\n  \"tasks\": ",
			m->id, m->stream_id, mode_names[m->mode], m->nr_tasks);
		json_tasks(f, m->head, NULL, m->nr_tasks, "  ", verbose);
		fputs("\n}\n", f);
	} else {
		fprintf(f, "{\n  \"modelRI\": %u,\n  \"built\": true,\n"
			"  \"task_count\": %zu,\n  \"streams\": [",
			m->id, built_tasks(m));
		for (k = 0; k < m->nr_bindings; k++) {
			b = m->bindings[k];
			fprintf(f, "%s\n    {\"stream\": %u, \"flag\": \"%s\", \"bound\": %s, \"task_count\": %zu,\n"
				"     \"tasks\": ",
				k ? "," : "", b->stream_id, binding_flag(b),
				b->s ? "true" : "false", b->n);
			json_tasks(f, NULL, b->tasks, b->n, "     ", verbose);
			fputc('}', f);
		}
		fprintf(f, "%s]\n}\n", m->nr_bindings ? "\n  " : "");
	}
	if (fclose(f))
		err = acl_fail(ACL_ERROR_INVALID_PARAM, "writing %s: %s", path,
			       strerror(errno));
out:
	print_end(m);
	memreg__acl_model_put(m);
	return acl_ret(err);
}
