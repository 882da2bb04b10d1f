/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mstx - the header-only implementation: each module (executable or
 * shared object) that includes the header has its own hidden context of
 * function pointers.  Every pointer starts at a trampoline that attaches a
 * tool once and then calls again; afterwards a pointer is the tool's
 * function, or NULL, and a call costs one load and one test.
 *
 * Attaching (once per module; racing first calls wait for the winner):
 *   1. getenv("MSTX_INJECTION_PATH"): if set, dlopen() it (never closed);
 *   2. dlsym(that handle, "InitInjectionMstx").  Without a path the handle
 *      is NULL, which glibc reads as RTLD_DEFAULT: a tool already in the
 *      process (linked or LD_PRELOADed) is found that way;
 *   3. call it with mstxGetModuleFuncTable; MSTX_SUCCESS means attached.
 * Slots the tool left alone, or all of them if it failed, become NULL.
 */
#ifndef MEMREG_MSTX_IMPL_H
#define MEMREG_MSTX_IMPL_H

#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MSTX_DISABLE

enum {
	MSTX_INIT_STATE_FRESH = 0,
	MSTX_INIT_STATE_STARTED = 1,
	MSTX_INIT_STATE_COMPLETE = 2,
	MSTX_INIT_STATE_FAILED = 3,
};

typedef struct mstxContext_t {
	int initState;
	mstxMarkAFunc markA;
	mstxRangeStartAFunc rangeStartA;
	mstxRangeEndFunc rangeEnd;
	mstxGetToolIdFunc getToolId;
	mstxDomainCreateAFunc domainCreateA;
	mstxDomainDestroyFunc domainDestroy;
	mstxDomainMarkAFunc domainMarkA;
	mstxDomainRangeStartAFunc domainRangeStartA;
	mstxDomainRangeEndFunc domainRangeEnd;
	mstxMemHeapRegisterFunc memHeapRegister;
	mstxMemHeapUnregisterFunc memHeapUnregister;
	mstxMemRegionsRegisterFunc memRegionsRegister;
	mstxMemRegionsUnregisterFunc memRegionsUnregister;
	/* the tables handed to the tool: addresses of the slots above */
	mstxFuncPointer *coreTable[MSTX_API_CORE_SIZE + 1];
	mstxFuncPointer *domainTable[MSTX_API_CORE2_SIZE + 1];
	mstxFuncPointer *memTable[MSTX_API_CORE_MEM_SIZE + 1];
} mstxContext_t;

/* A call reads its pointer once; a tool's stores happen before COMPLETE. */
#define MSTX_LOAD(slot)	__atomic_load_n(&mstxContext.slot, __ATOMIC_ACQUIRE)

static void mstxInitOnce(void);

/* Trampolines: the first call of each API attaches, then calls again. */
static void mstxMarkA_Init(const char *message, aclrtStream stream)
{
	mstxInitOnce();
	mstxMarkA(message, stream);
}

static mstxRangeId mstxRangeStartA_Init(const char *message,
					aclrtStream stream)
{
	mstxInitOnce();
	return mstxRangeStartA(message, stream);
}

static void mstxRangeEnd_Init(mstxRangeId id)
{
	mstxInitOnce();
	mstxRangeEnd(id);
}

static void mstxGetToolId_Init(uint64_t *id)
{
	mstxInitOnce();
	mstxGetToolId(id);
}

static mstxDomainHandle_t mstxDomainCreateA_Init(const char *name)
{
	mstxInitOnce();
	return mstxDomainCreateA(name);
}

static void mstxDomainDestroy_Init(mstxDomainHandle_t domain)
{
	mstxInitOnce();
	mstxDomainDestroy(domain);
}

static void mstxDomainMarkA_Init(mstxDomainHandle_t domain,
				 const char *message, aclrtStream stream)
{
	mstxInitOnce();
	mstxDomainMarkA(domain, message, stream);
}

static mstxRangeId mstxDomainRangeStartA_Init(mstxDomainHandle_t domain,
					      const char *message,
					      aclrtStream stream)
{
	mstxInitOnce();
	return mstxDomainRangeStartA(domain, message, stream);
}

static void mstxDomainRangeEnd_Init(mstxDomainHandle_t domain, mstxRangeId id)
{
	mstxInitOnce();
	mstxDomainRangeEnd(domain, id);
}

static mstxMemHeapHandle_t mstxMemHeapRegister_Init(
	mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc)
{
	mstxInitOnce();
	return mstxMemHeapRegister(domain, desc);
}

static void mstxMemHeapUnregister_Init(mstxDomainHandle_t domain,
				       mstxMemHeapHandle_t heap)
{
	mstxInitOnce();
	mstxMemHeapUnregister(domain, heap);
}

static void mstxMemRegionsRegister_Init(
	mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc)
{
	mstxInitOnce();
	mstxMemRegionsRegister(domain, desc);
}

static void mstxMemRegionsUnregister_Init(
	mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc)
{
	mstxInitOnce();
	mstxMemRegionsUnregister(domain, desc);
}

/*
 * One context per module: weak so that every file of the module that
 * includes the header shares it, hidden so that modules do not.
 */
__attribute__((weak, visibility("hidden"))) mstxContext_t mstxContext = {
	MSTX_INIT_STATE_FRESH,
	mstxMarkA_Init, mstxRangeStartA_Init, mstxRangeEnd_Init,
	mstxGetToolId_Init,
	mstxDomainCreateA_Init, mstxDomainDestroy_Init, mstxDomainMarkA_Init,
	mstxDomainRangeStartA_Init, mstxDomainRangeEnd_Init,
	mstxMemHeapRegister_Init, mstxMemHeapUnregister_Init,
	mstxMemRegionsRegister_Init, mstxMemRegionsUnregister_Init,
	{ NULL }, { NULL }, { NULL },
};

#define MSTX_SLOT(member)	((mstxFuncPointer *)(void *)&mstxContext.member)

static int mstxGetModuleFuncTable(mstxFuncModule module,
				  mstxFuncTable *outTable,
				  unsigned int *outSize)
{
	if (!outTable || !outSize)
		return MSTX_FAIL;
	switch (module) {
	case MSTX_API_MODULE_CORE:
		*outTable = mstxContext.coreTable;
		*outSize = MSTX_API_CORE_SIZE;
		return MSTX_SUCCESS;
	case MSTX_API_MODULE_CORE_DOMAIN:
		*outTable = mstxContext.domainTable;
		*outSize = MSTX_API_CORE2_SIZE;
		return MSTX_SUCCESS;
	case MSTX_API_MODULE_CORE_MEM:
		*outTable = mstxContext.memTable;
		*outSize = MSTX_API_CORE_MEM_SIZE;
		return MSTX_SUCCESS;
	default:
		return MSTX_FAIL;
	}
}

static void mstxFillTables(void)
{
	mstxFuncPointer **t = mstxContext.coreTable;

	t[MSTX_API_CORE_MARK_A] = MSTX_SLOT(markA);
	t[MSTX_API_CORE_RANGE_START_A] = MSTX_SLOT(rangeStartA);
	t[MSTX_API_CORE_RANGE_END] = MSTX_SLOT(rangeEnd);
	t[MSTX_API_CORE_GET_TOOL_ID] = MSTX_SLOT(getToolId);
	t = mstxContext.domainTable;
	t[MSTX_API_CORE2_DOMAIN_CREATE_A] = MSTX_SLOT(domainCreateA);
	t[MSTX_API_CORE2_DOMAIN_DESTROY] = MSTX_SLOT(domainDestroy);
	t[MSTX_API_CORE2_DOMAIN_MARK_A] = MSTX_SLOT(domainMarkA);
	t[MSTX_API_CORE2_DOMAIN_RANGE_START_A] = MSTX_SLOT(domainRangeStartA);
	t[MSTX_API_CORE2_DOMAIN_RANGE_END] = MSTX_SLOT(domainRangeEnd);
	t = mstxContext.memTable;
	t[MSTX_API_CORE_MEMHEAP_REGISTER] = MSTX_SLOT(memHeapRegister);
	t[MSTX_API_CORE_MEMHEAP_UNREGISTER] = MSTX_SLOT(memHeapUnregister);
	t[MSTX_API_CORE_MEM_REGIONS_REGISTER] = MSTX_SLOT(memRegionsRegister);
	t[MSTX_API_CORE_MEM_REGIONS_UNREGISTER] =
		MSTX_SLOT(memRegionsUnregister);
}

/* A slot the tool did not fill (still the trampoline), or all: NULL. */
#define MSTX_SETTLE(member, tramp) \
	do { \
		if (!attached || mstxContext.member == (tramp)) \
			__atomic_store_n(&mstxContext.member, NULL, \
					 __ATOMIC_RELAXED); \
	} while (0)

static void mstxSettle(int attached)
{
	MSTX_SETTLE(markA, mstxMarkA_Init);
	MSTX_SETTLE(rangeStartA, mstxRangeStartA_Init);
	MSTX_SETTLE(rangeEnd, mstxRangeEnd_Init);
	MSTX_SETTLE(getToolId, mstxGetToolId_Init);
	MSTX_SETTLE(domainCreateA, mstxDomainCreateA_Init);
	MSTX_SETTLE(domainDestroy, mstxDomainDestroy_Init);
	MSTX_SETTLE(domainMarkA, mstxDomainMarkA_Init);
	MSTX_SETTLE(domainRangeStartA, mstxDomainRangeStartA_Init);
	MSTX_SETTLE(domainRangeEnd, mstxDomainRangeEnd_Init);
	MSTX_SETTLE(memHeapRegister, mstxMemHeapRegister_Init);
	MSTX_SETTLE(memHeapUnregister, mstxMemHeapUnregister_Init);
	MSTX_SETTLE(memRegionsRegister, mstxMemRegionsRegister_Init);
	MSTX_SETTLE(memRegionsUnregister, mstxMemRegionsUnregister_Init);
}

static int mstxInitWithInjectionLib(void)
{
	const char *path = getenv("MSTX_INJECTION_PATH");
	mstxInitInjectionFunc init;
	void *handle = NULL, *sym;

	if (path && *path)
		handle = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	/* handle NULL: glibc's RTLD_DEFAULT, the tools already loaded */
	sym = dlsym(handle, "InitInjectionMstx");
	if (!sym)
		return 0;
	/* POSIX makes dlsym() results callable; ISO C has no such cast */
	memcpy(&init, &sym, sizeof(init));
	return init(mstxGetModuleFuncTable) == MSTX_SUCCESS;
}

static void mstxInitOnce(void)
{
	int expected = MSTX_INIT_STATE_FRESH;
	int attached;

	if (__atomic_load_n(&mstxContext.initState, __ATOMIC_ACQUIRE) >=
	    MSTX_INIT_STATE_COMPLETE)
		return;
	if (__atomic_compare_exchange_n(&mstxContext.initState, &expected,
					MSTX_INIT_STATE_STARTED, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		mstxFillTables();
		attached = mstxInitWithInjectionLib();
		mstxSettle(attached);
		__atomic_store_n(&mstxContext.initState,
				 attached ? MSTX_INIT_STATE_COMPLETE :
					    MSTX_INIT_STATE_FAILED,
				 __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&mstxContext.initState, __ATOMIC_ACQUIRE) <
	       MSTX_INIT_STATE_COMPLETE)
		sched_yield();
}

#endif /* !MSTX_DISABLE */

/* The API: call the slot if there is one, else the no-tool answer. */
#ifdef MSTX_DISABLE
#define MSTX_CALL(slot, args)	do { } while (0)
#define MSTX_CALL_RET(slot, args, none)	return (none)
#else
#define MSTX_CALL(slot, args) \
	do { \
		__typeof__(mstxContext.slot) f_ = MSTX_LOAD(slot); \
		if (f_) \
			f_ args; \
	} while (0)
#define MSTX_CALL_RET(slot, args, none) \
	do { \
		__typeof__(mstxContext.slot) f_ = MSTX_LOAD(slot); \
		return f_ ? f_ args : (none); \
	} while (0)
#endif

MSTX_DECLSPEC void mstxMarkA(const char *message, aclrtStream stream)
{
	(void)message;
	(void)stream;
	MSTX_CALL(markA, (message, stream));
}

MSTX_DECLSPEC mstxRangeId mstxRangeStartA(const char *message,
					  aclrtStream stream)
{
	(void)message;
	(void)stream;
	MSTX_CALL_RET(rangeStartA, (message, stream), 0);
}

MSTX_DECLSPEC void mstxRangeEnd(mstxRangeId id)
{
	(void)id;
	MSTX_CALL(rangeEnd, (id));
}

MSTX_DECLSPEC void mstxGetToolId(uint64_t *id)
{
#ifndef MSTX_DISABLE
	mstxGetToolIdFunc f = MSTX_LOAD(getToolId);

	if (f) {
		f(id);
		return;
	}
#endif
	if (id)
		*id = MSTX_TOOL_INVALID_ID;
}

MSTX_DECLSPEC mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	(void)name;
	MSTX_CALL_RET(domainCreateA, (name), NULL);
}

MSTX_DECLSPEC void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	(void)domain;
	MSTX_CALL(domainDestroy, (domain));
}

MSTX_DECLSPEC void mstxDomainMarkA(mstxDomainHandle_t domain,
				   const char *message, aclrtStream stream)
{
	(void)domain;
	(void)message;
	(void)stream;
	MSTX_CALL(domainMarkA, (domain, message, stream));
}

MSTX_DECLSPEC mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
						const char *message,
						aclrtStream stream)
{
	(void)domain;
	(void)message;
	(void)stream;
	MSTX_CALL_RET(domainRangeStartA, (domain, message, stream), 0);
}

MSTX_DECLSPEC void mstxDomainRangeEnd(mstxDomainHandle_t domain,
				      mstxRangeId id)
{
	(void)domain;
	(void)id;
	MSTX_CALL(domainRangeEnd, (domain, id));
}

MSTX_DECLSPEC mstxMemHeapHandle_t mstxMemHeapRegister(
	mstxDomainHandle_t domain, mstxMemHeapDesc_t const *desc)
{
	(void)domain;
	(void)desc;
	MSTX_CALL_RET(memHeapRegister, (domain, desc), NULL);
}

MSTX_DECLSPEC void mstxMemHeapUnregister(mstxDomainHandle_t domain,
					 mstxMemHeapHandle_t heap)
{
	(void)domain;
	(void)heap;
	MSTX_CALL(memHeapUnregister, (domain, heap));
}

MSTX_DECLSPEC void mstxMemRegionsRegister(
	mstxDomainHandle_t domain, mstxMemRegionsRegisterBatch_t const *desc)
{
	(void)domain;
	(void)desc;
	MSTX_CALL(memRegionsRegister, (domain, desc));
}

MSTX_DECLSPEC void mstxMemRegionsUnregister(
	mstxDomainHandle_t domain, mstxMemRegionsUnregisterBatch_t const *desc)
{
	(void)domain;
	(void)desc;
	MSTX_CALL(memRegionsUnregister, (domain, desc));
}

#undef MSTX_CALL
#undef MSTX_CALL_RET

#ifdef __cplusplus
}
#endif

#endif /* MEMREG_MSTX_IMPL_H */
