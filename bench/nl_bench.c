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

#define MAX_PROCS	1024
#define MAX_RUNS	64
#define PAGE		4096UL
#define OUT_FILE	"/tmp/nl_bench.json"

static bool json;
static unsigned int procs = 32, runs = 5;
static unsigned long total = 100000;
static const char *tool = "memreg";
static pid_t holders[MAX_PROCS];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1e9 + tv->tv_usec * 1e3;
}

/*
 * A holder: registers @n pages of its own, one registration each, says
 * "ok" or why not on @wfd, and waits to be killed.  Its registrations go
 * with it.
 */
static void hold(unsigned long n, int wfd)
{
	struct memreg_ctx *ctx;
	unsigned long i;
	uint64_t handle;
	char *buf, msg[128];
	int err;

	buf = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		snprintf(msg, sizeof(msg), "mmap: %s", strerror(errno));
		goto out;
	}
	err = memreg_open(&ctx);
	if (err) {
		snprintf(msg, sizeof(msg), "memreg_open: %s",
			 memreg_strerror(err));
		goto out;
	}
	for (i = 0; i < n; i++) {
		buf[i * PAGE] = 1;
		err = memreg_register(ctx, buf + i * PAGE, PAGE,
				      MEMREG_MEM_HOST, 0, &handle);
		if (err) {
			snprintf(msg, sizeof(msg), "registration %lu: %s", i,
				 memreg_strerror(err));
			goto out;
		}
	}
	snprintf(msg, sizeof(msg), "ok");
out:
	if (write(wfd, msg, strlen(msg) + 1) < 0)
		_exit(1);
	close(wfd);
	for (;;)
		pause();
}

/* Starts the holders; the time it took, or < 0 if one failed. */
static double start_holders(void)
{
	unsigned long share = total / procs, extra = total % procs;
	unsigned int i, failed = 0;
	char msg[128];
	int fds[2];
	double t0 = now_ns();
	ssize_t got;

	for (i = 0; i < procs; i++) {
		if (pipe(fds))
			return -1;
		holders[i] = fork();
		if (holders[i] < 0)
			return -1;
		if (holders[i] == 0) {
			close(fds[0]);
			hold(share + (i < extra), fds[1]);
		}
		close(fds[1]);
		/* one at a time: they would only share the two CPUs anyway */
		got = read(fds[0], msg, sizeof(msg) - 1);
		close(fds[0]);
		msg[got > 0 ? got : 0] = 0;
		if (strcmp(msg, "ok")) {
			fprintf(stderr, "nl_bench: holder %u: %s\n", i,
				got > 0 ? msg : "died");
			failed = 1;
		}
	}
	return failed ? -1 : now_ns() - t0;
}

static void stop_holders(void)
{
	unsigned int i;

	for (i = 0; i < procs; i++) {
		if (holders[i] > 0) {
			kill(holders[i], SIGKILL);
			waitpid(holders[i], NULL, 0);
		}
	}
}

struct sample {
	double wall[MAX_RUNS], user[MAX_RUNS], sys[MAX_RUNS];
};

/* Runs @argv once with stdout to @out; false if it did not exit 0. */
static bool run_once(char *const argv[], const char *out, double *wall,
		     double *user, double *sys)
{
	struct rusage ru;
	double t0;
	int status, fd;
	pid_t pid;

	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return false;
	*wall = now_ns() - t0;
	*user = tv_ns(&ru.ru_utime);
	*sys = tv_ns(&ru.ru_stime);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, unsigned int n)
{
	double s[MAX_RUNS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* Times @argv RUNS times into @s and prints it as @name. */
static bool measure(const char *name, char *const argv[], unsigned long rows,
		    unsigned long bytes, struct sample *s)
{
	unsigned int r;
	struct bj j;

	for (r = 0; r < runs; r++) {
		if (!run_once(argv, "/dev/null", &s->wall[r], &s->user[r],
			      &s->sys[r])) {
			fprintf(stderr, "nl_bench: %s failed\n", argv[0]);
			return false;
		}
	}
	printf("%-6s %8lu rows %9lu bytes: %9.1f ms wall (user %.1f, sys %.1f)\n",
	       name, rows, bytes, median(s->wall, runs) / 1e6,
	       median(s->user, runs) / 1e6, median(s->sys, runs) / 1e6);
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

	if (!run_once(list_json, OUT_FILE, &w, &u, &y)) {
		fprintf(stderr, "nl_bench: %s -j region failed\n", tool);
		return 1;
	}
	count_output(&rows0, &bytes0);
	printf("# median of %u runs; output to /dev/null\n", runs);
	if (!measure("empty", list_json, rows0, bytes0, &s))
		return 1;

	t_hold = start_holders();
	if (t_hold < 0)
		goto out;
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
	if (!run_once(list_json, OUT_FILE, &w, &u, &y)) {
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
	stop_holders();
	unlink(OUT_FILE);
	return ret;
usage:
	fprintf(stderr, "usage: %s [-J] [-p PROCS] [-n TOTAL] [-r RUNS] [-t TOOL]\n",
		argv[0]);
	return 2;
}
