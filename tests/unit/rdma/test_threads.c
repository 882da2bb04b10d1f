// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Threads, as an engine's callers are: xfer calls on one queue pair take
 * turns, on two queue pairs run side by side, and registrations come and
 * go while transfers run.  Each thread's bytes must arrive; the TSan
 * build (make tsan) runs these alone to show it is without races.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

struct worker {
	struct adxl_plugin_ep *q;
	bool write;
	struct adxl_plugin_op op;
	int rounds;
	int ret;
	char err[ADXL_PLUGIN_ERR_LEN];
};

static void *xfer_loop(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < w->rounds && !w->ret; i++)
		w->ret = rd->xfer(w->q, w->write, &w->op, 1, now_ms() + 30000,
				  w->err);
	return NULL;
}

static void run_both(struct worker *a, struct worker *b)
{
	pthread_t ta, tb;

	assert_int_equal(pthread_create(&ta, NULL, xfer_loop, a), 0);
	assert_int_equal(pthread_create(&tb, NULL, xfer_loop, b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_ok(a->ret, a->err);
	assert_ok(b->ret, b->err);
}

/* Two threads, twenty WRITEs each, of one half each, on one queue pair. */
static void threads_one_qp(void **state)
{
	struct link *l = *state;
	size_t half = l->len / 2;
	struct worker a = { .q = l->q, .write = true, .rounds = 20,
			    .op = wr_op(l, 0, half) };
	struct worker b = { .q = l->q, .write = true, .rounds = 20,
			    .op = wr_op(l, half, l->len - half) };

	fake_wire_latency_us(50);
	run_both(&a, &b);
	assert_memory_equal(l->dst, l->src, l->len);
}

/* One thread WRITEs on one queue pair while another READs on a second. */
static void threads_two_qps(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine, theirs;
	struct adxl_plugin_ep *q2 = NULL, *p2 = NULL;
	size_t half = l->len / 2;
	struct worker a = { .write = true, .rounds = 20 };
	struct worker b = { .write = false, .rounds = 20 };

	assert_ok(qp_create(l->cli, true, NULL, &mine, &q2, err), err);
	assert_ok(qp_create(l->srv, true, NULL, &theirs, &p2, err), err);
	assert_ok(qp_connect(p2, &mine, 0, 0, err), err);
	assert_ok(qp_connect(q2, &theirs, 0, 0, err), err);
	/* the READ's half holds the pattern already; the WRITE fills the other */
	memcpy(l->dst + half, l->src + half, l->len - half);
	a.q = l->q;
	a.op = wr_op(l, 0, half);
	b.q = q2;
	b.op = rd_op(l, half, l->len - half);
	/* a grant is good on the queue pair it was made for alone */
	assert_ok(rd->ep_grant(p2, l->mdst, &b.op.key, err), err);
	assert_int_not_equal(b.op.key, l->kdst);
	fake_wire_latency_us(50);
	run_both(&a, &b);
	assert_memory_equal(l->dst, l->src, l->len);
	assert_memory_equal(l->back + half, l->src + half, l->len - half);
	rd->ep_destroy(q2);
	rd->ep_destroy(p2);
}

struct churn {
	struct adxl_plugin_ctx *r;
	int rounds;
	int ret;
	char err[ADXL_PLUGIN_ERR_LEN];
};

static void *reg_loop(void *arg)
{
	struct churn *c = arg;
	unsigned char *buf = malloc(1 << 16);
	struct adxl_plugin_mem *m;
	uint32_t key;
	int i;

	for (i = 0; buf && i < c->rounds && !c->ret; i++) {
		c->ret = mr_reg(c->r, buf + (i % 16) * 4096, 4096, &m, &key,
				    c->err);
		if (!c->ret)
			rd->mem_dereg(c->r, m);
	}
	free(buf);
	return NULL;
}

/* MRs registered and deregistered while the same engine transfers. */
static void threads_reg_during_xfer(void **state)
{
	struct link *l = *state;
	struct worker a = { .q = l->q, .write = true, .rounds = 50,
			    .op = wr_op(l, 0, l->len) };
	struct churn c = { .r = l->cli, .rounds = 300 };
	pthread_t ta, tc;

	assert_int_equal(pthread_create(&ta, NULL, xfer_loop, &a), 0);
	assert_int_equal(pthread_create(&tc, NULL, reg_loop, &c), 0);
	pthread_join(ta, NULL);
	pthread_join(tc, NULL);
	assert_ok(a.ret, a.err);
	assert_ok(c.ret, c.err);
	assert_memory_equal(l->dst, l->src, l->len);
}

#define L(fn) cmocka_unit_test_setup_teardown(fn, link_setup, link_teardown)

int test_threads_group(void)
{
	const struct CMUnitTest tests[] = {
		L(threads_one_qp),
		L(threads_two_qps),
		L(threads_reg_during_xfer),
	};

	return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
