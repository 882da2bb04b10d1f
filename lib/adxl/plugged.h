/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every transport carried by a plugin (plugin.h) shares, so that
 * such a transport's file says only what is its own: loading and starting
 * its plugin on first use, registering every registration with it, the
 * client's and the server's side of its link hello, the keys it grants,
 * its endpoints' lifetimes (plugged.c).
 */
#ifndef ADXL_PLUGGED_H
#define ADXL_PLUGGED_H

#include <pthread.h>

#include "adxl_int.h"
#include "plugin.h"

/* What a plugin transport says of itself (t->plugged, a constant). */
struct adxl_plugged {
	const char *env;	/* the variable that names another plugin file */
	const char *file;	/* under LIBDIR/memreg/ */
	const char *dir;	/* LIBDIR/memreg, as the build set it */
	const char *package;	/* what to install when it does not load */
	const char *ep_word;	/* what its endpoints are: "queue pair" */
	/* After "Connect X: over LABEL, <describe>, " when it connects. */
	const char *connected_note;
	/*
	 * A range the plugin cannot register fails RegisterMem; else it is
	 * announced without a key, and transfers to it are refused.
	 */
	bool reg_fatal;
	/*
	 * Its plugin file is loaded by Initialize, on the caller's thread,
	 * instead of on first use: loading it is not safe while another
	 * thread of the process may be in malloc (plugged.c says why).
	 */
	bool load_at_init;
};

/* The transport's state in the engine (adxl__tstate). */
struct adxl_plugged_engine {
	const struct adxl_plugin *plugin;
	struct adxl_plugin_ctx *ctx;	/* NULL until started */
	struct adxl_plugin_conf conf;	/* the engine's options for it */
};

/* Its state in a peer it carries (p->tpeer). */
struct adxl_plugged_peer {
	/*
	 * @ep, and the peer's table (p->rregs), are replaced when a
	 * transport renews the link while the peer is still there: a
	 * transfer holds @lock for reading, a renewal for writing; @gen
	 * counts the renewals, so that threads that failed together renew
	 * once.
	 */
	pthread_rwlock_t lock;
	unsigned int gen;
	struct adxl_plugin_ep *ep;
};

static inline struct adxl_plugged_engine *
adxl__plugged_of(struct adxl_engine *e, const struct adxl_transport_ops *t)
{
	return *adxl__tstate(e, t);
}

static inline struct adxl_plugged_peer *adxl__plugged_peer(struct adxl_peer *p)
{
	return p->tpeer;
}

/*
 * Started (once): ADXL_SUCCESS, or ADXL_FAILED, logged -- or said in
 * @why (ADXL_TRANSPORT_WHY_LEN) if not NULL.
 */
adxl_status_t adxl__plugged_start(const struct adxl_transport_ops *t,
				  struct adxl_engine *e, char *why);
/*
 * Client: a new endpoint of ours, its link hello and the answer (@in,
 * pointing into *@msg: free both, and destroy *@ep if kept): 0;
 * ADXL_NOT_CONNECTED if no endpoint could be made (@err says why); or a
 * status logged.  Nothing is left but what succeeded.
 */
adxl_status_t adxl__plugged_dial(const struct adxl_transport_ops *t,
				 struct adxl_engine *e, struct adxl_peer *p,
				 int64_t deadline, struct adxl_plugin_ep **ep,
				 struct adxl_link_reply *in, uint8_t **msg,
				 char *err);

/*
 * The ops of transport.h every plugin transport's row has, and its batch
 * loop's: a plugin's ops (plugin.h), in batches that bound what a call
 * allocates; the plugin keeps the deadline.
 */
#define ADXL_PLUGGED_OPS					\
	.init = adxl__plugged_init,				\
	.fini = adxl__plugged_fini,				\
	.stop = adxl__plugged_stop,				\
	.preload = adxl__plugged_preload,			\
	.expose = adxl__plugged_expose,				\
	.hide = adxl__plugged_hide,				\
	.connect = adxl__plugged_connect,			\
	.release = adxl__plugged_release,			\
	.answer = adxl__plugged_answer,				\
	.grant = adxl__plugged_grant,				\
	.link_release = adxl__plugged_link_release,		\
	.batch_max = 4096,					\
	.op_size = sizeof(struct adxl_plugin_op),		\
	.carrier_keeps_deadline = true

/* These are transport.h's ops, for a row whose @plugged is set. */
int adxl__plugged_init(const struct adxl_transport_ops *t,
		       struct adxl_engine *e);
void adxl__plugged_fini(const struct adxl_transport_ops *t,
			struct adxl_engine *e);
void adxl__plugged_stop(const struct adxl_transport_ops *t,
			struct adxl_engine *e);
void adxl__plugged_preload(const struct adxl_transport_ops *t,
			   struct adxl_engine *e);
int adxl__plugged_expose(const struct adxl_transport_ops *t,
			 struct adxl_engine *e, struct adxl_reg *r);
void adxl__plugged_hide(const struct adxl_transport_ops *t,
			struct adxl_engine *e, struct adxl_reg *r);
adxl_status_t adxl__plugged_connect(const struct adxl_transport_ops *t,
				    struct adxl_engine *e, struct adxl_peer *p,
				    const struct adxl_hello *h,
				    int64_t deadline, const char *next);
void adxl__plugged_release(const struct adxl_transport_ops *t,
			   struct adxl_engine *e, struct adxl_peer *p);
int adxl__plugged_answer(const struct adxl_transport_ops *t,
			 struct adxl_engine *e, struct adxl_link *l,
			 const uint8_t *in, size_t in_len,
			 struct adxl_buf *out, char *why);
int adxl__plugged_grant(const struct adxl_transport_ops *t,
			struct adxl_engine *e, struct adxl_link *l,
			const struct adxl_reg *r, uint32_t *key, char *why);
void adxl__plugged_link_release(const struct adxl_transport_ops *t,
				struct adxl_engine *e, struct adxl_link *l);

#endif /* ADXL_PLUGGED_H */
