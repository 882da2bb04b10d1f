// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libmemreg's mstx tool through the mstx header, as a program sees it,
 * with a fake module behind lib/core's ioctl hook: what reaches the
 * module, in which batches and order, and what is written back to the
 * caller.  The tool attaches once per process, so the tests share it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <mstx/ms_tools_ext.h>

#include "fake_kernel.h"
#include "tool_stats.h"

#define GARBAGE	0xa5

static char pool[1 << 20] __attribute__((aligned(4096)));
static char pool2[1 << 16] __attribute__((aligned(4096)));
static char outside[4096];
static mstxDomainHandle_t domain;

static mstxMemHeapHandle_t heap_register(void *p, size_t size, uint32_t dev)
{
	mstxMemVirtualRangeDesc_t range = { dev, p, size };
	mstxMemHeapDesc_t desc = {
		MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
		MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &range,
	};

	return mstxMemHeapRegister(domain, &desc);
}

static void region(void *p, size_t size)
{
	mstxMemVirtualRangeDesc_t r = { 0, p, size };
	mstxMemRegionsRegisterBatch_t b = {
		NULL, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, 1, &r, NULL,
	};

	mstxMemRegionsRegister(domain, &b);
}

static void unregister_ptr(void *p)
{
	mstxMemRegionRef_t ref;
	mstxMemRegionsUnregisterBatch_t b = { 1, &ref };

	ref.refType = MSTX_MEM_REGION_REF_TYPE_POINTER;
	ref.pointer = p;
	mstxMemRegionsUnregister(domain, &b);
}

/* The index of the first recorded op with @code and @addr, or -1. */
static long find_op(uint16_t code, const void *addr)
{
	unsigned long i, n = fake_mstx_nops();

	for (i = 0; i < n; i++) {
		struct memreg_mstx_op op = fake_mstx_op(i);

		if (op.op == code && op.addr == (uintptr_t)addr)
			return (long)i;
	}
	return -1;
}

static void test_attach(void **state)
{
	uint64_t id = 0;

	(void)state;
	mstxGetToolId(&id);
	assert_int_equal(id, 0x6d72);
	domain = mstxDomainCreateA("unit_test");
	assert_non_null(domain);
	/* CANN's rule: [0-9A-Za-z_], at most 1023 bytes */
	assert_null(mstxDomainCreateA("bad name"));
	assert_null(mstxDomainCreateA(""));
	assert_null(mstxDomainCreateA(NULL));
}

/* A heap goes to the module at once, with its range, device and domain. */
static void test_heap_register(void **state)
{
	mstxMemHeapHandle_t h;
	long i;

	(void)state;
	fake_kernel_forget();
	h = heap_register(pool, sizeof(pool), 3);
	assert_non_null(h);
	i = find_op(MEMREG_MSTX_HEAP_ADD, pool);
	assert_int_equal(i, 0);
	assert_int_equal(fake_mstx_op(i).len, sizeof(pool));
	assert_int_equal(fake_mstx_op(i).device, 3);
	assert_true(fake_mstx_op(i).heap != 0);
	assert_string_equal(fake.mstx.domains[i % 64], "unit_test");

	/* an address leads to one heap: an overlapping one is refused */
	assert_null(heap_register(pool + 4096, 4096, 0));
	mstxMemHeapUnregister(domain, h);
	assert_true(find_op(MEMREG_MSTX_HEAP_DEL, NULL) >= 0);
}

/* torch_npu leaves usage and type uninitialised: they are not read. */
static void test_heap_garbage_fields(void **state)
{
	mstxMemVirtualRangeDesc_t range = { 0, pool, sizeof(pool) };
	mstxMemHeapDesc_t desc;
	mstxMemHeapHandle_t h;

	(void)state;
	memset(&desc, GARBAGE, sizeof(desc));
	desc.typeSpecificDesc = &range;
	h = mstxMemHeapRegister(domain, &desc);
	assert_non_null(h);
	mstxMemHeapUnregister(domain, h);

	assert_null(mstxMemHeapRegister(domain, NULL));
	desc.typeSpecificDesc = NULL;
	assert_null(mstxMemHeapRegister(domain, &desc));
	range.size = 0;
	desc.typeSpecificDesc = &range;
	assert_null(mstxMemHeapRegister(domain, &desc));
	/* unregistering garbage or NULL does nothing (and does not crash) */
	mstxMemHeapUnregister(domain, NULL);
	mstxMemHeapUnregister(domain, (mstxMemHeapHandle_t)(uintptr_t)
			      0xa5a5a5a5a5a5a5a5ULL);
}

/*
 * Regions are buffered, not one ioctl each, and a heap's unregister sends
 * them first, then the heap: in the order the program made them.
 */
static void test_regions_batched(void **state)
{
	mstxMemHeapHandle_t h;
	unsigned long calls;
	struct memreg_mstx_op op;
	long first, del;
	uint32_t kid;
	int i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	for (i = 0; i < 10; i++)
		region(pool + i * 4096, 4096 - i);
	calls = fake_calls(FAKE_MSTX);
	assert_true(calls <= 1);	/* the flusher may have run once */
	mstxMemHeapUnregister(domain, h);

	first = find_op(MEMREG_MSTX_REGION_ADD, pool);
	assert_true(first >= 0);
	kid = fake_mstx_op(first).heap;
	assert_true(kid != 0);
	for (i = 0; i < 10; i++) {
		op = fake_mstx_op(first + i);
		assert_int_equal(op.op, MEMREG_MSTX_REGION_ADD);
		assert_int_equal(op.addr, (uintptr_t)(pool + i * 4096));
		assert_int_equal(op.len, 4096 - i);
		assert_int_equal(op.heap, kid);
	}
	del = (long)fake_mstx_nops() - 1;
	op = fake_mstx_op(del);
	assert_int_equal(op.op, MEMREG_MSTX_HEAP_DEL);
	assert_int_equal(op.heap, kid);
	assert_int_equal(del, first + 10);
}

/*
 * A full buffer goes in one call, made by the call that filled it.  The
 * flusher may take part of a buffer on its own: then try again (it runs
 * every 40 ms, the loop takes well under one).
 */
static void test_flush_on_size(void **state)
{
	unsigned int i, n = tool_buf_ops(), attempt;
	mstxMemHeapHandle_t h;
	bool alone = false;

	(void)state;
	for (attempt = 0; attempt < 5 && !alone; attempt++) {
		h = heap_register(pool, sizeof(pool), 0);
		assert_non_null(h);
		fake_kernel_forget();
		for (i = 0; i < n; i++)
			region(pool + i * 64, 64);
		alone = fake_calls(FAKE_MSTX) == 1;
		if (alone)
			assert_int_equal(fake_mstx_nops(), n);
		mstxMemHeapUnregister(domain, h);
		assert_int_equal(fake_mstx_nops(), n + 1);
	}
	assert_true(alone);
}

static void sleep_ms(long ms)
{
	struct timespec t = { 0, ms * 1000000L };

	nanosleep(&t, NULL);
}

/* The module is never more than 100 ms behind the program. */
static void test_flush_on_timer(void **state)
{
	mstxMemHeapHandle_t h;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	region(pool, 4096);
	region(pool + 4096, 4096);
	unregister_ptr(pool);
	sleep_ms(100);
	assert_int_equal(fake_mstx_nops(), 3);
	assert_int_equal(fake.mstx.early_dels, 0);
	assert_int_equal(fake.mstx.live, 1);
	mstxMemHeapUnregister(domain, h);
}

/* The last recorded op on @addr, or an op of code 0. */
static struct memreg_mstx_op last_op_at(const void *addr)
{
	struct memreg_mstx_op op, none = { 0 };
	unsigned long i;

	for (i = fake_mstx_nops(); i-- > 0;) {
		op = fake_mstx_op(i);
		if (op.addr == (uintptr_t)addr &&
		    op.op != MEMREG_MSTX_HEAP_ADD)
			return op;
	}
	return none;
}

/*
 * A region unregistered while its register still waits in the buffer:
 * one REGION_ADD_DEL carries both (the module keeps the peak and the
 * violations of the pair), and nothing else about it reaches the module.
 */
static void test_fold_add_del(void **state)
{
	mstxMemHeapHandle_t h;
	struct memreg_mstx_op op;
	long i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	region(pool + 8192, 300);
	unregister_ptr(pool + 8192);
	mstxMemHeapUnregister(domain, h);
	assert_int_equal(fake_mstx_nops(), 2);
	i = find_op(MEMREG_MSTX_REGION_ADD_DEL, pool + 8192);
	assert_int_equal(i, 0);
	op = fake_mstx_op(i);
	assert_int_equal(op.len, 300);
	assert_true(op.heap != 0);
	assert_int_equal(fake_mstx_op(1).op, MEMREG_MSTX_HEAP_DEL);
	assert_int_equal(fake.mstx.live, 0);
	assert_int_equal(fake.mstx.early_dels, 0);
}

/*
 * Only a register that is the last operation of the buffer is folded: a
 * region registered before a flush, or before another region, is
 * unregistered by a REGION_DEL of its own.  A second register of a live
 * region folds like any other: the module counts the duplicate.
 */
static void test_fold_only_unsent_last(void **state)
{
	mstxMemHeapHandle_t h;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	region(pool, 64);
	sleep_ms(100);			/* the flusher sent it */
	unregister_ptr(pool);
	region(pool + 64, 64);
	region(pool + 128, 64);
	unregister_ptr(pool + 64);
	region(pool + 128, 64);		/* duplicate of a live region */
	unregister_ptr(pool + 128);
	mstxMemHeapUnregister(domain, h);

	assert_int_equal(last_op_at(pool).op, MEMREG_MSTX_REGION_DEL);
	assert_int_equal(last_op_at(pool + 64).op, MEMREG_MSTX_REGION_DEL);
	assert_int_equal(find_op(MEMREG_MSTX_REGION_ADD, pool + 64) + 2,
			 find_op(MEMREG_MSTX_REGION_DEL, pool + 64));
	assert_true(find_op(MEMREG_MSTX_REGION_ADD, pool + 128) >= 0);
	assert_int_equal(last_op_at(pool + 128).op,
			 MEMREG_MSTX_REGION_ADD_DEL);
	assert_int_equal(fake.mstx.add_dels, 1);
}

/*
 * A register the module counts as out of heap is never folded: a region
 * running past its heap's end, or in no heap at all.
 */
static void test_fold_not_out_of_heap(void **state)
{
	mstxMemHeapHandle_t h;

	(void)state;
	h = heap_register(pool2, sizeof(pool2), 0);
	assert_non_null(h);
	fake_kernel_forget();
	region(pool2 + sizeof(pool2) - 512, 4096);
	unregister_ptr(pool2 + sizeof(pool2) - 512);
	region(outside, 64);
	unregister_ptr(outside);
	mstxMemHeapUnregister(domain, h);
	sleep_ms(100);			/* the orphans: the flusher */

	assert_int_equal(fake.mstx.add_dels, 0);
	assert_true(find_op(MEMREG_MSTX_REGION_ADD,
			    pool2 + sizeof(pool2) - 512) >= 0);
	assert_true(find_op(MEMREG_MSTX_REGION_DEL,
			    pool2 + sizeof(pool2) - 512) >= 0);
	assert_int_equal(fake_mstx_op(find_op(MEMREG_MSTX_REGION_ADD, outside)).heap,
			 0);
	assert_true(find_op(MEMREG_MSTX_REGION_DEL, outside) >= 0);
}

/*
 * torch_npu's region batch: heap, regionType and regionHandleArrayOut are
 * stack garbage.  Handles are written only for a batch that names one of
 * our heaps; the region's heap is found by its address either way.
 */
static void test_untrusted_output(void **state)
{
	mstxMemRegionHandle_t canary[2] = { (void *)0x1111, (void *)0x2222 };
	mstxMemRegionHandle_t out[2] = { NULL, NULL };
	mstxMemVirtualRangeDesc_t r[2] = {
		{ 0, pool, 4096 }, { 0, pool + 8192, 128 },
	};
	mstxMemRegionsRegisterBatch_t b;
	mstxMemHeapHandle_t h;
	uint64_t written;
	long i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	written = tool_handles_written();

	/* all garbage: a write through 0xa5a5... would crash */
	memset(&b, GARBAGE, sizeof(b));
	b.regionCount = 1;
	b.regionDescArray = &r[0];
	mstxMemRegionsRegister(domain, &b);

	/* garbage heap, real array: still not written */
	b.regionHandleArrayOut = canary;
	b.regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS;
	mstxMemRegionsRegister(domain, &b);
	assert_ptr_equal(canary[0], (void *)0x1111);
	assert_ptr_equal(canary[1], (void *)0x2222);
	assert_int_equal(tool_handles_written(), written);

	/* a well-formed batch: one handle per region, its address */
	b.heap = h;
	b.regionCount = 2;
	b.regionDescArray = r;
	b.regionHandleArrayOut = out;
	mstxMemRegionsRegister(domain, &b);
	assert_ptr_equal(out[0], pool);
	assert_ptr_equal(out[1], pool + 8192);

	/* ... which unregister like pointers */
	{
		mstxMemRegionRef_t ref;
		mstxMemRegionsUnregisterBatch_t ub = { 1, &ref };

		ref.refType = MSTX_MEM_REGION_REF_TYPE_HANDLE;
		ref.handle = out[1];
		mstxMemRegionsUnregister(domain, &ub);
	}
	mstxMemHeapUnregister(domain, h);
	/* unregistered before the flush: folded into its register */
	i = find_op(MEMREG_MSTX_REGION_ADD_DEL, pool + 8192);
	assert_true(i >= 0);
	/* the garbage batches still reported their region, in its heap */
	assert_true(fake_mstx_op(find_op(MEMREG_MSTX_REGION_ADD, pool)).heap != 0);
}

/* A region in no heap goes with heap 0: the module counts it. */
static void test_outside_every_heap(void **state)
{
	mstxMemHeapHandle_t h;
	long i;

	(void)state;
	h = heap_register(pool2, sizeof(pool2), 0);
	assert_non_null(h);
	fake_kernel_forget();
	region(outside, sizeof(outside));
	region(pool2, 512);
	mstxMemHeapUnregister(domain, h);
	/* the orphans went first when a heap registers; here: the flusher */
	unregister_ptr(outside);
	{
		struct timespec t = { 0, 100 * 1000000L };

		nanosleep(&t, NULL);
	}
	i = find_op(MEMREG_MSTX_REGION_ADD, outside);
	assert_true(i >= 0);
	assert_int_equal(fake_mstx_op(i).heap, 0);
	assert_true(fake_mstx_op(find_op(MEMREG_MSTX_REGION_ADD, pool2)).heap != 0);
	assert_int_equal(fake_mstx_op(find_op(MEMREG_MSTX_REGION_DEL, outside)).heap,
			 0);
}

/*
 * The module refuses one operation (a limit): the library counts it, skips
 * it and sends the rest.
 */
static void test_refusal_skipped(void **state)
{
	mstxMemHeapHandle_t h;
	uint64_t refused;
	int i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	refused = tool_refused();
	fake.fail_errno[FAKE_MSTX] = ENOSPC;
	fake.fail_at[FAKE_MSTX] = 3;
	for (i = 0; i < 6; i++)
		region(pool + i * 4096, 4096);
	mstxMemHeapUnregister(domain, h);
	assert_int_equal(tool_refused(), refused + 1);
	assert_int_equal(find_op(MEMREG_MSTX_REGION_ADD, pool + 3 * 4096), -1);
	assert_true(find_op(MEMREG_MSTX_REGION_ADD, pool + 5 * 4096) >= 0);
	assert_true(find_op(MEMREG_MSTX_HEAP_DEL, NULL) >= 0);

	/* a heap the module refuses gets no handle */
	fake.fail_errno[FAKE_MSTX] = EMFILE;
	fake.fail_at[FAKE_MSTX] = 0;
	assert_null(heap_register(pool, sizeof(pool), 0));
}

/*
 * One thread registers, another unregisters the same regions: each region
 * reaches the module registered before it is unregistered.
 */
#define XT_THREADS	4
#define XT_REGIONS	20000

struct xt {
	char *base;
	int producer;
	int *ready;		/* regions the producer has registered */
};

static void *xt_run(void *arg)
{
	struct xt *x = arg;
	int i;

	for (i = 0; i < XT_REGIONS; i++) {
		if (x->producer) {
			region(x->base + i * 16, 16);
			__atomic_store_n(x->ready, i + 1, __ATOMIC_RELEASE);
		} else {
			while (__atomic_load_n(x->ready, __ATOMIC_ACQUIRE) <= i)
				;
			unregister_ptr(x->base + i * 16);
		}
	}
	return NULL;
}

static void test_cross_thread_order(void **state)
{
	static char arena[XT_THREADS / 2][XT_REGIONS * 16];
	struct xt x[XT_THREADS];
	int ready[XT_THREADS / 2] = { 0 };
	mstxMemHeapHandle_t h[XT_THREADS / 2];
	int i;

	(void)state;
	for (i = 0; i < XT_THREADS / 2; i++) {
		h[i] = heap_register(arena[i], sizeof(arena[i]), 0);
		assert_non_null(h[i]);
	}
	fake_kernel_forget();
	for (i = 0; i < XT_THREADS; i++) {
		x[i].base = arena[i / 2];
		x[i].producer = !(i % 2);
		x[i].ready = &ready[i / 2];
	}
	{
		pthread_t t[XT_THREADS];

		for (i = 0; i < XT_THREADS; i++)
			assert_int_equal(pthread_create(&t[i], NULL, xt_run,
							&x[i]), 0);
		for (i = 0; i < XT_THREADS; i++)
			pthread_join(t[i], NULL);
	}
	for (i = 0; i < XT_THREADS / 2; i++)
		mstxMemHeapUnregister(domain, h[i]);
	/* a folded pair is one operation */
	assert_int_equal(fake_mstx_nops() + fake.mstx.add_dels,
			 2 * XT_REGIONS * XT_THREADS / 2 + XT_THREADS / 2);
	assert_int_equal(fake.mstx.early_dels, 0);
	assert_int_equal(fake.mstx.live, 0);
}

/*
 * A thread's operations reach the module when it exits, not 40 ms later;
 * its ring goes to the next thread (100 threads, one after the other).
 */
static void *te_run(void *arg)
{
	region(arg, 64);
	return NULL;
}

static void test_thread_exit_flush(void **state)
{
	mstxMemHeapHandle_t h;
	pthread_t t;
	int i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	for (i = 0; i < 100; i++) {
		assert_int_equal(pthread_create(&t, NULL, te_run,
						pool + i * 64), 0);
		pthread_join(t, NULL);
		assert_true(find_op(MEMREG_MSTX_REGION_ADD, pool + i * 64) >= 0);
	}
	for (i = 0; i < 100; i++)
		unregister_ptr(pool + i * 64);
	mstxMemHeapUnregister(domain, h);
	assert_int_equal(fake.mstx.early_dels, 0);
	assert_int_equal(fake.mstx.live, 0);
}

/*
 * More threads at once than there are rings: the last ring is shared.
 * Each thread registers its regions; the next thread unregisters them,
 * in the order the barrier gives.
 */
#define MT_THREADS	70
#define MT_REGIONS	50

static pthread_barrier_t mt_barrier;

static void *mt_run(void *arg)
{
	long id = (long)arg;
	int i;

	pthread_barrier_wait(&mt_barrier);
	for (i = 0; i < MT_REGIONS; i++)
		region(pool + (id * MT_REGIONS + i) * 64, 64);
	pthread_barrier_wait(&mt_barrier);
	id = (id + 1) % MT_THREADS;
	for (i = 0; i < MT_REGIONS; i++)
		unregister_ptr(pool + (id * MT_REGIONS + i) * 64);
	return NULL;
}

static void test_more_threads_than_rings(void **state)
{
	pthread_t t[MT_THREADS];
	mstxMemHeapHandle_t h;
	long i;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	fake_kernel_forget();
	assert_int_equal(pthread_barrier_init(&mt_barrier, NULL, MT_THREADS),
			 0);
	for (i = 0; i < MT_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, mt_run,
						(void *)i), 0);
	for (i = 0; i < MT_THREADS; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&mt_barrier);
	mstxMemHeapUnregister(domain, h);
	assert_int_equal(fake_mstx_nops() + fake.mstx.add_dels,
			 2 * MT_THREADS * MT_REGIONS + 1);
	assert_int_equal(fake.mstx.early_dels, 0);
	assert_int_equal(fake.mstx.live, 0);
}

/* A forked child has none of its parent's heaps: the tool stays quiet. */
static void test_fork_child(void **state)
{
	mstxMemHeapHandle_t h;
	unsigned long before;
	pid_t pid;
	int status;

	(void)state;
	h = heap_register(pool, sizeof(pool), 0);
	assert_non_null(h);
	before = fake_mstx_nops();
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		region(pool, 64);
		mstxMemHeapUnregister(domain, h);
		/* the child's fake is its own copy: nothing may reach it */
		_exit(fake_mstx_nops() == before &&
		      !heap_register(pool2, sizeof(pool2), 0) ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	mstxMemHeapUnregister(domain, h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach),
		cmocka_unit_test(test_heap_register),
		cmocka_unit_test(test_heap_garbage_fields),
		cmocka_unit_test(test_regions_batched),
		cmocka_unit_test(test_flush_on_size),
		cmocka_unit_test(test_flush_on_timer),
		cmocka_unit_test(test_fold_add_del),
		cmocka_unit_test(test_fold_only_unsent_last),
		cmocka_unit_test(test_fold_not_out_of_heap),
		cmocka_unit_test(test_untrusted_output),
		cmocka_unit_test(test_outside_every_heap),
		cmocka_unit_test(test_refusal_skipped),
		cmocka_unit_test(test_cross_thread_order),
		cmocka_unit_test(test_thread_exit_flush),
		cmocka_unit_test(test_more_threads_than_rings),
		cmocka_unit_test(test_fork_child),
	};

	if (fake_kernel_setup())
		return 1;
	/* test_mstx GLOB: only the tests whose names match */
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name("mstx", tests, NULL, NULL);
}
