// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The C API's statuses that need no peer: the calls on an engine that is
 * not initialised, argument checks, the static helpers.  The run has
 * MEMREG_DEVICE pointing at nothing, so Initialize can only fail after its
 * own checks (and says why); the tests of an initialised engine use the
 * fake module (tests/unit/fake).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "adxl_int.h"
#include "fake_kernel.h"
#include "plugged.h"
#include "tests.h"

static int setup(void **state)
{
	adxl_engine_t *e;

	if (adxl_engine_create(&e))
		return -1;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	adxl_engine_destroy(*state);
	return 0;
}

/* An initialised engine (client only) on the fake module. */
static int setup_ready(void **state)
{
	adxl_engine_t *e;

	if (fake_kernel_setup() || adxl_engine_create(&e))
		return -1;
	if (adxl_initialize(e, "127.0.0.1", NULL, 0)) {
		adxl_engine_destroy(e);
		return -1;
	}
	*state = e;
	return 0;
}

static int teardown_ready(void **state)
{
	adxl_engine_destroy(*state);
	fake_kernel_teardown();
	return 0;
}

static void test_initialize_checks(void **state)
{
	adxl_engine_t *e = *state;
	struct adxl_option opt;

	assert_int_equal(adxl_initialize(e, NULL, NULL, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_initialize(e, "host:1", NULL, 0),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_initialize(e, "1.2.3.4:99999", NULL, 0),
			 ADXL_PARAM_INVALID);

#define BAD_OPTION(k, v)						\
	do {								\
		opt = (struct adxl_option){ k, v };			\
		assert_int_equal(adxl_initialize(e, "127.0.0.1", &opt, 1), \
				 ADXL_PARAM_INVALID);			\
	} while (0)
	BAD_OPTION("adxl.BufferPool", "4");
	BAD_OPTION("adxl.BufferPool", "0:8");
	BAD_OPTION("adxl.BufferPool", "4:0");
	BAD_OPTION("BufferPool", "a:b");
	BAD_OPTION("adxl.RdmaTrafficClass", "130");	/* not a multiple of 4 */
	BAD_OPTION("adxl.RdmaTrafficClass", "256");
	BAD_OPTION("adxl.RdmaServiceLevel", "8");
	BAD_OPTION("adxl.RdmaServiceLevel", "-1");
	BAD_OPTION("AutoConnect", "yes");
#undef BAD_OPTION
}

static void test_initialize_without_module(void **state)
{
	static const struct adxl_option opts[] = {
		{ "adxl.BufferPool", "0:0" },
		{ "adxl.RdmaTrafficClass", "132" },
		{ "adxl.RdmaServiceLevel", "4" },
		{ "AutoConnect", "1" },
	};
	adxl_engine_t *e = *state;
	struct adxl_plugged_engine *rdma;

	/* Valid everything, but no /dev/memreg: FAILED, and the reason. */
	assert_int_equal(adxl_initialize(e, "127.0.0.1:26000", opts, 4),
			 ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "module"));
	/* what the engine's RDMA queue pairs will send with: its plugin's conf */
	rdma = adxl__plugged_of(e, adxl__transport_named("rdma"));
	assert_int_equal(rdma->conf.traffic_class, 132);
	assert_int_equal(rdma->conf.service_level, 4);
}

/*
 * hixl: every call on an engine that is not initialised is FAILED, and
 * that is checked before the arguments (a NULL handle, a timeout of 0, a
 * bad descriptor are FAILED too).
 */
static void every_call_fails(adxl_engine_t *e)
{
	struct adxl_mem_desc mem = { 0x1000, 4096 };
	struct adxl_transfer_desc d = { 0x1000, 0x2000, 64 };
	struct adxl_transfer_desc bad = { 0x1000, 0, 64 };
	const char *peer = "127.0.0.1:26000";
	enum adxl_connect_status cs;
	adxl_transfer_req_t req;
	adxl_mem_handle_t h;
	char big[ADXL_NOTIFY_MAX_LEN + 1];

	memset(big, 'x', sizeof(big));
	assert_int_equal(adxl_register_mem(e, &mem, ADXL_MEM_HOST, &h),
			 ADXL_FAILED);
	assert_int_equal(adxl_register_mem(e, NULL, ADXL_MEM_HOST, &h),
			 ADXL_FAILED);
	assert_int_equal(adxl_deregister_mem(e, (adxl_mem_handle_t)0x77),
			 ADXL_FAILED);
	assert_int_equal(adxl_deregister_mem(e, NULL), ADXL_FAILED);
	assert_int_equal(adxl_connect(e, peer, 1000), ADXL_FAILED);
	assert_int_equal(adxl_connect(e, peer, 0), ADXL_FAILED);
	assert_int_equal(adxl_disconnect(e, peer, 1000), ADXL_FAILED);
	assert_int_equal(adxl_disconnect(e, peer, -1), ADXL_FAILED);
	assert_int_equal(adxl_connect_async(e, peer, 1000), ADXL_FAILED);
	assert_int_equal(adxl_connect_async(e, peer, 0), ADXL_FAILED);
	assert_int_equal(adxl_disconnect_async(e, peer, 1000), ADXL_FAILED);
	assert_int_equal(adxl_get_async_connect_status(e, peer, &cs),
			 ADXL_FAILED);
	assert_int_equal(adxl_get_async_connect_statuses(e, NULL, NULL),
			 ADXL_FAILED);
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_READ, &d, 1, 1000),
			 ADXL_FAILED);
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_READ, &bad, 1, 0),
			 ADXL_FAILED);
	assert_int_equal(adxl_transfer_async(e, peer, ADXL_READ, &d, 1, &req),
			 ADXL_FAILED);
	assert_int_equal(adxl_transfer_async(e, peer, ADXL_READ, &bad, 1,
					     &req), ADXL_FAILED);
	assert_int_equal(adxl_get_transfer_statuses(e, 8, 0, NULL, NULL),
			 ADXL_FAILED);
	assert_int_equal(adxl_send_notify(e, peer, "n", 1, "m", 1, 1000),
			 ADXL_FAILED);
	assert_int_equal(adxl_send_notify(e, peer, big, sizeof(big), "m", 1,
					  0), ADXL_FAILED);
	assert_int_equal(adxl_get_notifies(e, NULL, NULL), ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "not initialised"));
}

static void test_every_call_before_initialize_fails(void **state)
{
	adxl_engine_t *e = *state;

	every_call_fails(e);
	/* Finalize of an engine never initialised is harmless. */
	adxl_finalize(e);
	every_call_fails(e);
}

static void test_param_invalid(void **state)
{
	struct adxl_transfer_desc ok = { 0x1000, 0x2000, 64 };
	struct adxl_transfer_desc d[2] = { { 0x1000, 0x2000, 64 } };
	const char *peer = "127.0.0.1:26000";
	adxl_engine_t *e = *state;
	adxl_transfer_req_t req;
	char big[ADXL_NOTIFY_MAX_LEN + 1];

	/* Timeouts <= 0, before anything else. */
	assert_int_equal(adxl_connect(e, peer, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_connect(e, peer, -1), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_disconnect(e, peer, 0), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_READ, &ok, 1, 0),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_send_notify(e, peer, "n", 1, "m", 1, 0),
			 ADXL_PARAM_INVALID);

	/* Address 0 anywhere in the batch, length 0, a bad op. */
	d[1] = (struct adxl_transfer_desc){ 0, 0x2000, 64 };
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_READ, d, 2, 1000),
			 ADXL_PARAM_INVALID);
	d[1] = (struct adxl_transfer_desc){ 0x1000, 0, 64 };
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_WRITE, d, 2, 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_transfer_async(e, peer, ADXL_WRITE, d, 2, &req),
			 ADXL_PARAM_INVALID);
	d[1] = (struct adxl_transfer_desc){ 0x1000, 0x2000, 0 };
	assert_int_equal(adxl_transfer_sync(e, peer, ADXL_WRITE, d, 2, 1000),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_transfer_sync(e, peer, (enum adxl_transfer_op)2,
					    &ok, 1, 1000), ADXL_PARAM_INVALID);

	/* Notify strings over 1024 chars. */
	memset(big, 'x', sizeof(big));
	assert_int_equal(adxl_send_notify(e, peer, big, sizeof(big), "m", 1,
					  1000), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_send_notify(e, peer, "n", 1, big, sizeof(big),
					  1000), ADXL_PARAM_INVALID);

	/* NULL handles. */
	assert_int_equal(adxl_deregister_mem(e, NULL), ADXL_PARAM_INVALID);
}

static void test_deregister_unknown(void **state)
{
	/* An unknown handle is SUCCESS in the reference (with a warning). */
	assert_int_equal(adxl_deregister_mem(*state, (adxl_mem_handle_t)0x77),
			 ADXL_SUCCESS);
}

/*
 * hixl parses a second Initialize's options before anything else: a bad
 * one is PARAM_INVALID, as on a new engine; good ones are FAILED (already
 * initialised), and the running engine keeps its own.
 */
static void test_initialize_again_checks_options_first(void **state)
{
	static const struct adxl_option bad_pool[] = {
		{ "AutoConnect", "1" },
		{ "adxl.BufferPool", "0:8" },
	};
	static const struct adxl_option good[] = {
		{ "AutoConnect", "1" },
		{ "BufferPool", "2:1" },
	};
	adxl_engine_t *e = *state;
	struct adxl_option opt;

	assert_int_equal(adxl_initialize(e, "127.0.0.1", bad_pool, 2),
			 ADXL_PARAM_INVALID);
	opt = (struct adxl_option){ "adxl.RdmaServiceLevel", "8" };
	assert_int_equal(adxl_initialize(e, "127.0.0.1", &opt, 1),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_initialize(e, "host:1", NULL, 0),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_initialize(e, "127.0.0.1", good, 2),
			 ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "already initialised"));
	/* Still the engine it was. */
	assert_true(e->initialised);
	assert_false(e->auto_connect);
	assert_string_equal(e->name, "127.0.0.1");
}

static void on_result(const struct adxl_transfer_result *r, void *arg)
{
	(void)r;
	++*(int *)arg;
}

/* A client engine on the fake module with option @key = @val: its status. */
static adxl_status_t init_with(adxl_engine_t **e, const char *key,
			       const char *val)
{
	struct adxl_option opt = { key, val };
	adxl_status_t st;

	assert_int_equal(adxl_engine_create(e), ADXL_SUCCESS);
	st = adxl_initialize(*e, "127.0.0.1", &opt, 1);
	if (st) {
		adxl_engine_destroy(*e);
		*e = NULL;
	}
	return st;
}

/* The batch GetTransferStatus's answer of an engine made with @key = @val. */
static adxl_status_t batch_answer(const char *key, const char *val)
{
	adxl_engine_t *e;
	adxl_status_t st;
	int n = 0;

	assert_int_equal(init_with(&e, key, val), ADXL_SUCCESS);
	st = adxl_get_transfer_statuses(e, 8, 0, on_result, &n);
	assert_int_equal(n, 0);
	adxl_engine_destroy(e);
	return st;
}

/* The status of Initialize with @key = @val alone (the engine goes). */
static adxl_status_t init_answer(const char *key, const char *val)
{
	adxl_engine_t *e = NULL;
	adxl_status_t st = init_with(&e, key, val);

	if (e)
		adxl_engine_destroy(e);
	return st;
}

/*
 * hixl's CommEngine refuses options it does not know, and
 * GlobalResourceConfig's numbers out of hixl's ranges (hixl_options.cc;
 * HIXL-interface.md: connect_pool.thread_num 1 to 64): PARAM_INVALID.
 */
static void test_initialize_option_keys_and_ranges(void **state)
{
	(void)state;
	assert_int_equal(init_answer("InvalidOption", "1"), ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("adxl.NoSuchThing", "1"), ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"connect_pool.thread_num\": \"0\"}"),
			 ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"connect_pool.thread_num\": 65}"),
			 ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"connect_pool.thread_num\": 1.5}"),
			 ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"comm_resource_config.qos\": 8}"),
			 ADXL_PARAM_INVALID);
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"connect_pool.thread_num\": 64, \"comm_resource_config.qos\": \"7\"}"),
			 ADXL_SUCCESS);
	/* The last of duplicate members counts, as in hixl's parser. */
	assert_int_equal(init_answer("GlobalResourceConfig",
				     "{\"connect_pool.thread_num\": 0, \"connect_pool.thread_num\": 2}"),
			 ADXL_SUCCESS);
	assert_int_equal(init_answer("EnableUseFabricMem", "1"), ADXL_SUCCESS);
	assert_int_equal(init_answer("adxl.BufferPool", "2:1"), ADXL_SUCCESS);
}

/*
 * hixl (HIXL-interface.md, the batch GetTransferStatus): UNSUPPORTED
 * unless LocalCommRes is of version 1.3 or GlobalResourceConfig's
 * protocol_desc holds uboe:device or ub_rtp:device.
 */
static void test_batch_transfer_status_unsupported_without_hixl_cs_options(void **state)
{
	const char *desc = "comm_resource_config.protocol_desc";
	char val[256];

	assert_int_equal(adxl_get_transfer_statuses(*state, 8, 0, on_result,
						    &(int){ 0 }),
			 ADXL_UNSUPPORTED);
	assert_int_equal(batch_answer("LocalCommRes", ""), ADXL_UNSUPPORTED);
	assert_int_equal(batch_answer("LocalCommRes", "{\"version\": \"1.2\"}"),
			 ADXL_UNSUPPORTED);
	assert_int_equal(batch_answer("adxl.LocalCommRes", "{\"version\":1.3}"),
			 ADXL_UNSUPPORTED);
	assert_int_equal(batch_answer("LocalCommRes", "[\"version\", \"1.3\"]"),
			 ADXL_UNSUPPORTED);
	snprintf(val, sizeof(val), "{\"%s\": \"roce:device\"}", desc);
	assert_int_equal(batch_answer("GlobalResourceConfig", val),
			 ADXL_UNSUPPORTED);
	/* Nested is another key: hixl's keys are dotted names. */
	assert_int_equal(batch_answer("GlobalResourceConfig",
				      "{\"comm_resource_config\": {\"protocol_desc\": \"uboe:device\"}}"),
			 ADXL_UNSUPPORTED);

	assert_int_equal(batch_answer("LocalCommRes", "{\"version\": \"1.3\"}"),
			 ADXL_SUCCESS);
	assert_int_equal(batch_answer("adxl.LocalCommRes",
				      " {\"net_instance_id\": \"sp1\", \"endpoint_list\": [{\"protocol\": \"roce\"}], \"version\": \"1\\u002e3\"} "),
			 ADXL_SUCCESS);
	snprintf(val, sizeof(val), "{\"%s\": \"uboe:device\"}", desc);
	assert_int_equal(batch_answer("GlobalResourceConfig", val),
			 ADXL_SUCCESS);
	snprintf(val, sizeof(val),
		 "{\"connect_pool.thread_num\": \"2\", \"%s\": [\"roce:host\", \"ub_rtp:device\"]}",
		 desc);
	assert_int_equal(batch_answer("GlobalResourceConfig", val),
			 ADXL_SUCCESS);
}

/* hixl refuses JSON options that are not JSON (GlobalResourceConfig: an object). */
static void test_json_options_must_be_json(void **state)
{
	static const char *const not_json[] = {
		"{", "{\"version\": \"1.3\"", "version=1.3", "{\"a\": 01}",
		"{\"a\": \"\\x\"}", "{\"a\": tru}", "{\"a\": 1,}", "[1] [2]",
		"{\"a\": \"tab\there\"}",
	};
	adxl_engine_t *e;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(not_json) / sizeof(not_json[0]); i++) {
		assert_int_equal(init_with(&e, "LocalCommRes", not_json[i]),
				 ADXL_PARAM_INVALID);
		assert_int_equal(init_with(&e, "GlobalResourceConfig",
					   not_json[i]), ADXL_PARAM_INVALID);
	}
	/* JSON, but not an object: LocalCommRes yes, GlobalResourceConfig no. */
	assert_int_equal(init_with(&e, "LocalCommRes", "[1, 2.5e-3, null]"),
			 ADXL_SUCCESS);
	adxl_engine_destroy(e);
	assert_int_equal(init_with(&e, "GlobalResourceConfig", "[1]"),
			 ADXL_PARAM_INVALID);
	assert_int_equal(init_with(&e, "GlobalResourceConfig", "{}"),
			 ADXL_SUCCESS);
	adxl_engine_destroy(e);
	/* Too deep to be read: refused, not a crash. */
	{
		char deep[400];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = '\0';
		assert_int_equal(init_with(&e, "LocalCommRes", deep),
				 ADXL_PARAM_INVALID);
	}
}

/* A TCP socket bound to a free port of 127.0.0.1 (listening if @backlog). */
static int bound_socket(int backlog, char *name, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	if (backlog)
		assert_int_equal(listen(fd, backlog), 0);
	snprintf(name, len, "127.0.0.1:%u", ntohs(sin.sin_port));
	return fd;
}

/*
 * hixl (TestConnectNotListenFailed): a port where nothing listens is
 * FAILED, not TIMEOUT; it is dialled again until the timeout, in case
 * the peer is starting.  A peer that accepts and never answers stays
 * TIMEOUT.
 */
static void test_connect_refused_fails_silent_peer_times_out(void **state)
{
	adxl_engine_t *e = *state;
	int64_t t0, dt;
	char name[32];
	int fd;

	/* Bound, not listening: connections to it are refused. */
	fd = bound_socket(0, name, sizeof(name));
	t0 = adxl__now_ms();
	assert_int_equal(adxl_connect(e, name, 300), ADXL_FAILED);
	dt = adxl__now_ms() - t0;
	assert_in_range(dt, 280, 3000);
	assert_non_null(strstr(adxl_last_error(), "refused"));
	close(fd);

	/* Listening, never accepting nor answering: TIMEOUT. */
	fd = bound_socket(4, name, sizeof(name));
	t0 = adxl__now_ms();
	assert_int_equal(adxl_connect(e, name, 300), ADXL_TIMEOUT);
	dt = adxl__now_ms() - t0;
	assert_in_range(dt, 280, 3000);
	close(fd);
}

static void test_every_call_after_finalize_fails(void **state)
{
	adxl_engine_t *e = *state;

	adxl_finalize(e);
	every_call_fails(e);
}

/*
 * hixl's codes (TestAdxlEngineGetTransferStatusFalied): a NULL request is
 * FAILED, one never handed out PARAM_INVALID; either reports FAILED.
 */
static void test_transfer_status_of_null_and_unknown_requests(void **state)
{
	enum adxl_transfer_status st = ADXL_TRANSFER_WAITING;

	assert_int_equal(adxl_get_transfer_status(*state, NULL, &st),
			 ADXL_FAILED);
	assert_int_equal(st, ADXL_TRANSFER_FAILED);
	st = ADXL_TRANSFER_WAITING;
	assert_int_equal(adxl_get_transfer_status(*state,
						  (adxl_transfer_req_t)0x55,
						  &st), ADXL_PARAM_INVALID);
	assert_int_equal(st, ADXL_TRANSFER_FAILED);
	assert_int_equal(adxl_get_transfer_status(*state, NULL, NULL),
			 ADXL_PARAM_INVALID);
	/* Not initialised (finalized): FAILED, whatever the request. */
	adxl_finalize(*state);
	st = ADXL_TRANSFER_WAITING;
	assert_int_equal(adxl_get_transfer_status(*state,
						  (adxl_transfer_req_t)0x55,
						  &st), ADXL_FAILED);
	assert_int_equal(st, ADXL_TRANSFER_FAILED);
}

static void test_capability(void **state)
{
	int32_t v = -7;

	(void)state;
	assert_int_equal(adxl_get_capability(-1, &v), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_get_capability(ADXL_FEATURE_AUTO_CONNECT, &v),
			 ADXL_SUCCESS);
	assert_int_equal(v, ADXL_FEATURE_SUPPORTED);
	assert_int_equal(adxl_get_capability(ADXL_FEATURE_CLIENT_SERVER_COMM,
					     &v), ADXL_SUCCESS);
	assert_int_equal(v, ADXL_FEATURE_SUPPORTED);
	v = -7;
	assert_int_equal(adxl_get_capability(1000, &v), ADXL_SUCCESS);
	assert_int_equal(v, 0);
}

static void test_malloc_free(void **state)
{
	uint8_t handle[128];
	void *p = NULL;

	(void)state;
	assert_int_equal(adxl_malloc_mem(ADXL_MEM_HOST, 10000, &p),
			 ADXL_SUCCESS);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 4096, 0);
	/* Zeroed, and all of it writable. */
	assert_int_equal(((uint8_t *)p)[9999], 0);
	memset(p, 0xab, 10000);
	assert_int_equal(adxl_export_shareable_handle(p, handle),
			 ADXL_UNSUPPORTED);
	/* Not the start of a MallocMem block. */
	assert_int_equal(adxl_export_shareable_handle((uint8_t *)p + 4096,
						      handle),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_free_mem(p), ADXL_SUCCESS);
	/* Twice, or something else: PARAM_INVALID, not a crash. */
	assert_int_equal(adxl_free_mem(p), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_free_mem(NULL), ADXL_PARAM_INVALID);
	assert_int_equal(adxl_free_mem(handle), ADXL_PARAM_INVALID);

	assert_int_equal(adxl_malloc_mem(ADXL_MEM_HOST, 0, &p),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_malloc_mem(ADXL_MEM_HOST, 64, NULL),
			 ADXL_PARAM_INVALID);
	/* The reference: host memory only. */
	assert_int_equal(adxl_malloc_mem(ADXL_MEM_DEVICE, 4096, &p),
			 ADXL_PARAM_INVALID);
	assert_int_equal(adxl_export_shareable_handle(NULL, handle),
			 ADXL_PARAM_INVALID);
}

int test_api_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_initialize_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_initialize_without_module,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_call_before_initialize_fails,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_call_after_finalize_fails,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_initialize_again_checks_options_first,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_initialize_option_keys_and_ranges,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_batch_transfer_status_unsupported_without_hixl_cs_options,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_json_options_must_be_json,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_connect_refused_fails_silent_peer_times_out,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_param_invalid, setup_ready,
						teardown_ready),
		cmocka_unit_test_setup_teardown(test_deregister_unknown,
						setup_ready, teardown_ready),
		cmocka_unit_test_setup_teardown(test_transfer_status_of_null_and_unknown_requests,
						setup_ready,
						teardown_ready),
		cmocka_unit_test(test_capability),
		cmocka_unit_test(test_malloc_free),
	};

	return cmocka_run_group_tests_name("adxl API", tests, NULL, NULL);
}
