// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The aclrtAllocator family, with the checks, codes and copy semantics of
 * CANN's implementation (docs/acl.md has the table):
 *
 * - a descriptor is five fields, zeroed at creation (CANN leaves the four
 *   function pointers indeterminate; zero makes Register's checks work
 *   for a descriptor whose fields were not all set);
 * - Register copies the fields: the descriptor may be changed or
 *   destroyed afterwards without touching the registration;
 * - the table maps a stream, as an opaque key, to the user's descriptor
 *   pointer and the copy.  The NULL (default) stream is refused.
 *
 * GetByStream is on the runtime's path for every piece of stream work
 * memory (and GE calls it for every execution), so the table is a hash
 * map behind one mutex that nothing else takes: one uncontended lock, a
 * probe and a copy.
 */
#include <pthread.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "allocator.h"
#include "errors.h"
#include "ptrmap.h"

struct acl_allocator_desc {
	aclrtAllocator obj;
	aclrtAllocatorAllocFunc alloc;
	aclrtAllocatorFreeFunc free;
	aclrtAllocatorAllocAdviseFunc advise;
	aclrtAllocatorGetAddrFromBlockFunc get_addr;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptrmap table = PTRMAP_INIT;	/* stream -> acl_allocator */

aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
	return calloc(1, sizeof(struct acl_allocator_desc));
}

aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
	if (!allocatorDesc)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"allocatorDesc is NULL"));
	/* Registrations hold copies: they keep working. */
	free(allocatorDesc);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc,
				    aclrtAllocator allocator)
{
	struct acl_allocator_desc *d = allocatorDesc;

	if (!d || !allocator)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					d ? "allocator" : "allocatorDesc"));
	d->obj = allocator;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
					  aclrtAllocatorAllocFunc func)
{
	struct acl_allocator_desc *d = allocatorDesc;

	if (!d || !func)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					d ? "func" : "allocatorDesc"));
	d->alloc = func;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
					 aclrtAllocatorFreeFunc func)
{
	struct acl_allocator_desc *d = allocatorDesc;

	if (!d || !func)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					d ? "func" : "allocatorDesc"));
	d->free = func;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						aclrtAllocatorAllocAdviseFunc func)
{
	struct acl_allocator_desc *d = allocatorDesc;

	if (!d || !func)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					d ? "func" : "allocatorDesc"));
	d->advise = func;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
						     aclrtAllocatorGetAddrFromBlockFunc func)
{
	struct acl_allocator_desc *d = allocatorDesc;

	if (!d || !func)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					d ? "func" : "allocatorDesc"));
	d->get_addr = func;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorRegister(aclrtStream stream,
				aclrtAllocatorDesc allocatorDesc)
{
	struct acl_allocator_desc *d = allocatorDesc;
	struct acl_allocator *a, *old;
	int err;

	/* Every field but the advise function is required. */
	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream is NULL: the default stream takes no allocator"));
	if (!d)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"allocatorDesc is NULL"));
	if (!d->obj || !d->alloc || !d->free || !d->get_addr)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"allocatorDesc %p has no %s: set it with aclrtAllocatorSet%sToDesc",
					allocatorDesc,
					!d->obj ? "allocator object" :
					!d->alloc ? "alloc function" :
					!d->free ? "free function" :
					"getAddrFromBlock function",
					!d->obj ? "Obj" : !d->alloc ? "AllocFunc" :
					!d->free ? "FreeFunc" :
					"GetAddrFromBlockFunc"));
	a = malloc(sizeof(*a));
	if (!a)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	a->desc = allocatorDesc;
	a->obj = d->obj;
	a->alloc = d->alloc;
	a->free = d->free;
	a->advise = d->advise;
	a->get_addr = d->get_addr;

	pthread_mutex_lock(&table_lock);
	/* The last registration wins, silently. */
	old = memreg__ptrmap_get(&table, stream);
	err = memreg__ptrmap_put(&table, stream, a);
	pthread_mutex_unlock(&table_lock);
	if (err) {
		free(a);
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	}
	free(old);
	return acl_ret(ACL_SUCCESS);
}

int memreg__acl_allocator_lookup(aclrtStream stream, struct acl_allocator *out)
{
	struct acl_allocator *a;

	pthread_mutex_lock(&table_lock);
	a = memreg__ptrmap_get(&table, stream);
	if (a)
		*out = *a;
	pthread_mutex_unlock(&table_lock);
	return a ? 0 : -1;
}

aclError aclrtAllocatorGetByStream(aclrtStream stream,
				   aclrtAllocatorDesc *allocatorDesc,
				   aclrtAllocator *allocator,
				   aclrtAllocatorAllocFunc *allocFunc,
				   aclrtAllocatorFreeFunc *freeFunc,
				   aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
				   aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
	struct acl_allocator a;

	if (!allocatorDesc || !stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					stream ? "allocatorDesc" : "stream"));
	/* Not registered: a parameter error, as in CANN. */
	if (memreg__acl_allocator_lookup(stream, &a))
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream %p has no allocator registered",
					stream));
	/* The descriptor as registered; the rest is the copy. */
	*allocatorDesc = a.desc;
	if (allocator)
		*allocator = a.obj;
	if (allocFunc)
		*allocFunc = a.alloc;
	if (freeFunc)
		*freeFunc = a.free;
	if (allocAdviseFunc)
		*allocAdviseFunc = a.advise;
	if (getAddrFromBlockFunc)
		*getAddrFromBlockFunc = a.get_addr;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtAllocatorUnregister(aclrtStream stream)
{
	struct acl_allocator *a;

	if (!stream)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"stream is NULL: the default stream takes no allocator"));
	pthread_mutex_lock(&table_lock);
	a = memreg__ptrmap_del(&table, stream);
	pthread_mutex_unlock(&table_lock);
	/* Unknown or already unregistered: success, as documented. */
	free(a);
	return acl_ret(ACL_SUCCESS);
}
