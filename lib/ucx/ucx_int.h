/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adxl-ucx.so internals, shared by its three files (the contract with
 * libmemreg is lib/adxl/plugin.h and ucx_plugin.h; the messages
 * lib/ucx/adxl_ucx_wire.h):
 *
 *   context.c  the UCP context and worker, the progress thread, the
 *              exposed ranges, the plugin's table of operations
 *   serve.c    serving peers' READ and WRITE requests
 *   client.c   endpoints to peers and our own batches of reads and writes
 *
 * One UCP context and worker per engine, in serialized thread mode behind
 * one mutex (u->lock).  The mutex covers every UCX call and the batch
 * bookkeeping that callbacks update, so callbacks (which run inside
 * ucp_worker_progress) need no lock of their own.  Names shared between
 * the files carry the ucxp_ prefix; the plugin exports only
 * adxl_transport_plugin_v1().
 */
#ifndef ADXL_UCX_INT_H
#define ADXL_UCX_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ucp/api/ucp.h>

#include "../adxl/ucx_plugin.h"
#include "adxl_ucx_wire.h"

_Static_assert(ADXL_UCX_KEY_LEN == ADXL_UCX_WIRE_KEY_LEN,
	       "the plugin's key is the one on the wire");

/* Chunks in flight per batch: enough to fill a link, bounded memory. */
#define WINDOW		256
/*
 * The largest chunk, and the bytes a batch keeps in flight (a new chunk
 * goes out while fewer are, so at most INFLIGHT_MAX + CHUNK).
 */
#define CHUNK		(1U << 20)
#define CHUNK_MAX	ADXL_UCX_CHUNK_MAX
#define INFLIGHT_MAX	(16U << 20)
/*
 * The most bytes of answers the serving side holds until UCX has sent
 * them, over all its peers: our clients keep 16 MiB in flight per call,
 * one that ignores that (or its peer's slow link) gets -EBUSY.
 */
#define ANSWERS_MAX	(256U << 20)

/* Idle polls of a waiting caller before it sleeps until the next event. */
#define SPIN		32
/* How long a forced close may take to hand back our requests. */
#define CANCEL_MS	5000

struct adxl_plugin_ctx {
	pthread_mutex_t lock;
	pthread_cond_t progressed;	/* the progress thread did something */
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_address_t *addr;
	size_t addr_len;
	uint8_t key[ADXL_UCX_KEY_LEN];	/* peers' requests must carry it */
	int efd;			/* the worker's event fd */
	int wake_fd;			/* eventfd: stop the progress thread */
	pthread_t progress;
	struct adxl_plugin_mem *mems;	/* exposed ranges */
	struct adxl_plugin_mem *last_hit;
	struct ucxp_batch *batches;		/* xfer calls waiting for answers */
	uint64_t chunk;
	size_t answer_bytes;		/* of answers UCX has not sent yet */
	uint32_t next_seq;
	char desc[64];			/* describe() */
};

struct adxl_plugin_mem {
	struct adxl_plugin_mem *next;
	uintptr_t addr;
	size_t len;
};

/*
 * A serving end is only what tells a client where our worker is: our
 * worker serves every endpoint that carries its key.  A client's end is
 * an endpoint to the peer's worker once connected.
 */
struct adxl_plugin_ep {
	struct adxl_plugin_ctx *u;
	bool serving;
	bool opened;			/* ucxp_ep_open() succeeded */
	uint8_t key[ADXL_UCX_KEY_LEN];	/* the peer worker's access key */
	ucp_ep_h ep;			/* NULL once closed */
	bool failed;
	ucs_status_t why;
};

/* A chunk waiting for its answer. */
struct ucxp_slot {
	struct adxl_ucx_wire_req req;	/* as sent: UCX reads it until the send ends */
	uint64_t local;
	uint16_t gen;
	bool busy;
};

/*
 * One xfer call's (or one flush's) outstanding requests and chunks; see
 * ucxp_xfer() for why on the heap.
 */
struct ucxp_batch {
	struct ucxp_batch *next;
	struct adxl_plugin_ctx *u;
	uint32_t seq;
	uint64_t nonce;
	bool write;
	size_t inflight;	/* UCX requests (sends, flushes) not done */
	size_t busy;		/* chunks without an answer */
	size_t bytes;		/* their bytes */
	ucs_status_t status;	/* the first UCX error */
	int refused;		/* the first error the peer answered */
	uint64_t refused_addr, refused_len;
	unsigned int nfree;
	uint16_t free[WINDOW];
	struct ucxp_slot slot[WINDOW];
};

/* context.c */
void ucxp_say(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int64_t ucxp_now_ms(void);
int ucxp_errno_of(ucs_status_t st);

/* serve.c: the handlers of READ and WRITE */
ucs_status_t ucxp_on_read(void *arg, const void *header, size_t hlen,
			  void *data, size_t len,
			  const ucp_am_recv_param_t *prm);
ucs_status_t ucxp_on_write(void *arg, const void *header, size_t hlen,
			   void *data, size_t len,
			   const ucp_am_recv_param_t *prm);

/* client.c: the handler of DATA and DONE, and the endpoint operations */
ucs_status_t ucxp_on_answer(void *arg, const void *header, size_t hlen,
			    void *data, size_t len,
			    const ucp_am_recv_param_t *prm);
int ucxp_ep_create(struct adxl_plugin_ctx *u, bool serve,
		   const uint8_t *local_ip, void *info, size_t *info_len,
		   struct adxl_plugin_ep **out, char *err);
int ucxp_ep_connect(struct adxl_plugin_ep *e, const void *info,
		    size_t info_len, int64_t deadline, char *err);
int ucxp_ep_grant(struct adxl_plugin_ep *e, struct adxl_plugin_mem *m,
		  uint32_t *key, char *err);
void ucxp_ep_destroy(struct adxl_plugin_ep *e);
/* Client end @e (of its context) opened to the worker at @addr. */
int ucxp_ep_open(struct adxl_plugin_ep *e, const void *addr, size_t len,
		 const uint8_t key[ADXL_UCX_KEY_LEN], int64_t deadline,
		 char *err);
/* Closes and frees an opened @e. */
void ucxp_ep_close(struct adxl_plugin_ep *e, int timeout_ms);
bool ucxp_ep_failed(struct adxl_plugin_ep *e);
int ucxp_xfer(struct adxl_plugin_ep *e, bool write,
	      const struct adxl_plugin_op *ops, size_t n, int64_t deadline,
	      char *err);

#endif /* ADXL_UCX_INT_H */
