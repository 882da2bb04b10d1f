/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A process's command name from /proc, for when the kernel did not send one;
 * whether a pid is a process.
 */
#ifndef MEMREG_TOOL_COMM_H
#define MEMREG_TOOL_COMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where procfs is mounted; unit tests point it at a directory of their own. */
extern const char *comm_proc_root;

/* Read <root>/PID/comm into @buf without its newline; false if unreadable. */
bool comm_from_proc(uint32_t pid, char *buf, size_t len);

/* @pid is a process (a zombie too), whoever's it is. */
bool proc_pid_alive(uint32_t pid);

/*
 * "memreg: no memreg context for pid PID", with ": no such process" if
 * the pid is not one: every command given a pid says it the same way.
 */
void proc_report_no_context(FILE *err, uint32_t pid);

#endif /* MEMREG_TOOL_COMM_H */
