/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one interface between libmemreg's ADXL engine and a transport that
 * lives in a plugin (LIBDIR/memreg/adxl-<name>.so), dlopen()ed the first
 * time an engine needs it, or by Initialize for one whose loading is not
 * safe beside other threads (plugged.h: load_at_init): programs without
 * such an engine never load libucs or libibverbs, whose loading installs
 * signal handlers, reads configuration and opens devices (each plugin's
 * own header says what is particular to it).
 *
 * A plugin exports one function, ADXL_PLUGIN_ENTRY, whose name carries
 * the ABI: a plugin of another ABI has no such symbol and is refused by
 * name, before anything of it runs (the model: the verbs library's
 * providers, found by a symbol that names their ABI).  A change of this file that an old
 * plugin cannot follow is a new entry name, _v2.
 *
 * The model, shared by every plugin transport:
 *   - a context per engine (open/close);
 *   - every registration of the engine is also registered with the
 *     plugin (mem_reg): it is what peers may reach, and the plugin
 *     refuses anything else; mem_dereg revokes at once;
 *   - a link to one peer has an endpoint at each end.  The client makes
 *     its own (ep_create), sends the bytes that say how to reach it
 *     (@info) in its link hello; the server makes one for that link
 *     (serve: the peer may reach our memory through it), connects it to
 *     the client's info, grants the peer a key for each registration
 *     (ep_grant) and answers with its own info; the client connects its
 *     endpoint to that.  The bytes of @info are the plugin's own: the
 *     engine carries them, it never reads them;
 *   - a transfer is the client's: a batch of reads or writes on its
 *     endpoint, each naming our range, the peer's and the key the peer
 *     granted for it, complete (a write acknowledged) or failed by a
 *     deadline.
 *
 * Every call is thread-safe.  Errors are negative errno values, with a
 * message in @err (ADXL_PLUGIN_ERR_LEN bytes):
 *   -ETIMEDOUT   the deadline passed with work outstanding
 *   -EAGAIN      the deadline passed before anything was sent (another
 *                call had the endpoint): nothing happened
 *   -ECONNRESET  the peer is unreachable, gone, or the endpoint failed
 *   -EACCES      the peer refused a range or our key
 *   -EFAULT      a range was refused, ours or the peer's: the plugin's
 *                header says which
 *   -ENODEV      no device this transport can use
 *   -ENOMEM, -EINVAL, -EIO  anything else
 * After a failed xfer the plugin has taken back every request of the
 * call (no buffer is touched afterwards); ep_failed() says whether the
 * endpoint is still good.
 */
#ifndef ADXL_PLUGIN_H
#define ADXL_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ADXL_PLUGIN_ENTRY	"adxl_transport_plugin_v1"
#define ADXL_PLUGIN_ERR_LEN	256
/* The most bytes of @info an endpoint gives (a UCP worker address). */
#define ADXL_PLUGIN_INFO_MAX	((64U << 10) + 64)

struct adxl_plugin_ctx;		/* per engine: the plugin's own */
struct adxl_plugin_mem;		/* a registered range */
struct adxl_plugin_ep;		/* one end of a link to one peer */

/* What the engine's options set for the whole context. */
struct adxl_plugin_conf {
	unsigned int traffic_class;	/* RoCE v2: the IP header's DSCP/ECN byte */
	unsigned int service_level;	/* InfiniBand SL */
};

/* One read (remote into local) or write (local into remote) of a batch. */
struct adxl_plugin_op {
	uint64_t local;
	uint64_t remote;
	uint64_t len;
	uint32_t key;		/* the peer granted it for @remote's memory */
};

struct adxl_plugin {
	const char *transport;	/* the name of the engine's row that loads it */

	int (*open)(const struct adxl_plugin_conf *conf,
		    struct adxl_plugin_ctx **out, char *err);
	/* After every endpoint and registration is gone. */
	void (*close)(struct adxl_plugin_ctx *c);
	/* What it runs on, for a Connect's log line. */
	const char *(*describe)(struct adxl_plugin_ctx *c);

	/*
	 * [@addr, +@len) may be reached by peers from now on (through the
	 * keys ep_grant gives), until mem_dereg, which returns once no
	 * peer's request can touch the range any more.
	 */
	int (*mem_reg)(struct adxl_plugin_ctx *c, void *addr, size_t len,
		       struct adxl_plugin_mem **out, char *err);
	void (*mem_dereg)(struct adxl_plugin_ctx *c, struct adxl_plugin_mem *m);

	/*
	 * An endpoint, and in @info (ADXL_PLUGIN_INFO_MAX bytes) what the
	 * peer's end needs to connect to it (*@info_len: how many; may be
	 * 0).  @serve: the server's end, through which the peer reaches
	 * our memory; else the client's, which only initiates.  @local_ip
	 * (4 bytes, network order; NULL: none): the IPv4 address the
	 * control connection has here, the one facing the peer.
	 */
	int (*ep_create)(struct adxl_plugin_ctx *c, bool serve,
			 const uint8_t *local_ip, void *info, size_t *info_len,
			 struct adxl_plugin_ep **out, char *err);
	/* Connected to the peer's end, whose ep_create gave @info. */
	int (*ep_connect)(struct adxl_plugin_ep *ep, const void *info,
			  size_t info_len, int64_t deadline_ms, char *err);
	/*
	 * Serving endpoint @ep's peer may reach all of @m with *@key from
	 * now on, until mem_dereg(@m) or ep_destroy(@ep).  A grant that
	 * fails may leave @ep failed (ep_failed).
	 */
	int (*ep_grant)(struct adxl_plugin_ep *ep, struct adxl_plugin_mem *m,
			uint32_t *key, char *err);
	/* Flushes what is healthy, briefly; cancels the rest. */
	void (*ep_destroy)(struct adxl_plugin_ep *ep);
	bool (*ep_failed)(struct adxl_plugin_ep *ep);

	/*
	 * Read or write @n ranges and wait until all are complete (a write:
	 * in the peer's memory), or until @deadline_ms (CLOCK_MONOTONIC
	 * milliseconds; -1 never).  0 or an error above.
	 */
	int (*xfer)(struct adxl_plugin_ep *ep, bool write,
		    const struct adxl_plugin_op *ops, size_t n,
		    int64_t deadline_ms, char *err);
};

/* The one symbol a plugin exports (its name: ADXL_PLUGIN_ENTRY). */
const struct adxl_plugin *adxl_transport_plugin_v1(void);

#endif /* ADXL_PLUGIN_H */
