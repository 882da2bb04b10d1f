// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The engine's UCX state: loading the plugin, starting the UCP context on
 * first use, and exposing registrations to it.
 *
 * Nothing of UCX is loaded until an engine first talks to a peer over it
 * (a peer on another kernel, or Transport=ucx), so programs that use
 * libmemreg on one host never load libucs (see ucx_plugin.h).  Once
 * started, every registration of the engine is also exposed to the
 * plugin, which serves peers' reads and writes of exposed ranges only.
 * The module still pins, limits and lists the registrations.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

#ifndef ADXL_UCX_PLUGIN_DIR
#define ADXL_UCX_PLUGIN_DIR	"/usr/local/lib/memreg"
#endif

static pthread_once_t plugin_once = PTHREAD_ONCE_INIT;
static const struct adxl_ucx_ops *plugin;
static char plugin_err[512];

static void load_plugin(void)
{
	plugin = adxl__plugin_load("MEMREG_ADXL_UCX_PLUGIN", ADXL_UCX_PLUGIN_FILE,
				   ADXL_UCX_PLUGIN_DIR, ADXL_UCX_PLUGIN_SYM,
				   ADXL_UCX_PLUGIN_ABI, plugin_err,
				   sizeof(plugin_err));
}

int adxl__ucx_expose(struct adxl_engine *e, struct adxl_reg *r)
{
	char err[ADXL_UCX_ERR_LEN] = "";
	int ret;

	if (!e->ucx || r->umem)
		return 0;
	ret = e->ucx_ops->mem_expose(e->ucx, (void *)r->addr, r->len,
				     &r->umem, err);
	if (ret)
		adxl__err("UCX cannot expose [0x%lx, +%zu): %s",
			  (unsigned long)r->addr, r->len, err);
	return ret;
}

void adxl__ucx_hide(struct adxl_engine *e, struct adxl_reg *r)
{
	if (!r->umem)
		return;
	e->ucx_ops->mem_hide(e->ucx, r->umem);
	r->umem = NULL;
}

adxl_status_t adxl__ucx_start(struct adxl_engine *e)
{
	char err[ADXL_UCX_ERR_LEN] = "";
	adxl_status_t st = ADXL_SUCCESS;
	struct adxl_ucx *u;
	size_t i;

	pthread_mutex_lock(&e->ucx_lock);
	if (e->ucx)
		goto out;
	pthread_once(&plugin_once, load_plugin);
	if (!plugin) {
		adxl__err("UCX transport unavailable: %s (is libucx0 installed, and libmemreg's memreg/%s?)",
			  plugin_err, ADXL_UCX_PLUGIN_FILE);
		st = ADXL_FAILED;
		goto out;
	}
	if (plugin->open(&u, err)) {
		adxl__err("UCX transport: %s", err);
		st = ADXL_FAILED;
		goto out;
	}
	e->ucx_ops = plugin;

	pthread_rwlock_wrlock(&e->reg_lock);
	e->ucx = u;
	for (i = 0; i < e->n_regs; i++) {
		if (adxl__ucx_expose(e, &e->regs[i])) {
			while (i-- > 0)
				adxl__ucx_hide(e, &e->regs[i]);
			e->ucx = NULL;
			st = ADXL_FAILED;
			break;
		}
	}
	pthread_rwlock_unlock(&e->reg_lock);
	if (st)
		plugin->close(u);
out:
	pthread_mutex_unlock(&e->ucx_lock);
	return st;
}

/* Finalize: after the peers (endpoints) and registrations are gone. */
void adxl__ucx_stop(struct adxl_engine *e)
{
	pthread_mutex_lock(&e->ucx_lock);
	if (e->ucx)
		e->ucx_ops->close(e->ucx);
	e->ucx = NULL;
	pthread_mutex_unlock(&e->ucx_lock);
}
