// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Control messages: what goes on the wire, and that every malformed
 * payload a peer could send is refused rather than read past its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"
#include "tests.h"

static void test_notify_bytes(void **state)
{
	static const uint8_t want[] = {
		0, 0, 0, 7,		/* seq */
		0, 0, 0, 2, 'k', 'v',	/* name */
		0, 0, 0, 3, 'a', 0, 'b', /* message, with a NUL inside */
	};
	struct adxl_buf b = { 0 };

	(void)state;
	assert_int_equal(adxl__notify_encode(7, "kv", 2, "a\0b", 3, &b), 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	adxl__buf_free(&b);
}

static void test_notify_round_trip(void **state)
{
	char name[ADXL_NOTIFY_MAX_LEN], msg[ADXL_NOTIFY_MAX_LEN];
	const char *n, *m;
	size_t nl, ml;
	uint32_t seq;
	struct adxl_buf b = { 0 };

	(void)state;
	memset(name, 'n', sizeof(name));
	memset(msg, 'm', sizeof(msg));
	/* The longest the reference allows, both. */
	assert_int_equal(adxl__notify_encode(42, name, sizeof(name), msg,
					     sizeof(msg), &b), 0);
	assert_int_equal(adxl__notify_decode(b.data, b.len, &seq, &n, &nl, &m,
					     &ml), 0);
	assert_int_equal(seq, 42);
	assert_int_equal(nl, sizeof(name));
	assert_int_equal(ml, sizeof(msg));
	assert_memory_equal(n, name, nl);
	assert_memory_equal(m, msg, ml);
	adxl__buf_free(&b);

	/* Empty strings are notifies too. */
	assert_int_equal(adxl__notify_encode(1, "", 0, "", 0, &b), 0);
	assert_int_equal(adxl__notify_decode(b.data, b.len, &seq, &n, &nl, &m,
					     &ml), 0);
	assert_int_equal(nl, 0);
	assert_int_equal(ml, 0);
	adxl__buf_free(&b);
}

static void test_notify_too_long(void **state)
{
	char big[ADXL_NOTIFY_MAX_LEN + 1];
	struct adxl_buf b = { 0 };

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(adxl__notify_encode(1, big, sizeof(big), "", 0, &b),
			 -EINVAL);
	assert_int_equal(adxl__notify_encode(1, "", 0, big, sizeof(big), &b),
			 -EINVAL);
	adxl__buf_free(&b);
}

static void test_notify_malformed(void **state)
{
	/* A name length of 1025: over the limit whatever follows. */
	static const uint8_t too_long[] = { 0, 0, 0, 1, 0, 0, 4, 1 };
	/* A message length beyond the payload. */
	static const uint8_t short_msg[] = { 0, 0, 0, 1, 0, 0, 0, 0,
					     0, 0, 0, 9, 'a' };
	/* A byte after the message. */
	static const uint8_t trailing[] = { 0, 0, 0, 1, 0, 0, 0, 0,
					    0, 0, 0, 0, 'z' };
	struct adxl_buf b = { 0 };
	const char *n, *m;
	size_t nl, ml, cut;
	uint32_t seq;

	(void)state;
	assert_int_equal(adxl__notify_decode(too_long, sizeof(too_long), &seq,
					     &n, &nl, &m, &ml), -EPROTO);
	assert_int_equal(adxl__notify_decode(short_msg, sizeof(short_msg), &seq,
					     &n, &nl, &m, &ml), -EPROTO);
	assert_int_equal(adxl__notify_decode(trailing, sizeof(trailing), &seq,
					     &n, &nl, &m, &ml), -EPROTO);

	/* Every truncation of a good notify is refused. */
	assert_int_equal(adxl__notify_encode(3, "name", 4, "msg", 3, &b), 0);
	for (cut = 0; cut < b.len; cut++)
		assert_int_equal(adxl__notify_decode(b.data, cut, &seq, &n, &nl,
						     &m, &ml), -EPROTO);
	adxl__buf_free(&b);
}

static void test_ack(void **state)
{
	struct adxl_buf b = { 0 };
	uint32_t seq, st;

	(void)state;
	assert_int_equal(adxl__ack_encode(9, ADXL_RESOURCE_EXHAUSTED, &b), 0);
	assert_int_equal(adxl__ack_decode(b.data, b.len, &seq, &st), 0);
	assert_int_equal(seq, 9);
	assert_int_equal(st, ADXL_RESOURCE_EXHAUSTED);
	assert_int_equal(adxl__ack_decode(b.data, b.len - 1, &seq, &st),
			 -EPROTO);
	adxl__buf_free(&b);
}

static void test_hello_round_trip(void **state)
{
	struct adxl_wire_reg regs[3];
	struct adxl_hello h, d;
	struct adxl_buf b = { 0 };
	size_t i;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.status = 0;
	h.pid = 4321;
	for (i = 0; i < 16; i++)
		h.ident.instance_id[i] = (uint8_t)(0xa0 + i);
	h.ident.incarnation = 0x1122334455667788ULL;
	h.ident.start_time = 987654321012ULL;
	h.ident.epoch = 0xfedcba9876543210ULL;
	strcpy(h.name, "127.0.0.1:26001");
	strcpy(h.target, "[::1]:26000");
	for (i = 0; i < 3; i++) {
		regs[i].addr = 0x7f0000000000ULL + i * 0x100000;
		regs[i].len = 4096 << i;
		regs[i].type = i == 1 ? ADXL_MEM_DEVICE : ADXL_MEM_HOST;
		regs[i].access = MEMREG_ACCESS_ALL;
		memset(regs[i].token, (int)(i + 1), sizeof(regs[i].token));
	}
	h.regs = regs;
	h.n_regs = 3;
	assert_int_equal(adxl__hello_encode(&h, &b), 0);
	assert_int_equal(adxl__hello_decode(b.data, b.len, &d), 0);
	assert_int_equal(d.pid, 4321);
	assert_true(adxl__ident_same(&d.ident, &h.ident));
	assert_memory_equal(d.ident.instance_id, h.ident.instance_id, 16);
	assert_int_equal(d.ident.incarnation, h.ident.incarnation);
	assert_int_equal(d.ident.epoch, h.ident.epoch);
	assert_string_equal(d.name, "127.0.0.1:26001");
	assert_string_equal(d.target, "[::1]:26000");
	assert_int_equal(d.n_regs, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(d.regs[i].addr, regs[i].addr);
		assert_int_equal(d.regs[i].len, regs[i].len);
		assert_int_equal(d.regs[i].type, regs[i].type);
		assert_memory_equal(d.regs[i].token, regs[i].token, 16);
	}
	free(d.regs);

	/* Truncated anywhere, or one byte too many: refused, nothing leaked. */
	for (i = 0; i < b.len; i++)
		assert_int_equal(adxl__hello_decode(b.data, i, &d), -EPROTO);
	adxl__buf_bytes(&b, "", 1);
	assert_int_equal(adxl__hello_decode(b.data, b.len, &d), -EPROTO);
	adxl__buf_free(&b);
}

static void test_hello_lying_count(void **state)
{
	struct adxl_hello h, d;
	struct adxl_buf b = { 0 };

	(void)state;
	memset(&h, 0, sizeof(h));
	strcpy(h.name, "1.1.1.1");
	assert_int_equal(adxl__hello_encode(&h, &b), 0);
	/* Claim 2^32-1 registrations with none following: no allocation. */
	memset(b.data + b.len - 4, 0xff, 4);
	assert_int_equal(adxl__hello_decode(b.data, b.len, &d), -EPROTO);
	assert_null(d.regs);
	adxl__buf_free(&b);
}

static void test_hello_name_with_nul(void **state)
{
	struct adxl_hello h, d;
	struct adxl_buf b = { 0 };

	(void)state;
	memset(&h, 0, sizeof(h));
	strcpy(h.name, "1.1.1.1:5");
	assert_int_equal(adxl__hello_encode(&h, &b), 0);
	/*
	 * status, pid, identity (instance id, incarnation, start time,
	 * epoch), name length: the name's 3rd byte.
	 */
	b.data[4 + 4 + 16 + 3 * 8 + 4 + 2] = '\0';
	assert_int_equal(adxl__hello_decode(b.data, b.len, &d), -EPROTO);
	adxl__buf_free(&b);
}

/* The challenge and the proof: round trips, and every truncation refused. */
static void test_prove_and_proof(void **state)
{
	struct adxl_prove v = { .name = "memreg-adxl/1/00ff" }, v2;
	struct adxl_proof f, f2;
	struct adxl_buf b = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v.nonce); i++)
		v.nonce[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(adxl__prove_encode(&v, &b), 0);
	assert_int_equal(b.len, 4 + 4 + strlen(v.name) + ADXL_NONCE_LEN);
	assert_int_equal(adxl__prove_decode(b.data, b.len, &v2), 0);
	assert_string_equal(v2.name, v.name);
	assert_memory_equal(v2.nonce, v.nonce, sizeof(v.nonce));
	for (i = 0; i < b.len; i++)
		assert_int_equal(adxl__prove_decode(b.data, i, &v2), -EPROTO);
	/* another version */
	b.data[3] ^= 2;
	assert_int_equal(adxl__prove_decode(b.data, b.len, &v2), -EPROTO);
	adxl__buf_free(&b);

	memset(&f, 0, sizeof(f));
	memcpy(f.nonce, v.nonce, sizeof(f.nonce));
	f.client_addr[15] = 1;
	f.client_port = 40000;
	f.server_addr[15] = 1;
	f.server_port = 26000;
	assert_int_equal(adxl__proof_encode(&f, &b), 0);
	assert_int_equal(b.len, 4 + ADXL_NONCE_LEN + 2 * (16 + 4));
	assert_int_equal(adxl__proof_decode(b.data, b.len, &f2), 0);
	assert_memory_equal(&f2, &f, sizeof(f));
	for (i = 0; i < b.len; i++)
		assert_int_equal(adxl__proof_decode(b.data, i, &f2), -EPROTO);
	adxl__buf_u32(&b, 0);	/* one word too many */
	assert_int_equal(adxl__proof_decode(b.data, b.len, &f2), -EPROTO);
	adxl__buf_free(&b);
}

int test_msg_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notify_bytes),
		cmocka_unit_test(test_notify_round_trip),
		cmocka_unit_test(test_notify_too_long),
		cmocka_unit_test(test_notify_malformed),
		cmocka_unit_test(test_ack),
		cmocka_unit_test(test_hello_round_trip),
		cmocka_unit_test(test_hello_lying_count),
		cmocka_unit_test(test_hello_name_with_nul),
		cmocka_unit_test(test_prove_and_proof),
	};

	return cmocka_run_group_tests_name("adxl messages", tests, NULL, NULL);
}
