// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The registration table: RegisterMem, DeregisterMem, and the snapshot a
 * hello carries.
 *
 * Every registration goes through the memreg module with remote read and
 * write access and is granted at once, so the module enforces the
 * per-process limits (and `memreg` shows the registrations), and each
 * peer that connects later receives the token with the range.  The table
 * is sorted by address: transfers look up thousands of descriptors per
 * call by binary search.  Overlap rules are the HIXL ones (the stricter
 * of the reference's paths): the identical range again returns the same
 * handle, counted; another overlap with a range of the same type is
 * PARAM_INVALID.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adxl_int.h"

/* Index of the first registration whose addr is > @addr. */
static size_t upper_bound(const struct adxl_engine *e, uintptr_t addr)
{
	size_t lo = 0, hi = e->n_regs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->regs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct adxl_reg *adxl__reg_find(const struct adxl_engine *e,
				      uintptr_t addr, size_t len)
{
	size_t i = upper_bound(e, addr);

	/*
	 * Ranges of different types may overlap, so look back over every
	 * registration that starts at or before @addr until one holds it;
	 * with no overlaps that is the first one tried.
	 */
	while (i-- > 0) {
		const struct adxl_reg *r = &e->regs[i];

		if (addr - r->addr < r->len && len <= r->len - (addr - r->addr))
			return r;
	}
	return NULL;
}

static adxl_status_t status_of(int err)
{
	switch (-err) {
	case MEMREG_E_LIMIT_REGIONS:
	case MEMREG_E_LIMIT_HOST:
	case MEMREG_E_LIMIT_DEVICE:
	case MEMREG_E_MEMLOCK:
	case MEMREG_E_NOMEM:
		return ADXL_RESOURCE_EXHAUSTED;
	case MEMREG_E_FAULT:
	case MEMREG_E_ACCESS:
	case MEMREG_E_NODEVMEM:
	case MEMREG_E_INVAL:
		return ADXL_PARAM_INVALID;
	default:
		return ADXL_FAILED;
	}
}

/*
 * Under reg_lock (write): @reg, registered with the module, into the
 * table, made reachable by each transport that runs; on failure it is
 * unregistered again and the status logged.
 */
static adxl_status_t insert(struct adxl_engine *e, struct adxl_reg *reg,
			    const char *op)
{
	size_t i;

	if (adxl__transports_expose(e, reg)) {
		memreg_unregister(e->ctx, reg->handle);
		return ADXL_FAILED;
	}
	if (e->n_regs == e->cap_regs) {
		size_t cap = e->cap_regs ? 2 * e->cap_regs : 16;
		struct adxl_reg *p = realloc(e->regs, cap * sizeof(*p));

		if (!p) {
			adxl__transports_hide(e, reg);
			memreg_unregister(e->ctx, reg->handle);
			adxl__err("%s: out of memory", op);
			return ADXL_FAILED;
		}
		e->regs = p;
		e->cap_regs = cap;
	}
	i = upper_bound(e, reg->addr);
	memmove(&e->regs[i + 1], &e->regs[i],
		(e->n_regs - i) * sizeof(*e->regs));
	e->regs[i] = *reg;
	e->n_regs++;
	return ADXL_SUCCESS;
}

adxl_status_t adxl_register_mem(adxl_engine_t *e,
				const struct adxl_mem_desc *mem,
				enum adxl_mem_type type,
				adxl_mem_handle_t *handle)
{
	struct adxl_reg reg;
	adxl_status_t st;
	size_t i;
	int err;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "RegisterMem");
	if (st)
		return st;
	if (!mem || !handle)
		return ADXL_PARAM_INVALID;
	if (!mem->addr || !mem->len || mem->addr + mem->len < mem->addr ||
	    (type != ADXL_MEM_HOST && type != ADXL_MEM_DEVICE))
		return ADXL_PARAM_INVALID;

	pthread_rwlock_wrlock(&e->reg_lock);
	for (i = 0; i < e->n_regs; i++) {
		struct adxl_reg *r = &e->regs[i];

		if (r->type != type || mem->addr >= r->addr + r->len ||
		    r->addr >= mem->addr + mem->len)
			continue;
		if (r->addr == mem->addr && r->len == mem->len && !r->internal) {
			r->refs++;
			*handle = (adxl_mem_handle_t)(uintptr_t)r->id;
			pthread_rwlock_unlock(&e->reg_lock);
			return ADXL_SUCCESS;
		}
		pthread_rwlock_unlock(&e->reg_lock);
		adxl__err("RegisterMem: [0x%lx, +%zu) overlaps registered [0x%lx, +%zu)",
			  (unsigned long)mem->addr, mem->len,
			  (unsigned long)r->addr, r->len);
		return ADXL_PARAM_INVALID;
	}

	memset(&reg, 0, sizeof(reg));
	reg.addr = mem->addr;
	reg.len = mem->len;
	reg.type = type;
	reg.refs = 1;
	err = memreg_register(e->ctx, (void *)mem->addr, mem->len,
			      type == ADXL_MEM_HOST ? MEMREG_MEM_HOST :
						      MEMREG_MEM_DEVICE,
			      MEMREG_ACCESS_ALL, &reg.handle);
	if (err) {
		pthread_rwlock_unlock(&e->reg_lock);
		st = status_of(err);
		adxl__err("RegisterMem: %s memory [0x%lx, +%zu): %s",
			  type == ADXL_MEM_HOST ? "host" : "device",
			  (unsigned long)mem->addr, mem->len,
			  memreg_strerror(err));
		return st;
	}
	err = memreg_grant(e->ctx, reg.handle, MEMREG_ACCESS_ALL, reg.token);
	if (err) {
		memreg_unregister(e->ctx, reg.handle);
		pthread_rwlock_unlock(&e->reg_lock);
		adxl__err("RegisterMem: grant: %s", memreg_strerror(err));
		return ADXL_FAILED;
	}

	/* Ids start at 1: a NULL MemHandle is never a registration. */
	reg.id = e->next_reg_id + 1;
	st = insert(e, &reg, "RegisterMem");
	if (!st)
		e->next_reg_id++;
	pthread_rwlock_unlock(&e->reg_lock);
	if (st)
		return st;
	*handle = (adxl_mem_handle_t)(uintptr_t)reg.id;
	return ADXL_SUCCESS;
}

adxl_status_t adxl__regs_add_internal(struct adxl_engine *e, uintptr_t addr,
				      size_t len)
{
	struct adxl_reg reg;
	adxl_status_t st;
	int err;

	memset(&reg, 0, sizeof(reg));
	reg.addr = addr;
	reg.len = len;
	reg.type = ADXL_MEM_HOST;
	reg.refs = 1;
	reg.internal = true;	/* id 0: no handle names it */
	pthread_rwlock_wrlock(&e->reg_lock);
	/* No access for peers, and no grant: only our transfers use it. */
	err = memreg_register(e->ctx, (void *)addr, len, MEMREG_MEM_HOST, 0,
			      &reg.handle);
	if (err) {
		pthread_rwlock_unlock(&e->reg_lock);
		adxl__err("buffer pool: cannot register its %zu bytes: %s%s",
			  len, memreg_strerror(err),
			  err == -MEMREG_E_MEMLOCK ?
			  " (a smaller BufferPool, or a higher ulimit -l)" : "");
		return status_of(err);
	}
	st = insert(e, &reg, "buffer pool");
	pthread_rwlock_unlock(&e->reg_lock);
	return st;
}

adxl_status_t adxl_deregister_mem(adxl_engine_t *e, adxl_mem_handle_t handle)
{
	uint64_t id = (uintptr_t)handle;
	adxl_status_t st;
	size_t i;

	if (!e)
		return ADXL_PARAM_INVALID;
	/* Not initialised: FAILED, before the handle is looked at (hixl). */
	st = adxl__ready(e, "DeregisterMem");
	if (st)
		return st;
	if (!handle)
		return ADXL_PARAM_INVALID;

	pthread_rwlock_wrlock(&e->reg_lock);
	for (i = 0; i < e->n_regs; i++)
		if (e->regs[i].id == id)
			break;
	if (i == e->n_regs) {
		pthread_rwlock_unlock(&e->reg_lock);
		/* The reference: a warning, and success. */
		adxl__warn("DeregisterMem: unknown handle %p, nothing to do",
			   handle);
		return ADXL_SUCCESS;
	}
	if (--e->regs[i].refs == 0) {
		/*
		 * Unregistering revokes the grant too: peers' transfers on it
		 * fail with EKEYREVOKED from now on, and copies in flight
		 * finish on pages the module keeps until then.  The
		 * transports first: what they granted is dead before the
		 * pages are let go.
		 */
		adxl__transports_hide(e, &e->regs[i]);
		memreg_unregister(e->ctx, e->regs[i].handle);
		memmove(&e->regs[i], &e->regs[i + 1],
			(e->n_regs - i - 1) * sizeof(*e->regs));
		e->n_regs--;
	}
	pthread_rwlock_unlock(&e->reg_lock);
	return ADXL_SUCCESS;
}

adxl_status_t adxl__regs_hello(struct adxl_engine *e, struct adxl_hello *h)
{
	size_t i;

	pthread_rwlock_rdlock(&e->reg_lock);
	h->n_regs = 0;
	h->regs = e->n_regs ? calloc(e->n_regs, sizeof(*h->regs)) : NULL;
	if (e->n_regs && !h->regs) {
		pthread_rwlock_unlock(&e->reg_lock);
		return ADXL_FAILED;
	}
	for (i = 0; i < e->n_regs; i++) {
		struct adxl_wire_reg *w = &h->regs[h->n_regs];

		/* The engine's own (its buffer pool): never a peer's. */
		if (e->regs[i].internal)
			continue;
		w->addr = e->regs[i].addr;
		w->len = e->regs[i].len;
		w->type = e->regs[i].type;
		w->access = MEMREG_ACCESS_ALL;
		memcpy(w->token, e->regs[i].token, MEMREG_TOKEN_LEN);
		h->n_regs++;
	}
	pthread_rwlock_unlock(&e->reg_lock);
	return ADXL_SUCCESS;
}

void adxl__regs_drop_all(struct adxl_engine *e)
{
	size_t i;

	pthread_rwlock_wrlock(&e->reg_lock);
	for (i = 0; i < e->n_regs; i++) {
		adxl__transports_hide(e, &e->regs[i]);
		memreg_unregister(e->ctx, e->regs[i].handle);
	}
	free(e->regs);
	e->regs = NULL;
	e->n_regs = e->cap_regs = 0;
	pthread_rwlock_unlock(&e->reg_lock);
}
