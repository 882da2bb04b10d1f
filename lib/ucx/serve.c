// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-ucx.so: serving peers' READ and WRITE requests (ucx_int.h).
 *
 * The serving side answers on the reply endpoint UCX hands it, after
 * checking the request's access key and its range against what it
 * exposed; it copies the bytes of an answer into the message itself, so
 * nothing refers to exposed memory once the handler returns (that is what
 * makes mem_hide immediate).  Handlers run inside ucp_worker_progress,
 * under u->lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ucx_int.h"

/* An answer on its way: the header and bytes UCX sends from. */
struct ucxp_answer {
	struct adxl_plugin_ctx *u;
	size_t len;
	struct adxl_ucx_wire_ans h;	/* followed by len bytes */
};

/* ---- serving a peer's requests (inside ucp_worker_progress) ---- */

/* The exposed range that holds [@addr, +@len), or NULL. */
static struct adxl_plugin_mem *exposed(struct adxl_plugin_ctx *u, uint64_t addr,
				    uint64_t len)
{
	struct adxl_plugin_mem *m = u->last_hit;

	if (m && addr >= m->addr && len <= m->len &&
	    addr - m->addr <= m->len - len)
		return m;
	for (m = u->mems; m; m = m->next) {
		if (addr >= m->addr && len <= m->len &&
		    addr - m->addr <= m->len - len) {
			u->last_hit = m;
			return m;
		}
	}
	return NULL;
}

static void answer_free(struct ucxp_answer *x)
{
	x->u->answer_bytes -= x->len;
	free(x);
}

static void answer_sent(void *req, ucs_status_t status, void *arg)
{
	(void)status;	/* a peer that went away: nothing to tell it */
	answer_free(arg);
	ucp_request_free(req);
}

/*
 * Answer request @q on @ep: @status, and for DATA the @len bytes at @src,
 * copied into the message (one allocation, which lives until UCX has sent
 * it).
 */
static void serve_answer(struct adxl_plugin_ctx *u, ucp_ep_h ep, unsigned int am,
		   const struct adxl_ucx_wire_req *q, int status, const void *src,
		   size_t len)
{
	struct ucxp_answer *x = NULL;
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.cb.send = answer_sent,
		.flags = UCP_AM_SEND_FLAG_EAGER,
	};
	ucs_status_ptr_t r;

	if (len && u->answer_bytes + len > ANSWERS_MAX) {
		status = -EBUSY;
		len = 0;
	}
	x = malloc(sizeof(*x) + len);
	if (!x && len) {
		status = -ENOMEM;
		len = 0;
		x = malloc(sizeof(*x));
	}
	if (!x)
		return;	/* the peer's deadline will tell it */
	x->u = u;
	x->len = len;
	x->h = (struct adxl_ucx_wire_ans){
		.id = q->id, .nonce = q->nonce, .status = status,
	};
	if (len)
		memcpy(&x->h + 1, src, len);
	u->answer_bytes += len;
	prm.user_data = x;
	r = ucp_am_send_nbx(ep, am, &x->h, sizeof(x->h),
			    len ? (void *)(&x->h + 1) : NULL, len, &prm);
	if (!UCS_PTR_IS_PTR(r))
		answer_free(x);	/* sent at once, or failed: no callback */
}

/* The key compared in constant time: no timing tells how much matched. */
static bool key_ok(const struct adxl_plugin_ctx *u, const uint8_t *key)
{
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < ADXL_UCX_KEY_LEN; i++)
		diff |= u->key[i] ^ key[i];
	return !diff;
}

/* READ and WRITE from a peer. */
static ucs_status_t on_request(void *arg, const void *header, size_t hlen,
			       void *data, size_t len,
			       const ucp_am_recv_param_t *prm, bool write)
{
	struct adxl_plugin_ctx *u = arg;
	struct adxl_plugin_mem *m;
	struct adxl_ucx_wire_req q;
	int status = 0;

	/*
	 * Our peers send eager only.  Returning UCS_OK without receiving
	 * drops a rendezvous message (UCX releases it itself).
	 */
	if (prm->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
		return UCS_OK;
	if (hlen != sizeof(q) || !(prm->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP))
		return UCS_OK;	/* not ours, and no one to answer */
	memcpy(&q, header, sizeof(q));
	m = exposed(u, q.addr, q.len);
	if (!key_ok(u, q.key))
		status = -EACCES;
	else if (!m || q.len > CHUNK_MAX)
		status = -EFAULT;
	else if (write && len != q.len)
		status = -EPROTO;
	if (!write) {
		serve_answer(u, prm->reply_ep, ADXL_UCX_AM_DATA, &q, status,
		       (const void *)(uintptr_t)q.addr, status ? 0 : q.len);
		return UCS_OK;
	}
	if (!status)
		memcpy((void *)(uintptr_t)q.addr, data, len);
	serve_answer(u, prm->reply_ep, ADXL_UCX_AM_DONE, &q, status, NULL, 0);
	return UCS_OK;
}

ucs_status_t ucxp_on_read(void *arg, const void *header, size_t hlen,
			    void *data, size_t len,
			    const ucp_am_recv_param_t *prm)
{
	return on_request(arg, header, hlen, data, len, prm, false);
}

ucs_status_t ucxp_on_write(void *arg, const void *header, size_t hlen,
			     void *data, size_t len,
			     const ucp_am_recv_param_t *prm)
{
	return on_request(arg, header, hlen, data, len, prm, true);
}
