// SPDX-License-Identifier: GPL-2.0
/*
 * Large transfers on several threads, through libmemreg on the real
 * module: memreg_transfer() splits a batch of 2 MiB or more across the
 * caller's thread and helper threads of its process.
 *
 * What a user checks: every byte arrives, a refused descriptor is reported
 * at its index with the descriptors before it copied, the helpers are
 * threads of the caller (its cgroup, CPU time they really spent) and they
 * end with the context, leaving no pin behind.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <cmocka.h>
#include <memreg/memreg.h>

#include "memtest.h"

#define MIB	(1ull << 20)

struct pair {
	struct memreg_ctx *ctx;
	char *src, *dst;
	uint64_t len, src_h, dst_h;
	struct memreg_remote imp;	/* dst, imported back */
	long long pins_before;
};

static int setup(void **state)
{
	uint8_t token[MEMREG_TOKEN_LEN];
	struct pair *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	p->pins_before = memtest_pins_held();
	/* both buffers pinned: as uid 1000 within RLIMIT_MEMLOCK */
	p->len = memtest_pin_room(48 * MIB) / 2 & ~(MIB - 1);
	if (p->len > 24 * MIB)
		p->len = 24 * MIB;
	if (p->len < 3 * MIB) {
		fprintf(stderr, "itest_copy_threads: %llu bytes of pin room\n",
			(unsigned long long)p->len);
		return -1;
	}
	p->src = memtest_map(MEMTEST_ANON, p->len);
	p->dst = memtest_map(MEMTEST_ANON, p->len);
	if (!p->src || !p->dst || memreg_open(&p->ctx) ||
	    memreg_register(p->ctx, p->src, p->len, MEMREG_MEM_HOST,
			    MEMREG_ACCESS_ALL, &p->src_h) ||
	    memreg_register(p->ctx, p->dst, p->len, MEMREG_MEM_HOST,
			    MEMREG_ACCESS_ALL, &p->dst_h) ||
	    memreg_grant(p->ctx, p->dst_h, MEMREG_ACCESS_ALL, token) ||
	    memreg_import(p->ctx, token, &p->imp))
		return -1;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	memreg_close(p->ctx);
	memtest_unmap(p->src, p->len);
	memtest_unmap(p->dst, p->len);
	/* every pin of the test released once the context is closed */
	assert_int_equal(memtest_pins_held(), p->pins_before);
	free(p);
	return 0;
}

static struct memreg_xfer_desc to_dst(struct pair *p, uint64_t off,
				      uint64_t len)
{
	struct memreg_xfer_desc d;

	memset(&d, 0, sizeof(d));
	d.op = MEMREG_XFER_WRITE;
	d.local_handle = p->src_h;
	d.local_addr = (uintptr_t)p->src + off;
	d.remote_handle = p->imp.handle;
	d.remote_addr = p->imp.addr + off;
	d.len = len;
	return d;
}

/* The whole of a small file, "" if it is empty or cannot be read. */
static void read_small(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, size - 1, f) : 0;

	buf[n] = 0;
	if (f)
		fclose(f);
}

/*
 * The CPU time a thread of this process has run, in nanoseconds: its
 * scheduler clock, read as glibc's pthread_getcpuclockid() builds the id
 * (the tid, inverted, shifted by 3, or'd with "per thread, sched").
 * Exact to the nanosecond, where /proc's utime and stime are sampled
 * ticks a short copy can fall between.
 */
static uint64_t thread_cpu_ns(long tid)
{
	clockid_t id = (clockid_t)((~(unsigned int)tid << 3) | 6);
	struct timespec ts;

	if (clock_gettime(id, &ts))
		return 0;	/* it ended between readdir and now */
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Threads of this process other than the caller: how many, the CPU time
 * they have run, and whether each is in the caller's cgroups.
 */
static unsigned int helpers(uint64_t *cpu_ns, int *same_cgroup)
{
	char path[300], self_cg[1024], cg[1024];
	long self = syscall(SYS_gettid);
	unsigned int n = 0;
	struct dirent *de;
	DIR *d;

	*cpu_ns = 0;
	*same_cgroup = 1;
	snprintf(path, sizeof(path), "/proc/self/task/%ld/cgroup", self);
	read_small(path, self_cg, sizeof(self_cg));
	d = opendir("/proc/self/task");
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || atol(de->d_name) == self)
			continue;
		n++;
		*cpu_ns += thread_cpu_ns(atol(de->d_name));
		snprintf(path, sizeof(path), "/proc/self/task/%s/cgroup",
			 de->d_name);
		read_small(path, cg, sizeof(cg));
		if (strcmp(cg, self_cg)) {
			print_message("thread %s: cgroup '%s', the caller's '%s'\n",
				      de->d_name, cg, self_cg);
			*same_cgroup = 0;
		}
	}
	closedir(d);
	return n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Three descriptors of odd lengths over the whole buffer, WRITE then
 * READ back into the source: every byte arrives, done and bytes are the
 * batch's, and helper threads of this process, in its cgroup, spent CPU
 * time on it.
 */
static void test_split_moves_every_byte(void **state)
{
	struct pair *p = *state;
	uint64_t a = p->len / 3 + 4095, b = p->len / 3 - 17, bytes;
	/* one span (1 MiB at least) copied at 10 GB/s, faster than here */
	const uint64_t span_ns = MIB / 10;
	uint64_t before, after = 0, most = 0;
	struct memreg_xfer_desc d[3];
	unsigned int round;
	double deadline;
	int same = 0;
	size_t done;

	assert_int_equal(memreg_set_copy_threads(p->ctx, 2), 0);
	d[0] = to_dst(p, 0, a);
	d[1] = to_dst(p, a, b);
	d[2] = to_dst(p, a + b, p->len - a - b);
	/*
	 * Until one round shows the helper ran for a span's copy.  On a
	 * loaded host the helper's vCPU can sit still while the caller
	 * copies every span itself, so the bound is time, not rounds.
	 */
	deadline = now_s() + 30;
	for (round = 0; round == 0 || (most < span_ns && now_s() < deadline);
	     round++) {
		memtest_fill(p->src, p->len, round + 1);
		memset(p->dst, 0, p->len);
		before = after;
		assert_int_equal(memreg_transfer(p->ctx, d, 3, &done, &bytes),
				 0);
		assert_int_equal(done, 3);
		assert_int_equal(bytes, p->len);
		assert_true(memtest_same(p->dst, p->len, round + 1));
		assert_int_equal(helpers(&after, &same), 1);
		assert_true(same);
		if (round && after - before > most)
			most = after - before;
	}
	/* the helper's own CPU time: it copied, for us */
	print_message("%u rounds; the helper's most in one: %llu us\n", round,
		      (unsigned long long)most / 1000);
	assert_true(most >= span_ns);

	/* and back: READ from the import into the source */
	memset(p->src, 0, p->len);
	d[0].op = d[1].op = d[2].op = MEMREG_XFER_READ;
	assert_int_equal(memreg_transfer(p->ctx, d, 3, &done, &bytes), 0);
	assert_int_equal(bytes, p->len);
	assert_memory_equal(p->src, p->dst, p->len);
}

/*
 * A descriptor naming an import that does not exist, in the middle: its
 * index and ENOENT are reported as one thread would, and the descriptors
 * before it arrived.
 */
static void test_refusal_at_its_index(void **state)
{
	struct pair *p = *state;
	uint64_t q = p->len / 4 & ~4095ull, bytes;
	struct memreg_xfer_desc d[4];
	size_t done;
	int i;

	assert_int_equal(memreg_set_copy_threads(p->ctx, 4), 0);
	memtest_fill(p->src, p->len, 9);
	memset(p->dst, 0, p->len);
	for (i = 0; i < 4; i++)
		d[i] = to_dst(p, i * q, q);
	d[2].remote_handle = p->imp.handle + 1000;
	errno = 0;
	assert_int_equal(memreg_transfer(p->ctx, d, 4, &done, &bytes),
			 -MEMREG_E_NOENT);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(done, 2);
	assert_true(bytes >= 2 * q && bytes <= 3 * q);
	assert_memory_equal(p->dst, p->src, 2 * q);
}

/* The helpers end with the context; one thread set starts none. */
static void test_helpers_end_with_the_context(void **state)
{
	struct pair *p = *state;
	struct memreg_xfer_desc d = to_dst(p, 0, p->len);
	struct memreg_ctx *solo;
	uint64_t cpu_ns;
	int same, i;

	assert_int_equal(memreg_set_copy_threads(p->ctx, 2), 0);
	assert_int_equal(memreg_transfer(p->ctx, &d, 1, NULL, NULL), 0);
	assert_int_equal(helpers(&cpu_ns, &same), 1);
	memreg_close(p->ctx);
	p->ctx = NULL;
	/* joined; its /proc/self/task entry may outlive the join a moment */
	for (i = 0; i < 200 && helpers(&cpu_ns, &same); i++)
		usleep(10000);
	assert_int_equal(helpers(&cpu_ns, &same), 0);

	/* a new context with one copy thread: no helper, same bytes */
	assert_int_equal(memreg_open(&solo), 0);
	p->ctx = solo;
	assert_int_equal(memreg_set_copy_threads(solo, 1), 0);
	assert_int_equal(memreg_register(solo, p->src, p->len,
					 MEMREG_MEM_HOST, MEMREG_ACCESS_ALL,
					 &p->src_h), 0);
	assert_int_equal(memreg_register(solo, p->dst, p->len,
					 MEMREG_MEM_HOST, MEMREG_ACCESS_ALL,
					 &p->dst_h), 0);
	d.local_handle = p->src_h;
	d.op = MEMREG_XFER_READ;	/* its own registration, read back */
	{
		uint8_t token[MEMREG_TOKEN_LEN];

		assert_int_equal(memreg_grant(solo, p->dst_h,
					      MEMREG_ACCESS_ALL, token), 0);
		assert_int_equal(memreg_import(solo, token, &p->imp), 0);
	}
	d.remote_handle = p->imp.handle;
	memtest_fill(p->dst, p->len, 4);
	assert_int_equal(memreg_transfer(solo, &d, 1, NULL, NULL), 0);
	assert_true(memtest_same(p->src, p->len, 4));
	assert_int_equal(helpers(&cpu_ns, &same), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_split_moves_every_byte,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusal_at_its_index,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_helpers_end_with_the_context, setup, teardown),
	};

	return cmocka_run_group_tests_name("copy_threads", tests, NULL, NULL);
}
