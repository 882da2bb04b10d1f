// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers on more than one core.
 *
 * One MEMREG_IOC_TRANSFER copies on the CPU of the thread that makes it.
 * A batch of MEMREG_COPY_SPLIT_MIN bytes or more is cut into spans of
 * about equal bytes (a span may start or end inside a descriptor), and
 * the calling thread and up to copy_threads - 1 helper threads take spans
 * until none is left, each span with TRANSFER calls of its own.
 *
 * The helpers are threads of the caller's process, started on its first
 * large transfer and kept until memreg_close(): what they copy is charged
 * where the caller's own copies are (its cgroup's cpu.stat, its rusage,
 * its scheduling policy and CPU mask, which they inherit), never to an
 * anonymous kernel worker.  They block every signal, so the program's
 * handlers keep running on its own threads.
 *
 * The spans run at once, so a split batch has no order between its
 * descriptors.  The library splits only a batch in which no descriptor
 * writes bytes that another reads or writes (checked below, per address
 * space as the descriptors name it); the rest go through one thread, in
 * order, as before.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

/* Spans a batch is cut into at most; a few per thread balance the load. */
#define SPANS_MAX		(4 * MEMREG_COPY_THREADS_MAX)
/* Below this a span is not worth another thread's wake-up. */
#define SPAN_MIN		(1u << 20)
/* Spans end on this, so that the kernel copies whole pages where it can. */
#define SPAN_ALIGN		(64u << 10)
/* Default helpers: copies stop scaling with threads beyond a few. */
#define COPY_THREADS_DEFAULT	4

struct span {
	size_t first;		/* first descriptor, from byte first_off */
	uint64_t first_off;
	size_t last;		/* last descriptor, up to byte last_end */
	uint64_t last_end;
};

struct span_result {
	int err;		/* 0, or a negative memreg_err */
	int errnum;
	size_t index;		/* the descriptor that failed */
	uint64_t bytes;
};

struct copy_job {
	int fd;
	const struct memreg_xfer_desc *descs;
	size_t nspans;
	unsigned int helpers;	/* at most this many helpers join */
	struct span span[SPANS_MAX];
	struct span_result res[SPANS_MAX];
	atomic_size_t next;	/* the next span to take */
	atomic_bool failed;	/* a span failed: take no more */
};

struct memreg_copy_pool {
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* helpers: a job, or quit */
	pthread_cond_t idle;	/* the caller: every helper left the job */
	struct copy_job *job;
	unsigned long gen;	/* jobs handed out */
	unsigned int inside;	/* helpers in the current job */
	bool quit;
	pid_t pid;		/* the process the helpers live in */
	unsigned int asked;	/* helpers wanted when it started */
	unsigned int nthreads;	/* helpers it has */
	pthread_t tid[MEMREG_COPY_THREADS_MAX];
};

unsigned int memreg__copy_threads_default(void)
{
	const char *env = secure_getenv("MEMREG_COPY_THREADS");
	cpu_set_t set;
	long n;

	if (env && *env) {
		char *end;

		n = strtol(env, &end, 10);
		if (!*end && n >= 1 && n <= MEMREG_COPY_THREADS_MAX)
			return (unsigned int)n;
	}
	/* the CPUs this process may run on, not the machine's */
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	if (n > COPY_THREADS_DEFAULT)
		n = COPY_THREADS_DEFAULT;
	return n > 0 ? (unsigned int)n : 1;
}

int memreg_set_copy_threads(struct memreg_ctx *ctx, unsigned int threads)
{
	if (!ctx || threads > MEMREG_COPY_THREADS_MAX)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	if (!threads)
		threads = memreg__copy_threads_default();
	atomic_store(&ctx->copy_threads, threads);
	return 0;
}

unsigned int memreg_copy_threads(struct memreg_ctx *ctx)
{
	return ctx ? atomic_load(&ctx->copy_threads) : 0;
}

/* ---- what a thread does with one span ---- */

static int span_ioctl(const struct copy_job *j,
		      const struct memreg_xfer_desc *d, size_t n,
		      size_t index, struct span_result *r)
{
	struct memreg_transfer t;

	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	t.descs = (uintptr_t)d;
	t.count = (__u32)n;
	t.desc_size = sizeof(*d);
	if (memreg__ioctl(j->fd, MEMREG_IOC_TRANSFER, &t)) {
		r->err = memreg__fail(MEMREG_OP_TRANSFER);
		r->errnum = errno;
		r->index = index + t.done;
		r->bytes += t.bytes;
		return -1;
	}
	r->bytes += t.bytes;
	return 0;
}

static void copy_span(struct copy_job *j, size_t s)
{
	const struct span *sp = &j->span[s];
	struct span_result *r = &j->res[s];
	size_t i = sp->first;
	uint64_t off = sp->first_off;

	while (i <= sp->last) {
		const struct memreg_xfer_desc *d = &j->descs[i];
		uint64_t end = i == sp->last ? sp->last_end : d->len;
		size_t n;

		if (off || end != d->len) {
			/* a part of one descriptor: a copy of it, cut */
			struct memreg_xfer_desc part = *d;

			part.local_addr += off;
			part.remote_addr += off;
			part.len = end - off;
			if (span_ioctl(j, &part, 1, i, r))
				break;
			i++;
			off = 0;
			continue;
		}
		/* whole descriptors: straight from the caller's array */
		n = 1;
		while (i + n < sp->last && n < MEMREG_XFER_MAX_DESCS)
			n++;
		if (i + n == sp->last && n < MEMREG_XFER_MAX_DESCS &&
		    sp->last_end == j->descs[sp->last].len)
			n++;
		if (span_ioctl(j, d, n, i, r))
			break;
		i += n;
	}
	if (r->err)
		atomic_store(&j->failed, true);
}

/* Take spans until there are none, or one failed. */
static void take_spans(struct copy_job *j)
{
	size_t s;

	while (!atomic_load_explicit(&j->failed, memory_order_relaxed)) {
		s = atomic_fetch_add(&j->next, 1);
		if (s >= j->nspans)
			break;
		copy_span(j, s);
	}
}

static void *helper_main(void *arg)
{
	struct memreg_copy_pool *p = arg;
	unsigned long seen = 0;
	struct copy_job *j;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->quit && p->gen == seen)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->quit)
			break;
		seen = p->gen;
		j = p->job;
		/* a pool started for more threads than this job may use */
		if (!j || p->inside >= j->helpers)
			continue;
		p->inside++;
		pthread_mutex_unlock(&p->lock);

		take_spans(j);

		pthread_mutex_lock(&p->lock);
		if (!--p->inside)
			pthread_cond_signal(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- the pool ---- */

static void pool_stop(struct memreg_copy_pool *p)
{
	unsigned int i;

	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nthreads; i++)
		pthread_join(p->tid[i], NULL);
	pthread_cond_destroy(&p->idle);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* Helpers with every signal blocked: a thread inherits its creator's mask. */
static struct memreg_copy_pool *pool_start(unsigned int helpers)
{
	struct memreg_copy_pool *p;
	sigset_t all, old;

	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->pid = getpid();
	p->asked = helpers;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (p->nthreads < helpers &&
	       !pthread_create(&p->tid[p->nthreads], NULL, helper_main, p))
		p->nthreads++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	if (!p->nthreads) {
		pool_stop(p);
		return NULL;
	}
	return p;
}

/*
 * The context's pool, started for at least @helpers threads (it may have
 * fewer: thread creation failed), or NULL: then the caller copies
 * alone.  Only one transfer uses the pool at a time; another thread's
 * large transfer meanwhile copies on its own thread, which is already a
 * second CPU at work.  Returns with ctx->pool_lock held when not NULL.
 */
static struct memreg_copy_pool *pool_get(struct memreg_ctx *ctx,
					 unsigned int helpers)
{
	struct memreg_copy_pool *p;

	if (pthread_mutex_trylock(&ctx->pool_lock))
		return NULL;
	p = ctx->pool;
	if (p && p->pid != getpid()) {
		/*
		 * A child of fork() has the memory of the parent's pool but
		 * none of its threads: forget it (it cannot be freed safely:
		 * its mutex may have been held by a thread that is not here).
		 * The module refuses the child the parent's context anyway.
		 */
		p = ctx->pool = NULL;
	}
	if (p && p->asked < helpers) {
		pool_stop(p);
		p = ctx->pool = NULL;
	}
	if (!p)
		p = ctx->pool = pool_start(helpers);
	if (!p)
		pthread_mutex_unlock(&ctx->pool_lock);
	return p;
}

void memreg__copy_pool_close(struct memreg_ctx *ctx)
{
	if (ctx->pool && ctx->pool->pid == getpid())
		pool_stop(ctx->pool);
	ctx->pool = NULL;
	pthread_mutex_destroy(&ctx->pool_lock);
}

/* ---- which batches split, and where ---- */

struct extent {
	uint64_t space;		/* 0: the caller's; else the import handle */
	uint64_t start, end;
	bool written;
};

static int extent_cmp(const void *a, const void *b)
{
	const struct extent *x = a, *y = b;

	if (x->space != y->space)
		return x->space < y->space ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/*
 * True if some descriptor writes bytes that another reads or writes, in
 * the address spaces as the descriptors name them: the caller's (local
 * addresses) and each import's.  Two imports of one registration, or a
 * registration of the caller's imported back, alias unseen; a batch that
 * needs order between them must set one copy thread.
 */
static bool batch_overlaps(const struct memreg_xfer_desc *descs, size_t count)
{
	uint64_t end_any = 0, end_written = 0, space = 0;
	uint64_t local_end = 0, remote_end = 0;
	struct extent *e;
	bool overlap = false;
	size_t i;

	/*
	 * The common batch walks both sides upwards, each descriptor after
	 * the one before: then nothing overlaps, and no sort is needed.
	 */
	for (i = 0; i < count; i++) {
		if (descs[i].local_addr < local_end ||
		    descs[i].remote_addr < remote_end)
			break;
		local_end = descs[i].local_addr + descs[i].len;
		remote_end = descs[i].remote_addr + descs[i].len;
	}
	if (i == count)
		return false;
	/* a sort of a batch this large would cost more than a thread gains */
	if (count > MEMREG_XFER_MAX_DESCS)
		return true;

	e = malloc(2 * count * sizeof(*e));
	if (!e)
		return true;	/* cannot tell: keep the order */
	for (i = 0; i < count; i++) {
		bool read = descs[i].op == MEMREG_XFER_READ;

		e[2 * i] = (struct extent){ 0, descs[i].local_addr,
			descs[i].local_addr + descs[i].len, read };
		e[2 * i + 1] = (struct extent){ descs[i].remote_handle,
			descs[i].remote_addr,
			descs[i].remote_addr + descs[i].len, !read };
	}
	qsort(e, 2 * count, sizeof(*e), extent_cmp);
	for (i = 0; i < 2 * count && !overlap; i++) {
		if (!i || e[i].space != space) {
			space = e[i].space;
			end_any = end_written = 0;
		}
		/* sorted by start: an earlier extent overlaps if it ends later */
		if (e[i].start < end_written ||
		    (e[i].written && e[i].start < end_any))
			overlap = true;
		if (e[i].end > end_any)
			end_any = e[i].end;
		if (e[i].written && e[i].end > end_written)
			end_written = e[i].end;
	}
	free(e);
	return overlap;
}

/*
 * The bytes of a batch that may split, or 0: descriptors the kernel would
 * refuse (no bytes, a flag, an unknown op, a range that wraps) go through
 * one thread, which refuses them at their index as before.
 */
static uint64_t batch_bytes(const struct memreg_xfer_desc *descs,
			    size_t count)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < count; i++) {
		const struct memreg_xfer_desc *d = &descs[i];

		if (!d->len || d->flags ||
		    (d->op != MEMREG_XFER_READ && d->op != MEMREG_XFER_WRITE) ||
		    d->local_addr + d->len < d->local_addr ||
		    d->remote_addr + d->len < d->remote_addr ||
		    total + d->len < total)
			return 0;
		total += d->len;
	}
	return total;
}

/* Cut @total bytes into job->nspans spans of @span bytes (the last less). */
static void cut_spans(struct copy_job *j, uint64_t total, uint64_t span)
{
	uint64_t at = 0;	/* bytes before descriptor i */
	size_t i = 0, s;

	for (s = 0; s < j->nspans; s++) {
		uint64_t from = s * span;
		uint64_t to = from + span < total ? from + span : total;

		while (at + j->descs[i].len <= from) {
			at += j->descs[i].len;
			i++;
		}
		j->span[s].first = i;
		j->span[s].first_off = from - at;
		while (at + j->descs[i].len < to) {
			at += j->descs[i].len;
			i++;
		}
		j->span[s].last = i;
		j->span[s].last_end = to - at;
	}
}

/* ---- the transfer ---- */

int memreg__transfer_split(struct memreg_ctx *ctx,
			   const struct memreg_xfer_desc *descs, size_t count,
			   size_t *done, uint64_t *bytes)
{
	unsigned int threads = atomic_load(&ctx->copy_threads);
	struct memreg_copy_pool *p;
	struct copy_job *j;
	uint64_t total, span, moved = 0;
	size_t nspans, s, failed_at = count;
	int err = 0, errnum = 0;

	if (threads < 2)
		return 1;
	total = batch_bytes(descs, count);
	if (total < MEMREG_COPY_SPLIT_MIN)
		return 1;
	/* a few spans per thread, none under SPAN_MIN */
	span = total / (4 * threads);
	if (span < SPAN_MIN)
		span = SPAN_MIN;
	span = (span + SPAN_ALIGN - 1) / SPAN_ALIGN * SPAN_ALIGN;
	nspans = (total + span - 1) / span;
	if (nspans > SPANS_MAX) {
		span = (total + SPANS_MAX - 1) / SPANS_MAX;
		span = (span + SPAN_ALIGN - 1) / SPAN_ALIGN * SPAN_ALIGN;
		nspans = (total + span - 1) / span;
	}
	if (nspans < 2 || batch_overlaps(descs, count))
		return 1;
	if (threads > nspans)
		threads = nspans;

	j = calloc(1, sizeof(*j));
	if (!j)
		return 1;
	p = pool_get(ctx, threads - 1);
	if (!p) {
		free(j);
		return 1;
	}
	j->fd = ctx->fd;
	j->descs = descs;
	j->nspans = nspans;
	j->helpers = threads - 1;
	cut_spans(j, total, span);

	pthread_mutex_lock(&p->lock);
	p->job = j;
	p->gen++;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);

	take_spans(j);

	/* the job is on the caller's heap until no helper is in it */
	pthread_mutex_lock(&p->lock);
	p->job = NULL;
	while (p->inside)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&ctx->pool_lock);

	/* the first descriptor that failed decides, as in one thread */
	for (s = 0; s < nspans; s++) {
		moved += j->res[s].bytes;
		if (j->res[s].err && j->res[s].index < failed_at) {
			failed_at = j->res[s].index;
			err = j->res[s].err;
			errnum = j->res[s].errnum;
		}
	}
	free(j);
	*done = err ? failed_at : count;
	*bytes = moved;
	if (err)
		errno = errnum;
	return err;
}
