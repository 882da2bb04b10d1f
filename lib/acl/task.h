/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stream tasks: the work a stream's worker runs in order (stream.c), and
 * the templates a captured or built model keeps (model.c, build.c).
 *
 * A task's kind is its ops: one row of functions, defined by the file
 * of that kind (memcpy.c, event.c, report.c, value.c, builtin.c,
 * build.c, label.c) with the code that makes such tasks.  The data of a
 * kind is that file's own struct, which begins with its struct acl_task,
 * so that the code that only queues, runs and frees tasks never looks
 * inside them, and free(t) frees the whole.  The worker and the models
 * call through the ops and never ask which kind a task is.
 */
#ifndef MEMREG_ACL_TASK_H
#define MEMREG_ACL_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_base.h>

struct acl_stream;
struct acl_model;
struct acl_binding;
struct acl_task;
struct acl_task_printer;

/*
 * Where a built model's run is (build.c): the binding (a stream of the
 * model) and the position of the next task on it; @end once it reached
 * the model's end.
 */
struct acl_model_pc {
	uint32_t binding;
	size_t pos;
	bool end;
};

/*
 * What each kind of task does.  Only @name is always set; a NULL hook
 * means the kind has nothing to do there.
 */
struct acl_task_ops {
	/* The type aclmdlRIDebugPrint and aclmdlRIDebugJsonPrint show. */
	const char *name;
	/*
	 * Run @t on @s's worker, giving back what it holds; ACL_SUCCESS or
	 * the failure, which becomes the stream's error.  NULL: a kind
	 * only a built model keeps and steers by (@steer), never queued.
	 */
	aclError (*run)(struct acl_stream *s, struct acl_task *t);
	/*
	 * @s was destroyed by force before @t started: give back what it
	 * holds without running it (a record still lets its waiters go).
	 */
	void (*drop)(struct acl_stream *s, struct acl_task *t);
	/* Give back what @t holds; it never reached a worker. */
	void (*release)(struct acl_task *t);
	/*
	 * A task of its own for each run of the model that keeps the
	 * template @t, to run on @s (its own references, work memory and
	 * data); NULL if out of memory.  NULL hook: never run that way.
	 */
	struct acl_task *(*clone)(const struct acl_task *t,
				  struct acl_stream *s);
	/*
	 * @t takes its place in a queue: its stream's, or, in a built
	 * model's run, the run reaching it.  Called in queue order, with
	 * the stream's lock held (a record or wait takes its number).
	 */
	void (*queued)(struct acl_task *t);
	/*
	 * @t was kept in a model being captured (@delta 1), or that capture
	 * ended (-1).
	 */
	void (*captured)(struct acl_task *t, int delta);
	/* Its parameters, for the debug prints (task_print.h). */
	void (*print)(const struct acl_task_printer *p,
		      const struct acl_task *t);
	/*
	 * In a built model's run, a task that moves the run rather than
	 * runs: sets where it goes on in @pc, or fails the run there.
	 */
	aclError (*steer)(const struct acl_task *t, struct acl_model_pc *pc);
	/*
	 * aclmdlRIBuildEnd, once the model's streams are sealed: first
	 * @seal_prepare for every task (the step that may fail: 0 or -1),
	 * then @seal, which cannot fail, with the sealed model @m.
	 */
	int (*seal_prepare)(struct acl_task *t);
	void (*seal)(const struct acl_model *m, struct acl_task *t);
	/* The stream that gave @t to the binding @b is unbound from it. */
	void (*unbound)(struct acl_task *t, const struct acl_binding *b);
	/*
	 * Its run calls the exception callback for each task that fails in
	 * it (a model's run), so the worker does not for the run itself.
	 */
	bool tells_exceptions;
};

struct acl_task {
	struct acl_task *next;
	const struct acl_task_ops *ops;
	uint64_t seq;		/* its number in the stream, from 1: the task id */
	uint32_t tid;		/* the thread that queued it */
};

/* The struct of kind @type (whose first member is @task) that @t is. */
#define acl_task_data(t, type)						\
	((type *)((char *)(t) - offsetof(type, task)))
/* After a kind's struct: free(t) must free all of it. */
#define ACL_KIND_BEGINS_WITH_TASK(type)						\
	_Static_assert(offsetof(type, task) == 0,			\
		       #type " begins with its struct acl_task")

/*
 * Run @t on @s, or give back what it holds without running it (@drop);
 * ACL_SUCCESS or the failure.  The caller frees @t afterwards.
 */
aclError memreg__acl_task_run(struct acl_stream *s, struct acl_task *t,
			      bool drop);
/* Give back what @t holds (it never reached a worker), and free it. */
void memreg__acl_task_release(struct acl_task *t);
/* A run's own task for the template @t on @s; NULL if out of memory. */
struct acl_task *memreg__acl_task_clone(const struct acl_task *t,
					struct acl_stream *s);
/* @t takes its place in a queue: see acl_task_ops.queued. */
void memreg__acl_task_queued(struct acl_task *t);
/* @t was kept by a capture (@delta 1), or its capture ended (-1). */
void memreg__acl_task_captured(struct acl_task *t, int delta);

#endif /* MEMREG_ACL_TASK_H */
