// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Registrations: what mr_reg says when the NIC refuses a range (the
 * usual cause being RLIMIT_MEMLOCK), that an rkey is dead once mr_dereg
 * returns, that a local range must lie in one MR of ours, and that
 * close() frees what an engine left registered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "tests.h"

static void mr_empty(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_mem *m = NULL;
	struct adxl_plugin_ctx *r = NULL;
	unsigned char buf[16];
	uint32_t key;

	(void)state;
	assert_ok(dev_open(&r, err), err);
	assert_int_equal(mr_reg(r, buf, 0, &m, &key, err), -EINVAL);
	assert_glob(err, "ibv_reg_mr \\[0x*, +0): an empty range");
	rd->close(r);
}

/* mr_reg's message when ibv_reg_mr fails with @e. */
static void reg_fails(struct adxl_plugin_ctx *r, int e, int want, const char *tail)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "", pattern[256];
	struct adxl_plugin_mem *m = NULL;
	unsigned char buf[4096];
	uint32_t key;

	fake_fail(FAKE_REG_MR, e, 0, 1);
	assert_int_equal(mr_reg(r, buf, sizeof(buf), &m, &key, err), want);
	snprintf(pattern, sizeof(pattern), "ibv_reg_mr \\[0x*, +4096): %s%s",
		 strerror(e), tail);
	assert_glob(err, pattern);
}

static void mr_refused(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_ctx *r = NULL;
	struct rlimit old, low;
	char tail[64];

	(void)state;
	assert_ok(dev_open(&r, err), err);
	/* The hint names the limit as it is: make it one we know. */
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &old), 0);
	low = old;
	low.rlim_cur = 8192 << 10;
	if (old.rlim_max != RLIM_INFINITY && old.rlim_max < low.rlim_cur)
		low.rlim_cur = old.rlim_max & ~(rlim_t)1023;
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &low), 0);
	snprintf(tail, sizeof(tail), " (RLIMIT_MEMLOCK? ulimit -l is %llu KiB)",
		 (unsigned long long)low.rlim_cur >> 10);
	reg_fails(r, ENOMEM, -ENOMEM, tail);
	reg_fails(r, EPERM, -EPERM, tail);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &old), 0);
	reg_fails(r, EFAULT, -EFAULT, " (not mapped, or memory the kernel cannot pin)");
	reg_fails(r, EINVAL, -EINVAL, "");
	rd->close(r);
}

/*
 * A local range must lie in one MR: straddling two is refused, and one
 * deregistered is not found any more (not even as the last one used).
 */
static void mr_local_lookup(void **state)
{
	struct link *l = *state;
	char err[ADXL_PLUGIN_ERR_LEN] = "", msg[ADXL_PLUGIN_ERR_LEN];
	size_t half = l->len / 2;
	struct adxl_plugin_mem *a = NULL, *b = NULL;
	unsigned char *buf = malloc(l->len);
	struct adxl_plugin_op op;
	uint32_t ka, kb;

	assert_non_null(buf);
	fill_pattern(buf, l->len);
	assert_ok(mr_reg(l->cli, buf, half, &a, &ka, err), err);
	assert_ok(mr_reg(l->cli, buf + half, l->len - half, &b, &kb, err),
		  err);

	/* each half from its own MR */
	op = (struct adxl_plugin_op){ (uintptr_t)buf + half, (uintptr_t)l->dst + half,
				    l->len - half, l->kdst };
	assert_ok(rd->xfer(l->q, true, &op, 1, -1, err), err);
	op = (struct adxl_plugin_op){ (uintptr_t)buf, (uintptr_t)l->dst, half, l->kdst };
	assert_ok(rd->xfer(l->q, true, &op, 1, -1, err), err);
	assert_memory_equal(l->dst, buf, l->len);

	/* across the two */
	op = (struct adxl_plugin_op){ (uintptr_t)buf + half - 1, (uintptr_t)l->dst, 2, l->kdst };
	assert_int_equal(rd->xfer(l->q, true, &op, 1, -1, err), -EFAULT);
	snprintf(msg, sizeof(msg), "local [0x%llx, +2) (range 0 of 1) is in no MR of ours",
		 (unsigned long long)op.local);
	assert_string_equal(err, msg);
	assert_false(rd->ep_failed(l->q));

	/* the last MR used, deregistered */
	op = (struct adxl_plugin_op){ (uintptr_t)buf, (uintptr_t)l->dst, 64, l->kdst };
	assert_ok(rd->xfer(l->q, true, &op, 1, -1, err), err);
	rd->mem_dereg(l->cli, a);
	assert_int_equal(rd->xfer(l->q, true, &op, 1, -1, err), -EFAULT);
	assert_false(rd->ep_failed(l->q));
	rd->mem_dereg(l->cli, b);
	free(buf);
}

/* close() of an engine with MRs left frees them before its PD. */
static void mr_left_at_close(void **state)
{
	char err[ADXL_PLUGIN_ERR_LEN] = "";
	struct adxl_plugin_mem *m[3];
	struct adxl_plugin_ctx *r = NULL;
	unsigned char buf[3][4096];
	uint32_t keys[3];
	int i;

	(void)state;
	assert_ok(dev_open(&r, err), err);
	for (i = 0; i < 3; i++)
		assert_ok(mr_reg(r, buf[i], sizeof(buf[i]), &m[i], &keys[i], err),
			  err);
	/* with memory windows, no MR is reachable by its own rkey */
	for (i = 0; i < 3; i++)
		assert_int_equal(keys[i], 0);
	rd->close(r);
	/* all_freed(): no MR, PD or context left, the PD freed last */
}

int test_mr_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(mr_empty, fresh, all_freed),
		cmocka_unit_test_setup_teardown(mr_refused, fresh, all_freed),
		cmocka_unit_test_setup_teardown(mr_local_lookup, link_setup,
						link_teardown),
		cmocka_unit_test_setup_teardown(mr_left_at_close, fresh,
						all_freed),
	};

	return cmocka_run_group_tests_name("mr", tests, NULL, NULL);
}
