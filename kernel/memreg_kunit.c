// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_kunit - KUnit tests of memreg's internal logic: range and limit
 * arithmetic at and around every edge, handles, the resumable walk
 * that the netlink dumps and MEMREG_IOC_QUERY use, and the index of the
 * registrations whose pages later ones share.
 */
#include <kunit/test.h>
#include <linux/limits.h>
#include <linux/xarray.h>
#include "memreg_internal.h"

static void memreg_test_range_rejects_malformed(struct kunit *test)
{
	unsigned long npages;
	u64 first;

	KUNIT_EXPECT_EQ(test, memreg_check_range(0x1000, 0, &first, &npages),
			-EINVAL);
	/* addr + len wraps */
	KUNIT_EXPECT_EQ(test, memreg_check_range(U64_MAX - 10, 11, &first,
						 &npages), -EINVAL);
	KUNIT_EXPECT_EQ(test, memreg_check_range(U64_MAX, U64_MAX, &first,
						 &npages), -EINVAL);
	/* addr + len fits, but its page-aligned end wraps */
	KUNIT_EXPECT_EQ(test, memreg_check_range(U64_MAX - 10, 5, &first,
						 &npages), -EINVAL);
}

static void memreg_test_range_counts_pages(struct kunit *test)
{
	unsigned long npages;
	u64 first;

	KUNIT_ASSERT_EQ(test, memreg_check_range(0x1000, 1, &first, &npages),
			0);
	KUNIT_EXPECT_EQ(test, first, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, npages, 1UL);

	/* one byte past a page boundary spans two pages */
	KUNIT_ASSERT_EQ(test, memreg_check_range(0x1fff, 2, &first, &npages),
			0);
	KUNIT_EXPECT_EQ(test, first, 0x1000ULL);
	KUNIT_EXPECT_EQ(test, npages, 2UL);

	KUNIT_ASSERT_EQ(test, memreg_check_range(0x200000, 2 << 20, &first,
						 &npages), 0);
	KUNIT_EXPECT_EQ(test, npages, (unsigned long)((2 << 20) / PAGE_SIZE));
}

static const struct memreg_limits memreg_test_lim = {
	.max_regions = 4,
	.max_bytes[MEMREG_MEM_HOST] = 1 << 20,
	.max_bytes[MEMREG_MEM_DEVICE] = 2 << 20,
};

/*
 * The limit fields of the module's memory types (memreg_host.c,
 * memreg_dev.c, memreg_dmabuf.c): host bytes on their own limit, device
 * and dma-buf bytes on the device limit.
 */
static const struct memreg_mem_ops memreg_test_host = {
	.limit_type = MEMREG_MEM_HOST,
	.over_limit = MEMREG_REFUSED_HOST_BYTES,
	.over_limit_errno = -EDQUOT,
};
static const struct memreg_mem_ops memreg_test_dev = {
	.limit_type = MEMREG_MEM_DEVICE,
	.over_limit = MEMREG_REFUSED_DEV_BYTES,
	.over_limit_errno = -ENOSPC,
};
static const struct memreg_mem_ops *const memreg_test_types[MEMREG_MEM_TYPES] = {
	[MEMREG_MEM_HOST] = &memreg_test_host,
	[MEMREG_MEM_DEVICE] = &memreg_test_dev,
	[MEMREG_MEM_DMABUF] = &memreg_test_dev,
};

/* memreg_check_limits() on the types above */
static int memreg_test_check(const struct memreg_usage *use,
			     const struct memreg_limits *lim, u32 type,
			     u64 len, enum memreg_refusal *why)
{
	return memreg_check_limits(use, lim, memreg_test_types, type, len,
				   why);
}

/* Transfer descriptors: inside the registration, edges included. */
static void memreg_test_range_inside(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, memreg_range_inside(0x1000, 0x100, 0x1000, 0x100));
	KUNIT_EXPECT_TRUE(test, memreg_range_inside(0x1000, 0x100, 0x10ff, 1));
	KUNIT_EXPECT_TRUE(test, memreg_range_inside(0x1000, 0x100, 0x1100, 0));
	KUNIT_EXPECT_FALSE(test, memreg_range_inside(0x1000, 0x100, 0xfff, 1));
	KUNIT_EXPECT_FALSE(test, memreg_range_inside(0x1000, 0x100, 0x10ff, 2));
	KUNIT_EXPECT_FALSE(test, memreg_range_inside(0x1000, 0x100, 0x1101, 0));
	/* lengths that would wrap a sum */
	KUNIT_EXPECT_FALSE(test, memreg_range_inside(0x1000, 0x100, 0x1001,
						     U64_MAX));
	KUNIT_EXPECT_FALSE(test, memreg_range_inside(U64_MAX - 0xff, 0x100,
						     U64_MAX, 2));
	KUNIT_EXPECT_TRUE(test, memreg_range_inside(U64_MAX - 0xff, 0x100,
						    U64_MAX, 1));
}

static void memreg_test_limits_count(struct kunit *test)
{
	struct memreg_usage use = { .regions = 3 };
	enum memreg_refusal why = 0;

	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 1, &why), 0);
	use.regions = 4;
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 1, &why),
			-EMFILE);
	KUNIT_EXPECT_EQ(test, why, MEMREG_REFUSED_REGIONS);
}

static void memreg_test_limits_bytes(struct kunit *test)
{
	struct memreg_usage use = { .bytes[MEMREG_MEM_HOST] = (1 << 20) - 4096 };
	enum memreg_refusal why = 0;

	/* exactly up to the limit is allowed, one byte more is not */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 4096, &why),
			0);
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 4097, &why),
			-EDQUOT);
	KUNIT_EXPECT_EQ(test, why, MEMREG_REFUSED_HOST_BYTES);

	/* device bytes are counted apart from host bytes */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DEVICE, 2 << 20,
						  &why), 0);
	use.bytes[MEMREG_MEM_DEVICE] = 1;
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DEVICE, 2 << 20,
						  &why), -ENOSPC);
	KUNIT_EXPECT_EQ(test, why, MEMREG_REFUSED_DEV_BYTES);
}

/* a registration that shares pages: counted, and no byte limit applies */
static void memreg_test_limits_no_bytes(struct kunit *test)
{
	struct memreg_usage use = { .regions = 3,
				    .bytes[MEMREG_MEM_HOST] = 2 << 20 };
	enum memreg_refusal why = 0;

	/* over the byte limit already (an administrator lowered it) */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 0, &why), 0);
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 1, &why),
			-EDQUOT);
	use.regions = 4;
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 0, &why),
			-EMFILE);
	KUNIT_EXPECT_EQ(test, why, MEMREG_REFUSED_REGIONS);
}

/* dma-buf bytes are charged to the device limit, with device bytes */
static void memreg_test_limits_shared(struct kunit *test)
{
	struct memreg_usage use = {
		.bytes[MEMREG_MEM_DEVICE] = 1 << 20,
		.bytes[MEMREG_MEM_DMABUF] = (1 << 20) - 4096,
	};
	enum memreg_refusal why = 0;

	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DMABUF, 4096,
						  &why), 0);
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DMABUF, 4097,
						  &why), -ENOSPC);
	KUNIT_EXPECT_EQ(test, why, MEMREG_REFUSED_DEV_BYTES);
	/* and the other way round: device bytes see the dma-buf bytes */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DEVICE, 4097,
						  &why), -ENOSPC);
	/* host bytes are not theirs */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_HOST, 4096, &why),
			0);
	/* wrapping across the two types is refused too */
	use.bytes[MEMREG_MEM_DMABUF] = U64_MAX - (1 << 20) + 1;
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &memreg_test_lim,
						MEMREG_MEM_DEVICE, 1, &why),
			-ENOSPC);
}

/* A cgroup's charge fits up to its limit exactly, and no sum wraps. */
static void memreg_test_fits(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, memreg_fits(0, MEMREG_UNLIMITED, U64_MAX));
	KUNIT_EXPECT_TRUE(test, memreg_fits(60, 64, 4));
	KUNIT_EXPECT_FALSE(test, memreg_fits(60, 64, 5));
	KUNIT_EXPECT_TRUE(test, memreg_fits(0, 0, 0));
	KUNIT_EXPECT_FALSE(test, memreg_fits(0, 0, 1));
	/* charges above a lowered limit: nothing more fits */
	KUNIT_EXPECT_FALSE(test, memreg_fits(100, 64, 1));
	KUNIT_EXPECT_FALSE(test, memreg_fits(1, U64_MAX - 1, U64_MAX - 1));
	KUNIT_EXPECT_FALSE(test, memreg_fits(U64_MAX - 2, U64_MAX - 1, 2));
}

/* Headroom keeps the limit that leaves the least; ties keep the first. */
static void memreg_test_room_min(struct kunit *test)
{
	struct memreg_room r;

	memreg_room_init(&r);
	KUNIT_EXPECT_EQ(test, r.bytes, MEMREG_UNLIMITED);
	KUNIT_EXPECT_EQ(test, r.by, (u32)MEMREG_ROOM_BY_NONE);
	memreg_room_min(&r, MEMREG_ROOM_BY_CGROUP, MEMREG_UNLIMITED, 5, 7);
	KUNIT_EXPECT_EQ(test, r.by, (u32)MEMREG_ROOM_BY_NONE);
	memreg_room_min(&r, MEMREG_ROOM_BY_PROCESS, 100, 40, 7);
	KUNIT_EXPECT_EQ(test, r.bytes, 60ULL);
	KUNIT_EXPECT_EQ(test, r.cgroup_id, 0ULL);
	memreg_room_min(&r, MEMREG_ROOM_BY_CGROUP, 64, 4, 9);
	KUNIT_EXPECT_EQ(test, r.by, (u32)MEMREG_ROOM_BY_PROCESS);
	memreg_room_min(&r, MEMREG_ROOM_BY_CGROUP, 64, 10, 9);
	KUNIT_EXPECT_EQ(test, r.bytes, 54ULL);
	KUNIT_EXPECT_EQ(test, r.by, (u32)MEMREG_ROOM_BY_CGROUP);
	KUNIT_EXPECT_EQ(test, r.cgroup_id, 9ULL);
	KUNIT_EXPECT_EQ(test, r.limit, 64ULL);
	KUNIT_EXPECT_EQ(test, r.used, 10ULL);
	/* over a lowered limit: 0, not a wrapped figure */
	memreg_room_min(&r, MEMREG_ROOM_BY_CGROUP, 8, 16, 11);
	KUNIT_EXPECT_EQ(test, r.bytes, 0ULL);
	KUNIT_EXPECT_EQ(test, r.cgroup_id, 11ULL);
	memreg_room_min(&r, MEMREG_ROOM_BY_RAM, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, r.by, (u32)MEMREG_ROOM_BY_CGROUP);
}

static void memreg_test_token_eq(struct kunit *test)
{
	u8 a[16] = { 1, 2, 3 }, b[16] = { 1, 2, 3 };

	KUNIT_EXPECT_TRUE(test, memreg_token_eq(a, b));
	b[15] = 1;
	KUNIT_EXPECT_FALSE(test, memreg_token_eq(a, b));
	b[15] = 0;
	b[0] = 0;
	KUNIT_EXPECT_FALSE(test, memreg_token_eq(a, b));
}

static void memreg_test_limits_overflow(struct kunit *test)
{
	struct memreg_limits unlimited = {
		.max_regions = MEMREG_UNLIMITED,
		.max_bytes[MEMREG_MEM_HOST] = MEMREG_UNLIMITED,
		.max_bytes[MEMREG_MEM_DEVICE] = MEMREG_UNLIMITED,
	};
	struct memreg_usage use = { .bytes[MEMREG_MEM_HOST] = U64_MAX - 1 };
	enum memreg_refusal why = 0;

	/* a sum that wraps must not look small */
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &unlimited,
						MEMREG_MEM_HOST, 2, &why),
			-EDQUOT);
	KUNIT_EXPECT_EQ(test, memreg_test_check(&use, &unlimited,
						MEMREG_MEM_HOST, 1, &why), 0);
}

static void memreg_test_effective_limits(struct kunit *test)
{
	struct memreg_limits own = { 1, { 2, 3 } }, def = { 10, { 20, 30 } }, out;

	memreg_effective_limits(&own, 0, &def, &out);
	KUNIT_EXPECT_EQ(test, out.max_regions, 10ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_HOST], 20ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_DEVICE], 30ULL);

	memreg_effective_limits(&own, MEMREG_OVR_HOST, &def, &out);
	KUNIT_EXPECT_EQ(test, out.max_regions, 10ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_HOST], 2ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_DEVICE], 30ULL);

	memreg_effective_limits(&own, MEMREG_OVR_REGIONS | MEMREG_OVR_DEV,
				&def, &out);
	KUNIT_EXPECT_EQ(test, out.max_regions, 1ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_HOST], 20ULL);
	KUNIT_EXPECT_EQ(test, out.max_bytes[MEMREG_MEM_DEVICE], 3ULL);
}

static void memreg_test_handle(struct kunit *test)
{
	u64 h = memreg_handle_make(0x12345678, 0x9abcdef0);

	KUNIT_EXPECT_EQ(test, h, 0x9abcdef012345678ULL);
	KUNIT_EXPECT_EQ(test, memreg_handle_id(h), 0x12345678U);
	/* same id, other cookie: a different handle */
	KUNIT_EXPECT_NE(test, h, memreg_handle_make(0x12345678, 0x9abcdef1));
}

/* A handle finds its registration only with its cookie and its owner. */
static void memreg_test_handle_lookup(struct kunit *test)
{
	struct memreg_file *mine, *other;
	struct memreg_reg *reg;
	struct xarray xa;

	mine = kunit_kzalloc(test, sizeof(*mine), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	reg = kunit_kzalloc(test, sizeof(*reg), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mine);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, reg);

	xa_init(&xa);
	reg->id = 42;
	reg->handle = memreg_handle_make(42, 0xc0ffee);
	reg->owner = mine;
	KUNIT_ASSERT_EQ(test, xa_err(xa_store(&xa, 42, reg, GFP_KERNEL)), 0);

	KUNIT_EXPECT_PTR_EQ(test, memreg_reg_lookup(&xa, reg->handle, mine),
			    reg);
	/* right id, wrong cookie */
	KUNIT_EXPECT_NULL(test, memreg_reg_lookup(&xa,
			memreg_handle_make(42, 0xc0ffef), mine));
	/* someone else's file, even with the full handle */
	KUNIT_EXPECT_NULL(test, memreg_reg_lookup(&xa, reg->handle, other));
	/* an id nobody has */
	KUNIT_EXPECT_NULL(test, memreg_reg_lookup(&xa,
			memreg_handle_make(43, 0xc0ffee), mine));
	KUNIT_EXPECT_NULL(test, memreg_reg_lookup(&xa, 0, mine));
	xa_destroy(&xa);
}

/* A walk callback that records ids and has room for @room of them. */
struct memreg_test_sink {
	unsigned long seen[64];
	unsigned int n;
	unsigned int room;
};

static int memreg_test_emit(void *entry, void *arg)
{
	struct memreg_test_sink *s = arg;

	if (s->n == s->room)
		return -ENOSPC;
	s->seen[s->n++] = xa_to_value(entry);
	return 0;
}

static void memreg_test_walk_resumes(struct kunit *test)
{
	struct memreg_test_sink sink = { .room = 3 };
	unsigned long cursor = 0, i;
	struct xarray xa;

	xa_init(&xa);	/* not DEFINE_XARRAY: its lock key must be static */
	for (i = 1; i <= 10; i++)
		KUNIT_ASSERT_EQ(test, xa_err(xa_store(&xa, i, xa_mk_value(i),
						      GFP_KERNEL)), 0);

	/* pieces of three: 1 2 3 | 4 5 6 | 7 8 9 | 10 */
	KUNIT_EXPECT_EQ(test, memreg_walk(&xa, &cursor, memreg_test_emit,
					  &sink), 3UL);
	KUNIT_EXPECT_EQ(test, cursor, 4UL);

	/* between pieces: 5 goes, 4 (at the cursor) and 12 (past it) change */
	xa_erase(&xa, 5);
	xa_store(&xa, 12, xa_mk_value(12), GFP_KERNEL);

	do {
		sink.room += 3;
	} while (memreg_walk(&xa, &cursor, memreg_test_emit, &sink));
	KUNIT_EXPECT_EQ(test, sink.n, 10U);
	{
		static const unsigned long want[] = {
			1, 2, 3, 4, 6, 7, 8, 9, 10, 12
		};

		for (i = 0; i < ARRAY_SIZE(want); i++)
			KUNIT_EXPECT_EQ(test, sink.seen[i], want[i]);
	}
	/* a finished walk stays finished */
	KUNIT_EXPECT_EQ(test, memreg_walk(&xa, &cursor, memreg_test_emit,
					  &sink), 0UL);
	xa_destroy(&xa);
}

static void memreg_test_walk_no_room(struct kunit *test)
{
	struct memreg_test_sink sink = { .room = 0 };
	unsigned long cursor = 0;
	struct xarray xa;

	xa_init(&xa);
	xa_store(&xa, 7, xa_mk_value(7), GFP_KERNEL);
	/* an entry that did not fit is not skipped */
	KUNIT_EXPECT_EQ(test, memreg_walk(&xa, &cursor, memreg_test_emit,
					  &sink), 0UL);
	KUNIT_EXPECT_EQ(test, cursor, 0UL);
	sink.room = 1;
	KUNIT_EXPECT_EQ(test, memreg_walk(&xa, &cursor, memreg_test_emit,
					  &sink), 1UL);
	KUNIT_EXPECT_EQ(test, sink.seen[0], 7UL);
	KUNIT_EXPECT_EQ(test, cursor, 8UL);
	xa_destroy(&xa);
}

/* A type whose registrations share pages, and one whose do not. */
static const struct memreg_mem_ops memreg_test_sharing = { .shares = true };
static const struct memreg_mem_ops memreg_test_apart = { .shares = false };

/* A registration of @ctx, as the register path has it before charging. */
static struct memreg_reg *memreg_test_reg(struct kunit *test,
					  struct memreg_ctx *ctx,
					  const struct memreg_mem_ops *ops,
					  u64 addr, u64 len)
{
	struct memreg_reg *reg = kunit_kzalloc(test, sizeof(*reg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, reg);
	refcount_set(&reg->users, 1);
	reg->ctx = ctx;
	reg->ops = ops;
	reg->addr = addr;
	reg->len = len;
	return reg;
}

/* The parent a registration of [@addr, +@len) would get; its ref back. */
static struct memreg_reg *memreg_test_parent(struct kunit *test,
					     struct memreg_ctx *ctx,
					     const struct memreg_mem_ops *ops,
					     u64 addr, u64 len)
{
	struct memreg_reg *reg = memreg_test_reg(test, ctx, ops, addr, len);
	struct memreg_reg *parent;

	memreg_share_find_parent(reg);
	parent = reg->parent;
	if (parent) {
		KUNIT_EXPECT_EQ(test, refcount_read(&parent->users), 2);
		refcount_dec(&parent->users);
	}
	return parent;
}

/*
 * Parents by page span: the first pinning registration that holds every
 * page, overlapping ones included; none across two, none of another
 * type, none once unregistered; children are not parents.
 */
static void memreg_test_share_index(struct kunit *test)
{
	struct memreg_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct memreg_reg *a, *b, *child;
	const u64 base = 0x7f0000000000ULL;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	spin_lock_init(&ctx->lock);
	ctx->shared = RB_ROOT_CACHED;
	/* a: 16 pages from base; b: 16 pages from page 8, over a's end */
	a = memreg_test_reg(test, ctx, &memreg_test_sharing, base,
			    16 * PAGE_SIZE);
	b = memreg_test_reg(test, ctx, &memreg_test_sharing,
			    base + 8 * PAGE_SIZE + 100, 16 * PAGE_SIZE - 100);
	memreg_share_add(a);
	memreg_share_add(b);

	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 1, PAGE_SIZE), a);
	/* in both: the one that starts first */
	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 9 * PAGE_SIZE, PAGE_SIZE), a);
	/* past a: b */
	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 16 * PAGE_SIZE, 8 * PAGE_SIZE), b);
	/* last pages of both, and one past b */
	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 23 * PAGE_SIZE, PAGE_SIZE), b);
	KUNIT_EXPECT_NULL(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 23 * PAGE_SIZE, PAGE_SIZE + 1));
	/* from before a, and across a and b */
	KUNIT_EXPECT_NULL(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base - 1, 2));
	KUNIT_EXPECT_NULL(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base, 24 * PAGE_SIZE));
	/* another type shares nothing */
	KUNIT_EXPECT_NULL(test, memreg_test_parent(test, ctx,
		&memreg_test_apart, base, PAGE_SIZE));

	/* a child is not indexed: its slice finds the pinning one */
	child = memreg_test_reg(test, ctx, &memreg_test_sharing,
				base + 2 * PAGE_SIZE, 4 * PAGE_SIZE);
	memreg_share_find_parent(child);
	KUNIT_EXPECT_PTR_EQ(test, child->parent, a);
	memreg_share_add(child);
	KUNIT_EXPECT_FALSE(test, child->shared);
	refcount_dec(&a->users);
	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 3 * PAGE_SIZE, PAGE_SIZE), a);

	/* a unregistered: b alone holds page 9, nothing holds page 1 */
	memreg_share_del(a);
	KUNIT_EXPECT_FALSE(test, a->shared);
	KUNIT_EXPECT_PTR_EQ(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 9 * PAGE_SIZE, PAGE_SIZE), b);
	KUNIT_EXPECT_NULL(test, memreg_test_parent(test, ctx,
		&memreg_test_sharing, base + 1, PAGE_SIZE));
	memreg_share_del(b);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&ctx->shared.rb_root));
}

static struct kunit_case memreg_test_cases[] = {
	KUNIT_CASE(memreg_test_range_rejects_malformed),
	KUNIT_CASE(memreg_test_range_counts_pages),
	KUNIT_CASE(memreg_test_range_inside),
	KUNIT_CASE(memreg_test_limits_count),
	KUNIT_CASE(memreg_test_limits_bytes),
	KUNIT_CASE(memreg_test_limits_no_bytes),
	KUNIT_CASE(memreg_test_limits_overflow),
	KUNIT_CASE(memreg_test_limits_shared),
	KUNIT_CASE(memreg_test_token_eq),
	KUNIT_CASE(memreg_test_fits),
	KUNIT_CASE(memreg_test_room_min),
	KUNIT_CASE(memreg_test_effective_limits),
	KUNIT_CASE(memreg_test_handle),
	KUNIT_CASE(memreg_test_handle_lookup),
	KUNIT_CASE(memreg_test_walk_resumes),
	KUNIT_CASE(memreg_test_walk_no_room),
	KUNIT_CASE(memreg_test_share_index),
	{}
};

static struct kunit_suite memreg_test_suite = {
	.name = "memreg",
	.test_cases = memreg_test_cases,
};
kunit_test_suite(memreg_test_suite);

MODULE_DESCRIPTION("KUnit tests for memreg");
MODULE_LICENSE("GPL");
