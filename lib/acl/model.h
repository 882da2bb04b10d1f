/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Model runtime instances (aclmdlRI), shared by model.c (the table,
 * capture, running, destroying, printing), build.c (building from bound
 * persistent streams, and the run of a built model) and label.c (labels
 * and switches in a model being built).
 */
#ifndef MEMREG_ACL_MODEL_H
#define MEMREG_ACL_MODEL_H

#include "runtime.h"

/*
 * A persistent stream bound to a model being built, from aclmdlRIBindStream
 * to aclmdlRIUnbindStream: the tasks queued on it meanwhile, in order.
 * Owned by its model, freed with it (never before: labels and the
 * stream's pointer compare against it).
 */
struct acl_binding {
	struct acl_model *model;	/* its owner */
	uint32_t index;			/* in model->bindings */
	uint32_t stream_id;
	bool head;			/* ACL_MODEL_STREAM_FLAG_HEAD */
	/*
	 * A reference to the stream while bound, under the model's build
	 * lock; NULL once unbound.
	 */
	struct acl_stream *s;
	/*
	 * Under the bound stream's lock until the build ends (@sealed, set
	 * by aclmdlRIBuildEnd under that lock too), then fixed and read
	 * without a lock.  Tasks are templates, as in a captured model.
	 */
	bool sealed;
	struct acl_task **tasks;
	size_t n, cap;
};

struct acl_model {
	int refs;			/* atomic: the table's, each user's, each run's */
	uint32_t id;			/* for the debug prints; unique */
	aclmdlRICaptureMode mode;	/* aclmdlRICaptureBegin's */
	uint32_t begin_tid;		/* the thread that began the capture */
	uint32_t stream_id;		/* the stream it was captured from */

	/* Under the model table's lock (model.c). */
	bool capturing;
	struct acl_model *next_capturing;

	/* The captured tasks, in order: templates of each run's tasks. */
	struct acl_task *head, *tail;
	size_t nr_tasks;

	/* aclmdlRIExecute's stream (a reference), made on first use. */
	pthread_mutex_t exec_lock;
	struct acl_stream *exec;

	/*
	 * Made by aclmdlRIBuildBegin (build.c) rather than captured.  Its
	 * build state is under build_lock; once @build_done is set (release,
	 * under the lock too) nothing of it changes but the bindings' @s.
	 */
	bool built;
	pthread_mutex_t build_lock;
	bool build_done;		/* aclmdlRIBuildEnd */
	bool has_end;			/* aclmdlRIEndTask */
	int32_t head_binding;		/* the HEAD stream's binding, -1 none */
	struct acl_binding **bindings;
	uint32_t nr_bindings;
};

/*
 * A reference to the live model @handle, *err set (and recorded) if
 * there is none.  @ended: refuse one still being captured
 * (ACL_ERROR_RT_MODEL_CAPTURED).
 */
struct acl_model *memreg__acl_model_get(aclmdlRI handle, bool ended,
					aclError *err);
void memreg__acl_model_put(struct acl_model *m);
/* A new model (one reference, the table's), not yet in the table. */
struct acl_model *memreg__acl_model_new(void);
/* Put @m in the table of live models: 0, or -1 (out of memory). */
int memreg__acl_model_publish(struct acl_model *m);
/* Has aclmdlRIBuildEnd finished @m's build? */
bool memreg__acl_model_built(const struct acl_model *m);

/*
 * A task a run of a model runs for its template @t on @s, owning what it
 * holds; NULL if out of memory.  memreg__acl_task_release() gives back
 * what a task that never reached a worker holds, and frees it.
 */
struct acl_task *memreg__acl_task_clone(const struct acl_task *t,
					struct acl_stream *s);
void memreg__acl_task_release(struct acl_task *t);

/* ---- build.c ---- */

/* Add @t to @b; the bound stream's lock held.  ACL_SUCCESS or BAD_ALLOC. */
aclError memreg__acl_binding_append(struct acl_binding *b, struct acl_task *t);
/* aclmdlRIDestroy's part: unbind every stream still bound to @m. */
void memreg__acl_model_unbind_all(struct acl_model *m);

/* ---- label.c ---- */

/*
 * aclmdlRIBuildEnd's part, for the switch @t of a model whose bindings
 * are sealed: where each label of its list was set in @m, in t->priv
 * (memreg__acl_label_targets_alloc() made room for it first, so that
 * nothing fails once the bindings are sealed).
 */
int memreg__acl_label_targets_alloc(struct acl_task *t);
void memreg__acl_label_resolve(const struct acl_model *m, struct acl_task *t);
/*
 * When a run reaches the switch @t: the binding and position it goes
 * to, from the index in device memory now; or the failure.
 */
aclError memreg__acl_label_switch(const struct acl_task *t, uint32_t *binding,
				  size_t *pos);
/* The labels set on @b are set no more, and in no list (@b unbound). */
void memreg__acl_labels_unbind(const struct acl_binding *b);
/* Drop the label or list reference of a label or switch task. */
void memreg__acl_label_task_put(struct acl_task *t);
/* For the debug prints: the handles a label or switch task names. */
void *memreg__acl_label_handle(const struct acl_task *t);

#endif /* MEMREG_ACL_MODEL_H */
