// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Eight threads registering and unregistering at once, four on one shared
 * context and four on contexts of their own, with INFO and QUERY mixed in.
 *
 * Twice: against the fake with one table behind a mutex, which checks the
 * totals; and against the per-thread fake, which takes no lock, so that
 * helgrind or ThreadSanitizer (make valgrind / make tsan) see every access
 * lib/core makes to shared state unordered and report it.  (Behind the
 * mutex, each call would order whatever came before it.)
 *
 * cmocka's asserts must stay on the main thread: workers count failures.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

#define NR_THREADS	8
#define OUTSTANDING	4	/* registrations a worker holds at once */

struct worker {
	pthread_t thread;
	unsigned int id;
	struct memreg_ctx *shared;	/* NULL: open a context of its own */
	pthread_barrier_t *start;
	unsigned int iters;
	unsigned int failures;
	unsigned long registered;
	unsigned long fake_registers;	/* per-thread fake: what it saw */
	uint64_t fake_live;
	char buf[OUTSTANDING][256];
};

static void round_trip(struct worker *w, struct memreg_ctx *ctx,
		       unsigned int i)
{
	struct memreg_region regions[OUTSTANDING];
	struct memreg_lib_info info;
	uint64_t handles[OUTSTANDING], cursor;
	unsigned int j, count;

	for (j = 0; j < OUTSTANDING; j++) {
		if (memreg_register(ctx, w->buf[j] + i % 64, 64,
				    MEMREG_MEM_HOST, j % 4, &handles[j])) {
			w->failures++;
			handles[j] = 0;
		} else {
			w->registered++;
		}
	}
	if (i % 16 == 0) {
		cursor = 0;
		if (memreg_info(ctx, &info) ||
		    memreg_query(ctx, regions, OUTSTANDING, &cursor, &count,
				 NULL) || count > OUTSTANDING)
			w->failures++;
	}
	for (j = 0; j < OUTSTANDING; j++) {
		if (!handles[j])
			continue;
		if (memreg_unregister(ctx, handles[j]))
			w->failures++;
		/* A second time must say the handle is gone. */
		if (i % 32 == 0 &&
		    memreg_unregister(ctx, handles[j]) != -MEMREG_E_NOENT)
			w->failures++;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct memreg_ctx *ctx = w->shared;
	unsigned int i;

	fake_thread_init(w->id);
	if (!ctx && memreg_open(&ctx)) {
		w->failures++;
		pthread_barrier_wait(w->start);
		return NULL;
	}
	pthread_barrier_wait(w->start);

	for (i = 0; i < w->iters; i++)
		round_trip(w, ctx, i);

	if (!w->shared)
		memreg_close(ctx);
	w->fake_registers = fake_thread_calls(FAKE_REGISTER);
	w->fake_live = fake_thread_live();
	return NULL;
}

static unsigned int iterations(void)
{
	const char *s = getenv("MEMREG_TEST_ITERS");

	return s && *s ? (unsigned int)strtoul(s, NULL, 10) : 2000;
}

/* Run the workers; return how many registrations they made in all. */
static unsigned long run_workers(struct worker *workers, unsigned int iters)
{
	pthread_barrier_t start;
	struct memreg_ctx *shared;
	unsigned long registered = 0;
	unsigned int i;

	assert_int_equal(memreg_open(&shared), 0);
	assert_int_equal(pthread_barrier_init(&start, NULL, NR_THREADS), 0);
	for (i = 0; i < NR_THREADS; i++) {
		workers[i] = (struct worker){
			.id = i,
			.shared = i % 2 ? shared : NULL,
			.start = &start,
			.iters = iters,
		};
		assert_int_equal(pthread_create(&workers[i].thread, NULL,
						work, &workers[i]), 0);
	}
	for (i = 0; i < NR_THREADS; i++) {
		assert_int_equal(pthread_join(workers[i].thread, NULL), 0);
		assert_int_equal(workers[i].failures, 0);
		registered += workers[i].registered;
	}
	pthread_barrier_destroy(&start);
	memreg_close(shared);

	assert_int_equal(registered,
			 (unsigned long)NR_THREADS * iters * OUTSTANDING);
	return registered;
}

static void test_threads_shared_fake(void **state)
{
	static struct worker workers[NR_THREADS];
	unsigned long registered;

	(void)state;
	registered = run_workers(workers, iterations());
	assert_int_equal(fake.calls[FAKE_REGISTER], registered);
	assert_int_equal(fake.nr_regions, registered);
	assert_int_equal(fake.live, 0);
	/* The shared context and each worker's own read INFO at open. */
	assert_true(fake.calls[FAKE_INFO] >= NR_THREADS / 2 + 1);
}

static void test_threads_unsynchronised(void **state)
{
	static struct worker workers[NR_THREADS];
	unsigned int i, iters = iterations();

	(void)state;
	fake.per_thread = 1;
	run_workers(workers, iters);
	for (i = 0; i < NR_THREADS; i++) {
		/* Each call reached the module once, from its own thread. */
		assert_int_equal(workers[i].fake_registers,
				 (unsigned long)iters * OUTSTANDING);
		assert_int_equal(workers[i].fake_live, 0);
	}
}

void run_thread_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_threads_shared_fake,
						fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_threads_unsynchronised,
						fake_setup, fake_teardown),
	};

	RUN_GROUP("threads", tests, NULL, NULL, res);
}
