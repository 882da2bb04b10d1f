// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libmemreg as an mstx tool.  A program's mstx header finds
 * InitInjectionMstx (through MSTX_INJECTION_PATH=libmemreg.so, or in the
 * process when it is linked or preloaded) and hands us its function
 * tables; we fill the slots we implement, by CANN's module and slot
 * numbers:
 *
 *   CORE         GET_TOOL_ID
 *   CORE_DOMAIN  DOMAIN_CREATE_A, DOMAIN_DESTROY
 *   CORE_MEM     all four: heaps and regions
 *
 * Marks and ranges are left empty: memreg tracks memory, not time, and an
 * empty slot costs the caller one test instead of a call.
 *
 * The tool attaches only if /dev/memreg opens: without the module the
 * program runs as if no tool were there.
 */
#include <stdlib.h>

/* first: it asks for the declarations only (MSTX_NO_IMPL) */
#include "mstx.h"
#include <mstx/mstx_tool.h>

bool mstx__disabled;

static void mstx_get_tool_id(uint64_t *id)
{
	if (id)
		*id = MEMREG_MSTX_TOOL_ID;
}

/* Store @fn in slot @id of @module, if the caller's table has that slot. */
static int mstx_fill(mstxGetModuleFuncTableFunc get, mstxFuncModule module,
		     unsigned int id, mstxFuncPointer fn)
{
	mstxFuncTable table = NULL;
	unsigned int size = 0;

	if (get(module, &table, &size) != MSTX_SUCCESS || !table)
		return -1;
	if (id > size || !table[id])
		return -1;
	*table[id] = fn;
	return 0;
}

#define FN(f)	((mstxFuncPointer)(void (*)(void))(f))

/* A child has no heaps in the kernel; its parent's are not its own. */
static void mstx_atfork_child(void)
{
	__atomic_store_n(&mstx__disabled, true, __ATOMIC_RELAXED);
}

static pthread_once_t mstx_atfork_once = PTHREAD_ONCE_INIT;

static void mstx_register_atfork(void)
{
	pthread_atfork(NULL, NULL, mstx_atfork_child);
}

static const struct {
	mstxFuncModule module;
	unsigned int id;
	mstxFuncPointer fn;
} mstx_slots[] = {
	{ MSTX_API_MODULE_CORE, MSTX_API_CORE_GET_TOOL_ID,
	  FN(mstx_get_tool_id) },
	{ MSTX_API_MODULE_CORE_DOMAIN, MSTX_API_CORE2_DOMAIN_CREATE_A,
	  FN(mstx__domain_create) },
	{ MSTX_API_MODULE_CORE_DOMAIN, MSTX_API_CORE2_DOMAIN_DESTROY,
	  FN(mstx__domain_destroy) },
	{ MSTX_API_MODULE_CORE_MEM, MSTX_API_CORE_MEMHEAP_REGISTER,
	  FN(mstx__heap_register) },
	{ MSTX_API_MODULE_CORE_MEM, MSTX_API_CORE_MEMHEAP_UNREGISTER,
	  FN(mstx__heap_unregister) },
	{ MSTX_API_MODULE_CORE_MEM, MSTX_API_CORE_MEM_REGIONS_REGISTER,
	  FN(mstx__regions_register) },
	{ MSTX_API_MODULE_CORE_MEM, MSTX_API_CORE_MEM_REGIONS_UNREGISTER,
	  FN(mstx__regions_unregister) },
};

int InitInjectionMstx(mstxGetModuleFuncTableFunc getFuncTable)
{
	unsigned int i, filled = 0;

	if (!getFuncTable || mstx__disabled)
		return MSTX_FAIL;
	if (mstx__connect())
		return MSTX_FAIL;
	pthread_once(&mstx_atfork_once, mstx_register_atfork);

	/*
	 * Every module of the process that includes the header calls us
	 * once; all of them report into the same state.  A caller whose
	 * tables lack a module (msprof's private copy has no CORE_MEM) gets
	 * what it has room for.
	 */
	for (i = 0; i < sizeof(mstx_slots) / sizeof(mstx_slots[0]); i++)
		if (!mstx_fill(getFuncTable, mstx_slots[i].module,
			       mstx_slots[i].id, mstx_slots[i].fn))
			filled++;
	return filled ? MSTX_SUCCESS : MSTX_FAIL;
}
