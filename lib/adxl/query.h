/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Queries: a request on a peer's control connection, answered by a
 * handler that a face laid over the engine installed in the peer
 * (lib/llm_datadist: which caches it has, at which addresses).  Not in
 * the public API and not exported: only the library's own faces need to
 * ask a peer what ADXL's hello does not say.  C and C++.
 *
 * Like a notify, a query goes from the engine that connected to the one
 * that listens; unlike one it is answered at once by the listener thread
 * and does not queue.
 */
#ifndef ADXL_QUERY_H
#define ADXL_QUERY_H

#include <stddef.h>
#include <stdint.h>
#include <adxl/adxl.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ADXL_QUERY_MAX_REQ	1024		/* a request, bytes */
#define ADXL_QUERY_MAX_ANSWER	(64U << 10)	/* an answer, bytes */

/*
 * Runs on the engine's listener thread, so it must not wait for anything
 * but short locks.  Returns the answer's status (0 or one of the face's
 * own) and may set *answer to malloc()ed bytes (at most
 * ADXL_QUERY_MAX_ANSWER, freed by the engine) and *answer_len.
 */
typedef uint32_t (*adxl_query_fn)(void *arg, const void *req, size_t req_len,
				  void **answer, size_t *answer_len);

/*
 * The handler of this engine's listener: set before adxl_initialize(),
 * kept until adxl_engine_destroy().  ADXL_FAILED once initialised.  An
 * engine without one answers every query ADXL_UNSUPPORTED.
 */
adxl_status_t adxl__set_query_handler(adxl_engine_t *engine, adxl_query_fn fn,
				      void *arg);

/*
 * Ask the connected peer @remote_engine.  ADXL_SUCCESS with the handler's
 * status in *status and its answer in *answer (malloc()ed, may be NULL
 * when empty: free() it); else ADXL_NOT_CONNECTED, ADXL_TIMEOUT,
 * ADXL_PARAM_INVALID, ADXL_FAILED as SendNotify says them.
 */
adxl_status_t adxl__query(adxl_engine_t *engine, const char *remote_engine,
			  const void *req, size_t req_len, uint32_t *status,
			  void **answer, size_t *answer_len,
			  int32_t timeout_ms);

/* Links peers opened to this engine that are still up (hello done). */
size_t adxl__served_links(adxl_engine_t *engine);

#ifdef __cplusplus
}
#endif

#endif /* ADXL_QUERY_H */
