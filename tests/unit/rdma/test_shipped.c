// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The adxl-rdma.so that lib/Makefile builds (and libmemreg dlopen()s),
 * not this suite's build of its sources: it exports its one symbol and
 * nothing else, and, built against the real libibverbs, it binds to
 * this process's libibverbs.so.1 (the fake, whose symbol versions are
 * the real one's) and works.  MEMREG_ADXL_RDMA_PLUGIN names it; the
 * test is skipped where it was not built.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests.h"

static void shipped_plugin(void **state)
{
	const char *path = getenv("MEMREG_ADXL_RDMA_PLUGIN");
	const struct adxl_plugin *(*get)(void);
	const struct adxl_plugin *ops;
	struct adxl_plugin_conf conf = { 0 };
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	uint8_t mine[ADXL_PLUGIN_INFO_MAX], theirs[ADXL_PLUGIN_INFO_MAX];
	size_t nm = sizeof(mine), nt = sizeof(theirs);
	struct adxl_plugin_ep *q = NULL, *p = NULL;
	struct adxl_plugin_mem *ms = NULL, *md = NULL;
	struct adxl_plugin_ctx *r = NULL;
	struct adxl_plugin_op op;
	unsigned char *src, *dst;
	uint32_t kd;
	void *h;

	(void)state;
	if (!path || access(path, R_OK))
		skip();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen: %s", dlerror());
	*(void **)&get = dlsym(h, ADXL_PLUGIN_ENTRY);
	assert_non_null(get);
	assert_null(dlsym(h, "rdmap_xfer"));
	assert_null(dlsym(h, "rdmap_mr_reg"));
	ops = get();
	assert_string_equal(ops->transport, "rdma");

	assert_ok(ops->open(&conf, &r, err), err);
	assert_string_equal(ops->describe(r), "fake0 port 1, RoCE v2, GID ::ffff:10.9.0.1 (index 3), MTU 1024, a memory window per peer");
	src = malloc(1 << 20);
	dst = calloc(1, 1 << 20);
	assert_non_null(src);
	assert_non_null(dst);
	fill_pattern(src, 1 << 20);
	assert_ok(ops->mem_reg(r, src, 1 << 20, &ms, err), err);
	assert_ok(ops->mem_reg(r, dst, 1 << 20, &md, err), err);
	assert_ok(ops->ep_create(r, true, NULL, mine, &nm, &q, err), err);
	assert_ok(ops->ep_create(r, true, NULL, theirs, &nt, &p, err), err);
	assert_ok(ops->ep_connect(p, mine, nm, -1, err), err);
	assert_ok(ops->ep_connect(q, theirs, nt, -1, err), err);
	assert_ok(ops->ep_grant(p, md, &kd, err), err);
	assert_int_not_equal(kd, 0);
	op = (struct adxl_plugin_op){ (uintptr_t)src, (uintptr_t)dst, 1 << 20, kd };
	assert_ok(ops->xfer(q, true, &op, 1, now_ms() + 10000, err), err);
	assert_memory_equal(dst, src, 1 << 20);

	ops->ep_destroy(q);
	ops->ep_destroy(p);
	ops->mem_dereg(r, ms);
	ops->mem_dereg(r, md);
	ops->close(r);
	free(src);
	free(dst);
	dlclose(h);
}

int test_shipped_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(shipped_plugin, fresh,
						all_freed),
	};

	return cmocka_run_group_tests_name("shipped", tests, NULL, NULL);
}
