// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel transport: a peer on our kernel instance is reached through
 * memreg.ko.  Its hello carried a grant token per registration; Connect
 * imports each into our memreg context, and a transfer names the peer's
 * memory by remote handle.  One ioctl moves a batch as large as the module
 * takes (MEMREG_XFER_MAX_DESCS): that is the point of the design.  The
 * module checks each remote range itself (ERANGE), and the timeout is
 * checked between batches, as the reference checks it between its own.
 *
 * With Transport=kernel a peer on another kernel is connected for notifies
 * only: its transfers fail, saying why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

static bool kernel_reachable(const struct adxl_transport_ops *t,
			     struct adxl_engine *e, const struct adxl_peer *p)
{
	(void)t;
	return !memcmp(p->ident.instance_id, e->ident.instance_id,
		       sizeof(e->ident.instance_id));
}

/* Import the peer's tokens; a token that died meanwhile is left out. */
static adxl_status_t kernel_connect(const struct adxl_transport_ops *t,
				    struct adxl_engine *e, struct adxl_peer *p,
				    const struct adxl_hello *h,
				    int64_t deadline, const char *next)
{
	size_t i;

	(void)t;
	(void)deadline;
	(void)next;
	if (!kernel_reachable(t, e, p)) {
		adxl__warn("Connect %s: the peer runs on another kernel and Transport=kernel: notifies only, no transfers",
			   p->name);
		return ADXL_SUCCESS;
	}
	p->rregs = h->n_regs ? calloc(h->n_regs, sizeof(*p->rregs)) : NULL;
	if (h->n_regs && !p->rregs)
		return ADXL_FAILED;
	for (i = 0; i < h->n_regs; i++) {
		struct memreg_remote r;
		int err = memreg_import(e->ctx, h->regs[i].token, &r);

		if (err) {
			adxl__warn("Connect %s: memory [0x%llx, +%llu) not imported: %s",
				   p->name, (unsigned long long)h->regs[i].addr,
				   (unsigned long long)h->regs[i].len,
				   err == -MEMREG_E_NOENT ?
				   "deregistered meanwhile" : memreg_strerror(err));
			continue;
		}
		/* the module's word for what it is, in ADXL's numbers */
		p->rregs[p->n_rregs++] = (struct adxl_rreg){
			.addr = r.addr, .len = r.len,
			.type = r.type == MEMREG_MEM_DEVICE ? ADXL_MEM_DEVICE :
							      ADXL_MEM_HOST,
			.key = r.handle,
		};
	}
	adxl__rregs_sort(p);
	return ADXL_SUCCESS;
}

static void kernel_release(const struct adxl_transport_ops *t,
			   struct adxl_engine *e, struct adxl_peer *p)
{
	size_t i;

	(void)t;
	for (i = 0; i < p->n_rregs; i++)
		memreg_unimport(e->ctx, p->rregs[i].key);
}

static adxl_status_t kernel_fill(const struct adxl_transport_ops *t,
				 const struct adxl_resolved *r, void *out)
{
	(void)t;
	*(struct memreg_xfer_desc *)out = (struct memreg_xfer_desc){
		.op = r->x->op == ADXL_READ ? MEMREG_XFER_READ :
					      MEMREG_XFER_WRITE,
		.local_handle = r->l->handle,
		.local_addr = r->d->local_addr,
		.remote_handle = r->r->key,
		.remote_addr = r->d->remote_addr,
		.len = r->d->len,
	};
	return ADXL_SUCCESS;
}

static adxl_status_t kernel_failed(struct adxl_peer *p, int err, int errnum,
				   size_t index, int64_t deadline)
{
	switch (errnum) {
	case EOWNERDEAD:
		/* the process that granted it is gone: exited, or restarted */
		return adxl__peer_gone(p, "transfer to", deadline);
	case EKEYREVOKED:
		/*
		 * an export revoked as its owner went (its device memory
		 * freed before its grants): gone all the same
		 */
		if (adxl__sock_dead(p->fd))
			return adxl__peer_gone(p, "transfer to", deadline);
		adxl__err("transfer to %s: descriptor %zu: the peer's memory is gone (deregistered, or the peer exited): grant revoked",
			  p->name, index);
		return adxl__peer_dead(p) ? ADXL_NOT_CONNECTED : ADXL_FAILED;
	case ERANGE:
		adxl__err("transfer to %s: descriptor %zu: range runs past the end of its registration",
			  p->name, index);
		return ADXL_PARAM_INVALID;
	default:
		adxl__err("transfer to %s: descriptor %zu: %s", p->name, index,
			  memreg_strerror(err));
		return ADXL_FAILED;
	}
}

/* One ioctl: the module reports how far it got when it refuses. */
static adxl_status_t kernel_send(const struct adxl_transport_ops *t,
				 const struct adxl_batch *b)
{
	size_t done;
	int err;

	(void)t;
	err = memreg_transfer(b->x->e->ctx, b->ops, b->k, &done, NULL);
	return err ? kernel_failed(b->x->p, err, errno, b->off + done,
				   b->x->deadline) :
		     ADXL_SUCCESS;
}

static adxl_status_t kernel_xfer(const struct adxl_transport_ops *t,
				 const struct adxl_xfer *x)
{
	if (!kernel_reachable(t, x->e, x->p)) {
		adxl__err("transfer to %s: the peer runs on another kernel and this engine has Transport=kernel; use auto or %s",
			  x->p->name, adxl__transport_fallback()->name);
		return ADXL_FAILED;
	}
	return x->n ? adxl__xfer_batches(x, 0, NULL) : ADXL_SUCCESS;
}

const struct adxl_transport_ops adxl__kernel_transport = {
	.name = "kernel",
	.label = "memreg.ko",
	.reachable = kernel_reachable,
	.connect = kernel_connect,
	.release = kernel_release,
	.xfer = kernel_xfer,
	.batch_max = MEMREG_XFER_MAX_DESCS,
	.op_size = sizeof(struct memreg_xfer_desc),
	.carrier_checks_remote = true,
	.refuses_dead_owner = true,
	.fill = kernel_fill,
	.send = kernel_send,
};
