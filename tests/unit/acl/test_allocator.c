// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aclrtAllocator family, one test per row of the reference's table
 * (docs/acl.md), plus eight threads registering, looking up and
 * unregistering at once.  Streams are opaque keys to this family, so the
 * tests use addresses of their own as streams; no device is needed.
 */
#include <pthread.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "tests.h"

static int stream_a, stream_b, stream_c;	/* their addresses are streams */
static int obj_a, obj_b;

static void *alloc_a(aclrtAllocator a, size_t size) { (void)a; (void)size; return NULL; }
static void *alloc_b(aclrtAllocator a, size_t size) { (void)a; (void)size; return NULL; }
static void free_a(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void free_b(aclrtAllocator a, aclrtAllocatorBlock b) { (void)a; (void)b; }
static void *advise_a(aclrtAllocator a, size_t s, aclrtAllocatorAddr p) { (void)a; (void)s; return p; }
static void *advise_b(aclrtAllocator a, size_t s, aclrtAllocatorAddr p) { (void)a; (void)s; (void)p; return NULL; }
static void *addr_a(aclrtAllocatorBlock b) { return b; }
static void *addr_b(aclrtAllocatorBlock b) { (void)b; return NULL; }

/* A descriptor with every field set to the _a (or _b) functions. */
static aclrtAllocatorDesc full_desc(int b)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	assert_non_null(d);
	assert_int_equal(aclrtAllocatorSetObjToDesc(d, b ? &obj_b : &obj_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, b ? alloc_b : alloc_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, b ? free_b : free_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, b ? advise_b : advise_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, b ? addr_b : addr_a), ACL_SUCCESS);
	return d;
}

struct got {
	aclrtAllocatorDesc desc;
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc addr;
};

static aclError get(aclrtStream s, struct got *g)
{
	return aclrtAllocatorGetByStream(s, &g->desc, &g->obj, &g->alloc,
					 &g->free, &g->advise, &g->addr);
}

static int teardown_streams(void **state)
{
	(void)state;
	aclrtAllocatorUnregister(&stream_a);
	aclrtAllocatorUnregister(&stream_b);
	aclrtAllocatorUnregister(&stream_c);
	return 0;
}

static void test_create_desc_zeroed(void **state)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	(void)state;
	assert_non_null(d);
	/* Zeroed: a descriptor with only obj set is not registrable. */
	assert_int_equal(aclrtAllocatorSetObjToDesc(d, &obj_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
}

static void test_destroy_desc_null(void **state)
{
	(void)state;
	assert_int_equal(aclrtAllocatorDestroyDesc(NULL), ACL_ERROR_INVALID_PARAM);
}

static void test_setters_refuse_null(void **state)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();

	(void)state;
	assert_int_equal(aclrtAllocatorSetObjToDesc(NULL, &obj_a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetObjToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(NULL, alloc_a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetAllocFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(NULL, free_a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetFreeFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(NULL, advise_a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetAllocAdviseFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(NULL, addr_a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, NULL), ACL_ERROR_INVALID_PARAM);
	aclrtAllocatorDestroyDesc(d);
}

static void test_setters_store(void **state)
{
	aclrtAllocatorDesc d = full_desc(0);
	struct got g;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d);
	assert_ptr_equal(g.obj, &obj_a);
	assert_true(g.alloc == alloc_a);
	assert_true(g.free == free_a);
	assert_true(g.advise == advise_a);
	assert_true(g.addr == addr_a);
	aclrtAllocatorDestroyDesc(d);
}

static void test_register_checks(void **state)
{
	aclrtAllocatorDesc d;
	int field;

	(void)state;
	d = full_desc(0);
	/* The default (NULL) stream is refused, and so is no descriptor. */
	assert_int_equal(aclrtAllocatorRegister(NULL, d), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtAllocatorRegister(&stream_a, NULL), ACL_ERROR_INVALID_PARAM);
	aclrtAllocatorDestroyDesc(d);

	/* Each required field left unset is refused on its own. */
	for (field = 0; field < 4; field++) {
		d = aclrtAllocatorCreateDesc();
		if (field != 0)
			aclrtAllocatorSetObjToDesc(d, &obj_a);
		if (field != 1)
			aclrtAllocatorSetAllocFuncToDesc(d, alloc_a);
		if (field != 2)
			aclrtAllocatorSetFreeFuncToDesc(d, free_a);
		if (field != 3)
			aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_a);
		aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_a);
		assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_ERROR_INVALID_PARAM);
		aclrtAllocatorDestroyDesc(d);
	}
	/* Nothing was registered by the refusals. */
	assert_int_equal(aclrtAllocatorUnregister(&stream_a), ACL_SUCCESS);
	{
		aclrtAllocatorDesc out;

		assert_int_equal(aclrtAllocatorGetByStream(&stream_a, &out, NULL, NULL,
							   NULL, NULL, NULL),
				 ACL_ERROR_INVALID_PARAM);
	}
}

static void test_register_advise_optional(void **state)
{
	aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
	struct got g;

	(void)state;
	aclrtAllocatorSetObjToDesc(d, &obj_a);
	aclrtAllocatorSetAllocFuncToDesc(d, alloc_a);
	aclrtAllocatorSetFreeFuncToDesc(d, free_a);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_a);
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	assert_null(g.advise);
	aclrtAllocatorDestroyDesc(d);
}

static void test_register_copies(void **state)
{
	aclrtAllocatorDesc d = full_desc(0);
	struct got g;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	/* Changing the descriptor afterwards does not reach the registration. */
	aclrtAllocatorSetObjToDesc(d, &obj_b);
	aclrtAllocatorSetAllocFuncToDesc(d, alloc_b);
	aclrtAllocatorSetFreeFuncToDesc(d, free_b);
	aclrtAllocatorSetAllocAdviseFuncToDesc(d, advise_b);
	aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, addr_b);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d);
	assert_ptr_equal(g.obj, &obj_a);
	assert_true(g.alloc == alloc_a);
	assert_true(g.free == free_a);
	assert_true(g.advise == advise_a);
	assert_true(g.addr == addr_a);
	aclrtAllocatorDestroyDesc(d);
}

static void test_register_last_wins(void **state)
{
	aclrtAllocatorDesc d1 = full_desc(0), d2 = full_desc(1);
	struct got g;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d1), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d2), ACL_SUCCESS);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d2);
	assert_ptr_equal(g.obj, &obj_b);
	assert_true(g.alloc == alloc_b);
	/* Per stream: another stream keeps its own. */
	assert_int_equal(aclrtAllocatorRegister(&stream_b, d1), ACL_SUCCESS);
	assert_int_equal(get(&stream_b, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d1);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d2);
	aclrtAllocatorDestroyDesc(d1);
	aclrtAllocatorDestroyDesc(d2);
}

static void test_destroy_desc_before_unregister(void **state)
{
	aclrtAllocatorDesc d = full_desc(1);
	struct got g;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_c, d), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorDestroyDesc(d), ACL_SUCCESS);
	/* Still registered, with the copied fields. */
	assert_int_equal(get(&stream_c, &g), ACL_SUCCESS);
	assert_ptr_equal(g.desc, d);
	assert_ptr_equal(g.obj, &obj_b);
	assert_true(g.free == free_b);
	assert_true(g.addr == addr_b);
	assert_int_equal(aclrtAllocatorUnregister(&stream_c), ACL_SUCCESS);
	assert_int_equal(get(&stream_c, &g), ACL_ERROR_INVALID_PARAM);
}

static void test_get_checks(void **state)
{
	aclrtAllocatorDesc d = full_desc(0), out = NULL;
	aclrtAllocator obj = NULL;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	/* The descriptor out-pointer is the one that is required. */
	assert_int_equal(aclrtAllocatorGetByStream(&stream_a, NULL, &obj, NULL,
						   NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_null(obj);
	assert_int_equal(aclrtAllocatorGetByStream(NULL, &out, NULL, NULL, NULL,
						   NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	/* A stream nobody registered on. */
	assert_int_equal(aclrtAllocatorGetByStream(&stream_b, &out, NULL, NULL,
						   NULL, NULL, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_null(out);
	aclrtAllocatorDestroyDesc(d);
}

static void test_get_outputs_optional(void **state)
{
	aclrtAllocatorDesc d = full_desc(0), out = NULL;
	aclrtAllocatorFreeFunc f = NULL;
	aclrtAllocatorGetAddrFromBlockFunc a = NULL;

	(void)state;
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorGetByStream(&stream_a, &out, NULL, NULL,
						   NULL, NULL, NULL),
			 ACL_SUCCESS);
	assert_ptr_equal(out, d);
	/* Any mix: each one given is filled, the others skipped. */
	out = NULL;
	assert_int_equal(aclrtAllocatorGetByStream(&stream_a, &out, NULL, NULL,
						   &f, NULL, &a),
			 ACL_SUCCESS);
	assert_ptr_equal(out, d);
	assert_true(f == free_a);
	assert_true(a == addr_a);
	aclrtAllocatorDestroyDesc(d);
}

static void test_unregister(void **state)
{
	aclrtAllocatorDesc d = full_desc(0);
	struct got g;

	(void)state;
	assert_int_equal(aclrtAllocatorUnregister(NULL), ACL_ERROR_INVALID_PARAM);
	/* Unknown and repeated unregistrations succeed. */
	assert_int_equal(aclrtAllocatorUnregister(&stream_b), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorUnregister(&stream_a), ACL_SUCCESS);
	assert_int_equal(aclrtAllocatorUnregister(&stream_a), ACL_SUCCESS);
	assert_int_equal(get(&stream_a, &g), ACL_ERROR_INVALID_PARAM);
	/* And the stream can be registered again. */
	assert_int_equal(aclrtAllocatorRegister(&stream_a, d), ACL_SUCCESS);
	assert_int_equal(get(&stream_a, &g), ACL_SUCCESS);
	aclrtAllocatorDestroyDesc(d);
}

/* ---- eight threads ---- */

#define NR_THREADS	8
#define KEYS		16	/* streams of each thread */

static char shared_stream;
static unsigned int iters(void)
{
	const char *s = getenv("MEMREG_TEST_ITERS");

	return s ? (unsigned int)atoi(s) : 20000;
}

struct worker {
	pthread_t thread;
	unsigned int id;
	unsigned int failures;
	char streams[KEYS];
	aclrtAllocatorDesc desc[2];
};

/* The two registrations a thread uses are told apart by obj. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned int i, n = iters(), k;
	struct got g;
	aclError err;

	for (i = 0; i < n; i++) {
		k = i % KEYS;
		if (aclrtAllocatorRegister(&w->streams[k], w->desc[i & 1]))
			w->failures++;
		if (get(&w->streams[k], &g) || g.desc != w->desc[i & 1])
			w->failures++;
		if (aclrtAllocatorUnregister(&w->streams[(k + KEYS / 2) % KEYS]))
			w->failures++;

		/* The shared stream: whoever won, the fields are one copy. */
		if (aclrtAllocatorRegister(&shared_stream, w->desc[i & 1]))
			w->failures++;
		err = get(&shared_stream, &g);
		if (err == ACL_SUCCESS &&
		    (g.alloc != (g.obj == (void *)&obj_a ? alloc_a : alloc_b) ||
		     g.addr != (g.obj == (void *)&obj_a ? addr_a : addr_b)))
			w->failures++;
		else if (err != ACL_SUCCESS && err != ACL_ERROR_INVALID_PARAM)
			w->failures++;
		if (i % 7 == 0 && aclrtAllocatorUnregister(&shared_stream))
			w->failures++;
	}
	for (k = 0; k < KEYS; k++)
		aclrtAllocatorUnregister(&w->streams[k]);
	return NULL;
}

static void test_threads(void **state)
{
	struct worker w[NR_THREADS];
	unsigned int t, k;
	struct got g;

	(void)state;
	for (t = 0; t < NR_THREADS; t++) {
		w[t].id = t;
		w[t].failures = 0;
		w[t].desc[0] = full_desc(0);
		w[t].desc[1] = full_desc(1);
		assert_int_equal(pthread_create(&w[t].thread, NULL, worker_main, &w[t]), 0);
	}
	for (t = 0; t < NR_THREADS; t++) {
		pthread_join(w[t].thread, NULL);
		assert_int_equal(w[t].failures, 0);
	}
	/* Everything the threads unregistered is gone. */
	for (t = 0; t < NR_THREADS; t++) {
		for (k = 0; k < KEYS; k++)
			assert_int_equal(get(&w[t].streams[k], &g), ACL_ERROR_INVALID_PARAM);
		aclrtAllocatorDestroyDesc(w[t].desc[0]);
		aclrtAllocatorDestroyDesc(w[t].desc[1]);
	}
	aclrtAllocatorUnregister(&shared_stream);
}

void run_allocator_tests(struct group_result *res)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_create_desc_zeroed, teardown_streams),
		cmocka_unit_test(test_destroy_desc_null),
		cmocka_unit_test(test_setters_refuse_null),
		cmocka_unit_test_teardown(test_setters_store, teardown_streams),
		cmocka_unit_test_teardown(test_register_checks, teardown_streams),
		cmocka_unit_test_teardown(test_register_advise_optional, teardown_streams),
		cmocka_unit_test_teardown(test_register_copies, teardown_streams),
		cmocka_unit_test_teardown(test_register_last_wins, teardown_streams),
		cmocka_unit_test_teardown(test_destroy_desc_before_unregister, teardown_streams),
		cmocka_unit_test_teardown(test_get_checks, teardown_streams),
		cmocka_unit_test_teardown(test_get_outputs_optional, teardown_streams),
		cmocka_unit_test_teardown(test_unregister, teardown_streams),
		cmocka_unit_test(test_threads),
	};

	RUN_GROUP("acl_allocator", tests, NULL, NULL, res);
}
