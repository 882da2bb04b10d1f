/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocators registered on streams (allocator.c).
 */
#ifndef MEMREG_ACL_ALLOCATOR_H
#define MEMREG_ACL_ALLOCATOR_H

#include <acl/acl_rt.h>

struct acl_allocator {
	aclrtAllocatorDesc desc;	/* the user's descriptor, as given */
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

/* The allocator registered on @stream: 0, or -1 if there is none. */
int memreg__acl_allocator_lookup(aclrtStream stream, struct acl_allocator *out);

#endif /* MEMREG_ACL_ALLOCATOR_H */
