/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The RDMA plugin (LIBDIR/memreg/adxl-rdma.so, lib/rdma/, on libibverbs):
 * what is its own beside the interface every plugin has (plugin.h).
 *
 * Why verbs and not UCX's: UCX 1.13 (Debian 12) does not run over
 * soft-RoCE, the RDMA every machine has -- its RC transport needs UD for
 * point-to-point wire-up, which never completes over rxe, and through
 * RDMA CM it aborts in its async event handler (tests/vm/README.md).
 * RC queue pairs driven directly, as perftest does, work.
 *
 * The model is one-sided, as on a real RoCE or InfiniBand NIC:
 *   - every registration of the engine is also an MR of the plugin's
 *     protection domain (mem_reg);
 *   - an endpoint is an RC queue pair; its @info is what connects to it
 *     (GID, QP number, first PSN, MTU, LID: struct adxl_rdma_qpinfo,
 *     big-endian on the wire).  Connecting it (INIT -> RTR -> RTS) sends
 *     with the context's traffic class and service level;
 *   - ep_grant is a type 2 memory window bound to the MR on the serving
 *     queue pair, whose rkey is refused on every other queue pair; a NIC
 *     without windows (or MEMREG_ADXL_RDMA_WINDOWS=0) grants the MR's own
 *     rkey, good for every peer;
 *   - a transfer posts RDMA READ or WRITE work requests from the client's
 *     MRs to the server's, and polls its completion queue: the serving
 *     host's CPU does nothing;
 *   - mem_dereg revokes at once: every rkey granted for the MR is invalid
 *     when it returns, and a peer's READ or WRITE through one completes
 *     with a remote access error, never with stale or foreign bytes;
 *     ep_destroy revokes what was granted through the queue pair.
 *
 * The device: MEMREG_ADXL_RDMA_DEVICE ("rxe0" or "mlx5_0:1") if set, else
 * the first device with an active port; its GID: MEMREG_ADXL_RDMA_GID_INDEX
 * if set, else per queue pair the RoCE v2 GID of @local_ip, else a RoCE v2
 * GID of an IPv4 address, else index 0.  -ENODEV if there is none.
 *
 * Its errors: -EACCES, the peer refused a range (no longer a
 * registration there); -EFAULT, a local range is in no MR of ours.  After
 * -ETIMEDOUT, -ECONNRESET or -EACCES the queue pair is in the error
 * state, every work request of the call has completed and ep_failed()
 * is true; -EAGAIN leaves it as it was.  A grant that fails to bind
 * leaves the queue pair failed: -EIO from then on.
 */
#ifndef ADXL_RDMA_PLUGIN_H
#define ADXL_RDMA_PLUGIN_H

#include "plugin.h"

#define ADXL_RDMA_PLUGIN_FILE	"adxl-rdma.so"

#endif /* ADXL_RDMA_PLUGIN_H */
