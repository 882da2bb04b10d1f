/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface between libmemreg's ADXL engine and its UCX transport,
 * which lives in a plugin (LIBDIR/memreg/adxl-ucx.so) that libmemreg
 * dlopen()s the first time an engine talks to a peer on another kernel.
 *
 * Why a plugin: libucs installs signal handlers and reads its whole
 * configuration when it is loaded.  Every program that links libmemreg
 * for the allocator or mstx would pay that and have its crash handling
 * changed; only engines that cross hosts should.
 *
 * The plugin knows nothing of ADXL: it exposes ranges of memory to peers,
 * hands out its worker's address, opens endpoints and runs batches of
 * reads and writes with a deadline.  Every call is thread-safe (one lock
 * per context) and a progress thread serves peers' requests.
 *
 * Reads and writes are a small protocol of our own on UCP active messages
 * (a read asks the peer for bytes it sends back, a write carries its
 * bytes and is acknowledged), not UCP's one-sided get and put: over TCP,
 * UCX 1.13 emulates those with messages whose send failures abort the
 * serving process (a client killed mid-read took its server down), while
 * an active message that cannot be sent completes with an error.  It also
 * lets the serving side check every request against the ranges it
 * exposed, instead of trusting whoever holds a remote key.
 *
 * Errors are negative errno values, with a message in @err:
 *   -ETIMEDOUT   the deadline passed first
 *   -ECONNRESET  the peer is unreachable or the endpoint failed
 *   -EFAULT      the peer refused a range: it exposes no such memory
 *   -EACCES      the peer refused our key
 *   -ENOMEM, -EINVAL, -EIO  anything else
 * After -ETIMEDOUT or -ECONNRESET the endpoint is closed (outstanding
 * operations cancelled, so no buffer is touched afterwards); only
 * ep_close may be called on it.
 */
#ifndef ADXL_UCX_PLUGIN_H
#define ADXL_UCX_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADXL_UCX_PLUGIN_ABI	3
#define ADXL_UCX_PLUGIN_FILE	"adxl-ucx.so"
#define ADXL_UCX_PLUGIN_SYM	"adxl_ucx_plugin"
#define ADXL_UCX_ERR_LEN	256
#define ADXL_UCX_KEY_LEN	16

struct adxl_ucx;		/* UCP context, worker, progress thread */
struct adxl_ucx_mem;		/* a range exposed to peers */
struct adxl_ucx_ep;		/* an endpoint to a peer's worker */

/* One read or write of a batch. */
struct adxl_ucx_op {
	uint64_t local;
	uint64_t remote;
	uint64_t len;
};

struct adxl_ucx_ops {
	unsigned int abi;		/* ADXL_UCX_PLUGIN_ABI */
	/* "UCX 1.13.1": the library the plugin runs on. */
	const char *(*version)(void);

	int (*open)(struct adxl_ucx **out, char *err);
	void (*close)(struct adxl_ucx *u);
	/* The worker's address, valid until close. */
	void (*address)(struct adxl_ucx *u, const void **addr, size_t *len);
	/*
	 * The worker's access key, random per open: peers' requests must
	 * carry it.  Hand it only to peers that may reach exposed memory.
	 */
	void (*access_key)(struct adxl_ucx *u, uint8_t key[ADXL_UCX_KEY_LEN]);

	/*
	 * Peers may read and write [@addr, +@len) from now on, until
	 * mem_hide; a request for anything else is refused.
	 */
	int (*mem_expose)(struct adxl_ucx *u, void *addr, size_t len,
			  struct adxl_ucx_mem **out, char *err);
	/* Returns once no peer's request touches the range any more. */
	void (*mem_hide)(struct adxl_ucx *u, struct adxl_ucx_mem *m);

	/*
	 * An endpoint to the worker at @addr whose access key is @key.
	 * Returns once it is wired up (both workers agreed on the
	 * transports), or fails with -ETIMEDOUT at @deadline_ms.
	 */
	int (*ep_open)(struct adxl_ucx *u, const void *addr, size_t len,
		       const uint8_t key[ADXL_UCX_KEY_LEN], int64_t deadline_ms,
		       struct adxl_ucx_ep **out, char *err);
	/* Flushes a healthy endpoint within @timeout_ms, else forces it. */
	void (*ep_close)(struct adxl_ucx *u, struct adxl_ucx_ep *ep,
			 int timeout_ms);
	/* Whether the endpoint failed or was closed by a timeout. */
	bool (*ep_failed)(struct adxl_ucx_ep *ep);

	/*
	 * Read (@write false: remote into local) or write @n ranges and wait
	 * until all are complete at both ends, or until @deadline_ms
	 * (CLOCK_MONOTONIC milliseconds; -1 never).  0 or an error above.
	 */
	int (*xfer)(struct adxl_ucx *u, struct adxl_ucx_ep *ep, bool write,
		    const struct adxl_ucx_op *ops, size_t n,
		    int64_t deadline_ms, char *err);
};

/* The one symbol the plugin exports. */
const struct adxl_ucx_ops *adxl_ucx_plugin(void);

#endif /* ADXL_UCX_PLUGIN_H */
