/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a dump and printing it as a table, sorted.
 */
#ifndef MEMREG_TOOL_LISTING_H
#define MEMREG_TOOL_LISTING_H

#include <stdint.h>

#include "tool.h"

/* The sort key of a row without the attribute: after every real one. */
#define LISTING_KEY_LAST	UINT64_MAX

struct listing {
	const char *what;			/* "proc show", for messages */
	uint8_t cmd;				/* MEMREG_CMD_*_GET */
	void (*begin)(struct out *o);		/* header or '[' */
	int (*print_row)(struct out *o, struct nlmsghdr *nlh);
	/*
	 * The row's place: by key[0], then key[1] (pid and id, device
	 * and 0, ...); rows with equal keys keep the kernel's order.
	 * Negative errno for a message that cannot be read.
	 */
	int (*sort_key)(struct nlmsghdr *nlh, uint64_t key[2]);
};

/*
 * Dump l->cmd (filtered by the command line's pid or device, if any),
 * sort the rows and print them.  Nothing is printed on stdout when the
 * kernel refuses the request, or when the pid asked for is no process
 * (exit 1, as for "limits show pid"); a live process with no rows is an
 * empty table.  Once begun, the table is always ended, so that JSON
 * output stays well formed when the dump fails half-way: the rows that
 * came are printed, and the error is reported.  Returns the exit status.
 */
int listing_run(struct memreg *m, const struct listing *l);

/* Sort keys shared by the objects: a u32 attribute, or LISTING_KEY_LAST. */
uint64_t listing_key_u32(const struct nlattr *a);

#endif /* MEMREG_TOOL_LISTING_H */
