// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * memreg_query_all(): the cursor loop across batches of the fake module,
 * short batches, a callback that stops or unregisters, and modules whose
 * cursor would make the loop repeat or never end.
 */
#include <errno.h>
#include <string.h>

#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

#define NR_REGIONS	150
#define LIB_BATCH	64	/* entries lib/core asks for per call */

struct walk {
	struct memreg_ctx *ctx;
	unsigned int seen;
	uint64_t handles[NR_REGIONS + 8];
	unsigned int stop_at;		/* return stop_ret at this entry */
	int stop_ret;
	int unregister;			/* unregister each entry seen */
	unsigned int fail_query_at;	/* make the next QUERY fail here */
};

static char bufs[NR_REGIONS][16];

static void add_regions(struct memreg_ctx *ctx, unsigned int n)
{
	unsigned int i;
	uint64_t h;

	for (i = 0; i < n; i++)
		assert_int_equal(memreg_register(ctx, bufs[i], 16,
						 MEMREG_MEM_HOST, 0, &h), 0);
}

static int visit(const struct memreg_region *r, void *arg)
{
	struct walk *w = arg;

	if (w->seen < sizeof(w->handles) / sizeof(w->handles[0]))
		w->handles[w->seen] = r->handle;
	w->seen++;
	if (w->unregister && memreg_unregister(w->ctx, r->handle))
		return -1000;
	if (w->fail_query_at && w->seen == w->fail_query_at)
		fake.fail_errno[FAKE_QUERY] = EINTR;
	if (w->stop_at && w->seen == w->stop_at)
		return w->stop_ret;
	return 0;
}

/* Each handle once, in the order of registration. */
static void assert_seen_all(const struct walk *w, unsigned int n)
{
	unsigned int i;

	assert_int_equal(w->seen, n);
	for (i = 0; i < n; i++)
		assert_int_equal(w->handles[i], fake_handle(i));
}

static void assert_query_call(unsigned int i, uint64_t cursor)
{
	struct memreg_query q;

	memcpy(&q, fake.queries[i].bytes, sizeof(q));
	assert_int_equal(q.size, sizeof(q));
	assert_int_equal(q.flags, 0);
	assert_int_equal(q.cursor, cursor);
	assert_int_not_equal(q.regions, 0);
	assert_int_equal(q.count, LIB_BATCH);
	assert_int_equal(q.entry_size, sizeof(struct memreg_region));
	assert_int_equal(q.total, 0);
	assert_int_equal(q.reserved[0], 0);
	assert_int_equal(q.reserved[1], 0);
}

static void test_walk_full_batches(void **state)
{
	struct walk w = { .ctx = *state };

	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_seen_all(&w, NR_REGIONS);

	/* 64 + 64 + 22, then an empty batch ends it. */
	assert_int_equal(fake.nr_queries, 4);
	assert_query_call(0, 0);
	assert_query_call(1, fake_handle(63));
	assert_query_call(2, fake_handle(127));
	assert_query_call(3, fake_handle(149));
}

static void test_walk_short_batches(void **state)
{
	struct walk w = { .ctx = *state };

	/* A module that gives at most 10 per call: short is not the end. */
	fake.query_batch = 10;
	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_seen_all(&w, NR_REGIONS);
	assert_int_equal(fake.calls[FAKE_QUERY], NR_REGIONS / 10 + 1);
}

static void test_walk_empty(void **state)
{
	struct walk w = { .ctx = *state };

	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_int_equal(w.seen, 0);
	assert_int_equal(fake.calls[FAKE_QUERY], 1);
}

static void test_walk_stopped_by_callback(void **state)
{
	struct walk w = { .ctx = *state, .stop_at = 100, .stop_ret = 7 };

	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), 7);
	assert_int_equal(w.seen, 100);
	assert_int_equal(fake.calls[FAKE_QUERY], 2);
}

static void test_walk_unregistering(void **state)
{
	struct walk w = { .ctx = *state, .unregister = 1 };

	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_seen_all(&w, NR_REGIONS);
	assert_int_equal(fake.live, 0);
}

static void test_walk_query_fails(void **state)
{
	struct walk w = { .ctx = *state, .fail_query_at = LIB_BATCH };

	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), -MEMREG_E_INTR);
	assert_int_equal(errno, EINTR);
	assert_int_equal(w.seen, LIB_BATCH);
}

static void test_walk_stuck_cursor(void **state)
{
	struct walk w = { .ctx = *state };

	/* The same cursor twice would repeat the batch forever. */
	fake.query_stuck = 1;
	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), -MEMREG_E_IO);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(w.seen, LIB_BATCH);
	assert_int_equal(fake.calls[FAKE_QUERY], 2);
}

static void test_walk_zero_cursor_ends(void **state)
{
	struct walk w = { .ctx = *state };

	/* A module that stores 0 with its last batch: no start-over. */
	fake.query_zero_cursor_at_end = 1;
	add_regions(*state, NR_REGIONS);
	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_seen_all(&w, NR_REGIONS);
	assert_int_equal(fake.calls[FAKE_QUERY], 3);
}

static void test_walk_zero_cursor_one_batch(void **state)
{
	struct walk w = { .ctx = *state };

	/* 0 in, 0 out, entries given: one batch, not a stuck cursor. */
	fake.query_zero_cursor_at_end = 1;
	add_regions(*state, 5);
	assert_int_equal(memreg_query_all(*state, visit, &w), 0);
	assert_seen_all(&w, 5);
	assert_int_equal(fake.calls[FAKE_QUERY], 1);
}

static void test_walk_bad_arguments(void **state)
{
	struct walk w = { .ctx = *state };

	assert_int_equal(memreg_query_all(NULL, visit, &w), -MEMREG_E_INVAL);
	assert_int_equal(memreg_query_all(*state, NULL, &w), -MEMREG_E_INVAL);
	assert_int_equal(fake.calls[FAKE_QUERY], 0);
}

#define FAKE_CTX_TEST(fn) \
	cmocka_unit_test_setup_teardown(fn, fake_ctx_setup, fake_ctx_teardown)

void run_query_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		FAKE_CTX_TEST(test_walk_full_batches),
		FAKE_CTX_TEST(test_walk_short_batches),
		FAKE_CTX_TEST(test_walk_empty),
		FAKE_CTX_TEST(test_walk_stopped_by_callback),
		FAKE_CTX_TEST(test_walk_unregistering),
		FAKE_CTX_TEST(test_walk_query_fails),
		FAKE_CTX_TEST(test_walk_stuck_cursor),
		FAKE_CTX_TEST(test_walk_zero_cursor_ends),
		FAKE_CTX_TEST(test_walk_zero_cursor_one_batch),
		FAKE_CTX_TEST(test_walk_bad_arguments),
	};

	RUN_GROUP("query", tests, NULL, NULL, res);
}
