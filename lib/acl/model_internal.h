/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Model runtime instances (aclmdlRI) inside: what model.c (the table,
 * capture, running, destroying, printing), build.c (building from bound
 * persistent streams, and the run of a built model) and label.c (labels
 * and switches in a model being built) share, and no other file needs.
 */
#ifndef MEMREG_ACL_MODEL_INTERNAL_H
#define MEMREG_ACL_MODEL_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_rt.h>

struct acl_stream;
struct acl_task;

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
	int32_t end_binding;		/* aclmdlRIEndTask's binding, -1 none */
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

/* ---- build.c ---- */

/* Add @t to @b; the bound stream's lock held.  ACL_SUCCESS or BAD_ALLOC. */
aclError memreg__acl_binding_append(struct acl_binding *b, struct acl_task *t);
/* aclmdlRIDestroy's part: unbind every stream still bound to @m. */
void memreg__acl_model_unbind_all(struct acl_model *m);
/*
 * Queue a run of the built model @m on @s: one task that runs the
 * model's streams, following its labels.  ACL_SUCCESS or the refusal.
 */
aclError memreg__acl_built_run(struct acl_model *m, struct acl_stream *s);

#endif /* MEMREG_ACL_MODEL_INTERNAL_H */
