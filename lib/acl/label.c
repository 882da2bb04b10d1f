// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Labels and label switches in models being built (CANN's
 * aclrtCreateLabel, aclrtSetLabel, aclrtDestroyLabel,
 * aclrtCreateLabelList, aclrtDestroyLabelList, aclrtSwitchLabelByIndex).
 *
 * A label is a position in the stream of a model: aclrtSetLabel on a
 * stream bound to a model being built (build.c) keeps a LABEL_SET task
 * there, which does nothing when the model runs but say where the label
 * is.  A label list is the labels a switch chooses from; a label is in
 * one list at most, and must be in one before it is set (CANN's runtime
 * writes where a label is into its list's device memory as it is set).
 * aclrtSwitchLabelByIndex keeps a switch: each time a run of the model
 * reaches it, it reads a uint32_t index from device memory and goes on
 * at the label of that index in its list, on whichever stream of the
 * model that label is; the stream it was on stops.  An index past the
 * end goes to the last label, as CANN documents.
 *
 * The labels of a list may be set after the switch that uses the list
 * (CANN's own sample does so): aclmdlRIBuildEnd tells each switch where
 * its labels are (label_switch_seal), so that a run reads
 * nothing of the labels and lists, which may be destroyed by then.  A
 * switch to a label set in no stream of the model fails the run there,
 * as a device's switch task fails (ACL_ERROR_RT_TS_ERROR).
 *
 * The labels of one list belong to one model: a label set in a model,
 * and the switches using its list, must be the same model's.  When the
 * stream a label was set on is unbound, the label is set no more and
 * leaves its list, as CANN's runtime recycles it with the stream's tasks:
 * it can be put in a new list and set again.
 *
 * Locking: label_lock guards the tables and every label's and list's
 * state and references; it nests inside a stream's lock (a label is set
 * as its task is kept there), inside nothing else of this file.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>

#include "device.h"
#include "errors.h"
#include "label.h"
#include "memory.h"
#include "model_internal.h"
#include "ptrmap.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"

/* CANN's most labels per process, and labels per list. */
#define MAX_LABELS	65535U

struct acl_label {
	unsigned int refs;		/* the table's, its list's, its task's */
	struct acl_label_list *list;	/* the list it is in, if any */
	/*
	 * Where it is set: the binding (only compared), that binding's
	 * model and index, and the position of its task there.
	 */
	const struct acl_binding *binding;
	uint32_t model_id;
	uint32_t binding_index;
	size_t pos;
};

struct acl_label_list {
	unsigned int refs;		/* the table's, each switch's */
	/*
	 * The model whose switches use it (0 for none), and how many of
	 * them: switches of one model only.
	 */
	uint32_t model_id;
	unsigned int users;
	size_t n;
	struct acl_label *labels[];	/* a reference each */
};

/* Where a switch goes for each label of its list; binding NONE: nowhere. */
struct label_target {
	uint32_t binding;
	size_t pos;
};
#define NONE	UINT32_MAX

static pthread_mutex_t label_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrmap labels = PTRMAP_INIT;	/* live: handle -> label */
static struct ptrmap lists = PTRMAP_INIT;	/* live: handle -> list */

/* label_lock held, for these two. */
static void label_put(struct acl_label *l)
{
	if (!--l->refs)
		free(l);
}

static void list_put(struct acl_label_list *ls)
{
	size_t i;

	if (--ls->refs)
		return;
	for (i = 0; i < ls->n; i++)
		label_put(ls->labels[i]);
	free(ls);
}

/* Take @l out of its list, if any: it may join another.  label_lock held. */
static void leave_list(struct acl_label *l)
{
	l->list = NULL;
}

aclError aclrtCreateLabel(aclrtLabel *label)
{
	struct acl_label *l;
	aclError err = ACL_SUCCESS;

	if (!label)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "label is NULL"));
	/* CANN makes a label in the current context. */
	if (!memreg__acl_lock_context())
		return acl_ret(acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
					"no current context (aclrtSetDevice first)"));
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	l = calloc(1, sizeof(*l));
	if (!l)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	l->refs = 1;	/* the table's */
	pthread_mutex_lock(&label_lock);
	/* CANN's runtime runs out of label ids: its internal error. */
	if (labels.used >= MAX_LABELS)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "%u labels already: CANN's most per process",
			       MAX_LABELS);
	else if (memreg__ptrmap_put(&labels, l, l))
		err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	pthread_mutex_unlock(&label_lock);
	if (err) {
		free(l);
		return acl_ret(err);
	}
	*label = l;
	return acl_ret(ACL_SUCCESS);
}

/*
 * The handle goes; the label stays where it is set and in its list as
 * long as they need it (on a device, where it was set stays in the
 * list's memory).
 */
aclError aclrtDestroyLabel(aclrtLabel label)
{
	struct acl_label *l;

	if (!label)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "label is NULL"));
	pthread_mutex_lock(&label_lock);
	l = memreg__ptrmap_del(&labels, label);
	if (l)
		label_put(l);
	pthread_mutex_unlock(&label_lock);
	if (!l)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"label %p is no live label (destroyed, or never made)",
					label));
	return acl_ret(ACL_SUCCESS);
}

/*
 * CANN's checks: NULLs (the ACL layer's ACL_ERROR_INVALID_PARAM), the
 * number (ACL_ERROR_RT_PARAM_INVALID), each label live; a label already
 * in a list, or twice in this one, is its runtime's internal error.
 * Nothing changes unless all of them pass.
 */
aclError aclrtCreateLabelList(aclrtLabel *labels_in, size_t num,
			      aclrtLabelList *labelList)
{
	struct acl_label_list *ls;
	struct acl_label *l;
	aclError err = ACL_SUCCESS;
	size_t i, k;

	if (!labels_in || !labelList)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					labels_in ? "labelList" : "labels"));
	if (!num || num > MAX_LABELS)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"num %zu: 1 to %u", num, MAX_LABELS));
	ls = calloc(1, sizeof(*ls) + num * sizeof(ls->labels[0]));
	if (!ls)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory"));
	ls->refs = 1;	/* the table's */
	ls->n = num;
	pthread_mutex_lock(&label_lock);
	for (i = 0; i < num && !err; i++) {
		l = memreg__ptrmap_get(&labels, labels_in[i]);
		if (!l)
			err = acl_fail(ACL_ERROR_INVALID_PARAM,
				       "labels[%zu] %p is no live label", i,
				       labels_in[i]);
		else if (l->list == ls)
			err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
				       "labels[%zu] is in the array twice", i);
		else if (l->list)
			err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
				       "labels[%zu] is in a label list already (one list per label)",
				       i);
		else
			l->list = ls;	/* marks it, for the check above */
	}
	if (!err && memreg__ptrmap_put(&lists, ls, ls))
		err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (err) {
		/* Those marked before the failure are in no list. */
		for (k = 0; k < i; k++) {
			l = memreg__ptrmap_get(&labels, labels_in[k]);
			if (l && l->list == ls)
				leave_list(l);
		}
		pthread_mutex_unlock(&label_lock);
		free(ls);
		return acl_ret(err);
	}
	for (i = 0; i < num; i++) {
		ls->labels[i] = memreg__ptrmap_get(&labels, labels_in[i]);
		ls->labels[i]->refs++;
	}
	pthread_mutex_unlock(&label_lock);
	*labelList = ls;
	return acl_ret(ACL_SUCCESS);
}

/*
 * The handle goes, and its labels may join another list; switches that
 * use it keep it until their model goes (CANN frees the list's memory
 * under them: memreg's switches know where to go from aclmdlRIBuildEnd).
 */
aclError aclrtDestroyLabelList(aclrtLabelList labelList)
{
	struct acl_label_list *ls;
	size_t i;

	if (!labelList)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "labelList is NULL"));
	pthread_mutex_lock(&label_lock);
	ls = memreg__ptrmap_del(&lists, labelList);
	if (ls) {
		for (i = 0; i < ls->n; i++)
			if (ls->labels[i]->list == ls)
				leave_list(ls->labels[i]);
		list_put(ls);
	}
	pthread_mutex_unlock(&label_lock);
	if (!ls)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"labelList %p is no live label list (destroyed, or never made)",
					labelList));
	return acl_ret(ACL_SUCCESS);
}

/*
 * The binding of the stream @s for a label or switch task, its lock
 * held: bound to a model whose build goes on, else the refusal (CANN:
 * ACL_ERROR_RT_STREAM_MODEL, "not bound to a model").
 */
static struct acl_binding *bound_binding(struct acl_stream *s, const char *what,
					 aclError *err)
{
	struct acl_binding *b = s->bound;

	if (!b)
		*err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
				"stream %u is bound to no model being built (aclmdlRIBindStream): %s only goes to one",
				s->id, what);
	else if (b->sealed)
		*err = acl_fail(ACL_ERROR_RT_STREAM_MODEL,
				"stream %u is bound to modelRI %u, whose build ended: it takes no more %s",
				s->id, b->model->id, what);
	return *err ? NULL : b;
}

/* ---- the tasks: a label set, a switch ---- */

/* aclrtSetLabel's task: where the label is. */
struct label_set_task {
	struct acl_task task;
	struct acl_label *label;	/* a reference */
};
ACL_KIND_BEGINS_WITH_TASK(struct label_set_task);

/* aclrtSwitchLabelByIndex's task. */
struct label_switch_task {
	struct acl_task task;
	const uint32_t *index;		/* in device memory */
	uint32_t max;			/* maxValue */
	struct acl_label_list *list;	/* a reference */
	size_t n;			/* its labels */
	/* Where each label of the list is, from aclmdlRIBuildEnd on. */
	struct label_target *to;
};
ACL_KIND_BEGINS_WITH_TASK(struct label_switch_task);

static struct label_set_task *label_set_task(const struct acl_task *t)
{
	return acl_task_data(t, struct label_set_task);
}

static struct label_switch_task *label_switch_task(const struct acl_task *t)
{
	return acl_task_data(t, struct label_switch_task);
}

/* A label does nothing in a run: the run goes on after it. */
static aclError label_set_steer(const struct acl_task *t,
				struct acl_model_pc *pc)
{
	(void)t;
	(void)pc;
	return ACL_SUCCESS;
}

/* Its stream was unbound: the label is set no more, and in no list. */
static void label_set_unbound(struct acl_task *t, const struct acl_binding *b)
{
	struct acl_label *l = label_set_task(t)->label;

	pthread_mutex_lock(&label_lock);
	if (l->binding == b) {
		l->binding = NULL;
		l->model_id = 0;
		leave_list(l);
	}
	pthread_mutex_unlock(&label_lock);
}

static void label_set_release(struct acl_task *t)
{
	pthread_mutex_lock(&label_lock);
	label_put(label_set_task(t)->label);
	pthread_mutex_unlock(&label_lock);
}

static void label_set_print(const struct acl_task_printer *p,
			    const struct acl_task *t)
{
	memreg__acl_print_ptr(p, "label", label_set_task(t)->label);
}

/* Only a built model keeps them, and its run steers by them: never queued. */
static const struct acl_task_ops label_set_ops = {
	.name = "LABEL_SET",
	.steer = label_set_steer,
	.unbound = label_set_unbound,
	.release = label_set_release,
	.print = label_set_print,
};

/*
 * The index is read as a copy reads device memory: the allocation still
 * there, held against aclrtFree while reading.  Past the maximum, the
 * last label (CANN's documentation; its switch clamps to maxValue - 1,
 * to 0 for a maximum of 0); past the list too, the last of the list.
 */
static aclError label_switch_steer(const struct acl_task *t,
				   struct acl_model_pc *pc)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	const struct label_switch_task *sw = label_switch_task(t);
	const struct label_target *to = sw->to;
	uint32_t idx, limit;
	aclError err = ACL_SUCCESS;

	pthread_mutex_lock(&rt->lock);
	if (!memreg__acl_devmem_covers(sw->index, sizeof(idx)))
		err = ACL_ERROR_RT_SYS_DMA;
	else
		pthread_rwlock_rdlock(&rt->devmem_use);
	pthread_mutex_unlock(&rt->lock);
	if (err)
		return err;
	memcpy(&idx, sw->index, sizeof(idx));
	pthread_rwlock_unlock(&rt->devmem_use);
	limit = sw->max ? sw->max : 1;
	if (limit > sw->n)
		limit = (uint32_t)sw->n;
	if (idx >= limit)
		idx = limit - 1;
	if (to[idx].binding == NONE)
		return ACL_ERROR_RT_TS_ERROR;
	pc->binding = to[idx].binding;
	pc->pos = to[idx].pos;
	return ACL_SUCCESS;
}

/*
 * aclmdlRIBuildEnd: room for where its labels are (the step that can
 * fail), then, its model's bindings sealed, where each label of its
 * list was set in @m, so that a run reads nothing of the labels and
 * lists, which may be destroyed by then.
 */
static int label_switch_seal_prepare(struct acl_task *t)
{
	struct label_switch_task *sw = label_switch_task(t);

	if (!sw->to)
		sw->to = calloc(sw->n, sizeof(*sw->to));
	return sw->to ? 0 : -1;
}

static void label_switch_seal(const struct acl_model *m, struct acl_task *t)
{
	struct label_switch_task *sw = label_switch_task(t);
	const struct acl_label *l;
	size_t i;

	pthread_mutex_lock(&label_lock);
	for (i = 0; i < sw->n; i++) {
		l = sw->list->labels[i];
		sw->to[i].binding = NONE;
		if (l->binding && l->model_id == m->id) {
			sw->to[i].binding = l->binding_index;
			sw->to[i].pos = l->pos;
		}
	}
	pthread_mutex_unlock(&label_lock);
}

static void label_switch_release(struct acl_task *t)
{
	struct label_switch_task *sw = label_switch_task(t);

	pthread_mutex_lock(&label_lock);
	if (!--sw->list->users)
		sw->list->model_id = 0;
	list_put(sw->list);
	pthread_mutex_unlock(&label_lock);
	free(sw->to);
}

static void label_switch_print(const struct acl_task_printer *p,
			       const struct acl_task *t)
{
	const struct label_switch_task *sw = label_switch_task(t);

	memreg__acl_print_ptr(p, "ptr", sw->index);
	memreg__acl_print_u64(p, "max_value", sw->max);
	memreg__acl_print_ptr(p, "label_list", sw->list);
	memreg__acl_print_u64(p, "labels", sw->n);
}

static const struct acl_task_ops label_switch_ops = {
	.name = "LABEL_SWITCH_BY_INDEX",
	.steer = label_switch_steer,
	.seal_prepare = label_switch_seal_prepare,
	.seal = label_switch_seal,
	.release = label_switch_release,
	.print = label_switch_print,
};

/*
 * A task of @size bytes (a kind's struct) with @ops for @stream, and the
 * stream's reference in *@s; NULL with *@err set (and no reference) if
 * there is no such stream or no memory.
 */
static struct acl_task *label_task(aclrtStream stream,
				   const struct acl_task_ops *ops, size_t size,
				   struct acl_stream **s, aclError *err)
{
	struct acl_task *t;

	*s = memreg__acl_stream_get(stream, err);
	if (!*s)
		return NULL;
	t = calloc(1, size);
	if (!t) {
		memreg__acl_stream_put(*s);
		*err = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		return NULL;
	}
	t->ops = ops;
	t->tid = (uint32_t)gettid();
	return t;
}

aclError aclrtSetLabel(aclrtLabel label, aclrtStream stream)
{
	struct acl_binding *b;
	struct acl_stream *s;
	struct acl_label *l;
	struct acl_task *t;
	aclError err = ACL_SUCCESS;
	uint32_t mid;

	if (!label || !stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					label ? "stream" : "label"));
	t = label_task(stream, &label_set_ops, sizeof(struct label_set_task),
		       &s, &err);
	if (!t)
		return acl_ret(err);
	pthread_mutex_lock(&s->lock);
	b = bound_binding(s, "label", &err);
	if (!b)
		goto unlock_stream;
	mid = b->model->id;
	pthread_mutex_lock(&label_lock);
	l = memreg__ptrmap_get(&labels, label);
	/* CANN's runtime: its internal error for each of these. */
	if (!l)
		err = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "label %p is no live label (destroyed, or never made)",
			       label);
	else if (l->binding)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "the label is set already (modelRI %u, %s stream, task %zu): a label is set once",
			       l->model_id,
			       l->binding == b ? "this" : "another", l->pos);
	else if (!l->list)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "the label is in no label list: aclrtCreateLabelList before aclrtSetLabel");
	else if (l->list->users && l->list->model_id != mid)
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "the label's list is switched on in modelRI %u, not in modelRI %u of stream %u",
			       l->list->model_id, mid, s->id);
	else
		err = memreg__acl_binding_append(b, t);
	if (!err) {
		l->binding = b;
		l->model_id = mid;
		l->binding_index = b->index;
		l->pos = b->n - 1;
		l->refs++;
		label_set_task(t)->label = l;
		t = NULL;
	}
	pthread_mutex_unlock(&label_lock);
unlock_stream:
	pthread_mutex_unlock(&s->lock);
	free(t);
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

/*
 * The index is device memory (CANN's documentation): the switch reads it
 * at each run.  A label of the list set in another model, or the list
 * switched on in another model, is CANN's internal error
 * (RT_ERROR_LABEL_MODEL); one that is set later is checked then.
 */
aclError aclrtSwitchLabelByIndex(void *ptr, uint32_t maxValue,
				 aclrtLabelList labelList, aclrtStream stream)
{
	struct label_switch_task *sw;
	struct acl_label_list *ls;
	struct acl_binding *b;
	struct acl_stream *s;
	struct acl_task *t;
	aclError err = ACL_SUCCESS;
	uint32_t mid;
	size_t i;

	if (!ptr || !labelList || !stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					!ptr ? "ptr" :
					!labelList ? "labelList" : "stream"));
	if (!memreg__acl_is_devmem(ptr, sizeof(uint32_t)))
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"ptr %p: the index must be 4 bytes of device memory",
					ptr));
	t = label_task(stream, &label_switch_ops,
		       sizeof(struct label_switch_task), &s, &err);
	if (!t)
		return acl_ret(err);
	sw = label_switch_task(t);
	sw->index = ptr;
	sw->max = maxValue;
	pthread_mutex_lock(&s->lock);
	b = bound_binding(s, "label switch", &err);
	if (!b)
		goto unlock_stream;
	mid = b->model->id;
	pthread_mutex_lock(&label_lock);
	ls = memreg__ptrmap_get(&lists, labelList);
	if (!ls) {
		err = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "labelList %p is no live label list (destroyed, or never made)",
			       labelList);
	} else if (ls->users && ls->model_id != mid) {
		err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
			       "the label list is switched on in modelRI %u already, not modelRI %u",
			       ls->model_id, mid);
	} else {
		for (i = 0; i < ls->n && !err; i++)
			if (ls->labels[i]->binding &&
			    ls->labels[i]->model_id != mid)
				err = acl_fail(ACL_ERROR_RT_INTERNAL_ERROR,
					       "label %zu of the list is set in modelRI %u, not modelRI %u",
					       i, ls->labels[i]->model_id, mid);
	}
	if (!err)
		err = memreg__acl_binding_append(b, t);
	if (!err) {
		ls->refs++;
		ls->users++;
		ls->model_id = mid;
		sw->list = ls;
		sw->n = ls->n;
		t = NULL;
	}
	pthread_mutex_unlock(&label_lock);
unlock_stream:
	pthread_mutex_unlock(&s->lock);
	free(t);
	memreg__acl_stream_put(s);
	return acl_ret(err);
}

void memreg__acl_labels_release(void)
{
	struct acl_label_list *ls;
	struct acl_label *l;
	size_t i;

	/* The models went first: only the tables hold references. */
	pthread_mutex_lock(&label_lock);
	while (memreg__ptrmap_values(&lists, (void **)&ls, 1)) {
		memreg__ptrmap_del(&lists, ls);
		for (i = 0; i < ls->n; i++)
			if (ls->labels[i]->list == ls)
				leave_list(ls->labels[i]);
		list_put(ls);
	}
	while (memreg__ptrmap_values(&labels, (void **)&l, 1)) {
		memreg__ptrmap_del(&labels, l);
		label_put(l);
	}
	memreg__ptrmap_clear(&lists);
	memreg__ptrmap_clear(&labels);
	pthread_mutex_unlock(&label_lock);
}
