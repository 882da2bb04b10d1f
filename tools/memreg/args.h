/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line: memreg [-j] [-p] OBJECT [COMMAND] [ARGS].
 * Parsing is separate from doing, so that it can be tested on its own.
 */
#ifndef MEMREG_TOOL_ARGS_H
#define MEMREG_TOOL_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exit status for a command line the tool does not understand. */
#define EXIT_USAGE	2

enum memreg_object {
	OBJ_NONE,
	OBJ_STATS,
	OBJ_PROC,
	OBJ_REGION,
	OBJ_LIMITS,
	OBJ_MONITOR,
	OBJ_HEAP,
	OBJ_DEV,
	OBJ_HEADROOM,
};

enum memreg_action {
	ACT_SHOW,
	ACT_SET,
};

/* Which limits "limits set" was given. */
#define SET_REGIONS	(1u << 0)
#define SET_HOST	(1u << 1)
#define SET_DEV		(1u << 2)
#define SET_DMABUF	(1u << 3)

struct memreg_args {
	bool json;
	bool pretty;
	bool help;		/* print usage on stdout, exit 0 */
	bool version;		/* print the version, exit 0 */
	enum memreg_object object;
	enum memreg_action action;
	bool has_pid;
	uint32_t pid;
	bool has_device;	/* memreg dev ... dev N */
	uint32_t device;
	unsigned int set;	/* SET_* */
	bool all;		/* limits set --all: a default of 0 is meant */
	uint64_t max_regions;
	uint64_t max_host_bytes;
	uint64_t max_dev_bytes;
	uint64_t max_dmabuf_bytes;
	const char *cgroup;	/* limits/headroom ... cgroup PATH */
};

/*
 * Fill @a from argv.  Returns 0, or EXIT_USAGE after printing what is
 * wrong and the usage on @err.  -p implies -j.
 */
int args_parse(struct memreg_args *a, int argc, char **argv, FILE *err);

void args_usage(FILE *f);

#endif /* MEMREG_TOOL_ARGS_H */
