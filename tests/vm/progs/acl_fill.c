// SPDX-License-Identifier: GPL-2.0
/*
 * acl_fill MIB - what a user of the ACL runtime sees when the emulated
 * devices are bigger than the machine: aclrtMalloc MIB MiB at a time on
 * every device, touching each, until the runtime says no.  The answer
 * must be ACL_ERROR_RT_MEMORY_ALLOCATION (the module's RAM reserve, or
 * the device is full), never a kill.  Prints "filled N MiB CODE".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 0) : 16, total = 0;
	aclError last = ACL_SUCCESS;
	uint32_t count, dev;
	void *p;

	if (aclInit(NULL) != ACL_SUCCESS ||
	    aclrtGetDeviceCount(&count) != ACL_SUCCESS) {
		fprintf(stderr, "acl_fill: no runtime or no device\n");
		return 1;
	}
	for (dev = 0; dev < count; dev++) {
		if (aclrtSetDevice((int32_t)dev) != ACL_SUCCESS)
			return 1;
		for (;;) {
			last = aclrtMalloc(&p, mib << 20,
					   ACL_MEM_MALLOC_NORMAL_ONLY);
			if (last != ACL_SUCCESS)
				break;
			memset(p, 0x5a, mib << 20);
			total += mib;
		}
		printf("# device %u: aclrtMalloc returned %d after %zu MiB in all\n",
		       dev, last, total);
		if (last != ACL_ERROR_RT_MEMORY_ALLOCATION)
			break;
	}
	printf("filled %zu MiB %d\n", total, last);
	/* the memory goes back with the process */
	return last == ACL_ERROR_RT_MEMORY_ALLOCATION ? 0 : 1;
}
