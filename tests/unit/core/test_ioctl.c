// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The ioctl wrappers, byte for byte: each request number, and each struct
 * exactly as the module would copy it in (size = sizeof, the first
 * published size; flags and reserved zero; the fields where the UAPI puts
 * them).  The stack is poisoned first so that a field left unset shows.
 */
#include <errno.h>
#include <string.h>

#include "fake_kernel.h"
#include "helpers.h"
#include "tests.h"

/* The structs this library was built with are the first versions. */
_Static_assert(sizeof(struct memreg_info) == MEMREG_INFO_SIZE_VER0, "info");
_Static_assert(sizeof(struct memreg_register) == MEMREG_REGISTER_SIZE_VER0,
	       "register");
_Static_assert(sizeof(struct memreg_unregister) ==
	       MEMREG_UNREGISTER_SIZE_VER0, "unregister");
_Static_assert(sizeof(struct memreg_query) == MEMREG_QUERY_SIZE_VER0, "query");
_Static_assert(sizeof(struct memreg_region) == 64, "region");

/* A field of the last request by its offset, as the kernel would read it. */
static __u32 get_u32(enum fake_cmd cmd, size_t off)
{
	__u32 v;

	memcpy(&v, &fake.last[cmd].bytes[off], sizeof(v));
	return v;
}

static __u64 get_u64(enum fake_cmd cmd, size_t off)
{
	__u64 v;

	memcpy(&v, &fake.last[cmd].bytes[off], sizeof(v));
	return v;
}

static void assert_request(enum fake_cmd cmd, unsigned long request,
			   size_t size)
{
	assert_int_equal(fake.last[cmd].request, request);
	assert_int_equal(_IOC_TYPE(request), MEMREG_IOC_MAGIC);
	assert_int_equal(_IOC_DIR(request), _IOC_READ | _IOC_WRITE);
	assert_int_equal(_IOC_SIZE(request), size);
	assert_true(fake.last[cmd].fd >= 0);
}

static void test_info_bytes(void **state)
{
	struct memreg_lib_info info;
	struct memreg_info want;

	poison_stack();
	assert_int_equal(memreg_info(*state, &info), 0);

	memset(&want, 0, sizeof(want));
	want.size = MEMREG_INFO_SIZE_VER0;
	assert_request(FAKE_INFO, MEMREG_IOC_INFO, sizeof(want));
	assert_memory_equal(fake.last[FAKE_INFO].bytes, &want, sizeof(want));
}

static void test_register_bytes(void **state)
{
	static char buf[12345];
	struct memreg_register want;
	uint64_t handle = 0;

	poison_stack();
	assert_int_equal(memreg_register(*state, buf + 3, sizeof(buf) - 3,
					 MEMREG_MEM_DEVICE,
					 MEMREG_ACCESS_REMOTE_READ, &handle), 0);
	assert_int_equal(handle, fake_handle(0));

	memset(&want, 0, sizeof(want));
	want.size = MEMREG_REGISTER_SIZE_VER0;
	want.type = MEMREG_MEM_DEVICE;
	want.addr = (uintptr_t)(buf + 3);
	want.len = sizeof(buf) - 3;
	want.access = MEMREG_ACCESS_REMOTE_READ;
	assert_request(FAKE_REGISTER, MEMREG_IOC_REGISTER, sizeof(want));
	assert_memory_equal(fake.last[FAKE_REGISTER].bytes, &want, sizeof(want));

	/* The layout the UAPI header documents, independent of the struct. */
	assert_int_equal(get_u32(FAKE_REGISTER, 0), 72);
	assert_int_equal(get_u32(FAKE_REGISTER, 4), 1);
	assert_int_equal(get_u64(FAKE_REGISTER, 8),
			 (uintptr_t)(buf + 3));
	assert_int_equal(get_u64(FAKE_REGISTER, 16),
			 sizeof(buf) - 3);
	assert_int_equal(get_u32(FAKE_REGISTER, 24), 1);
}

static void test_register_host_all_access(void **state)
{
	char buf[100];
	struct memreg_register want;
	uint64_t handle;

	poison_stack();
	assert_int_equal(memreg_register(*state, buf, sizeof(buf),
					 MEMREG_MEM_HOST, MEMREG_ACCESS_ALL,
					 &handle), 0);
	memset(&want, 0, sizeof(want));
	want.size = sizeof(want);
	want.type = MEMREG_MEM_HOST;
	want.addr = (uintptr_t)buf;
	want.len = sizeof(buf);
	want.access = MEMREG_ACCESS_ALL;
	assert_memory_equal(fake.last[FAKE_REGISTER].bytes, &want, sizeof(want));
}

static void test_unregister_bytes(void **state)
{
	char buf[64];
	struct memreg_unregister want;
	uint64_t handle;

	assert_int_equal(memreg_register(*state, buf, sizeof(buf),
					 MEMREG_MEM_HOST, 0, &handle), 0);
	poison_stack();
	assert_int_equal(memreg_unregister(*state, handle), 0);

	memset(&want, 0, sizeof(want));
	want.size = MEMREG_UNREGISTER_SIZE_VER0;
	want.handle = handle;
	assert_request(FAKE_UNREGISTER, MEMREG_IOC_UNREGISTER, sizeof(want));
	assert_memory_equal(fake.last[FAKE_UNREGISTER].bytes, &want,
			    sizeof(want));
	assert_int_equal(fake.live, 0);

	/* Twice is an unknown handle. */
	assert_int_equal(memreg_unregister(*state, handle), -MEMREG_E_NOENT);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(memreg_unregister(*state, 0xdeadbeef),
			 -MEMREG_E_NOENT);
}

static void test_query_bytes(void **state)
{
	struct memreg_region regions[5];
	struct memreg_query want;
	char buf[3][32];
	uint64_t handle, cursor = 0, total = 0;
	unsigned int count = 99, i;

	for (i = 0; i < 3; i++)
		assert_int_equal(memreg_register(*state, buf[i], 32,
						 MEMREG_MEM_HOST, i, &handle), 0);
	poison_stack();
	assert_int_equal(memreg_query(*state, regions, 5, &cursor, &count,
				      &total), 0);

	memset(&want, 0, sizeof(want));
	want.size = MEMREG_QUERY_SIZE_VER0;
	want.cursor = 0;
	want.regions = (uintptr_t)regions;
	want.count = 5;
	want.entry_size = sizeof(struct memreg_region);
	assert_request(FAKE_QUERY, MEMREG_IOC_QUERY, sizeof(want));
	assert_memory_equal(fake.last[FAKE_QUERY].bytes, &want, sizeof(want));

	/* What the module wrote back reaches the caller. */
	assert_int_equal(count, 3);
	assert_int_equal(total, 3);
	assert_int_equal(cursor, fake_handle(2));
	for (i = 0; i < 3; i++) {
		assert_int_equal(regions[i].handle, fake_handle(i));
		assert_int_equal(regions[i].addr, (uintptr_t)buf[i]);
		assert_int_equal(regions[i].len, 32);
		assert_int_equal(regions[i].access, i);
	}

	/* The cursor goes back in as it came out. */
	poison_stack();
	assert_int_equal(memreg_query(*state, regions, 5, &cursor, &count,
				      NULL), 0);
	want.cursor = fake_handle(2);
	assert_memory_equal(fake.last[FAKE_QUERY].bytes, &want, sizeof(want));
	assert_int_equal(count, 0);
}

static void test_query_count_only(void **state)
{
	char buf[8];
	uint64_t handle, cursor = 0, total = 0;
	unsigned int count = 99;

	assert_int_equal(memreg_register(*state, buf, 8, MEMREG_MEM_HOST, 0,
					 &handle), 0);
	/* No room, no array: just the total. */
	assert_int_equal(memreg_query(*state, NULL, 0, &cursor, &count,
				      &total), 0);
	assert_int_equal(count, 0);
	assert_int_equal(total, 1);
	assert_int_equal(cursor, 0);
}

static void test_bad_arguments(void **state)
{
	struct memreg_ctx *ctx = *state;
	struct memreg_region r;
	uint64_t handle, cursor = 0;
	unsigned int count;
	char buf[8];

	errno = 0;
	assert_int_equal(memreg_register(ctx, buf, 8, MEMREG_MEM_HOST, 0, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(memreg_register(NULL, buf, 8, MEMREG_MEM_HOST, 0,
					 &handle), -MEMREG_E_INVAL);
	assert_int_equal(memreg_unregister(NULL, 1), -MEMREG_E_INVAL);
	assert_int_equal(memreg_query(NULL, &r, 1, &cursor, &count, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_query(ctx, &r, 1, NULL, &count, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_query(ctx, &r, 1, &cursor, NULL, NULL),
			 -MEMREG_E_INVAL);
	assert_int_equal(memreg_query(ctx, NULL, 1, &cursor, &count, NULL),
			 -MEMREG_E_INVAL);
	/* Refused before the kernel was asked. */
	assert_int_equal(fake.calls[FAKE_REGISTER], 0);
	assert_int_equal(fake.calls[FAKE_UNREGISTER], 0);
	assert_int_equal(fake.calls[FAKE_QUERY], 0);

	/* What only the module can judge reaches it, and its answer returns. */
	assert_int_equal(memreg_register(ctx, buf, 0, MEMREG_MEM_HOST, 0,
					 &handle), -MEMREG_E_INVAL);
	assert_int_equal(memreg_register(ctx, buf, 8, (enum memreg_mem_type)7,
					 0, &handle), -MEMREG_E_INVAL);
	assert_int_equal(memreg_register(ctx, buf, 8, MEMREG_MEM_HOST, 1U << 9,
					 &handle), -MEMREG_E_INVAL);
	assert_int_equal(fake.calls[FAKE_REGISTER], 3);
}

/* Each refusal of REGISTER: its own code, errno as the kernel set it. */
static void test_register_refusals(void **state)
{
	static const struct { int errnum, err; } cases[] = {
		{ EMFILE, MEMREG_E_LIMIT_REGIONS },
		{ EDQUOT, MEMREG_E_LIMIT_HOST },
		{ ENOSPC, MEMREG_E_LIMIT_DEVICE },
		{ ENOMEM, MEMREG_E_MEMLOCK },
		{ ENXIO, MEMREG_E_NODEVMEM },
		{ EFAULT, MEMREG_E_FAULT },
		{ EACCES, MEMREG_E_ACCESS },
		{ EINVAL, MEMREG_E_INVAL },
		{ EPERM, MEMREG_E_PERM },
		{ EINTR, MEMREG_E_INTR },
		{ E2BIG, MEMREG_E_ABI },
		{ ENOTTY, MEMREG_E_ABI },
		{ EIO, MEMREG_E_IO },
	};
	char buf[8];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t handle = 0x1111;

		fake.fail_errno[FAKE_REGISTER] = cases[i].errnum;
		assert_int_equal(memreg_register(*state, buf, 8,
						 MEMREG_MEM_HOST, 0, &handle),
				 -cases[i].err);
		assert_int_equal(errno, cases[i].errnum);
		assert_int_equal(handle, 0x1111);
	}
	assert_int_equal(fake.live, 0);
}

static void test_query_refusals(void **state)
{
	struct memreg_region r[2];
	uint64_t cursor = 42;
	unsigned int count = 7;

	fake.fail_errno[FAKE_QUERY] = EFAULT;
	assert_int_equal(memreg_query(*state, r, 2, &cursor, &count, NULL),
			 -MEMREG_E_FAULT);
	/* Outputs untouched on failure. */
	assert_int_equal(cursor, 42);
	assert_int_equal(count, 7);

	fake.fail_errno[FAKE_QUERY] = ENOTTY;
	assert_int_equal(memreg_query(*state, r, 2, &cursor, &count, NULL),
			 -MEMREG_E_ABI);
}

static void test_query_overflow(void **state)
{
	struct memreg_region r[2];
	uint64_t cursor = 0;
	unsigned int count = 7;
	char buf[8];
	uint64_t h;

	assert_int_equal(memreg_register(*state, buf, 8, MEMREG_MEM_HOST, 0,
					 &h), 0);
	/* A module that claims more entries than there was room for. */
	fake.query_overflow = 1;
	assert_int_equal(memreg_query(*state, r, 1, &cursor, &count, NULL),
			 -MEMREG_E_IO);
	assert_int_equal(errno, EPROTO);
	assert_int_equal(count, 7);
}

#define FAKE_CTX_TEST(fn) \
	cmocka_unit_test_setup_teardown(fn, fake_ctx_setup, fake_ctx_teardown)

void run_ioctl_tests(struct group_result *res)
{
	static const struct CMUnitTest tests[] = {
		FAKE_CTX_TEST(test_info_bytes),
		FAKE_CTX_TEST(test_register_bytes),
		FAKE_CTX_TEST(test_register_host_all_access),
		FAKE_CTX_TEST(test_unregister_bytes),
		FAKE_CTX_TEST(test_query_bytes),
		FAKE_CTX_TEST(test_query_count_only),
		FAKE_CTX_TEST(test_bad_arguments),
		FAKE_CTX_TEST(test_register_refusals),
		FAKE_CTX_TEST(test_query_refusals),
		FAKE_CTX_TEST(test_query_overflow),
	};

	RUN_GROUP("ioctl", tests, NULL, NULL, res);
}
