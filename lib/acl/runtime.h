/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of lib/acl shared by its files.  External names carry the
 * "memreg__" prefix: the version script exports only acl*.
 *
 * Locking, outermost first: rt.lock (init state, devices, contexts, the
 * live-stream and event tables, device and host memory tables) -> a
 * stream's lock -> the wait lock (event states, report subscriptions and
 * queue).  rt.lock -> devmem_use.  rt.lock -> the model table's lock
 * (model.c), which nests in no stream's lock: a stream being captured
 * adds its tasks to the model under its own lock alone.  A built model's
 * build lock (model.h) -> a stream's lock -> the label lock (label.c):
 * a bound stream adds its tasks to its binding under its own lock, and a
 * label or switch checks the labels under it too.  The allocator
 * table has a lock of its own that nests in nothing, and no lock is held
 * while a user's allocator, host or exception callback runs.
 */
#ifndef MEMREG_ACL_RUNTIME_H
#define MEMREG_ACL_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <acl/acl_rt.h>
#include <memreg/memreg.h>

#include "ptrmap.h"
#include "task.h"

/* A context: the device it is on and, made on first use, its default stream. */
struct acl_context {
	uint64_t id;		/* unique for the life of the process */
	int32_t device;
	bool is_default;	/* the one aclrtSetDevice made */
	struct acl_stream *default_stream;
};

struct acl_device {
	unsigned int refs;	/* aclrtSetDevice calls not yet reset */
	uint32_t peers;		/* bit n: peer access to device n enabled */
	unsigned int nr_streams;	/* live streams on it, default ones too */
	struct acl_context *default_ctx;
};

struct acl_physmem;

/*
 * One piece of device memory that aclrtMalloc handed out, or another
 * process's that aclrtIpcMemImportByKey mapped (@imported: @mem.addr and
 * @mem.len are the mapping of the dma-buf @fd, @mem.handle means nothing;
 * aclrtIpcMemClose of @token unmaps it, aclrtFree refuses it), or an
 * aclrtMapMem mapping of the physical memory @vmm (@mem.addr and @mem.len
 * the mapping; aclrtUnmapMem takes it out, aclrtFree refuses it).
 */
struct acl_devmem {
	struct memreg_dev_mem mem;
	bool imported;
	int fd;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_physmem *vmm;
};

struct acl_runtime {
	pthread_mutex_t lock;
	unsigned int init_refs;		/* aclInit calls not yet finalized */
	bool was_initialized;		/* for aclFinalize's repeat code */
	char *config;			/* contents of aclInit's file, or NULL */
	size_t config_len;

	struct memreg_ctx *mctx;	/* opened by the first aclrtSetDevice */
	uint32_t nr_devices;
	uint64_t dev_capacity;
	struct acl_device *devices;	/* nr_devices of them */
	uint64_t next_ctx_id;

	struct ptrmap contexts;		/* live contexts: itself -> itself */
	struct ptrmap streams;		/* live streams: itself -> itself */
	struct ptrmap hostmem;		/* aclrtMallocHost address -> struct */
	struct ptrmap events;		/* live events: itself -> itself */

	/*
	 * Read-held by a stream task while it copies to or from device
	 * memory, write-held by aclrtFree while it unmaps: a task either
	 * finds its memory gone or copies before it goes, never into a
	 * hole.  Taken with rt.lock held, or without any lock.
	 */
	pthread_rwlock_t devmem_use;

	/* aclrtMalloc'd memory, sorted by address, for range lookups. */
	struct acl_devmem **devmem;
	size_t nr_devmem, cap_devmem;
};

extern struct acl_runtime memreg__acl_rt;

/* ---- errors.c ---- */

/* The aclError for a negative memreg_err of a device-memory call. */
aclError memreg__acl_error(int memreg_err);

/*
 * Record @err and why (printf-like) as the calling thread's last error;
 * returns @err.  The public call returning it names itself with
 * acl_ret() (every return of an exported acl* function goes through it).
 */
aclError memreg__acl_fail(aclError err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
aclError memreg__acl_ret(const char *func, aclError err);
#define acl_fail(err, ...)	memreg__acl_fail((err), __VA_ARGS__)
#define acl_ret(err)		memreg__acl_ret(__func__, (err))

/*
 * What stream tasks wait for (events, blocking host callbacks) and the
 * host callbacks' queue: one lock and one condition for all of it,
 * broadcast on every change.  Innermost lock.
 */
extern pthread_mutex_t memreg__acl_wait_lock;
extern pthread_cond_t memreg__acl_wait_cv;

/* Absolute CLOCK_MONOTONIC deadline @ms from now (the wait cv's clock). */
void memreg__acl_deadline(struct timespec *ts, int64_t ms);

/* ---- device.c ---- */

/*
 * The calling thread's current context if it is still alive, with
 * rt.lock held; NULL (lock not held) if the thread has none.
 */
struct acl_context *memreg__acl_lock_context(void);
/*
 * Destroy a context's streams and the context; rt.lock held.  @force
 * drops the streams' work that has not started.
 */
void memreg__acl_context_destroy(struct acl_context *ctx, bool force);
/* aclFinalize's part: every context and device; rt.lock held. */
void memreg__acl_devices_release(void);

/* ---- stream.c ---- */

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
/* Has the stream been destroyed by force?  (Waits in tasks give up.) */
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
 * Queue @t (allocated with malloc, a kind's struct; the worker frees it).  While a model
 * is captured from @s, @t goes to the model instead and is kept there as
 * the template of the task each run of the model queues.  Likewise while
 * @s is bound to a model being built; a persistent stream bound to none,
 * or whose model's build ended, refuses it (reason recorded).
 */
aclError memreg__acl_stream_enqueue(struct acl_stream *s, struct acl_task *t);
/* Do @s's tasks go to a model rather than its queue (captured, persistent)? */
bool memreg__acl_stream_keeps_tasks(struct acl_stream *s);

/* ---- event.c ---- */

/* aclFinalize's part: forget every event; rt.lock held. */
void memreg__acl_events_release(void);

/* ---- report.c ---- */

/* The stream ends: its pending reports go, its subscription too. */
void memreg__acl_report_stream_gone(struct acl_stream *s);

/* ---- model.c (and model.h, build.c, label.c) ---- */

struct acl_model;
struct acl_binding;

/* Keep @t in @m, in order; the lock of the stream captured into @m held. */
void memreg__acl_model_add(struct acl_model *m, struct acl_task *t);
/*
 * The stream @m was captured from goes (forced destroy, its context or
 * device reset, aclFinalize): the capture ends and the model with it.
 * rt.lock may be held.
 */
void memreg__acl_model_abandon(struct acl_model *m);
/*
 * May the calling thread make an "unsafe" call (@call: aclrtMemcpy,
 * aclrtMemset) given the captures going on and its capture mode?
 * ACL_SUCCESS, or ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT (recorded).
 */
aclError memreg__acl_capture_mode_check(const char *call);
/* aclFinalize's part: every model goes; rt.lock held, streams gone. */
void memreg__acl_models_release(void);
/*
 * A task queued on the persistent stream @s, its lock held: kept in the
 * model @s is bound to, or refused (recorded) if it is bound to none or
 * its model's build ended (build.c).
 */
aclError memreg__acl_binding_keep(struct acl_stream *s, struct acl_task *t);
/*
 * @s goes (destroyed, its context or device reset, aclFinalize): if it
 * is bound to a model, it is unbound (build.c).  rt.lock may be held.
 */
void memreg__acl_stream_unbind(struct acl_stream *s);
/* aclFinalize's part: every label and list goes (label.c); rt.lock held. */
void memreg__acl_labels_release(void);

/* ---- exception.c ---- */

/* A task of @s failed with @err: tell the program's exception callback. */
void memreg__acl_exception(struct acl_stream *s, struct acl_task *t,
			   aclError err);

/* ---- allocator.c ---- */

struct acl_allocator {
	aclrtAllocatorDesc desc;	/* the user's descriptor, as given */
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

/* The allocator registered on @stream: 0, or -1 if there is none. */
int memreg__acl_allocator_lookup(aclrtStream stream, struct acl_allocator *out);

/* ---- staging.c ---- */

/* Work memory a task holds: an allocator's block, or the pool's buffer. */
struct acl_stage {
	void *block;
	aclrtAllocator obj;
	aclrtAllocatorFreeFunc free_fn;
	void *pool_buf;
	size_t pool_len;
};

/*
 * Work memory of @len bytes for a task on @s, from the allocator
 * registered on it or else the runtime's pool; recorded in @st so that
 * the task gives it back.  Returns the address to use, NULL on failure.
 */
void *memreg__acl_stage_get(struct acl_stream *s, size_t len,
			    struct acl_stage *st);
/* Give back what memreg__acl_stage_get() recorded in @st. */
void memreg__acl_stage_put(struct acl_stage *st);
/* Does @st hold work memory? */
static inline bool memreg__acl_staged(const struct acl_stage *st)
{
	return st->free_fn || st->pool_buf;
}
/* aclFinalize's part: free the pool. */
void memreg__acl_stage_drain(void);

/* ---- memory.c ---- */

/*
 * The device allocation holding [addr, addr + len), or NULL; rt.lock
 * held.
 */
struct acl_devmem *memreg__acl_devmem_find(const void *addr, size_t len);
/* aclFinalize's part: free all device and host memory; rt.lock held. */
void memreg__acl_memory_release(void);
/* Add @m to the table, or take it out; rt.lock held.  0 or -1 (no memory). */
int memreg__acl_devmem_insert(struct acl_devmem *m);
void memreg__acl_devmem_remove(struct acl_devmem *m);
/* Every entry of the table, for a walk; rt.lock held. */
struct acl_devmem **memreg__acl_devmem_all(size_t *n);

/*
 * Is [addr, addr + len) device memory: inside one entry, or across
 * aclrtMapMem mappings that follow each other without a gap (one
 * reserved range mapped piece by piece, as expandable segments do)?
 * rt.lock held.
 */
bool memreg__acl_devmem_covers(const void *addr, size_t len);
/* The same, taking rt.lock. */
bool memreg__acl_is_devmem(const void *addr, size_t len);

/*
 * Why @p (the argument @arg) is not something to free with the call at
 * hand: host memory (@host false) or device memory (@host true) to
 * @freer ("free", "unmap") with the other call, inside an allocation,
 * already freed, or never allocated.  Records it and returns
 * ACL_ERROR_INVALID_PARAM; rt.lock held.
 */
aclError memreg__acl_bad_pointer(const char *arg, const void *p,
				 bool host, const char *freer);
/*
 * Record @err with why [p, p + len) is not device memory where @need (a
 * kind of copy, a call) wants it; takes rt.lock.
 */
void memreg__acl_explain_range(aclError err, const char *arg, const void *p,
			       size_t len, const char *need);
/* @addr was freed by @how (a static string); rt.lock held. */
void memreg__acl_freed_note(const void *addr, const char *how);

/* ---- ipc.c ---- */

/* The aclError (recorded with why) of a failed memreg dma-buf/IPC call. */
aclError memreg__acl_ipc_error(int memreg_err);

/* ---- vmm.c ---- */

/*
 * aclFinalize's part: unmap every aclrtMapMem mapping, free every
 * physical handle, release every reserved range; rt.lock held, before
 * memreg__acl_memory_release().
 */
void memreg__acl_vmm_release(void);

/* ---- hostmem.c ---- */
void memreg__acl_hostmem_release(void);

#endif /* MEMREG_ACL_RUNTIME_H */
