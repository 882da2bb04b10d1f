// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Two engines of this process over loopback TCP, with a fake module in
 * lib/core's ioctl hook: Connect's hello and imports, the descriptors
 * TransferSync hands the module (handles, addresses, op, batches of at
 * most MEMREG_XFER_MAX_DESCS), how the module's errors become statuses,
 * and notifies.  The fake (tests/unit/fake) copies the bytes itself, in
 * this process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "adxl_int.h"
#include "core.h"
#include "fake_kernel.h"
#include "tests.h"

/*
 * Names with ports picked at random: other runs of these tests (make check
 * of another checkout) may share the host's loopback.
 */
static char A[32], B[32];

struct pair {
	adxl_engine_t *a, *b;
	uint8_t *la, *rb;	/* A's local buffer, B's buffer */
	adxl_mem_handle_t ha, hb;
};

#define LEN	(1 << 20)

/* A (the client) initialised with @opts. */
static int setup_with(void **state, const struct adxl_option *opts, size_t n)
{
	struct pair *p = calloc(1, sizeof(*p));
	struct adxl_mem_desc d;
	int tries;

	srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
	if (fake_kernel_setup())
		return -1;
	fake_set_instance(0x42);
	/* The module's errors the tests inject come at the 2nd descriptor. */
	fake.fail_at[FAKE_TRANSFER] = 1;
	p->la = malloc(LEN);
	p->rb = malloc(LEN);
	if (adxl_engine_create(&p->a) || adxl_engine_create(&p->b))
		return -1;
	for (tries = 0;; tries++) {
		unsigned int port = 20000 + (unsigned int)rand() % 40000;

		snprintf(A, sizeof(A), "127.0.0.1:%u", port);
		snprintf(B, sizeof(B), "127.0.0.1:%u", port + 1);
		if (!adxl_initialize(p->a, A, opts, n)) {
			if (!adxl_initialize(p->b, B, NULL, 0))
				break;
			adxl_finalize(p->a);
		}
		if (tries == 50)
			return -1;
	}
	d = (struct adxl_mem_desc){ (uintptr_t)p->la, LEN };
	if (adxl_register_mem(p->a, &d, ADXL_MEM_HOST, &p->ha))
		return -1;
	d = (struct adxl_mem_desc){ (uintptr_t)p->rb, LEN };
	if (adxl_register_mem(p->b, &d, ADXL_MEM_HOST, &p->hb))
		return -1;
	*state = p;
	return adxl_connect(p->a, B, 2000) ? -1 : 0;
}

static int setup(void **state)
{
	return setup_with(state, NULL, 0);
}

/* A with a buffer pool of 3 buffers of 1 MiB. */
static int setup_pool(void **state)
{
	static const struct adxl_option pool = { "BufferPool", "3:1" };

	return setup_with(state, &pool, 1);
}

/* A without a buffer pool. */
static int setup_no_pool(void **state)
{
	static const struct adxl_option pool = { "adxl.BufferPool", "0:0" };

	return setup_with(state, &pool, 1);
}

/* A with the options that choose hixl's client/server engine. */
static int setup_cs(void **state)
{
	static const struct adxl_option cs = {
		"LocalCommRes", "{\"version\": \"1.3\"}"
	};

	return setup_with(state, &cs, 1);
}

static int teardown(void **state)
{
	struct pair *p = *state;

	adxl_engine_destroy(p->a);
	adxl_engine_destroy(p->b);
	free(p->la);
	free(p->rb);
	free(p);
	fake_kernel_teardown();
	return 0;
}

static void test_descriptors_reach_the_module(void **state)
{
	struct pair *p = *state;
	struct adxl_transfer_desc d[3];
	unsigned long before;
	int i;

	for (i = 0; i < LEN; i++)
		p->rb[i] = (uint8_t)(i * 7);
	memset(p->la, 0, LEN);
	/* Out of order, odd sizes. */
	d[0] = (struct adxl_transfer_desc){ (uintptr_t)p->la + 1, (uintptr_t)p->rb + 9000, 3 };
	d[1] = (struct adxl_transfer_desc){ (uintptr_t)p->la + 100, (uintptr_t)p->rb, 4096 };
	d[2] = (struct adxl_transfer_desc){ (uintptr_t)p->la + LEN - 1, (uintptr_t)p->rb + LEN - 1, 1 };
	before = fake_calls(FAKE_TRANSFER);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 3, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(fake_calls(FAKE_TRANSFER) - before, 1);
	assert_int_equal(fake.xfer.count, 3);
	/* A's registration was made first, B's second (imported by A). */
	assert_int_equal(fake.xfer.first.op, MEMREG_XFER_READ);
	assert_int_equal(fake.xfer.first.local_handle, fake_handle(0));
	assert_int_equal(fake.xfer.first.remote_handle,
			 fake_import_handle(fake_handle(1)));
	assert_int_equal(fake.xfer.first.local_addr, (uintptr_t)p->la + 1);
	assert_int_equal(fake.xfer.first.remote_addr, (uintptr_t)p->rb + 9000);
	assert_int_equal(fake.xfer.first.len, 3);
	assert_memory_equal(p->la + 1, p->rb + 9000, 3);
	assert_memory_equal(p->la + 100, p->rb, 4096);
	assert_int_equal(p->la[LEN - 1], p->rb[LEN - 1]);
	assert_int_equal(p->la[0], 0);

	/* WRITE goes the other way. */
	memset(p->la, 0xee, 64);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, d, 1, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(fake.xfer.first.op, MEMREG_XFER_WRITE);
	assert_int_equal(p->rb[9000], 0xee);
}

static void test_batches(void **state)
{
	size_t n = MEMREG_XFER_MAX_DESCS + 4464, i;
	struct adxl_transfer_desc *d = calloc(n, sizeof(*d));
	struct pair *p = *state;
	struct timespec t0, t1;
	unsigned long before;

	for (i = 0; i < n; i++)
		d[i] = (struct adxl_transfer_desc){ (uintptr_t)p->la + i % LEN,
						    (uintptr_t)p->rb + i % LEN, 1 };
	before = fake_calls(FAKE_TRANSFER);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, n, 10000),
			 ADXL_SUCCESS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* As few ioctls as the module allows: 65536, then the rest. */
	assert_int_equal(fake_calls(FAKE_TRANSFER) - before, 2);
	assert_int_equal(fake.xfer.count, 4464);
	printf("# library: %.0f ns per descriptor resolved (fake module)\n",
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n);
	free(d);
}

static void test_module_errors(void **state)
{
	struct pair *p = *state;
	struct adxl_transfer_desc d[2] = {
		{ (uintptr_t)p->la, (uintptr_t)p->rb, 8 },
		{ (uintptr_t)p->la + 8, (uintptr_t)p->rb + 8, 8 },
	};

	fake.fail_errno[FAKE_TRANSFER] = EKEYREVOKED;
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 2, 1000),
			 ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "descriptor 1"));
	assert_non_null(strstr(adxl_last_error(), "revoked"));
	fake.fail_errno[FAKE_TRANSFER] = ERANGE;
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 2, 1000),
			 ADXL_PARAM_INVALID);
	fake.fail_errno[FAKE_TRANSFER] = EINTR;
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 2, 1000),
			 ADXL_FAILED);
	/* And the next transfer works again. */
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 2, 1000),
			 ADXL_SUCCESS);
}

static void test_later_registration_invisible(void **state)
{
	struct pair *p = *state;
	static uint8_t late[4096];
	struct adxl_mem_desc m = { (uintptr_t)late, sizeof(late) };
	struct adxl_transfer_desc d = { (uintptr_t)p->la, (uintptr_t)late, 16 };
	adxl_mem_handle_t h;

	assert_int_equal(adxl_register_mem(p->b, &m, ADXL_MEM_HOST, &h),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
	/* Deregistered by the owner: not in the table of the next Connect. */
	assert_int_equal(adxl_deregister_mem(p->b, h), ADXL_SUCCESS);
	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
}

struct seen {
	int n;
	char name[16], msg[16];
};

static void on_notify(const char *name, size_t nl, const char *msg, size_t ml,
		      void *arg)
{
	struct seen *s = arg;

	if (s->n++ == 0) {
		snprintf(s->name, sizeof(s->name), "%.*s", (int)nl, name);
		snprintf(s->msg, sizeof(s->msg), "%.*s", (int)ml, msg);
	}
}

static void test_notifies_in_order(void **state)
{
	struct pair *p = *state;
	struct seen s = { 0 };

	assert_int_equal(adxl_send_notify(p->a, B, "kv", 2, "ready", 5, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_send_notify(p->a, B, "kv", 2, "again", 5, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_get_notifies(p->b, on_notify, &s), ADXL_SUCCESS);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.name, "kv");
	assert_string_equal(s.msg, "ready");
	/* A's own listener received nothing. */
	s.n = 0;
	assert_int_equal(adxl_get_notifies(p->a, on_notify, &s), ADXL_SUCCESS);
	assert_int_equal(s.n, 0);
}

/*
 * A notify whose SendNotify timed out is never handed out: B's listener
 * is held up (its notify lock taken here) until A's timeout passed; when
 * it goes on, it has the notify, acks it late, and A never commits it.
 * The next notify is delivered, and only it.
 */
static void test_notify_that_times_out_is_never_delivered(void **state)
{
	struct pair *p = *state;
	struct seen s = { 0 };
	adxl_status_t st;

	pthread_mutex_lock(&p->b->notify_lock);
	st = adxl_send_notify(p->a, B, "late", 4, "m", 1, 100);
	pthread_mutex_unlock(&p->b->notify_lock);
	assert_int_equal(st, ADXL_TIMEOUT);
	usleep(200000);
	assert_int_equal(adxl_get_notifies(p->b, on_notify, &s), ADXL_SUCCESS);
	assert_int_equal(s.n, 0);

	assert_int_equal(adxl_send_notify(p->a, B, "next", 4, "m", 1, 1000),
			 ADXL_SUCCESS);
	usleep(100000);
	assert_int_equal(adxl_get_notifies(p->b, on_notify, &s), ADXL_SUCCESS);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.name, "next");
}

/*
 * hixl's TestAdxlEngineSendNotifyTimeout sends with 1 ms and expects
 * TIMEOUT and nothing delivered; that comes of hixl counting the send in
 * microseconds (docs/adxl.md, "Notifies").  Here 1 ms is a millisecond:
 * on loopback the exchange may well fit, and what counts is that exactly
 * the notifies that returned SUCCESS are delivered.
 */
static void test_short_notify_timeouts_deliver_exactly_the_successes(void **state)
{
	struct pair *p = *state;
	struct seen s = { 0 };
	int i, ok = 0, timeouts = 0;

	for (i = 0; i < 50; i++) {
		adxl_status_t st = adxl_send_notify(p->a, B, "t", 1, "m", 1, 1);

		if (st == ADXL_SUCCESS)
			ok++;
		else if (st == ADXL_TIMEOUT)
			timeouts++;
		else
			fail_msg("SendNotify with 1 ms: status %u", st);
	}
	usleep(100000);
	assert_int_equal(adxl_get_notifies(p->b, on_notify, &s), ADXL_SUCCESS);
	printf("# 1 ms notifies: %d SUCCESS, %d TIMEOUT, %d delivered\n", ok,
	       timeouts, s.n);
	assert_int_equal(s.n, ok);
}

/* What the fake module saw of A's staged transfers. */
struct staged {
	struct adxl_engine *e;
	unsigned long calls;
	unsigned int used;	/* a bit per pool buffer a descriptor used */
	size_t max_len;
	bool outside;		/* a local range not in the pool */
};

static void on_staged(const struct memreg_xfer_desc *d, uint32_t n, void *arg)
{
	struct staged *s = arg;
	uintptr_t pool = (uintptr_t)s->e->pool_mem;
	size_t buf = s->e->pool_buf;
	uint32_t i;

	s->calls++;
	for (i = 0; i < n; i++) {
		uintptr_t at = d[i].local_addr;

		if (at < pool || at + d[i].len > pool + s->e->pool_n * buf ||
		    (at - pool) / buf != (at + d[i].len - 1 - pool) / buf)
			s->outside = true;
		else
			s->used |= 1U << ((at - pool) / buf);
		if (d[i].len > s->max_len)
			s->max_len = d[i].len;
	}
}

/* B registers [@mem, +@len) as @type; A connects again to see it. */
static adxl_mem_handle_t b_registers(struct pair *p, void *mem, size_t len,
				     enum adxl_mem_type type)
{
	struct adxl_mem_desc m = { (uintptr_t)mem, len };
	adxl_mem_handle_t h;

	assert_int_equal(adxl_register_mem(p->b, &m, type, &h), ADXL_SUCCESS);
	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect(p->a, B, 2000), ADXL_SUCCESS);
	return h;
}

static void fill(uint8_t *m, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		m[i] = (uint8_t)(i * 7 + seed + (i >> 12));
}

/*
 * hixl's buffer pool (BufferPool "3:1" here): a TransferSync from or into
 * host memory that is not registered goes through the pool's registered
 * buffers, in pieces of at most a buffer, every buffer used, both ways,
 * byte for byte; one large range and many small ones, alone or beside a
 * registered one.  The pool is registered on first use only, and never
 * announced to peers.
 */
static void test_unregistered_host_memory_is_staged_through_the_pool(void **state)
{
	size_t size = (5 << 20) + 12345, n = 3000, i;
	struct pair *p = *state;
	struct staged s = { .e = p->a };
	struct adxl_transfer_desc d, *many, two[2];
	uint8_t *u = malloc(size), *r = malloc(size);
	size_t *perm = calloc(n, sizeof(*perm));
	struct adxl_peer *peer;
	adxl_mem_handle_t h;

	assert_non_null(u);
	assert_non_null(r);
	assert_null(p->a->pool_mem);
	h = b_registers(p, r, size, ADXL_MEM_HOST);
	fake.xfer.seen = on_staged;
	fake.xfer.arg = &s;

	/* One range of 5 MiB and a bit: two rounds of the three buffers. */
	fill(u, size, 1);
	memset(r, 0, size);
	d = (struct adxl_transfer_desc){ (uintptr_t)u, (uintptr_t)r, size };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, &d, 1, 5000),
			 ADXL_SUCCESS);
	assert_memory_equal(r, u, size);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.used, 7);
	assert_int_equal(s.max_len, 1 << 20);
	assert_false(s.outside);

	fill(r, size, 2);
	memset(u, 0, size);
	s = (struct staged){ .e = p->a };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 5000),
			 ADXL_SUCCESS);
	assert_memory_equal(u, r, size);
	assert_int_equal(s.calls, 2);
	assert_int_equal(s.used, 7);
	assert_false(s.outside);

	/* 3000 small ranges, shuffled, odd lengths: packed into buffers. */
	many = calloc(n, sizeof(*many));
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) {
		size_t j = (size_t)rand() % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		many[i] = (struct adxl_transfer_desc){
			(uintptr_t)u + i * 1500,
			(uintptr_t)r + perm[i] * 1500, 1000 + i % 500,
		};
	fill(r, size, 3);
	memset(u, 0, size);
	s = (struct staged){ .e = p->a };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, many, n,
					    5000), ADXL_SUCCESS);
	for (i = 0; i < n; i++) {
		assert_memory_equal(u + i * 1500, r + perm[i] * 1500,
				    many[i].len);
		/* between the ranges: untouched */
		assert_int_equal(u[i * 1500 + many[i].len], 0);
	}
	assert_int_equal(s.calls, 2);	/* 3.75 MB: all three, then one */
	assert_int_equal(s.used, 7);
	assert_false(s.outside);
	fill(u, size, 4);
	memset(r, 0, size);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, many, n,
					    5000), ADXL_SUCCESS);
	for (i = 0; i < n; i++)
		assert_memory_equal(r + perm[i] * 1500, u + i * 1500,
				    many[i].len);

	/* Beside a registered range of the same kind: the batch is staged. */
	fill(p->la, 4096, 5);
	fill(u, 4096, 6);
	memset(r, 0, 8192);
	two[0] = (struct adxl_transfer_desc){ (uintptr_t)p->la, (uintptr_t)r, 4096 };
	two[1] = (struct adxl_transfer_desc){ (uintptr_t)u, (uintptr_t)r + 4096, 4096 };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, two, 2, 1000),
			 ADXL_SUCCESS);
	assert_memory_equal(r, p->la, 4096);
	assert_memory_equal(r + 4096, u, 4096);
	fake.xfer.seen = NULL;

	/* The pool is A's alone: a peer that connects is not told of it. */
	assert_non_null(p->a->pool_mem);
	assert_int_equal(adxl_connect(p->b, A, 2000), ADXL_SUCCESS);
	peer = adxl__peer_get(p->b, A);
	assert_non_null(peer);
	assert_int_equal(peer->n_rregs, 1);
	assert_int_equal(peer->rregs[0].addr, (uintptr_t)p->la);
	adxl__peer_put(p->b, peer);

	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_deregister_mem(p->b, h), ADXL_SUCCESS);
	free(many);
	free(perm);
	free(u);
	free(r);
}

/* "0:0": no pool, and memory not registered is refused as before. */
static void test_buffer_pool_0_0_refuses_memory_not_registered(void **state)
{
	struct pair *p = *state;
	static uint8_t u[4096];
	struct adxl_transfer_desc d = { (uintptr_t)u, (uintptr_t)p->rb, 4096 };

	assert_int_equal(p->a->pool_n, 0);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_non_null(strstr(adxl_last_error(), "not inside memory registered"));
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_null(p->a->pool_mem);
	d.local_addr = (uintptr_t)p->la;
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
}

/*
 * The default pool (4:8) stages, but only our memory: the peer's must be
 * registered (hixl would stage it there too); and a staged batch moves
 * one kind of memory, as hixl's buffer mode wants.
 */
static void test_staged_batch_needs_peer_memory_and_one_kind(void **state)
{
	struct pair *p = *state;
	static uint8_t u[8192], other[4096];
	struct adxl_transfer_desc d[2];
	struct memreg_dev_mem dev;
	adxl_mem_handle_t h;

	assert_int_equal(p->a->pool_n, 4);
	assert_int_equal(p->a->pool_buf, 8 << 20);
	d[0] = (struct adxl_transfer_desc){ (uintptr_t)u, (uintptr_t)other, 64 };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_non_null(strstr(adxl_last_error(),
				"stages only this engine's memory"));

	assert_int_equal(memreg_dev_alloc(p->b->ctx, 0,
					  MEMREG_DEV_NORMAL_ONLY, 1 << 16,
					  &dev), 0);
	h = b_registers(p, dev.addr, dev.len, ADXL_MEM_DEVICE);
	d[0] = (struct adxl_transfer_desc){ (uintptr_t)u, (uintptr_t)p->rb, 4096 };
	d[1] = (struct adxl_transfer_desc){ (uintptr_t)u + 4096,
					    (uintptr_t)dev.addr, 4096 };
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, d, 2, 1000),
			 ADXL_PARAM_INVALID);
	assert_non_null(strstr(adxl_last_error(), "same kind"));
	/* all host to device: one kind, staged */
	fill(u, sizeof(u), 7);
	d[0].remote_addr = (uintptr_t)dev.addr + 8192;
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_WRITE, d, 2, 1000),
			 ADXL_SUCCESS);
	assert_memory_equal((uint8_t *)dev.addr + 8192, u, 4096);
	assert_memory_equal(dev.addr, u + 4096, 4096);

	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_deregister_mem(p->b, h), ADXL_SUCCESS);
	assert_int_equal(memreg_dev_free(p->b->ctx, &dev), 0);
}

static enum adxl_connect_status wait_status(adxl_engine_t *e, const char *name,
					    enum adxl_connect_status want)
{
	enum adxl_connect_status st = ADXL_CONN_NOT_CONNECT;
	int i;

	for (i = 0; i < 500; i++) {
		assert_int_equal(adxl_get_async_connect_status(e, name, &st),
				 ADXL_SUCCESS);
		if (st == want)
			break;
		usleep(10000);
	}
	return st;
}

struct conn_seen {
	int n;
	char name[64];
	enum adxl_connect_status st;
};

static void on_conn(const char *name, enum adxl_connect_status st, void *arg)
{
	struct conn_seen *s = arg;

	s->n++;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->st = st;
}

static void test_connect_async(void **state)
{
	struct pair *p = *state;
	struct conn_seen s = { 0 };
	struct adxl_transfer_desc d = { (uintptr_t)p->la, (uintptr_t)p->rb, 8 };
	enum adxl_connect_status st;
	adxl_engine_t *idle;
	char nobody[32];

	/* Bad calls. */
	assert_int_equal(adxl_connect_async(p->a, B, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_connect_async(p->a, "no name", 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect_async(p->a, NULL, 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_get_async_connect_status(p->a, B, NULL),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_get_async_connect_statuses(p->a, NULL, NULL),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_engine_create(&idle), ADXL_SUCCESS);
	assert_int_equal(adxl_connect_async(idle, B, 1000), ADXL_FAILED);
	adxl_engine_destroy(idle);

	/* Nothing asked yet: NOT_CONNECT, though setup connected A to B. */
	assert_int_equal(adxl_get_async_connect_status(p->a, B, &st),
			 ADXL_SUCCESS);
	assert_int_equal(st, ADXL_CONN_NOT_CONNECT);
	assert_int_equal(adxl_get_async_connect_statuses(p->a, on_conn, &s),
			 ADXL_SUCCESS);
	assert_int_equal(s.n, 0);

	/* Disconnect in the background; transfers then find no peer. */
	assert_int_equal(adxl_disconnect_async(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(wait_status(p->a, B, ADXL_CONN_NOT_CONNECT),
			 ADXL_CONN_NOT_CONNECT);
	/* The worker may still be between its status and the next task. */
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_NOT_CONNECTED);

	/* Connect in the background. */
	assert_int_equal(adxl_connect_async(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(wait_status(p->a, B, ADXL_CONN_CONNECTED),
			 ADXL_CONN_CONNECTED);
	assert_int_equal(adxl_connect(p->a, B, 1000), ADXL_ALREADY_CONNECTED);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_get_async_connect_statuses(p->a, on_conn, &s),
			 ADXL_SUCCESS);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.name, B);
	assert_int_equal(s.st, ADXL_CONN_CONNECTED);
	/* Connecting again is no failure. */
	assert_int_equal(adxl_connect_async(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(wait_status(p->a, B, ADXL_CONN_CONNECTED),
			 ADXL_CONN_CONNECTED);

	/* Nobody listens on B's port + 1 (almost surely): CONNECT_FAILED. */
	snprintf(nobody, sizeof(nobody), "127.0.0.1:%d",
		 atoi(strchr(B, ':') + 1) + 1);
	assert_int_equal(adxl_connect_async(p->a, nobody, 300), ADXL_SUCCESS);
	assert_int_equal(wait_status(p->a, nobody, ADXL_CONN_CONNECT_FAILED),
			 ADXL_CONN_CONNECT_FAILED);

	/* A connect overtaken by a disconnect ends not connected. */
	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect_async(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_disconnect_async(p->a, B, 1000), ADXL_SUCCESS);
	assert_int_equal(wait_status(p->a, B, ADXL_CONN_NOT_CONNECT),
			 ADXL_CONN_NOT_CONNECT);
	usleep(50000);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_NOT_CONNECTED);

	/*
	 * Finalize with work queued: dropped, no leak (ASan); the states
	 * go with the engine (hixl: FAILED once finalized).
	 */
	assert_int_equal(adxl_connect_async(p->a, B, 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect_async(p->a, nobody, 300), ADXL_SUCCESS);
	adxl_finalize(p->a);
	assert_int_equal(adxl_get_async_connect_status(p->a, B, &st),
			 ADXL_FAILED);
}

/* Connect of B on a thread of its own: what it answered. */
struct connector {
	adxl_engine_t *e;
	adxl_status_t st;
};

static void *connect_b(void *arg)
{
	struct connector *c = arg;

	c->st = adxl_connect(c->e, B, 300);
	return NULL;
}

/* Whether A's entry for B is marked dead (looked at under a reference). */
static bool peer_b_dead(adxl_engine_t *a)
{
	struct adxl_peer *pb = adxl__peer_get(a, B);
	bool dead = pb && adxl__peer_dead(pb);

	if (pb)
		adxl__peer_put(a, pb);
	return dead;
}

/*
 * Connect and Disconnect of one peer on two threads, as docs/adxl.md
 * ("Threads") allows.  Connect looks at the entry it finds (its socket,
 * its link) before it answers ALREADY_CONNECTED or replaces it; a
 * Disconnect on another thread may drop that entry meanwhile, and Connect
 * must not read or write it after that.
 *
 * To hold Connect inside that window every time: B's engine goes away,
 * so that Connect finds A's control connection closed and says so on
 * stderr, which is a pipe the test has filled.  Connect blocks in that
 * write with the entry in hand; Disconnect runs; then the pipe is
 * drained.  A Connect that did not hold the entry reads freed memory
 * (ASan: heap-use-after-free in adxl__connect_locked).
 */
static void test_connect_races_disconnect(void **state)
{
	struct pair *p = *state;
	struct adxl_transfer_desc d = { (uintptr_t)p->la, (uintptr_t)p->rb, 64 };
	struct connector c = { .e = p->a, .st = ADXL_SUCCESS };
	struct adxl_mem_desc md = { (uintptr_t)p->rb, LEN };
	int pipefd[2], saved, i;
	char junk[4096];
	pthread_t t;

	/* B's engine goes: A's control connection to it is closed. */
	adxl_finalize(p->b);
	usleep(50000);

	/* stderr: a pipe nobody reads, full. */
	fflush(stderr);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(pipe2(pipefd, O_NONBLOCK), 0);
	memset(junk, '#', sizeof(junk));
	while (write(pipefd[1], junk, sizeof(junk)) > 0)
		;
	assert_int_equal(fcntl(pipefd[1], F_SETFL, 0), 0);
	assert_true(dup2(pipefd[1], 2) == 2);

	assert_int_equal(pthread_create(&t, NULL, connect_b, &c), 0);
	/* Connect found the entry dead and is writing why: it blocks. */
	for (i = 0; i < 500 && !peer_b_dead(p->a); i++)
		usleep(1000);
	usleep(20000);
	assert_int_equal(adxl_disconnect(p->a, B, 1000), ADXL_SUCCESS);

	/* Connect goes on; nothing listens at B now. */
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	assert_int_equal(fcntl(pipefd[0], F_SETFL, 0), 0);
	while (read(pipefd[0], junk, sizeof(junk)) == (ssize_t)sizeof(junk))
		;
	close(pipefd[1]);
	while (read(pipefd[0], junk, sizeof(junk)) > 0)
		;
	close(pipefd[0]);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(c.st, ADXL_FAILED);
	assert_true(i < 500);

	/* B again at its name: a Connect reaches it and transfers. */
	assert_int_equal(adxl_initialize(p->b, B, NULL, 0), ADXL_SUCCESS);
	assert_int_equal(adxl_register_mem(p->b, &md, ADXL_MEM_HOST, &p->hb),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_connect(p->a, B, 2000), ADXL_SUCCESS);
	memset(p->rb, 0x5a, 64);
	memset(p->la, 0, 64);
	assert_int_equal(adxl_transfer_sync(p->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
	assert_memory_equal(p->la, p->rb, 64);
}

struct results {
	int n;
	struct adxl_transfer_result r[8];
};

static void on_result(const struct adxl_transfer_result *r, void *arg)
{
	struct results *res = arg;

	if (res->n < 8)
		res->r[res->n] = *r;
	res->n++;
}

static void test_transfer_statuses(void **state)
{
	struct pair *p = *state;
	struct adxl_transfer_desc d = { (uintptr_t)p->la, (uintptr_t)p->rb, 64 };
	static const int tag[3];
	adxl_transfer_req_t req[3];
	enum adxl_transfer_status ts;
	struct results res;
	int i, got = 0;

	assert_int_equal(adxl_get_transfer_statuses(p->a, 10, 0, NULL, NULL),
			 ADXL_PARAM_INVALID);
	for (i = 0; i < 3; i++) {
		p->rb[i] = (uint8_t)(i + 1);
		assert_int_equal(adxl_transfer_async_ex(p->a, B, ADXL_READ, &d,
							1, &tag[i], &req[i]),
				 ADXL_SUCCESS);
	}
	/* No count: nothing reported, nothing released. */
	memset(&res, 0, sizeof(res));
	assert_int_equal(adxl_get_transfer_statuses(p->a, 0, 0, on_result, &res),
			 ADXL_SUCCESS);
	assert_int_equal(res.n, 0);

	/* One at a time as they finish: oldest first, with their data. */
	for (i = 0; i < 500 && got < 3; i++) {
		memset(&res, 0, sizeof(res));
		assert_int_equal(adxl_get_transfer_statuses(p->a, 1, 1,
							    on_result, &res),
				 ADXL_SUCCESS);
		assert_true(res.n <= 1);
		if (!res.n) {
			usleep(10000);
			continue;
		}
		assert_ptr_equal(res.r[0].req, req[got]);
		assert_ptr_equal(res.r[0].user_data, &tag[got]);
		assert_int_equal(res.r[0].status, ADXL_TRANSFER_COMPLETED);
		got++;
	}
	assert_int_equal(got, 3);
	/* Released: the single query no longer knows them (hixl's code). */
	ts = ADXL_TRANSFER_WAITING;
	assert_int_equal(adxl_get_transfer_status(p->a, req[0], &ts),
			 ADXL_PARAM_INVALID);
	assert_int_equal(ts, ADXL_TRANSFER_FAILED);
	memset(&res, 0, sizeof(res));
	assert_int_equal(adxl_get_transfer_statuses(p->a, UINT32_MAX, 0,
						    on_result, &res),
			 ADXL_SUCCESS);
	assert_int_equal(res.n, 0);

	/* A failed transfer: FAILED in the batch, the call succeeds. */
	fake.fail_errno[FAKE_TRANSFER] = EFAULT;
	{
		struct adxl_transfer_desc two[2] = { d, d };

		assert_int_equal(adxl_transfer_async_ex(p->a, B, ADXL_READ, two,
							2, NULL, &req[0]),
				 ADXL_SUCCESS);
	}
	for (i = 0; i < 500; i++) {
		memset(&res, 0, sizeof(res));
		assert_int_equal(adxl_get_transfer_statuses(p->a, 8, 1,
							    on_result, &res),
				 ADXL_SUCCESS);
		if (res.n)
			break;
		usleep(10000);
	}
	assert_int_equal(res.n, 1);
	assert_ptr_equal(res.r[0].req, req[0]);
	assert_null(res.r[0].user_data);
	assert_int_equal(res.r[0].status, ADXL_TRANSFER_FAILED);
}

int test_engine_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_descriptors_reach_the_module,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_later_registration_invisible,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_notifies_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_notify_that_times_out_is_never_delivered,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_notify_timeouts_deliver_exactly_the_successes,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unregistered_host_memory_is_staged_through_the_pool,
						setup_pool, teardown),
		cmocka_unit_test_setup_teardown(test_buffer_pool_0_0_refuses_memory_not_registered,
						setup_no_pool, teardown),
		cmocka_unit_test_setup_teardown(test_staged_batch_needs_peer_memory_and_one_kind,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_connect_async, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_connect_races_disconnect,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_transfer_statuses, setup_cs,
						teardown),
	};

	return cmocka_run_group_tests_name("adxl engines on a fake module",
					   tests, NULL, NULL);
}
