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
	const struct adxl_rdma_ops *(*get)(void);
	const struct adxl_rdma_ops *ops;
	char err[ADXL_RDMA_ERR_LEN] = "";
	struct adxl_rdma_qpinfo mine, theirs;
	struct adxl_rdma_qp *q = NULL, *p = NULL;
	struct adxl_rdma_mr *ms = NULL, *md = NULL;
	struct adxl_rdma *r = NULL;
	struct adxl_rdma_op op;
	unsigned char *src, *dst;
	uint32_t ks, kd;
	void *h;

	(void)state;
	if (!path || access(path, R_OK))
		skip();
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen: %s", dlerror());
	*(void **)&get = dlsym(h, ADXL_RDMA_PLUGIN_SYM);
	assert_non_null(get);
	assert_null(dlsym(h, "rdmap_xfer"));
	assert_null(dlsym(h, "rdmap_mr_reg"));
	ops = get();
	assert_int_equal(ops->abi, ADXL_RDMA_PLUGIN_ABI);

	assert_ok(ops->open(&r, err), err);
	assert_string_equal(ops->describe(r), "fake0 port 1, RoCE v2, GID ::ffff:10.9.0.1 (index 3), MTU 1024, a memory window per peer");
	src = malloc(1 << 20);
	dst = calloc(1, 1 << 20);
	assert_non_null(src);
	assert_non_null(dst);
	fill_pattern(src, 1 << 20);
	assert_ok(ops->mr_reg(r, src, 1 << 20, &ms, &ks, err), err);
	assert_ok(ops->mr_reg(r, dst, 1 << 20, &md, &kd, err), err);
	assert_ok(ops->qp_create(r, true, NULL, &mine, &q, err), err);
	assert_ok(ops->qp_create(r, true, NULL, &theirs, &p, err), err);
	assert_ok(ops->qp_connect(p, &mine, 0, 0, err), err);
	assert_ok(ops->qp_connect(q, &theirs, 0, 0, err), err);
	assert_int_equal(kd, 0);
	assert_ok(ops->mr_grant(p, md, &kd, err), err);
	op = (struct adxl_rdma_op){ (uintptr_t)src, (uintptr_t)dst, 1 << 20, kd };
	assert_ok(ops->xfer(q, true, &op, 1, now_ms() + 10000, err), err);
	assert_memory_equal(dst, src, 1 << 20);

	ops->qp_destroy(q);
	ops->qp_destroy(p);
	ops->mr_dereg(r, ms);
	ops->mr_dereg(r, md);
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
