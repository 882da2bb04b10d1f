/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The messages of adxl-ucx.so's read/write protocol on UCP active messages
 * (why a protocol of our own: lib/adxl/ucx_plugin.h; how it runs:
 * client.c and serve.c).  Shared with the unit test that plays a peer sending what
 * a broken or hostile one would.
 *
 *   READ   wire_req                  -> DATA  wire_ans + the bytes
 *   WRITE  wire_req + the bytes      -> DONE  wire_ans
 *
 * Requests go with UCP_AM_SEND_FLAG_REPLY (the answer goes to the reply
 * endpoint) and every message is eager; a rendezvous message is dropped.
 * Native-endian: both ends are the same build (UCX assumes the same
 * architecture too).
 */
#ifndef ADXL_UCX_WIRE_H
#define ADXL_UCX_WIRE_H

#include <stdint.h>

/* Active message ids. */
enum {
	ADXL_UCX_AM_READ = 1,	/* client: send me these bytes */
	ADXL_UCX_AM_DATA,	/* server: here they are (or why not) */
	ADXL_UCX_AM_WRITE,	/* client: put these bytes there */
	ADXL_UCX_AM_DONE,	/* server: written (or why not) */
};

/* The most a request may ask for: larger ones are refused (-EFAULT). */
#define ADXL_UCX_CHUNK_MAX	(4U << 20)

/* The length of the key a serving worker hands out with its address. */
#define ADXL_UCX_WIRE_KEY_LEN	16

/*
 * The header of READ and WRITE.  @key is the serving worker's access key:
 * a request without it is refused (-EACCES), so knowing (or guessing) a
 * worker's address is not enough to reach its memory.
 */
struct adxl_ucx_wire_req {
	uint64_t id;		/* the asker's, echoed in the answer */
	uint64_t nonce;		/* likewise */
	uint64_t addr;		/* in the server's memory */
	uint64_t len;
	uint8_t key[ADXL_UCX_WIRE_KEY_LEN];
};

/* The header of DATA and DONE; status 0 or a negative errno. */
struct adxl_ucx_wire_ans {
	uint64_t id;
	uint64_t nonce;
	int32_t status;
	uint32_t pad;
};

#endif /* ADXL_UCX_WIRE_H */
