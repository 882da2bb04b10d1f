// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The RDMA hello and its reply, byte for byte: what connects a queue pair
 * and the table of registrations with their rkeys survive the round trip,
 * every truncation and every count the payload cannot hold is refused, a
 * refusal carries its reason, and another version is not understood.
 * (Transfers over RDMA need a NIC: they run between two VMs on soft-RoCE,
 * tests/vm/rdma-pair.  What a host without one does is in test_ucx.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"
#include "tests.h"

static struct adxl_rdma_qpinfo sample_qp(void)
{
	struct adxl_rdma_qpinfo q = {
		.qpn = 0x11, .psn = 0xabcdef, .mtu = 3, .lid = 0,
	};
	size_t i;

	for (i = 0; i < sizeof(q.gid); i++)
		q.gid[i] = (uint8_t)(0xf0 + i);
	return q;
}

static void test_rdma_hello(void **state)
{
	struct adxl_rdma_qpinfo out = sample_qp(), in;
	struct adxl_buf b = { 0 };
	size_t cut;

	(void)state;
	assert_int_equal(adxl__rdma_hello_encode(&out, &b), 0);
	assert_int_equal(adxl__rdma_hello_decode(b.data, b.len, &in), 0);
	assert_memory_equal(&in, &out, sizeof(in));
	for (cut = 0; cut < b.len; cut++)
		assert_int_equal(adxl__rdma_hello_decode(b.data, cut, &in),
				 -EPROTO);
	b.data[3] = ADXL_RDMA_VERSION + 1;
	assert_int_equal(adxl__rdma_hello_decode(b.data, b.len, &in), -EPROTO);
	/* a byte too many is as wrong as one too few */
	b.data[3] = ADXL_RDMA_VERSION;
	adxl__buf_bytes(&b, "x", 1);
	assert_false(b.err);
	assert_int_equal(adxl__rdma_hello_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);
}

static void test_rdma_reply_round_trip(void **state)
{
	struct adxl_wreg regs[3] = {
		{ 0x1000, 4096, ADXL_MEM_HOST, 0x1234 },
		{ 0x9000, 8192, ADXL_MEM_DEVICE, 0 },	/* no MR: no rkey */
		{ 0x20000, 1 << 20, ADXL_MEM_HOST, 0xffffffff },
	};
	struct adxl_rdma_reply out = {
		.qp = sample_qp(), .regs = regs, .n_regs = 3,
	}, in;
	struct adxl_buf b = { 0 };
	size_t cut, i;

	(void)state;
	assert_int_equal(adxl__rdma_reply_encode(&out, &b), 0);
	assert_int_equal(adxl__rdma_reply_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.status, 0);
	assert_memory_equal(&in.qp, &out.qp, sizeof(in.qp));
	assert_int_equal(in.n_regs, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(in.regs[i].addr, regs[i].addr);
		assert_int_equal(in.regs[i].len, regs[i].len);
		assert_int_equal(in.regs[i].type, regs[i].type);
		assert_int_equal(in.regs[i].rkey, regs[i].rkey);
	}
	free(in.regs);

	/* Every truncation is refused, and nothing is left allocated. */
	for (cut = 0; cut < b.len; cut++)
		assert_int_equal(adxl__rdma_reply_decode(b.data, cut, &in),
				 -EPROTO);
	/* A count the payload does not hold: no allocation on a lie. */
	b.data[4 + 4 + 16 + 16] = 0x7f;	/* status, msg "", qpinfo, count */
	assert_int_equal(adxl__rdma_reply_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);
}

static void test_rdma_reply_refused(void **state)
{
	struct adxl_rdma_reply out = { .status = ADXL_RDMA_REFUSED }, in;
	struct adxl_buf b = { 0 };

	(void)state;
	snprintf(out.msg, sizeof(out.msg), "no RDMA device here");
	assert_int_equal(adxl__rdma_reply_encode(&out, &b), 0);
	assert_int_equal(adxl__rdma_reply_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.status, ADXL_RDMA_REFUSED);
	assert_string_equal(in.msg, "no RDMA device here");
	assert_null(in.regs);
	/* a refusal with a table after it is not one */
	adxl__buf_u32(&b, 0);
	assert_false(b.err);
	assert_int_equal(adxl__rdma_reply_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);
}

int test_rdma_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdma_hello),
		cmocka_unit_test(test_rdma_reply_round_trip),
		cmocka_unit_test(test_rdma_reply_refused),
	};

	return cmocka_run_group_tests_name("adxl RDMA messages", tests,
					   NULL, NULL);
}
