/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unit tests of adxl-rdma.so (lib/rdma), its sources linked with the
 * fake libibverbs of fake_verbs.h.  Each test_*.c is one concern and
 * runs its group; test_main.c adds them up.
 *
 * cmocka needs these headers, in this order, before <cmocka.h>.
 */
#ifndef RDMA_UNIT_TESTS_H
#define RDMA_UNIT_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rdma_plugin.h"
#include "rdma_int.h"
#include "fake_verbs.h"

int test_device_group(void);
int test_mr_group(void);
int test_xfer_group(void);
int test_errors_group(void);
int test_threads_group(void);
int test_shipped_group(void);
int test_grant_group(void);

/* The plugin's table, as libmemreg gets it. */
extern const struct adxl_plugin *rd;

/*
 * Its calls as the tests make them, each through the table: a context
 * (open, no conf); an MR and the MR's own rkey (0 with memory windows:
 * peers get theirs from ep_grant); a queue pair and what its info says
 * (ep_create); connected to a peer's (ep_connect), sending with @tc and
 * @sl as the context's conf would have them.
 */
int dev_open(struct adxl_plugin_ctx **out, char *err);
int mr_reg(struct adxl_plugin_ctx *r, void *addr, size_t len,
	   struct adxl_plugin_mem **out, uint32_t *rkey, char *err);
int qp_create(struct adxl_plugin_ctx *r, bool serve, const uint8_t *local_ip,
	      struct adxl_rdma_qpinfo *mine, struct adxl_plugin_ep **out,
	      char *err);
int qp_connect(struct adxl_plugin_ep *q, const struct adxl_rdma_qpinfo *peer,
	       unsigned int tc, unsigned int sl, char *err);

/*
 * Setup of every test: the fake back to fake0 and no switch on, and none
 * of the plugin's variables (MEMREG_ADXL_RDMA_*) set.
 */
int fresh(void **state);
/*
 * Teardown of every test: nothing the plugin made is left (each context,
 * PD, MR, channel, CQ and QP was freed) and it did nothing a real
 * libibverbs would refuse or hang on.
 */
int all_freed(void **state);

/* A call that should have worked, with its message if it did not. */
#define assert_ok(ret, err)						\
	do {								\
		int ret_ = (ret);					\
		if (ret_)						\
			fail_msg("%s: %d (%s)", #ret, ret_, (err));	\
	} while (0)

int64_t now_ms(void);
void sleep_ms(unsigned int ms);

/*
 * @text matches the fnmatch(3) @pattern ('*' for what varies; "\\["
 * for a bracket); a failure shows both.
 */
#define assert_glob(text, pattern) \
	check_glob((text), (pattern), __FILE__, __LINE__)
void check_glob(const char *text, const char *pattern, const char *file,
		int line);

/* The bytes the tests move: i * 7 + i / 8192, so no 4 KiB looks alike. */
void fill_pattern(unsigned char *buf, size_t len);
/* Whether all of @buf is @byte. */
bool all_bytes(const unsigned char *buf, size_t len, unsigned char byte);

/*
 * Two engines, as two hosts have: a client (cli) whose queue pair q
 * reads and writes, and a server (srv) whose queue pair peer is q's
 * other end.  src (the pattern) and back (zeros) are the client's MRs;
 * dst (zeros) is the server's, reached through kdst.
 */
struct link {
	size_t len;
	struct adxl_plugin_ctx *cli, *srv;
	struct adxl_plugin_ep *q, *peer;
	struct adxl_rdma_qpinfo qi, pi;	/* what each end told the other */
	unsigned char *src, *back, *dst;
	struct adxl_plugin_mem *msrc, *mback, *mdst;
	uint32_t ksrc, kback, kdst;
};

/* @cli_dev, @srv_dev: MEMREG_ADXL_RDMA_DEVICE of each end (NULL: unset). */
void link_up(struct link *l, size_t len, const char *cli_dev,
	     const char *srv_dev);
/* Another pair of queue pairs in place of q and peer. */
void link_reconnect(struct link *l);
void link_down(struct link *l);
/* WRITE src+@off to dst+@off, or READ dst+@off into back+@off. */
struct adxl_plugin_op wr_op(const struct link *l, size_t off, size_t len);
struct adxl_plugin_op rd_op(const struct link *l, size_t off, size_t len);

/* fresh() and a link of 5 MiB on fake0; link_teardown() the reverse. */
#define LINK_LEN	(5U << 20)
int link_setup(void **state);
int link_teardown(void **state);

#endif /* RDMA_UNIT_TESTS_H */
