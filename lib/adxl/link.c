// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The link hello, both sides: after the ordinary hello, a client that
 * reaches the peer over a transport of its own sends LINK_HELLO on the
 * control connection, tagged with the transport (its wire_id) and its
 * version, with what connects to the client's end.  The server answers
 * LINK_REPLY: a refusal with its reason, or what connects to its end and
 * its table of registrations at that moment, each with the key the
 * transport granted this peer.  The bytes that connect the two ends are
 * the transport's own; this file carries them.
 *
 * The listener answers a link hello only on a link whose hello it
 * accepted (trust.c), and a transport the engine does not serve is
 * refused, saying so: an engine with Transport=X serves X (and the
 * fallback, if X crosses hosts), with auto every transport.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

int adxl__link_answer(struct adxl_engine *e, struct adxl_link *l,
		      const uint8_t *p, size_t len)
{
	const struct adxl_transport_ops *t;
	struct adxl_buf info = { 0 }, b = { 0 };
	struct adxl_link_reply out;
	struct adxl_link_hello in;
	char *why = out.msg;
	size_t i;
	int ret;

	if (!l->hello_done || adxl__link_hello_decode(p, len, &in))
		return -EPROTO;
	t = adxl__transport_of_wire(in.transport);
	if (!t || in.version != t->wire_version)
		return -EPROTO;
	adxl__trace("%s: link %llu (%s): %s hello", e->name,
		    (unsigned long long)l->id, l->name, t->label);
	memset(&out, 0, sizeof(out));
	out.transport = in.transport;
	if (!adxl__transport_serves(e, t)) {
		snprintf(why, sizeof(out.msg),
			 "engine %.64s has Transport=%s: no %s", e->name,
			 e->transport->name, t->label);
	} else {
		ret = t->answer(t, e, l, in.info, in.info_len, &info, why);
		if (ret)
			goto out;
	}
	/*
	 * Under reg_lock until encoded: a consistent table, and no
	 * DeregisterMem of a range while its key is granted.
	 */
	pthread_rwlock_rdlock(&e->reg_lock);
	if (!why[0] && e->n_regs) {
		out.regs = calloc(e->n_regs, sizeof(*out.regs));
		if (!out.regs) {
			pthread_rwlock_unlock(&e->reg_lock);
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0; i < e->n_regs && !why[0]; i++) {
			const struct adxl_reg *r = &e->regs[i];
			uint32_t key = 0;

			/* the engine's own (its buffer pool): not granted */
			if (r->internal)
				continue;
			if (t->grant && t->grant(t, e, l, r, &key, why))
				break;
			out.regs[out.n_regs++] = (struct adxl_wreg){
				.addr = r->addr, .len = r->len,
				.type = r->type, .key = key,
			};
		}
	}
	if (why[0]) {
		out.status = ADXL_LINK_REFUSED;
	} else {
		out.info = info.data;
		out.info_len = (uint32_t)info.len;
	}
	ret = adxl__link_reply_encode(&out, &b);
	pthread_rwlock_unlock(&e->reg_lock);
	if (!ret)
		ret = adxl__frame_msg(&l->out, ADXL_MSG_LINK_REPLY, b.data,
				      b.len);
out:
	free(out.regs);
	adxl__buf_free(&info);
	adxl__buf_free(&b);
	return ret;
}

adxl_status_t adxl__link_dial(struct adxl_peer *p,
			      const struct adxl_transport_ops *t,
			      const void *info, size_t info_len,
			      int64_t deadline, struct adxl_link_reply *in,
			      uint8_t **msg)
{
	struct adxl_link_hello h = {
		.transport = t->wire_id, .version = t->wire_version,
		.info = info, .info_len = (uint32_t)info_len,
	};
	struct adxl_buf b = { 0 };
	uint32_t type;
	size_t len;
	int ret;

	*msg = NULL;
	memset(in, 0, sizeof(*in));
	ret = adxl__link_hello_encode(&h, &b);
	if (!ret)
		ret = adxl__send_msg(p->fd, ADXL_MSG_LINK_HELLO, b.data, b.len,
				     deadline);
	adxl__buf_free(&b);
	/*
	 * A renewal's answer may come after the late ack of a notify, or
	 * the late answer of a query, that timed out earlier (notify.c).
	 */
	while (!ret) {
		ret = adxl__recv_msg(p->fd, &type, msg, &len, deadline);
		if (ret || (type != ADXL_MSG_NOTIFY_ACK &&
			    type != ADXL_MSG_QUERY_REPLY))
			break;
		free(*msg);
		*msg = NULL;
	}
	if (ret == -ETIMEDOUT) {
		adxl__err("Connect %s: no answer to the %s hello in time",
			  p->name, t->label);
		return ADXL_TIMEOUT;
	}
	if (!ret)
		ret = type == ADXL_MSG_LINK_REPLY ?
			adxl__link_reply_decode(*msg, len, in) : -EPROTO;
	if (!ret && in->transport != t->wire_id) {
		free(in->regs);
		memset(in, 0, sizeof(*in));
		ret = -EPROTO;
	}
	if (ret) {
		free(*msg);
		*msg = NULL;
		adxl__err("Connect %s: %s hello failed: %s", p->name, t->label,
			  ret == -EPROTO ? "the peer does not speak it" :
					   strerror(-ret));
		return ADXL_FAILED;
	}
	return ADXL_SUCCESS;
}
