/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Streams (stream.c): each a worker thread running its tasks (task.h) in
 * the order they were queued, or handing them to the model it is
 * captured into or bound to.
 */
#ifndef MEMREG_ACL_STREAM_H
#define MEMREG_ACL_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_rt.h>

struct acl_context;
struct acl_task;
struct acl_model;
struct acl_binding;

/*
 * The streams a device can have (CANN's most for Atlas A2, the SoC
 * aclrtGetSocName names, default streams included), and CANN's
 * priorities: 0 the highest, 7 the lowest, 0 for aclrtCreateStream.
 */
#define ACL_EMU_MAX_STREAMS		1984U
#define ACL_EMU_GREATEST_PRIORITY	0
#define ACL_EMU_LEAST_PRIORITY		7
#define ACL_EMU_DEFAULT_PRIORITY	0U

/*
 * A stream: a worker thread that runs its tasks in FIFO order.  The table
 * of live streams holds one reference, every caller using it another.
 */
struct acl_stream {
	struct acl_context *ctx;
	pthread_t worker;
	int refs;			/* atomic */

	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t work_cv;		/* worker: a task came, or stop */
	pthread_cond_t done_cv;		/* waiters: a task finished */
	struct acl_task *head, *tail;
	uint64_t queued, done;		/* tasks so far; done <= queued */
	aclError error;			/* first failure since the last sync */
	bool stopping;
	bool force;			/* atomic: drop tasks, end waits */
	/*
	 * aclrtStreamAbort: the tasks numbered up to @abort_upto that have
	 * not started are dropped; while @aborts (atomic, the calls under
	 * way) is not 0, waits in tasks give up as for @force.
	 */
	uint64_t abort_upto;
	int aborts;
	uint64_t failure_mode;		/* ACL_{CONTINUE,STOP}_ON_FAILURE */
	uint32_t id;			/* for exception info */
	uint32_t overflow_switch;	/* aclrtSetStreamOverflowSwitch's flag */
	uint32_t priority;		/* as made: 0 (highest) to 7 */
	uint32_t flags;			/* as made: ACL_STREAM_* */
	int32_t device;			/* its context's, which may go first */

	/* Under the wait lock: the thread that runs its host callbacks. */
	bool subscribed;
	uint64_t report_tid;

	/* The work memory taken last, for allocAdvise (staging.c). */
	aclrtAllocator stage_obj;
	void *stage_addr;

	/*
	 * Under lock: the model its tasks go to instead of the queue while
	 * aclmdlRICaptureBegin..End (model.c), else NULL.
	 */
	struct acl_model *capture;
	/*
	 * Under lock: the binding of the model being built that its tasks
	 * go to between aclmdlRIBindStream and aclmdlRIUnbindStream
	 * (build.c), else NULL.  Only an ACL_STREAM_PERSISTENT stream is
	 * ever bound, and one that is not queues nothing.
	 */
	struct acl_binding *bound;
};

/*
 * A stream's reference for @stream, the default stream of the current
 * context for NULL; NULL with *err set if there is none.
 */
struct acl_stream *memreg__acl_stream_get(aclrtStream stream, aclError *err);
void memreg__acl_stream_put(struct acl_stream *s);
/* Make a stream of @ctx; rt.lock held. */
struct acl_stream *memreg__acl_stream_new(struct acl_context *ctx,
					  aclError *err);
/*
 * Take the stream out of the tables and stop its worker after the work
 * queued (@force: after the task running, dropping the others); rt.lock
 * held, dropped while waiting for the worker.
 */
void memreg__acl_stream_destroy(struct acl_stream *s, bool force);
/*
 * Has the stream been destroyed by force, or is it being aborted?
 * (Waits in tasks give up.)
 */
bool memreg__acl_stream_forced(struct acl_stream *s);
/* Is a model being captured from the stream? */
bool memreg__acl_stream_capturing(struct acl_stream *s);
aclError memreg__acl_stream_sync(struct acl_stream *s);
/* The same, for @timeout ms (-1: for ever, 0: only look). */
aclError memreg__acl_stream_sync_timeout(struct acl_stream *s, int32_t timeout);
/*
 * References to the live streams of @ctx (any if NULL) on @device (any
 * if < 0), in a malloc'd array (*n of them; NULL if none or out of
 * memory); rt.lock held.  Put each and free the array.
 */
struct acl_stream **memreg__acl_streams_ref(struct acl_context *ctx,
					    int32_t device, size_t *n);
/* The handle programs see. */
aclrtStream memreg__acl_stream_handle(struct acl_stream *s);

/*
 * Queue @t (allocated with malloc, a kind's struct; the worker frees
 * it).  While a model is captured from @s, @t goes to the model instead
 * and is kept there as the template of the task each run of the model
 * queues.  Likewise while @s is bound to a model being built; a
 * persistent stream bound to none, or whose model's build ended,
 * refuses it (reason recorded).
 */
aclError memreg__acl_stream_enqueue(struct acl_stream *s, struct acl_task *t);
/* Do @s's tasks go to a model rather than its queue (captured, persistent)? */
bool memreg__acl_stream_keeps_tasks(struct acl_stream *s);

#endif /* MEMREG_ACL_STREAM_H */
