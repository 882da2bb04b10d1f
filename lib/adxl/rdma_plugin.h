/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface between libmemreg's ADXL engine and its RDMA transport,
 * a plugin (LIBDIR/memreg/adxl-rdma.so, on libibverbs) that libmemreg
 * dlopen()s the first time an engine reaches a peer over RDMA; programs
 * that never do so never load libibverbs (as for UCX: ucx_plugin.h).
 *
 * Why verbs and not UCX's: UCX 1.13 (Debian 12) does not run over
 * soft-RoCE, the RDMA every machine has -- its RC transport needs UD for
 * point-to-point wire-up, which never completes over rxe, and through
 * RDMA CM it aborts in its async event handler (tests/vm/README.md).
 * RC queue pairs driven directly, as perftest does, work.
 *
 * The model is one-sided, as on a real RoCE or InfiniBand NIC:
 *   - every registration of the engine is also an MR of the plugin's
 *     protection domain;
 *   - at Connect the two engines each make an RC queue pair and exchange
 *     what connects them (struct adxl_rdma_qpinfo) and the server's table
 *     of registrations, over the control connection, each with the rkey
 *     the server granted this peer (mr_grant: a memory window bound on
 *     the peer's queue pair, valid on no other);
 *   - a transfer posts RDMA READ or WRITE work requests from the client's
 *     MRs to the server's, and polls its completion queue: the serving
 *     host's CPU does nothing;
 *   - mr_dereg revokes at once: every rkey granted for the MR is invalid
 *     when it returns, and a peer's READ or WRITE through one completes
 *     with a remote access error, never with stale or foreign bytes;
 *     qp_destroy revokes what was granted through the queue pair.
 *
 * Errors are negative errno values, with a message in @err:
 *   -ETIMEDOUT   the deadline passed first
 *   -EAGAIN      the deadline passed before anything was posted (another
 *                call had the queue pair): nothing happened, and the
 *                queue pair is fine
 *   -ECONNRESET  the peer is unreachable (retries exhausted) or gone
 *   -EACCES      the peer refused a range: no (longer a) registration
 *   -EFAULT      a local range is in no MR of ours
 *   -ENODEV      no RDMA device with an active port
 *   -ENOMEM, -EINVAL, -EIO  anything else
 * After -ETIMEDOUT, -ECONNRESET or -EACCES the queue pair is in the error
 * state, every work request of the call has completed (so no buffer is
 * touched afterwards) and qp_failed() is true: Connect again.
 */
#ifndef ADXL_RDMA_PLUGIN_H
#define ADXL_RDMA_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADXL_RDMA_PLUGIN_ABI	2
#define ADXL_RDMA_PLUGIN_FILE	"adxl-rdma.so"
#define ADXL_RDMA_PLUGIN_SYM	"adxl_rdma_plugin"
#define ADXL_RDMA_ERR_LEN	256

struct adxl_rdma;		/* device, port, GID, protection domain */
struct adxl_rdma_mr;		/* a registered range */
struct adxl_rdma_qp;		/* an RC queue pair to one peer */

/* What the peer needs to connect its queue pair to ours. */
struct adxl_rdma_qpinfo {
	uint8_t gid[16];	/* our port's GID (RoCE: the IP address) */
	uint32_t qpn;
	uint32_t psn;		/* our first packet sequence number */
	uint32_t mtu;		/* enum ibv_mtu: our port's active MTU */
	uint32_t lid;		/* 0 on RoCE */
};

/* One READ (remote into local) or WRITE (local into remote) of a batch. */
struct adxl_rdma_op {
	uint64_t local;
	uint64_t remote;
	uint64_t len;
	uint32_t rkey;		/* of the peer's MR that holds @remote */
};

struct adxl_rdma_ops {
	unsigned int abi;		/* ADXL_RDMA_PLUGIN_ABI */

	/*
	 * The device: MEMREG_ADXL_RDMA_DEVICE ("rxe0" or "mlx5_0:1") if
	 * set, else the first device with an active port; its GID:
	 * MEMREG_ADXL_RDMA_GID_INDEX if set, else a RoCE v2 GID of an IPv4
	 * address, else index 0.  -ENODEV if there is none.
	 */
	int (*open)(struct adxl_rdma **out, char *err);
	/* After every queue pair and MR is gone. */
	void (*close)(struct adxl_rdma *r);
	/*
	 * "rxe0 port 1, RoCE v2, GID ::ffff:10.9.0.1 (index 1), MTU 1024,
	 * a memory window per peer"
	 */
	const char *(*describe)(struct adxl_rdma *r);

	/*
	 * [@addr, +@len) an MR: the lkey of local ranges, and what grants
	 * give peers.  *rkey: the MR's own, which every peer may use, where
	 * the device has no memory windows; else 0 (peers need a grant).
	 */
	int (*mr_reg)(struct adxl_rdma *r, void *addr, size_t len,
		      struct adxl_rdma_mr **out, uint32_t *rkey, char *err);
	/*
	 * Deregistered: neither the MR's rkey nor any granted for it works
	 * when this returns.
	 */
	void (*mr_dereg)(struct adxl_rdma *r, struct adxl_rdma_mr *m);
	/*
	 * The rkey with which the peer of serving queue pair @q (connected)
	 * reads and writes all of @m: a type 2 memory window bound to @m on
	 * @q, refused on every other queue pair, until mr_dereg(@m) or
	 * qp_destroy(@q).  Without windows: the MR's own rkey.
	 */
	int (*mr_grant)(struct adxl_rdma_qp *q, struct adxl_rdma_mr *m,
			uint32_t *rkey, char *err);
	/*
	 * (mr_grant and mr_dereg of one MR must not overlap: the engine
	 * holds its registration lock across both.  A bind that fails
	 * leaves @q failed: -EIO from then on.)
	 */

	/*
	 * A queue pair, ready to be connected with what *mine says.  With
	 * @serve the peer may READ and WRITE our MRs through it (with their
	 * rkeys); without, it only initiates and the peer reaches nothing.
	 * @local_ip (4 bytes, network order; NULL: none): the IPv4 address
	 * the peer reaches us at, whose RoCE v2 GID is used if the device
	 * has one (unless MEMREG_ADXL_RDMA_GID_INDEX says otherwise).
	 */
	int (*qp_create)(struct adxl_rdma *r, bool serve,
			 const uint8_t *local_ip,
			 struct adxl_rdma_qpinfo *mine,
			 struct adxl_rdma_qp **out, char *err);
	/*
	 * Connected to the peer's queue pair (INIT -> RTR -> RTS); what we
	 * send carries @traffic_class (RoCE v2: the IP header's DSCP/ECN
	 * byte) and @service_level (InfiniBand's SL, 0-15).
	 */
	int (*qp_connect)(struct adxl_rdma_qp *q,
			  const struct adxl_rdma_qpinfo *peer,
			  unsigned int traffic_class,
			  unsigned int service_level, char *err);
	void (*qp_destroy)(struct adxl_rdma_qp *q);
	bool (*qp_failed)(struct adxl_rdma_qp *q);

	/*
	 * Read or write @n ranges and wait until all are complete (a WRITE:
	 * acknowledged by the peer's NIC), or until @deadline_ms
	 * (CLOCK_MONOTONIC milliseconds; -1 never).  Thread-safe: calls on
	 * one queue pair take turns.  0 or an error above.
	 */
	int (*xfer)(struct adxl_rdma_qp *q, bool write,
		    const struct adxl_rdma_op *ops, size_t n,
		    int64_t deadline_ms, char *err);
};

/* The one symbol the plugin exports. */
const struct adxl_rdma_ops *adxl_rdma_plugin(void);

#endif /* ADXL_RDMA_PLUGIN_H */
