// A CANN program of the ACL runtime, the allocator family and mstx, as
// CANN's samples write one.  Run on a host without the memreg module
// (MEMREG_DEVICE pointing nowhere), so it checks that it linked and that
// the runtime fails cleanly: aclInit succeeds, aclrtSetDevice returns
// ACL_ERROR_RT_NO_DEVICE, mstx has no tool.  Prints one line per check,
// "ok ..." or "FAIL ...", and exits with the number of failures.
#include <cstdio>
#include <cstdint>
#include "acl/acl.h"
#include "mstx/ms_tools_ext.h"

namespace {
int g_failed = 0;

void Check(bool ok, const char *what, long got)
{
    std::printf("%s %s (got %ld)\n", ok ? "ok" : "FAIL", what, got);
    if (!ok) {
        g_failed++;
    }
}

void *AllocFunc(aclrtAllocator, size_t) { return nullptr; }
void FreeFunc(aclrtAllocator, aclrtAllocatorBlock) {}
void *AllocAdviseFunc(aclrtAllocator, size_t, aclrtAllocatorAddr) { return nullptr; }
void *GetAddrFromBlockFunc(aclrtAllocatorBlock block) { return block; }
}  // namespace

int main()
{
    aclError ret = aclInit(nullptr);
    Check(ret == ACL_SUCCESS, "aclInit", ret);
    ret = aclrtSetDevice(0);
    Check(ret == ACL_ERROR_RT_NO_DEVICE, "aclrtSetDevice without the module: ACL_ERROR_RT_NO_DEVICE", ret);

    static int pool;
    aclrtAllocatorDesc desc = aclrtAllocatorCreateDesc();
    Check(desc != nullptr, "aclrtAllocatorCreateDesc", desc != nullptr);
    ret = aclrtAllocatorSetObjToDesc(desc, &pool);
    ret |= aclrtAllocatorSetAllocFuncToDesc(desc, AllocFunc);
    ret |= aclrtAllocatorSetFreeFuncToDesc(desc, FreeFunc);
    ret |= aclrtAllocatorSetAllocAdviseFuncToDesc(desc, AllocAdviseFunc);
    ret |= aclrtAllocatorSetGetAddrFromBlockFuncToDesc(desc, GetAddrFromBlockFunc);
    Check(ret == ACL_SUCCESS, "aclrtAllocatorSet*ToDesc", ret);
    ret = aclrtAllocatorRegister(nullptr, desc);
    Check(ret == ACL_ERROR_INVALID_PARAM, "aclrtAllocatorRegister on the NULL stream: ACL_ERROR_INVALID_PARAM", ret);
    ret = aclrtAllocatorDestroyDesc(desc);
    Check(ret == ACL_SUCCESS, "aclrtAllocatorDestroyDesc", ret);

    uint64_t toolId = 1;
    mstxGetToolId(&toolId);
    Check(toolId == MSTX_TOOL_INVALID_ID, "mstxGetToolId: no tool without the module", static_cast<long>(toolId));
    static char heapMem[4096];
    mstxMemVirtualRangeDesc_t range{0, heapMem, sizeof(heapMem)};
    mstxMemHeapDesc_t heapDesc{};
    heapDesc.usage = MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
    heapDesc.type = MSTX_MEM_TYPE_VIRTUAL_ADDRESS;
    heapDesc.typeSpecificDesc = &range;
    mstxMemHeapHandle_t heap = mstxMemHeapRegister(globalDomain, &heapDesc);
    Check(heap == nullptr, "mstxMemHeapRegister: NULL without a tool", heap != nullptr);
    mstxMemHeapUnregister(globalDomain, heap);

    ret = aclFinalize();
    Check(ret == ACL_SUCCESS, "aclFinalize", ret);
    return g_failed;
}
