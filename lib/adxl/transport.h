/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A transport: one way this engine reaches a peer's memory.  Each is one
 * file that fills one struct adxl_transport_ops, and one row of
 * adxl__transports[] (transport.c), in the order Transport=auto prefers
 * them: the first row that is reachable and connects carries the peer.
 * Nothing outside a transport's file knows which transports there are:
 * the engine asks the table.  A transport carried by a plugin builds on
 * plugged.h.
 *
 * A transport keeps its own state in the slots the engine, each
 * registration, each peer and each served link have for it
 * (adxl__tstate() and friends); what every transport shares -- the
 * descriptors' checks and lookups, the batch loop, a failed link -- is in
 * transfer.c, and the link hello that carries a transport's connection
 * details over the control connection is in link.c.
 */
#ifndef ADXL_TRANSPORT_H
#define ADXL_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <adxl/adxl.h>

struct adxl_engine;
struct adxl_peer;
struct adxl_link;
struct adxl_reg;
struct adxl_rreg;
struct adxl_hello;
struct adxl_buf;
struct adxl_plugged;

/* A transfer: what the caller asked of a transport's @xfer. */
struct adxl_xfer {
	struct adxl_engine *e;
	struct adxl_peer *p;
	enum adxl_transfer_op op;
	const struct adxl_transfer_desc *descs;
	size_t n;
	int64_t deadline;		/* adxl__deadline()'s */
};

/* A descriptor resolved (transfer.c), for a transport's @fill. */
struct adxl_resolved {
	const struct adxl_xfer *x;
	const struct adxl_transfer_desc *d;
	size_t index;			/* in x->descs */
	const struct adxl_reg *l;	/* ours holding the local range */
	const struct adxl_rreg *r;	/* the peer's holding the remote one */
};

/* A batch of resolved descriptors, for a transport's @send. */
struct adxl_batch {
	const struct adxl_xfer *x;
	const void *ops;		/* @k elements @fill wrote */
	size_t k;
	size_t off;			/* the first one's index in x->descs */
	void *ctx;			/* @xfer's, through adxl__xfer_batches() */
};

/* The most rows adxl__transports[] may have (the slots are arrays). */
#define ADXL_TRANSPORT_MAX	4

struct adxl_transport_ops {
	const char *name;	/* option Transport's value: "kernel" */
	const char *label;	/* in messages: "memreg.ko" */

	/*
	 * Its tag in a link hello (link.c), 0 for a transport that needs no
	 * hello of its own.  A peer's hello is answered with @answer.
	 */
	uint32_t wire_id;
	uint32_t wire_version;
	/*
	 * Served even when the engine's Transport is another one that
	 * crosses hosts: the fallback every such engine answers.
	 */
	bool fallback;

	/*
	 * Every operation is given its own row @t first, so that one
	 * implementation may serve several rows (plugged.h: @plugged).
	 */
	const struct adxl_plugged *plugged;

	/* engine create / destroy: its state in adxl__tstate(); 0 or -errno */
	int (*init)(const struct adxl_transport_ops *t,
		    struct adxl_engine *e);
	void (*fini)(const struct adxl_transport_ops *t,
		     struct adxl_engine *e);
	/*
	 * Initialize: @key (without "adxl.") is one of its options: 1, with
	 * the value taken; -1 if the value is bad; 0 if the option is not
	 * its own.  @key NULL: back to the defaults.
	 */
	int (*option)(const struct adxl_transport_ops *t,
		      struct adxl_engine *e, const char *key, const char *val);
	/* Finalize, after the peers, links and registrations are gone. */
	void (*stop)(const struct adxl_transport_ops *t,
		     struct adxl_engine *e);
	/*
	 * Initialize, on the caller's thread before the listener starts,
	 * for a transport the engine may use (adxl__transport_serves()):
	 * what must not be done later on another thread (plugged.c).
	 */
	void (*preload)(const struct adxl_transport_ops *t,
			struct adxl_engine *e);

	/*
	 * Under reg_lock (write), once it runs: make @r reachable to peers
	 * (0, or -errno logged: RegisterMem fails), and undo that.
	 */
	int (*expose)(const struct adxl_transport_ops *t,
		      struct adxl_engine *e, struct adxl_reg *r);
	void (*hide)(const struct adxl_transport_ops *t,
		     struct adxl_engine *e, struct adxl_reg *r);

	/* Connect: whether it can reach @p, whose hello answered. NULL: yes */
	bool (*reachable)(const struct adxl_transport_ops *t,
			  struct adxl_engine *e, const struct adxl_peer *p);
	/*
	 * Connect's last step, with the peer's answer to our hello @h:
	 * ADXL_SUCCESS, or a status (logged).  With @next (the label of
	 * the row auto tries after this one; NULL: none, or the option
	 * chose this one), ADXL_NOT_CONNECTED says this transport cannot
	 * reach the peer and the next should try (logged as info, "over
	 * @next"), with nothing of this transport left on @p.
	 */
	adxl_status_t (*connect)(const struct adxl_transport_ops *t,
				 struct adxl_engine *e, struct adxl_peer *p,
				 const struct adxl_hello *h, int64_t deadline,
				 const char *next);
	/*
	 * Server side: a peer's link hello @in on link @l.  Fills @out with
	 * what connects to us, or says in @why (ADXL_TRANSPORT_WHY_LEN) why
	 * not: 0, or -errno to drop the link.  Then, under reg_lock (read),
	 * @grant is asked for each registration's key for that peer (NULL:
	 * 0); a grant that returns -errno refuses the link with @why.
	 */
	int (*answer)(const struct adxl_transport_ops *t,
		      struct adxl_engine *e, struct adxl_link *l,
		      const uint8_t *in, size_t in_len, struct adxl_buf *out,
		      char *why);
	int (*grant)(const struct adxl_transport_ops *t,
		     struct adxl_engine *e, struct adxl_link *l,
		     const struct adxl_reg *r, uint32_t *key, char *why);
	/* A served link closes: what the transport keeps for it goes. */
	void (*link_release)(const struct adxl_transport_ops *t,
			     struct adxl_engine *e, struct adxl_link *l);

	/*
	 * Whether a peer it connected is broken although its control
	 * connection lives, so that Connect replaces it.  NULL: never.
	 */
	bool (*broken)(const struct adxl_transport_ops *t,
		       struct adxl_engine *e, struct adxl_peer *p);
	/* The last reference to a peer it carries (or failed to connect). */
	void (*release)(const struct adxl_transport_ops *t,
			struct adxl_engine *e, struct adxl_peer *p);

	/*
	 * A transfer to @p (not dead): most transports check what they
	 * must and run adxl__xfer_batches(), which resolves the
	 * descriptors in batches of @batch_max with @fill and hands each
	 * batch to @send.
	 */
	adxl_status_t (*xfer)(const struct adxl_transport_ops *t,
			      const struct adxl_xfer *x);
	size_t batch_max;
	size_t op_size;			/* what @fill writes per descriptor */
	/* The carrier checks the remote end of each range (the module). */
	bool carrier_checks_remote;
	/*
	 * The carrier refuses memory of a peer whose process is gone by
	 * itself (the module: EOWNERDEAD), so a transfer need not look at
	 * the control connection first.  Otherwise every transfer does
	 * (one poll), so that a restarted peer is told at once, not after a
	 * network timeout, and before a byte moves.
	 */
	bool refuses_dead_owner;
	/*
	 * The carrier keeps the deadline itself (a plugin); else the batch
	 * loop checks it between batches, as the reference does.
	 */
	bool carrier_keeps_deadline;
	/* Descriptor @r as the transport sends it, at @out; or a status. */
	adxl_status_t (*fill)(const struct adxl_transport_ops *t,
			      const struct adxl_resolved *r, void *out);
	/* A batch: ADXL_SUCCESS, or a status (logged). */
	adxl_status_t (*send)(const struct adxl_transport_ops *t,
			      const struct adxl_batch *b);
};

#define ADXL_TRANSPORT_WHY_LEN	256

/* transport.c: the table, NULL-terminated, in the order auto prefers. */
extern const struct adxl_transport_ops *const adxl__transports[];

/* The row named @name, or NULL. */
const struct adxl_transport_ops *adxl__transport_named(const char *name);
/* The row whose link hellos carry @wire_id, or NULL. */
const struct adxl_transport_ops *adxl__transport_of_wire(uint32_t wire_id);
/* The row every engine that crosses hosts serves (its fallback). */
const struct adxl_transport_ops *adxl__transport_fallback(void);
/* Its index in adxl__transports[]: its slot everywhere. */
size_t adxl__transport_slot(const struct adxl_transport_ops *t);
/* Whether this engine answers @t's link hellos (its option Transport). */
bool adxl__transport_serves(const struct adxl_engine *e,
			    const struct adxl_transport_ops *t);

/* Every row, for the engine's life and each registration. */
int adxl__transports_init(struct adxl_engine *e);
void adxl__transports_fini(struct adxl_engine *e);
/* ADXL_SUCCESS, ADXL_PARAM_INVALID (bad value), or 1: no row's option. */
int adxl__transports_option(struct adxl_engine *e, const char *key,
			    const char *val);
void adxl__transports_stop(struct adxl_engine *e);
/* Initialize, before the listener thread: each row's preload. */
void adxl__transports_preload(struct adxl_engine *e);
int adxl__transports_expose(struct adxl_engine *e, struct adxl_reg *r);
void adxl__transports_hide(struct adxl_engine *e, struct adxl_reg *r);
void adxl__transports_link_release(struct adxl_engine *e, struct adxl_link *l);

/* Connect, hello answered: the option's transport, or auto's choice. */
adxl_status_t adxl__transport_connect(struct adxl_engine *e,
				      struct adxl_peer *p,
				      const struct adxl_hello *h,
				      int64_t deadline);

/* transfer.c: the batch loop every transport's @xfer may run. */
/* @x's descriptors from @from on; @ctx goes to each batch. */
adxl_status_t adxl__xfer_batches(const struct adxl_xfer *x, size_t from,
				 void *ctx);
/* The link of @p over @label broke: log why, the next Connect replaces it. */
adxl_status_t adxl__link_failed(struct adxl_peer *p, const char *label,
				const char *why);

#endif /* ADXL_TRANSPORT_H */
