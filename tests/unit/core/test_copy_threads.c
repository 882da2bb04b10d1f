// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Large transfers on several threads (lib/core/copy_threads.c), against
 * the fake module, which copies each descriptor itself in this process
 * (the remote address is an address here) and shows every call to a hook.
 *
 * What a caller checks: every byte arrives, done and bytes are what one
 * thread would report, the first descriptor that failed is the one
 * reported, small and overlapping batches keep their order, and the
 * copies really ran on more than the calling thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

#define MIB		(1ull << 20)
#define CALLS_MAX	4096

/* What the fake was asked, call by call (under the fake's lock). */
static struct {
	unsigned int calls;
	unsigned int descs;
	pid_t tid[CALLS_MAX];
	uint64_t bytes;
	pid_t slow_tid;		/* this thread's calls take slow_us longer */
	unsigned int slow_us;
} seen;

static void record(const struct memreg_xfer_desc *d, uint32_t n, void *arg)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	uint32_t i;

	(void)arg;
	/*
	 * The fake copies under its lock, so without this a caller that
	 * copies its spans faster than a woken helper is scheduled (a loaded
	 * machine: make check runs two legs at once) leaves the helper none.
	 * The caller's call waits here; the helper, woken, takes a span and
	 * waits for the lock, and the spans it took are its own.
	 */
	if (seen.slow_us && tid == seen.slow_tid)
		usleep(seen.slow_us);
	if (seen.calls < CALLS_MAX)
		seen.tid[seen.calls] = tid;
	seen.calls++;
	seen.descs += n;
	for (i = 0; i < n; i++)
		seen.bytes += d[i].len;
}

static unsigned int seen_threads(void)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < seen.calls && i < CALLS_MAX; i++) {
		for (j = 0; j < i; j++)
			if (seen.tid[j] == seen.tid[i])
				break;
		if (j == i)
			n++;
	}
	return n;
}

/* Calls another thread than @caller made: spans a helper copied. */
static unsigned int seen_helper_calls(pid_t caller)
{
	unsigned int i, n = 0;

	for (i = 0; i < seen.calls && i < CALLS_MAX; i++)
		n += seen.tid[i] != caller;
	return n;
}

static int setup(void **state)
{
	if (fake_ctx_setup(state))
		return -1;
	memset(&seen, 0, sizeof(seen));
	fake.xfer.seen = record;
	return 0;
}

static int teardown(void **state)
{
	fake.xfer.seen = NULL;
	fake.xfer.fail_remote = 0;
	return fake_ctx_teardown(state);
}

static void fill(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed + (i >> 12));
}

static struct memreg_xfer_desc write_desc(void *from, void *to, size_t len)
{
	struct memreg_xfer_desc d;

	memset(&d, 0, sizeof(d));
	d.op = MEMREG_XFER_WRITE;
	d.local_handle = 1;
	d.local_addr = (uintptr_t)from;
	d.remote_handle = 2;
	d.remote_addr = (uintptr_t)to;
	d.len = len;
	return d;
}

/*
 * Three descriptors of odd sizes, 4.5 MiB in all (spans of 1 MiB): the
 * spans start and end inside them, every byte arrives once, the result
 * is one thread's, and over a few rounds the helpers take spans.  Small,
 * for valgrind's sake: the suite runs under memcheck and helgrind too.
 */
static void test_copy_split_moves_every_byte(void **state)
{
	const size_t len[3] = { 3 * MIB / 2 + 5, MIB - 7, 2 * MIB + 2 };
	size_t total = len[0] + len[1] + len[2], done, off;
	struct memreg_xfer_desc d[3];
	unsigned char *src, *dst;
	unsigned int round, helper_calls = 0;
	pid_t caller = (pid_t)syscall(SYS_gettid);
	uint64_t bytes;
	int i;

	assert_int_equal(memreg_set_copy_threads(*state, 4), 0);
	src = malloc(total);
	dst = malloc(total);
	assert_non_null(src);
	assert_non_null(dst);
	fill(src, total, 7);
	for (i = 0, off = 0; i < 3; off += len[i], i++)
		d[i] = write_desc(src + off, dst + off, len[i]);

	/*
	 * Until a helper copied a span.  The caller's calls wait 20 ms, then
	 * twice as long each round up to 640 ms, so that a woken helper gets
	 * a span on a loaded machine.  (Which threads copy is the
	 * scheduler's: on a busy machine a helper woken first once copied
	 * every span while the caller waited, 7 calls on one thread, which
	 * is as right as any other split.)
	 */
	for (round = 0; round < 12 && !helper_calls; round++) {
		memset(dst, 0, total);
		memset(&seen, 0, sizeof(seen));
		seen.slow_tid = caller;
		seen.slow_us = 20000u << (round < 5 ? round : 5);
		assert_int_equal(memreg_transfer(*state, d, 3, &done, &bytes),
				 0);
		assert_int_equal(done, 3);
		assert_int_equal(bytes, total);
		assert_memory_equal(dst, src, total);
		/* split: more calls than descriptors, each byte once */
		assert_true(seen.calls > 3);
		assert_int_equal(seen.bytes, total);
		helper_calls = seen_helper_calls(caller);
	}
	if (!helper_calls)
		print_message("%u rounds, the last with %u calls on %u thread(s)\n",
			      round, seen.calls, seen_threads());
	assert_true(helper_calls > 0);
	free(src);
	free(dst);
}

/* Under 2 MiB, or with one thread set: one call, in the caller's thread. */
static void test_copy_small_or_one_thread_whole(void **state)
{
	unsigned char *src = malloc(4 * MIB), *dst = malloc(4 * MIB);
	struct memreg_xfer_desc d[2];
	size_t done;

	assert_non_null(src);
	assert_non_null(dst);
	fill(src, 4 * MIB, 3);
	d[0] = write_desc(src, dst, MIB);
	d[1] = write_desc(src + MIB, dst + MIB, MIB - 1);
	assert_int_equal(memreg_set_copy_threads(*state, 4), 0);
	assert_int_equal(memreg_transfer(*state, d, 2, &done, NULL), 0);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.descs, 2);

	memset(&seen, 0, sizeof(seen));
	d[1].len = 3 * MIB;
	assert_int_equal(memreg_set_copy_threads(*state, 1), 0);
	assert_int_equal(memreg_copy_threads(*state), 1);
	assert_int_equal(memreg_transfer(*state, d, 2, &done, NULL), 0);
	assert_int_equal(seen.calls, 1);
	assert_int_equal(seen.tid[0], (pid_t)syscall(SYS_gettid));
	assert_memory_equal(dst, src, 4 * MIB);
	free(src);
	free(dst);
}

/*
 * Fewer threads after more: the helpers started for four stay, but no
 * more than one of them joins a transfer set to two threads.
 */
static void test_copy_fewer_threads_after_more(void **state)
{
	unsigned char *src = malloc(4 * MIB), *dst = malloc(4 * MIB);
	struct memreg_xfer_desc d;
	unsigned int round;

	assert_non_null(src);
	assert_non_null(dst);
	fill(src, 4 * MIB, 5);
	d = write_desc(src, dst, 4 * MIB);
	assert_int_equal(memreg_set_copy_threads(*state, 4), 0);
	assert_int_equal(memreg_transfer(*state, &d, 1, NULL, NULL), 0);
	assert_int_equal(memreg_set_copy_threads(*state, 2), 0);
	for (round = 0; round < 10; round++) {
		memset(&seen, 0, sizeof(seen));
		memset(dst, 0, 4 * MIB);
		assert_int_equal(memreg_transfer(*state, &d, 1, NULL, NULL), 0);
		assert_memory_equal(dst, src, 4 * MIB);
		assert_in_range(seen_threads(), 1, 2);
	}
	free(src);
	free(dst);
}

/*
 * Two descriptors writing overlapping bytes: one call, in order, so the
 * second one's bytes are what is left where they overlap.
 */
static void test_copy_overlap_keeps_order(void **state)
{
	unsigned char *a = malloc(4 * MIB), *b = malloc(4 * MIB);
	unsigned char *dst = malloc(6 * MIB);
	struct memreg_xfer_desc d[2];
	size_t done;

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(dst);
	fill(a, 4 * MIB, 1);
	fill(b, 4 * MIB, 2);
	d[0] = write_desc(a, dst, 4 * MIB);
	d[1] = write_desc(b, dst + 2 * MIB, 4 * MIB);
	assert_int_equal(memreg_set_copy_threads(*state, 4), 0);
	assert_int_equal(memreg_transfer(*state, d, 2, &done, NULL), 0);
	assert_int_equal(seen.calls, 1);
	assert_memory_equal(dst, a, 2 * MIB);
	assert_memory_equal(dst + 2 * MIB, b, 4 * MIB);

	/* a READ into the bytes another descriptor sends: no split either */
	memset(&seen, 0, sizeof(seen));
	d[1] = d[0];
	d[1].op = MEMREG_XFER_READ;
	d[1].local_addr = (uintptr_t)(a + MIB);
	d[1].remote_addr = (uintptr_t)b;
	d[1].len = MIB;
	assert_int_equal(memreg_transfer(*state, d, 2, &done, NULL), 0);
	assert_int_equal(seen.calls, 1);
	free(a);
	free(b);
	free(dst);
}

/*
 * Four descriptors of 1 MiB, the second and fourth refused: the error and
 * done are the second's, as in one thread, and the first arrived.
 */
static void test_copy_first_failure_reported(void **state)
{
	unsigned char *src = malloc(4 * MIB), *dst = calloc(1, 4 * MIB);
	struct memreg_xfer_desc d[4];
	uint64_t bytes;
	size_t done;
	int i, round;

	assert_non_null(src);
	assert_non_null(dst);
	fill(src, 4 * MIB, 9);
	for (i = 0; i < 4; i++)
		d[i] = write_desc(src + i * MIB, dst + i * MIB, MIB);
	d[1].remote_handle = 77;
	d[3].remote_handle = 77;
	fake.xfer.fail_remote = 77;
	fake.xfer.fail_errno = EKEYREVOKED;
	assert_int_equal(memreg_set_copy_threads(*state, 4), 0);
	for (round = 0; round < 5; round++) {
		memset(&seen, 0, sizeof(seen));
		errno = 0;
		assert_int_equal(memreg_transfer(*state, d, 4, &done, &bytes),
				 -MEMREG_E_REVOKED);
		assert_int_equal(errno, EKEYREVOKED);
		assert_int_equal(done, 1);
		assert_true(bytes >= MIB && bytes <= 2 * MIB);
		assert_true(seen.calls > 1);
		assert_memory_equal(dst, src, MIB);
	}
	free(src);
	free(dst);
}

static void test_copy_set_threads(void **state)
{
	struct memreg_ctx *ctx;

	assert_int_equal(memreg_set_copy_threads(*state, 17), -MEMREG_E_INVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(memreg_set_copy_threads(NULL, 2), -MEMREG_E_INVAL);
	assert_int_equal(memreg_copy_threads(NULL), 0);
	assert_int_equal(memreg_set_copy_threads(*state, 16), 0);
	assert_int_equal(memreg_copy_threads(*state), 16);
	assert_int_equal(memreg_set_copy_threads(*state, 0), 0);
	assert_in_range(memreg_copy_threads(*state), 1, 4);

	/* the environment decides at open; a bad value is not taken */
	setenv("MEMREG_COPY_THREADS", "3", 1);
	assert_int_equal(memreg_open(&ctx), 0);
	assert_int_equal(memreg_copy_threads(ctx), 3);
	memreg_close(ctx);
	setenv("MEMREG_COPY_THREADS", "99", 1);
	assert_int_equal(memreg_open(&ctx), 0);
	assert_in_range(memreg_copy_threads(ctx), 1, 4);
	memreg_close(ctx);
	unsetenv("MEMREG_COPY_THREADS");
}

void run_copy_thread_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_split_moves_every_byte,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_copy_small_or_one_thread_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_copy_fewer_threads_after_more, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_overlap_keeps_order,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_first_failure_reported,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_set_threads,
						setup, teardown),
	};

	RUN_GROUP("copy_threads", tests, NULL, NULL, res);
}
