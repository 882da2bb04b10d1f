// SPDX-License-Identifier: GPL-2.0
/*
 * CANN's VMM calls and shareable handles on the real module.  One
 * process: a reserved range, two pieces of physical memory mapped side
 * by side, a copy across both and back, everything freed leaving no
 * device bytes used.  Two processes: A exports a handle (pid check on),
 * B (this program exec'd) is refused until A names its bare tgid, then
 * imports, maps into a range of its own, reads A's bytes and writes some
 * back that A sees through its own mapping.
 *
 * B runs as "itest_aclvmm child HANDLE EXPECT": it writes its tgid to
 * stdout and, for each byte on stdin, tries the import; "perm" wants
 * ACL_ERROR_RT_NO_PERMISSION once and then (next byte) success.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#define GRAN		(2UL << 20)
#define BACK_LEN	8192
#define BACK_BYTE	0xa7

static struct memreg_ctx *mctx;	/* the test's own view of the module */

static const aclrtPhysicalMemProp dev0 = {
	.handleType = ACL_MEM_HANDLE_TYPE_NONE,
	.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED,
	.memAttr = ACL_HBM_MEM_HUGE,
	.location = { .id = 0, .type = ACL_MEM_LOCATION_TYPE_DEVICE },
};

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 29 + 3);
}

static uint64_t dev_used(void)
{
	struct memreg_dev_stat st;

	assert_int_equal(memreg_dev_stat(mctx, 0, &st), 0);
	return st.used;
}

/* ---- B ---- */

static int child(uint64_t shareable)
{
	unsigned char *buf = malloc(GRAN);
	aclrtDrvMemHandle h = NULL;
	int32_t tgid;
	void *va = NULL;
	aclError ret;
	size_t i;
	char go;

	if (!buf || aclInit(NULL) || aclrtSetDevice(0) ||
	    aclrtDeviceGetBareTgid(&tgid))
		return 10;
	if (write(1, &tgid, sizeof(tgid)) != sizeof(tgid))
		return 11;
	/* Not named yet: the kernel refuses. */
	if (read(0, &go, 1) != 1)
		return 11;
	ret = aclrtMemImportFromShareableHandle(shareable, 0, &h);
	if (ret != ACL_ERROR_RT_NO_PERMISSION || h) {
		fprintf(stderr, "child: import: %d, want %d\n", ret,
			ACL_ERROR_RT_NO_PERMISSION);
		return 12;
	}
	if (write(1, "r", 1) != 1 || read(0, &go, 1) != 1)
		return 11;
	ret = aclrtMemImportFromShareableHandle(shareable, 0, &h);
	if (ret) {
		fprintf(stderr, "child: import: %d (%s)\n", ret,
			aclGetRecentErrMsg());
		return 13;
	}
	if (aclrtReserveMemAddress(&va, GRAN, 0, NULL, 0) ||
	    aclrtMapMem(va, GRAN, 0, h, 0)) {
		fprintf(stderr, "child: map: %s\n", aclGetRecentErrMsg());
		return 14;
	}
	if (aclrtMemcpy(buf, GRAN, va, GRAN, ACL_MEMCPY_DEVICE_TO_HOST))
		return 15;
	for (i = 0; i < GRAN; i++)
		if (buf[i] != pattern(i)) {
			fprintf(stderr, "child: byte %zu is %#x\n", i, buf[i]);
			return 16;
		}
	memset(buf, BACK_BYTE, BACK_LEN);
	if (aclrtMemcpy(va, GRAN, buf, BACK_LEN, ACL_MEMCPY_HOST_TO_DEVICE))
		return 17;
	if (aclrtUnmapMem(va) || aclrtFreePhysical(h) ||
	    aclrtReleaseMemAddress(va) || aclFinalize())
		return 18;
	free(buf);
	return 0;
}

/* ---- A ---- */

static void test_map_roundtrip(void **state)
{
	unsigned char *in = malloc(GRAN), *out = malloc(GRAN);
	uint64_t before = dev_used();
	aclrtDrvMemHandle a, b;
	size_t g = 0, i;
	char *va;

	(void)state;
	assert_non_null(in);
	assert_non_null(out);
	for (i = 0; i < GRAN; i++)
		in[i] = pattern(i);
	assert_int_equal(aclrtMemGetAllocationGranularity(
		(aclrtPhysicalMemProp *)&dev0,
		ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g), ACL_SUCCESS);
	assert_int_equal(g, GRAN);
	assert_int_equal(aclrtReserveMemAddress((void **)&va, 2 * GRAN, 0,
						NULL, 0), ACL_SUCCESS);
	assert_int_equal((uintptr_t)va % (2 * GRAN), 0);
	assert_int_equal(aclrtMallocPhysical(&a, GRAN, &dev0, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMallocPhysical(&b, GRAN, &dev0, 0), ACL_SUCCESS);
	assert_int_equal(dev_used(), before + 2 * GRAN);
	assert_int_equal(aclrtMapMem(va, GRAN, 0, a, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(va + GRAN, GRAN, 0, b, 0), ACL_SUCCESS);
	/* Across the seam of the two mappings, there and back. */
	assert_int_equal(aclrtMemcpy(va + GRAN / 2, GRAN, in, GRAN,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpyAsync(out, GRAN, va + GRAN / 2, GRAN,
					  ACL_MEMCPY_DEVICE_TO_HOST, NULL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeDevice(), ACL_SUCCESS);
	assert_memory_equal(out, in, GRAN);
	/* b's bytes survive a remap at the other place. */
	assert_int_equal(aclrtUnmapMem(va + GRAN), ACL_SUCCESS);
	assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(va, GRAN, 0, b, 0), ACL_SUCCESS);
	assert_memory_equal(va, in + GRAN / 2, GRAN / 2);
	assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(a), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(b), ACL_SUCCESS);
	assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
	assert_int_equal(dev_used(), before);
	free(in);
	free(out);
}

static void test_share(void **state)
{
	unsigned char *buf = malloc(GRAN);
	uint64_t before = dev_used(), s = 0;
	int in[2], out[2], status;
	aclrtDrvMemHandle h;
	char arg[32], r;
	int32_t tgid;
	pid_t pid;
	size_t i;
	char *va;

	(void)state;
	assert_non_null(buf);
	for (i = 0; i < GRAN; i++)
		buf[i] = pattern(i);
	assert_int_equal(aclrtReserveMemAddress((void **)&va, GRAN, 0, NULL,
						0), ACL_SUCCESS);
	assert_int_equal(aclrtMallocPhysical(&h, GRAN, &dev0, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMapMem(va, GRAN, 0, h, 0), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(va, GRAN, buf, GRAN,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemExportToShareableHandle(h,
			 ACL_MEM_HANDLE_TYPE_NONE,
			 ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &s), ACL_SUCCESS);
	assert_true(s != 0);

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	snprintf(arg, sizeof(arg), "%#llx", (unsigned long long)s);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl("/proc/self/exe", "itest_aclvmm", "child", arg,
		      (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	assert_int_equal(read(out[0], &tgid, sizeof(tgid)), sizeof(tgid));
	assert_int_equal(tgid, pid);
	/* First try: not on the list. */
	assert_int_equal(write(in[1], "g", 1), 1);
	assert_int_equal(read(out[0], &r, 1), 1);
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &tgid, 1),
			 ACL_SUCCESS);
	assert_int_equal(write(in[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(in[1]);
	close(out[0]);

	/* B's bytes, through A's own mapping. */
	for (i = 0; i < BACK_LEN; i++)
		assert_int_equal((unsigned char)va[i], BACK_BYTE);
	for (; i < GRAN; i++)
		assert_int_equal((unsigned char)va[i], pattern(i));
	assert_int_equal(aclrtUnmapMem(va), ACL_SUCCESS);
	assert_int_equal(aclrtFreePhysical(h), ACL_SUCCESS);
	/* The name went with the handle. */
	assert_int_equal(aclrtMemSetPidToShareableHandle(s, &tgid, 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReleaseMemAddress(va), ACL_SUCCESS);
	assert_int_equal(dev_used(), before);
	free(buf);
}

static int setup(void **state)
{
	(void)state;
	if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return memreg_open(&mctx) ? -1 : 0;
}

static int teardown(void **state)
{
	uint64_t used;

	(void)state;
	if (aclFinalize() != ACL_SUCCESS)
		return -1;
	/* Nothing of this test left on the device. */
	used = dev_used();
	memreg_close(mctx);
	return used ? -1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_roundtrip),
		cmocka_unit_test(test_share),
	};

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(strtoull(argv[2], NULL, 0));
	return cmocka_run_group_tests_name("aclvmm", tests, setup, teardown);
}
