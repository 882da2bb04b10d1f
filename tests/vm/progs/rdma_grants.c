// SPDX-License-Identifier: GPL-2.0
/*
 * What a peer of an ADXL engine may reach over RDMA, on a real verbs
 * device (rxe): the RDMA plugin (lib/rdma, adxl-rdma.so) driven directly,
 * two serving queue pairs each connected to a client queue pair of the
 * same device (rxe loops back).
 *
 *   - an rkey granted on one serving queue pair reads and writes the
 *     whole registration, byte-checked, and is refused on the other;
 *   - after mem_dereg every grant of the MR is refused, and the refused
 *     READ leaves the reader's buffer as it was;
 *   - with MEMREG_ADXL_RDMA_WINDOWS=0 a grant is the MR's own rkey, which
 *     every queue pair accepts (what a NIC without memory windows gets).
 *
 *   MEMREG_ADXL_RDMA_DEVICE   the device (set by rdma_pair.sh: rxe0)
 *   MEMREG_TEST_RDMA_PLUGIN   the plugin (default: beside this program,
 *                             ../../lib/memreg/adxl-rdma.so)
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../../lib/adxl/plugin.h"
#include "memtest.h"

#define LEN	(1U << 20)
#define DEADLINE_MS	30000

static const struct adxl_plugin *ops;

/* Still the 0xee a refused READ must not have touched, every byte. */
static bool untouched(const char *p)
{
	size_t i;

	for (i = 0; i < LEN; i++)
		if ((unsigned char)p[i] != 0xee)
			return false;
	return true;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int load_plugin(void **state)
{
	const char *path = getenv("MEMREG_TEST_RDMA_PLUGIN");
	char self[PATH_MAX], def[PATH_MAX + 64];
	const struct adxl_plugin *(*get)(void);
	ssize_t n;
	void *h;

	(void)state;
	if (!path) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n < 0)
			return -1;
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		snprintf(def, sizeof(def), "%s/../../lib/memreg/adxl-rdma.so",
			 self);
		path = def;
	}
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		return -1;
	}
	*(void **)&get = dlsym(h, ADXL_PLUGIN_ENTRY);
	ops = get ? get() : NULL;
	return ops && !strcmp(ops->transport, "rdma") ? 0 : -1;
}

/* A serving queue pair and the client queue pair connected to it. */
struct link {
	struct adxl_plugin_ep *serve, *client;
};

static void link_up(struct adxl_plugin_ctx *r, struct link *l)
{
	uint8_t si[ADXL_PLUGIN_INFO_MAX], ci[ADXL_PLUGIN_INFO_MAX];
	size_t sn = sizeof(si), cn = sizeof(ci);
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	/* what each end's info says goes to the other, as over ADXL's link */
	if (ops->ep_create(r, true, NULL, si, &sn, &l->serve, err) ||
	    ops->ep_create(r, false, NULL, ci, &cn, &l->client, err) ||
	    ops->ep_connect(l->serve, ci, cn, -1, err) ||
	    ops->ep_connect(l->client, si, sn, -1, err))
		fail_msg("queue pairs: %s", err);
}

static void link_down(struct link *l)
{
	ops->ep_destroy(l->client);
	ops->ep_destroy(l->serve);
}

/* One READ or WRITE of all of @local from/to @remote: 0 or -errno. */
static int xfer(struct link *l, bool write, void *local, void *remote,
		uint32_t rkey, char *err)
{
	struct adxl_plugin_op op = {
		.local = (uintptr_t)local, .remote = (uintptr_t)remote,
		.len = LEN, .key = rkey,
	};

	return ops->xfer(l->client, write, &op, 1, now_ms() + DEADLINE_MS,
			 err);
}

struct bufs {
	char *srv, *cli;
	struct adxl_plugin_mem *msrv, *mcli;
};

static void bufs_get(struct adxl_plugin_ctx *r, struct bufs *b)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";

	b->srv = memtest_map(MEMTEST_ANON, LEN);
	b->cli = memtest_map(MEMTEST_ANON, LEN);
	assert_non_null(b->srv);
	assert_non_null(b->cli);
	if (ops->mem_reg(r, b->srv, LEN, &b->msrv, err) ||
	    ops->mem_reg(r, b->cli, LEN, &b->mcli, err))
		fail_msg("mem_reg: %s", err);
}

static void bufs_put(struct adxl_plugin_ctx *r, struct bufs *b)
{
	if (b->msrv)
		ops->mem_dereg(r, b->msrv);
	ops->mem_dereg(r, b->mcli);
	memtest_unmap(b->srv, LEN);
	memtest_unmap(b->cli, LEN);
}

static struct adxl_plugin_ctx *open_dev(void)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_conf conf = { 0 };
	struct adxl_plugin_ctx *r;

	if (ops->open(&conf, &r, err))
		fail_msg("open: %s", err);
	return r;
}

static void test_grant_is_per_queue_pair(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r;
	struct link a, b;
	struct bufs m;
	uint32_t ka, kb;
	int ret;

	(void)state;
	unsetenv("MEMREG_ADXL_RDMA_WINDOWS");
	r = open_dev();
	print_message("device: %s\n", ops->describe(r));
	assert_non_null(strstr(ops->describe(r), "a memory window per peer"));
	bufs_get(r, &m);
	link_up(r, &a);
	link_up(r, &b);
	if (ops->ep_grant(a.serve, m.msrv, &ka, err) ||
	    ops->ep_grant(b.serve, m.msrv, &kb, err))
		fail_msg("ep_grant: %s", err);
	assert_int_not_equal(ka, kb);

	/* each peer through its own grant: READ, then WRITE, every byte */
	memtest_fill(m.srv, LEN, 21);
	ret = xfer(&a, false, m.cli, m.srv, ka, err);
	if (ret)
		fail_msg("READ through a's grant: %s", err);
	assert_true(memtest_same(m.cli, LEN, 21));
	memtest_fill(m.cli, LEN, 22);
	ret = xfer(&b, true, m.cli, m.srv, kb, err);
	if (ret)
		fail_msg("WRITE through b's grant: %s", err);
	assert_true(memtest_same(m.srv, LEN, 22));

	/* b with a's grant: refused, and nothing read */
	memset(m.cli, 0xee, LEN);
	ret = xfer(&b, false, m.cli, m.srv, ka, err);
	print_message("b with a's rkey: %s\n", err);
	assert_int_equal(ret, -EACCES);
	assert_true(ops->ep_failed(b.client));
	assert_true(untouched(m.cli));
	/* a still reads */
	ret = xfer(&a, false, m.cli, m.srv, ka, err);
	if (ret)
		fail_msg("READ through a's grant after b's refusal: %s", err);
	assert_true(memtest_same(m.cli, LEN, 22));

	/* deregistered: a's grant is refused, its buffer untouched */
	ops->mem_dereg(r, m.msrv);
	m.msrv = NULL;
	memset(m.cli, 0xee, LEN);
	ret = xfer(&a, false, m.cli, m.srv, ka, err);
	print_message("a after mem_dereg: %s\n", err);
	assert_int_equal(ret, -EACCES);
	assert_true(untouched(m.cli));

	link_down(&a);
	link_down(&b);
	bufs_put(r, &m);
	ops->close(r);
}

static void test_without_windows(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r;
	struct link a, b;
	struct bufs m;
	uint32_t ka, kb;
	int ret;

	(void)state;
	setenv("MEMREG_ADXL_RDMA_WINDOWS", "0", 1);
	r = open_dev();
	unsetenv("MEMREG_ADXL_RDMA_WINDOWS");
	assert_non_null(strstr(ops->describe(r),
			       "one rkey per registration for every peer"));
	bufs_get(r, &m);
	link_up(r, &a);
	link_up(r, &b);
	/* the MR's own rkey, the same whichever queue pair grants it */
	if (ops->ep_grant(a.serve, m.msrv, &ka, err) ||
	    ops->ep_grant(b.serve, m.msrv, &kb, err))
		fail_msg("ep_grant: %s", err);
	assert_int_not_equal(ka, 0);
	assert_int_equal(ka, kb);
	/* the one rkey works on any queue pair: only Connect's allow-list */
	memtest_fill(m.srv, LEN, 31);
	ret = xfer(&b, false, m.cli, m.srv, ka, err);
	if (ret)
		fail_msg("READ through the MR's rkey on b: %s", err);
	assert_true(memtest_same(m.cli, LEN, 31));
	/* deregistered: refused there too */
	ops->mem_dereg(r, m.msrv);
	m.msrv = NULL;
	memset(m.cli, 0xee, LEN);
	assert_int_equal(xfer(&a, false, m.cli, m.srv, ka, err), -EACCES);
	assert_true(untouched(m.cli));

	link_down(&a);
	link_down(&b);
	bufs_put(r, &m);
	ops->close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grant_is_per_queue_pair),
		cmocka_unit_test(test_without_windows),
	};

	return cmocka_run_group_tests_name("rdma_grants", tests, load_plugin,
					   NULL);
}
