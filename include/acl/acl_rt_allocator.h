/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl_rt_allocator.h - the aclrtAllocator family: a program hands the
 * runtime an allocator of its own for a stream, and the runtime takes the
 * work memory it needs on that stream from it.  Names and prototypes as in
 * CANN; semantics in docs/acl.md.
 */
#ifndef MEMREG_ACL_ACL_RT_ALLOCATOR_H
#define MEMREG_ACL_ACL_RT_ALLOCATOR_H

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns a block (opaque to the runtime) of at least @size bytes, or NULL. */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
/* Takes back a block that the alloc or alloc-advise function returned. */
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator,
				       aclrtAllocatorBlock block);
/* Like alloc, preferably at @addr (the allocator may ignore the hint). */
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator,
					       size_t size,
					       aclrtAllocatorAddr addr);
/* The device address of a block. */
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc(void);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
							aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							      aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
							     aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
								    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
									 aclrtAllocatorGetAddrFromBlockFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream,
						    aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream,
						       aclrtAllocatorDesc *allocatorDesc,
						       aclrtAllocator *allocator,
						       aclrtAllocatorAllocFunc *allocFunc,
						       aclrtAllocatorFreeFunc *freeFunc,
						       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
						       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_ACL_ACL_RT_ALLOCATOR_H */
