// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The buffer pool (option BufferPool, "N:SIZE_MB", 4:8 by default, "0:0"
 * none): what hixl stages memory through that is not registered.  A
 * TransferSync whose local range is not inside a registration of this
 * engine is carried through N registered buffers of SIZE_MB each: a
 * WRITE copies the caller's bytes into the buffers and sends them from
 * there, a READ lands in the buffers and is copied out, round after
 * round, each round filling as many buffers as are free (all of them,
 * when nothing else stages) and moving them in one transfer.  As hixl
 * does, the whole batch goes through the pool then, and its descriptors
 * must all be of one kind (local and remote host or device memory).
 *
 * Unlike hixl, only our own memory is staged: the peer's range must lie
 * in memory it registered before Connect.  hixl's peer copies into
 * memory it never registered on our word; here a peer reaches only what
 * its owner registered.
 *
 * The pool is one registration of the module (host memory, no access for
 * peers, no grant), made on first use and never announced to peers
 * (regs.c: internal), so that an engine that never stages pins nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

#include "adxl_int.h"

/* A piece of a descriptor, in a buffer of a round. */
struct piece {
	size_t desc;		/* index in the caller's descriptors */
	size_t off;		/* offset in it */
	size_t len;
	uintptr_t at;		/* where in the pool */
};

/*
 * Whether every local range of @d is registered: the common case, and on
 * every transfer, so it costs a range check per descriptor while they
 * fall in the registration the previous one did (a KV cache's blocks).
 * Under reg_lock (read).
 */
static bool all_registered(struct adxl_engine *e,
			   const struct adxl_transfer_desc *d, size_t n)
{
	const struct adxl_reg *last = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		uintptr_t a = d[i].local_addr;

		if (last && a - last->addr < last->len &&
		    d[i].len <= last->len - (a - last->addr))
			continue;
		last = adxl__reg_find(e, a, d[i].len);
		if (!last)
			return false;
	}
	return true;
}

/*
 * Whether the batch needs the pool (a local range not registered), and
 * whether it can go through it: the peer's memory registered, one kind.
 * ADXL_SUCCESS or PARAM_INVALID, logged; *@need set.
 */
static adxl_status_t classify(struct adxl_engine *e, struct adxl_peer *p,
			      const struct adxl_transfer_desc *d, size_t n,
			      bool *need)
{
	size_t i, mixed = n, unreg_remote = n;
	uint32_t lt0 = 0, rt0 = 0;

	*need = false;
	pthread_rwlock_rdlock(&e->reg_lock);
	if (all_registered(e, d, n)) {
		pthread_rwlock_unlock(&e->reg_lock);
		return ADXL_SUCCESS;
	}
	for (i = 0; i < n; i++) {
		const struct adxl_reg *l = adxl__reg_find(e, d[i].local_addr,
							  d[i].len);
		const struct adxl_rreg *r = adxl__rreg_find(p,
							    d[i].remote_addr);
		/* hixl: memory not registered is taken for host memory */
		uint32_t lt = l ? l->type : ADXL_MEM_HOST;
		uint32_t rt = r ? r->type : ADXL_MEM_HOST;

		if (!l)
			*need = true;
		if (!r && unreg_remote == n)
			unreg_remote = i;
		if (!i) {
			lt0 = lt;
			rt0 = rt;
		} else if ((lt != lt0 || rt != rt0) && mixed == n) {
			mixed = i;
		}
	}
	pthread_rwlock_unlock(&e->reg_lock);
	if (!*need)
		return ADXL_SUCCESS;
	if (unreg_remote < n) {
		adxl__err("transfer to %s: descriptor %zu: remote 0x%lx is not in memory %s registered before Connect; the buffer pool stages only this engine's memory",
			  p->name, unreg_remote,
			  (unsigned long)d[unreg_remote].remote_addr, p->name);
		return ADXL_PARAM_INVALID;
	}
	if (mixed < n) {
		adxl__err("transfer to %s: descriptor %zu: staged through the buffer pool, every descriptor must move the same kind of memory (host or device, local and remote) as descriptor 0",
			  p->name, mixed);
		return ADXL_PARAM_INVALID;
	}
	return ADXL_SUCCESS;
}

/* The pool's memory, made and registered on first use. */
static adxl_status_t pool_make(struct adxl_engine *e)
{
	size_t len = e->pool_n * e->pool_buf, i;
	adxl_status_t st = ADXL_SUCCESS;
	void *mem;

	pthread_mutex_lock(&e->pool_lock);
	if (e->pool_mem)
		goto out;
	e->pool_free = malloc(e->pool_n * sizeof(*e->pool_free));
	mem = e->pool_free ? mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) :
			     MAP_FAILED;
	if (mem == MAP_FAILED) {
		adxl__err("buffer pool: no memory for %zu buffers of %zu MiB",
			  e->pool_n, e->pool_buf >> 20);
		st = ADXL_RESOURCE_EXHAUSTED;
		goto err;
	}
	st = adxl__regs_add_internal(e, (uintptr_t)mem, len);
	if (st) {
		munmap(mem, len);
		goto err;
	}
	for (i = 0; i < e->pool_n; i++)
		e->pool_free[i] = e->pool_n - 1 - i;
	e->pool_n_free = e->pool_n;
	e->pool_mem = mem;
	adxl__info("%s: buffer pool of %zu buffers of %zu MiB registered",
		   e->name, e->pool_n, e->pool_buf >> 20);
	goto out;
err:
	free(e->pool_free);
	e->pool_free = NULL;
out:
	pthread_mutex_unlock(&e->pool_lock);
	return st;
}

/*
 * Up to @want free buffers into @bufs, waiting for one until @deadline:
 * how many (0: none came free in time).
 */
static size_t take(struct adxl_engine *e, size_t want, int64_t deadline,
		   size_t *bufs)
{
	struct timespec until = {
		.tv_sec = deadline / 1000,
		.tv_nsec = (deadline % 1000) * 1000000,
	};
	size_t k = 0;

	pthread_mutex_lock(&e->pool_lock);
	while (!e->pool_n_free) {
		if (deadline < 0)
			pthread_cond_wait(&e->pool_cond, &e->pool_lock);
		else if (pthread_cond_timedwait(&e->pool_cond, &e->pool_lock,
						&until) == ETIMEDOUT &&
			 !e->pool_n_free)
			break;
	}
	while (k < want && e->pool_n_free)
		bufs[k++] = e->pool_free[--e->pool_n_free];
	pthread_mutex_unlock(&e->pool_lock);
	return k;
}

static void give_back(struct adxl_engine *e, const size_t *bufs, size_t k)
{
	pthread_mutex_lock(&e->pool_lock);
	while (k)
		e->pool_free[e->pool_n_free++] = bufs[--k];
	pthread_cond_broadcast(&e->pool_cond);
	pthread_mutex_unlock(&e->pool_lock);
}

/*
 * One round: the pieces of the descriptors from *@i, *@off on that fill
 * the @k buffers @bufs, moved in one transfer; the cursor moves past them
 * and *@moved counts their bytes.
 */
static adxl_status_t round_trip(struct adxl_engine *e, struct adxl_peer *p,
				enum adxl_transfer_op op,
				const struct adxl_transfer_desc *d, size_t n,
				int64_t deadline, const size_t *bufs, size_t k,
				size_t *i, size_t *off, struct piece *pc,
				struct adxl_transfer_desc *xd, size_t *moved)
{
	size_t np = 0, b, j, first = *i;
	adxl_status_t st;

	for (b = 0; b < k && *i < n; b++) {
		uintptr_t at = (uintptr_t)e->pool_mem + bufs[b] * e->pool_buf;
		size_t room = e->pool_buf;

		while (room && *i < n) {
			size_t len = d[*i].len - *off;

			if (len > room)
				len = room;
			pc[np] = (struct piece){
				.desc = *i, .off = *off, .len = len, .at = at,
			};
			xd[np] = (struct adxl_transfer_desc){
				.local_addr = at,
				.remote_addr = d[*i].remote_addr + *off,
				.len = len,
			};
			np++;
			at += len;
			room -= len;
			*off += len;
			*moved += len;
			if (*off == d[*i].len) {
				++*i;
				*off = 0;
			}
		}
	}
	if (op == ADXL_WRITE)
		for (j = 0; j < np; j++)
			memcpy((void *)pc[j].at,
			       (const void *)(d[pc[j].desc].local_addr +
					      pc[j].off), pc[j].len);
	st = adxl__transfer(e, p, op, xd, np, deadline);
	if (st) {
		adxl__warn("transfer to %s: staged through the buffer pool: the descriptor above counts the pieces of the round of your descriptors %zu to %zu",
			   p->name, first, pc[np - 1].desc);
		return st;
	}
	if (op == ADXL_READ)
		for (j = 0; j < np; j++)
			memcpy((void *)(d[pc[j].desc].local_addr + pc[j].off),
			       (const void *)pc[j].at, pc[j].len);
	return ADXL_SUCCESS;
}

adxl_status_t adxl__pool_transfer(struct adxl_engine *e, struct adxl_peer *p,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *d,
				  size_t n, int64_t deadline, bool *staged)
{
	size_t i = 0, off = 0, total = 0, moved, k, j, rounds = 0, *bufs;
	struct adxl_transfer_desc *xd;
	adxl_status_t st;
	struct piece *pc;
	bool need;

	*staged = false;
	if (!e->pool_n || !n || adxl__peer_dead(p))
		return ADXL_SUCCESS;
	st = classify(e, p, d, n, &need);
	if (st || !need) {
		*staged = st != ADXL_SUCCESS;
		return st;
	}
	*staged = true;
	st = pool_make(e);
	if (st)
		return st;
	for (j = 0; j < n; j++)
		total += d[j].len;
	/* A round has at most a piece per descriptor and buffer boundary. */
	bufs = malloc(e->pool_n * sizeof(*bufs));
	pc = calloc(n + e->pool_n, sizeof(*pc));
	xd = calloc(n + e->pool_n, sizeof(*xd));
	if (!bufs || !pc || !xd) {
		adxl__err("transfer to %s: out of memory", p->name);
		st = ADXL_FAILED;
		goto out;
	}
	adxl__trace("transfer to %s: %zu descriptors, %zu bytes staged through the buffer pool",
		    p->name, n, total);
	while (i < n) {
		size_t want = (total + e->pool_buf - 1) / e->pool_buf;

		if (rounds && deadline >= 0 && adxl__now_ms() >= deadline) {
			adxl__err("transfer to %s: timed out staging through the buffer pool, %zu of %zu descriptors done",
				  p->name, i, n);
			st = ADXL_TIMEOUT;
			break;
		}
		k = take(e, want < e->pool_n ? want : e->pool_n, deadline,
			 bufs);
		if (!k) {
			adxl__err("transfer to %s: no buffer of the pool came free in time",
				  p->name);
			st = ADXL_TIMEOUT;
			break;
		}
		moved = 0;
		st = round_trip(e, p, op, d, n, deadline, bufs, k, &i, &off,
				pc, xd, &moved);
		give_back(e, bufs, k);
		if (st)
			break;
		total -= moved;
		rounds++;
	}
out:
	free(bufs);
	free(pc);
	free(xd);
	return st;
}

void adxl__pool_stop(struct adxl_engine *e)
{
	pthread_mutex_lock(&e->pool_lock);
	if (e->pool_mem)
		munmap(e->pool_mem, e->pool_n * e->pool_buf);
	e->pool_mem = NULL;
	free(e->pool_free);
	e->pool_free = NULL;
	e->pool_n_free = 0;
	pthread_mutex_unlock(&e->pool_lock);
}
