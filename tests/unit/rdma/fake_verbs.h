/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fake libibverbs.so.1 for the unit tests of adxl-rdma.so (lib/rdma):
 * what the tests set up, flip and read.  The ibv_* side is the real
 * library's interface (<infiniband/verbs.h>); this header is the rest.
 *
 * What it simulates, in this process's memory, as an RC-capable NIC
 * does:
 *   - devices with ports, GID tables (each entry with its type, as
 *     ibv_query_gid_ex() and ibv_query_gid_table() read them) and
 *     limits;
 *   - MRs whose keys are never reused, so a deregistered rkey stays dead,
 *     and type 2 memory windows bound to them by a work request, whose
 *     rkey only the queue pair they are bound on accepts (an MR with a
 *     window bound cannot be deregistered: EBUSY, logged as misuse);
 *   - RC queue pairs that take the real state walk (RESET -> INIT -> RTR
 *     -> RTS, and ERR), refuse attributes beyond the device's limits, and
 *     reach their peer only when both ends were connected to each other
 *     (QPN, PSN, GID or LID, path MTU): anything else is a peer that
 *     never answers;
 *   - a wire, one thread that executes the queued READs and WRITEs of
 *     every queue pair in order, checking lkeys and rkeys (range, PD,
 *     access), after a configurable latency, and completes them on the
 *     send CQ; the first error moves the queue pair to ERR, and the
 *     wire flushes the rest a moment later, as a NIC does, not at once;
 *   - CQs armed with ibv_req_notify_cq that raise one event on their
 *     completion channel (a pipe) for the next completion only.
 *
 * What a real libibverbs would refuse, hang on or leave undefined (a CQ
 * destroyed with unacknowledged events, a PD freed under its MRs, a CQ
 * overrun) is logged as misuse: fake_misuse() returns the log.
 */
#ifndef FAKE_VERBS_H
#define FAKE_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define FAKE_MAX_DEVICES	4
#define FAKE_MAX_PORTS		2
#define FAKE_MAX_GIDS		8

struct fake_gid {
	const char *addr;	/* "::ffff:10.9.0.1"; NULL: an unused entry */
	/*
	 * As the kernel names it: "RoCE v2", or "IB/RoCE v1" (RoCE v1 on
	 * Ethernet, IB on InfiniBand); NULL: an old kernel that names
	 * none, whose entries libibverbs takes for "IB/RoCE v1".
	 */
	const char *type;
};

struct fake_port {
	enum ibv_port_state state;
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	enum ibv_mtu mtu;		/* active */
	uint16_t lid;
	uint32_t max_msg_sz;
	int n_gids;			/* gid_tbl_len */
	struct fake_gid gids[FAKE_MAX_GIDS];
};

struct fake_device {
	char name[32];
	enum ibv_transport_type transport;
	int max_qp_wr;
	int max_cqe;
	int max_qp_rd_atom;		/* READs a QP serves at once */
	int max_qp_init_rd_atom;	/* READs a QP has in flight */
	int n_ports;			/* phys_port_cnt */
	bool no_windows;		/* no type 2 memory windows */
	struct fake_port ports[FAKE_MAX_PORTS];	/* [0] is port 1 */
};

/*
 * Back to one device, "fake0": one active RoCE port, MTU 1024, rxe's
 * limits and a GID table as rxe fills it for one IPv4 address:
 *   0 fe80::1 IB/RoCE v1, 1 fe80::1 RoCE v2,
 *   2 ::ffff:10.9.0.1 IB/RoCE v1, 3 ::ffff:10.9.0.1 RoCE v2, 4 unused.
 * Also clears every switch, failure, statistic and the misuse log.
 * Call it with no verbs object alive.
 */
void fake_reset(void);
/* No devices at all (then fake_device_add() builds the list again). */
void fake_devices_clear(void);
/*
 * Another device, set up as fake0 is but with addresses of its own
 * (the n-th device: fe80::n+1, ::ffff:10.9.0.n+1), for the caller to
 * change before anything opens it.
 */
struct fake_device *fake_device_add(const char *name);
struct fake_device *fake_device(int index);

/*
 * The switches, each off after fake_reset().  Flipping one wakes the
 * wire, so it takes effect for work requests already queued.
 */
void fake_wire_latency_us(unsigned int us);	/* per work request */
void fake_peer_silent(bool on);		/* nothing answers; ERR flushes */
void fake_retries_exhausted(bool on);	/* each WR: RETRY_EXC_ERR */
void fake_never_flush(bool on);		/* ERR leaves WRs queued */
void fake_no_driver(bool on);		/* ibv_get_device_list: ENOSYS */

/* Calls that fake_fail() makes fail. */
enum fake_call {
	FAKE_OPEN_DEVICE,	/* NULL, errno */
	FAKE_ALLOC_PD,		/* NULL, errno */
	FAKE_REG_MR,		/* NULL, errno */
	FAKE_CREATE_CHANNEL,	/* NULL, errno */
	FAKE_CREATE_CQ,		/* NULL, errno */
	FAKE_CREATE_QP,		/* NULL, errno */
	FAKE_POST_SEND,		/* per work request: the errno, *bad there */
	FAKE_POLL_CQ,		/* -1 */
	FAKE_NOTIFY_CQ,		/* the errno */
	FAKE_BIND,		/* a bind completes with MW_BIND_ERR */
	FAKE_CALLS
};
/*
 * The call (for FAKE_POST_SEND: the work request) after the next @skip
 * ones fails with @err, @times times (-1: from then on).
 */
void fake_fail(enum fake_call call, int err, unsigned int skip, int times);

struct fake_stats {
	unsigned long posts;		/* ibv_post_send calls */
	unsigned long wrs;		/* work requests accepted */
	unsigned long executed;		/* run on the wire, well or not */
	unsigned long flushed;		/* completed with WR_FLUSH_ERR */
	unsigned long discarded;	/* still queued when destroyed */
	unsigned long events;		/* raised on completion channels */
	uint32_t max_wr_len;		/* the largest work request */
	unsigned int max_outstanding;	/* on one QP: posted, not polled */
};
void fake_get_stats(struct fake_stats *out);
void fake_clear_stats(void);

struct fake_qp_info {
	enum ibv_qp_state state;
	enum ibv_mtu path_mtu;
	uint32_t dest_qpn;
	uint32_t sq_psn;
	uint32_t rq_psn;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t sgid_index;
	union ibv_gid dgid;
	uint8_t traffic_class;	/* of the GRH (RoCE v2: DSCP/ECN) */
	uint8_t sl;
	unsigned int in_nic;	/* work requests not yet completed */
};
/* False if no such queue pair exists (any more). */
bool fake_qp_info(uint32_t qpn, struct fake_qp_info *out);

/* Verbs objects alive now: contexts, PDs, MRs, MWs, channels, CQs, QPs. */
unsigned int fake_live_objects(char *what, size_t len);
/* What a real libibverbs would have refused or hung on, into @buf. */
bool fake_misuse(char *buf, size_t len);

#endif /* FAKE_VERBS_H */
