/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * acl/acl_base_rt.h - base types and error codes of the ACL runtime, under
 * the names, types and values of Huawei CANN's header of the same name, so
 * that programs written against CANN compile against libmemreg unchanged.
 * Written for memreg from the published API description; it declares the
 * subset memreg implements (docs/acl.md).
 *
 * The ACL_ERROR_* base codes are static const int as in CANN, not macros:
 * they cannot be tested with #ifdef or used in #if.
 */
#ifndef MEMREG_ACL_ACL_BASE_RT_H
#define MEMREG_ACL_ACL_BASE_RT_H

#include <stddef.h>
#include <stdint.h>

/* As in CANN: default visibility only when the build asks for it. */
#ifndef ACL_FUNC_VISIBILITY
#ifdef FUNC_VISIBILITY
#define ACL_FUNC_VISIBILITY __attribute__((visibility("default")))
#else
#define ACL_FUNC_VISIBILITY
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef int aclError;
typedef uint16_t aclFloat16;

/*
 * The allocator handles live here in the current CANN layout; the 2023
 * layout had them in acl_rt_allocator.h.  Both define them identically,
 * which C11 and C++ accept, but C99 does not: the guard keeps a program
 * that mixes both layouts compiling in C99 too.
 */
#ifndef ACL_RT_ALLOCATOR_HANDLES_DEFINED
#define ACL_RT_ALLOCATOR_HANDLES_DEFINED
typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;
#endif

static const int ACL_ERROR_NONE = 0;
static const int ACL_SUCCESS = 0;

static const int ACL_ERROR_INVALID_PARAM = 100000;
static const int ACL_ERROR_UNINITIALIZE = 100001;
static const int ACL_ERROR_REPEAT_INITIALIZE = 100002;
static const int ACL_ERROR_REPEAT_FINALIZE = 100037;

static const int ACL_ERROR_BAD_ALLOC = 200000;
static const int ACL_ERROR_API_NOT_SUPPORT = 200001;
static const int ACL_ERROR_INVALID_DEVICE = 200002;
static const int ACL_ERROR_MEMORY_ADDRESS_UNALIGNED = 200003;
static const int ACL_ERROR_RESOURCE_NOT_MATCH = 200004;
static const int ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
static const int ACL_ERROR_FEATURE_UNSUPPORTED = 200006;

static const int ACL_ERROR_STORAGE_OVER_LIMIT = 300000;

static const int ACL_ERROR_INTERNAL_ERROR = 500000;
static const int ACL_ERROR_FAILURE = 500001;
static const int ACL_ERROR_GE_FAILURE = 500002;
static const int ACL_ERROR_RT_FAILURE = 500003;
static const int ACL_ERROR_DRV_FAILURE = 500004;
static const int ACL_ERROR_PROFILING_FAILURE = 500005;

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_ACL_ACL_BASE_RT_H */
