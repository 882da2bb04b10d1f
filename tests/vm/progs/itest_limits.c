// SPDX-License-Identifier: GPL-2.0
/*
 * itest_limits - per-process limits set by an administrator with the
 * memreg tool while the process runs: the next registration past each one
 * gets its documented errno, and what is under the limit still works.
 * Run as root (tests/vm/cases/limits.sh); exits nonzero on the first
 * mismatch, saying what it expected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "memtest.h"

#define EXPECT(what, want, got) do {					\
	long long w_ = (want), g_ = (got);				\
	if (w_ != g_) {							\
		fprintf(stderr, "%s: want %lld (%s) got %lld (%s)\n",	\
			what, w_, w_ < 0 ? strerror(-w_) : "",		\
			g_, g_ < 0 ? strerror(-g_) : "");		\
		exit(1);						\
	}								\
} while (0)

static void set_limits(const char *args)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "memreg limits set pid %d %s", getpid(),
		 args);
	EXPECT(cmd, 0, system(cmd));
}

static int dev_alloc(int fd, unsigned long len)
{
	struct memreg_dev_alloc a = { .size = sizeof(a), .device = 0,
				      .len = len,
				      .policy = MEMREG_DEV_NORMAL_ONLY };

	return ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a) ? -errno : 0;
}

int main(void)
{
	int fd = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, 64 * 4096);
	struct memreg_info info;
	uint64_t h[4];

	if (fd < 0 || !p) {
		perror("setup");
		return 1;
	}
	set_limits("regions 2");
	EXPECT("INFO max_regions", 0, memtest_info(fd, &info));
	EXPECT("INFO max_regions", 2, info.max_regions);
	EXPECT("1st of 2", 0, memtest_register(fd, p, 4096, MEMREG_MEM_HOST,
					       &h[0]));
	EXPECT("2nd of 2", 0, memtest_register(fd, p + 4096, 4096,
					       MEMREG_MEM_HOST, &h[1]));
	EXPECT("3rd of 2", -EMFILE, memtest_register(fd, p + 8192, 4096,
						     MEMREG_MEM_HOST, NULL));

	/* raise the count, cap the bytes: 16 KiB, 8 KiB already used */
	set_limits("regions 100 host 16K");
	EXPECT("up to 16 KiB", 0, memtest_register(fd, p + 8192, 8192,
						   MEMREG_MEM_HOST, &h[2]));
	EXPECT("one byte past 16 KiB", -EDQUOT,
	       memtest_register(fd, p + 16384, 1, MEMREG_MEM_HOST, NULL));
	/* freeing makes room again */
	EXPECT("unregister", 0, memtest_unregister(fd, h[0]));
	EXPECT("after freeing 4 KiB", 0,
	       memtest_register(fd, p + 16384, 4096, MEMREG_MEM_HOST, &h[3]));
	EXPECT("nothing pinned beyond the limit", 16, memtest_vmpin_kb());

	/* device memory a process allocates counts against its dev limit */
	set_limits("dev 4M");
	EXPECT("allocate 2 MiB under a 4 MiB limit", 0, dev_alloc(fd, 2 << 20));
	EXPECT("4 MiB more: over the limit", -ENOSPC, dev_alloc(fd, 4 << 20));
	EXPECT("the last 2 MiB", 0, dev_alloc(fd, 2 << 20));
	close(fd);
	EXPECT("closing releases all", 0, memtest_vmpin_kb());
	return 0;
}
