// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Framing on a real socket pair: a message arrives whole, a foreign or
 * oversized frame is refused, a silent peer times out on the deadline and
 * a closed one reads as gone.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "adxl_int.h"
#include "tests.h"

static int setup(void **state)
{
	int *sv = malloc(2 * sizeof(int));

	if (!sv || socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv))
		return -1;
	*state = sv;
	return 0;
}

static int teardown(void **state)
{
	int *sv = *state;

	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(sv);
	return 0;
}

static void test_frame_round_trip(void **state)
{
	int *sv = *state;
	uint8_t *p;
	uint32_t type;
	size_t len;

	assert_int_equal(adxl__send_msg(sv[0], ADXL_MSG_NOTIFY, "hello", 5,
					adxl__deadline(1000)), 0);
	assert_int_equal(adxl__send_msg(sv[0], ADXL_MSG_BYE, NULL, 0,
					adxl__deadline(1000)), 0);
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(1000)), 0);
	assert_int_equal(type, ADXL_MSG_NOTIFY);
	assert_int_equal(len, 5);
	assert_memory_equal(p, "hello", 5);
	free(p);
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(1000)), 0);
	assert_int_equal(type, ADXL_MSG_BYE);
	assert_int_equal(len, 0);
	free(p);
}

static void test_frame_bad_magic(void **state)
{
	static const uint8_t junk[12] = "GET / HTTP/1";
	int *sv = *state;
	uint8_t *p;
	uint32_t type;
	size_t len;

	assert_int_equal(write(sv[0], junk, sizeof(junk)), sizeof(junk));
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(1000)), -EPROTO);
	assert_null(p);
}

static void test_frame_too_big(void **state)
{
	/* A header announcing 64 MiB + 1. */
	static const uint8_t hdr[12] = { 0x41, 0x44, 0x58, 0x31, 0, 0, 0, 3,
					 0x04, 0, 0, 1 };
	int *sv = *state;
	uint8_t *p;
	uint32_t type;
	size_t len;

	assert_int_equal(write(sv[0], hdr, sizeof(hdr)), sizeof(hdr));
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(1000)), -EPROTO);
}

static void test_frame_timeout(void **state)
{
	int *sv = *state;
	int64_t t0 = adxl__now_ms();
	uint8_t *p;
	uint32_t type;
	size_t len;

	/* Half a header, then silence: the deadline ends the wait. */
	assert_int_equal(write(sv[0], "ADX", 3), 3);
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(200)), -ETIMEDOUT);
	assert_true(adxl__now_ms() - t0 >= 190);
	assert_true(adxl__now_ms() - t0 < 2000);
}

static void test_peer_closed(void **state)
{
	int *sv = *state;
	uint8_t *p;
	uint32_t type;
	size_t len;

	assert_false(adxl__sock_dead(sv[1]));
	close(sv[0]);
	sv[0] = open("/dev/null", O_RDONLY);	/* for teardown */
	assert_true(adxl__sock_dead(sv[1]));
	assert_int_equal(adxl__recv_msg(sv[1], &type, &p, &len,
					adxl__deadline(1000)), -ECONNRESET);
	assert_int_equal(adxl__send_msg(sv[1], ADXL_MSG_BYE, NULL, 0,
					adxl__deadline(1000)), -EPIPE);
}

static void test_pending_message_is_not_death(void **state)
{
	int *sv = *state;

	/* Unread data (a late ack) must not look like a closed peer. */
	assert_int_equal(adxl__send_msg(sv[0], ADXL_MSG_NOTIFY_ACK, "12345678",
					8, adxl__deadline(1000)), 0);
	assert_false(adxl__sock_dead(sv[1]));
}

int test_wire_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_frame_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_bad_magic, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_too_big, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_message_is_not_death,
						setup, teardown),
	};

	return cmocka_run_group_tests_name("adxl framing", tests, NULL, NULL);
}
