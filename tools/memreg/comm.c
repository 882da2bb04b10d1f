// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/comm fallback.  The process may have exited, or its pid been
 * reused, since the kernel answered; this is a best effort for display only.
 * And whether a pid names a process at all, for the messages of commands
 * that were given one.
 */
#include <errno.h>
#include <signal.h>
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

bool proc_pid_alive(uint32_t pid)
{
	/*
	 * Signal 0 checks without sending: EPERM is another user's process,
	 * which exists.  Not /proc/PID, which hidepid= may hide; and in the
	 * caller's pid namespace, the one the kernel reads our pids in.
	 */
	return kill((pid_t)pid, 0) == 0 || errno != ESRCH;
}

void proc_report_no_context(FILE *err, uint32_t pid)
{
	if (proc_pid_alive(pid))
		fprintf(err, "memreg: no memreg context for pid %u\n", pid);
	else
		fprintf(err, "memreg: no memreg context for pid %u: no such process\n",
			pid);
}
