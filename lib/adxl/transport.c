// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The table of transports, and what the engine does with every row of it:
 * each row's state for the engine's life, options, registrations, served
 * links, and the choice of the row that carries a peer at Connect.
 *
 * The rows are in the order Transport=auto prefers them: each row's
 * reachable() and connect() decide whether it carries a peer, or leave it
 * to the next.  A new transport is its file and its row here: these rows
 * are the only place that names the transports.
 */
#include <string.h>

#include "adxl_int.h"

extern const struct adxl_transport_ops adxl__kernel_transport;
extern const struct adxl_transport_ops adxl__rdma_transport;
extern const struct adxl_transport_ops adxl__ucx_transport;

const struct adxl_transport_ops *const adxl__transports[] = {
	&adxl__kernel_transport,
	&adxl__rdma_transport,
	&adxl__ucx_transport,
	NULL,
};

_Static_assert(sizeof(adxl__transports) / sizeof(adxl__transports[0]) <=
	       ADXL_TRANSPORT_MAX + 1, "a slot for every transport");

#define for_each_transport(t, i) \
	for ((i) = 0; ((t) = adxl__transports[(i)]); (i)++)

/* (NULL: how many rows there are) */
size_t adxl__transport_slot(const struct adxl_transport_ops *t)
{
	size_t i;

	for (i = 0; adxl__transports[i] != t; i++)
		;
	return i;
}

const struct adxl_transport_ops *adxl__transport_named(const char *name)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

const struct adxl_transport_ops *adxl__transport_of_wire(uint32_t wire_id)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (wire_id && t->wire_id == wire_id)
			return t;
	return NULL;
}

const struct adxl_transport_ops *adxl__transport_fallback(void)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (t->fallback)
			return t;
	return NULL;
}

/*
 * An engine with Transport=auto answers every transport's hello; one
 * with a transport answers that one's, and the fallback if its own
 * crosses hosts too (has hellos); one on the module alone answers none.
 */
bool adxl__transport_serves(const struct adxl_engine *e,
			    const struct adxl_transport_ops *t)
{
	return !e->transport || e->transport == t ||
	       (t->fallback && e->transport->wire_id);
}

int adxl__transports_init(struct adxl_engine *e)
{
	const struct adxl_transport_ops *t;
	size_t i;
	int ret;

	for_each_transport(t, i) {
		ret = t->init ? t->init(t, e) : 0;
		if (ret) {
			while (i-- > 0)
				if (adxl__transports[i]->fini)
					adxl__transports[i]->fini(adxl__transports[i], e);
			return ret;
		}
	}
	return 0;
}

/* In the reverse order of init. */
void adxl__transports_fini(struct adxl_engine *e)
{
	size_t i = adxl__transport_slot(NULL);

	while (i-- > 0)
		if (adxl__transports[i]->fini)
			adxl__transports[i]->fini(adxl__transports[i], e);
}

int adxl__transports_option(struct adxl_engine *e, const char *key,
			    const char *val)
{
	const struct adxl_transport_ops *t;
	size_t i;
	int ret;

	for_each_transport(t, i) {
		ret = t->option ? t->option(t, e, key, val) : 0;
		if (key && ret)
			return ret > 0 ? ADXL_SUCCESS : ADXL_PARAM_INVALID;
	}
	return 1;
}

void adxl__transports_stop(struct adxl_engine *e)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (t->stop)
			t->stop(t, e);
}

void adxl__transports_preload(struct adxl_engine *e)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (t->preload && adxl__transport_serves(e, t))
			t->preload(t, e);
}

int adxl__transports_expose(struct adxl_engine *e, struct adxl_reg *r)
{
	const struct adxl_transport_ops *t;
	size_t i;
	int ret;

	for_each_transport(t, i) {
		ret = t->expose ? t->expose(t, e, r) : 0;
		if (ret) {
			while (i-- > 0)
				if (adxl__transports[i]->hide)
					adxl__transports[i]->hide(adxl__transports[i], e, r);
			return ret;
		}
	}
	return 0;
}

/* In the reverse order: an MR goes before what was exposed before it. */
void adxl__transports_hide(struct adxl_engine *e, struct adxl_reg *r)
{
	size_t i = adxl__transport_slot(NULL);

	while (i-- > 0)
		if (adxl__transports[i]->hide)
			adxl__transports[i]->hide(adxl__transports[i], e, r);
}

void adxl__transports_link_release(struct adxl_engine *e, struct adxl_link *l)
{
	const struct adxl_transport_ops *t;
	size_t i;

	for_each_transport(t, i)
		if (t->link_release)
			t->link_release(t, e, l);
}

/*
 * The option's transport, which must connect; or with auto the first
 * row that is reachable and connects.  A row that declines (NOT_CONNECTED,
 * which only a row with others after it may say) leaves nothing on @p.
 */
adxl_status_t adxl__transport_connect(struct adxl_engine *e,
				      struct adxl_peer *p,
				      const struct adxl_hello *h,
				      int64_t deadline)
{
	const struct adxl_transport_ops *t;
	adxl_status_t st = ADXL_FAILED;
	size_t i;

	if (e->transport) {
		p->via = e->transport;
		return p->via->connect(p->via, e, p, h, deadline, NULL);
	}
	for_each_transport(t, i) {
		if (t->reachable && !t->reachable(t, e, p))
			continue;
		p->via = t;
		st = t->connect(t, e, p, h, deadline, adxl__transports[i + 1] ?
				adxl__transports[i + 1]->label : NULL);
		if (st != ADXL_NOT_CONNECTED)
			return st;
		p->via = NULL;
	}
	return st;
}
