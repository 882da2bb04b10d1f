// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory through the ACL runtime that a process never frees, for
 * tests/vm/cases/acl.sh to see the module take it back:
 *
 *   acl_hold exit MIB   aclrtMalloc MIB MiB on each device, touch it, exit
 *   acl_hold wait MIB   the same, print "ready", wait to be killed
 *   acl_hold stat       print "used BYTES": allocated on all devices
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

static int hold(size_t mib)
{
	uint32_t count, dev;
	void *p;

	if (aclInit(NULL) != ACL_SUCCESS || aclrtGetDeviceCount(&count) != ACL_SUCCESS)
		return 1;
	for (dev = 0; dev < count; dev++) {
		if (aclrtSetDevice((int32_t)dev) != ACL_SUCCESS ||
		    aclrtMalloc(&p, mib << 20, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
			return 1;
		memset(p, 0x5a, mib << 20);
	}
	return 0;
}

static int stat_used(void)
{
	struct memreg_lib_info info;
	struct memreg_dev_stat st;
	struct memreg_ctx *ctx;
	unsigned long long used = 0;
	uint32_t dev;

	if (memreg_open(&ctx) || memreg_info(ctx, &info))
		return 1;
	for (dev = 0; dev < info.devices; dev++) {
		if (memreg_dev_stat(ctx, dev, &st))
			return 1;
		used += st.used;
	}
	printf("used %llu\n", used);
	memreg_close(ctx);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "stat"))
		return stat_used();
	if (argc != 3)
		return 2;
	if (hold(strtoul(argv[2], NULL, 0)))
		return 1;
	if (!strcmp(argv[1], "exit"))
		return 0;	/* no aclrtFree, no aclFinalize */
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
