/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ADXL C API (libcann_hixl.so): the engine behind adxl::AdxlEngine and
 * hixl::Hixl (<adxl/adxl_engine.h>, <hixl/hixl.h>: C++ classes over these
 * functions, in the libraries CANN ships them in).
 *
 * An engine is named "ip", "ip:port", "[ipv6]" or "[ipv6]:port"; a port
 * above 0 makes it listen for peers on TCP.  adxl_connect() opens a TCP
 * control connection to a listening engine and receives its registration
 * table with one grant token per registration; when both run on the same
 * kernel (memreg instance id), transfers go through the memreg module:
 * one copy, no pinning per call.  Engines on another kernel can connect and
 * exchange notifies, but their transfers fail (ADXL_FAILED) until a network
 * transport is added.
 *
 * Every function returns an adxl_status_t with the values of adxl::Status.
 * A call on an engine that is not initialised (or finalized since) is
 * ADXL_FAILED, whatever its other arguments, as in hixl.
 * Failures other than bad arguments are logged on stderr, prefixed
 * "adxl: ", and the last message of the calling thread is kept for
 * adxl_last_error().  An engine may be used from several threads at once,
 * except adxl_initialize(), adxl_finalize() and adxl_engine_destroy().
 */
#ifndef ADXL_ADXL_H
#define ADXL_ADXL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t adxl_status_t;

#define ADXL_SUCCESS		0U
#define ADXL_PARAM_INVALID	103900U
#define ADXL_TIMEOUT		103901U
#define ADXL_NOT_CONNECTED	103902U
#define ADXL_ALREADY_CONNECTED	103903U
#define ADXL_NOTIFY_FAILED	103904U
#define ADXL_UNSUPPORTED	103905U
#define ADXL_RESOURCE_EXHAUSTED	203900U
#define ADXL_FAILED		503900U

/* adxl::MemType */
enum adxl_mem_type {
	ADXL_MEM_DEVICE	= 0,
	ADXL_MEM_HOST	= 1,
};

/* adxl::TransferOp: READ = remote -> local, WRITE = local -> remote. */
enum adxl_transfer_op {
	ADXL_READ	= 0,
	ADXL_WRITE	= 1,
};

/* adxl::TransferStatus */
enum adxl_transfer_status {
	ADXL_TRANSFER_WAITING	= 0,
	ADXL_TRANSFER_COMPLETED	= 1,
	ADXL_TRANSFER_TIMEOUT	= 2,	/* never reported (as in CANN) */
	ADXL_TRANSFER_FAILED	= 3,
};

/* adxl::FeatureType and its values. */
#define ADXL_FEATURE_AUTO_CONNECT	0
#define ADXL_FEATURE_CLIENT_SERVER_COMM	1
#define ADXL_FEATURE_SUPPORTED		1
#define ADXL_FEATURE_NOT_SUPPORTED	0

/* Limits of the reference, enforced here. */
#define ADXL_NOTIFY_MAX_LEN	1024	/* name and message, each, in chars */
#define ADXL_NOTIFY_MAX_PENDING	4096	/* unconsumed notifies per link */
#define ADXL_ASYNC_MAX_PENDING	4096	/* unqueried async requests */

/* Opaque. */
typedef struct adxl_engine adxl_engine_t;
typedef void *adxl_mem_handle_t;
typedef void *adxl_transfer_req_t;

/* adxl::MemDesc without its reserved bytes. */
struct adxl_mem_desc {
	uintptr_t addr;
	size_t len;
};

/* The same layout as adxl::TransferOpDesc, so C++ passes its vector as is. */
struct adxl_transfer_desc {
	uintptr_t local_addr;
	uintptr_t remote_addr;
	size_t len;
};

/* One Initialize option; keys and values are NUL-terminated. */
struct adxl_option {
	const char *key;
	const char *value;
};

/* Called by adxl_get_notifies() once per notify, oldest first. */
typedef void (*adxl_notify_fn)(const char *name, size_t name_len,
			       const char *msg, size_t msg_len, void *arg);

/* A new engine, not initialised yet.  ADXL_FAILED if out of memory. */
adxl_status_t adxl_engine_create(adxl_engine_t **engine);

/* Finalize (if initialised) and free; NULL is ignored. */
void adxl_engine_destroy(adxl_engine_t *engine);

/*
 * Opens the memreg module and, for a name with a port, listens on it.
 * Options (adxl.* keys of adxl_types.h, with or without the prefix) are
 * checked as the reference documents (LocalCommRes and
 * GlobalResourceConfig must be JSON); unknown keys are ignored with a
 * warning.  A second call without adxl_finalize() checks its name and
 * options first (ADXL_PARAM_INVALID), then is ADXL_FAILED; the engine
 * keeps running as it was.
 */
adxl_status_t adxl_initialize(adxl_engine_t *engine, const char *local_engine,
			      const struct adxl_option *options,
			      size_t n_options);

/* Disconnect every peer, drop every registration, stop listening. */
void adxl_finalize(adxl_engine_t *engine);

/*
 * Register [addr, addr + len) with the memreg module and grant it to the
 * peers that connect from now on.  HOST: any mapped, writable memory;
 * DEVICE: memory of an emulated device (aclrtMalloc).  The same range again
 * returns the same handle (counted); an overlap with a registration of the
 * same type is ADXL_PARAM_INVALID.  The module's per-process limits answer
 * ADXL_RESOURCE_EXHAUSTED.
 */
adxl_status_t adxl_register_mem(adxl_engine_t *engine,
				const struct adxl_mem_desc *mem,
				enum adxl_mem_type type,
				adxl_mem_handle_t *handle);

/* An unknown handle is ADXL_SUCCESS (with a warning), as in the reference. */
adxl_status_t adxl_deregister_mem(adxl_engine_t *engine,
				  adxl_mem_handle_t handle);

adxl_status_t adxl_connect(adxl_engine_t *engine, const char *remote_engine,
			   int32_t timeout_ms);
adxl_status_t adxl_disconnect(adxl_engine_t *engine, const char *remote_engine,
			      int32_t timeout_ms);

/*
 * Each descriptor's remote range must lie in a registration of the peer
 * made before adxl_connect(), its local range in one of this engine's;
 * with the option BufferPool ("N:SIZE_MB", "4:8" by default; "0:0" none)
 * a batch with a local range not registered is staged through N
 * registered buffers of SIZE_MB, as hixl stages it (one kind of memory
 * per batch; the memory is the caller's to keep valid).
 */
adxl_status_t adxl_transfer_sync(adxl_engine_t *engine,
				 const char *remote_engine,
				 enum adxl_transfer_op op,
				 const struct adxl_transfer_desc *descs,
				 size_t n_descs, int32_t timeout_ms);

/*
 * Checked as adxl_transfer_sync(), then done by a worker thread; never
 * staged (as hixl): local ranges must be registered.
 */
adxl_status_t adxl_transfer_async(adxl_engine_t *engine,
				  const char *remote_engine,
				  enum adxl_transfer_op op,
				  const struct adxl_transfer_desc *descs,
				  size_t n_descs, adxl_transfer_req_t *req);

/*
 * ADXL_TRANSFER_WAITING while the request runs.  Once it reports COMPLETED
 * (ADXL_SUCCESS) or FAILED (with the transfer's own status: ADXL_FAILED,
 * ADXL_NOT_CONNECTED, ...) the request is released.  As in hixl, a NULL
 * request is ADXL_FAILED, one the engine does not know (never made, or
 * released) ADXL_PARAM_INVALID; every failure sets *status to FAILED.
 */
adxl_status_t adxl_get_transfer_status(adxl_engine_t *engine,
				       adxl_transfer_req_t req,
				       enum adxl_transfer_status *status);

/*
 * Strings of at most ADXL_NOTIFY_MAX_LEN bytes.  The peer holds the notify
 * and acks it; only if that ack comes within @timeout_ms is the notify
 * committed (handed out by the peer's adxl_get_notifies()), so one that
 * returned ADXL_TIMEOUT is never delivered.
 */
adxl_status_t adxl_send_notify(adxl_engine_t *engine, const char *remote_engine,
			       const char *name, size_t name_len,
			       const char *msg, size_t msg_len,
			       int32_t timeout_ms);

/* Hands every notify received so far to @fn and forgets them. */
adxl_status_t adxl_get_notifies(adxl_engine_t *engine, adxl_notify_fn fn,
				void *arg);

/*
 * hixl::Hixl's additions (<hixl/hixl.h>), same engine.
 *
 * adxl_transfer_async_ex() is adxl_transfer_async() with a pointer of the
 * caller's that adxl_get_transfer_statuses() hands back with the request.
 */
adxl_status_t adxl_transfer_async_ex(adxl_engine_t *engine,
				     const char *remote_engine,
				     enum adxl_transfer_op op,
				     const struct adxl_transfer_desc *descs,
				     size_t n_descs, const void *user_data,
				     adxl_transfer_req_t *req);

/* One request's state, as adxl_get_transfer_statuses() reports it. */
struct adxl_transfer_result {
	adxl_transfer_req_t req;
	const void *user_data;
	enum adxl_transfer_status status;
};

typedef void (*adxl_transfer_result_fn)(const struct adxl_transfer_result *r,
					void *arg);

/*
 * Every unreleased request, oldest first, to @fn, at most @max_count of
 * them; with @skip_waiting those still running are not reported.  A
 * request reported COMPLETED or FAILED is released, as by
 * adxl_get_transfer_status().  As hixl, only an engine whose options
 * select hixl's client/server engine answers (LocalCommRes {"version":
 * "1.3"}, or GlobalResourceConfig's comm_resource_config.protocol_desc
 * with "uboe:device" or "ub_rtp:device"); any other is ADXL_UNSUPPORTED.
 */
adxl_status_t adxl_get_transfer_statuses(adxl_engine_t *engine,
					 uint32_t max_count, int skip_waiting,
					 adxl_transfer_result_fn fn, void *arg);

/* hixl::AsyncConnectStatus */
enum adxl_connect_status {
	ADXL_CONN_NOT_CONNECT		= 0,
	ADXL_CONN_CONNECT_PENDING	= 1,
	ADXL_CONN_CONNECTING		= 2,
	ADXL_CONN_CONNECTED		= 3,
	ADXL_CONN_CONNECT_FAILED	= 4,
	ADXL_CONN_DISCONNECT_PENDING	= 5,
	ADXL_CONN_DISCONNECTING		= 6,
};

/* Queued, not yet started asynchronous connects and disconnects. */
#define ADXL_CONNECT_ASYNC_MAX_PENDING	128

/*
 * Queue adxl_connect() / adxl_disconnect() for a worker thread of the
 * engine; their progress is the peer's status below.  ADXL_PARAM_INVALID
 * for a bad name or timeout, ADXL_FAILED if not initialised,
 * ADXL_RESOURCE_EXHAUSTED if ADXL_CONNECT_ASYNC_MAX_PENDING are queued.
 * Operations on one peer run in the order they were asked.
 */
adxl_status_t adxl_connect_async(adxl_engine_t *engine,
				 const char *remote_engine, int32_t timeout_ms);
adxl_status_t adxl_disconnect_async(adxl_engine_t *engine,
				    const char *remote_engine,
				    int32_t timeout_ms);

/*
 * The state of the last asynchronous operation on @remote_engine:
 * NOT_CONNECT if none (or its disconnect finished).  A CONNECTED peer
 * stays so here until an asynchronous disconnect, as in the reference.
 */
adxl_status_t adxl_get_async_connect_status(adxl_engine_t *engine,
					    const char *remote_engine,
					    enum adxl_connect_status *status);

typedef void (*adxl_connect_status_fn)(const char *remote_engine,
				       enum adxl_connect_status status,
				       void *arg);

/* Every peer with a state other than NOT_CONNECT, to @fn. */
adxl_status_t adxl_get_async_connect_statuses(adxl_engine_t *engine,
					      adxl_connect_status_fn fn,
					      void *arg);

/* Page-aligned, zeroed host memory (the reference: host memory only). */
adxl_status_t adxl_malloc_mem(enum adxl_mem_type type, size_t size, void **ptr);
adxl_status_t adxl_free_mem(void *ptr);

/*
 * Fabric handles need real hardware: ADXL_UNSUPPORTED for the start of a
 * MallocMem block, ADXL_PARAM_INVALID for any other address.
 */
adxl_status_t adxl_export_shareable_handle(void *addr, uint8_t handle[128]);

adxl_status_t adxl_get_capability(int32_t feature, int32_t *value);

/* The last failure message logged on the calling thread ("" if none). */
const char *adxl_last_error(void);

/*
 * What this engine knows of the peer it connected to as @remote_engine.
 * A peer that restarted (a new process, or the same one finalized and
 * initialized again, at the same name) is never reached through what was
 * learnt of the old one, whatever ports and addresses the new one uses:
 * its transfers and notifies are refused (ADXL_NOT_CONNECTED, and this
 * says RESTARTED) until Disconnect or Connect, also with AutoConnect.
 * Not in CANN's API.
 */
enum adxl_peer_state {
	ADXL_PEER_NONE = 0,		/* not connected (or disconnected) */
	ADXL_PEER_CONNECTED = 1,
	ADXL_PEER_LOST = 2,		/* its control connection is gone */
	ADXL_PEER_EXITED = 3,		/* lost, and nothing answers its name */
	ADXL_PEER_RESTARTED = 4,	/* lost, and another engine answers */
};

enum adxl_peer_state adxl_peer_state(adxl_engine_t *e,
				     const char *remote_engine);

#ifdef __cplusplus
}
#endif

#endif /* ADXL_ADXL_H */
