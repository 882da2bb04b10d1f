// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A transport carried by a plugin, what every such transport does the
 * same way (plugged.h).
 *
 * Nothing of a plugin is loaded until an engine first needs its transport
 * (a Connect over it, or a peer's link hello for it).  Starting it opens
 * the plugin's context and registers every registration of the engine
 * with it; the context is published under reg_lock (write) once every
 * registration is, so a reader under reg_lock sees either no context or
 * every range registered.  From then on RegisterMem registers each new
 * range with it too, and DeregisterMem deregisters it there first, which
 * revokes every key granted for it.
 *
 * A link: the client makes an endpoint and sends what connects to it in
 * a link hello (link.c); the server makes an endpoint for that link,
 * connects it, grants the peer a key per registration -- the table at
 * that moment, as tokens on one kernel: later registrations need a new
 * Connect -- and answers with what connects to its end; the client
 * connects its endpoint.  The server's endpoint lives as long as the
 * link: when the peer disconnects, exits or its host goes away, the link
 * closes and the endpoint goes, with its keys.  A second link hello on a
 * link replaces its endpoint (a transport renewing a failed one); it
 * costs what a Connect costs, so a link may say it RENEW_RATE times a
 * second at most.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "plugged.h"

#define RENEW_RATE	10

/* Its state in a served link (l->tlink). */
struct plugged_link {
	struct adxl_plugin_ep *ep;
	/* hellos the peer may still say on this link now */
	double tokens;
	int64_t counted_ms;		/* when the tokens were counted */
};

int adxl__plugged_init(const struct adxl_transport_ops *t,
		       struct adxl_engine *e)
{
	struct adxl_plugged_engine *pe = calloc(1, sizeof(*pe));

	if (!pe)
		return -ENOMEM;
	*adxl__tstate(e, t) = pe;
	return 0;
}

void adxl__plugged_fini(const struct adxl_transport_ops *t,
			struct adxl_engine *e)
{
	free(*adxl__tstate(e, t));
	*adxl__tstate(e, t) = NULL;
}

int adxl__plugged_expose(const struct adxl_transport_ops *t,
			 struct adxl_engine *e,
			 struct adxl_reg *r)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	struct adxl_plugin_mem **m = (struct adxl_plugin_mem **)adxl__tmem(r, t);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	int ret;

	if (!pe->ctx || *m)
		return 0;
	ret = pe->plugin->mem_reg(pe->ctx, (void *)r->addr, r->len, m, err);
	if (!ret)
		return 0;
	*m = NULL;
	if (t->plugged->reg_fatal) {
		adxl__err("%s cannot expose [0x%lx, +%zu): %s", t->label,
			  (unsigned long)r->addr, r->len, err);
		return ret;
	}
	/* Not fatal: the range is announced without a key. */
	adxl__warn("%s cannot register %s memory [0x%lx, +%zu): %s; peers cannot reach it over %s",
		   t->label, r->type == ADXL_MEM_HOST ? "host" : "device",
		   (unsigned long)r->addr, r->len, err, t->label);
	return 0;
}

void adxl__plugged_hide(const struct adxl_transport_ops *t,
			struct adxl_engine *e,
			struct adxl_reg *r)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	struct adxl_plugin_mem **m = (struct adxl_plugin_mem **)adxl__tmem(r, t);

	if (!*m)
		return;
	pe->plugin->mem_dereg(pe->ctx, *m);
	*m = NULL;
}

adxl_status_t adxl__plugged_start(const struct adxl_transport_ops *t,
				  struct adxl_engine *e, char *why)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	char err[ADXL_TRANSPORT_WHY_LEN] = "", perr[512];
	adxl_status_t st = ADXL_SUCCESS;
	struct adxl_plugin_ctx *c;
	size_t i;

	pthread_mutex_lock(&e->transport_lock);
	if (pe->ctx)
		goto out;
	pe->plugin = adxl__plugin_load(t->plugged->env, t->plugged->file, t->plugged->dir,
				       t->name, perr, sizeof(perr));
	if (!pe->plugin) {
		snprintf(err, sizeof(err),
			 "unavailable: %.150s (is %s installed, and libmemreg's memreg/%s?)",
			 perr, t->plugged->package, t->plugged->file);
		st = ADXL_FAILED;
	} else if (pe->plugin->open(&pe->conf, &c, err)) {
		st = ADXL_FAILED;
	}
	if (st) {
		if (why)
			snprintf(why, ADXL_TRANSPORT_WHY_LEN, "%s", err);
		else
			adxl__err("%s transport%s %s", t->label,
				  pe->plugin ? ":" : "", err);
		goto out;
	}

	pthread_rwlock_wrlock(&e->reg_lock);
	pe->ctx = c;
	for (i = 0; i < e->n_regs; i++) {
		if (adxl__plugged_expose(t, e, &e->regs[i])) {
			while (i-- > 0)
				adxl__plugged_hide(t, e, &e->regs[i]);
			pe->ctx = NULL;
			st = ADXL_FAILED;
			break;
		}
	}
	pthread_rwlock_unlock(&e->reg_lock);
	if (st)
		pe->plugin->close(c);
out:
	pthread_mutex_unlock(&e->transport_lock);
	return st;
}

/*
 * Initialize, on the caller's thread before the listener thread starts:
 * the plugin file of a transport that says load_at_init is loaded now
 * (only loaded: its context still opens on first use).  Loading UCX's
 * runs libucm's constructor, which patches libc's brk, mmap and their
 * kin and then tests the patches by moving the program break itself,
 * sbrk(+page) then sbrk(-page), with nothing to stop other threads.
 * glibc's malloc moves the break of the main thread's heap under its own
 * arena lock and takes it for its own: when its sbrk falls between those
 * two, the second takes a page off the end of the heap malloc just grew,
 * and a later malloc of the main thread segfaults there.  On first use
 * that load ran on the listener thread, for a peer's link hello, while
 * the application's main thread registered and connected: the rebooted
 * engine of pair-6.12's power loss died in malloc so.  On the caller's
 * thread it races only with the application's other threads.  A load
 * that fails is said when the transport is used.
 */
void adxl__plugged_preload(const struct adxl_transport_ops *t,
			   struct adxl_engine *e)
{
	char err[512];

	(void)e;
	if (t->plugged->load_at_init)
		adxl__plugin_load(t->plugged->env, t->plugged->file,
				  t->plugged->dir, t->name, err, sizeof(err));
}

/* Finalize: after the peers, links (endpoints) and registrations. */
void adxl__plugged_stop(const struct adxl_transport_ops *t,
			struct adxl_engine *e)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);

	pthread_mutex_lock(&e->transport_lock);
	if (pe->ctx)
		pe->plugin->close(pe->ctx);
	pe->ctx = NULL;
	pthread_mutex_unlock(&e->transport_lock);
}

/*
 * The IPv4 address our end of control connection @fd has (4 bytes into
 * @ip), or NULL: a plugin picks what faces the peer on a host with
 * several addresses by it.
 */
static const uint8_t *local_ipv4(int fd, uint8_t *ip)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return NULL;
	if (ss.ss_family == AF_INET) {
		memcpy(ip, &((struct sockaddr_in *)&ss)->sin_addr, 4);
		return ip;
	}
	if (ss.ss_family == AF_INET6 &&
	    IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&ss)->sin6_addr)) {
		memcpy(ip, ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr + 12,
		       4);
		return ip;
	}
	return NULL;
}

adxl_status_t adxl__plugged_dial(const struct adxl_transport_ops *t,
				 struct adxl_engine *e,
				 struct adxl_peer *p, int64_t deadline,
				 struct adxl_plugin_ep **ep,
				 struct adxl_link_reply *in, uint8_t **msg,
				 char *err)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	size_t info_len = ADXL_PLUGIN_INFO_MAX;
	adxl_status_t st;
	uint8_t *info;
	uint8_t ip[4];
	int ret;

	*msg = NULL;
	*ep = NULL;
	info = malloc(ADXL_PLUGIN_INFO_MAX);
	if (!info) {
		snprintf(err, ADXL_PLUGIN_ERR_LEN, "out of memory");
		return ADXL_NOT_CONNECTED;
	}
	ret = pe->plugin->ep_create(pe->ctx, false, local_ipv4(p->fd, ip), info,
				    &info_len, ep, err);
	if (ret) {
		free(info);
		*ep = NULL;
		return ADXL_NOT_CONNECTED;
	}
	st = adxl__link_dial(p, t, info, info_len, deadline, in, msg);
	free(info);
	if (st) {
		pe->plugin->ep_destroy(*ep);
		*ep = NULL;
	}
	return st;
}

/*
 * The link over @t to @p, whose hello answered (@h: not needed).  Where
 * @next is given, what shows this transport cannot reach the peer (none
 * here, none there, an endpoint that does not connect) declines, so that
 * @next tries; the server's endpoint goes with the link.
 */
adxl_status_t adxl__plugged_connect(const struct adxl_transport_ops *t,
				    struct adxl_engine *e, struct adxl_peer *p,
				    const struct adxl_hello *h,
				    int64_t deadline, const char *next)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	const char *label = t->label, *name = p->name;
	char err[ADXL_TRANSPORT_WHY_LEN] = "";
	struct adxl_link_reply in = { 0 };
	struct adxl_plugged_peer *pp;
	struct adxl_plugin_ep *ep;
	uint8_t *msg = NULL;
	adxl_status_t st;
	int ret;

	(void)h;
	if (adxl__plugged_start(t, e, next ? err : NULL)) {
		if (!next)
			return ADXL_FAILED;
		adxl__info("Connect %s: no %s on this host (%s): over %s", name,
			   label, err, next);
		return ADXL_NOT_CONNECTED;
	}
	adxl__trace("Connect %s: %s started, sending the %s hello", name,
		    label, label);
	st = adxl__plugged_dial(t, e, p, deadline, &ep, &in, &msg, err);
	if (st == ADXL_NOT_CONNECTED) {
		if (next) {
			adxl__info("Connect %s: no %s %s here (%s): over %s",
				   name, label, t->plugged->ep_word, err, next);
			return ADXL_NOT_CONNECTED;
		}
		adxl__err("Connect %s: %s %s: %s", name, label, t->plugged->ep_word, err);
		return ADXL_FAILED;
	}
	if (st)
		return st;
	if (in.status) {
		if (next) {
			adxl__info("Connect %s: the peer has no %s (%s): over %s",
				   name, label, in.msg, next);
			st = ADXL_NOT_CONNECTED;
		} else {
			adxl__err("Connect %s: the peer refused %s: %s", name,
				  label, in.msg);
			st = ADXL_FAILED;
		}
		goto fail;
	}
	adxl__trace("Connect %s: %s reply, connecting the %s", name, label,
		    t->plugged->ep_word);
	ret = pe->plugin->ep_connect(ep, in.info, in.info_len, deadline, err);
	if (ret) {
		if (next) {
			/* the server's endpoint goes with the link */
			adxl__info("Connect %s: %s %s: %s: over %s", name,
				   label, t->plugged->ep_word, err, next);
			st = ADXL_NOT_CONNECTED;
		} else {
			adxl__err("Connect %s: %s %s: %s", name, label,
				  t->plugged->ep_word, err);
			st = ret == -ETIMEDOUT ? ADXL_TIMEOUT : ADXL_FAILED;
		}
		goto fail;
	}
	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		st = ADXL_FAILED;
		goto fail;
	}
	st = adxl__rregs_set(p, in.regs, in.n_regs);
	if (st) {
		free(pp);
		goto fail;
	}
	pthread_rwlock_init(&pp->lock, NULL);
	pp->ep = ep;
	p->tpeer = pp;
	if (t->plugged->connected_note)
		adxl__info("Connect %s: over %s, %s, %s", name, label,
			   pe->plugin->describe(pe->ctx), t->plugged->connected_note);
	free(in.regs);
	free(msg);
	return ADXL_SUCCESS;

fail:
	pe->plugin->ep_destroy(ep);
	free(in.regs);
	free(msg);
	return st;
}

/* The last reference to a peer @t carries: its endpoint. */
void adxl__plugged_release(const struct adxl_transport_ops *t,
			   struct adxl_engine *e, struct adxl_peer *p)
{
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	struct adxl_plugged_peer *pp = p->tpeer;

	if (!pp)
		return;
	pe->plugin->ep_destroy(pp->ep);
	pthread_rwlock_destroy(&pp->lock);
	free(pp);
	p->tpeer = NULL;
}

static bool may_renew(struct plugged_link *pl)
{
	int64_t now = adxl__now_ms();

	pl->tokens += (now - pl->counted_ms) * RENEW_RATE / 1000.0;
	if (pl->tokens > RENEW_RATE)
		pl->tokens = RENEW_RATE;
	pl->counted_ms = now;
	if (pl->tokens < 1)
		return false;
	pl->tokens -= 1;
	return true;
}

/* The link's endpoint goes, with its grants; its token count stays. */
static void link_ep_drop(struct adxl_plugged_engine *pe, struct plugged_link *pl)
{
	if (!pl->ep)
		return;
	pe->plugin->ep_destroy(pl->ep);
	pl->ep = NULL;
}

int adxl__plugged_answer(const struct adxl_transport_ops *t,
			 struct adxl_engine *e,
			 struct adxl_link *l, const uint8_t *in, size_t in_len,
			 struct adxl_buf *out, char *why)
{
	struct plugged_link **slot = (struct plugged_link **)adxl__tlink(l, t);
	const char *label = t->label;
	char err[ADXL_TRANSPORT_WHY_LEN] = "";
	struct adxl_plugged_engine *pe;
	struct plugged_link *pl = *slot;
	size_t info_len = ADXL_PLUGIN_INFO_MAX;
	uint8_t *info, ip[4];
	int ret;

	if (pl && pl->ep && !may_renew(pl)) {
		/* a peer cannot make us churn endpoints */
		snprintf(why, ADXL_TRANSPORT_WHY_LEN,
			 "this link renewed its %s %s too often (%d a second at most)",
			 label, t->plugged->ep_word, RENEW_RATE);
		return 0;
	}
	if (adxl__plugged_start(t, e, err)) {
		snprintf(why, ADXL_TRANSPORT_WHY_LEN, "engine %.64s: %s: %.160s",
			 e->name, label, err);
		return 0;
	}
	pe = adxl__plugged_of(e, t);
	if (!pl) {
		pl = calloc(1, sizeof(*pl));
		if (!pl)
			return -ENOMEM;
		pl->tokens = RENEW_RATE;
		pl->counted_ms = adxl__now_ms();
		*slot = pl;
	}
	/* a renewal: the old endpoint goes, with its grants */
	link_ep_drop(pe, pl);
	info = malloc(ADXL_PLUGIN_INFO_MAX);
	if (!info)
		return -ENOMEM;
	ret = pe->plugin->ep_create(pe->ctx, true, local_ipv4(l->fd, ip), info,
				    &info_len, &pl->ep, err);
	if (ret)
		pl->ep = NULL;
	else
		ret = pe->plugin->ep_connect(pl->ep, in, in_len, -1, err);
	if (ret) {
		link_ep_drop(pe, pl);
		snprintf(why, ADXL_TRANSPORT_WHY_LEN, "engine %.64s: %s: %.160s",
			 e->name, label, err);
	} else {
		adxl__buf_bytes(out, info, info_len);
	}
	free(info);
	return out->err ? -ENOMEM : 0;
}

int adxl__plugged_grant(const struct adxl_transport_ops *t,
			struct adxl_engine *e,
			struct adxl_link *l, const struct adxl_reg *r,
			uint32_t *key, char *why)
{
	struct plugged_link *pl = *adxl__tlink(l, t);
	struct adxl_plugin_mem *m = r->tmem[adxl__transport_slot(t)];
	struct adxl_plugged_engine *pe = adxl__plugged_of(e, t);
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	*key = 0;
	/* a range the plugin could not register goes without a key */
	if (!m || !pe->plugin->ep_grant(pl->ep, m, key, err))
		return 0;
	*key = 0;
	if (pe->plugin->ep_failed(pl->ep)) {
		/* the endpoint broke granting: no link over it */
		snprintf(why, ADXL_TRANSPORT_WHY_LEN, "engine %.64s: %s: %.160s",
			 e->name, t->label, err);
		adxl__warn("%s refused to a peer: %s", t->label, err);
		link_ep_drop(pe, pl);
		return -EIO;
	}
	adxl__warn("%s: no grant of [0x%lx, +%zu) for a peer: %s; it cannot reach that range",
		   t->label, (unsigned long)r->addr, r->len, err);
	return 0;
}

void adxl__plugged_link_release(const struct adxl_transport_ops *t,
				struct adxl_engine *e,
				struct adxl_link *l)
{
	struct plugged_link **slot = (struct plugged_link **)adxl__tlink(l, t);

	if (!*slot)
		return;
	link_ep_drop(adxl__plugged_of(e, t), *slot);
	free(*slot);
	*slot = NULL;
}
