/*
 * <securec.h> and libc_sec.so from the tree, as a CANN program includes
 * and links them (beside acl/acl.h, as hixl's fabric_mem_d2d does).
 * Prints an "ok" line per check.
 */
#include <cstdio>
#include <cstring>
#include "acl/acl.h"
#include "securec.h"

static int failed;

static void check(bool cond, const char *what)
{
	std::printf("%s %s\n", cond ? "ok" : "FAIL", what);
	failed += !cond;
}

int main()
{
	char buf[8];

	memset_s(buf, sizeof(buf), 'x', sizeof(buf));
	check(buf[0] == 'x' && buf[7] == 'x', "memset_s");
	check(memcpy_s(buf, sizeof(buf), "abc", 4) == EOK &&
	      std::strcmp(buf, "abc") == 0, "memcpy_s");
	check(strcpy_s(buf, sizeof(buf), "too long") == ERANGE_AND_RESET &&
	      buf[0] == '\0', "strcpy_s: ERANGE_AND_RESET (162)");
	check(snprintf_s(buf, sizeof(buf), 3, "%d", 12345) == -1 &&
	      std::strcmp(buf, "123") == 0, "snprintf_s: -1 on truncation");
	return failed;
}
