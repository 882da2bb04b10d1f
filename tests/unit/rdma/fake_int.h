/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fake libibverbs' internals, shared by its files (fake_verbs.h says
 * what it simulates):
 *
 *   fake_control.c  its state and everything a test calls
 *   fake_device.c   devices, ports, GIDs, contexts, PDs
 *   fake_mr.c       memory regions, memory windows and key checks
 *   fake_cq.c       completion channels, CQs, events, polling
 *   fake_qp.c       queue pairs: states, attributes, posting
 *   fake_wire.c     the thread that executes what was posted
 *
 * One mutex (fv.lock) guards all of it: the plugin's calls, the tests'
 * and the wire's.  Each object the plugin sees (struct ibv_qp ...) is the
 * first member of ours, so a cast gets from one to the other.
 */
#ifndef FAKE_INT_H
#define FAKE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fake_verbs.h"

enum fake_kind { LIVE_CTX, LIVE_PD, LIVE_MR, LIVE_MW, LIVE_CHANNEL, LIVE_CQ,
		 LIVE_QP, LIVE_KINDS };

struct fdev {
	struct ibv_device dev;		/* what ibv_get_device_list hands out */
	struct fake_device cfg;
};

struct fctx {
	struct ibv_context ctx;
	struct fdev *d;
	unsigned int children;		/* PDs, channels, CQs */
};

struct fpd {
	struct ibv_pd pd;
	unsigned int mrs;
	unsigned int qps;
};

struct fmr {
	struct ibv_mr mr;
	int access;
	struct fmr *next;
};

/* A type 2 memory window: bound to @mr on @qp, or free (@mr NULL). */
struct fmw {
	struct ibv_mw mw;		/* .rkey: the key it was bound with */
	struct fmw *next;
	struct fmr *mr;
	struct fqp *qp;
	uint64_t addr, len;
	int access;
};

struct fchan {
	struct ibv_comp_channel ch;	/* .fd: the pipe's read end */
	int wfd;			/* its write end: one CQ pointer an event */
	unsigned int cqs;
};

struct fcq {
	struct ibv_cq cq;
	struct fchan *ch;
	bool armed;
	unsigned int unacked;		/* events got, not yet acknowledged */
	unsigned int qps;
	struct ibv_wc *ring;		/* cqe entries */
	unsigned int head, count;
};

/* A work request on the send queue, copied at post time. */
struct fwr {
	struct fwr *next;
	uint64_t wr_id;
	enum ibv_wr_opcode opcode;
	bool signaled;
	struct ibv_sge sge;
	uint64_t remote_addr;
	uint32_t rkey;
	struct ibv_mw_bind_info bind;	/* IBV_WR_BIND_MW: what to bind */
	struct ibv_mw *mw;		/* ... and the window, with @rkey */
	int64_t due_ns;			/* CLOCK_MONOTONIC: when it may run */
};

struct fqp {
	struct ibv_qp qp;
	struct fqp *next;
	struct fdev *d;
	struct fcq *cq;
	bool sig_all;
	unsigned int cap;		/* max_send_wr */
	unsigned int max_sge;
	struct fwr *head, **tail;	/* queued, not yet run */
	unsigned int queued;
	unsigned int outstanding;	/* posted, completion not yet polled */
	unsigned int reads;		/* queued READs */
	int64_t err_ns;			/* when it went to ERR */
	/* the attributes of the state walk */
	uint8_t port;
	int access;
	struct fake_qp_info info;
	uint16_t dlid;
	bool is_global;
};

struct fail_rule {
	int err;
	unsigned int skip;
	int times;
};

struct fake_state {
	pthread_mutex_t lock;
	pthread_cond_t wake;		/* the wire's: work, or a switch */
	struct fdev devs[FAKE_MAX_DEVICES];
	int n_devs;

	unsigned int latency_us;
	bool silent, retry_exc, never_flush, no_driver;
	struct fail_rule fail[FAKE_CALLS];

	struct fmr *mrs;
	struct fmw *mws;
	struct fqp *qps;
	uint32_t next_key;
	uint32_t next_qpn;
	unsigned int live[LIVE_KINDS];
	struct fake_stats stats;
	char misuse[2048];

	pthread_t wire;
	bool wire_started, wire_stop;
};

extern struct fake_state fv;

/* fake_control.c, under fv.lock */
int fv_failing(enum fake_call call);
void fv_misuse_add(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int64_t fv_now_ns(void);

/* fake_device.c */
void fv_device_defaults(struct fake_device *c, int n);
bool fv_port_gid(const struct fake_port *p, int index, union ibv_gid *g);
struct fake_port *fv_port_of(struct fdev *d, uint8_t port);
bool fv_gid_known(const union ibv_gid *g);

/* fake_mr.c, under fv.lock (but the two ops, which lock) */
enum ibv_wc_status fv_mr_check(uint32_t key, bool remote, struct fqp *q,
				 uint64_t addr, uint64_t len, int access);
enum ibv_wc_status fv_mw_bind(struct fqp *q, const struct fwr *w);
struct ibv_mw *fv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int fv_dealloc_mw(struct ibv_mw *mw);

/* fake_cq.c */
int fv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int fv_req_notify_cq(struct ibv_cq *cq, int solicited_only);
void fv_cq_push(struct fcq *cq, const struct ibv_wc *wc);

/* fake_qp.c */
int fv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad);
struct fqp *fv_qp_find(uint32_t qpn);
void fv_qp_complete(struct fqp *q, struct fwr *w, enum ibv_wc_status st);
void fv_qp_flush(struct fqp *q);

/* fake_wire.c */
void fv_wire_start(void);
void fv_wire_stop(void);
void fv_wire_kick(void);

#endif /* FAKE_INT_H */
