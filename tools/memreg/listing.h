/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running a dump and streaming it as a table, row by row.
 */
#ifndef MEMREG_TOOL_LISTING_H
#define MEMREG_TOOL_LISTING_H

#include <stdint.h>

#include "tool.h"

struct listing {
	const char *what;			/* "proc show", for messages */
	uint8_t cmd;				/* MEMREG_CMD_*_GET */
	void (*begin)(struct out *o);		/* header or '[' */
	int (*print_row)(struct out *o, struct nlmsghdr *nlh);
};

/*
 * Dump l->cmd (filtered by the command line's pid, if any) and print each
 * row as it arrives.  The table is begun at the first row, or at the end
 * of an empty dump, so that a request the kernel refuses prints nothing on
 * stdout; once begun it is always ended, so that JSON output stays well
 * formed even when the dump fails half-way.  Returns the exit status.
 */
int listing_run(struct memreg *m, const struct listing *l);

#endif /* MEMREG_TOOL_LISTING_H */
