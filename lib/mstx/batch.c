// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Operation buffers and the way to the kernel.
 *
 * There is one buffer per heap (and one for regions in no heap) rather
 * than one per thread: a region is registered and unregistered through
 * its heap's buffer, whichever threads do it, so the kernel sees the two
 * in the order the program made them.  Per-thread buffers would let one
 * thread's unregister overtake another thread's register.
 *
 * A buffer goes to the kernel when it is full, when its heap is
 * unregistered, at exit, and every MSTX_FLUSH_MS from a background thread,
 * so the kernel is never more than about 50 ms behind the program.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/layers.h"
#include "mstx.h"

struct mstx_stats mstx__stats;
struct mstx_buf mstx__orphans;
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

void mstx__buf_init(struct mstx_buf *b)
{
	b->lock = 0;
	b->n = 0;
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

void mstx__buf_flush(struct mstx_buf *b)
{
	if (!b->n)
		return;
	mstx__submit(b->ops, b->n);
	__atomic_store_n(&b->n, 0, __ATOMIC_RELAXED);
}

static void mstx_flush_buf(struct mstx_buf *b)
{
	/* a plain read first: most buffers are empty most of the time */
	if (!__atomic_load_n(&b->n, __ATOMIC_RELAXED))
		return;
	mstx_buf_lock(b);
	mstx__buf_flush(b);
	mstx_buf_unlock(b);
}

void mstx__flush_all(void)
{
	unsigned int i;

	/* orphans first: they may precede a heap that now covers them */
	mstx_flush_buf(&mstx__orphans);
	for (i = 0; i < MSTX_MAX_HEAPS; i++) {
		struct mstx_buf *b = __atomic_load_n(&mstx__heaps[i].buf,
						     __ATOMIC_ACQUIRE);

		if (b)
			mstx_flush_buf(b);
	}
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
