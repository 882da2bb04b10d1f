// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The UCX plugin serving a peer that does not keep to the protocol: a raw
 * UCP worker of this test (no libmemreg) sends what a broken or hostile
 * peer could, straight to the plugin's worker.  Each message must be
 * ignored or refused with the right status, nothing outside the exposed
 * range may be read or written, and the plugin must go on serving.
 */
#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <ucp/api/ucp.h>

#include "ucx_plugin.h"
#include "adxl_ucx_wire.h"

#define MEM	65536

struct peer {
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_ep_h ep;
	int sends;		/* not completed yet */
	int answers;
	struct adxl_ucx_wire_ans last;
	size_t last_len;
	uint8_t last_data[MEM];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static ucs_status_t on_answer(void *arg, const void *hdr, size_t hlen,
			      void *data, size_t len,
			      const ucp_am_recv_param_t *prm)
{
	struct peer *p = arg;

	if (hlen == sizeof(p->last))
		memcpy(&p->last, hdr, hlen);
	p->last_len = len;
	if (len <= MEM && !(prm->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV))
		memcpy(p->last_data, data, len);
	p->answers++;
	return UCS_OK;
}

static void sent(void *req, ucs_status_t status, void *arg)
{
	struct peer *p = arg;

	(void)status;
	p->sends--;
	ucp_request_free(req);
}

/* @hdr and @data must live until settle(): UCX may send from them later. */
static void send_am(struct peer *p, unsigned int id, const void *hdr,
		    size_t hlen, const void *data, size_t len, uint32_t flags)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
				UCP_OP_ATTR_FIELD_USER_DATA |
				UCP_OP_ATTR_FIELD_FLAGS,
		.cb.send = sent,
		.user_data = p,
		.flags = flags,
	};
	ucs_status_ptr_t r = ucp_am_send_nbx(p->ep, id, hdr, hlen, data, len,
					     &prm);

	assert_false(UCS_PTR_IS_ERR(r));
	if (r)
		p->sends++;
}

/* Progress until @want answers have come and every send is done (5 s). */
static void settle(struct peer *p, int want)
{
	double end = now_s() + 5;

	while ((p->answers < want || p->sends) && now_s() < end)
		ucp_worker_progress(p->worker);
	/* And a moment longer, for answers that should not come. */
	end = now_s() + 0.2;
	while (now_s() < end)
		ucp_worker_progress(p->worker);
}

static void peer_open(struct peer *p, const void *addr)
{
	ucp_params_t params = {
		.field_mask = UCP_PARAM_FIELD_FEATURES,
		.features = UCP_FEATURE_AM,
	};
	ucp_worker_params_t wp = {
		.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
		.thread_mode = UCS_THREAD_MODE_SINGLE,
	};
	ucp_ep_params_t ep = {
		.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS |
			      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
		.address = addr,
		.err_mode = UCP_ERR_HANDLING_MODE_PEER,
	};
	ucp_am_handler_param_t hp = {
		.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
			      UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
			      UCP_AM_HANDLER_PARAM_FIELD_CB |
			      UCP_AM_HANDLER_PARAM_FIELD_ARG,
		.flags = UCP_AM_FLAG_WHOLE_MSG,
		.cb = on_answer,
		.arg = p,
	};
	ucp_config_t *cfg;

	assert_int_equal(ucp_config_read(NULL, NULL, &cfg), UCS_OK);
	assert_int_equal(ucp_init(&params, cfg, &p->ctx), UCS_OK);
	ucp_config_release(cfg);
	assert_int_equal(ucp_worker_create(p->ctx, &wp, &p->worker), UCS_OK);
	hp.id = ADXL_UCX_AM_DATA;
	assert_int_equal(ucp_worker_set_am_recv_handler(p->worker, &hp), UCS_OK);
	hp.id = ADXL_UCX_AM_DONE;
	assert_int_equal(ucp_worker_set_am_recv_handler(p->worker, &hp), UCS_OK);
	assert_int_equal(ucp_ep_create(p->worker, &ep, &p->ep), UCS_OK);
}

static void peer_close(struct peer *p)
{
	ucp_request_param_t prm = {
		.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		.flags = UCP_EP_CLOSE_FLAG_FORCE,
	};
	ucs_status_ptr_t r = ucp_ep_close_nbx(p->ep, &prm);

	while (UCS_PTR_IS_PTR(r) &&
	       ucp_request_check_status(r) == UCS_INPROGRESS)
		ucp_worker_progress(p->worker);
	if (UCS_PTR_IS_PTR(r))
		ucp_request_free(r);
	ucp_worker_destroy(p->worker);
	ucp_cleanup(p->ctx);
}

/* The serving worker's key, which a request must carry. */
static uint8_t server_key[ADXL_UCX_KEY_LEN];

static struct adxl_ucx_wire_req req(uint64_t id, uint64_t nonce,
				    uint64_t addr, uint64_t len)
{
	struct adxl_ucx_wire_req q = {
		.id = id, .nonce = nonce, .addr = addr, .len = len,
	};

	memcpy(q.key, server_key, sizeof(q.key));
	return q;
}

static void test_plugin_ignores_or_refuses_bad_messages(void **state)
{
	const char *path = getenv("MEMREG_ADXL_UCX_PLUGIN");
	const struct adxl_plugin *(*get)(void);
	const struct adxl_plugin *ops;
	struct adxl_plugin_conf conf = { 0 };
	static uint8_t info[ADXL_PLUGIN_INFO_MAX];
	size_t info_len = sizeof(info);
	struct adxl_plugin_ep *serving;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	uint32_t n;
	static uint8_t guard[3 * MEM];	/* exposed: the middle third */
	static uint8_t junk[MEM], payload[MEM];
	uint8_t *mem = guard + MEM;
	static struct adxl_ucx_wire_req q[9], rq[64];
	struct adxl_ucx_wire_ans fake;
	struct adxl_plugin_mem *m;
	struct adxl_plugin_ctx *u;
	struct peer *p = calloc(1, sizeof(*p));
	void *handle;
	size_t i;
	int round;

	(void)state;
	assert_non_null(p);
	assert_non_null(path);
	handle = dlopen(path, RTLD_NOW);
	assert_non_null(handle);
	*(void **)&get = dlsym(handle, ADXL_PLUGIN_ENTRY);
	assert_non_null(get);
	ops = get();
	assert_string_equal(ops->transport, "ucx");
	assert_int_equal(ops->open(&conf, &u, err), 0);
	for (i = 0; i < sizeof(guard); i++)
		guard[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(ops->mem_reg(u, mem, MEM, &m, err), 0);
	/* a serving end's info: [u32 length][worker address][access key] */
	assert_int_equal(ops->ep_create(u, true, NULL, info, &info_len,
					&serving, err), 0);
	memcpy(&n, info, 4);
	n = be32toh(n);
	assert_int_equal(info_len, 4 + n + ADXL_UCX_KEY_LEN);
	memcpy(server_key, info + 4 + n, ADXL_UCX_KEY_LEN);
	peer_open(p, info + 4);
	memset(payload, 0xab, sizeof(payload));
	memset(junk, 0xcd, sizeof(junk));

	/* A header of the wrong size: no answer. */
	q[0] = req(1, 0, (uintptr_t)mem, 16);
	send_am(p, ADXL_UCX_AM_READ, &q[0], 8, NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	/* No reply endpoint: no one to answer. */
	send_am(p, ADXL_UCX_AM_READ, &q[0], sizeof(q[0]), NULL, 0, 0);
	/*
	 * Rendezvous writes into exposed memory: dropped, nothing written.
	 * Several rounds: releasing such a message twice (as the plugin once
	 * did) corrupts UCX's pool only after a few.
	 */
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 64; i++) {
			rq[i] = req(100 + i, 0,
				(uintptr_t)mem, 4096);
			send_am(p, ADXL_UCX_AM_WRITE, &rq[i], sizeof(rq[i]),
				junk, 4096,
				UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_RNDV);
		}
		settle(p, 0);
	}
	/* Answers nobody asked for: ignored. */
	fake = (struct adxl_ucx_wire_ans){ 1ULL << 32, 0, 0, 0 };
	send_am(p, ADXL_UCX_AM_DATA, &fake, sizeof(fake), junk, 64, 0);
	send_am(p, ADXL_UCX_AM_DONE, &fake, sizeof(fake), NULL, 0, 0);
	settle(p, 0);
	assert_int_equal(p->answers, 0);

	/*
	 * Without the worker's key, even a read of exposed memory is refused
	 * (EACCES) and carries no bytes: knowing the address is not enough.
	 */
	q[1] = req(2, 22, (uintptr_t)mem, 16);
	q[1].key[0] ^= 1;
	send_am(p, ADXL_UCX_AM_READ, &q[1], sizeof(q[1]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	q[8] = req(2, 23, (uintptr_t)mem + 32, 16);
	memset(q[8].key, 0, sizeof(q[8].key));
	send_am(p, ADXL_UCX_AM_WRITE, &q[8], sizeof(q[8]), junk, 16,
		UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER);
	settle(p, 2);
	assert_int_equal(p->answers, 2);
	assert_int_equal(p->last.nonce, 23);
	assert_int_equal(p->last.status, -EACCES);
	assert_int_equal(p->last_len, 0);
	p->answers = 0;

	/* Reads next to, across and far from the exposed range: EFAULT. */
	q[2] = req(3, 33, (uintptr_t)mem - 1, 16);
	send_am(p, ADXL_UCX_AM_READ, &q[2], sizeof(q[2]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	settle(p, 1);
	assert_int_equal(p->answers, 1);
	assert_int_equal(p->last.id, 3);
	assert_int_equal(p->last.nonce, 33);
	assert_int_equal(p->last.status, -EFAULT);
	assert_int_equal(p->last_len, 0);
	q[3] = req(4, 0, (uintptr_t)mem + MEM - 8, 16);
	send_am(p, ADXL_UCX_AM_READ, &q[3], sizeof(q[3]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	q[4] = req(5, 0, (uintptr_t)mem + 8, UINT64_MAX - 4);
	send_am(p, ADXL_UCX_AM_READ, &q[4], sizeof(q[4]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	/* A write outside, and one whose bytes do not match its length. */
	q[5] = req(6, 0, (uintptr_t)mem + MEM, 64);
	send_am(p, ADXL_UCX_AM_WRITE, &q[5], sizeof(q[5]), junk, 64,
		UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER);
	settle(p, 4);
	assert_int_equal(p->answers, 4);
	assert_int_equal(p->last.id, 6);
	assert_int_equal(p->last.status, -EFAULT);
	q[6] = req(7, 0, (uintptr_t)mem, 100);
	send_am(p, ADXL_UCX_AM_WRITE, &q[6], sizeof(q[6]), junk, 50,
		UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER);
	settle(p, 5);
	assert_int_equal(p->last.id, 7);
	assert_int_equal(p->last.status, -EPROTO);
	for (i = 0; i < sizeof(guard); i++)
		assert_int_equal(guard[i], (uint8_t)(i * 7 + 1));

	/* Still serving: a proper write, then a proper read of it. */
	q[7] = req(8, 88, (uintptr_t)mem + 100, 1000);
	send_am(p, ADXL_UCX_AM_WRITE, &q[7], sizeof(q[7]), payload, 1000,
		UCP_AM_SEND_FLAG_REPLY | UCP_AM_SEND_FLAG_EAGER);
	settle(p, 6);
	assert_int_equal(p->last.id, 8);
	assert_int_equal(p->last.status, 0);
	assert_memory_equal(mem + 100, payload, 1000);
	assert_int_equal(mem[99], (uint8_t)((MEM + 99) * 7 + 1));
	assert_int_equal(mem[1100], (uint8_t)((MEM + 1100) * 7 + 1));
	q[0] = req(9, 99, (uintptr_t)mem + 96, 1008);
	send_am(p, ADXL_UCX_AM_READ, &q[0], sizeof(q[0]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	settle(p, 7);
	assert_int_equal(p->answers, 7);
	assert_int_equal(p->last.id, 9);
	assert_int_equal(p->last.nonce, 99);
	assert_int_equal(p->last.status, 0);
	assert_int_equal(p->last_len, 1008);
	assert_memory_equal(p->last_data, mem + 96, 1008);

	/* Deregistered: the same read is refused. */
	ops->mem_dereg(u, m);
	send_am(p, ADXL_UCX_AM_READ, &q[0], sizeof(q[0]), NULL, 0,
		UCP_AM_SEND_FLAG_REPLY);
	settle(p, 8);
	assert_int_equal(p->answers, 8);
	assert_int_equal(p->last.status, -EFAULT);

	peer_close(p);
	ops->ep_destroy(serving);
	ops->close(u);
	free(p);
	/* The plugin stays loaded: UCX does not support being unloaded. */
}

/*
 * The serving end's info is the worker's address and access key: a
 * client's end connects to nothing else (short, empty, a length that
 * lies), and a serving end takes no info from its client.
 */
static void test_plugin_refuses_bad_info(void **state)
{
	const char *path = getenv("MEMREG_ADXL_UCX_PLUGIN");
	static uint8_t info[ADXL_PLUGIN_INFO_MAX];
	const struct adxl_plugin *(*get)(void);
	struct adxl_plugin_conf conf = { 0 };
	struct adxl_plugin_ep *serving, *client;
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	size_t n = sizeof(info), none = sizeof(info);
	const struct adxl_plugin *ops;
	struct adxl_plugin_ctx *u;
	void *handle;

	(void)state;
	assert_non_null(path);
	handle = dlopen(path, RTLD_NOW);
	assert_non_null(handle);
	*(void **)&get = dlsym(handle, ADXL_PLUGIN_ENTRY);
	assert_non_null(get);
	ops = get();
	assert_int_equal(ops->open(&conf, &u, err), 0);
	assert_non_null(strstr(ops->describe(u), "UCX "));
	assert_int_equal(ops->ep_create(u, true, NULL, info, &n, &serving,
					err), 0);
	assert_int_equal(ops->ep_create(u, false, NULL, info + n, &none,
					&client, err), 0);
	assert_int_equal(none, 0);
	assert_int_equal(ops->ep_connect(client, info, 3, -1, err), -EINVAL);
	assert_int_equal(ops->ep_connect(client, info, 0, -1, err), -EINVAL);
	assert_int_equal(ops->ep_connect(client, info, n - 1, -1, err),
			 -EINVAL);
	assert_string_equal(err, "not a worker address and key");
	assert_false(ops->ep_failed(client));
	/* a serving end: nothing to connect, whatever its client sent */
	assert_int_equal(ops->ep_connect(serving, NULL, 0, -1, err), 0);
	assert_false(ops->ep_failed(serving));
	ops->ep_destroy(client);
	ops->ep_destroy(serving);
	ops->close(u);
}

int test_ucx_wire_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plugin_ignores_or_refuses_bad_messages),
		cmocka_unit_test(test_plugin_refuses_bad_info),
	};

	return cmocka_run_group_tests_name("adxl-ucx.so against a bad peer",
					   tests, NULL, NULL);
}
