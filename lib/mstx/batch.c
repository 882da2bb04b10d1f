// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Operation rings and the way to the kernel.
 *
 * Each thread puts its operations in a ring of its own, without a lock or
 * an atomic exchange: a region call costs a few loads and stores.  The
 * flusher (whoever flushes, one at a time under a mutex) takes every
 * ring's entries and sends them in one batch.
 *
 * Per-thread rings alone would let one thread's unregister reach the
 * kernel before another thread's register of the same region (an
 * allocator frees on another thread than it allocated on).  So each bucket
 * of addresses has a mask of the rings that held operations on its
 * addresses (mstx.h).  A call that finds other rings' bits in its
 * address's mask reads their tails and records them in its own ring first
 * (MSTX_OP_DEP): whatever the program did before this call on that
 * address, in another thread, has been published up to there (it
 * happened before, so its release store is seen).  The flusher sends a
 * ring's entries only once the rings it depends on have been sent up to
 * the recorded point.  A thread alone in its buckets records nothing.
 *
 * Everything goes to the kernel when a ring is full, when a heap is
 * registered or unregistered, when a thread exits, at exit, and every
 * MSTX_FLUSH_MS (40 ms) from a background thread, so the kernel is
 * about 40 ms behind the program at most: the sleep, plus the flush
 * itself and however late the thread is scheduled.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/layers.h"
#include "mstx.h"

struct mstx_stats mstx__stats;
struct mstx_ring *mstx__rings[MSTX_MAX_RINGS];
uint64_t mstx__buckets[MSTX_BUCKETS];
struct mstx_ring *mstx__ring_by_tp[MSTX_TP_SLOTS];
bool mstx__add_del;

static struct memreg_ctx *mstx_ctx;
static pthread_once_t mstx_connect_once = PTHREAD_ONCE_INIT;
static int mstx_connect_err;

static void mstx_stat_add(uint64_t *counter, uint64_t n)
{
	__atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

/*
 * Does the module know REGION_ADD_DEL?  Our file has no heap yet, so one
 * that knows it says ENOENT for heap 1; an older module says EINVAL for
 * the unknown operation.  Either way nothing is recorded.
 */
static void mstx_probe_add_del(void)
{
	struct memreg_mstx_op op = {
		.op = MEMREG_MSTX_REGION_ADD_DEL, .heap = 1,
	};
	struct memreg_mstx m = {
		.size = sizeof(m), .ops = (uintptr_t)&op, .count = 1,
		.op_size = sizeof(op),
	};

	mstx__add_del = memreg__mstx_batch(mstx_ctx, &m) && errno == ENOENT;
}

static void mstx_do_connect(void)
{
	struct memreg_lib_info info;

	mstx_connect_err = memreg_open(&mstx_ctx);
	if (mstx_connect_err)
		return;
	/* a module without heap tracking: run as if no tool were there */
	if (memreg_info(mstx_ctx, &info) ||
	    !(info.features & MEMREG_FEATURE_MSTX)) {
		memreg_close(mstx_ctx);
		mstx_ctx = NULL;
		mstx_connect_err = -MEMREG_E_ABI;
		return;
	}
	mstx_probe_add_del();
}

/* Open our own /dev/memreg, once; 0 or a negative memreg_err. */
int mstx__connect(void)
{
	pthread_once(&mstx_connect_once, mstx_do_connect);
	return mstx_connect_err;
}

/* Rings are made and handed out under this; never freed, only reused. */
static pthread_mutex_t mstx_rings_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t mstx_ring_key;
static bool mstx_ring_key_ok;
static pthread_once_t mstx_ring_key_once = PTHREAD_ONCE_INIT;

/* A thread's exit: its operations go to the kernel, its ring to the next. */
static void mstx_ring_exit(void *arg)
{
	struct mstx_ring *r = arg;

	if (r->shared)
		return;
	if (__atomic_load_n(&r->tail, __ATOMIC_RELAXED) !=
	    __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) && !mstx__disabled)
		mstx__flush_all();
	pthread_mutex_lock(&mstx_rings_lock);
	/* the next thread at this thread pointer is another one */
	__atomic_store_n(&r->owner, 0, __ATOMIC_RELAXED);
	r->free = true;
	pthread_mutex_unlock(&mstx_rings_lock);
}

static void mstx_ring_key_make(void)
{
	mstx_ring_key_ok = !pthread_key_create(&mstx_ring_key, mstx_ring_exit);
}

static struct mstx_ring *mstx_ring_alloc(unsigned int i)
{
	struct mstx_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->id = i;
	r->bit = 1ULL << i;
	r->shared = i == MSTX_SHARED_RING;
	/* the flusher and other threads' deps read it without the lock */
	__atomic_store_n(&mstx__rings[i], r, __ATOMIC_RELEASE);
	return r;
}

/*
 * The calling thread's ring: the one its key holds, or a free one, or
 * the shared one when 63 other threads hold one each (or when the memory
 * for a new one is lacking).  A reused ring keeps its counts: deps on it
 * stay meaningful.
 */
struct mstx_ring *mstx__ring_get(void)
{
	struct mstx_ring *r = NULL;
	uintptr_t tp = mstx__tp();
	unsigned int i;

	pthread_once(&mstx_ring_key_once, mstx_ring_key_make);
	if (mstx_ring_key_ok)
		r = pthread_getspecific(mstx_ring_key);
	if (r)
		goto found;
	pthread_mutex_lock(&mstx_rings_lock);
	for (i = 0; i < MSTX_SHARED_RING && !r && mstx_ring_key_ok; i++) {
		r = mstx__rings[i];
		if (!r)
			r = mstx_ring_alloc(i);
		else if (r->free)
			r->free = false;
		else
			r = NULL;
	}
	if (r && pthread_setspecific(mstx_ring_key, r)) {
		/* no way to learn of the thread's exit: share instead */
		r->free = true;
		r = NULL;
	}
	if (r) {
		__atomic_store_n(&r->owner, tp, __ATOMIC_RELAXED);
	} else {
		r = mstx__rings[MSTX_SHARED_RING];
		if (!r)
			r = mstx_ring_alloc(MSTX_SHARED_RING);
		/* its threads find it by their key, every call */
		if (r && mstx_ring_key_ok)
			pthread_setspecific(mstx_ring_key, r);
	}
	pthread_mutex_unlock(&mstx_rings_lock);
found:
	if (r && !r->shared)
		__atomic_store_n(&mstx__ring_by_tp[mstx__tp_slot(tp)], r,
				 __ATOMIC_RELAXED);
	/* NULL only if even the shared ring could not be made */
	return r;
}

/*
 * @others: the bits of other rings in the mask of the address the caller
 * is about to put an operation on.  Whatever those rings hold now may have
 * happened before this call: record their tails, so that this ring's
 * next entry goes after them.  A tail recorded before, or already sent,
 * needs no new entry.
 */
void mstx__ring_deps(struct mstx_ring *r, uint64_t others)
{
	struct mstx_ring *o;
	unsigned int i;
	uint64_t t;

	while (others) {
		i = (unsigned int)__builtin_ctzll(others);
		others &= others - 1;
		o = __atomic_load_n(&mstx__rings[i], __ATOMIC_ACQUIRE);
		if (!o || o == r)
			continue;
		t = __atomic_load_n(&o->tail, __ATOMIC_ACQUIRE);
		if (t <= r->dep_seen[i] ||
		    t <= __atomic_load_n(&o->head, __ATOMIC_ACQUIRE))
			continue;
		r->dep_seen[i] = t;
		mstx__ring_put(r, MSTX_OP_DEP, 0, i, t, 0);
	}
}

int mstx__submit(struct memreg_mstx_op *ops, uint32_t n)
{
	struct memreg_mstx m;
	uint32_t off = 0;
	int first = 0;

	if (!mstx_ctx || mstx__disabled) {
		mstx_stat_add(&mstx__stats.dropped, n);
		return -1;
	}
	/*
	 * The kernel stops at an operation it cannot apply (a limit, a heap
	 * it refused): count it, skip it, send the rest.
	 */
	while (off < n) {
		memset(&m, 0, sizeof(m));
		m.size = sizeof(m);
		m.ops = (uintptr_t)(ops + off);
		m.count = n - off;
		m.op_size = sizeof(*ops);
		mstx_stat_add(&mstx__stats.flushes, 1);
		if (!memreg__mstx_batch(mstx_ctx, &m)) {
			mstx_stat_add(&mstx__stats.submitted, n - off);
			return first;
		}
		if (errno == EINTR && m.done == 0)
			continue;
		if (m.done > n - off || errno == ENOTTY || errno == EPERM) {
			/* not a module that knows mstx, or not our file */
			mstx_stat_add(&mstx__stats.dropped, n - off);
			return -1;
		}
		if (off == 0 && m.done == 0)
			first = -errno;
		mstx_stat_add(&mstx__stats.submitted, m.done);
		mstx_stat_add(&mstx__stats.refused, 1);
		off += m.done + 1;
	}
	return first;
}

/*
 * The flush.  Rings whose entries wait for another ring's (MSTX_OP_DEP)
 * stop there until that ring has been sent far enough; the dep was read
 * from a tail already published, so a new look at the tails always lets
 * the flush go on.  It ends when every ring is sent up to where it was
 * when the flush began.
 */
static pthread_mutex_t mstx_flush_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct memreg_mstx_op mstx_stage[MEMREG_MSTX_BATCH_MAX];
static uint32_t mstx_stage_n;
static unsigned int mstx_gen;

void mstx__flush_lock(void)
{
	pthread_mutex_lock(&mstx_flush_mutex);
}

void mstx__flush_unlock(void)
{
	pthread_mutex_unlock(&mstx_flush_mutex);
}

static void mstx_stage_submit(void)
{
	if (mstx_stage_n)
		mstx__submit(mstx_stage, mstx_stage_n);
	mstx_stage_n = 0;
}

/* Ring @i as this flush sees it (NULL: none yet); first look: snapshot. */
static struct mstx_ring *mstx_flush_ring(unsigned int i)
{
	struct mstx_ring *r = __atomic_load_n(&mstx__rings[i],
					      __ATOMIC_ACQUIRE);

	if (r && r->gen != mstx_gen) {
		r->gen = mstx_gen;
		r->pos = r->head;
		r->snap = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		r->target = r->snap;
	}
	return r;
}

/*
 * Move @r's entries to the stage up to its snapshot or an unmet dep.
 * Only region operations go through the stage: its device, reserved and
 * domain fields stay 0 from the start.
 */
static bool mstx_flush_ring_entries(struct mstx_ring *r)
{
	const struct mstx_entry *e, *next;
	uint64_t pos = r->pos, snap = r->snap;
	struct memreg_mstx_op *o;
	bool moved = false;
	uint16_t code;

	while (pos < snap) {
		e = &r->ops[pos % MSTX_BUF_OPS];
		if (__builtin_expect(e->op == MSTX_OP_DEP, 0)) {
			struct mstx_ring *dr =
				mstx_flush_ring(e->heap % MSTX_MAX_RINGS);

			if (dr && dr != r && dr->pos < e->addr)
				break;
			pos++;
			continue;
		}
		moved = true;
		code = e->op;
		pos++;
		/*
		 * A register followed at once by the unregister of the same
		 * region, both not sent yet: one REGION_ADD_DEL (see
		 * region.c).
		 */
		if (code == MEMREG_MSTX_REGION_ADD &&
		    (e->flags & MSTX_F_FOLDABLE) && pos < snap &&
		    mstx__add_del) {
			next = &r->ops[pos % MSTX_BUF_OPS];
			if (next->op == MEMREG_MSTX_REGION_DEL &&
			    next->addr == e->addr && next->heap == e->heap) {
				code = MEMREG_MSTX_REGION_ADD_DEL;
				pos++;
			}
		}
		o = &mstx_stage[mstx_stage_n++];
		o->op = code;
		o->heap = e->heap;
		o->addr = e->addr;
		o->len = e->len;
		if (mstx_stage_n == MEMREG_MSTX_BATCH_MAX)
			mstx_stage_submit();
	}
	r->pos = pos;
	return moved;
}

int mstx__flush_locked(struct memreg_mstx_op *op)
{
	struct mstx_ring *r;
	bool moved, done;
	unsigned int i;
	int ret = 0;

	mstx_gen++;
	for (;;) {
		moved = false;
		done = true;
		for (i = 0; i < MSTX_MAX_RINGS; i++) {
			r = mstx_flush_ring(i);
			if (!r)
				continue;
			moved |= mstx_flush_ring_entries(r);
			if (r->pos < r->target)
				done = false;
		}
		if (done)
			break;
		if (!moved) {
			/* waiting for entries published after our snapshot */
			for (i = 0; i < MSTX_MAX_RINGS; i++) {
				r = mstx_flush_ring(i);
				if (r)
					r->snap = __atomic_load_n(&r->tail,
							__ATOMIC_ACQUIRE);
			}
		}
	}
	if (op) {
		/* the caller wants to know whether the kernel took it */
		mstx_stage_submit();
		ret = mstx__submit(op, 1);
	}
	mstx_stage_submit();
	/* the entries are in the kernel: their threads may reuse them */
	for (i = 0; i < MSTX_MAX_RINGS; i++) {
		r = __atomic_load_n(&mstx__rings[i], __ATOMIC_ACQUIRE);
		if (r && r->gen == mstx_gen)
			__atomic_store_n(&r->head, r->pos, __ATOMIC_RELEASE);
	}
	return ret;
}

void mstx__flush_all(void)
{
	mstx__flush_lock();
	mstx__flush_locked(NULL);
	mstx__flush_unlock();
}

void mstx__ring_full(struct mstx_ring *r)
{
	(void)r;
	mstx__flush_all();
}

static void *mstx_flusher(void *arg)
{
	struct timespec t = { 0, MSTX_FLUSH_MS * 1000000L };

	(void)arg;
	while (!__atomic_load_n(&mstx__disabled, __ATOMIC_RELAXED)) {
		nanosleep(&t, NULL);
		mstx__flush_all();
	}
	return NULL;
}

static pthread_once_t mstx_flusher_once = PTHREAD_ONCE_INIT;

static void mstx_do_start_flusher(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;

	/* the program's signals are for the program's threads */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		/* without it, buffers still go out when full and at exit */
		pthread_create(&t, &attr, mstx_flusher, NULL);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void mstx__start_flusher(void)
{
	pthread_once(&mstx_flusher_once, mstx_do_start_flusher);
}

/* What is buffered at exit reaches the kernel before the file closes. */
__attribute__((destructor)) static void mstx_flush_at_exit(void)
{
	if (mstx_ctx && !mstx__disabled)
		mstx__flush_all();
}
