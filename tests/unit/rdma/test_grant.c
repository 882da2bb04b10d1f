// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Grants (lib/rdma/grant.c): what a peer may reach.  With memory windows
 * a grant is good on the queue pair it was made for alone, and dies with
 * the MR (mr_dereg) or the queue pair (qp_destroy), windows first, so
 * that no MR is deregistered with one bound; a bind that fails says so,
 * fails its queue pair and leaves nothing behind, and one that never
 * completes costs one timeout and the queue pair.  Without windows (the device has none, or
 * MEMREG_ADXL_RDMA_WINDOWS=0) a grant is the MR's own rkey.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

/* A second pair of queue pairs between the link's two engines. */
static void second_pair(struct link *l, struct adxl_plugin_ep **q2,
			struct adxl_plugin_ep **p2)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine, theirs;

	assert_ok(qp_create(l->cli, false, NULL, &mine, q2, err), err);
	assert_ok(qp_create(l->srv, true, NULL, &theirs, p2, err), err);
	assert_ok(qp_connect(*p2, &mine, 0, 0, err), err);
	assert_ok(qp_connect(*q2, &theirs, 0, 0, err), err);
}

/* Live MWs, from fake_live_objects()'s list ("..., 2 MWs, ..."). */
static unsigned int live_mws(void)
{
	char live[256];
	const char *p;

	fake_live_objects(live, sizeof(live));
	p = strstr(live, " MWs");
	if (!p)
		return 0;
	while (p > live && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return (unsigned int)strtoul(p, NULL, 10);
}

static void grant_per_queue_pair(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ep *q2, *p2;
	struct adxl_plugin_op op;
	uint32_t k2;

	second_pair(l, &q2, &p2);
	assert_ok(rd->ep_grant(p2, l->mdst, &k2, err), err);
	assert_int_not_equal(k2, l->kdst);
	assert_int_equal(live_mws(), 2);
	/* each peer through its own grant */
	op = wr_op(l, 0, l->len);
	assert_ok(rd->xfer(l->q, true, &op, 1, -1, err), err);
	assert_memory_equal(l->dst, l->src, l->len);
	op = rd_op(l, 0, l->len);
	op.key = k2;
	assert_ok(rd->xfer(q2, false, &op, 1, -1, err), err);
	assert_memory_equal(l->back, l->src, l->len);
	/* the first peer with the second's grant: refused, nothing read */
	memset(l->back, 0, l->len);
	assert_int_equal(rd->xfer(l->q, false, &op, 1, -1, err), -EACCES);
	assert_true(rd->ep_failed(l->q));
	assert_true(all_bytes(l->back, l->len, 0));
	/* the second's queue pair gone: its window with it */
	rd->ep_destroy(q2);
	rd->ep_destroy(p2);
	assert_int_equal(live_mws(), 1);
}

static void grant_revoked_by_dereg(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_op op = rd_op(l, 0, l->len);

	memcpy(l->dst, l->src, l->len);
	assert_ok(rd->xfer(l->q, false, &op, 1, -1, err), err);
	/* windows first: the fake refuses (and logs) an MR with one bound */
	rd->mem_dereg(l->srv, l->mdst);
	l->mdst = NULL;
	assert_int_equal(live_mws(), 0);
	memset(l->back, 0, l->len);
	assert_int_equal(rd->xfer(l->q, false, &op, 1, -1, err), -EACCES);
	assert_true(all_bytes(l->back, l->len, 0));
}

static void grant_bind_fails(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	uint32_t k = 7;

	fake_fail(FAKE_POST_SEND, ENOMEM, 0, 1);
	assert_int_equal(rd->ep_grant(l->peer, l->mdst, &k, err), -EIO);
	assert_glob(err, "binding a memory window: ibv_post_send: *");
	assert_int_equal(k, 7);
	/* only the link's own window is left */
	assert_int_equal(live_mws(), 1);
}

/*
 * A bind that completes in error: -EIO, the queue pair failed (the next
 * grant on it fails at once), no window left of it.
 */
static void grant_bind_error(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_qp_info qi;
	uint32_t k = 7;

	fake_fail(FAKE_BIND, EINVAL, 0, 1);
	assert_int_equal(rd->ep_grant(l->peer, l->mdst, &k, err), -EIO);
	assert_glob(err, "binding a memory window: *");
	assert_true(rd->ep_failed(l->peer));
	assert_true(fake_qp_info(l->pi.qpn, &qi));
	assert_int_equal(qi.state, IBV_QPS_ERR);
	assert_int_equal(live_mws(), 1);
	assert_int_equal(rd->ep_grant(l->peer, l->mdst, &k, err), -EIO);
	assert_glob(err, "the queue pair failed before*");
	assert_int_equal(k, 7);
}

/*
 * A bind that never completes (a wedged NIC): -EIO after 5 s, and the
 * queue pair's verbs object is destroyed before the window is freed.
 */
static void grant_bind_timeout(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_qp_info qi;
	int64_t t0 = now_ms();
	uint32_t k = 7;

	fake_peer_silent(true);
	assert_int_equal(rd->ep_grant(l->peer, l->mdst, &k, err), -EIO);
	assert_true(now_ms() - t0 >= 5000);
	assert_glob(err, "binding a memory window: no completion in 5 s (destroyed the queue pair)");
	assert_true(rd->ep_failed(l->peer));
	assert_false(fake_qp_info(l->pi.qpn, &qi));
	assert_int_equal(live_mws(), 1);
	fake_peer_silent(false);
}

/* Without windows: the MR's own rkey, good on every queue pair. */
static void own_rkey(void)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ep *q2, *p2;
	struct adxl_plugin_op op;
	struct link l;
	uint32_t k2;

	link_up(&l, 1 << 20, NULL, NULL);
	assert_glob(rd->describe(l.srv),
		    "*, one rkey per registration for every peer");
	assert_int_equal(live_mws(), 0);
	second_pair(&l, &q2, &p2);
	assert_ok(rd->ep_grant(p2, l.mdst, &k2, err), err);
	assert_int_equal(k2, l.kdst);
	assert_int_not_equal(k2, 0);
	op = wr_op(&l, 0, l.len);
	assert_ok(rd->xfer(q2, true, &op, 1, -1, err), err);
	assert_memory_equal(l.dst, l.src, l.len);
	rd->ep_destroy(q2);
	rd->ep_destroy(p2);
	link_down(&l);
}

static void grant_device_without_windows(void **state)
{
	(void)state;
	fake_device(0)->no_windows = true;
	own_rkey();
}

static void grant_windows_off(void **state)
{
	(void)state;
	setenv("MEMREG_ADXL_RDMA_WINDOWS", "0", 1);
	own_rkey();
}

int test_grant_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(grant_per_queue_pair,
						link_setup, link_teardown),
		cmocka_unit_test_setup_teardown(grant_revoked_by_dereg,
						link_setup, link_teardown),
		cmocka_unit_test_setup_teardown(grant_bind_fails, link_setup,
						link_teardown),
		cmocka_unit_test_setup_teardown(grant_bind_error, link_setup,
						link_teardown),
		cmocka_unit_test_setup_teardown(grant_bind_timeout, link_setup,
						link_teardown),
		cmocka_unit_test_setup_teardown(grant_device_without_windows,
						fresh, all_freed),
		cmocka_unit_test_setup_teardown(grant_windows_off, fresh,
						all_freed),
	};

	return cmocka_run_group_tests_name("grant", tests, NULL, NULL);
}
