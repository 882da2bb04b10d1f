// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): memory regions.
 *
 * Keys come from one counter and are never reused, so an rkey that was
 * deregistered finds nothing ever after: what a NIC guarantees once
 * ibv_dereg_mr() has returned, and what lets a test tell a revoked key
 * from a recycled one.
 */
#include <errno.h>
#include <stdlib.h>

#include "fake_int.h"

/* verbs.h makes ibv_reg_mr() an inline choosing between two symbols. */
#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
			  int access)
{
	struct fmr *m;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_REG_MR);
	/* The verbs rule: a remote may write only where we may. */
	if (!e && (access & IBV_ACCESS_REMOTE_WRITE) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		e = EINVAL;
	m = e ? NULL : calloc(1, sizeof(*m));
	if (!m) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = fv.next_key++;
	m->mr.rkey = fv.next_key++;
	m->access = access;
	m->next = fv.mrs;
	fv.mrs = m;
	((struct fpd *)pd)->mrs++;
	fv.live[LIVE_MR]++;
	pthread_mutex_unlock(&fv.lock);
	return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct fmr **pp;

	pthread_mutex_lock(&fv.lock);
	for (pp = &fv.mrs; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mr == mr)
			break;
	}
	if (!*pp) {
		fv_misuse_add("ibv_dereg_mr of an MR that is not registered");
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	*pp = (*pp)->next;
	((struct fpd *)mr->pd)->mrs--;
	if (fv.live[LIVE_MR])
		fv.live[LIVE_MR]--;
	pthread_mutex_unlock(&fv.lock);
	free((struct fmr *)mr);
	return 0;
}

/*
 * Under fv.lock: whether the MR of @key (an rkey if @remote) is in @pd,
 * holds all of [@addr, +@len) and allows @access; else the status a NIC
 * completes the work request with.
 */
enum ibv_wc_status fv_mr_check(uint32_t key, bool remote, struct ibv_pd *pd,
				 uint64_t addr, uint64_t len, int access)
{
	const enum ibv_wc_status bad = remote ? IBV_WC_REM_ACCESS_ERR :
						IBV_WC_LOC_PROT_ERR;
	struct fmr *m;

	for (m = fv.mrs; m; m = m->next) {
		uint64_t start = (uintptr_t)m->mr.addr;

		if ((remote ? m->mr.rkey : m->mr.lkey) != key)
			continue;
		if (m->mr.pd != pd || (m->access & access) != access ||
		    addr < start || len > m->mr.length ||
		    addr - start > m->mr.length - len)
			return bad;
		return IBV_WC_SUCCESS;
	}
	return bad;
}
