// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control messages: hello (who I am, which kernel, my registrations
 * and their grant tokens), notify and its ack, and the link hello that
 * sets up a transport across hosts.  Pure encoding, no I/O, so
 * the unit tests check the bytes.  Strings travel as a u32 length and the
 * bytes; every length is checked against what is left of the payload.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

#define WIRE_REG_LEN	(8 + 8 + 4 + 4 + MEMREG_TOKEN_LEN)

static void put_str(struct adxl_buf *b, const char *s, size_t n)
{
	adxl__buf_u32(b, (uint32_t)n);
	adxl__buf_bytes(b, s, n);
}

/* A string of at most @max bytes into @out (NUL-terminated). */
static int get_str(struct adxl_rd *r, char *out, size_t max)
{
	uint32_t n = adxl__rd_u32(r);
	const uint8_t *p;

	if (r->err || n > max)
		return -EPROTO;
	p = adxl__rd_bytes(r, n);
	if (!p)
		return -EPROTO;
	memcpy(out, p, n);
	out[n] = '\0';
	/* Names are compared as C strings: an embedded NUL would lie. */
	return memchr(out, '\0', n) ? -EPROTO : 0;
}

bool adxl__ident_same(const struct adxl_ident *a, const struct adxl_ident *b)
{
	return !memcmp(a->instance_id, b->instance_id, sizeof(a->instance_id)) &&
	       a->incarnation == b->incarnation &&
	       a->start_time == b->start_time && a->epoch == b->epoch;
}

void adxl__ident_put(struct adxl_buf *b, const struct adxl_ident *id)
{
	adxl__buf_bytes(b, id->instance_id, sizeof(id->instance_id));
	adxl__buf_u64(b, id->incarnation);
	adxl__buf_u64(b, id->start_time);
	adxl__buf_u64(b, id->epoch);
}

int adxl__ident_get(struct adxl_rd *r, struct adxl_ident *id)
{
	const uint8_t *iid = adxl__rd_bytes(r, sizeof(id->instance_id));

	if (!iid)
		return -EPROTO;
	memcpy(id->instance_id, iid, sizeof(id->instance_id));
	id->incarnation = adxl__rd_u64(r);
	id->start_time = adxl__rd_u64(r);
	id->epoch = adxl__rd_u64(r);
	return r->err ? -EPROTO : 0;
}

int adxl__hello_encode(const struct adxl_hello *h, struct adxl_buf *b)
{
	size_t i;

	adxl__buf_u32(b, h->status);
	adxl__buf_u32(b, h->pid);
	adxl__ident_put(b, &h->ident);
	put_str(b, h->name, strlen(h->name));
	put_str(b, h->target, strlen(h->target));
	adxl__buf_u32(b, (uint32_t)h->n_regs);
	for (i = 0; i < h->n_regs; i++) {
		const struct adxl_wire_reg *w = &h->regs[i];

		adxl__buf_u64(b, w->addr);
		adxl__buf_u64(b, w->len);
		adxl__buf_u32(b, w->type);
		adxl__buf_u32(b, w->access);
		adxl__buf_bytes(b, w->token, sizeof(w->token));
	}
	return b->err ? -ENOMEM : 0;
}

int adxl__hello_decode(const uint8_t *p, size_t len, struct adxl_hello *h)
{
	struct adxl_rd r = { .p = p, .len = len };
	uint32_t n, i;

	memset(h, 0, sizeof(*h));
	h->status = adxl__rd_u32(&r);
	h->pid = adxl__rd_u32(&r);
	if (adxl__ident_get(&r, &h->ident))
		return -EPROTO;
	if (get_str(&r, h->name, ADXL_NAME_MAX) ||
	    get_str(&r, h->target, ADXL_NAME_MAX))
		return -EPROTO;
	n = adxl__rd_u32(&r);
	/* The count must fit what was sent: no allocation on a lie. */
	if (r.err || n > (len - r.off) / WIRE_REG_LEN)
		return -EPROTO;
	if (n) {
		h->regs = calloc(n, sizeof(*h->regs));
		if (!h->regs)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct adxl_wire_reg *w = &h->regs[i];

		w->addr = adxl__rd_u64(&r);
		w->len = adxl__rd_u64(&r);
		w->type = adxl__rd_u32(&r);
		w->access = adxl__rd_u32(&r);
		memcpy(w->token, adxl__rd_bytes(&r, sizeof(w->token)),
		       sizeof(w->token));
	}
	h->n_regs = n;
	if (r.off != len) {
		free(h->regs);
		h->regs = NULL;
		return -EPROTO;
	}
	return 0;
}

int adxl__notify_encode(uint32_t seq, const char *name, size_t name_len,
			const char *msg, size_t msg_len, struct adxl_buf *b)
{
	if (name_len > ADXL_NOTIFY_MAX_LEN || msg_len > ADXL_NOTIFY_MAX_LEN)
		return -EINVAL;
	adxl__buf_u32(b, seq);
	put_str(b, name, name_len);
	put_str(b, msg, msg_len);
	return b->err ? -ENOMEM : 0;
}

int adxl__notify_decode(const uint8_t *p, size_t len, uint32_t *seq,
			const char **name, size_t *name_len,
			const char **msg, size_t *msg_len)
{
	struct adxl_rd r = { .p = p, .len = len };
	uint32_t n;

	*seq = adxl__rd_u32(&r);
	n = adxl__rd_u32(&r);
	if (r.err || n > ADXL_NOTIFY_MAX_LEN)
		return -EPROTO;
	*name = (const char *)adxl__rd_bytes(&r, n);
	*name_len = n;
	n = adxl__rd_u32(&r);
	if (r.err || n > ADXL_NOTIFY_MAX_LEN)
		return -EPROTO;
	*msg = (const char *)adxl__rd_bytes(&r, n);
	*msg_len = n;
	return r.err || r.off != len ? -EPROTO : 0;
}

/* A query's request and its answer: bytes of the face's, bounded. */
int adxl__query_encode(uint32_t seq, const void *req, size_t req_len,
		       struct adxl_buf *b)
{
	if (req_len > ADXL_QUERY_MAX_REQ)
		return -EINVAL;
	adxl__buf_u32(b, seq);
	put_str(b, req, req_len);
	return b->err ? -ENOMEM : 0;
}

int adxl__query_decode(const uint8_t *p, size_t len, uint32_t *seq,
		       const uint8_t **req, size_t *req_len)
{
	struct adxl_rd r = { .p = p, .len = len };
	uint32_t n;

	*seq = adxl__rd_u32(&r);
	n = adxl__rd_u32(&r);
	if (r.err || n > ADXL_QUERY_MAX_REQ)
		return -EPROTO;
	*req = adxl__rd_bytes(&r, n);
	*req_len = n;
	return r.err || r.off != len ? -EPROTO : 0;
}

int adxl__query_reply_encode(uint32_t seq, uint32_t status, const void *ans,
			     size_t ans_len, struct adxl_buf *b)
{
	if (ans_len > ADXL_QUERY_MAX_ANSWER)
		return -EINVAL;
	adxl__buf_u32(b, seq);
	adxl__buf_u32(b, status);
	put_str(b, ans, ans_len);
	return b->err ? -ENOMEM : 0;
}

int adxl__query_reply_decode(const uint8_t *p, size_t len, uint32_t *seq,
			     uint32_t *status, const uint8_t **ans,
			     size_t *ans_len)
{
	struct adxl_rd r = { .p = p, .len = len };
	uint32_t n;

	*seq = adxl__rd_u32(&r);
	*status = adxl__rd_u32(&r);
	n = adxl__rd_u32(&r);
	if (r.err || n > ADXL_QUERY_MAX_ANSWER)
		return -EPROTO;
	*ans = adxl__rd_bytes(&r, n);
	*ans_len = n;
	return r.err || r.off != len ? -EPROTO : 0;
}

int adxl__ack_encode(uint32_t seq, uint32_t status, struct adxl_buf *b)
{
	adxl__buf_u32(b, seq);
	adxl__buf_u32(b, status);
	return b->err ? -ENOMEM : 0;
}

int adxl__ack_decode(const uint8_t *p, size_t len, uint32_t *seq,
		     uint32_t *status)
{
	struct adxl_rd r = { .p = p, .len = len };

	*seq = adxl__rd_u32(&r);
	*status = adxl__rd_u32(&r);
	return r.err || r.off != len ? -EPROTO : 0;
}

int adxl__commit_encode(uint32_t seq, struct adxl_buf *b)
{
	adxl__buf_u32(b, seq);
	return b->err ? -ENOMEM : 0;
}

int adxl__commit_decode(const uint8_t *p, size_t len, uint32_t *seq)
{
	struct adxl_rd r = { .p = p, .len = len };

	*seq = adxl__rd_u32(&r);
	return r.err || r.off != len ? -EPROTO : 0;
}

/*
 * The link hello: the transport it is for, that transport's version, and
 * what connects to the sender's end, as bytes only the transport reads
 * (a UCP worker address, a queue pair).  Its reply: the same transport, a
 * status with its reason, and unless refused the server's end and its
 * registrations, each with the key the transport granted for it.
 */
static void put_blob(struct adxl_buf *b, const void *p, size_t n)
{
	adxl__buf_u32(b, (uint32_t)n);
	adxl__buf_bytes(b, p, n);
}

/* A blob of 0..ADXL_LINK_INFO_MAX bytes, pointing into the payload. */
static const uint8_t *get_blob(struct adxl_rd *r, uint32_t *n)
{
	*n = adxl__rd_u32(r);
	if (r->err || *n > ADXL_LINK_INFO_MAX) {
		r->err = true;
		return NULL;
	}
	return adxl__rd_bytes(r, *n);
}

int adxl__link_hello_encode(const struct adxl_link_hello *h,
			    struct adxl_buf *b)
{
	adxl__buf_u32(b, h->transport);
	adxl__buf_u32(b, h->version);
	put_blob(b, h->info, h->info_len);
	return b->err ? -ENOMEM : 0;
}

int adxl__link_hello_decode(const uint8_t *p, size_t len,
			    struct adxl_link_hello *h)
{
	struct adxl_rd r = { .p = p, .len = len };

	memset(h, 0, sizeof(*h));
	h->transport = adxl__rd_u32(&r);
	h->version = adxl__rd_u32(&r);
	h->info = get_blob(&r, &h->info_len);
	return r.err || r.off != len ? -EPROTO : 0;
}

int adxl__link_reply_encode(const struct adxl_link_reply *u,
			    struct adxl_buf *b)
{
	size_t i;

	adxl__buf_u32(b, u->transport);
	adxl__buf_u32(b, u->status);
	put_str(b, u->msg, strlen(u->msg));
	if (u->status)
		return b->err ? -ENOMEM : 0;
	put_blob(b, u->info, u->info_len);
	adxl__buf_u32(b, (uint32_t)u->n_regs);
	for (i = 0; i < u->n_regs; i++) {
		adxl__buf_u64(b, u->regs[i].addr);
		adxl__buf_u64(b, u->regs[i].len);
		adxl__buf_u32(b, u->regs[i].type);
		adxl__buf_u32(b, u->regs[i].key);
	}
	return b->err ? -ENOMEM : 0;
}

/* addr, len, type, key */
#define LINK_WREG_LEN	(8 + 8 + 4 + 4)

int adxl__link_reply_decode(const uint8_t *p, size_t len,
			    struct adxl_link_reply *u)
{
	struct adxl_rd r = { .p = p, .len = len };
	uint32_t n, i;

	memset(u, 0, sizeof(*u));
	u->transport = adxl__rd_u32(&r);
	u->status = adxl__rd_u32(&r);
	if (r.err || get_str(&r, u->msg, sizeof(u->msg) - 1))
		return -EPROTO;
	if (u->status)
		return r.off == len ? 0 : -EPROTO;
	u->info = get_blob(&r, &u->info_len);
	n = adxl__rd_u32(&r);
	/* The count must be what was sent: no allocation on a lie. */
	if (r.err || n != (len - r.off) / LINK_WREG_LEN)
		return -EPROTO;
	if (n) {
		u->regs = calloc(n, sizeof(*u->regs));
		if (!u->regs)
			return -ENOMEM;
	}
	for (i = 0; i < n && !r.err; i++) {
		struct adxl_wreg *w = &u->regs[i];

		w->addr = adxl__rd_u64(&r);
		w->len = adxl__rd_u64(&r);
		w->type = adxl__rd_u32(&r);
		w->key = adxl__rd_u32(&r);
	}
	u->n_regs = n;
	if (r.err || r.off != len) {
		free(u->regs);
		u->regs = NULL;
		u->n_regs = 0;
		return -EPROTO;
	}
	return 0;
}

/*
 * The same-host challenge: the server's proof socket (an abstract name,
 * without its leading NUL) and a nonce, on the TCP link.
 */
int adxl__prove_encode(const struct adxl_prove *v, struct adxl_buf *b)
{
	adxl__buf_u32(b, ADXL_PROOF_VERSION);
	put_str(b, v->name, strlen(v->name));
	adxl__buf_bytes(b, v->nonce, sizeof(v->nonce));
	return b->err ? -ENOMEM : 0;
}

int adxl__prove_decode(const uint8_t *p, size_t len, struct adxl_prove *v)
{
	struct adxl_rd r = { .p = p, .len = len };
	const uint8_t *nonce;

	memset(v, 0, sizeof(*v));
	if (adxl__rd_u32(&r) != ADXL_PROOF_VERSION || r.err ||
	    get_str(&r, v->name, ADXL_PROOF_NAME_MAX) || !v->name[0])
		return -EPROTO;
	nonce = adxl__rd_bytes(&r, sizeof(v->nonce));
	if (!nonce || r.off != len)
		return -EPROTO;
	memcpy(v->nonce, nonce, sizeof(v->nonce));
	return 0;
}

/* The client's proof, on the Unix socket: the nonce and the TCP link. */
int adxl__proof_encode(const struct adxl_proof *f, struct adxl_buf *b)
{
	adxl__buf_u32(b, ADXL_PROOF_VERSION);
	adxl__buf_bytes(b, f->nonce, sizeof(f->nonce));
	adxl__buf_bytes(b, f->client_addr, sizeof(f->client_addr));
	adxl__buf_u32(b, f->client_port);
	adxl__buf_bytes(b, f->server_addr, sizeof(f->server_addr));
	adxl__buf_u32(b, f->server_port);
	return b->err ? -ENOMEM : 0;
}

int adxl__proof_decode(const uint8_t *p, size_t len, struct adxl_proof *f)
{
	struct adxl_rd r = { .p = p, .len = len };
	const uint8_t *n, *ca, *sa;

	memset(f, 0, sizeof(*f));
	if (adxl__rd_u32(&r) != ADXL_PROOF_VERSION || r.err)
		return -EPROTO;
	n = adxl__rd_bytes(&r, sizeof(f->nonce));
	ca = adxl__rd_bytes(&r, sizeof(f->client_addr));
	f->client_port = adxl__rd_u32(&r);
	sa = adxl__rd_bytes(&r, sizeof(f->server_addr));
	f->server_port = adxl__rd_u32(&r);
	if (r.err || r.off != len)
		return -EPROTO;
	memcpy(f->nonce, n, sizeof(f->nonce));
	memcpy(f->client_addr, ca, sizeof(f->client_addr));
	memcpy(f->server_addr, sa, sizeof(f->server_addr));
	return 0;
}
