// SPDX-License-Identifier: GPL-2.0
/*
 * itest_share - register once, pin once, charge once: a registration
 * inside one of the same process that pinned its pages shares them.  The
 * slices of a registered pool take no pin (VmPin, nr_foll_pin_acquired),
 * no byte of the process's charge, and one registration each; copies go
 * through them before and after the pool is unregistered; the last one
 * to go lets the pages go (nr_foll_pin_acquired == nr_foll_pin_released,
 * VmPin 0).  A range across two registrations pins its own pages.
 *
 * As many slices as the process's registration limit leaves room for, at
 * most 1000 (share.sh raises the limit as root; as uid 1000 fewer).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>
#include "memtest.h"

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)
#define SLICE (200 * KiB)
#define MAX_SLICES 1000

static int fd = -1;
static long long pins_at_start;

static int setup(void **state)
{
	(void)state;
	fd = memtest_open();
	assert_true(fd >= 0);
	pins_at_start = memtest_pins_held();
	return 0;
}

static int teardown(void **state)
{
	long long held = memtest_pins_held(), vmpin;

	(void)state;
	close(fd);
	/* every pin of the test is gone with the last registration */
	vmpin = memtest_vmpin_kb();
	if ((pins_at_start >= 0 && held != pins_at_start) || vmpin) {
		print_error("pins held %lld (at start %lld), VmPin %lld kB\n",
			    held, pins_at_start, vmpin);
		return -1;
	}
	return 0;
}

static int reg(void *addr, uint64_t len, uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_HOST,
		.access = MEMREG_ACCESS_ALL,
		.addr = (uintptr_t)addr, .len = len,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	*handle = r.handle;
	return 0;
}

static struct memreg_info info(void)
{
	struct memreg_info i;

	assert_int_equal(memtest_info(fd, &i), 0);
	return i;
}

/* pinned_pages of registration @handle, as QUERY reports it */
static uint64_t query_pinned(uint64_t handle)
{
	struct memreg_region r[256];
	struct memreg_query q = { .size = sizeof(q) };

	for (;;) {
		q.regions = (uintptr_t)r;
		q.count = 256;
		q.entry_size = sizeof(r[0]);
		assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), 0);
		if (!q.count)
			break;
		for (uint32_t i = 0; i < q.count; i++)
			if (r[i].handle == handle)
				return r[i].pinned_pages;
	}
	fail_msg("handle %llx not in QUERY", (unsigned long long)handle);
	return 0;
}

/*
 * An import of our own grant of @handle: the remote side of a transfer
 * through that registration.
 */
static uint64_t import_own(uint64_t handle)
{
	struct memreg_grant g = {
		.size = sizeof(g), .access = MEMREG_ACCESS_ALL,
		.handle = handle,
	};
	struct memreg_import im = { .size = sizeof(im) };

	assert_int_equal(ioctl(fd, MEMREG_IOC_GRANT, &g), 0);
	memcpy(im.token, g.token, sizeof(im.token));
	assert_int_equal(ioctl(fd, MEMREG_IOC_IMPORT, &im), 0);
	return im.handle;
}

static int xfer(uint32_t op, uint64_t lh, const void *la, uint64_t rh,
		const void *ra, uint64_t len)
{
	struct memreg_xfer_desc d = {
		.op = op, .local_handle = lh, .local_addr = (uintptr_t)la,
		.remote_handle = rh, .remote_addr = (uintptr_t)ra, .len = len,
	};
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)&d, .count = 1,
		.desc_size = sizeof(d),
	};

	return ioctl(fd, MEMREG_IOC_TRANSFER, &t) ? -errno : 0;
}

/*
 * Write seed @seed from a buffer of our own into [@at, +@len) through
 * registration @slice, and read it back through the same slice.
 */
static void copy_through(uint64_t slice, char *at, uint64_t len,
			 unsigned int seed)
{
	char *buf = memtest_map(MEMTEST_ANON, len);
	uint64_t bh, rh;

	assert_non_null(buf);
	assert_int_equal(reg(buf, len, &bh), 0);
	rh = import_own(slice);
	memtest_fill(buf, len, seed);
	assert_int_equal(xfer(MEMREG_XFER_WRITE, bh, buf, rh, at, len), 0);
	assert_true(memtest_same(at, len, seed));
	memset(buf, 0, len);
	assert_int_equal(xfer(MEMREG_XFER_READ, bh, buf, rh, at, len), 0);
	assert_true(memtest_same(buf, len, seed));
	assert_int_equal(memtest_unregister(fd, bh), 0);
	memtest_unmap(buf, len);
}

/* The slices a registration limit leaves room for, besides @others. */
static unsigned int slices_room(unsigned int others)
{
	struct memreg_info i = info();
	uint64_t room = i.max_regions - i.regions - others;

	return room < MAX_SLICES ? (unsigned int)room : MAX_SLICES;
}

/*
 * A pool, then slices of it: no pin, no byte; the pool unregistered
 * first, its pages live on for the slices; the last slice lets them go.
 */
static void run_slices(enum memtest_kind kind, uint64_t want)
{
	uint64_t len = memtest_pin_room(want), pool, *slices, *offs;
	long long vmpin, acquired;
	struct memreg_info before, after;
	unsigned int n, i;
	char *p;

	p = memtest_map(kind, len);
	if (!p) {
		print_message("# %s: no memory of that kind\n",
			      memtest_kind_name(kind));
		skip();
	}
	/* room for the pool, and a buffer of copy_through() */
	n = slices_room(2);
	assert_true(n >= 4);
	slices = calloc(n, sizeof(*slices));
	offs = calloc(n, sizeof(*offs));
	assert_non_null(slices);
	assert_non_null(offs);

	before = info();
	assert_int_equal(reg(p, len, &pool), 0);
	assert_true(query_pinned(pool) > 0);
	vmpin = memtest_vmpin_kb();
	acquired = memtest_pins_acquired();
	assert_int_equal(vmpin, (long long)(len / KiB));

	/* slices anywhere in the pool, some not page-aligned, some overlapping */
	for (i = 0; i < n; i++) {
		offs[i] = (i * 37 * 4 * KiB + (i % 3) * 100) % (len - SLICE);
		assert_int_equal(reg(p + offs[i], SLICE, &slices[i]), 0);
	}
	after = info();
	assert_int_equal(memtest_vmpin_kb(), vmpin);
	if (acquired >= 0)
		assert_int_equal(memtest_pins_acquired(), acquired);
	assert_int_equal(after.host_bytes, before.host_bytes + len);
	assert_int_equal(after.regions, before.regions + 1 + n);
	assert_int_equal(query_pinned(slices[0]), 0);

	/* a slice of a slice shares the pool's pages too */
	{
		uint64_t h;

		assert_int_equal(reg(p + 8 * KiB, 4 * KiB, &h), 0);
		assert_int_equal(query_pinned(h), 0);
		assert_int_equal(memtest_unregister(fd, h), 0);
	}

	/* copies through a slice reach the pool's pages */
	copy_through(slices[n - 1], p + offs[n - 1], SLICE, 3);

	/* the pool goes first: its pages, and their charge, stay */
	assert_int_equal(memtest_unregister(fd, pool), 0);
	assert_int_equal(memtest_vmpin_kb(), vmpin);
	after = info();
	assert_int_equal(after.host_bytes, before.host_bytes + len);
	/* ... and copies through the slices still work */
	copy_through(slices[1], p + offs[1] + 1, SLICE - 1, 4);
	/* a new registration inside the pool now pins its own pages */
	{
		uint64_t h;

		assert_int_equal(reg(p, 4 * KiB, &h), 0);
		assert_true(query_pinned(h) > 0);
		assert_int_equal(memtest_vmpin_kb(), vmpin + 4);
		assert_int_equal(memtest_unregister(fd, h), 0);
	}
	for (i = 0; i < n; i++) {
		assert_int_equal(memtest_unregister(fd, slices[i]), 0);
		/* the pages stay until the last slice is gone */
		if (i + 1 < n)
			assert_int_equal(memtest_vmpin_kb(), vmpin);
	}
	assert_int_equal(memtest_vmpin_kb(), 0);
	if (pins_at_start >= 0)
		assert_int_equal(memtest_pins_held(), pins_at_start);
	after = info();
	assert_int_equal(after.host_bytes, before.host_bytes);
	assert_int_equal(after.regions, before.regions);
	free(slices);
	free(offs);
	memtest_unmap(p, len);
}

static void test_slices_anon(void **state)
{
	(void)state;
	run_slices(MEMTEST_ANON, 64 * MiB);
}

/* a pool of runs (THP, hugetlbfs): copies find the page in the runs */
static void test_slices_thp(void **state)
{
	(void)state;
	run_slices(MEMTEST_THP, 16 * MiB);
}

static void test_slices_hugetlb(void **state)
{
	(void)state;
	run_slices(MEMTEST_HUGETLB, 8 * MiB);
}

/* A range across two registrations pins its pages, and copies through it. */
static void test_across_two(void **state)
{
	/* 8 MiB, or what pins half as much again within RLIMIT_MEMLOCK */
	uint64_t len = (memtest_pin_room(16 * MiB) / 2) & ~(MiB - 1), a, b, c;
	char *p = memtest_map(MEMTEST_ANON, len);

	(void)state;
	assert_non_null(p);
	assert_int_equal(reg(p, len / 2, &a), 0);
	assert_int_equal(reg(p + len / 2, len / 2, &b), 0);
	assert_int_equal(memtest_vmpin_kb(), (long long)(len / KiB));
	assert_int_equal(reg(p + len / 4, len / 2, &c), 0);
	assert_true(query_pinned(c) > 0);
	assert_int_equal(memtest_vmpin_kb(), (long long)(len / KiB * 3 / 2));
	copy_through(c, p + len / 2 - 64 * KiB, 128 * KiB, 5);
	assert_int_equal(memtest_unregister(fd, a), 0);
	assert_int_equal(memtest_unregister(fd, b), 0);
	assert_int_equal(memtest_unregister(fd, c), 0);
	assert_int_equal(memtest_vmpin_kb(), 0);
	memtest_unmap(p, len);
}

/*
 * A parent made on another file of the process: the slice outlives that
 * file's close; the pages go with the slice's file.
 */
static void test_parent_file_closed(void **state)
{
	uint64_t len = 4 * MiB, pool, s;
	char *p = memtest_map(MEMTEST_ANON, len);
	int other = memtest_open();

	(void)state;
	assert_non_null(p);
	assert_true(other >= 0);
	assert_int_equal(memtest_register(other, p, len, MEMREG_MEM_HOST,
					  &pool), 0);
	assert_int_equal(reg(p + MiB, SLICE, &s), 0);
	assert_int_equal(query_pinned(s), 0);
	close(other);
	assert_int_equal(memtest_vmpin_kb(), (long long)(len / KiB));
	copy_through(s, p + MiB, SLICE, 6);
	assert_int_equal(memtest_unregister(fd, s), 0);
	assert_int_equal(memtest_vmpin_kb(), 0);
	memtest_unmap(p, len);
}

/*
 * The netlink dump names a slice's parent: `memreg -j region` shows
 * "parent" with the pool's id, the low 32 bits of its handle.
 */
static void test_dump_parent(void **state)
{
	uint64_t len = 4 * MiB, pool, s;
	char *p = memtest_map(MEMTEST_ANON, len);
	char cmd[128], want[64], line[4096];
	size_t got;
	FILE *f;

	(void)state;
	assert_non_null(p);
	assert_int_equal(reg(p, len, &pool), 0);
	assert_int_equal(reg(p + MiB, SLICE, &s), 0);
	snprintf(cmd, sizeof(cmd), "memreg -j region pid %d", (int)getpid());
	f = popen(cmd, "r");
	assert_non_null(f);
	got = fread(line, 1, sizeof(line) - 1, f);
	line[got] = '\0';
	assert_int_equal(pclose(f), 0);
	snprintf(want, sizeof(want), "\"parent\":%u",
		 (unsigned int)(pool & 0xffffffff));
	if (!strstr(line, want))
		fail_msg("no %s in %s", want, line);
	/* one parent only: the pool's own entry has none */
	assert_ptr_equal(strstr(line, "\"parent\""), strstr(line, want));
	assert_null(strstr(strstr(line, want) + 1, "\"parent\""));
	assert_int_equal(memtest_unregister(fd, s), 0);
	assert_int_equal(memtest_unregister(fd, pool), 0);
	memtest_unmap(p, len);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_slices_anon),
		T(test_slices_thp),
		T(test_slices_hugetlb),
		T(test_across_two),
		T(test_parent_file_closed),
		T(test_dump_parent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
