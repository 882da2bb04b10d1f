// SPDX-License-Identifier: GPL-2.0
/*
 * From a parsed command line to the object command that carries it out.
 */
#include <errno.h>
#include <string.h>

#include <linux/memreg.h>

#include "tool.h"

#ifndef MEMREG_TOOL_VERSION
#define MEMREG_TOOL_VERSION	"unknown"
#endif

static int (*const commands[])(struct memreg *m) = {
	[OBJ_STATS] = cmd_stats,
	[OBJ_PROC] = cmd_proc,
	[OBJ_REGION] = cmd_region,
	[OBJ_LIMITS] = cmd_limits,
	[OBJ_MONITOR] = cmd_monitor,
	[OBJ_HEAP] = cmd_heap,
	[OBJ_DEV] = cmd_dev,
	[OBJ_HEADROOM] = cmd_headroom,
};

int memreg_run(int argc, char **argv, FILE *out, FILE *err)
{
	struct memreg m = { .err = err };
	int ret;

	ret = args_parse(&m.args, argc, argv, err);
	if (ret)
		return ret;
	if (m.args.help) {
		args_usage(out);
		return 0;
	}
	if (m.args.version) {
		fprintf(out, "memreg %s (ABI %d, generic netlink family \"%s\" version %d)\n",
			MEMREG_TOOL_VERSION, MEMREG_ABI_VERSION,
			MEMREG_GENL_NAME, MEMREG_GENL_VERSION);
		return 0;
	}

	if (mrnl_open(&m.nl, err))
		return 1;
	out_init(&m.out, out, m.args.json, m.args.pretty);
	ret = commands[m.args.object](&m);
	mrnl_close(&m.nl);
	out_flush(&m.out);

	/* a full disk or closed pipe must not look like success */
	if (fflush(out) || ferror(out)) {
		fprintf(err, "memreg: error writing output: %s\n",
			strerror(errno));
		return 1;
	}
	return ret;
}
