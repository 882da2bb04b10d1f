// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lib64/libms_tools_ext.so of memreg's CANN tree: the mstx API as a
 * library, for programs that link it (-lms_tools_ext with MSTX_NO_IMPL)
 * or dlopen it and look the functions up by name, as torch_npu does with
 * $ASCEND_HOME_PATH/lib64/libms_tools_ext.so.
 *
 * libmemreg cannot simply carry these names: it is the mstx *tool*
 * (InitInjectionMstx), and <mstx/ms_tools_ext.h> is header-only, each
 * module keeping its own function table.  So this library is one more
 * such module: it compiles the header's implementation under other names
 * (the defines below) and exports the 13 API functions over them.  The
 * first call attaches a tool as every module does: MSTX_INJECTION_PATH if
 * set, else InitInjectionMstx looked up from here, which finds libmemreg
 * (a DT_NEEDED of this library, so in its lookup scope even when the
 * library was dlopen()ed RTLD_LOCAL).  Without the module every call is
 * the no-tool answer.
 */
#define mstxMarkA			mstx_hdr_MarkA
#define mstxRangeStartA			mstx_hdr_RangeStartA
#define mstxRangeEnd			mstx_hdr_RangeEnd
#define mstxGetToolId			mstx_hdr_GetToolId
#define mstxDomainCreateA		mstx_hdr_DomainCreateA
#define mstxDomainDestroy		mstx_hdr_DomainDestroy
#define mstxDomainMarkA			mstx_hdr_DomainMarkA
#define mstxDomainRangeStartA		mstx_hdr_DomainRangeStartA
#define mstxDomainRangeEnd		mstx_hdr_DomainRangeEnd
#define mstxMemHeapRegister		mstx_hdr_MemHeapRegister
#define mstxMemHeapUnregister		mstx_hdr_MemHeapUnregister
#define mstxMemRegionsRegister		mstx_hdr_MemRegionsRegister
#define mstxMemRegionsUnregister	mstx_hdr_MemRegionsUnregister
#include <mstx/ms_tools_ext.h>
#undef mstxMarkA
#undef mstxRangeStartA
#undef mstxRangeEnd
#undef mstxGetToolId
#undef mstxDomainCreateA
#undef mstxDomainDestroy
#undef mstxDomainMarkA
#undef mstxDomainRangeStartA
#undef mstxDomainRangeEnd
#undef mstxMemHeapRegister
#undef mstxMemHeapUnregister
#undef mstxMemRegionsRegister
#undef mstxMemRegionsUnregister

/* Built with -fvisibility=hidden: these are the only exports. */
#define EXPORT	__attribute__((visibility("default")))

EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
	mstx_hdr_MarkA(message, stream);
}

EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	return mstx_hdr_RangeStartA(message, stream);
}

EXPORT void mstxRangeEnd(mstxRangeId id)
{
	mstx_hdr_RangeEnd(id);
}

EXPORT void mstxGetToolId(uint64_t *id)
{
	mstx_hdr_GetToolId(id);
}

EXPORT mstxDomainHandle_t mstxDomainCreateA(const char *name)
{
	return mstx_hdr_DomainCreateA(name);
}

EXPORT void mstxDomainDestroy(mstxDomainHandle_t domain)
{
	mstx_hdr_DomainDestroy(domain);
}

EXPORT void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
			    aclrtStream stream)
{
	mstx_hdr_DomainMarkA(domain, message, stream);
}

EXPORT mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain,
					 const char *message,
					 aclrtStream stream)
{
	return mstx_hdr_DomainRangeStartA(domain, message, stream);
}

EXPORT void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id)
{
	mstx_hdr_DomainRangeEnd(domain, id);
}

EXPORT mstxMemHeapHandle_t mstxMemHeapRegister(mstxDomainHandle_t domain,
					       mstxMemHeapDesc_t const *desc)
{
	return mstx_hdr_MemHeapRegister(domain, desc);
}

EXPORT void mstxMemHeapUnregister(mstxDomainHandle_t domain,
				  mstxMemHeapHandle_t heap)
{
	mstx_hdr_MemHeapUnregister(domain, heap);
}

EXPORT void mstxMemRegionsRegister(mstxDomainHandle_t domain,
				   mstxMemRegionsRegisterBatch_t const *desc)
{
	mstx_hdr_MemRegionsRegister(domain, desc);
}

EXPORT void mstxMemRegionsUnregister(mstxDomainHandle_t domain,
				     mstxMemRegionsUnregisterBatch_t const *desc)
{
	mstx_hdr_MemRegionsUnregister(domain, desc);
}
