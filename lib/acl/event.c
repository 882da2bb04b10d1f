// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Events.  aclrtRecordEvent, aclrtResetEvent and aclrtStreamWaitEvent
 * queue tasks on the stream, so an event orders work between streams
 * for real: the stream that waits runs nothing after the wait until the
 * recording stream's worker has reached the record.
 *
 * CANN has two kinds, and both are emulated:
 * - aclrtCreateEvent and aclrtCreateEventWithFlag make an event that
 *   behaves as a device's event flag: a record task sets it, a reset task
 *   clears it, and a wait task blocks while it is clear, whenever the
 *   record was queued.  Never recorded or reset, it is "not ready".
 * - aclrtCreateEventExWithFlag makes one that "captures": a wait or an
 *   aclrtSynchronizeEvent waits for the latest record queued before it,
 *   and before any record there is nothing to wait for ("complete").
 *   Such events cannot be reset or have their wait status queried.
 *
 * aclrtSynchronizeEvent on the host waits for the latest record queued
 * before it, for both kinds.  Timestamps (ACL_EVENT_TIME_LINE; always
 * for aclrtCreateEvent) are CLOCK_MONOTONIC when the record task runs.
 *
 * A record dropped by a forced destroy still releases the waits on it
 * (without a timestamp): the streams waiting would otherwise hang for
 * ever on a stream that no longer exists.
 *
 * On a stream being captured into a model (model.c), a record or wait is
 * captured, to be queued each time the model runs, and it takes its
 * record number then (memreg__acl_event_number() is called as a task
 * reaches a queue): a model run twice records twice, and its wait waits
 * for the latest record queued before that run.  ACL_EVENT_RECORD_EXTERNAL
 * and ACL_EVENT_WAIT_EXTERNAL are only for such a stream.  Between a
 * captured record (not EXTERNAL) and the end of its capture the event is
 * "being captured": the host's queries and synchronisation are refused,
 * as in CANN, since the record will only run with the model.
 *
 * IPC events (aclrtCreateEventExWithFlag(ACL_EVENT_IPC)) capture as the
 * others, but their two record numbers (queued, run) live in a page of a
 * file under /dev/shm that every process opening the handle maps, so a
 * record queued and run in one process is what a wait, a query or a
 * synchronisation in another looks at.  A device would keep them in
 * memory that both processes map; a file has a name the handle can carry
 * (a memfd would need its descriptor passed over a socket).  Waiters
 * sleep on a futex word of the page that every record run bumps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <acl/acl.h>

#include "device.h"
#include "errors.h"
#include "event.h"
#include "ptrmap.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"
#include "wait.h"

#define EVENT_FLAGS	(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | \
			 ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY | \
			 ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)

/*
 * The shared page of an IPC event.  The numbers are updated with atomics
 * only: the processes share no lock.
 */
struct ipc_event_shm {
	uint64_t magic;		/* IPC_SHM_MAGIC: a page memreg made */
	uint64_t id;		/* the handle's */
	uint64_t recorded;	/* records queued by any process: the last number */
	uint64_t reached;	/* the highest record number whose task ran */
	uint32_t seq;		/* futex word: bumped after reached moves */
	int32_t creator;	/* pid */
};

#define IPC_SHM_MAGIC		0x6d656d7265674576ULL	/* "memregEv" */
#define IPC_SHM_DIR		"/dev/shm"
#define IPC_HANDLE_VERSION	1U
/* A waiting task looks at its stream's forced destroy this often. */
#define IPC_WAIT_SLICE_MS	10

/* What aclrtIpcEventHandle's 64 bytes hold. */
struct ipc_event_handle {
	char magic[8];		/* "memregEv" */
	uint32_t version;
	int32_t pid;		/* the creator */
	uint64_t id;		/* random: the name cannot be guessed */
};

_Static_assert(sizeof(struct ipc_event_handle) <= ACL_IPC_EVENT_HANDLE_SIZE,
	       "an IPC event handle fits CANN's 64 bytes");

struct acl_event {
	int refs;		/* atomic: the table's, and each task's */
	uint32_t flags;
	bool ex;		/* aclrtCreateEventExWithFlag: capture semantics */

	/* IPC events: the shared page; its file is unlinked by its creator. */
	struct ipc_event_shm *shm;
	bool owner;
	struct ipc_event_handle handle;

	/* Under the wait lock. */
	uint64_t recorded;	/* records queued so far: the last one's number */
	uint64_t reached;	/* the highest record number whose task ran */
	bool set;		/* the flag: a record ran since the last reset */
	bool stamped;		/* stamp is that of the last record run */
	struct timespec stamp;
	uint64_t waits, waits_done;
	unsigned int captures;	/* records in captures not yet ended */
};

/* Also aclrtSetOpWaitTimeout's (misc.c): 0 is none, else seconds. */
uint32_t memreg__acl_op_wait_timeout;

static void event_ref(struct acl_event *e)
{
	__atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
}

/*
 * The refusal of a host query or synchronisation of an event whose
 * record is in a capture still open, else ACL_SUCCESS.
 */
static aclError refuse_captured(struct acl_event *e)
{
	unsigned int n;

	pthread_mutex_lock(&memreg__acl_wait_lock);
	n = e->captures;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	if (!n)
		return ACL_SUCCESS;
	return acl_fail(ACL_ERROR_RT_EVENT_CAPTURED,
			"event %p is recorded in a model still being captured",
			(void *)e);
}

static void event_put(struct acl_event *e)
{
	if (__atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (e->shm)
		munmap(e->shm, sizeof(*e->shm));
	free(e);
}

/* ---- IPC events: the shared page ---- */

static void ipc_name(const struct ipc_event_handle *h, char *buf, size_t len)
{
	snprintf(buf, len, IPC_SHM_DIR "/memreg-acl-event.%d.%016llx",
		 (int)h->pid, (unsigned long long)h->id);
}

/* The creator's name for its page goes; processes that mapped it keep it. */
static void ipc_unlink(struct acl_event *e)
{
	char name[96];

	if (!e->owner)
		return;
	ipc_name(&e->handle, name, sizeof(name));
	unlink(name);
	e->owner = false;
}

/* Make (@create) or map the page @e->handle names; 0 or an aclError. */
static aclError ipc_map(struct acl_event *e, bool create)
{
	struct ipc_event_shm *m;
	char name[96];
	struct stat st;
	int fd;

	ipc_name(&e->handle, name, sizeof(name));
	if (create)
		fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	else
		fd = open(name, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return acl_fail(create ? ACL_ERROR_RT_MEMORY_ALLOCATION :
					 ACL_ERROR_INVALID_PARAM,
				"%s %s: %s", create ? "creating" : "opening",
				name, strerror(errno));
	if (create ? ftruncate(fd, sizeof(*m)) :
		     (fstat(fd, &st) || st.st_size < (off_t)sizeof(*m))) {
		close(fd);
		if (create)
			unlink(name);
		return acl_fail(create ? ACL_ERROR_RT_MEMORY_ALLOCATION :
					 ACL_ERROR_INVALID_PARAM,
				"%s is no IPC event's page", name);
	}
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		if (create)
			unlink(name);
		return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "mmap %s: %s",
				name, strerror(errno));
	}
	if (create) {
		m->id = e->handle.id;
		m->creator = e->handle.pid;
		/* Last: an opener that finds the magic finds the rest too. */
		__atomic_store_n(&m->magic, IPC_SHM_MAGIC, __ATOMIC_RELEASE);
	} else if (__atomic_load_n(&m->magic, __ATOMIC_ACQUIRE) != IPC_SHM_MAGIC ||
		   m->id != e->handle.id) {
		munmap(m, sizeof(*m));
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s is no IPC event's page", name);
	}
	e->shm = m;
	e->owner = create;
	return ACL_SUCCESS;
}

static aclError ipc_create(struct acl_event *e)
{
	uint64_t id;

	if (getrandom(&id, sizeof(id), 0) != sizeof(id)) {
		struct timespec ts;

		/* No entropy yet: unique is enough, O_EXCL says if it is. */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		id = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	}
	memcpy(e->handle.magic, "memregEv", sizeof(e->handle.magic));
	e->handle.version = IPC_HANDLE_VERSION;
	e->handle.pid = (int32_t)getpid();
	e->handle.id = id;
	return ipc_map(e, true);
}

/* Wake every waiter of every process: a record ran. */
static void ipc_wake(struct ipc_event_shm *m)
{
	__atomic_add_fetch(&m->seq, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &m->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Record number @gen (or a later one) has run: move reached up to it. */
static void ipc_reached(struct ipc_event_shm *m, uint64_t gen)
{
	uint64_t cur = __atomic_load_n(&m->reached, __ATOMIC_ACQUIRE);

	while (cur < gen &&
	       !__atomic_compare_exchange_n(&m->reached, &cur, gen, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
	ipc_wake(m);
}

/*
 * Wait until record @gen has run: @timeout_ms < 0 for ever, 0 only
 * looks.  A stream task passes @s and gives up when it is destroyed by
 * force.  ACL_SUCCESS, or ACL_ERROR_RT_EVENT_SYNC_TIMEOUT.
 */
static aclError ipc_wait(struct ipc_event_shm *m, uint64_t gen,
			 int64_t timeout_ms, struct acl_stream *s)
{
	struct timespec now, end, slice;
	int64_t left;
	uint32_t seq;

	if (timeout_ms > 0)
		memreg__acl_deadline(&end, timeout_ms);
	for (;;) {
		/* seq before reached: a record after this look wakes us. */
		seq = __atomic_load_n(&m->seq, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&m->reached, __ATOMIC_ACQUIRE) >= gen)
			return ACL_SUCCESS;
		if (!timeout_ms)
			return ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
		if (s && memreg__acl_stream_forced(s))
			return ACL_SUCCESS;
		left = IPC_WAIT_SLICE_MS;
		if (timeout_ms > 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			left = (int64_t)(end.tv_sec - now.tv_sec) * 1000 +
			       (end.tv_nsec - now.tv_nsec) / 1000000;
			if (left <= 0)
				return ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
			if (left > IPC_WAIT_SLICE_MS)
				left = IPC_WAIT_SLICE_MS;
		} else if (!s) {
			/* The host waits for ever: nothing else to look at. */
			left = 1000;
		}
		slice.tv_sec = left / 1000;
		slice.tv_nsec = (left % 1000) * 1000000L;
		syscall(SYS_futex, &m->seq, FUTEX_WAIT, seq, &slice, NULL, 0);
	}
}

/* A reference to a live event, or NULL. */
static struct acl_event *event_get(aclrtEvent event)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_event *e;

	if (!event) {
		acl_fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
		return NULL;
	}
	pthread_mutex_lock(&rt->lock);
	e = memreg__ptrmap_get(&rt->events, event);
	if (e)
		event_ref(e);
	pthread_mutex_unlock(&rt->lock);
	/* Why, for the caller that refuses it: most do. */
	if (!e)
		acl_fail(ACL_ERROR_INVALID_PARAM,
			 "event %p is unknown or already destroyed", event);
	return e;
}

/* Is @event a live event?  (The EXTERNAL flags check it first, as CANN.) */
static bool event_live(aclrtEvent event)
{
	struct acl_event *e = event_get(event);

	if (e)
		event_put(e);
	return e != NULL;
}

static aclError create_event(aclrtEvent *event, uint32_t flags, bool ex)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_event *e;
	aclError ret;

	if (!event)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
	if (flags & ~EVENT_FLAGS)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flag 0x%x has bits that are no event flag (0x%x)",
				flags, flags & ~EVENT_FLAGS);
	/* As CANN documents: these two cannot be combined with others. */
	if (((flags & ACL_EVENT_EXTERNAL) && flags != ACL_EVENT_EXTERNAL) ||
	    ((flags & ACL_EVENT_IPC) && flags != ACL_EVENT_IPC))
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flag 0x%x: ACL_EVENT_EXTERNAL and ACL_EVENT_IPC take no other flag",
				flags);
	/*
	 * CANN takes IPC only in aclrtCreateEventExWithFlag: the event that
	 * aclrtIpcGetEventHandle accepts is a capturing one.
	 */
	if ((flags & ACL_EVENT_IPC) && !ex)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"ACL_EVENT_IPC: only aclrtCreateEventExWithFlag takes it");
	/* Events belong to a device: a context must be current. */
	if (!memreg__acl_lock_context())
		return ACL_ERROR_RT_CONTEXT_NULL;
	e = calloc(1, sizeof(*e));
	ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (e) {
		e->refs = 1;	/* the table's */
		e->flags = flags;
		e->ex = ex;
		if (flags & ACL_EVENT_IPC) {
			ret = ipc_create(e);
			if (ret) {
				free(e);
				pthread_mutex_unlock(&rt->lock);
				return ret;
			}
			ret = acl_fail(ACL_ERROR_BAD_ALLOC,
				       "out of host memory");
		}
		if (memreg__ptrmap_put(&rt->events, e, e)) {
			ipc_unlink(e);
			event_put(e);
		} else {
			*event = e;
			ret = ACL_SUCCESS;
		}
	}
	pthread_mutex_unlock(&rt->lock);
	return ret;
}

aclError aclrtCreateEvent(aclrtEvent *event)
{
	/* Usable for everything: waits between streams and timing. */
	return acl_ret(create_event(event, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE, false));
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
	return acl_ret(create_event(event, flag, false));
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
	return acl_ret(create_event(event, flag, true));
}

aclError aclrtDestroyEvent(aclrtEvent event)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_event *e;

	if (!event)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event is NULL"));
	pthread_mutex_lock(&rt->lock);
	e = memreg__ptrmap_get(&rt->events, event);
	if (e)
		memreg__ptrmap_del(&rt->events, e);
	pthread_mutex_unlock(&rt->lock);
	if (!e)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event %p is unknown or already destroyed",
					event));
	/*
	 * An IPC event's creator takes its name away: no process can open
	 * it any more, those that have keep their mapping.
	 */
	ipc_unlink(e);
	/* Tasks still queued keep it alive until they have run. */
	event_put(e);
	return acl_ret(ACL_SUCCESS);
}

void memreg__acl_events_release(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_event *e;

	while (memreg__ptrmap_values(&rt->events, (void **)&e, 1)) {
		memreg__ptrmap_del(&rt->events, e);
		ipc_unlink(e);
		event_put(e);
	}
	memreg__ptrmap_clear(&rt->events);
}

/* ---- the tasks: record, wait, reset ---- */

struct event_task {
	struct acl_task task;
	struct acl_event *event;	/* a reference */
	/* Which record (numbered when queued, see event_queued()). */
	uint64_t gen;
	int64_t timeout_ms;	/* a wait's: < 0 none */
	/* Captured with ACL_EVENT_RECORD_EXTERNAL / ACL_EVENT_WAIT_EXTERNAL. */
	bool external;
};
ACL_KIND_BEGINS_WITH_TASK(struct event_task);

static struct event_task *event_task(const struct acl_task *t)
{
	return acl_task_data(t, struct event_task);
}

/*
 * A record or wait takes its record number as it is queued (not
 * captured): a record the next number, a wait the latest record queued
 * so far.  In the order of the queues, not when the task runs: a wait
 * queued after a record waits for it.  A wait with number 0 (a
 * capturing event never recorded) has nothing to wait for.
 */
static void record_queued(struct acl_task *t)
{
	struct event_task *et = event_task(t);
	struct acl_event *e = et->event;

	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (e->shm)
		/* Numbered among the records of every process. */
		et->gen = __atomic_add_fetch(&e->shm->recorded, 1,
					     __ATOMIC_ACQ_REL);
	else
		et->gen = ++e->recorded;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
}

static void wait_queued(struct acl_task *t)
{
	struct event_task *et = event_task(t);
	struct acl_event *e = et->event;

	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (e->shm)
		et->gen = __atomic_load_n(&e->shm->recorded, __ATOMIC_ACQUIRE);
	else
		et->gen = e->recorded;
	e->waits++;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
}

/*
 * A record (not EXTERNAL) kept by a capture: its event is "being
 * captured" until the capture ends, and its host queries are refused.
 */
static void record_captured(struct acl_task *t, int delta)
{
	struct event_task *et = event_task(t);

	if (et->external)
		return;
	pthread_mutex_lock(&memreg__acl_wait_lock);
	et->event->captures += (unsigned int)delta;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
}

/*
 * A record that ran (@ran) or was dropped: either way its waiters go
 * (those of a stream destroyed by force would hang for ever otherwise),
 * but only a record that ran stamps the event.  On an IPC event, the
 * shared number moves.
 */
static void record_reach(struct event_task *et, bool ran)
{
	struct acl_event *e = et->event;

	if (e->shm) {
		ipc_reached(e->shm, et->gen);
	} else {
		pthread_mutex_lock(&memreg__acl_wait_lock);
		if (e->reached < et->gen)
			e->reached = et->gen;
		e->set = true;
		e->stamped = ran;
		if (ran)
			clock_gettime(CLOCK_MONOTONIC, &e->stamp);
		pthread_cond_broadcast(&memreg__acl_wait_cv);
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
	event_put(e);
}

static aclError record_run(struct acl_stream *s, struct acl_task *t)
{
	(void)s;
	record_reach(event_task(t), true);
	return ACL_SUCCESS;
}

static void record_drop(struct acl_stream *s, struct acl_task *t)
{
	(void)s;
	record_reach(event_task(t), false);
}

static aclError reset_run(struct acl_stream *s, struct acl_task *t)
{
	struct acl_event *e = event_task(t)->event;

	(void)s;
	/* An IPC event has no flag: aclrtResetEvent refuses it. */
	if (!e->shm) {
		pthread_mutex_lock(&memreg__acl_wait_lock);
		e->set = false;
		e->stamped = false;
		pthread_cond_broadcast(&memreg__acl_wait_cv);
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
	event_put(e);
	return ACL_SUCCESS;
}

/* Has the wait @et can stop waiting?  Wait lock held. */
static bool wait_done(const struct event_task *et)
{
	const struct acl_event *e = et->event;

	return e->ex ? e->reached >= et->gen : e->set;
}

/*
 * A wait on an IPC event sleeps on the shared page, without the wait
 * lock; the others on the wait lock's condition, until the event is
 * reached, the stream is destroyed by force or the wait times out.
 */
static aclError wait_run(struct acl_stream *s, struct acl_task *t)
{
	struct event_task *et = event_task(t);
	struct acl_event *e = et->event;
	aclError ret = ACL_SUCCESS;
	struct timespec ts;
	int rc = 0;

	if (e->shm) {
		ret = ipc_wait(e->shm, et->gen, et->timeout_ms, s);
		event_put(e);
		return ret;
	}
	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (et->timeout_ms > 0)
		memreg__acl_deadline(&ts, et->timeout_ms);
	while (!wait_done(et) && !memreg__acl_stream_forced(s) &&
	       rc != ETIMEDOUT) {
		if (et->timeout_ms > 0)
			rc = pthread_cond_timedwait(&memreg__acl_wait_cv,
						    &memreg__acl_wait_lock, &ts);
		else
			pthread_cond_wait(&memreg__acl_wait_cv,
					  &memreg__acl_wait_lock);
	}
	/* Given up: the stream goes on, and its next sync says so. */
	if (!wait_done(et) && rc == ETIMEDOUT)
		ret = ACL_ERROR_RT_EVENT_SYNC_TIMEOUT;
	e->waits_done++;
	pthread_cond_broadcast(&memreg__acl_wait_cv);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	event_put(e);
	return ret;
}

/* A dropped wait still counts as done for aclrtQueryEventWaitStatus. */
static void wait_drop(struct acl_stream *s, struct acl_task *t)
{
	struct acl_event *e = event_task(t)->event;

	(void)s;
	if (!e->shm) {
		pthread_mutex_lock(&memreg__acl_wait_lock);
		e->waits_done++;
		pthread_cond_broadcast(&memreg__acl_wait_cv);
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
	event_put(e);
}

static void event_task_release(struct acl_task *t)
{
	event_put(event_task(t)->event);
}

/* A reset dropped changes nothing. */
static void event_task_drop(struct acl_stream *s, struct acl_task *t)
{
	(void)s;
	event_task_release(t);
}

/* A run's own reference, and its own number when it is queued. */
static struct acl_task *event_task_clone(const struct acl_task *t,
					 struct acl_stream *s)
{
	struct event_task *c = malloc(sizeof(*c));

	(void)s;
	if (!c)
		return NULL;
	*c = *event_task(t);
	c->gen = 0;
	event_ref(c->event);
	return &c->task;
}

static void event_task_print(const struct acl_task_printer *p,
			     const struct acl_task *t)
{
	const struct event_task *et = event_task(t);

	memreg__acl_print_ptr(p, "event", et->event);
	memreg__acl_print_bool(p, "external", et->external);
}

static void wait_print(const struct acl_task_printer *p,
		       const struct acl_task *t)
{
	event_task_print(p, t);
	memreg__acl_print_i64(p, "timeout_ms", event_task(t)->timeout_ms);
}

static const struct acl_task_ops record_ops = {
	.name = "EVENT_RECORD",
	.run = record_run,
	.drop = record_drop,
	.release = event_task_release,
	.clone = event_task_clone,
	.queued = record_queued,
	.captured = record_captured,
	.print = event_task_print,
};

static const struct acl_task_ops wait_ops = {
	.name = "EVENT_WAIT",
	.run = wait_run,
	.drop = wait_drop,
	.release = event_task_release,
	.clone = event_task_clone,
	.queued = wait_queued,
	.print = wait_print,
};

static const struct acl_task_ops reset_ops = {
	.name = "EVENT_RESET",
	.run = reset_run,
	.drop = event_task_drop,
	.release = event_task_release,
	.clone = event_task_clone,
	.print = event_task_print,
};

/*
 * May an event task of @ops on @s be queued or captured?  @external: the
 * call had an EXTERNAL flag, which only a stream being captured takes.
 * CANN captures records and waits of the events of
 * aclrtCreateEventExWithFlag, and of ACL_EVENT_EXTERNAL ones; it refuses
 * to capture the others and any reset.
 */
static aclError capture_allows(struct acl_event *e, struct acl_stream *s,
			       const struct acl_task_ops *ops, bool external)
{
	bool capturing = memreg__acl_stream_capturing(s);

	if (external && !capturing)
		return acl_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
				"ACL_EVENT_%s_EXTERNAL: the stream is not being captured",
				ops == &record_ops ? "RECORD" : "WAIT");
	if (!capturing || external)
		return ACL_SUCCESS;
	if (ops == &reset_ops)
		return acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"an event reset cannot be captured into a model");
	if (!e->ex && !(e->flags & ACL_EVENT_EXTERNAL))
		return acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"an event of aclrtCreateEvent(WithFlag) is captured only with ACL_EVENT_EXTERNAL or its EXTERNAL flags");
	return ACL_SUCCESS;
}

/* Queue (or capture) an event task of @ops on @stream. */
static aclError queue_event_task(struct acl_event *e, aclrtStream stream,
				 const struct acl_task_ops *ops,
				 int64_t timeout_ms, bool external)
{
	struct event_task *et;
	struct acl_stream *s;
	aclError ret;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return ret;
	ret = capture_allows(e, s, ops, external);
	if (ret)
		goto out;
	ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	et = calloc(1, sizeof(*et));
	if (!et)
		goto out;
	et->task.ops = ops;
	et->event = e;
	et->timeout_ms = timeout_ms;
	et->external = external;
	event_ref(e);
	/* Numbered in the queue; a task refused there took no number. */
	ret = memreg__acl_stream_enqueue(s, &et->task);
	if (ret)
		memreg__acl_task_release(&et->task);
out:
	memreg__acl_stream_put(s);
	return ret;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_event *e = event_get(event);
	aclError ret;

	if (!e)
		return acl_ret(ACL_ERROR_INVALID_PARAM);
	ret = queue_event_task(e, stream, &record_ops, -1, false);
	event_put(e);
	return acl_ret(ret);
}

/*
 * An EXTERNAL record goes into the model being captured from the stream,
 * and records the event for the streams outside the model each time the
 * model runs.  A stream not being captured: CANN's
 * ACL_ERROR_RT_STREAM_NOT_CAPTURED.
 */
aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream,
				  uint32_t flag)
{
	struct acl_event *e = event_get(event);
	aclError ret;

	if (!e)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event %p is no live event", event));
	if (flag == ACL_EVENT_RECORD_DEFAULT || flag == ACL_EVENT_RECORD_EXTERNAL)
		ret = queue_event_task(e, stream, &record_ops, -1,
				       flag == ACL_EVENT_RECORD_EXTERNAL);
	else
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "flag %u: ACL_EVENT_RECORD_DEFAULT or _EXTERNAL",
			       flag);
	event_put(e);
	return acl_ret(ret);
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
	struct acl_event *e = event_get(event);
	aclError ret = ACL_ERROR_INVALID_PARAM;

	if (!e)
		return acl_ret(ret);
	/* CANN's answer for an IPC event, before the other checks. */
	if (e->shm)
		ret = acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			       "event %p is an IPC event: it cannot be reset",
			       event);
	/* Only flag events made for waits between streams have a flag to clear. */
	else if (!e->ex && (e->flags & ACL_EVENT_SYNC))
		ret = queue_event_task(e, stream, &reset_ops, -1, false);
	else
		ret = acl_fail(ret, e->ex ?
			       "event %p of aclrtCreateEventExWithFlag has no flag to reset" :
			       "event %p was made without ACL_EVENT_SYNC: it has no flag to reset",
			       event);
	event_put(e);
	return acl_ret(ret);
}

static aclError stream_wait(aclrtStream stream, aclrtEvent event,
			    int64_t timeout_ms, bool external)
{
	struct acl_event *e = event_get(event);
	aclError ret = ACL_ERROR_INVALID_PARAM;

	if (!e)
		return ret;
	/*
	 * CANN: an event made without ACL_EVENT_SYNC cannot be waited for;
	 * an IPC event (made with that flag alone) is made to be.
	 */
	if (e->shm || (e->flags & ACL_EVENT_SYNC))
		ret = queue_event_task(e, stream, &wait_ops, timeout_ms,
				       external);
	else
		ret = acl_fail(ret,
			       "event %p was made without ACL_EVENT_SYNC: it cannot be waited for",
			       event);
	event_put(e);
	return ret;
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
	uint32_t secs = __atomic_load_n(&memreg__acl_op_wait_timeout,
					__ATOMIC_RELAXED);

	return acl_ret(stream_wait(stream, event, secs ? (int64_t)secs * 1000 : -1,
				   false));
}

aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event,
					 int32_t timeout)
{
	/* Milliseconds; -1 (or 0, as CANN's "never") waits for ever. */
	if (timeout < -1)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"timeout %d ms: -1 waits for ever, below that means nothing",
					timeout));
	return acl_ret(stream_wait(stream, event, timeout > 0 ? timeout : -1,
				   false));
}

/*
 * DEFAULT is aclrtStreamWaitEventWithTimeout with an unsigned timeout
 * in ms, where 0 waits for ever and UINT32_MAX means "the default",
 * aclrtSetOpWaitTimeout's, as CANN's runtime reads it.  EXTERNAL (only
 * with timeout 0) is for a stream being captured: the model's wait, each
 * time it runs, for the latest record queued outside before that run.
 */
aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event,
				      uint32_t timeout, uint32_t flag)
{
	uint32_t secs;

	if (!event_live(event))
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event %p is no live event", event));
	if (flag == ACL_EVENT_WAIT_EXTERNAL) {
		if (timeout)
			return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
						"timeout %u: ACL_EVENT_WAIT_EXTERNAL takes 0",
						timeout));
		return acl_ret(stream_wait(stream, event, -1, true));
	}
	if (flag != ACL_EVENT_WAIT_DEFAULT)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u: ACL_EVENT_WAIT_DEFAULT or _EXTERNAL",
					flag));
	if (timeout == UINT32_MAX) {
		secs = __atomic_load_n(&memreg__acl_op_wait_timeout,
				       __ATOMIC_RELAXED);
		return acl_ret(stream_wait(stream, event,
					   secs ? (int64_t)secs * 1000 : -1,
					   false));
	}
	return acl_ret(stream_wait(stream, event,
				   timeout ? (int64_t)timeout : -1, false));
}

/* Is the latest record queued done?  Wait lock held. */
static bool recorded_done(const struct acl_event *e)
{
	if (e->shm)
		return __atomic_load_n(&e->shm->reached, __ATOMIC_ACQUIRE) >=
		       __atomic_load_n(&e->shm->recorded, __ATOMIC_ACQUIRE);
	if (e->ex)
		return e->reached >= e->recorded;
	return e->set;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
	struct acl_event *e;
	aclError ret;

	if (!status)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"status is NULL"));
	e = event_get(event);
	if (!e)
		return acl_ret(ACL_ERROR_INVALID_PARAM);
	ret = refuse_captured(e);
	if (!ret) {
		pthread_mutex_lock(&memreg__acl_wait_lock);
		*status = recorded_done(e) ?
			  ACL_EVENT_RECORDED_STATUS_COMPLETE :
			  ACL_EVENT_RECORDED_STATUS_NOT_READY;
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
	event_put(e);
	return acl_ret(ret);
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
	aclrtEventRecordedStatus st;
	struct acl_event *e;
	bool ipc;
	aclError ret;

	if (!status)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"status is NULL"));
	e = event_get(event);
	if (e) {
		ipc = e->shm != NULL;
		event_put(e);
		/* CANN's rtEventQuery refuses IPC events. */
		if (ipc)
			return acl_ret(acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
						"event %p is an IPC event: aclrtQueryEventStatus tells its state",
						event));
	}
	ret = aclrtQueryEventStatus(event, &st);
	if (!ret)
		*status = st == ACL_EVENT_RECORDED_STATUS_COMPLETE ?
			  ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
	return acl_ret(ret);
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
	struct acl_event *e;
	aclError ret = ACL_ERROR_INVALID_PARAM;

	if (!status)
		return acl_ret(acl_fail(ret, "status is NULL"));
	e = event_get(event);
	if (!e)
		return acl_ret(ret);
	if (e->shm) {
		ret = acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
			       "event %p is an IPC event: it has no wait status",
			       event);
	} else if (e->ex) {
		acl_fail(ret,
			 "event %p of aclrtCreateEventExWithFlag has no wait status",
			 event);
	} else {
		ret = refuse_captured(e);
		pthread_mutex_lock(&memreg__acl_wait_lock);
		if (!ret)
			*status = e->waits_done == e->waits ?
				  ACL_EVENT_WAIT_STATUS_COMPLETE :
				  ACL_EVENT_WAIT_STATUS_NOT_READY;
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
	event_put(e);
	return acl_ret(ret);
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
	struct acl_event *e;
	struct timespec ts;
	aclError ret = ACL_SUCCESS;
	uint64_t upto;

	if (timeout < -1)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"timeout %d ms: -1 waits for ever, below that means nothing",
					timeout));
	e = event_get(event);
	if (!e)
		return acl_ret(ACL_ERROR_INVALID_PARAM);
	ret = refuse_captured(e);
	if (ret) {
		event_put(e);
		return acl_ret(ret);
	}
	if (e->shm) {
		/* The latest record queued by any process before this call. */
		upto = __atomic_load_n(&e->shm->recorded, __ATOMIC_ACQUIRE);
		ret = ipc_wait(e->shm, upto, timeout, NULL);
		if (ret == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
			acl_fail(ret, "event %p was not reached within %d ms",
				 event, timeout);
		event_put(e);
		return acl_ret(ret);
	}
	if (timeout > 0)
		memreg__acl_deadline(&ts, timeout);
	pthread_mutex_lock(&memreg__acl_wait_lock);
	/* The latest record queued before this call; none: nothing to wait for. */
	upto = e->recorded;
	while (e->reached < upto && timeout) {
		if (timeout < 0)
			pthread_cond_wait(&memreg__acl_wait_cv, &memreg__acl_wait_lock);
		else if (pthread_cond_timedwait(&memreg__acl_wait_cv,
						&memreg__acl_wait_lock, &ts) == ETIMEDOUT)
			break;
	}
	if (e->reached < upto)
		ret = acl_fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
			       "event %p was not reached within %d ms",
			       event, timeout);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	event_put(e);
	return acl_ret(ret);
}

aclError aclrtSynchronizeEvent(aclrtEvent event)
{
	return acl_ret(aclrtSynchronizeEventWithTimeout(event, -1));
}

/* The stamp of the last record run, in ns; rt error code if there is none. */
static aclError event_stamp(struct acl_event *e, const char *arg,
			    uint64_t *ns)
{
	aclError ret = ACL_SUCCESS;

	/* CANN keeps no timestamps for IPC events. */
	if (e->shm)
		return acl_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
				"%s %p is an IPC event: it has no timestamp",
				arg, (void *)e);
	if (!(e->flags & ACL_EVENT_TIME_LINE))
		return acl_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
				"%s %p was made without ACL_EVENT_TIME_LINE",
				arg, (void *)e);
	ret = refuse_captured(e);
	if (ret)
		return ret;
	pthread_mutex_lock(&memreg__acl_wait_lock);
	if (!recorded_done(e))
		ret = acl_fail(ACL_ERROR_RT_EVENT_NOT_COMPLETE,
			       "%s %p has not been reached: never recorded, or its last record has not run yet",
			       arg, (void *)e);
	else if (!e->stamped)
		ret = acl_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
			       "%s %p has no timestamp: never recorded, or reset since",
			       arg, (void *)e);
	else
		*ns = (uint64_t)e->stamp.tv_sec * 1000000000ULL +
		      (uint64_t)e->stamp.tv_nsec;
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	return ret;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
	struct acl_event *a, *b;
	uint64_t ta = 0, tb = 0;
	aclError ret;

	if (!ms)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "ms is NULL"));
	a = event_get(startEvent);
	b = event_get(endEvent);
	ret = ACL_ERROR_INVALID_PARAM;
	if (!a || !b) {
		acl_fail(ret, "%s %p is unknown or already destroyed",
			 a ? "endEvent" : "startEvent", a ? endEvent : startEvent);
		goto out;
	}
	ret = event_stamp(a, "startEvent", &ta);
	if (!ret)
		ret = event_stamp(b, "endEvent", &tb);
	if (!ret && tb < ta)
		ret = acl_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL,
			       "endEvent was recorded before startEvent");
	if (!ret)
		*ms = (float)((double)(tb - ta) / 1e6);
out:
	if (a)
		event_put(a);
	if (b)
		event_put(b);
	return acl_ret(ret);
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
	struct acl_event *e;
	aclError ret;

	if (!timestamp)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"timestamp is NULL"));
	e = event_get(event);
	if (!e)
		return acl_ret(ACL_ERROR_INVALID_PARAM);
	/* Nanoseconds of CLOCK_MONOTONIC, where CANN gives its system counter. */
	ret = event_stamp(e, "event", timestamp);
	event_put(e);
	return acl_ret(ret);
}

aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
	struct acl_event *e;

	if (!handle || !event)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					handle ? "event" : "handle"));
	e = event_get(event);
	if (!e)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event %p is no live event", event));
	if (!e->shm) {
		event_put(e);
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"only events of aclrtCreateEventExWithFlag(ACL_EVENT_IPC) have a handle"));
	}
	memset(handle, 0, sizeof(*handle));
	memcpy(handle->reserved, &e->handle, sizeof(e->handle));
	event_put(e);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct ipc_event_handle h;
	struct acl_event *e;
	aclError ret;

	if (!event)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"event is NULL"));
	memcpy(&h, handle.reserved, sizeof(h));
	if (memcmp(h.magic, "memregEv", sizeof(h.magic)) ||
	    h.version != IPC_HANDLE_VERSION || h.pid <= 0)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"the handle is none of aclrtIpcGetEventHandle"));
	/* As CANN: the event belongs to the current context's device. */
	if (!memreg__acl_lock_context())
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	e = calloc(1, sizeof(*e));
	if (!e) {
		pthread_mutex_unlock(&rt->lock);
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	}
	e->refs = 1;
	e->flags = ACL_EVENT_IPC;
	e->ex = true;
	e->handle = h;
	ret = ipc_map(e, false);
	if (!ret && memreg__ptrmap_put(&rt->events, e, e))
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	if (ret)
		event_put(e);
	else
		*event = e;
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}
