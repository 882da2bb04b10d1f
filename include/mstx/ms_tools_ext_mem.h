/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx memory-pool API, source compatible with CANN's
 * <mstx/ms_tools_ext_mem.h>: the same names, struct layouts and enum
 * values.
 *
 * An allocator registers each pool it carves up as a heap, and each block
 * it hands out as a region inside one.  No call returns an error; with no
 * tool attached mstxMemHeapRegister() returns NULL and the rest do nothing.
 */
#ifndef MEMREG_MSTX_MS_TOOLS_EXT_MEM_H
#define MEMREG_MSTX_MS_TOOLS_EXT_MEM_H

#include "mstx_detail/mstx_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct mstxMemHeap_st;
typedef struct mstxMemHeap_st mstxMemHeap_t;
typedef mstxMemHeap_t *mstxMemHeapHandle_t;

struct mstxMemRegion_st;
typedef struct mstxMemRegion_st mstxMemRegion_t;
typedef mstxMemRegion_t *mstxMemRegionHandle_t;

/* A range of virtual addresses on a device (24 bytes on LP64). */
typedef struct mstxMemVirtualRangeDesc_t {
	uint32_t deviceId;
	void const *ptr;
	uint64_t size;
} mstxMemVirtualRangeDesc_t;

typedef enum mstxMemHeapUsageType {
	/* regions are handed out of the heap; the rest must not be touched */
	MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR = 0,
} mstxMemHeapUsageType;

typedef enum mstxMemType {
	/* typeSpecificDesc points at a mstxMemVirtualRangeDesc_t */
	MSTX_MEM_TYPE_VIRTUAL_ADDRESS = 0,
} mstxMemType;

typedef struct mstxMemHeapDesc_t {
	mstxMemHeapUsageType usage;
	mstxMemType type;
	void const *typeSpecificDesc;
} mstxMemHeapDesc_t;

typedef struct mstxMemRegionsRegisterBatch_t {
	mstxMemHeapHandle_t heap;
	mstxMemType regionType;
	size_t regionCount;
	void const *regionDescArray;		/* mstxMemVirtualRangeDesc_t[] */
	mstxMemRegionHandle_t *regionHandleArrayOut;	/* [regionCount] */
} mstxMemRegionsRegisterBatch_t;

typedef enum mstxMemRegionRefType {
	MSTX_MEM_REGION_REF_TYPE_POINTER = 0,
	MSTX_MEM_REGION_REF_TYPE_HANDLE
} mstxMemRegionRefType;

typedef struct mstxMemRegionRef_t {
	mstxMemRegionRefType refType;
	union {
		void const *pointer;
		mstxMemRegionHandle_t handle;
	};
} mstxMemRegionRef_t;

typedef struct mstxMemRegionsUnregisterBatch_t {
	size_t refCount;
	mstxMemRegionRef_t const *refArray;
} mstxMemRegionsUnregisterBatch_t;

/* Register an allocated range as a pool; its handle, NULL if none. */
MSTX_DECLSPEC mstxMemHeapHandle_t mstxMemHeapRegister(
	mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc);

/* Unregister a pool and every region still registered in it. */
MSTX_DECLSPEC void mstxMemHeapUnregister(mstxDomainHandle_t domain,
					 mstxMemHeapHandle_t heap);

/* Register blocks handed out of pools; handles go to regionHandleArrayOut. */
MSTX_DECLSPEC void mstxMemRegionsRegister(
	mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc);

/* Unregister blocks, by pointer or by handle. */
MSTX_DECLSPEC void mstxMemRegionsUnregister(
	mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc);

#ifdef __cplusplus
}
#endif

/* Included on its own: the rest of the API (and its implementation) too. */
#include "ms_tools_ext.h"

#endif /* MEMREG_MSTX_MS_TOOLS_EXT_MEM_H */
