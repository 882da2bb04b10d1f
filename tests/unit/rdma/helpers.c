// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the tests of adxl-rdma.so share: a clean start and a clean end
 * for each, messages matched by pattern, and a link of two engines.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests.h"

static const char *const plugin_env[] = {
	"MEMREG_ADXL_RDMA_DEVICE",
	"MEMREG_ADXL_RDMA_GID_INDEX",
	"MEMREG_ADXL_RDMA_CHUNK",
	"MEMREG_ADXL_RDMA_WINDOWS",
};

int fresh(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(plugin_env) / sizeof(plugin_env[0]); i++)
		unsetenv(plugin_env[i]);
	fake_reset();
	return 0;
}

int all_freed(void **state)
{
	char live[256], misuse[2048];

	(void)state;
	if (fake_live_objects(live, sizeof(live)))
		fail_msg("left behind: %s", live);
	if (fake_misuse(misuse, sizeof(misuse)))
		fail_msg("a real libibverbs would have refused or hung:\n%s",
			 misuse);
	return 0;
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(unsigned int ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000,
		.tv_nsec = (long)(ms % 1000) * 1000000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void check_glob(const char *text, const char *pattern, const char *file,
		int line)
{
	if (fnmatch(pattern, text, 0)) {
		print_error("\"%s\"\n    does not match \"%s\"\n", text,
			    pattern);
		_fail(file, line);
	}
}

void fill_pattern(unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + (i >> 13));
}

bool all_bytes(const unsigned char *buf, size_t len, unsigned char byte)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != byte)
			return false;
	return true;
}

int dev_open(struct adxl_plugin_ctx **out, char *err)
{
	static const struct adxl_plugin_conf conf;

	return rd->open(&conf, out, err);
}

int mr_reg(struct adxl_plugin_ctx *r, void *addr, size_t len,
	   struct adxl_plugin_mem **out, uint32_t *rkey, char *err)
{
	int ret = rd->mem_reg(r, addr, len, out, err);

	if (!ret)
		*rkey = r->windows ? 0 : (*out)->mr->rkey;
	return ret;
}

int qp_create(struct adxl_plugin_ctx *r, bool serve, const uint8_t *local_ip,
	      struct adxl_rdma_qpinfo *mine, struct adxl_plugin_ep **out,
	      char *err)
{
	uint8_t info[ADXL_PLUGIN_INFO_MAX];
	size_t len = sizeof(info);
	int ret = rd->ep_create(r, serve, local_ip, info, &len, out, err);

	if (!ret)
		assert_int_equal(rdmap_qpinfo_get(info, len, mine), 0);
	return ret;
}

int qp_connect(struct adxl_plugin_ep *q, const struct adxl_rdma_qpinfo *peer,
	       unsigned int tc, unsigned int sl, char *err)
{
	uint8_t info[QPINFO_LEN];

	q->r->traffic_class = tc;
	q->r->service_level = sl;
	rdmap_qpinfo_put(peer, info);
	return rd->ep_connect(q, info, sizeof(info), -1, err);
}

static struct adxl_plugin_ctx *engine(const char *dev)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r = NULL;

	if (dev)
		setenv("MEMREG_ADXL_RDMA_DEVICE", dev, 1);
	else
		unsetenv("MEMREG_ADXL_RDMA_DEVICE");
	assert_ok(dev_open(&r, err), err);
	unsetenv("MEMREG_ADXL_RDMA_DEVICE");
	return r;
}

static struct adxl_plugin_mem *reg(struct adxl_plugin_ctx *r, void *buf, size_t len,
				uint32_t *key)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_mem *m = NULL;

	assert_ok(mr_reg(r, buf, len, &m, key, err), err);
	return m;
}

void link_up(struct link *l, size_t len, const char *cli_dev,
	     const char *srv_dev)
{
	memset(l, 0, sizeof(*l));
	l->len = len;
	l->src = malloc(len);
	l->back = calloc(1, len);
	l->dst = calloc(1, len);
	assert_non_null(l->src);
	assert_non_null(l->back);
	assert_non_null(l->dst);
	fill_pattern(l->src, len);
	l->cli = engine(cli_dev);
	l->srv = engine(srv_dev);
	l->msrc = reg(l->cli, l->src, len, &l->ksrc);
	l->mback = reg(l->cli, l->back, len, &l->kback);
	l->mdst = reg(l->srv, l->dst, len, &l->kdst);
	link_reconnect(l);
}

void link_reconnect(struct link *l)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	if (l->q)
		rd->ep_destroy(l->q);
	if (l->peer)
		rd->ep_destroy(l->peer);
	l->q = l->peer = NULL;
	/* as the engines make them: the client's only initiates */
	assert_ok(qp_create(l->cli, false, NULL, &l->qi, &l->q, err), err);
	assert_ok(qp_create(l->srv, true, NULL, &l->pi, &l->peer, err), err);
	/* As the engines do over their control connection. */
	assert_ok(qp_connect(l->peer, &l->qi, 0, 0, err), err);
	assert_ok(qp_connect(l->q, &l->pi, 0, 0, err), err);
	/* and the server grants this peer its MR, as at Connect */
	if (l->mdst)
		assert_ok(rd->ep_grant(l->peer, l->mdst, &l->kdst, err), err);
}

void link_down(struct link *l)
{
	if (l->q)
		rd->ep_destroy(l->q);
	if (l->peer)
		rd->ep_destroy(l->peer);
	if (l->msrc)
		rd->mem_dereg(l->cli, l->msrc);
	if (l->mback)
		rd->mem_dereg(l->cli, l->mback);
	if (l->mdst)
		rd->mem_dereg(l->srv, l->mdst);
	if (l->cli)
		rd->close(l->cli);
	if (l->srv)
		rd->close(l->srv);
	free(l->src);
	free(l->back);
	free(l->dst);
	memset(l, 0, sizeof(*l));
}

struct adxl_plugin_op wr_op(const struct link *l, size_t off, size_t len)
{
	return (struct adxl_plugin_op){
		.local = (uintptr_t)l->src + off,
		.remote = (uintptr_t)l->dst + off,
		.len = len,
		.key = l->kdst,
	};
}

struct adxl_plugin_op rd_op(const struct link *l, size_t off, size_t len)
{
	return (struct adxl_plugin_op){
		.local = (uintptr_t)l->back + off,
		.remote = (uintptr_t)l->dst + off,
		.len = len,
		.key = l->kdst,
	};
}

int link_setup(void **state)
{
	struct link *l = calloc(1, sizeof(*l));

	if (!l)
		return -1;
	fresh(state);
	link_up(l, LINK_LEN, NULL, NULL);
	*state = l;
	return 0;
}

int link_teardown(void **state)
{
	struct link *l = *state;

	link_down(l);
	free(l);
	return all_freed(state);
}
