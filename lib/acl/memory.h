/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device memory (memory.c): the table of what aclrtMalloc handed out,
 * IPC imports and aclrtMapMem mappings, and the range checks on it.
 */
#ifndef MEMREG_ACL_MEMORY_H
#define MEMREG_ACL_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <acl/acl_base.h>
#include <acl/acl_rt.h>
#include <memreg/memreg.h>

struct acl_physmem;

/*
 * One piece of device memory that aclrtMalloc handed out, or another
 * process's that aclrtIpcMemImportByKey mapped (@imported: @mem.addr and
 * @mem.len are the mapping of the dma-buf @fd, @mem.handle means nothing;
 * aclrtIpcMemClose of @token unmaps it, aclrtFree refuses it), or an
 * aclrtMapMem mapping of the physical memory @vmm (@mem.addr and @mem.len
 * the mapping; aclrtUnmapMem takes it out, aclrtFree refuses it).
 */
struct acl_devmem {
	struct memreg_dev_mem mem;
	bool imported;
	int fd;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_physmem *vmm;
	/*
	 * An aclrtMapMem mapping's access, as aclrtMemSetAccess set it: bit
	 * n for device n; the host's apart.  Recorded for aclrtMemGetAccess,
	 * not enforced (docs/acl.md).
	 */
	uint32_t read_devs, write_devs;
	uint8_t host_access;
};

/*
 * The device allocation holding [addr, addr + len), or NULL; rt.lock
 * held.
 */
struct acl_devmem *memreg__acl_devmem_find(const void *addr, size_t len);
/* aclFinalize's part: free all device and host memory; rt.lock held. */
void memreg__acl_memory_release(void);
/* Add @m to the table, or take it out; rt.lock held.  0 or -1 (no memory). */
int memreg__acl_devmem_insert(struct acl_devmem *m);
void memreg__acl_devmem_remove(struct acl_devmem *m);
/* Every entry of the table, for a walk; rt.lock held. */
struct acl_devmem **memreg__acl_devmem_all(size_t *n);

/*
 * Is [addr, addr + len) device memory: inside one entry, or across
 * aclrtMapMem mappings that follow each other without a gap (one
 * reserved range mapped piece by piece, as expandable segments do)?
 * rt.lock held.
 */
bool memreg__acl_devmem_covers(const void *addr, size_t len);
/* The same, taking rt.lock. */
bool memreg__acl_is_devmem(const void *addr, size_t len);

/*
 * Why @p (the argument @arg) is not something to free with the call at
 * hand: host memory (@host false) or device memory (@host true) to
 * @freer ("free", "unmap") with the other call, inside an allocation,
 * already freed, or never allocated.  Records it and returns
 * ACL_ERROR_INVALID_PARAM; rt.lock held.
 */
aclError memreg__acl_bad_pointer(const char *arg, const void *p,
				 bool host, const char *freer);
/*
 * Record @err with why [p, p + len) is not device memory where @need (a
 * kind of copy, a call) wants it; takes rt.lock.
 */
void memreg__acl_explain_range(aclError err, const char *arg, const void *p,
			       size_t len, const char *need);
/* What aclrtPointerGetAttributes says of @ptr; rt.lock held. */
void memreg__acl_ptr_attributes(const void *ptr, aclrtPtrAttributes *a);
/* @addr was freed by @how (a static string); rt.lock held. */
void memreg__acl_freed_note(const void *addr, const char *how);

#endif /* MEMREG_ACL_MEMORY_H */
