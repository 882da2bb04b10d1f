/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The UCX plugin (LIBDIR/memreg/adxl-ucx.so, lib/ucx/): what is its own
 * beside the interface every plugin has (plugin.h).
 *
 * Why a plugin: libucs installs signal handlers and reads its whole
 * configuration when it is loaded.  Every program that links libmemreg
 * for the allocator or mstx would pay that and have its crash handling
 * changed; only engines that may cross hosts should, and they load it in
 * Initialize (plugged.c: adxl__plugged_preload says why not later).
 *
 * Reads and writes are a small protocol of our own on UCP active messages
 * (a read asks the peer for bytes it sends back, a write carries its
 * bytes and is acknowledged), not UCP's one-sided get and put: over TCP,
 * UCX 1.13 emulates those with messages whose send failures abort the
 * serving process (a client killed mid-read took its server down), while
 * an active message that cannot be sent completes with an error.  It also
 * lets the serving side check every request against the ranges it
 * registered (mem_reg: "exposed"), instead of trusting whoever holds a
 * remote key: its grants are the key 0, its access key is the worker's.
 *
 * Its endpoints: the serving end's @info is the worker's address and its
 * access key, random per open ([u32 length][address][key]); a peer's
 * requests must carry that key.  The client's end has no @info.  After
 * -ETIMEDOUT or -ECONNRESET the client's endpoint is closed (outstanding
 * operations cancelled) and ep_failed() is true.
 */
#ifndef ADXL_UCX_PLUGIN_H
#define ADXL_UCX_PLUGIN_H

#include "plugin.h"

#define ADXL_UCX_PLUGIN_FILE	"adxl-ucx.so"
#define ADXL_UCX_KEY_LEN	16

#endif /* ADXL_UCX_PLUGIN_H */
