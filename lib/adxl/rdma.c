// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's RDMA state: loading the verbs plugin, opening the device on
 * first use, and making every registration an MR of it.
 *
 * As with UCX (ucx.c), nothing of libibverbs is loaded until an engine
 * first reaches a peer over RDMA.  Once started, every registration of the
 * engine is also an MR: peers that were granted an rkey for it at Connect
 * (rdma_link.c) read and write it with their NIC, and DeregisterMem
 * deregisters the MR first, which revokes every grant at once.  A range
 * the NIC cannot register (a dma-buf export's mapping, which memreg never
 * lets anyone pin; RLIMIT_MEMLOCK) stays a registration of the engine,
 * announced without an rkey: transfers that touch it are refused with a
 * message that says why.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

#ifndef ADXL_RDMA_PLUGIN_DIR
#define ADXL_RDMA_PLUGIN_DIR	"/usr/local/lib/memreg"
#endif

static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static const struct adxl_rdma_ops *plugin;
static char plugin_err[512];

/* MEMREG_ADXL_RDMA_PLUGIN, else memreg/adxl-rdma.so (plugin.c) */
static void load_plugin(void)
{
	plugin = adxl__plugin_load("MEMREG_ADXL_RDMA_PLUGIN",
				   ADXL_RDMA_PLUGIN_FILE, ADXL_RDMA_PLUGIN_DIR,
				   ADXL_RDMA_PLUGIN_SYM, ADXL_RDMA_PLUGIN_ABI,
				   plugin_err, sizeof(plugin_err));
}

int adxl__rdma_expose(struct adxl_engine *e, struct adxl_reg *r)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	uint32_t own_rkey;	/* peers get theirs from mr_grant */

	if (!e->rdma || r->rmr)
		return 0;
	if (e->rdma_ops->mr_reg(e->rdma, (void *)r->addr, r->len, &r->rmr,
				&own_rkey, err)) {
		/* Not fatal: the range is announced without an rkey. */
		adxl__warn("RDMA cannot register %s memory [0x%lx, +%zu): %s; peers cannot reach it over RDMA",
			   r->type == ADXL_MEM_HOST ? "host" : "device",
			   (unsigned long)r->addr, r->len, err);
		r->rmr = NULL;
	}
	return 0;
}

void adxl__rdma_hide(struct adxl_engine *e, struct adxl_reg *r)
{
	if (!r->rmr)
		return;
	e->rdma_ops->mr_dereg(e->rdma, r->rmr);
	r->rmr = NULL;
}

adxl_status_t adxl__rdma_start(struct adxl_engine *e, char *why)
{
	char err[ADXL_RDMA_ERR_LEN] = "";
	adxl_status_t st = ADXL_SUCCESS;
	struct adxl_rdma *r;
	size_t i;

	pthread_mutex_lock(&e->rdma_lock);
	if (e->rdma)
		goto out;
	pthread_once(&plugin_once, load_plugin);
	if (!plugin) {
		snprintf(err, sizeof(err),
			 "unavailable: %.150s (is libibverbs1 installed, and libmemreg's memreg/%s?)",
			 plugin_err, ADXL_RDMA_PLUGIN_FILE);
		st = ADXL_FAILED;
	} else if (plugin->open(&r, err)) {
		st = ADXL_FAILED;
	}
	if (st) {
		if (why)
			snprintf(why, ADXL_RDMA_ERR_LEN, "%s", err);
		else
			adxl__err("RDMA transport: %s", err);
		goto out;
	}
	e->rdma_ops = plugin;

	pthread_rwlock_wrlock(&e->reg_lock);
	e->rdma = r;
	for (i = 0; i < e->n_regs; i++)
		adxl__rdma_expose(e, &e->regs[i]);
	pthread_rwlock_unlock(&e->reg_lock);
out:
	pthread_mutex_unlock(&e->rdma_lock);
	return st;
}

/* Finalize: after the peers, links (queue pairs) and registrations. */
void adxl__rdma_stop(struct adxl_engine *e)
{
	pthread_mutex_lock(&e->rdma_lock);
	if (e->rdma)
		e->rdma_ops->close(e->rdma);
	e->rdma = NULL;
	pthread_mutex_unlock(&e->rdma_lock);
}
