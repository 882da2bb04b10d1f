/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * adxl-rdma.so internals, shared by its files (the contract with
 * libmemreg is lib/adxl/plugin.h and rdma_plugin.h):
 *
 *   device.c  picking and opening the device, port and GID; the
 *             protection domain; the plugin's table of operations
 *   mr.c      memory regions, and finding the one under a local range
 *   grant.c   a peer's rkey for an MR: a memory window on its queue pair
 *   qp.c      RC queue pairs: creating and connecting them, and what
 *             connects to one (its info, on the wire)
 *   xfer.c    batches of RDMA READs and WRITEs on a queue pair
 *
 * Locking: the lists of MRs and grants have their own mutex (r->lock),
 * taken by mr_reg, mr_dereg, mr_grant, qp_destroy and xfer's look-ups;
 * each queue pair has one (q->lock) that makes xfer calls and binds
 * (mr_grant) on it take turns.  libibverbs' own calls are
 * thread-safe.  Names shared between the files carry the rdmap_ prefix;
 * the plugin exports only adxl_transport_plugin_v1().
 */
#ifndef ADXL_RDMA_INT_H
#define ADXL_RDMA_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "../adxl/rdma_plugin.h"

/*
 * Work requests a queue pair keeps outstanding at most (its send queue
 * depth, unless the device allows fewer): 128 one-MiB WRITEs fill any
 * link, and the completion queue stays small.
 */
#define SQ_DEPTH	128
/*
 * The largest work request: CHUNK, or MEMREG_ADXL_RDMA_CHUNK up to
 * CHUNK_MAX, unless the port's max_msg_sz is smaller.  A range is cut
 * into chunks so that one large range keeps the window full and does not
 * hold the wire alone.  64 KiB: the answer to one READ leaves the
 * responder as one burst of packets, and soft-RoCE between two VMs lost
 * bursts of 1 MiB (the receiving queue overflows), each loss costing an
 * ACK timeout: READs of 1-4 MiB ran at 1.5-3.2 MB/s in 1 MiB chunks and
 * at 10.3-10.5 MB/s in 64 KiB ones (bench/run-rdma, 6.12, 2026-11-26),
 * writes at the same speed either way.  16 READs of 64 KiB in flight are
 * still ten times the bandwidth-delay product of a 100 Gb/s link.
 */
#define CHUNK		(64U << 10)
#define CHUNK_MAX	(1U << 20)
/*
 * RDMA READs in flight per queue pair, both as initiator (max_rd_atomic)
 * and as responder (max_dest_rd_atomic), unless the device allows fewer.
 * 16 is what common NICs (ConnectX) offer, so that both ends agree
 * without exchanging it; rxe offers 128.
 */
#define RD_ATOMIC_MAX	16

/*
 * The RC transport's timers (RTS).  The local ACK timeout is
 * 4.096 us * 2^ACK_TIMEOUT: 17 gives 0.54 s per attempt (the spec lets a
 * NIC wait up to four times longer), and RETRY_CNT 7 retries make about
 * 4.3 s of silence before a work request fails with RETRY_EXC_ERR, our
 * -ECONNRESET.  Real NICs answer in microseconds; soft-RoCE in a VM under
 * emulation (TCG, a vCPU shared with everything else) has been seen to
 * take tens of ms per MiB and to pause longer while the host is busy, and
 * a shorter timer would declare such a peer dead.  The price: a lost
 * packet (rxe under TCG loses read responses in bursts) costs 0.54 s.
 */
#define ACK_TIMEOUT	17
/* MEMREG_ADXL_RDMA_ACK_TIMEOUT overrides it: 1..31 (0 would mean never) */
#define ACK_TIMEOUT_MAX	31
#define RETRY_CNT	7
/*
 * RNR NAKs come only for SENDs into an empty receive queue, which this
 * plugin never posts; 7 (retry forever) and 12 (0.64 ms) are formalities.
 */
#define RNR_RETRY	7
#define MIN_RNR_TIMER	12
#define HOP_LIMIT	64

/* Polls that find nothing before a waiting xfer sleeps on its channel. */
#define SPIN		32
/*
 * The longest sleep on the completion channel: a missed event (none is
 * known) would cost at most this.
 */
#define WAIT_MAX_MS	100
/*
 * How long a failed batch waits for its flushed work requests; moving to
 * the error state flushes them at once on every NIC we know, so running
 * out of this means the device is wedged (the queue pair is then
 * destroyed, which guarantees the NIC is done with our buffers).
 */
#define DRAIN_MS	5000
/* Work completions per ibv_poll_cq call, work requests per ibv_post_send. */
#define POLL_BATCH	16
#define POST_BATCH	32

struct adxl_plugin_mem;
struct adxl_rdma_grant;

/* What the peer needs to connect its queue pair to ours (an ep's info). */
struct adxl_rdma_qpinfo {
	uint8_t gid[16];	/* our port's GID (RoCE: the IP address) */
	uint32_t qpn;
	uint32_t psn;		/* our first packet sequence number */
	uint32_t mtu;		/* enum ibv_mtu: our port's active MTU */
	uint32_t lid;		/* 0 on RoCE */
};

/* Its bytes: the GID, then the four numbers big-endian. */
#define QPINFO_LEN	(16 + 4 * 4)

struct adxl_plugin_ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	int gid_index;
	bool gid_forced;		/* MEMREG_ADXL_RDMA_GID_INDEX */
	union ibv_gid gid;
	uint32_t gid_type;		/* enum ibv_gid_type */
	size_t gid_room;		/* entries of the device's GID tables */
	enum ibv_mtu mtu;		/* the port's active MTU */
	uint16_t lid;			/* 0 on RoCE */
	int gid_tbl_len;
	uint64_t chunk;			/* the largest work request */
	unsigned int ack_timeout;	/* 4.096 us * 2^ack_timeout */
	unsigned int sq_depth;		/* SQ_DEPTH, or the device's max_qp_wr */
	unsigned int cqe;		/* the device's max_cqe */
	unsigned int rd_atomic;		/* READs we keep in flight at most */
	unsigned int dest_rd_atomic;	/* READs of a peer we serve at once */
	bool windows;			/* grants are type 2 memory windows */
	/* what our queue pairs send with (open's conf) */
	unsigned int traffic_class, service_level;

	pthread_mutex_t lock;		/* the MRs and the grants */
	struct adxl_plugin_mem *mrs;
	struct adxl_rdma_grant *grants;
	struct adxl_plugin_mem *last_hit;	/* of rdmap_mr_lkey() */

	char desc[192];			/* describe() */
};

struct adxl_plugin_mem {
	struct adxl_plugin_mem *next;
	struct ibv_mr *mr;
	uintptr_t addr;
	size_t len;
};

/* A window bound to MR @m on serving queue pair @q (grant.c). */
struct adxl_rdma_grant {
	struct adxl_rdma_grant *next;
	struct ibv_mw *mw;
	struct adxl_plugin_mem *m;
	struct adxl_plugin_ep *q;
	uint32_t rkey;
};

struct adxl_plugin_ep {
	struct adxl_plugin_ctx *r;
	pthread_mutex_t lock;		/* xfer calls take turns */
	struct ibv_comp_channel *ch;	/* the CQ's events: xfer sleeps on it */
	struct ibv_cq *cq;		/* this queue pair's alone */
	struct ibv_qp *qp;		/* NULL once a drain gave up (xfer.c) */
	uint32_t psn;			/* our first packet sequence number */
	int gid_index;			/* ours: the device's, or per peer */
	bool connected;
	bool armed;			/* the CQ will raise an event */
	bool failed;			/* read atomically by qp_failed() */
	uint32_t seq;			/* of xfer calls, in wr_id */
	uint64_t binds;			/* of grant.c's binds, in wr_id */
};

/* device.c */
void rdmap_say(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rdmap_append(char *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int64_t rdmap_now_ms(void);

/* mr.c */
int rdmap_mr_reg(struct adxl_plugin_ctx *r, void *addr, size_t len,
		 struct adxl_plugin_mem **out, uint32_t *rkey, char *err);
void rdmap_mr_dereg(struct adxl_plugin_ctx *r, struct adxl_plugin_mem *m);
void rdmap_mr_dereg_all(struct adxl_plugin_ctx *r);
bool rdmap_mr_lkey(struct adxl_plugin_ctx *r, uint64_t addr, uint64_t len,
		   uint32_t *lkey);

/* grant.c */
int rdmap_mr_grant(struct adxl_plugin_ep *q, struct adxl_plugin_mem *m,
		   uint32_t *rkey, char *err);
void rdmap_grants_revoke(struct adxl_plugin_ctx *r, const struct adxl_plugin_mem *m,
			 const struct adxl_plugin_ep *q);

/* qp.c */
/*
 * The index of our port's RoCE v2 GID of IPv4 address @ip (4 bytes;
 * NULL: of any), with its entry in *@out; or -1 (device.c).
 */
int rdmap_gid_find(struct adxl_plugin_ctx *r, const uint8_t *ip,
		   struct ibv_gid_entry *out);

void rdmap_qpinfo_put(const struct adxl_rdma_qpinfo *q, uint8_t *out);
/* 0, or -EINVAL if @len bytes at @in are not a queue pair's info. */
int rdmap_qpinfo_get(const void *in, size_t len, struct adxl_rdma_qpinfo *q);

int rdmap_qp_create(struct adxl_plugin_ctx *r, bool serve, const uint8_t *local_ip,
		    struct adxl_rdma_qpinfo *mine,
		    struct adxl_plugin_ep **out, char *err);
int rdmap_qp_connect(struct adxl_plugin_ep *q,
		     const struct adxl_rdma_qpinfo *peer,
		     unsigned int traffic_class, unsigned int service_level,
		     char *err);
void rdmap_qp_destroy(struct adxl_plugin_ep *q);
int rdmap_ep_create(struct adxl_plugin_ctx *r, bool serve,
		    const uint8_t *local_ip, void *info, size_t *info_len,
		    struct adxl_plugin_ep **out, char *err);
int rdmap_ep_connect(struct adxl_plugin_ep *q, const void *info,
		     size_t info_len, int64_t deadline, char *err);
bool rdmap_qp_failed(struct adxl_plugin_ep *q);

/* xfer.c */
int rdmap_xfer(struct adxl_plugin_ep *q, bool write,
	       const struct adxl_plugin_op *ops, size_t n, int64_t deadline,
	       char *err);

#endif /* ADXL_RDMA_INT_H */
