/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's command name from /proc, for when the kernel did not send one.
 */
#ifndef MEMREG_TOOL_COMM_H
#define MEMREG_TOOL_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where procfs is mounted; unit tests point it at a directory of their own. */
extern const char *comm_proc_root;

/* Read <root>/PID/comm into @buf without its newline; false if unreadable. */
bool comm_from_proc(uint32_t pid, char *buf, size_t len);

#endif /* MEMREG_TOOL_COMM_H */
