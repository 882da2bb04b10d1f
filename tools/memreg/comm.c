// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/comm fallback.  The process may have exited, or its pid been
 * reused, since the kernel answered; this is a best effort for display only.
 */
#include <stdio.h>
#include <string.h>

#include "comm.h"

const char *comm_proc_root = "/proc";

bool comm_from_proc(uint32_t pid, char *buf, size_t len)
{
	char path[256];
	FILE *f;
	bool ok;

	if (!len)
		return false;
	snprintf(path, sizeof(path), "%s/%u/comm", comm_proc_root, pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}
