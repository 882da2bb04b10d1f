// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers and connections that fail, each with the errno and message
 * lib/adxl/rdma_plugin.h promises, and the rest of the promise: after
 * -ETIMEDOUT, -ECONNRESET or -EACCES the queue pair is failed and no
 * work request of the call is left on the NIC, so no byte lands after
 * xfer returned; a refusal before posting (-EFAULT, -EINVAL) leaves the
 * queue pair usable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"

/* 300 ranges of 4 KiB, every other 4 KiB: WRITEs, or READs into back. */
#define N_OPS	300
static struct adxl_plugin_op *spread(const struct link *l, bool write)
{
	struct adxl_plugin_op *ops = calloc(N_OPS, sizeof(*ops));
	size_t i;

	assert_non_null(ops);
	for (i = 0; i < N_OPS; i++)
		ops[i] = write ? wr_op(l, i * 8192, 4096) :
				 rd_op(l, i * 8192, 4096);
	return ops;
}

/* Failed, and nothing of it left on the NIC (the fake's wire). */
static void failed_and_drained(const struct link *l)
{
	struct fake_qp_info qi;

	assert_true(rd->ep_failed(l->q));
	if (fake_qp_info(l->qi.qpn, &qi)) {
		assert_int_equal(qi.state, IBV_QPS_ERR);
		assert_int_equal(qi.in_nic, 0);
	}
}

/* Once failed, a queue pair says so, and does nothing. */
static void stays_failed(const struct link *l)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_op op = wr_op(l, 0, 4096);

	assert_int_equal(rd->xfer(l->q, true, &op, 1, -1, err), -ECONNRESET);
	assert_string_equal(err, "the queue pair failed earlier: connect again");
}

/*
 * A local range in no MR: -EFAULT before anything is posted (the ranges
 * before it are not written either), and the queue pair still works.
 */
static void errors_local_unregistered(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "", msg[ADXL_PLUGIN_ERR_LEN];
	struct adxl_plugin_op ops[3] = {
		wr_op(l, 0, 4096),
		wr_op(l, 4096, 4096),
		wr_op(l, l->len - 10, 11),	/* one byte past src */
	};

	ops[2].remote = (uintptr_t)l->dst;
	assert_int_equal(rd->xfer(l->q, true, ops, 3, -1, err), -EFAULT);
	snprintf(msg, sizeof(msg), "local [0x%llx, +11) (range 2 of 3) is in no MR of ours",
		 (unsigned long long)ops[2].local);
	assert_string_equal(err, msg);
	assert_true(all_bytes(l->dst, l->len, 0));
	assert_false(rd->ep_failed(l->q));

	/* the server's memory is not ours either */
	ops[2] = (struct adxl_plugin_op){ (uintptr_t)l->dst, (uintptr_t)l->dst,
					4096, l->kdst };
	assert_int_equal(rd->xfer(l->q, false, ops + 2, 1, -1, err), -EFAULT);

	assert_ok(rd->xfer(l->q, true, ops, 2, -1, err), err);
	assert_memory_equal(l->dst, l->src, 8192);
}

static void errors_bad_ranges(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_op ops[2] = { wr_op(l, 0, 4096), wr_op(l, 4096, 0) };
	struct fake_stats st;

	fake_clear_stats();
	assert_int_equal(rd->xfer(l->q, true, ops, 2, -1, err), -EINVAL);
	assert_string_equal(err, "range 1 of 2 is empty");
	ops[1] = wr_op(l, 4096, 100);
	ops[1].remote = UINT64_MAX - 10;
	assert_int_equal(rd->xfer(l->q, true, ops, 2, -1, err), -EINVAL);
	assert_string_equal(err, "range 1 of 2: remote [0xfffffffffffffff5, +100) wraps around");
	fake_get_stats(&st);
	assert_int_equal(st.wrs, 0);
	assert_true(all_bytes(l->dst, l->len, 0));
	assert_false(rd->ep_failed(l->q));
}

/* Transfers before connecting, connecting twice, a peer's bad MTU. */
static void errors_connect_misuse(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine, theirs;
	struct adxl_plugin_ep *q = NULL, *p = NULL;
	struct adxl_plugin_ctx *r = NULL;
	struct adxl_plugin_op op = { 0 };

	(void)state;
	assert_ok(dev_open(&r, err), err);
	assert_ok(qp_create(r, true, NULL, &mine, &q, err), err);
	assert_ok(qp_create(r, true, NULL, &theirs, &p, err), err);
	assert_int_equal(rd->xfer(q, true, &op, 1, -1, err), -EINVAL);
	assert_string_equal(err, "the queue pair is not connected");

	theirs.mtu = 0;
	assert_int_equal(qp_connect(q, &theirs, 0, 0, err), -EINVAL);
	assert_string_equal(err, "the peer's MTU (0) is not an enum ibv_mtu");
	theirs.mtu = IBV_MTU_4096 + 1;
	assert_int_equal(qp_connect(q, &theirs, 0, 0, err), -EINVAL);
	assert_string_equal(err, "the peer's MTU (6) is not an enum ibv_mtu");
	assert_false(rd->ep_failed(q));

	theirs.mtu = IBV_MTU_1024;
	assert_ok(qp_connect(q, &theirs, 0, 0, err), err);
	assert_int_equal(qp_connect(q, &theirs, 0, 0, err), -EINVAL);
	assert_string_equal(err, "the queue pair is connected (or failed) already: make a new one");
	assert_false(rd->ep_failed(q));
	rd->ep_destroy(q);
	rd->ep_destroy(p);
	rd->close(r);
}

/* A peer GID no port has: RTR cannot resolve it, -ECONNRESET at once. */
static void errors_unreachable(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine, theirs;
	struct adxl_plugin_ep *q = NULL;
	struct adxl_plugin_ctx *r = NULL;
	struct adxl_plugin_op op = { 0 };

	(void)state;
	assert_ok(dev_open(&r, err), err);
	assert_ok(qp_create(r, true, NULL, &mine, &q, err), err);
	theirs = mine;
	theirs.qpn = 0x99;
	assert_int_equal(inet_pton(AF_INET6, "::ffff:10.9.9.9", theirs.gid), 1);
	assert_int_equal(qp_connect(q, &theirs, 0, 0, err), -ECONNRESET);
	assert_string_equal(err, "ibv_modify_qp to RTR (peer GID ::ffff:10.9.9.9, QPN 0x99, GID index 3 here): No route to host");
	assert_true(rd->ep_failed(q));
	assert_int_equal(rd->xfer(q, true, &op, 1, -1, err), -ECONNRESET);
	assert_string_equal(err, "the queue pair failed earlier: connect again");
	rd->ep_destroy(q);
	rd->close(r);
}

/*
 * The server deregistered: the rkey is dead, a WRITE through it is
 * refused (-EACCES) and writes nothing, a READ reads nothing.
 */
static void errors_peer_deregistered(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, true);
	char err[ADXL_PLUGIN_ERR_LEN] = "", msg[ADXL_PLUGIN_ERR_LEN];

	rd->mem_dereg(l->srv, l->mdst);
	l->mdst = NULL;
	assert_int_equal(rd->xfer(l->q, true, ops, N_OPS, -1, err), -EACCES);
	snprintf(msg, sizeof(msg), "the peer refused [0x%llx, +4096) (rkey 0x%x): not registered there (any more)",
		 (unsigned long long)(uintptr_t)l->dst, l->kdst);
	assert_string_equal(err, msg);
	assert_true(all_bytes(l->dst, l->len, 0));
	failed_and_drained(l);
	stays_failed(l);
	free(ops);

	link_reconnect(l);
	ops = spread(l, false);
	fill_pattern(l->dst, l->len);
	assert_int_equal(rd->xfer(l->q, false, ops, N_OPS, -1, err), -EACCES);
	assert_string_equal(err, msg);
	assert_true(all_bytes(l->back, l->len, 0));
	failed_and_drained(l);
	free(ops);
}

/*
 * A peer that never answers: -ETIMEDOUT at the deadline, not before and
 * not long after, and a late answer lands nowhere.
 */
static void errors_peer_silent(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, false);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	int64_t t0, took;

	fill_pattern(l->dst, l->len);
	fake_peer_silent(true);
	t0 = now_ms();
	assert_int_equal(rd->xfer(l->q, false, ops, N_OPS, t0 + 300, err),
			 -ETIMEDOUT);
	took = now_ms() - t0;
	assert_glob(err, "the deadline passed with * of the * RDMA READs posted unanswered, * of 300 ranges yet to post");
	assert_in_range(took, 299, 300 + 3000);
	failed_and_drained(l);

	fake_peer_silent(false);
	sleep_ms(50);
	assert_true(all_bytes(l->back, l->len, 0));
	stays_failed(l);
	free(ops);
}

/* The server's queue pair is gone (its process died): -ECONNRESET. */
static void errors_peer_gone(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, true);
	char err[ADXL_PLUGIN_ERR_LEN] = "", msg[ADXL_PLUGIN_ERR_LEN];

	rd->ep_destroy(l->peer);
	l->peer = NULL;
	assert_int_equal(rd->xfer(l->q, true, ops, N_OPS, -1, err), -ECONNRESET);
	snprintf(msg, sizeof(msg), "peer unreachable: RDMA WRITE of [0x%llx, +4096) unanswered after 7 retries (about 4 s): transport retry counter exceeded",
		 (unsigned long long)(uintptr_t)l->dst);
	assert_string_equal(err, msg);
	assert_true(all_bytes(l->dst, l->len, 0));
	failed_and_drained(l);
	stays_failed(l);
	free(ops);
}

/* The NIC gave up on a peer that stopped answering: -ECONNRESET. */
static void errors_retries_exhausted(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, false);
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	fill_pattern(l->dst, l->len);
	fake_retries_exhausted(true);
	assert_int_equal(rd->xfer(l->q, false, ops, N_OPS, now_ms() + 10000, err),
			 -ECONNRESET);
	assert_glob(err, "peer unreachable: RDMA READ of \\[0x*, +4096) unanswered after 7 retries (about 4 s): transport retry counter exceeded");
	assert_true(all_bytes(l->back, l->len, 0));
	failed_and_drained(l);
	free(ops);
}

/* A deadline already past: nothing is posted, -EAGAIN, the QP serves on. */
static void errors_deadline_passed(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op op = wr_op(l, 0, l->len);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_stats st;

	fake_clear_stats();
	assert_int_equal(rd->xfer(l->q, true, &op, 1, now_ms() - 1, err),
			 -EAGAIN);
	assert_string_equal(err, "the deadline had passed before the first RDMA WRITE; nothing was posted");
	fake_get_stats(&st);
	assert_int_equal(st.wrs, 0);
	assert_true(all_bytes(l->dst, l->len, 0));
	/* nothing was posted, so nothing failed: the next call works */
	assert_false(rd->ep_failed(l->q));
	assert_ok(rd->xfer(l->q, true, &op, 1, -1, err), err);
	assert_memory_equal(l->dst, l->src, l->len);
}

/*
 * ibv_post_send refuses the 41st work request: the error, and the 40
 * that went out are waited for (flushed), not abandoned or waited on
 * for the drain's 5 s.
 */
static void errors_post_refused(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, true);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	int64_t t0;

	fake_wire_latency_us(1000);
	fake_fail(FAKE_POST_SEND, ENOMEM, 40, 1);
	t0 = now_ms();
	assert_int_equal(rd->xfer(l->q, true, ops, N_OPS, -1, err), -ENOMEM);
	assert_string_equal(err, "ibv_post_send (RDMA WRITE): Cannot allocate memory");
	assert_in_range(now_ms() - t0, 0, 4000);
	failed_and_drained(l);

	link_reconnect(l);
	fake_fail(FAKE_POST_SEND, EINVAL, 0, 1);
	assert_int_equal(rd->xfer(l->q, true, ops, N_OPS, -1, err), -EIO);
	assert_string_equal(err, "ibv_post_send (RDMA WRITE): Invalid argument");
	failed_and_drained(l);
	free(ops);
}

/*
 * A wedged device: the peer is silent and the error state flushes
 * nothing.  xfer gives the NIC 5 s, then destroys the queue pair (which
 * a NIC must finish with first) and says so; nothing lands after.
 */
static void errors_device_wedged(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = spread(l, true);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_stats st;
	struct fake_qp_info qi;
	int64_t t0, took;

	fake_peer_silent(true);
	fake_never_flush(true);
	t0 = now_ms();
	assert_int_equal(rd->xfer(l->q, true, ops, N_OPS, t0 + 200, err),
			 -ETIMEDOUT);
	took = now_ms() - t0;
	assert_glob(err, "the deadline passed with * of the * RDMA WRITEs posted unanswered, * of 300 ranges yet to post; * work requests not flushed 5 s after the error state: destroyed the queue pair");
	assert_in_range(took, 200 + 5000 - 1, 200 + 5000 + 3000);
	assert_true(rd->ep_failed(l->q));
	assert_false(fake_qp_info(l->qi.qpn, &qi));
	fake_get_stats(&st);
	assert_true(st.discarded > 0);

	fake_peer_silent(false);
	fake_never_flush(false);
	sleep_ms(50);
	assert_true(all_bytes(l->dst, l->len, 0));
	stays_failed(l);
	free(ops);
}

/* The CQ cannot be polled (the device went away): -EIO, QP destroyed. */
static void errors_poll_fails(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op op = wr_op(l, 0, l->len);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_qp_info qi;

	fake_fail(FAKE_POLL_CQ, EIO, 0, -1);
	assert_int_equal(rd->xfer(l->q, true, &op, 1, -1, err), -EIO);
	assert_glob(err, "ibv_poll_cq failed; * work requests not flushed 5 s after the error state: destroyed the queue pair");
	assert_true(rd->ep_failed(l->q));
	assert_false(fake_qp_info(l->qi.qpn, &qi));
	fake_fail(FAKE_POLL_CQ, 0, 0, 0);
	stays_failed(l);
}

/* Without completion events, xfer polls instead and still finishes. */
static void errors_no_events(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op ops[20];
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	size_t i;

	for (i = 0; i < 20; i++)
		ops[i] = wr_op(l, i * 4096, 4096);
	fake_fail(FAKE_NOTIFY_CQ, EIO, 0, -1);
	fake_wire_latency_us(2000);
	assert_ok(rd->xfer(l->q, true, ops, 20, now_ms() + 20000, err), err);
	assert_memory_equal(l->dst, l->src, 20 * 4096);
	assert_false(rd->ep_failed(l->q));
}

/* Queue pair, CQ or channel refused: the errno, and nothing left over. */
struct long_call {
	struct link *l;
	int64_t deadline;
	int ret;
	int64_t ended;
};

static void *long_call_main(void *arg)
{
	struct long_call *c = arg;
	struct adxl_plugin_op op = wr_op(c->l, 0, 4096);
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	c->ret = rd->xfer(c->l->q, true, &op, 1, c->deadline, err);
	c->ended = now_ms();
	return NULL;
}

/*
 * A call that waits for another one's turn past its own deadline posts
 * nothing and fails nothing itself: -EAGAIN at its deadline, not when the
 * other call ends (here: a silent peer holds that one for 1.5 s).
 */
static void errors_deadline_while_waiting(void **state)
{
	struct link *l = *state;
	struct long_call c = { .l = l, .deadline = now_ms() + 1500 };
	struct adxl_plugin_op op = wr_op(l, 4096, 4096);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_stats st;
	pthread_t t;
	int64_t t0, took;

	fake_peer_silent(true);
	assert_int_equal(pthread_create(&t, NULL, long_call_main, &c), 0);
	usleep(50000);			/* it has the queue pair now */
	fake_clear_stats();
	t0 = now_ms();
	assert_int_equal(rd->xfer(l->q, true, &op, 1, t0 + 100, err), -EAGAIN);
	took = now_ms() - t0;
	assert_true(took >= 90 && took < 1000);
	assert_string_equal(err, "the deadline passed while another call had the queue pair; nothing was posted");
	fake_get_stats(&st);
	assert_int_equal(st.wrs, 0);
	pthread_join(t, NULL);
	fake_peer_silent(false);
	/* the other call ran to its own deadline, after ours */
	assert_int_equal(c.ret, -ETIMEDOUT);
	assert_true(c.ended - t0 > 1000);
}

/*
 * A client's queue pair only initiates: the server it is connected to
 * cannot READ or WRITE the client's MRs through it, rkey or not.
 */
static void errors_client_qp_serves_nothing(void **state)
{
	struct adxl_plugin_op op;
	struct link l = { 0 };
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	(void)state;
	link_up(&l, 4096, NULL, NULL);
	op = (struct adxl_plugin_op){
		(uintptr_t)l.dst, (uintptr_t)l.src, 4096, l.ksrc,
	};
	memset(l.dst, 0, 4096);
	assert_int_equal(rd->xfer(l.peer, false, &op, 1, -1, err), -EACCES);
	assert_non_null(strstr(err, "the peer refused"));
	assert_true(rd->ep_failed(l.peer));
	/* nothing of the client's arrived */
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(l.dst[i], 0);
	link_down(&l);
}

static void errors_qp_create_fails(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine;
	struct adxl_plugin_ep *q = NULL;
	struct adxl_plugin_ctx *r = NULL;

	(void)state;
	assert_ok(dev_open(&r, err), err);
	fake_fail(FAKE_CREATE_QP, ENOMEM, 0, 1);
	assert_int_equal(qp_create(r, true, NULL, &mine, &q, err), -ENOMEM);
	assert_string_equal(err, "ibv_create_qp: Cannot allocate memory");
	fake_fail(FAKE_CREATE_CQ, EINVAL, 0, 1);
	assert_int_equal(qp_create(r, true, NULL, &mine, &q, err), -EINVAL);
	assert_string_equal(err, "ibv_create_cq: Invalid argument");
	fake_fail(FAKE_CREATE_CHANNEL, EMFILE, 0, 1);
	assert_int_equal(qp_create(r, true, NULL, &mine, &q, err), -EIO);
	assert_string_equal(err, "ibv_create_comp_channel: Too many open files");
	rd->close(r);
}

/*
 * A queue pair's info as ep_create gives it, and what ep_connect makes of
 * info that is not one (a byte short or over, none): refused, the queue
 * pair still good for the right info.
 */
static void errors_info_not_a_queue_pair(void **state)
{
	uint8_t info[ADXL_PLUGIN_INFO_MAX], peer[ADXL_PLUGIN_INFO_MAX];
	size_t n = sizeof(info), pn = sizeof(peer);
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ep *q = NULL, *p = NULL;
	struct adxl_plugin_ctx *r = NULL;
	struct adxl_rdma_qpinfo mine;

	(void)state;
	assert_ok(dev_open(&r, err), err);
	assert_ok(rd->ep_create(r, false, NULL, info, &n, &q, err), err);
	assert_ok(rd->ep_create(r, true, NULL, peer, &pn, &p, err), err);
	/* GID, then QP number, PSN, MTU, LID big-endian */
	assert_int_equal(n, QPINFO_LEN);
	assert_int_equal(rdmap_qpinfo_get(info, n, &mine), 0);
	assert_int_equal((info[16] << 24) | (info[17] << 16) | (info[18] << 8) |
			 info[19], mine.qpn);
	assert_int_equal(rd->ep_connect(q, peer, pn - 1, -1, err), -EINVAL);
	assert_string_equal(err, "not a queue pair's info (31 bytes)");
	assert_int_equal(rd->ep_connect(q, peer, pn + 1, -1, err), -EINVAL);
	assert_int_equal(rd->ep_connect(q, peer, 0, -1, err), -EINVAL);
	assert_false(rd->ep_failed(q));
	assert_ok(rd->ep_connect(p, info, n, -1, err), err);
	assert_ok(rd->ep_connect(q, peer, pn, -1, err), err);
	/* and no room for the info is no queue pair */
	n = QPINFO_LEN - 1;
	assert_int_equal(rd->ep_create(r, false, NULL, info, &n, &q, err),
			 -EINVAL);
	rd->ep_destroy(p);
	rd->ep_destroy(q);
	rd->close(r);
}

#define L(fn) cmocka_unit_test_setup_teardown(fn, link_setup, link_teardown)
#define T(fn) cmocka_unit_test_setup_teardown(fn, fresh, all_freed)

int test_errors_group(void)
{
	const struct CMUnitTest tests[] = {
		L(errors_local_unregistered),
		L(errors_bad_ranges),
		T(errors_connect_misuse),
		T(errors_info_not_a_queue_pair),
		T(errors_unreachable),
		L(errors_peer_deregistered),
		L(errors_peer_silent),
		L(errors_peer_gone),
		L(errors_retries_exhausted),
		L(errors_deadline_passed),
		L(errors_deadline_while_waiting),
		L(errors_post_refused),
		L(errors_device_wedged),
		L(errors_poll_fails),
		L(errors_no_events),
		T(errors_client_qp_serves_nothing),
		T(errors_qp_create_fails),
	};

	return cmocka_run_group_tests_name("errors", tests, NULL, NULL);
}
