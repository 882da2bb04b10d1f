/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Virtual memory management (vmm.c), for the rest of lib/acl.
 */
#ifndef MEMREG_ACL_VMM_H
#define MEMREG_ACL_VMM_H

/*
 * aclFinalize's part: unmap every aclrtMapMem mapping, free every
 * physical handle, release every reserved range; rt.lock held, before
 * memreg__acl_memory_release().
 */
void memreg__acl_vmm_release(void);

#endif /* MEMREG_ACL_VMM_H */
