// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Transfers that work: the bytes arrive where they were sent and nowhere
 * else, for ranges of any size and number, on devices with small limits,
 * between ports of different MTUs and on InfiniBand.  The fake refuses
 * what a NIC would (a full send queue, a CQ overrun, a work request over
 * the port's max_msg_sz, attributes over the device's limits), so a
 * transfer that stays within them is one that gives back 0 here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"

#define MiB	(1U << 20)

/* Three ranges of odd sizes write all of dst but its first and last byte. */
static void xfer_write_ranges(void **state)
{
	struct link *l = *state;
	size_t n = l->len;
	struct adxl_plugin_op ops[3] = {
		wr_op(l, 1, 1),
		wr_op(l, 2, 3 * MiB + 5),
		wr_op(l, 3 * MiB + 7, n - 3 * MiB - 8),
	};
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	memset(l->dst, 0xee, n);
	assert_ok(rd->xfer(l->q, true, ops, 3, now_ms() + 10000, err), err);
	assert_memory_equal(l->dst + 1, l->src + 1, n - 2);
	assert_int_equal(l->dst[0], 0xee);
	assert_int_equal(l->dst[n - 1], 0xee);
	assert_false(rd->ep_failed(l->q));
}

static void xfer_read_ranges(void **state)
{
	struct link *l = *state;
	size_t n = l->len;
	struct adxl_plugin_op ops[3] = {
		rd_op(l, n - 1, 1),
		rd_op(l, 3 * MiB, n - 3 * MiB - 1),
		rd_op(l, 0, 3 * MiB),
	};
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	/* the server's own bytes */
	fill_pattern(l->dst, n);
	memset(l->back, 0xee, n);
	assert_ok(rd->xfer(l->q, false, ops, 3, -1, err), err);
	assert_memory_equal(l->back, l->src, n);
}

/*
 * A thousand 4 KiB WRITEs and three hundred READs on a wire with latency,
 * so the window fills and xfer waits for completions; out of order, to
 * show each range goes where its op says.
 */
static void xfer_many_small(void **state)
{
	struct link *l = *state;
	struct adxl_plugin_op *ops = calloc(1000, sizeof(*ops));
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	size_t i;

	assert_non_null(ops);
	fake_wire_latency_us(100);
	for (i = 0; i < 1000; i++)
		ops[i] = wr_op(l, (999 - i) * 4096, 4096);
	assert_ok(rd->xfer(l->q, true, ops, 1000, now_ms() + 30000, err), err);
	assert_memory_equal(l->dst, l->src, 1000 * 4096);
	assert_true(all_bytes(l->dst + 1000 * 4096, l->len - 1000 * 4096, 0));

	for (i = 0; i < 300; i++)
		ops[i] = rd_op(l, i * 8192, 4096);
	assert_ok(rd->xfer(l->q, false, ops, 300, now_ms() + 30000, err), err);
	for (i = 0; i < 300; i++) {
		assert_memory_equal(l->back + i * 8192, l->src + i * 8192, 4096);
		assert_true(all_bytes(l->back + i * 8192 + 4096, 4096, 0));
	}
	free(ops);
}

/*
 * The largest work request of a 5 MiB WRITE, with MEMREG_ADXL_RDMA_CHUNK
 * @chunk (NULL: unset) on a port of max_msg_sz @max_msg_sz (0: 8 MiB).
 */
static uint32_t largest_wr(const char *chunk, uint32_t max_msg_sz)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_stats st;
	struct adxl_plugin_op op;
	struct link l;

	fresh(NULL);
	if (chunk)
		setenv("MEMREG_ADXL_RDMA_CHUNK", chunk, 1);
	if (max_msg_sz)
		fake_device(0)->ports[0].max_msg_sz = max_msg_sz;
	link_up(&l, LINK_LEN, NULL, NULL);
	op = wr_op(&l, 0, l.len);
	fake_clear_stats();
	assert_ok(rd->xfer(l.q, true, &op, 1, -1, err), err);
	assert_memory_equal(l.dst, l.src, l.len);
	fake_get_stats(&st);
	link_down(&l);
	all_freed(NULL);
	return st.max_wr_len;
}

/*
 * Work requests of 64 KiB at most, or MEMREG_ADXL_RDMA_CHUNK if that is
 * not 0 and at most 1 MiB, or the port's max_msg_sz if that is smaller.
 */
static void xfer_chunks(void **state)
{
	(void)state;
	assert_int_equal(largest_wr(NULL, 0), 65536);
	assert_int_equal(largest_wr("1048576", 0), MiB);
	assert_int_equal(largest_wr("0x3000", 0), 0x3000);
	assert_int_equal(largest_wr("0", 0), 65536);
	assert_int_equal(largest_wr("4194304", 0), 65536);
	assert_int_equal(largest_wr("junk", 0), 65536);
	assert_int_equal(largest_wr(NULL, 12288), 12288);
	assert_int_equal(largest_wr("4096", 12288), 4096);
	assert_int_equal(largest_wr("1048576", 12288), 12288);
}

/*
 * A device that takes 8 work requests a queue pair, 6 CQ entries and 2
 * READs at once: the plugin keeps under each, and the fake would refuse
 * anything over (post: ENOMEM; CQ: overrun; READs: a NAK).
 */
static void xfer_small_device(void **state)
{
	struct fake_device *d = fake_device(0);
	struct adxl_plugin_op *ops = calloc(1000, sizeof(*ops));
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct link l;
	size_t i;

	(void)state;
	assert_non_null(ops);
	d->max_qp_wr = 8;
	d->max_cqe = 6;
	d->max_qp_rd_atom = 2;
	d->max_qp_init_rd_atom = 2;
	link_up(&l, LINK_LEN, NULL, NULL);
	fake_wire_latency_us(20);
	for (i = 0; i < 1000; i++)
		ops[i] = wr_op(&l, i * 4096, 4096);
	assert_ok(rd->xfer(l.q, true, ops, 1000, now_ms() + 30000, err), err);
	assert_memory_equal(l.dst, l.src, 1000 * 4096);
	for (i = 0; i < 300; i++)
		ops[i] = rd_op(&l, i * 4096, 4096);
	assert_ok(rd->xfer(l.q, false, ops, 300, now_ms() + 30000, err), err);
	assert_memory_equal(l.back, l.src, 300 * 4096);
	free(ops);
	link_down(&l);
}

/*
 * Ports of MTU 1024 and 4096: both ends take 1024 (the larger would be
 * dropped on the way), and the bytes go through.
 */
static void xfer_mtu_mismatch(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_qp_info qi, pi;
	struct adxl_plugin_op op;
	struct link l;

	(void)state;
	fake_device_add("fake1")->ports[0].mtu = IBV_MTU_4096;
	link_up(&l, LINK_LEN, "fake0", "fake1");
	assert_int_equal(l.qi.mtu, IBV_MTU_1024);
	assert_int_equal(l.pi.mtu, IBV_MTU_4096);
	assert_true(fake_qp_info(l.qi.qpn, &qi));
	assert_true(fake_qp_info(l.pi.qpn, &pi));
	assert_int_equal(qi.path_mtu, IBV_MTU_1024);
	assert_int_equal(pi.path_mtu, IBV_MTU_1024);
	op = wr_op(&l, 0, l.len);
	assert_ok(rd->xfer(l.q, true, &op, 1, -1, err), err);
	assert_memory_equal(l.dst, l.src, l.len);
	link_down(&l);
}

/*
 * The traffic class and service level an engine was given (ADXL's
 * RdmaTrafficClass, RdmaServiceLevel) are what its queue pair sends
 * with; the other end keeps its own.
 */
static void xfer_traffic_class(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_qp_info qi, pi;
	struct adxl_plugin_op op;
	struct link l;

	(void)state;
	link_up(&l, LINK_LEN, NULL, NULL);
	/* link_up connected both with 0, 0: connect a new pair by hand */
	rd->ep_destroy(l.q);
	rd->ep_destroy(l.peer);
	assert_ok(qp_create(l.cli, false, NULL, &l.qi, &l.q, err), err);
	assert_ok(qp_create(l.srv, true, NULL, &l.pi, &l.peer, err), err);
	assert_ok(qp_connect(l.peer, &l.qi, 0, 0, err), err);
	assert_ok(qp_connect(l.q, &l.pi, 96, 3, err), err);
	assert_ok(rd->ep_grant(l.peer, l.mdst, &l.kdst, err), err);
	assert_true(fake_qp_info(l.qi.qpn, &qi));
	assert_true(fake_qp_info(l.pi.qpn, &pi));
	assert_int_equal(qi.traffic_class, 96);
	assert_int_equal(qi.sl, 3);
	assert_int_equal(pi.traffic_class, 0);
	assert_int_equal(pi.sl, 0);
	op = wr_op(&l, 0, l.len);
	assert_ok(rd->xfer(l.q, true, &op, 1, -1, err), err);
	assert_memory_equal(l.dst, l.src, l.len);
	link_down(&l);
}

/*
 * The ACK timeout each queue pair gets: 17 (0.54 s) unless
 * MEMREG_ADXL_RDMA_ACK_TIMEOUT says 1-31; anything else keeps 17.
 */
static void xfer_ack_timeout(void **state)
{
	static const struct { const char *env; int want; } c[] = {
		{ NULL, 17 }, { "14", 14 }, { "1", 1 }, { "31", 31 },
		{ "0", 17 }, { "32", 17 }, { "fast", 17 },
	};
	struct fake_qp_info qi, pi;
	struct link l;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		if (c[i].env)
			setenv("MEMREG_ADXL_RDMA_ACK_TIMEOUT", c[i].env, 1);
		else
			unsetenv("MEMREG_ADXL_RDMA_ACK_TIMEOUT");
		link_up(&l, LINK_LEN, NULL, NULL);
		assert_true(fake_qp_info(l.qi.qpn, &qi));
		assert_true(fake_qp_info(l.pi.qpn, &pi));
		if (qi.timeout != c[i].want || pi.timeout != c[i].want)
			fail_msg("MEMREG_ADXL_RDMA_ACK_TIMEOUT=%s: timeouts %u and %u, want %d",
				 c[i].env ? c[i].env : "(unset)", qi.timeout,
				 pi.timeout, c[i].want);
		link_down(&l);
	}
	unsetenv("MEMREG_ADXL_RDMA_ACK_TIMEOUT");
}

/* InfiniBand: the peer is its LID, and it works the same. */
static void xfer_infiniband(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_port *p;
	struct adxl_plugin_op op[2];
	struct link l;

	(void)state;
	p = &fake_device(0)->ports[0];
	p->link_layer = IBV_LINK_LAYER_INFINIBAND;
	p->lid = 3;
	p = &fake_device_add("fake1")->ports[0];
	p->link_layer = IBV_LINK_LAYER_INFINIBAND;
	p->lid = 9;
	link_up(&l, LINK_LEN, "fake0", "fake1");
	assert_int_equal(l.qi.lid, 3);
	assert_int_equal(l.pi.lid, 9);
	op[0] = wr_op(&l, 0, l.len);
	assert_ok(rd->xfer(l.q, true, op, 1, -1, err), err);
	assert_memory_equal(l.dst, l.src, l.len);
	op[0] = rd_op(&l, 0, l.len / 2);
	op[1] = rd_op(&l, l.len / 2, l.len - l.len / 2);
	assert_ok(rd->xfer(l.q, false, op, 2, -1, err), err);
	assert_memory_equal(l.back, l.src, l.len);
	link_down(&l);
}

/* No range: nothing to do, done at once, nothing posted. */
static void xfer_nothing(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct fake_stats st;

	fake_clear_stats();
	assert_ok(rd->xfer(l->q, true, NULL, 0, -1, err), err);
	assert_ok(rd->xfer(l->q, false, NULL, 0, now_ms() - 1, err), err);
	fake_get_stats(&st);
	assert_int_equal(st.wrs, 0);
	assert_false(rd->ep_failed(l->q));
}

#define L(fn) cmocka_unit_test_setup_teardown(fn, link_setup, link_teardown)
#define T(fn) cmocka_unit_test_setup_teardown(fn, fresh, all_freed)

int test_xfer_group(void)
{
	const struct CMUnitTest tests[] = {
		L(xfer_write_ranges),
		L(xfer_read_ranges),
		L(xfer_many_small),
		T(xfer_chunks),
		T(xfer_small_device),
		T(xfer_mtu_mismatch),
		T(xfer_traffic_class),
		T(xfer_ack_timeout),
		T(xfer_infiniband),
		L(xfer_nothing),
	};

	return cmocka_run_group_tests_name("xfer", tests, NULL, NULL);
}
