// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The link hello and its reply, byte for byte: the transport's tag and
 * version and the bytes that connect its end survive the round trip, as
 * does the table of registrations with their keys; every truncation, a
 * byte too many and every count the payload cannot hold are refused; a
 * refusal carries its reason and nothing else; an empty info (a UCX
 * client's) is one, an oversized one is not.  (Transfers over RDMA need a
 * NIC: they run between two VMs on soft-RoCE, tests/vm/rdma-pair.  What a
 * host without one does is in test_ucx.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"
#include "tests.h"

static const uint8_t sample_info[32] = {
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff,
	0, 0, 0, 0x11, 0, 0xab, 0xcd, 0xef, 0, 0, 0, 3, 0, 0, 0, 0,
};

static void test_link_hello(void **state)
{
	struct adxl_link_hello out = {
		.transport = 2, .version = 7,
		.info = sample_info, .info_len = sizeof(sample_info),
	}, in;
	struct adxl_buf b = { 0 };
	size_t cut;

	(void)state;
	assert_int_equal(adxl__link_hello_encode(&out, &b), 0);
	assert_int_equal(adxl__link_hello_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.transport, 2);
	assert_int_equal(in.version, 7);
	assert_int_equal(in.info_len, sizeof(sample_info));
	assert_memory_equal(in.info, sample_info, sizeof(sample_info));
	for (cut = 0; cut < b.len; cut++)
		assert_int_equal(adxl__link_hello_decode(b.data, cut, &in),
				 -EPROTO);
	/* a byte too many is as wrong as one too few */
	adxl__buf_bytes(&b, "x", 1);
	assert_false(b.err);
	assert_int_equal(adxl__link_hello_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);

	/* A client with nothing to say of its end (UCX): an empty info. */
	out.info_len = 0;
	assert_int_equal(adxl__link_hello_encode(&out, &b), 0);
	assert_int_equal(b.len, 12);
	assert_int_equal(adxl__link_hello_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.info_len, 0);
	adxl__buf_free(&b);
}

static void test_link_reply_round_trip(void **state)
{
	struct adxl_wreg regs[3] = {
		{ 0x1000, 4096, ADXL_MEM_HOST, 0x1234 },
		{ 0x9000, 8192, ADXL_MEM_DEVICE, 0 },	/* no key */
		{ 0x20000, 1 << 20, ADXL_MEM_HOST, 0xffffffff },
	};
	struct adxl_link_reply out = {
		.transport = 2, .info = sample_info,
		.info_len = sizeof(sample_info), .regs = regs, .n_regs = 3,
	}, in;
	struct adxl_buf b = { 0 };
	size_t cut, i;

	(void)state;
	assert_int_equal(adxl__link_reply_encode(&out, &b), 0);
	assert_int_equal(adxl__link_reply_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.transport, 2);
	assert_int_equal(in.status, 0);
	assert_int_equal(in.info_len, sizeof(sample_info));
	assert_memory_equal(in.info, sample_info, sizeof(sample_info));
	assert_int_equal(in.n_regs, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(in.regs[i].addr, regs[i].addr);
		assert_int_equal(in.regs[i].len, regs[i].len);
		assert_int_equal(in.regs[i].type, regs[i].type);
		assert_int_equal(in.regs[i].key, regs[i].key);
	}
	free(in.regs);

	/* Every truncation is refused, and nothing is left allocated. */
	for (cut = 0; cut < b.len; cut++)
		assert_int_equal(adxl__link_reply_decode(b.data, cut, &in),
				 -EPROTO);
	/* A count the payload does not hold: no allocation on a lie. */
	b.data[4 + 4 + 4 + 4 + sizeof(sample_info)] = 0x7f;	/* tag, status, msg "", info, count */
	assert_int_equal(adxl__link_reply_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);
}

static void test_link_reply_refused_and_info(void **state)
{
	struct adxl_link_reply out = {
		.transport = 1, .status = ADXL_LINK_REFUSED,
	}, in;
	static uint8_t big[ADXL_LINK_INFO_MAX + 1];
	struct adxl_buf b = { 0 };

	(void)state;
	snprintf(out.msg, sizeof(out.msg), "no RDMA device here");
	assert_int_equal(adxl__link_reply_encode(&out, &b), 0);
	assert_int_equal(adxl__link_reply_decode(b.data, b.len, &in), 0);
	assert_int_equal(in.transport, 1);
	assert_int_equal(in.status, ADXL_LINK_REFUSED);
	assert_string_equal(in.msg, "no RDMA device here");
	assert_null(in.regs);
	/* a refusal with a table after it is not one */
	adxl__buf_u32(&b, 0);
	assert_false(b.err);
	assert_int_equal(adxl__link_reply_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);

	/* Info over the limit is not one. */
	out = (struct adxl_link_reply){ .info = big, .info_len = sizeof(big) };
	assert_int_equal(adxl__link_reply_encode(&out, &b), 0);
	assert_int_equal(adxl__link_reply_decode(b.data, b.len, &in), -EPROTO);
	adxl__buf_free(&b);
}

int test_link_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_hello),
		cmocka_unit_test(test_link_reply_round_trip),
		cmocka_unit_test(test_link_reply_refused_and_info),
	};

	return cmocka_run_group_tests_name("adxl link hello", tests,
					   NULL, NULL);
}
