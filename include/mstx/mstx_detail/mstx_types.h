/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx - the ABI between a program's mstx calls and a tool: one function
 * pointer type per API, and the function-table modules and slot numbers a
 * tool fills in from InitInjectionMstx().  The numbering is CANN's: a tool
 * built for CANN's mstx fills these tables, and libmemreg fills CANN's.
 *
 * A tool calls getFuncTable(module, &table, &size) and, for each slot id
 * 1 <= id <= size that it implements and whose table[id] is not NULL,
 * stores its function: *table[id] = (mstxFuncPointer)impl.  The table has
 * size + 1 entries; the first and the last are NULL (size is the module's
 * *_SIZE value, one past its last id).
 */
#ifndef MEMREG_MSTX_TYPES_H
#define MEMREG_MSTX_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*mstxMarkAFunc)(const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxRangeStartAFunc)(const char *message,
					   aclrtStream stream);
typedef void (*mstxRangeEndFunc)(mstxRangeId id);
typedef void (*mstxGetToolIdFunc)(uint64_t *id);
typedef mstxDomainHandle_t (*mstxDomainCreateAFunc)(const char *name);
typedef void (*mstxDomainDestroyFunc)(mstxDomainHandle_t domain);
typedef void (*mstxDomainMarkAFunc)(mstxDomainHandle_t domain,
				    const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxDomainRangeStartAFunc)(mstxDomainHandle_t domain,
						 const char *message,
						 aclrtStream stream);
typedef void (*mstxDomainRangeEndFunc)(mstxDomainHandle_t domain,
				       mstxRangeId id);
typedef mstxMemHeapHandle_t (*mstxMemHeapRegisterFunc)(
	mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc);
typedef void (*mstxMemHeapUnregisterFunc)(mstxDomainHandle_t domain,
					  mstxMemHeapHandle_t heap);
typedef void (*mstxMemRegionsRegisterFunc)(
	mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc);
typedef void (*mstxMemRegionsUnregisterFunc)(
	mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc);

typedef enum mstxFuncModule {
	MSTX_API_MODULE_INVALID		= 0,
	MSTX_API_MODULE_CORE		= 1,
	MSTX_API_MODULE_CORE_DOMAIN	= 2,
	MSTX_API_MODULE_CORE_MEM	= 3,
	MSTX_API_MODULE_SIZE,
	MSTX_API_MODULE_FORCE_INT	= 0x7fffffff
} mstxFuncModule;

typedef enum mstxImplCoreFuncId {
	MSTX_API_CORE_INVALID		= 0,
	MSTX_API_CORE_MARK_A		= 1,
	MSTX_API_CORE_RANGE_START_A	= 2,
	MSTX_API_CORE_RANGE_END		= 3,
	MSTX_API_CORE_GET_TOOL_ID	= 4,
	MSTX_API_CORE_SIZE,
	MSTX_API_CORE_FORCE_INT		= 0x7fffffff
} mstxImplCoreFuncId;

typedef enum mstxImplCoreDomainFuncId {
	MSTX_API_CORE2_INVALID			= 0,
	MSTX_API_CORE2_DOMAIN_CREATE_A		= 1,
	MSTX_API_CORE2_DOMAIN_DESTROY		= 2,
	MSTX_API_CORE2_DOMAIN_MARK_A		= 3,
	MSTX_API_CORE2_DOMAIN_RANGE_START_A	= 4,
	MSTX_API_CORE2_DOMAIN_RANGE_END		= 5,
	MSTX_API_CORE2_SIZE,
	MSTX_API_CORE2_FORCE_INT		= 0x7fffffff
} mstxImplCoreDomainFuncId;

typedef enum mstxImplCoreMemFuncId {
	MSTX_API_CORE_MEM_INVALID		= 0,
	MSTX_API_CORE_MEMHEAP_REGISTER		= 1,
	MSTX_API_CORE_MEMHEAP_UNREGISTER	= 2,
	MSTX_API_CORE_MEM_REGIONS_REGISTER	= 3,
	MSTX_API_CORE_MEM_REGIONS_UNREGISTER	= 4,
	MSTX_API_CORE_MEM_SIZE,
	MSTX_API_CORE_MEM_FORCE_INT		= 0x7fffffff
} mstxImplCoreMemFuncId;

typedef void (*mstxFuncPointer)(void);
typedef mstxFuncPointer **mstxFuncTable;

typedef int (*mstxGetModuleFuncTableFunc)(mstxFuncModule module,
					  mstxFuncTable *outTable,
					  unsigned int *outSize);
/* Exported by a tool as "InitInjectionMstx"; MSTX_SUCCESS if attached. */
typedef int (*mstxInitInjectionFunc)(mstxGetModuleFuncTableFunc getFuncTable);

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_MSTX_TYPES_H */
