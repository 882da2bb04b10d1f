// SPDX-License-Identifier: GPL-2.0
/*
 * aclrtIpcMem* between two processes on the real module: A allocates and
 * fills device memory and exports a key with the pid check on; a process
 * B that A did not name is refused (the kernel checks, not the library);
 * once A names B's aclrtDeviceGetBareTgid, B imports, reads A's bytes
 * with aclrtMemcpy and writes some back that A sees.  With
 * DISABLE_PID_VALIDATION any process imports.  Importer close, exporter
 * close and aclrtFree leave no device bytes used.
 *
 * B is this program again (exec'd: an ACL runtime does not survive fork),
 * run as "itest_aclipc child KEY LEN EXPECT": it writes its tgid to
 * stdout, waits for a byte on stdin, imports, and exits 0 when the result
 * is EXPECT ("ok": the bytes are A's, and it wrote its own; "perm":
 * refused with ACL_ERROR_RT_NO_PERMISSION).
 */
#include <errno.h>
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

#define KEY_LEN		65
#define BUF_LEN		(1UL << 20)
#define BACK_LEN	4096		/* what B writes back */
#define BACK_BYTE	0x5a

static struct memreg_ctx *mctx;	/* the test's own view of the module */

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 31 + 7);
}

/* ---- B ---- */

static int child(const char *key, size_t len, const char *expect)
{
	unsigned char *buf = malloc(len);
	int32_t tgid;
	void *q = NULL;
	aclError ret;
	size_t i;
	char go;

	if (!buf || aclInit(NULL) || aclrtSetDevice(0) ||
	    aclrtDeviceGetBareTgid(&tgid))
		return 10;
	if (write(1, &tgid, sizeof(tgid)) != sizeof(tgid) ||
	    read(0, &go, 1) != 1)
		return 11;
	ret = aclrtIpcMemImportByKey(&q, key,
				     ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT);
	if (!strcmp(expect, "perm")) {
		if (ret != ACL_ERROR_RT_NO_PERMISSION || q) {
			fprintf(stderr, "child: import: %d, want %d\n", ret,
				ACL_ERROR_RT_NO_PERMISSION);
			return 12;
		}
		return aclFinalize() ? 13 : 0;
	}
	if (ret) {
		fprintf(stderr, "child: import: %d (%s)\n", ret,
			aclGetRecentErrMsg());
		return 14;
	}
	/* A's bytes, read as device memory of this process. */
	if (aclrtMemcpy(buf, len, q, len, ACL_MEMCPY_DEVICE_TO_HOST))
		return 15;
	for (i = 0; i < len; i++)
		if (buf[i] != pattern(i)) {
			fprintf(stderr, "child: byte %zu is %#x\n", i, buf[i]);
			return 16;
		}
	memset(buf, BACK_BYTE, BACK_LEN);
	if (aclrtMemcpy(q, len, buf, BACK_LEN, ACL_MEMCPY_HOST_TO_DEVICE))
		return 17;
	/* The importer closes first, as CANN asks. */
	if (aclrtIpcMemClose(key) || aclFinalize())
		return 18;
	free(buf);
	return 0;
}

/* ---- A ---- */

struct peer {
	pid_t pid;
	int to, from;		/* its stdin, its stdout */
	int32_t tgid;		/* what it read from aclrtDeviceGetBareTgid */
};

static void spawn(struct peer *b, const char *key, size_t len,
		  const char *expect)
{
	int in[2], out[2];
	char lenstr[32];

	assert_int_equal(pipe(in), 0);
	assert_int_equal(pipe(out), 0);
	snprintf(lenstr, sizeof(lenstr), "%zu", len);
	b->pid = fork();
	assert_true(b->pid >= 0);
	if (!b->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl("/proc/self/exe", "itest_aclipc", "child", key, lenstr,
		      expect, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	b->to = in[1];
	b->from = out[0];
	assert_int_equal(read(b->from, &b->tgid, sizeof(b->tgid)),
			 sizeof(b->tgid));
	assert_int_equal(b->tgid, b->pid);
}

/* Let B import now; its exit status. */
static int go(struct peer *b)
{
	int status;

	assert_int_equal(write(b->to, "g", 1), 1);
	assert_int_equal(waitpid(b->pid, &status, 0), b->pid);
	close(b->to);
	close(b->from);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static uint64_t dev_used(void)
{
	struct memreg_dev_stat st;

	assert_int_equal(memreg_dev_stat(mctx, 0, &st), 0);
	return st.used;
}

static unsigned char *exported(void **p, char *key, uint64_t flags)
{
	unsigned char *buf = malloc(BUF_LEN);
	size_t i;

	assert_non_null(buf);
	for (i = 0; i < BUF_LEN; i++)
		buf[i] = pattern(i);
	assert_int_equal(aclrtMalloc(p, BUF_LEN, ACL_MEM_MALLOC_HUGE_FIRST),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(*p, BUF_LEN, buf, BUF_LEN,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtIpcMemGetExportKey(*p, BUF_LEN, key, KEY_LEN,
						 flags), ACL_SUCCESS);
	return buf;
}

/* B's bytes in A's memory, A's pattern after them; then all goes. */
static void check_and_free(void *p, unsigned char *buf, const char *key,
			   uint64_t before)
{
	size_t i;

	assert_int_equal(aclrtMemcpy(buf, BUF_LEN, p, BUF_LEN,
				     ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	for (i = 0; i < BACK_LEN; i++)
		assert_int_equal(buf[i], BACK_BYTE);
	for (; i < BUF_LEN; i++)
		assert_int_equal(buf[i], pattern(i));
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	/* Closed: the name is gone for good. */
	assert_int_equal(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	assert_int_equal(dev_used(), before);
	free(buf);
}

static void test_pid_list(void **state)
{
	struct peer b, c;
	char key[KEY_LEN];
	uint64_t before = dev_used();
	unsigned char *buf;
	void *p;

	(void)state;
	buf = exported(&p, key, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT);
	/* Not on the list: the module refuses it. */
	spawn(&c, key, BUF_LEN, "perm");
	assert_int_equal(go(&c), 0);
	/* Named by its bare tgid: imports, reads, writes back. */
	spawn(&b, key, BUF_LEN, "ok");
	assert_int_equal(aclrtIpcMemSetImportPid(key, &b.tgid, 1), ACL_SUCCESS);
	assert_int_equal(go(&b), 0);
	check_and_free(p, buf, key, before);
}

static void test_any_pid(void **state)
{
	struct peer b;
	char key[KEY_LEN];
	uint64_t before = dev_used();
	unsigned char *buf;
	void *p;

	(void)state;
	buf = exported(&p, key,
		       ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	spawn(&b, key, BUF_LEN, "ok");
	assert_int_equal(go(&b), 0);
	check_and_free(p, buf, key, before);
}

/* The exporter frees first: a later import finds no memory. */
static void test_import_after_free(void **state)
{
	struct peer b;
	char key[KEY_LEN];
	uint64_t before = dev_used();
	unsigned char *buf;
	void *p;

	(void)state;
	buf = exported(&p, key,
		       ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION);
	assert_int_equal(aclrtFree(p), ACL_SUCCESS);
	spawn(&b, key, BUF_LEN, "ok");
	/* mmap of the revoked dma-buf fails: the import is refused. */
	assert_int_equal(go(&b), 14);
	assert_int_equal(aclrtIpcMemClose(key), ACL_SUCCESS);
	/* The name held the pages until now. */
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
	(void)state;
	memreg_close(mctx);
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_list),
		cmocka_unit_test(test_any_pid),
		cmocka_unit_test(test_import_after_free),
	};

	if (argc == 5 && !strcmp(argv[1], "child"))
		return child(argv[2], strtoul(argv[3], NULL, 0), argv[4]);
	return cmocka_run_group_tests_name("aclipc", tests, setup, teardown);
}
