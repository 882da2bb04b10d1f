// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * <securec.h> from C++, as CANN's samples use it (hixl's fabric_mem_d2d
 * calls memset_s and ignores the result): built with the samples' flags
 * (-O2 -Wall -Wextra -Werror -ftrapv -fno-common -Wfloat-equal
 * -D_GLIBCXX_USE_CXX11_ABI=0), linked with -lc_sec against the shipped
 * libc_sec.so, so every function is called through its export.  Prints
 * "ok"/"not ok" lines.
 */
#include <cstdio>
#include <cstring>
#include <vector>

#include "securec.h"

static int failed;

static void check(bool cond, const char *what)
{
	std::printf("%s - securec C++: %s\n", cond ? "ok" : "not ok", what);
	if (!cond)
		failed++;
}

static int vsn(char *d, size_t max, size_t count, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf_s(d, max, count, fmt, ap);
	va_end(ap);
	return n;
}

static int vs(char *d, size_t max, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsprintf_s(d, max, fmt, ap);
	va_end(ap);
	return n;
}

int main()
{
	std::vector<unsigned char> host(64);
	char s[16];
	errno_t e;

	/* As fabric_mem_d2d does: the result not looked at. */
	memset_s(host.data(), host.size(), 3, host.size());
	check(host[0] == 3 && host[63] == 3, "memset_s fills the buffer");

	e = memcpy_s(s, sizeof(s), "hello", 6);
	check(e == EOK && std::strcmp(s, "hello") == 0, "memcpy_s copies");
	check(memcpy_s(s, 4, "hello", 6) == ERANGE_AND_RESET && s[0] == 0,
	      "memcpy_s: count > destMax is ERANGE_AND_RESET");
	check(memmove_s(s, sizeof(s), "abc", 4) == EOK &&
	      memmove_s(s + 1, sizeof(s) - 1, s, 4) == EOK &&
	      std::strcmp(s, "aabc") == 0, "memmove_s handles overlap");
	check(strcpy_s(s, sizeof(s), "copy") == EOK &&
	      std::strcmp(s, "copy") == 0, "strcpy_s copies");
	check(strncpy_s(s, sizeof(s), "truncate", 5) == EOK &&
	      std::strcmp(s, "trunc") == 0, "strncpy_s copies count characters");
	check(strcat_s(s, sizeof(s), "ated") == EOK &&
	      std::strcmp(s, "truncated") == 0, "strcat_s appends");
	check(strncat_s(s, sizeof(s), "!!!", 1) == EOK &&
	      std::strcmp(s, "truncated!") == 0, "strncat_s appends count");
	check(strcat_s(s, sizeof(s), "0123456789") == ERANGE_AND_RESET &&
	      s[0] == 0, "strcat_s: too long is ERANGE_AND_RESET");
	check(sprintf_s(s, sizeof(s), "%d:%s", 7, "x") == 3 &&
	      std::strcmp(s, "7:x") == 0, "sprintf_s formats");
	check(vs(s, 4, "%s", "toolong") == -1 && s[0] == 0,
	      "vsprintf_s: too long is -1, emptied");
	check(snprintf_s(s, sizeof(s), 3, "%s", "abcdef") == -1 &&
	      std::strcmp(s, "abc") == 0,
	      "snprintf_s: truncation at count keeps the text, returns -1");
	check(vsn(s, sizeof(s), sizeof(s) - 1, "%u", 99u) == 2 &&
	      std::strcmp(s, "99") == 0, "vsnprintf_s formats");
	check(memset_s(nullptr, 8, 0, 8) == EINVAL && memset_s(s, 0, 0, 0) == ERANGE,
	      "memset_s: EINVAL, ERANGE");
	return failed ? 1 : 0;
}
