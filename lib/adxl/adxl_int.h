/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internals of lib/adxl shared by its files.  Names with external linkage
 * carry the "adxl__" prefix; the version script keeps them out of the .so.
 *
 * Locks, outermost first: engine->conn_lock (one Connect at a time),
 * engine->lock (peer list, state), a transport's own lock of a peer (one
 * that renews its link), peer->io_lock (its control socket),
 * engine->transport_lock (starting a transport), engine->reg_lock
 * (registration table), engine->notify_lock, engine->async_lock;
 * engine->ca_lock is taken alone; engine->pool_lock before reg_lock.  None is held across
 * a transfer ioctl except reg_lock for reading while descriptors are
 * resolved (before the ioctl).
 */
#ifndef ADXL_INT_H
#define ADXL_INT_H

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <adxl/adxl.h>
#include <memreg/memreg.h>

#include "query.h"
#include "transport.h"

/* ---- log.c ---- */

/* A failure: stderr ("adxl: ...") and the thread's adxl_last_error(). */
void adxl__err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Worth knowing, not a failure of the call: stderr only. */
void adxl__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* What the engine chose (a transport): stderr with MEMREG_ADXL_VERBOSE=1. */
void adxl__info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void adxl__trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- name.c: "ip", "ip:port", "[ipv6]", "[ipv6]:port" ---- */

struct adxl_name {
	int family;			/* AF_INET or AF_INET6 */
	int port;			/* 0: none (client only) */
	struct sockaddr_storage sa;	/* the address with the port */
	socklen_t sa_len;
};

/* 0, or -1 if @name is not a valid engine name (nothing logged). */
int adxl__parse_name(const char *name, struct adxl_name *out);

/* ---- wire.c: byte buffers and framed messages on a socket ---- */

enum adxl_msg_type {
	ADXL_MSG_HELLO		= 1,	/* client -> server */
	ADXL_MSG_HELLO_REPLY	= 2,	/* server -> client */
	ADXL_MSG_NOTIFY		= 3,	/* client -> server */
	ADXL_MSG_NOTIFY_ACK	= 4,	/* server -> client */
	ADXL_MSG_BYE		= 5,	/* client -> server: orderly disconnect */
	ADXL_MSG_LINK_HELLO	= 6,	/* client -> server: a transport, my end */
	ADXL_MSG_LINK_REPLY	= 7,	/* server -> client: its end, the keys */
	/* 8, 9: version 1's second transport hello; not used again */
	ADXL_MSG_QUERY		= 10,	/* client -> server: ask its face */
	ADXL_MSG_QUERY_REPLY	= 11,	/* server -> client: the answer */
	ADXL_MSG_PROVE		= 12,	/* server -> client: prove your uid */
	ADXL_MSG_PROOF		= 13,	/* client -> server, Unix socket */
	ADXL_MSG_PROOF_REPLY	= 14,	/* server -> client, Unix socket */
	ADXL_MSG_NOTIFY_HOLD	= 15,	/* client -> server: a notify, held */
	ADXL_MSG_NOTIFY_COMMIT	= 16,	/* client -> server: hand it out */
	ADXL_MSG_WHO		= 17,	/* client -> server: who are you now */
	ADXL_MSG_WHO_REPLY	= 18,	/* server -> client: its identity */
};

/*
 * "ADX3": the wire's version.  2: a transport's hello is one message
 * tagged with the transport (LINK_HELLO, LINK_REPLY) where 1 had a pair
 * of messages per transport.  3: a hello carries the sender's identity
 * (struct adxl_ident), and WHO asks for it.
 */
#define ADXL_MSG_MAGIC		0x41445833U
#define ADXL_MSG_HDR_LEN	12		/* magic, type, payload length */
#define ADXL_MSG_MAX_LEN	(64U << 20)	/* a table of ~1.6M registrations */

/* An append-only byte buffer; on allocation failure @err is set. */
struct adxl_buf {
	uint8_t *data;
	size_t len, cap;
	bool err;
};

void adxl__buf_u32(struct adxl_buf *b, uint32_t v);
void adxl__buf_u64(struct adxl_buf *b, uint64_t v);
void adxl__buf_bytes(struct adxl_buf *b, const void *p, size_t n);
void adxl__buf_free(struct adxl_buf *b);

/* A reader over a received payload; reading past the end sets @err. */
struct adxl_rd {
	const uint8_t *p;
	size_t len, off;
	bool err;
};

uint32_t adxl__rd_u32(struct adxl_rd *r);
uint64_t adxl__rd_u64(struct adxl_rd *r);
const uint8_t *adxl__rd_bytes(struct adxl_rd *r, size_t n);

/* Milliseconds on CLOCK_MONOTONIC; a deadline of -1 never passes. */
int64_t adxl__now_ms(void);
int64_t adxl__deadline(int32_t timeout_ms);

/*
 * 0, -ETIMEDOUT (deadline passed), -EPIPE/-ECONNRESET (peer gone),
 * -EPROTO (not our protocol), -ENOMEM.  recv allocates *payload (free it).
 */
int adxl__send_msg(int fd, uint32_t type, const void *payload, size_t len,
		   int64_t deadline);
int adxl__recv_msg(int fd, uint32_t *type, uint8_t **payload, size_t *len,
		   int64_t deadline);
/* Append the frame of a message (header and payload) to @b. */
int adxl__frame_msg(struct adxl_buf *b, uint32_t type, const void *payload,
		    size_t len);

/* True if the peer closed the socket (EOF or error waiting), no waiting. */
bool adxl__sock_dead(int fd);

/* ---- msg.c: the control messages ---- */

/* A registration as the owner announces it. */
struct adxl_wire_reg {
	uint64_t addr;
	uint64_t len;
	uint32_t type;			/* enum adxl_mem_type */
	uint32_t access;		/* MEMREG_ACCESS_* */
	uint8_t token[MEMREG_TOKEN_LEN];
};

#define ADXL_NAME_MAX	255

/*
 * Which life of which engine: the kernel instance, the incarnation the
 * module issued to the process (0 from a module without them), the
 * process's start time, and a random number drawn at each Initialize (an
 * engine finalized and initialized again is a new engine too).  A peer
 * whose identity changed at the same name restarted: nothing learnt of
 * the old one (addresses, keys, tokens) may reach the new one (peer.c).
 */
struct adxl_ident {
	uint8_t instance_id[16];
	uint64_t incarnation;
	uint64_t start_time;		/* ns since the kernel booted */
	uint64_t epoch;
};

bool adxl__ident_same(const struct adxl_ident *a, const struct adxl_ident *b);
void adxl__ident_put(struct adxl_buf *b, const struct adxl_ident *id);
/* 0, or -EPROTO (r->err set) */
int adxl__ident_get(struct adxl_rd *r, struct adxl_ident *id);

struct adxl_hello {
	uint32_t status;		/* reply: 0, or why the server refused */
	uint32_t pid;
	struct adxl_ident ident;	/* the sender's */
	char name[ADXL_NAME_MAX + 1];	/* the sender's engine name */
	char target[ADXL_NAME_MAX + 1];	/* the engine it wants (hello) */
	struct adxl_wire_reg *regs;	/* decode: allocated */
	size_t n_regs;
};

/* Why a server refuses a hello (adxl_hello.status). */
#define ADXL_HELLO_OK		0
#define ADXL_HELLO_WRONG_NAME	1
#define ADXL_HELLO_OTHER_USER	2	/* this host, another uid (trust.c) */
#define ADXL_HELLO_NOT_ALLOWED	3	/* another host, not on the allow-list */
/* Not on the wire: this host, the client must prove its uid (proof.c). */
#define ADXL_HELLO_PROVE	100

int adxl__hello_encode(const struct adxl_hello *h, struct adxl_buf *b);
/* 0 or -EPROTO; h->regs must be freed by the caller. */
int adxl__hello_decode(const uint8_t *p, size_t len, struct adxl_hello *h);

int adxl__notify_encode(uint32_t seq, const char *name, size_t name_len,
			const char *msg, size_t msg_len, struct adxl_buf *b);
/* 0 or -EPROTO; *name and *msg point into @p (not NUL-terminated). */
int adxl__notify_decode(const uint8_t *p, size_t len, uint32_t *seq,
			const char **name, size_t *name_len,
			const char **msg, size_t *msg_len);

/* A query (seq, request) and its answer (seq, status, answer): query.h */
int adxl__query_encode(uint32_t seq, const void *req, size_t req_len,
		       struct adxl_buf *b);
/* 0 or -EPROTO; *req points into @p. */
int adxl__query_decode(const uint8_t *p, size_t len, uint32_t *seq,
		       const uint8_t **req, size_t *req_len);
int adxl__query_reply_encode(uint32_t seq, uint32_t status, const void *ans,
			     size_t ans_len, struct adxl_buf *b);
/* 0 or -EPROTO; *ans points into @p. */
int adxl__query_reply_decode(const uint8_t *p, size_t len, uint32_t *seq,
			     uint32_t *status, const uint8_t **ans,
			     size_t *ans_len);

/*
 * The same-host proof (proof.c).  The server's challenge, on the TCP link:
 * where its Unix socket is (an abstract name) and a nonce.  The client's
 * proof, on a connection to that socket: the nonce and the TCP link's
 * addresses as the client's kernel reports them (IPv4 as ::ffff:a.b.c.d),
 * so that a proof is good for that one connection only.
 */
#define ADXL_PROOF_VERSION	1
#define ADXL_NONCE_LEN		32
#define ADXL_PROOF_NAME_MAX	100	/* sun_path less the leading NUL */

struct adxl_prove {
	char name[ADXL_PROOF_NAME_MAX + 1];
	uint8_t nonce[ADXL_NONCE_LEN];
};

struct adxl_proof {
	uint8_t nonce[ADXL_NONCE_LEN];
	uint8_t client_addr[16];	/* the TCP link's client end */
	uint32_t client_port;
	uint8_t server_addr[16];	/* and its server end */
	uint32_t server_port;
};

/* The answer to a proof (PROOF_REPLY status). */
#define ADXL_PROOF_OK		0
#define ADXL_PROOF_UNKNOWN	1	/* no such challenge (wrong, spent) */
#define ADXL_PROOF_OTHER_USER	2	/* the prover is not the engine's uid */
#define ADXL_PROOF_OTHER_LINK	3	/* the nonce of another connection */

int adxl__prove_encode(const struct adxl_prove *v, struct adxl_buf *b);
int adxl__prove_decode(const uint8_t *p, size_t len, struct adxl_prove *v);
int adxl__proof_encode(const struct adxl_proof *f, struct adxl_buf *b);
int adxl__proof_decode(const uint8_t *p, size_t len, struct adxl_proof *f);

/*
 * Status in an ack: 0 queued (held, for a NOTIFY_HOLD; handed out, for
 * its NOTIFY_COMMIT), ADXL_RESOURCE_EXHAUSTED the link is full,
 * ADXL_FAILED (a commit) nothing held of that seq.
 */
int adxl__ack_encode(uint32_t seq, uint32_t status, struct adxl_buf *b);
int adxl__ack_decode(const uint8_t *p, size_t len, uint32_t *seq,
		     uint32_t *status);
/* A NOTIFY_COMMIT: the seq of the notify held. */
int adxl__commit_encode(uint32_t seq, struct adxl_buf *b);
int adxl__commit_decode(const uint8_t *p, size_t len, uint32_t *seq);

/*
 * A registration as the answer to a link hello announces it, with the key
 * the transport granted the peer for it (0: none, or none needed).
 */
struct adxl_wreg {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	uint32_t key;
};

/*
 * A link hello (link.c): the transport it is for (its wire_id), that
 * transport's version, and what connects to the sender's end (bytes the
 * transport alone reads; may be empty).
 */
struct adxl_link_hello {
	uint32_t transport;
	uint32_t version;
	const uint8_t *info;		/* decode: points into the payload */
	uint32_t info_len;
};

/* Its answer: refused with a reason, or the server's end and its table. */
struct adxl_link_reply {
	uint32_t transport;
	uint32_t status;		/* 0, or ADXL_LINK_REFUSED */
	char msg[ADXL_TRANSPORT_WHY_LEN];	/* why it was refused */
	const uint8_t *info;		/* decode: points into the payload */
	uint32_t info_len;
	struct adxl_wreg *regs;		/* decode: allocated */
	size_t n_regs;
};

#define ADXL_LINK_REFUSED	1
#define ADXL_LINK_INFO_MAX	((64U << 10) + 64)

int adxl__link_hello_encode(const struct adxl_link_hello *h,
			    struct adxl_buf *b);
/* 0 or -EPROTO */
int adxl__link_hello_decode(const uint8_t *p, size_t len,
			    struct adxl_link_hello *h);
int adxl__link_reply_encode(const struct adxl_link_reply *r,
			    struct adxl_buf *b);
/* 0, -EPROTO or -ENOMEM; r->regs must be freed. */
int adxl__link_reply_decode(const uint8_t *p, size_t len,
			    struct adxl_link_reply *r);

/* ---- the engine ---- */

struct adxl_reg {
	uint64_t id;			/* the MemHandle handed out */
	uintptr_t addr;
	size_t len;
	enum adxl_mem_type type;
	uint64_t handle;		/* memreg registration */
	uint8_t token[MEMREG_TOKEN_LEN];
	unsigned int refs;		/* RegisterMem calls for this range */
	/*
	 * The engine's own (the buffer pool, pool.c): id 0, no grant, never
	 * announced to peers, dropped at Finalize.
	 */
	bool internal;
	/* each transport's own of it, once that transport started */
	void *tmem[ADXL_TRANSPORT_MAX];
};

/* A peer's registration, imported. */
struct adxl_rreg {
	uint64_t addr;
	uint64_t len;
	uint32_t type;
	/*
	 * What the peer's transport names it by: the remote handle on our
	 * memreg context (kernel), the key it granted us (0: none).
	 */
	uint64_t key;
};

struct adxl_peer {
	struct adxl_peer *next;
	char *name;
	int fd;				/* control connection */
	pthread_mutex_t io_lock;	/* one request/answer at a time */
	uint32_t notify_seq;
	struct adxl_ident ident;	/* the peer's, from its hello */
	bool dead;			/* control connection lost */
	/*
	 * Once dead: what a WHO at its name found (peer.c), so that its
	 * transfers say why they are refused.  A restart is final for this
	 * entry; only Disconnect or Connect replaces it.
	 */
	enum adxl_peer_state gone;
	int64_t gone_ms;		/* when a WHO was last asked */
	/* The transport that carries it (set by Connect), and its state. */
	const struct adxl_transport_ops *via;
	void *tpeer;
	bool link_down;			/* its link failed or timed out */
	uint32_t pid;
	struct adxl_rreg *rregs;	/* sorted by addr */
	size_t n_rregs;
	unsigned int refs;		/* engine->lock */
};

/*
 * Whose slot a link waiting for its hello takes (server.c): a uid on this
 * host, an address elsewhere, or nobody we could tell.
 */
enum adxl_wait_kind {
	ADXL_WAIT_UNKNOWN,
	ADXL_WAIT_UID,
	ADXL_WAIT_ADDR,
};

struct adxl_wait_key {
	enum adxl_wait_kind kind;
	uid_t uid;
	uint8_t addr[16];		/* IPv4 as ::ffff:a.b.c.d */
};

/*
 * A link a peer opened to our listening socket.  The listener never
 * blocks on one: what arrives is gathered in @hdr and @in until a message
 * is whole, and an answer waits in @out until the socket takes it
 * (server.c).
 */
struct adxl_link {
	int fd;
	uint64_t id;
	bool hello_done;
	/*
	 * Its hello came from this host and was challenged: the link is not
	 * read until a proof decides it (proof.c).  @nonce is the challenge.
	 */
	bool proving;
	uint8_t nonce[ADXL_NONCE_LEN];
	/* Whose slot it takes while it waits for its hello (server.c). */
	struct adxl_wait_key key;
	bool close_when_sent;		/* a refusal: close once @out is sent */
	/* each transport's own of it, once the peer said a link hello */
	void *tlink[ADXL_TRANSPORT_MAX];
	char name[ADXL_NAME_MAX + 1];
	unsigned int pending;		/* notify_lock: unconsumed notifies */
	/*
	 * The notify it sent with NOTIFY_HOLD and has not committed (the
	 * listener's alone): handed out only once committed.
	 */
	struct adxl_notify *held;
	uint32_t held_seq;
	int64_t born_ms;		/* accepted at */
	int64_t busy_ms;		/* a message began or an answer waits */
	uint8_t hdr[ADXL_MSG_HDR_LEN];
	size_t hdr_have;
	uint8_t *in;			/* the payload, once the header is in */
	size_t in_len, in_have;
	struct adxl_buf out;
	size_t out_off;
};

/*
 * A connection to the engine's proof socket: the proof gathered until
 * whole, and the answer that waits for the socket to take it.
 */
struct adxl_prover {
	int fd;
	uid_t uid;			/* SO_PEERCRED: at its connect() */
	pid_t pid;
	int64_t born_ms;
	uint8_t in[ADXL_MSG_HDR_LEN + 128];
	size_t in_have;
	struct adxl_buf out;
	size_t out_off;
};

struct adxl_notify {
	struct adxl_notify *next;
	uint64_t link_id;
	char *name, *msg;
	size_t name_len, msg_len;
};

struct adxl_req;
struct adxl_ca_task;
struct adxl_ca_state;

/* trust.c: who may connect */
struct adxl_allow_net;
struct adxl_allow {
	bool any;			/* "*": every host */
	struct adxl_allow_net *nets;
	size_t n_nets;
};

/* "10.0.0.2,10.1.0.0/16,fd00::/8" or "*": 0, -EINVAL or -ENOMEM. */
int adxl__allow_parse(const char *spec, struct adxl_allow **out);
void adxl__allow_free(struct adxl_allow *a);
bool adxl__allow_match(const struct adxl_allow *a, int family,
		       const uint8_t *addr);
/*
 * The uid owning the other end of TCP socket @fd on this host, if that
 * socket is established: 0, -ENOENT (none, or no longer established), or
 * -errno.  Never a trust decision: a socket's owner is not whoever uses
 * it, and a closed one reads as uid 0.  It only says whose slot a waiting
 * link takes (server.c).
 */
int adxl__sock_peer_uid(int fd, uid_t *uid);
struct adxl_engine;
/* The keys new links of sockets @fds[@n] wait under (all at once). */
void adxl__wait_keys(struct adxl_engine *e, const int *fds, size_t n,
		     struct adxl_wait_key *keys);

struct adxl_engine {
	pthread_mutex_t lock;
	pthread_mutex_t conn_lock;
	bool initialised;
	char *name;
	struct adxl_name addr;
	bool auto_connect;
	/*
	 * The options select what hixl calls its client/server engine
	 * (LocalCommRes version 1.3, or protocol_desc uboe:device or
	 * ub_rtp:device): the one that answers the batch GetTransferStatus.
	 */
	bool hixl_cs;
	/* option Transport: its row of adxl__transports[]; NULL: auto */
	const struct adxl_transport_ops *transport;
	struct adxl_allow *allow;	/* remote hosts served; NULL: none */

	struct memreg_ctx *ctx;
	struct adxl_ident ident;		/* ours, drawn at Initialize */

	/*
	 * Each transport's state (transport.h), in its row's slot; a
	 * transport starts on first use under transport_lock.
	 */
	pthread_mutex_t transport_lock;
	void *tstate[ADXL_TRANSPORT_MAX];

	pthread_rwlock_t reg_lock;
	struct adxl_reg *regs;		/* sorted by addr */
	size_t n_regs, cap_regs;
	uint64_t next_reg_id;

	/*
	 * pool.c: option BufferPool, the buffers through which transfers of
	 * memory not registered are staged.  @pool_n buffers of @pool_buf
	 * bytes (0: none, "0:0"); the memory is made and registered on first
	 * use, under pool_lock (before reg_lock), which also guards the
	 * stack of free buffers.
	 */
	size_t pool_n, pool_buf;
	pthread_mutex_t pool_lock;
	pthread_cond_t pool_cond;	/* a buffer came free */
	uint8_t *pool_mem;
	size_t *pool_free;		/* indices of the free buffers */
	size_t pool_n_free;

	struct adxl_peer *peers;	/* lock */

	/* server.c */
	int listen_fd;			/* -1: client only */
	int wake_fd;			/* eventfd: stop the server thread */
	bool server_running;
	pthread_t server;
	struct adxl_link *links;	/* server thread; moves: notify_lock */
	size_t n_links;
	uint64_t next_link_id;
	int64_t flood_warned_ms;
	int64_t hello_deadline_ms;	/* 0: HELLO_DEADLINE_MS (tests set it) */
	bool no_sock_diag;		/* trust.c: read /proc/net/tcp at once */

	/* proof.c: the Unix socket where clients of this host prove */
	int proof_fd;			/* -1: none */
	char proof_name[ADXL_PROOF_NAME_MAX + 1];
	struct adxl_prover *provers;	/* server thread */
	size_t n_provers;

	/* notify.c */
	pthread_mutex_t notify_lock;
	struct adxl_notify *nhead, **ntail;

	/* query.c: the face's handler, set before Initialize */
	adxl_query_fn query_fn;
	void *query_arg;

	/* async.c */
	pthread_mutex_t async_lock;
	pthread_cond_t async_cond;
	struct adxl_req *reqs;		/* every unreleased request */
	size_t n_reqs;
	uint64_t next_req_id;
	bool worker_running, worker_stop;
	pthread_t worker;

	/* conn_async.c: ConnectAsync and DisconnectAsync */
	pthread_mutex_t ca_lock;
	pthread_cond_t ca_cond;
	struct adxl_ca_task *ca_head, **ca_tail;	/* queued, oldest first */
	size_t ca_queued;
	struct adxl_ca_state *ca_states;	/* the last state per peer */
	bool ca_running, ca_stop;
	pthread_t ca_worker;
};

/* json.c: hixl's JSON options */
/* 0 if @text is one JSON value and nothing more, else -1; is it an object. */
int adxl__json_check(const char *text, bool *is_object);
/*
 * Whether JSON text @text (checked) is an object whose member @key is
 * the string @want, or an array with that string among its elements.
 */
bool adxl__json_member_has(const char *text, const char *key,
			   const char *want);
/*
 * The integer member @key of the object @text (a number, or a string of
 * one): 0 and *@out; 1 if there is none; -1 if it is no integer.
 */
int adxl__json_member_int(const char *text, const char *key, long long *out);

/* engine.c */
/*
 * ADXL_SUCCESS if @e is initialised, else ADXL_FAILED, logged for @op.
 * Every call on an engine checks this before its arguments, as hixl does.
 */
adxl_status_t adxl__ready(const struct adxl_engine *e, const char *op);

/* regs.c */
adxl_status_t adxl__regs_hello(struct adxl_engine *e, struct adxl_hello *h);
/*
 * Register host memory [@addr, +@len) for the engine's own transfers (an
 * internal registration, above): ADXL_SUCCESS or a status, logged.
 */
adxl_status_t adxl__regs_add_internal(struct adxl_engine *e, uintptr_t addr,
				      size_t len);
void adxl__regs_drop_all(struct adxl_engine *e);
/* Under reg_lock (read): the registration holding [addr, addr + len). */
const struct adxl_reg *adxl__reg_find(const struct adxl_engine *e,
				      uintptr_t addr, size_t len);

/* peer.c */
struct adxl_peer *adxl__peer_get(struct adxl_engine *e, const char *name);
void adxl__peer_put(struct adxl_engine *e, struct adxl_peer *p);
void adxl__peers_drop_all(struct adxl_engine *e);
/* Whether the peer's control connection was seen closed (any thread). */
static inline bool adxl__peer_dead(struct adxl_peer *p)
{
	return __atomic_load_n(&p->dead, __ATOMIC_RELAXED);
}
/* Called by transfers and notifies: mark the peer gone, once, loudly. */
void adxl__peer_lost(struct adxl_peer *p);
/*
 * A @what ("transfer to") of dead peer @p is refused: ask once who is at
 * its name now (by @deadline), say why, and return ADXL_NOT_CONNECTED.
 */
adxl_status_t adxl__peer_gone(struct adxl_peer *p, const char *what,
			      int64_t deadline);
adxl_status_t adxl__control_result(struct adxl_peer *p, int ret,
				   const char *op, const char *remote_engine,
				   const char *reply, int32_t timeout_ms);
/* Connect under conn_lock (AutoConnect shares it with Connect). */
adxl_status_t adxl__connect_locked(struct adxl_engine *e, const char *name,
				   int32_t timeout_ms);
/* The peer, connecting first if AutoConnect is on; NULL: *status says why. */
struct adxl_peer *adxl__peer_for_op(struct adxl_engine *e, const char *name,
				    int32_t timeout_ms, adxl_status_t *status);

/*
 * trust.c: ADXL_HELLO_OK (another host, allowed), ADXL_HELLO_PROVE (this
 * host: proof.c decides), or a refusal with the reason in @why.
 */
uint32_t adxl__peer_allowed(const struct adxl_engine *e, int fd, char *why,
			    size_t why_len);

/* server.c */
adxl_status_t adxl__server_start(struct adxl_engine *e);
void adxl__server_stop(struct adxl_engine *e);
/*
 * Answer link @l's hello: @status ADXL_HELLO_OK with our table, or a
 * refusal (@why logged, for the peer called @name) after which the link
 * is closed.  0 or -errno.
 */
int adxl__hello_answer(struct adxl_engine *e, struct adxl_link *l,
		       uint32_t status, const char *name, const char *why);

/* proof.c: the same-host proof, server side (in the listener thread) */
int adxl__proof_start(struct adxl_engine *e);
void adxl__proof_stop(struct adxl_engine *e);
/* Challenge link @l: the PROVE message framed into l->out.  0 or -errno. */
int adxl__proof_challenge(struct adxl_engine *e, struct adxl_link *l,
			  const char *peer_name);
/* pollfds for the proof socket and its connections, from @pfd: how many. */
size_t adxl__proof_pollfds(struct adxl_engine *e, struct pollfd *pfd);
/* Serve what poll() said of them (the same @pfd); timeouts too. */
void adxl__proof_serve(struct adxl_engine *e, const struct pollfd *pfd,
		       size_t n, int64_t now, int64_t *wait_ms);
/* The most proof connections at once, for the pollfd array. */
#define ADXL_MAX_PROVERS	256

/*
 * proof.c: the client's side, after a PROVE on @fd: 0 or an ADXL_*
 * status, with *@closed set if the engine closed the proof connection
 * before it answered (the caller may dial again).
 */
adxl_status_t adxl__proof_give(int fd, const uint8_t *p, size_t len,
			       const char *peer, int64_t deadline, bool *closed);

/* notify.c */
bool adxl__notify_queue(struct adxl_engine *e, struct adxl_link *l,
			const char *name, size_t name_len,
			const char *msg, size_t msg_len, uint32_t *status);
/*
 * Hold a notify of link @l until its commit (replacing one held before):
 * true with *status 0 or ADXL_RESOURCE_EXHAUSTED, false if out of memory.
 */
bool adxl__notify_hold(struct adxl_engine *e, struct adxl_link *l,
		       uint32_t seq, const char *name, size_t name_len,
		       const char *msg, size_t msg_len, uint32_t *status);
/* Hand out the notify @l holds as @seq: 0, or ADXL_FAILED (none). */
uint32_t adxl__notify_commit(struct adxl_engine *e, struct adxl_link *l,
			     uint32_t seq);
/* Forget what @l holds (its link closes). */
void adxl__notify_unhold(struct adxl_link *l);
void adxl__notify_drop_all(struct adxl_engine *e);
void adxl__notify_link_gone(struct adxl_engine *e, uint64_t link_id);

/* peer.c: a peer's table of registrations, sorted; from a link reply */
void adxl__rregs_sort(struct adxl_peer *p);
adxl_status_t adxl__rregs_set(struct adxl_peer *p,
			      const struct adxl_wreg *regs, size_t n);

/* link.c: the link hello, both sides */
/*
 * Client: send @t's hello with our end's @info and wait for the answer
 * (late acks and query answers skipped), into @in (free in->regs and
 * *@msg, into which @in points): 0, or ADXL_TIMEOUT / ADXL_FAILED logged.
 */
adxl_status_t adxl__link_dial(struct adxl_peer *p,
			      const struct adxl_transport_ops *t,
			      const void *info, size_t info_len,
			      int64_t deadline, struct adxl_link_reply *in,
			      uint8_t **msg);
/* Server: the answer to link @l's link hello, framed into l->out. */
int adxl__link_answer(struct adxl_engine *e, struct adxl_link *l,
		      const uint8_t *p, size_t len);

/* plugin.c: the transport plugin @file, found as plugin.c says */
struct adxl_plugin;
/* Its table, or NULL with the reason in @err. */
const struct adxl_plugin *adxl__plugin_load(const char *env_var,
					    const char *file, const char *dir,
					    const char *transport, char *err,
					    size_t errlen);

/* transfer.c */
/*
 * Under reg_lock (read): our registration holding descriptor @d's local
 * range (*last is tried first, and set) and the peer's registration
 * holding its remote address.  PARAM_INVALID, logged, if either is
 * missing.  The remote end is not checked: the module does that.
 */
adxl_status_t adxl__desc_regs(struct adxl_engine *e, struct adxl_peer *p,
			      const struct adxl_transfer_desc *d, size_t index,
			      const struct adxl_reg **last,
			      const struct adxl_rreg **remote);
/* The peer's registration holding @addr, or NULL. */
const struct adxl_rreg *adxl__rreg_find(const struct adxl_peer *p,
					uint64_t addr);
adxl_status_t adxl__check_descs(enum adxl_transfer_op op,
				const struct adxl_transfer_desc *descs,
				size_t n);
adxl_status_t adxl__transfer(struct adxl_engine *e, struct adxl_peer *p,
			     enum adxl_transfer_op op,
			     const struct adxl_transfer_desc *descs, size_t n,
			     int64_t deadline);

/* A transport's slots of the engine, a registration, a link. */
static inline void **adxl__tstate(struct adxl_engine *e,
				  const struct adxl_transport_ops *t)
{
	return &e->tstate[adxl__transport_slot(t)];
}

static inline void **adxl__tmem(struct adxl_reg *r,
				const struct adxl_transport_ops *t)
{
	return &r->tmem[adxl__transport_slot(t)];
}

static inline void **adxl__tlink(struct adxl_link *l,
				 const struct adxl_transport_ops *t)
{
	return &l->tlink[adxl__transport_slot(t)];
}

/* query.c: the answer to a query on link @l, framed into l->out. */
int adxl__query_answer(struct adxl_engine *e, struct adxl_link *l,
		       const uint8_t *p, size_t len);

/* pool.c */
/*
 * TransferSync through the buffer pool, where it is needed: when the pool
 * is on and the local range of a descriptor is not registered.  Then
 * *@staged is set and the transfer's status returned; else nothing is
 * done (ADXL_SUCCESS, *@staged false).
 */
adxl_status_t adxl__pool_transfer(struct adxl_engine *e, struct adxl_peer *p,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *descs,
				  size_t n, int64_t deadline, bool *staged);
/* Finalize, after the registrations are gone: the pool's memory goes. */
void adxl__pool_stop(struct adxl_engine *e);

/* async.c */
void adxl__async_stop(struct adxl_engine *e);

/* conn_async.c: stop the worker, forget the queue and the states. */
void adxl__conn_async_stop(struct adxl_engine *e);

#endif /* ADXL_INT_H */
