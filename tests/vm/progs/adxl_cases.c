// SPDX-License-Identifier: GPL-2.0
/*
 * adxl_cases - the ADXL statuses of the reference against the real module,
 * and the module's refusals as libmemreg reports them: engines in this
 * process talk over loopback TCP; a forked engine plays a peer that dies.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <memreg/memreg.h>

#include "adxl_testlib.h"

#define E1	"127.0.0.1:27101"
#define E2	"127.0.0.1:27102"
#define BUF	(1 << 20)

static adxl_engine_t *e1, *e2;
static struct atl_mem b1, b2;
static adxl_mem_handle_t h1, h2;

static adxl_engine_t *engine(const char *name, const struct adxl_option *o,
			     size_t n)
{
	adxl_engine_t *e;

	assert_int_equal(adxl_engine_create(&e), ADXL_SUCCESS);
	assert_int_equal(adxl_initialize(e, name, o, n), ADXL_SUCCESS);
	return e;
}

static adxl_mem_handle_t reg(adxl_engine_t *e, void *addr, size_t len)
{
	struct adxl_mem_desc d = { (uintptr_t)addr, len };
	adxl_mem_handle_t h = NULL;

	assert_int_equal(adxl_register_mem(e, &d, ADXL_MEM_HOST, &h),
			 ADXL_SUCCESS);
	return h;
}

static int group_setup(void **state)
{
	/* no buffer pool: memory not registered is refused (the pool: below) */
	static const struct adxl_option no_pool = { "BufferPool", "0:0" };

	(void)state;
	e1 = engine(E1, &no_pool, 1);
	e2 = engine(E2, NULL, 0);
	if (atl_alloc(&b1, ADXL_MEM_HOST, BUF) || atl_alloc(&b2, ADXL_MEM_HOST, BUF))
		return -1;
	atl_fill(b1.addr, BUF, 1, 0);
	atl_fill(b2.addr, BUF, 2, 0);
	h1 = reg(e1, b1.addr, BUF);
	h2 = reg(e2, b2.addr, BUF);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	adxl_engine_destroy(e1);
	adxl_engine_destroy(e2);
	atl_free(&b1);
	atl_free(&b2);
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The kernel's registration limit: RESOURCE_EXHAUSTED, and why. */
static void test_registration_limit(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	/* A child of its own, so that its count starts at 0. */
	pid = fork();
	if (pid == 0) {
		struct memreg_lib_info info;
		struct memreg_ctx *ctx;
		adxl_engine_t *e;
		uint8_t *p;
		adxl_mem_handle_t h;
		struct adxl_mem_desc d;
		size_t i, max;

		if (memreg_open(&ctx) || memreg_info(ctx, &info))
			_exit(10);
		max = info.max_regions - info.regions;
		if (adxl_engine_create(&e) || adxl_initialize(e, "127.0.0.1", NULL, 0))
			_exit(11);
		p = mmap(NULL, (max + 1) * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		for (i = 0; i < max; i++) {
			d = (struct adxl_mem_desc){ (uintptr_t)(p + i * 4096), 4096 };
			if (adxl_register_mem(e, &d, ADXL_MEM_HOST, &h))
				_exit(12);
		}
		d = (struct adxl_mem_desc){ (uintptr_t)(p + max * 4096), 4096 };
		if (adxl_register_mem(e, &d, ADXL_MEM_HOST, &h) !=
		    ADXL_RESOURCE_EXHAUSTED)
			_exit(13);
		if (!strstr(adxl_last_error(), "registration limit"))
			_exit(14);
		adxl_engine_destroy(e);
		_exit(info.max_regions == 256 ? 0 : 15);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_register_checks(void **state)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h, again;
	uint8_t *p;

	(void)state;
	d = (struct adxl_mem_desc){ 0, 4096 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &h),
			 ADXL_PARAM_INVALID);
	d = (struct adxl_mem_desc){ (uintptr_t)b1.addr, 0 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &h),
			 ADXL_PARAM_INVALID);
	d = (struct adxl_mem_desc){ UINTPTR_MAX - 100, 4096 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &h),
			 ADXL_PARAM_INVALID);

	/* Not mapped: the module's EFAULT. */
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	munmap(p, 8192);
	d = (struct adxl_mem_desc){ (uintptr_t)p, 8192 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &h),
			 ADXL_PARAM_INVALID);
	/* Host memory as DEVICE: the module's ENXIO. */
	d = (struct adxl_mem_desc){ (uintptr_t)b1.addr, 4096 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_DEVICE, &h),
			 ADXL_PARAM_INVALID);

	/* The same range again: the same handle; an overlap: refused. */
	d = (struct adxl_mem_desc){ (uintptr_t)b1.addr, BUF };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &again),
			 ADXL_SUCCESS);
	assert_ptr_equal(again, h1);
	d = (struct adxl_mem_desc){ (uintptr_t)b1.addr + 4096, 4096 };
	assert_int_equal(adxl_register_mem(e1, &d, ADXL_MEM_HOST, &h),
			 ADXL_PARAM_INVALID);
	/* Counted: one Deregister leaves it registered. */
	assert_int_equal(adxl_deregister_mem(e1, again), ADXL_SUCCESS);
	assert_int_equal(adxl_deregister_mem(e1, (adxl_mem_handle_t)0x7777),
			 ADXL_SUCCESS);
}

static void test_connect_statuses(void **state)
{
	struct adxl_transfer_desc d = { (uintptr_t)b1.addr, (uintptr_t)b2.addr, 64 };

	(void)state;
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_send_notify(e1, E2, "n", 1, "m", 1, 1000),
			 ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_connect(e1, E2, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_connect(e1, E2, -1), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(e1, E2, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_connect(e1, "127.0.0.1", 1000), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_connect(e1, "no.such:1", 1000), ADXL_PARAM_INVALID);

	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_ALREADY_CONNECTED);
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 0),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_NOT_CONNECTED);
}

/* Names are identities: a listener answers only to its own name. */
static void test_wrong_name(void **state)
{
	adxl_engine_t *any = engine("0.0.0.0:27105", NULL, 0);

	(void)state;
	assert_int_equal(adxl_connect(e1, "127.0.0.1:27105", 2000), ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "named 0.0.0.0:27105"));
	assert_int_equal(adxl_connect(e1, "0.0.0.0:27105", 2000), ADXL_SUCCESS);
	assert_int_equal(adxl_disconnect(e1, "0.0.0.0:27105", 1000),
			 ADXL_SUCCESS);
	adxl_engine_destroy(any);
}

static void test_timeouts(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(27199) };
	int64_t t0, dt;
	int fd, one = 1;

	(void)state;
	/* A port that accepts TCP but never answers the hello. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(fd, 4), 0);
	t0 = now_ms();
	assert_int_equal(adxl_connect(e1, "127.0.0.1:27199", 300), ADXL_TIMEOUT);
	dt = now_ms() - t0;
	assert_in_range(dt, 290, 3000);
	close(fd);

	/*
	 * Nothing listening at all: retried until the deadline, then a
	 * failure, not a timeout (hixl: FAILED).
	 */
	t0 = now_ms();
	assert_int_equal(adxl_connect(e1, "127.0.0.1:27198", 300), ADXL_FAILED);
	dt = now_ms() - t0;
	assert_in_range(dt, 290, 3000);
	assert_int_equal(adxl_transfer_sync(e1, "127.0.0.1:27198", ADXL_READ,
		&(struct adxl_transfer_desc){ (uintptr_t)b1.addr, 0x1000, 1 },
		1, 1000), ADXL_NOT_CONNECTED);
}

static void test_transfer_refusals(void **state)
{
	struct adxl_transfer_desc d;
	struct atl_mem late;
	adxl_mem_handle_t hl;
	uint8_t local[64];

	(void)state;
	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_SUCCESS);

	/* Local memory not registered with the engine (and no pool). */
	d = (struct adxl_transfer_desc){ (uintptr_t)local, (uintptr_t)b2.addr, 64 };
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	/* Remote memory the peer never registered. */
	d = (struct adxl_transfer_desc){ (uintptr_t)b1.addr, (uintptr_t)local, 64 };
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	/* A remote range running 1 byte past the registration: the kernel. */
	d = (struct adxl_transfer_desc){ (uintptr_t)b1.addr,
					 (uintptr_t)b2.addr + BUF - 63, 64 };
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_WRITE, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_non_null(strstr(adxl_last_error(), "past the end"));

	/* Registered after Connect: not visible until the next Connect. */
	assert_int_equal(atl_alloc(&late, ADXL_MEM_HOST, 65536), 0);
	hl = reg(e2, late.addr, 65536);
	d = (struct adxl_transfer_desc){ (uintptr_t)b1.addr, (uintptr_t)late.addr, 64 };
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_SUCCESS);
	atl_fill(late.addr, 64, 99, 0);
	memset(b1.addr, 0, 64);
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(atl_check(b1.addr, 64, 99, 0), -1);

	/* The peer deregisters it: its grant is revoked under us. */
	assert_int_equal(adxl_deregister_mem(e2, hl), ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(e1, E2, ADXL_READ, &d, 1, 1000),
			 ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "revoked"));
	atl_free(&late);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_SUCCESS);
}

/* The module's answers through libmemreg: no token, dead token, range. */
static void test_tokens(void **state)
{
	static const uint8_t bogus[MEMREG_TOKEN_LEN] = { 1, 2, 3, 4 };
	uint8_t tok[MEMREG_TOKEN_LEN], other[MEMREG_TOKEN_LEN];
	struct memreg_ctx *a, *b;
	struct memreg_remote r;
	struct memreg_xfer_desc x[3];
	uint64_t ha, hb, bytes;
	size_t done;

	(void)state;
	assert_int_equal(memreg_open(&a), 0);
	assert_int_equal(memreg_open(&b), 0);
	atl_fill(b1.addr, BUF, 5, 0);
	memset(b2.addr, 0, BUF);
	/* Registered on contexts of their own, beside the engines'. */
	assert_int_equal(memreg_register(a, b1.addr, BUF, MEMREG_MEM_HOST,
					 MEMREG_ACCESS_REMOTE_READ, &ha), 0);
	assert_int_equal(memreg_register(b, b2.addr, BUF, MEMREG_MEM_HOST, 0,
					 &hb), 0);
	assert_int_equal(memreg_grant(a, ha, MEMREG_ACCESS_REMOTE_READ, tok), 0);
	/* More access than the registration allows. */
	assert_int_equal(memreg_grant(a, ha, MEMREG_ACCESS_ALL, other),
			 -MEMREG_E_ACCESS);

	assert_int_equal(memreg_import(b, bogus, &r), -MEMREG_E_NOENT);
	assert_int_equal(memreg_import(b, tok, &r), 0);
	assert_int_equal(r.addr, (uintptr_t)b1.addr);
	assert_int_equal(r.len, BUF);
	assert_int_equal(r.pid, getpid());

	/* Two good descriptors, then one 1 byte out of range: done == 2. */
	for (int i = 0; i < 3; i++)
		x[i] = (struct memreg_xfer_desc){
			.op = MEMREG_XFER_READ, .local_handle = hb,
			.local_addr = (uintptr_t)b2.addr + i * 4096,
			.remote_handle = r.handle,
			.remote_addr = (uintptr_t)b1.addr + i * 4096,
			.len = 4096,
		};
	x[2].remote_addr = (uintptr_t)b1.addr + BUF - 4095;
	assert_int_equal(memreg_transfer(b, x, 3, &done, &bytes), -MEMREG_E_RANGE);
	assert_int_equal(errno, ERANGE);
	assert_int_equal(done, 2);
	assert_int_equal(bytes, 8192);
	assert_int_equal(atl_check(b2.addr, 8192, 5, 0), -1);

	/* A WRITE the grant does not allow. */
	x[0].op = MEMREG_XFER_WRITE;
	assert_int_equal(memreg_transfer(b, x, 1, &done, NULL), -MEMREG_E_ACCESS);
	assert_int_equal(done, 0);

	/* Revoked: the import dies at once, a new import is refused. */
	assert_int_equal(memreg_revoke(a, tok), 0);
	x[0].op = MEMREG_XFER_READ;
	assert_int_equal(memreg_transfer(b, x, 1, &done, NULL), -MEMREG_E_REVOKED);
	assert_int_equal(errno, EKEYREVOKED);
	assert_int_equal(memreg_import(b, tok, &r), -MEMREG_E_NOENT);
	assert_int_equal(memreg_revoke(a, tok), -MEMREG_E_NOENT);
	assert_int_equal(memreg_unimport(b, r.handle), 0);
	assert_int_equal(memreg_unimport(b, r.handle), -MEMREG_E_NOENT);
	memreg_close(a);
	memreg_close(b);
	atl_fill(b1.addr, BUF, 1, 0);
	atl_fill(b2.addr, BUF, 2, 0);
}

struct got {
	int n;
	char last_name[2048], last_msg[2048];
	size_t name_len, msg_len;
};

static void collect(const char *name, size_t nl, const char *msg, size_t ml,
		    void *arg)
{
	struct got *g = arg;

	g->n++;
	memcpy(g->last_name, name, nl);
	g->name_len = nl;
	memcpy(g->last_msg, msg, ml);
	g->msg_len = ml;
}

static void test_notifies(void **state)
{
	char big[ADXL_NOTIFY_MAX_LEN];
	struct got g = { 0 };
	int i;

	(void)state;
	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_SUCCESS);
	memset(big, 'z', sizeof(big));
	big[100] = '\0';	/* bytes, not C strings */
	assert_int_equal(adxl_send_notify(e1, E2, "first", 5, "", 0, 1000),
			 ADXL_SUCCESS);
	assert_int_equal(adxl_send_notify(e1, E2, big, sizeof(big), big,
					  sizeof(big), 1000), ADXL_SUCCESS);
	assert_int_equal(adxl_get_notifies(e2, collect, &g), ADXL_SUCCESS);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.name_len, sizeof(big));
	assert_memory_equal(g.last_msg, big, sizeof(big));
	g.n = 0;
	assert_int_equal(adxl_get_notifies(e2, collect, &g), ADXL_SUCCESS);
	assert_int_equal(g.n, 0);

	/* 4096 unconsumed per link, then RESOURCE_EXHAUSTED until consumed. */
	for (i = 0; i < ADXL_NOTIFY_MAX_PENDING; i++)
		assert_int_equal(adxl_send_notify(e1, E2, "n", 1, "m", 1, 5000),
				 ADXL_SUCCESS);
	assert_int_equal(adxl_send_notify(e1, E2, "n", 1, "m", 1, 5000),
			 ADXL_RESOURCE_EXHAUSTED);
	assert_int_equal(adxl_get_notifies(e2, collect, &g), ADXL_SUCCESS);
	assert_int_equal(g.n, ADXL_NOTIFY_MAX_PENDING);
	assert_int_equal(adxl_send_notify(e1, E2, "n", 1, "m", 1, 5000),
			 ADXL_SUCCESS);
	adxl_get_notifies(e2, collect, &g);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_SUCCESS);
}

static void test_async(void **state)
{
	struct adxl_transfer_desc d = { (uintptr_t)b1.addr, (uintptr_t)b2.addr, BUF };
	enum adxl_transfer_status ts;
	adxl_transfer_req_t req;
	adxl_status_t st;

	(void)state;
	assert_int_equal(adxl_transfer_async(e1, E2, ADXL_READ, &d, 1, &req),
			 ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_connect(e1, E2, 2000), ADXL_SUCCESS);
	memset(b1.addr, 0, BUF);
	assert_int_equal(adxl_transfer_async(e1, E2, ADXL_READ, &d, 1, &req),
			 ADXL_SUCCESS);
	while ((st = adxl_get_transfer_status(e1, req, &ts)) == ADXL_SUCCESS &&
	       ts == ADXL_TRANSFER_WAITING)
		usleep(1000);
	assert_int_equal(st, ADXL_SUCCESS);
	assert_int_equal(ts, ADXL_TRANSFER_COMPLETED);
	assert_int_equal(atl_check(b1.addr, BUF, 2, 0), -1);
	/* Released once reported: unknown, as hixl says it. */
	assert_int_equal(adxl_get_transfer_status(e1, req, &ts),
			 ADXL_PARAM_INVALID);

	/* A request that fails in the worker reports FAILED and its status. */
	d.remote_addr = (uintptr_t)b2.addr + 1;
	assert_int_equal(adxl_transfer_async(e1, E2, ADXL_READ, &d, 1, &req),
			 ADXL_SUCCESS);
	while ((st = adxl_get_transfer_status(e1, req, &ts)) == ADXL_SUCCESS &&
	       ts == ADXL_TRANSFER_WAITING)
		usleep(1000);
	assert_int_equal(ts, ADXL_TRANSFER_FAILED);
	assert_int_equal(st, ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(e1, E2, 1000), ADXL_SUCCESS);
	atl_fill(b1.addr, BUF, 1, 0);
}

static void test_auto_connect(void **state)
{
	static const struct adxl_option o = { "AutoConnect", "1" };
	struct adxl_transfer_desc d;
	adxl_engine_t *e3 = engine("127.0.0.1", &o, 1);
	struct atl_mem b3;

	(void)state;
	assert_int_equal(atl_alloc(&b3, ADXL_MEM_HOST, 4096), 0);
	reg(e3, b3.addr, 4096);
	d = (struct adxl_transfer_desc){ (uintptr_t)b3.addr, (uintptr_t)b2.addr, 4096 };
	assert_int_equal(adxl_transfer_sync(e3, E2, ADXL_READ, &d, 1, 2000),
			 ADXL_SUCCESS);
	assert_int_equal(atl_check(b3.addr, 4096, 2, 0), -1);
	assert_int_equal(adxl_connect(e3, E2, 1000), ADXL_ALREADY_CONNECTED);
	adxl_engine_destroy(e3);
	atl_free(&b3);
}

static void test_double_initialize(void **state)
{
	static const struct adxl_option bad = { "BufferPool", "0:8" };

	(void)state;
	assert_int_equal(adxl_initialize(e1, "127.0.0.1:27103", NULL, 0),
			 ADXL_FAILED);
	/* the options first, as hixl: a bad one is PARAM_INVALID */
	assert_int_equal(adxl_initialize(e1, "127.0.0.1:27103", &bad, 1),
			 ADXL_PARAM_INVALID);
}

/*
 * The buffer pool (2 buffers of 1 MiB, pinned on first use): host memory
 * this engine never registered is read into and written from through it,
 * by the module, byte for byte, in rounds of both buffers.
 */
static void test_buffer_pool(void **state)
{
	static const struct adxl_option pool = { "BufferPool", "2:1" };
	size_t size = 3 * BUF + 4097;
	adxl_engine_t *e = engine("127.0.0.1", &pool, 1);
	struct adxl_transfer_desc d;
	struct atl_mem big;
	adxl_mem_handle_t hb;
	uint8_t *u = malloc(size);

	(void)state;
	assert_non_null(u);
	assert_int_equal(atl_alloc(&big, ADXL_MEM_HOST, size), 0);
	hb = reg(e2, big.addr, size);
	assert_int_equal(adxl_connect(e, E2, 2000), ADXL_SUCCESS);
	atl_fill(big.addr, size, 5, 0);
	memset(u, 0, size);
	d = (struct adxl_transfer_desc){ (uintptr_t)u, (uintptr_t)big.addr, size };
	assert_int_equal(adxl_transfer_sync(e, E2, ADXL_READ, &d, 1, 10000),
			 ADXL_SUCCESS);
	assert_int_equal(atl_check(u, size, 5, 0), -1);
	atl_fill(u, size, 6, 0);
	assert_int_equal(adxl_transfer_sync(e, E2, ADXL_WRITE, &d, 1, 10000),
			 ADXL_SUCCESS);
	assert_int_equal(atl_check(big.addr, size, 6, 0), -1);
	assert_int_equal(adxl_disconnect(e, E2, 1000), ADXL_SUCCESS);
	adxl_engine_destroy(e);
	assert_int_equal(adxl_deregister_mem(e2, hb), ADXL_SUCCESS);
	atl_free(&big);
	free(u);
}

/* A peer killed with SIGKILL: the survivor gets a clear status. */
static void test_peer_killed(void **state)
{
	struct adxl_transfer_desc d;
	unsigned long addr;
	int fds[2], status;
	char line[64] = "";
	adxl_status_t st;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		adxl_engine_t *e;
		struct atl_mem m;

		close(fds[0]);
		if (adxl_engine_create(&e) ||
		    adxl_initialize(e, "127.0.0.1:27104", NULL, 0) ||
		    atl_alloc(&m, ADXL_MEM_HOST, BUF))
			_exit(1);
		reg(e, m.addr, BUF);
		dprintf(fds[1], "%lx\n", (unsigned long)(uintptr_t)m.addr);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_true(read(fds[0], line, sizeof(line) - 1) > 0);
	close(fds[0]);
	addr = strtoul(line, NULL, 16);
	assert_int_equal(adxl_connect(e1, "127.0.0.1:27104", 2000), ADXL_SUCCESS);
	d = (struct adxl_transfer_desc){ (uintptr_t)b1.addr, addr, BUF };
	assert_int_equal(adxl_transfer_sync(e1, "127.0.0.1:27104", ADXL_WRITE,
					    &d, 1, 5000), ADXL_SUCCESS);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	st = adxl_transfer_sync(e1, "127.0.0.1:27104", ADXL_WRITE, &d, 1, 5000);
	assert_true(st == ADXL_NOT_CONNECTED || st == ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "exited"));
	assert_int_equal(adxl_send_notify(e1, "127.0.0.1:27104", "n", 1, "m", 1,
					  1000), ADXL_NOT_CONNECTED);
	assert_int_equal(adxl_disconnect(e1, "127.0.0.1:27104", 1000),
			 ADXL_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registration_limit),
		cmocka_unit_test(test_register_checks),
		cmocka_unit_test(test_connect_statuses),
		cmocka_unit_test(test_wrong_name),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_transfer_refusals),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_notifies),
		cmocka_unit_test(test_async),
		cmocka_unit_test(test_auto_connect),
		cmocka_unit_test(test_double_initialize),
		cmocka_unit_test(test_buffer_pool),
		cmocka_unit_test(test_peer_killed),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests_name("adxl", tests, group_setup,
					   group_teardown);
}
