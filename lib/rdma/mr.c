// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-rdma.so: memory regions (rdma_int.h).
 *
 * Every range the engine registers becomes an MR of the protection
 * domain, local-writable (a READ lands in it).  Peers reach it through
 * the windows bound to it, one per peer (grant.c), or where the device
 * has none, through the MR's own rkey; either way with no CPU of ours
 * involved.  Deregistering revokes the windows and then the MR before
 * returning; a peer's READ or WRITE after that completes with a remote
 * access error at its end, which is what lets the engine deregister
 * without asking peers.
 *
 * The MRs are also on a list, so that xfer can find the lkey of the one
 * that covers each local range it is handed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "rdma_int.h"

/* Why ibv_reg_mr() may have failed, beyond its errno. */
static void reg_hint(int e, char *buf, size_t len)
{
	struct rlimit rl;

	buf[0] = '\0';
	switch (e) {
	case ENOMEM:
	case EPERM:
		/*
		 * The pages are pinned and count against RLIMIT_MEMLOCK
		 * unless the process has CAP_IPC_LOCK (Debian's default
		 * limit: 8 MiB).
		 */
		if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
			snprintf(buf, len, " (RLIMIT_MEMLOCK?)");
		else
			snprintf(buf, len, " (RLIMIT_MEMLOCK? ulimit -l is %llu KiB)",
				 (unsigned long long)rl.rlim_cur >> 10);
		break;
	case EFAULT:
		snprintf(buf, len, " (not mapped, or memory the kernel cannot pin)");
		break;
	}
}

int rdmap_mr_reg(struct adxl_plugin_ctx *r, void *addr, size_t len,
		 struct adxl_plugin_mem **out, uint32_t *rkey, char *err)
{
	/* with windows, the MR itself is out of every peer's reach */
	const int access = IBV_ACCESS_LOCAL_WRITE |
			   (r->windows ? IBV_ACCESS_MW_BIND :
					 IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_REMOTE_WRITE);
	struct adxl_plugin_mem *m;
	char hint[64];
	int e;

	if (!len) {
		rdmap_say(err, "ibv_reg_mr [%p, +0): an empty range", addr);
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		rdmap_say(err, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	m->mr = ibv_reg_mr(r->pd, addr, len, access);
	if (!m->mr) {
		e = errno ? errno : EIO;
		reg_hint(e, hint, sizeof(hint));
		rdmap_say(err, "ibv_reg_mr [%p, +%zu): %s%s", addr, len,
			  strerror(e), hint);
		free(m);
		return -e;
	}
	m->addr = (uintptr_t)addr;
	m->len = len;
	pthread_mutex_lock(&r->lock);
	m->next = r->mrs;
	r->mrs = m;
	pthread_mutex_unlock(&r->lock);
	*rkey = r->windows ? 0 : m->mr->rkey;
	*out = m;
	return 0;
}

/* Under r->lock: @m off the list, so that no xfer finds it any more. */
static void unlink_mr(struct adxl_plugin_ctx *r, struct adxl_plugin_mem *m)
{
	struct adxl_plugin_mem **pp;

	for (pp = &r->mrs; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	}
	if (r->last_hit == m)
		r->last_hit = NULL;
}

/*
 * The rkeys are dead when ibv_dereg_mr() returns (the NIC, or rxe, has
 * forgotten them), the windows' first: an MR with windows bound cannot
 * be deregistered.  An xfer of ours that already took the lkey fails its
 * work request with a local protection error: the caller's race, not a
 * use of freed memory.  ibv_dereg_mr() fails otherwise only for a device
 * that is gone (which took the MR with it): nothing to do then but forget
 * it.
 */
void rdmap_mr_dereg(struct adxl_plugin_ctx *r, struct adxl_plugin_mem *m)
{
	pthread_mutex_lock(&r->lock);
	unlink_mr(r, m);
	pthread_mutex_unlock(&r->lock);
	rdmap_grants_revoke(r, m, NULL);
	ibv_dereg_mr(m->mr);
	free(m);
}

/* close() of an engine that left MRs behind: the PD cannot go before them. */
void rdmap_mr_dereg_all(struct adxl_plugin_ctx *r)
{
	while (r->mrs)
		rdmap_mr_dereg(r, r->mrs);
}

/* The lkey of an MR that holds all of [@addr, +@len); false if none does. */
bool rdmap_mr_lkey(struct adxl_plugin_ctx *r, uint64_t addr, uint64_t len,
		   uint32_t *lkey)
{
	struct adxl_plugin_mem *m;
	bool found = false;

	pthread_mutex_lock(&r->lock);
	/* A batch's ranges are mostly in one MR: try the last one first. */
	m = r->last_hit;
	if (!m || addr < m->addr || len > m->len ||
	    addr - m->addr > m->len - len) {
		for (m = r->mrs; m; m = m->next) {
			if (addr >= m->addr && len <= m->len &&
			    addr - m->addr <= m->len - len)
				break;
		}
	}
	if (m) {
		r->last_hit = m;
		*lkey = m->mr->lkey;
		found = true;
	}
	pthread_mutex_unlock(&r->lock);
	return found;
}
