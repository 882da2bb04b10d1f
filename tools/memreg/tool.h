/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the object commands share: the parsed command line, the output and
 * the netlink connection; and each object's entry points.
 *
 * Every object has a command (cmd_*: talks to the kernel, returns the exit
 * status) and printers that take one netlink message and write it through
 * struct out.  The printers need no kernel: unit tests feed them messages
 * built by hand.
 */
#ifndef MEMREG_TOOL_TOOL_H
#define MEMREG_TOOL_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include <netlink/netlink.h>

#include "args.h"
#include "nl.h"
#include "out.h"

struct memreg {
	struct memreg_args args;
	struct out out;
	FILE *err;
	struct mrnl nl;
};

/* Parse, connect, run the command; the process's exit status. */
int memreg_run(int argc, char **argv, FILE *out, FILE *err);

/* memreg stats */
int cmd_stats(struct memreg *m);
int stats_print(struct out *o, struct nlmsghdr *nlh);

/*
 * The listings print their rows sorted by the key *_sort_key() takes
 * from each message (see listing.h).
 */

/* memreg proc [show] [[pid] N] */
int cmd_proc(struct memreg *m);
void proc_table_begin(struct out *o);
int proc_print_row(struct out *o, struct nlmsghdr *nlh);
int proc_sort_key(struct nlmsghdr *nlh, uint64_t key[2]);

/* memreg region [show] [[pid] N] */
int cmd_region(struct memreg *m);
void region_table_begin(struct out *o);
int region_print_row(struct out *o, struct nlmsghdr *nlh);
int region_sort_key(struct nlmsghdr *nlh, uint64_t key[2]);
/* the fields of a registration, shared with the monitor's events */
void region_fields(struct out *o, struct nlattr **tb, bool proc_fallback);

/* memreg limits [show] [[pid] N]; memreg limits set ... */
int cmd_limits(struct memreg *m);
int limits_print(struct out *o, struct nlmsghdr *nlh, bool with_pid);

/* memreg limits [show] cgroup PATH; memreg limits set cgroup PATH ... */
int cmd_cgroup_limits(struct memreg *m);
int cgroup_print(struct out *o, struct nlmsghdr *nlh);
/* PATH as the kernel takes it: a directory on a cgroup2 mount; 0 or 1 */
int cgroup_dir(const char *path, char *buf, size_t len, FILE *err);

/* memreg headroom [pid PID | cgroup PATH] [dev N] */
int cmd_headroom(struct memreg *m);
int headroom_print(struct out *o, struct nlmsghdr *nlh);

/* memreg heap [show] [[pid] N] */
int cmd_heap(struct memreg *m);
void heap_table_begin(struct out *o);
int heap_print_row(struct out *o, struct nlmsghdr *nlh);
int heap_sort_key(struct nlmsghdr *nlh, uint64_t key[2]);

/* memreg dev [show] [[dev] N] */
int cmd_dev(struct memreg *m);
void dev_table_begin(struct out *o);
int dev_print_row(struct out *o, struct nlmsghdr *nlh);
int dev_sort_key(struct nlmsghdr *nlh, uint64_t key[2]);

/* memreg monitor */
int cmd_monitor(struct memreg *m);
int monitor_print_event(struct out *o, struct nlmsghdr *nlh);

#endif /* MEMREG_TOOL_TOOL_H */
