// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The UCX transport: a peer on another kernel, where no RDMA connects (or
 * with Transport=ucx, also on this one), is reached through the UCX
 * plugin (ucx_plugin.h), started on first use (plugged.c).
 *
 * Its link hello carries nothing of ours; the answer carries the peer's
 * worker address and its access key, which every request must carry: the
 * peer's plugin serves requests with the key for the ranges it exposes
 * and refuses the rest.  Each ADXL descriptor becomes one read or write
 * of the plugin (chunked active messages).  No module checks the remote
 * range on this path: the batch loop checks it before anything is sent
 * (transfer.c), and the peer's plugin checks it again against what it
 * still exposes (a range deregistered since Connect is refused: FAILED,
 * link kept).
 *
 * A batch that runs out of time, or whose endpoint fails (the peer died,
 * its host went away), is cancelled by closing the endpoint: the call
 * returns TIMEOUT or FAILED within the deadline, nothing touches the
 * buffers afterwards, and the link is marked down so that the next
 * Connect replaces the peer.  Notifies go on over the control connection
 * while it lives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugged.h"
#include "ucx_plugin.h"

#ifndef ADXL_UCX_PLUGIN_DIR
#define ADXL_UCX_PLUGIN_DIR	"/usr/local/lib/memreg"
#endif

static adxl_status_t ucx_fill(const struct adxl_transport_ops *t,
			      const struct adxl_resolved *r, void *out)
{
	(void)t;
	*(struct adxl_plugin_op *)out = (struct adxl_plugin_op){
		.local = r->d->local_addr,
		.remote = r->d->remote_addr,
		.len = r->d->len,
	};
	return ADXL_SUCCESS;
}

static adxl_status_t ucx_send(const struct adxl_transport_ops *t,
			      const struct adxl_batch *b)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(b->x->e, t);
	struct adxl_peer *p = b->x->p;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	int ret;

	ret = pe->plugin->xfer(adxl__plugged_peer(p)->ep, b->x->op == ADXL_WRITE,
			       b->ops, b->k, b->x->deadline, err);
	if (ret == -ETIMEDOUT) {
		/* the endpoint is closed: the next Connect replaces the peer */
		__atomic_store_n(&p->link_down, true, __ATOMIC_RELAXED);
		adxl__err("transfer to %s: timed out in descriptors %zu..%zu over UCX (%s); the link is closed, Connect again",
			  p->name, b->off, b->off + b->k - 1, err);
		return ADXL_TIMEOUT;
	}
	if (ret == -ECONNRESET)
		return adxl__link_failed(p, "UCX", err);
	if (ret) {
		adxl__err("transfer to %s: UCX: %s", p->name, err);
		return ADXL_FAILED;
	}
	return ADXL_SUCCESS;
}

static adxl_status_t ucx_xfer(const struct adxl_transport_ops *t,
			      const struct adxl_xfer *x)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(x->e, t);
	struct adxl_peer *p = x->p;

	if (pe->plugin->ep_failed(adxl__plugged_peer(p)->ep)) {
		/* Found failed between calls: the first caller hears why. */
		if (!__atomic_exchange_n(&p->link_down, true, __ATOMIC_RELAXED)) {
			adxl__err("transfer to %s: the UCX link failed: the peer or its host is gone; Connect again",
				  p->name);
			return ADXL_FAILED;
		}
		adxl__err("transfer to %s: not connected: the UCX link failed earlier; Connect again",
			  p->name);
		return ADXL_NOT_CONNECTED;
	}
	return x->n ? adxl__xfer_batches(x, 0, NULL) : ADXL_SUCCESS;
}

static const struct adxl_plugged ucx = {
	.env = "MEMREG_ADXL_UCX_PLUGIN",
	.file = ADXL_UCX_PLUGIN_FILE,
	.dir = ADXL_UCX_PLUGIN_DIR,
	.package = "libucx0",
	.ep_word = "endpoint",
	.reg_fatal = true,
	/* libucm moves the program break as it loads (plugged.c) */
	.load_at_init = true,
};

const struct adxl_transport_ops adxl__ucx_transport = {
	.name = "ucx",
	.label = "UCX",
	.wire_id = 1,
	/* 4: the link hello of wire version 2 (3: the worker's access key) */
	.wire_version = 4,
	.fallback = true,
	.plugged = &ucx,
	ADXL_PLUGGED_OPS,
	.xfer = ucx_xfer,
	.fill = ucx_fill,
	.send = ucx_send,
};
