/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pinned host memory (hostmem.c), for the rest of lib/acl.
 */
#ifndef MEMREG_ACL_HOSTMEM_H
#define MEMREG_ACL_HOSTMEM_H

/*
 * aclFinalize's part: every aclrtMallocHost buffer unpinned and freed;
 * rt.lock held.
 */
void memreg__acl_hostmem_release(void);

#include <stdbool.h>

/* Is @p inside an aclrtMallocHost or aclrtHostRegister buffer?  rt.lock held. */
bool memreg__acl_hostmem_contains(const void *p);

#endif /* MEMREG_ACL_HOSTMEM_H */
