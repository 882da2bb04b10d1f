// SPDX-License-Identifier: GPL-2.0
/*
 * nl_bench - how long `memreg -j region` takes to list many registrations,
 * and what one row costs the kernel and the tool.
 *
 *   nl_bench [-J] [-p PROCS] [-n TOTAL] [-r RUNS] [-t TOOL]
 *
 * PROCS processes (default 32) hold TOTAL registrations between them
 * (default 100000), one 4 KiB page each.  The per-process limit on the
 * number of registrations (256 by default) must be raised first:
 * `memreg limits set regions 4096` or the module parameter max_regions.
 *
 * Timed, RUNS times each (default 5), with the tool's output going to
 * /dev/null:
 *   empty     `TOOL -j region` with no registration at all: the fixed
 *	       cost of starting the tool and one netlink dump
 *   json      `TOOL -j region` with the TOTAL registrations
 *   table     `TOOL region` (the table for people), the same rows
 *   cat       `cat` of a file holding json's output: the cost of moving
 *	       the same bytes through a pipe-less write, no netlink at all
 * The user and system CPU time of each run are recorded too (wait4): the
 * tool's own work per row and the kernel's (dump, netlink).
 *
 * Prints figures, never judges them; -J adds "BENCH {...}" lines
 * (bench_json.h) with every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <memreg/memreg.h>

#include "bench_json.h"
#include "bench_holders.h"

#define MAX_PROCS	BH_MAX_PROCS
#define MAX_RUNS	BH_MAX_RUNS
#define OUT_FILE	"/tmp/nl_bench.json"

static bool json;
static unsigned int procs = 32, runs = 5;
static unsigned long total = 100000;
static const char *tool = "memreg";
static struct bh_holders holders = { .prog = "nl_bench" };

struct sample {
	double wall[MAX_RUNS], user[MAX_RUNS], sys[MAX_RUNS];
};

static bool measure(const char *name, char *const argv[], unsigned long rows,
		    unsigned long bytes, struct sample *s)
{
	unsigned int r;
	struct bj j;

	for (r = 0; r < runs; r++) {
		if (!bh_run_once(argv, "/dev/null", &s->wall[r], &s->user[r],
				 &s->sys[r], NULL)) {
			fprintf(stderr, "nl_bench: %s failed\n", argv[0]);
			return false;
		}
	}
	printf("%-6s %8lu rows %9lu bytes: %9.1f ms wall (user %.1f, sys %.1f)\n",
	       name, rows, bytes, bh_median(s->wall, runs) / 1e6,
	       bh_median(s->user, runs) / 1e6, bh_median(s->sys, runs) / 1e6);
	if (json) {
		bj_begin(&j, "nl");
		bj_str(&j, "case", name);
		bj_u64(&j, "rows", rows);
		bj_u64(&j, "bytes", bytes);
		bj_u64(&j, "procs", procs);
		bj_samples(&j, "wall_ns", s->wall, runs);
		bj_samples(&j, "user_ns", s->user, runs);
		bj_samples(&j, "sys_ns", s->sys, runs);
		bj_end(&j);
	}
	return true;
}

/* Rows and bytes of one JSON listing: the rows are objects with "id". */
static void count_output(unsigned long *rows, unsigned long *bytes)
{
	FILE *f = fopen(OUT_FILE, "r");
	const char *key = "\"id\":";
	size_t k = 0;
	int c;

	*rows = *bytes = 0;
	if (!f)
		return;
	while ((c = getc(f)) != EOF) {
		(*bytes)++;
		k = c == key[k] ? k + 1 : c == key[0];
		if (!key[k]) {
			(*rows)++;
			k = 0;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	char *list_json[] = { (char *)tool, "-j", "region", NULL };
	char *list_table[] = { (char *)tool, "region", NULL };
	char *cat[] = { "cat", OUT_FILE, NULL };
	struct sample s;
	unsigned long rows, bytes, rows0, bytes0;
	double t_hold, w, u, y;
	struct bj j;
	int opt, ret = 1;

	while ((opt = getopt(argc, argv, "Jp:n:r:t:")) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'p':
			procs = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			total = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 't':
			tool = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!procs || procs > MAX_PROCS || !runs || runs > MAX_RUNS)
		goto usage;
	list_json[0] = list_table[0] = (char *)tool;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!bh_run_once(list_json, OUT_FILE, &w, &u, &y, NULL)) {
		fprintf(stderr, "nl_bench: %s -j region failed\n", tool);
		return 1;
	}
	count_output(&rows0, &bytes0);
	printf("# median of %u runs; output to /dev/null\n", runs);
	if (!measure("empty", list_json, rows0, bytes0, &s))
		return 1;

	holders.procs = procs;
	t_hold = bh_now_ns();
	if (bh_start_holders(&holders, total))
		goto out;
	t_hold = bh_now_ns() - t_hold;
	printf("# %u processes registered %lu pages, one registration each, in %.0f ms (%.1f us each)\n",
	       procs, total, t_hold / 1e6, t_hold / 1e3 / total);
	if (json) {
		bj_begin(&j, "nl_setup");
		bj_u64(&j, "procs", procs);
		bj_u64(&j, "registrations", total);
		bj_num(&j, "register_ns", t_hold);
		bj_end(&j);
	}
	/* one run to a file: what the listing holds, and cat's input */
	if (!bh_run_once(list_json, OUT_FILE, &w, &u, &y, NULL)) {
		fprintf(stderr, "nl_bench: %s -j region failed\n", tool);
		goto out;
	}
	count_output(&rows, &bytes);
	if (rows < total)
		printf("# note: the listing has %lu rows, fewer than %lu\n",
		       rows, total);
	if (!measure("json", list_json, rows, bytes, &s))
		goto out;
	if (!measure("table", list_table, rows, 0, &s))
		goto out;
	if (!measure("cat", cat, rows, bytes, &s))
		goto out;
	ret = 0;
out:
	bh_stop_holders(&holders);
	unlink(OUT_FILE);
	return ret;
usage:
	fprintf(stderr, "usage: %s [-J] [-p PROCS] [-n TOTAL] [-r RUNS] [-t TOOL]\n",
		argv[0]);
	return 2;
}
