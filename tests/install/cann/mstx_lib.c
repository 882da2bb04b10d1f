/*
 * mstx through libms_tools_ext.so (built with MSTX_NO_IMPL: the header
 * only declares).  No module here, so no tool: the no-tool answers.
 */
#include <stdio.h>
#include "mstx/ms_tools_ext.h"

int main(void)
{
	uint64_t id = 1;
	mstxDomainHandle_t domain = mstxDomainCreateA("cann-layout");
	mstxRangeId range = mstxRangeStartA("range", NULL);
	int failed = 0;

	mstxGetToolId(&id);
	mstxMarkA("mark", NULL);
	mstxRangeEnd(range);
	mstxDomainDestroy(domain);
	failed = id != MSTX_TOOL_INVALID_ID || domain || range;
	printf("%s mstx through libms_tools_ext.so (tool %llu, domain %p, range %llu)\n",
	       failed ? "FAIL" : "ok", (unsigned long long)id, (void *)domain,
	       (unsigned long long)range);
	return failed;
}
