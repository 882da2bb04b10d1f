/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the listing benches (nl_bench, mr_bench) share: the clock, the
 * median of a few runs, the holder processes that keep a number of
 * one-page registrations alive while a tool lists them, and one timed run
 * of a tool with its CPU time (wait4).
 */
#ifndef BENCH_HOLDERS_H
#define BENCH_HOLDERS_H

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
#include <sys/time.h>
#include <sys/wait.h>

#include <memreg/memreg.h>

#define BH_MAX_PROCS	1024
#define BH_MAX_RUNS	64
#define BH_PAGE		4096UL

static inline double bh_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline double bh_tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1e9 + tv->tv_usec * 1e3;
}

static inline int bh_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n (at most BH_MAX_RUNS) figures; 0 of none. */
static inline double bh_median(const double *v, unsigned int n)
{
	double s[BH_MAX_RUNS];

	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), bh_cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * A holder: registers @n pages of its own, one registration each, says
 * "ok" or why not on @wfd, and waits to be killed.  Its registrations go
 * with it.
 */
static inline void bh_hold(unsigned long n, int wfd)
{
	struct memreg_ctx *ctx;
	unsigned long i;
	uint64_t handle;
	char *buf, msg[128];
	int err;

	buf = mmap(NULL, n * BH_PAGE, PROT_READ | PROT_WRITE,
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
		buf[i * BH_PAGE] = 1;
		err = memreg_register(ctx, buf + i * BH_PAGE, BH_PAGE,
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

/* @procs processes holding @total registrations between them. */
struct bh_holders {
	const char *prog;		/* for messages */
	unsigned int procs;
	pid_t pid[BH_MAX_PROCS];
};

static inline void bh_stop_holders(struct bh_holders *h)
{
	unsigned int i;

	for (i = 0; i < h->procs; i++) {
		if (h->pid[i] > 0) {
			kill(h->pid[i], SIGKILL);
			waitpid(h->pid[i], NULL, 0);
			h->pid[i] = 0;
		}
	}
}

/* Starts the holders, one at a time; 0, or -1 if one failed. */
static inline int bh_start_holders(struct bh_holders *h, unsigned long total)
{
	unsigned long share = total / h->procs, extra = total % h->procs;
	unsigned int i;
	char msg[128];
	int fds[2];
	ssize_t got;

	for (i = 0; i < h->procs; i++) {
		if (pipe(fds))
			return -1;
		h->pid[i] = fork();
		if (h->pid[i] < 0)
			return -1;
		if (h->pid[i] == 0) {
			close(fds[0]);
			bh_hold(share + (i < extra), fds[1]);
		}
		close(fds[1]);
		/* one at a time: they would only share the two CPUs anyway */
		got = read(fds[0], msg, sizeof(msg) - 1);
		close(fds[0]);
		msg[got > 0 ? got : 0] = 0;
		if (strcmp(msg, "ok")) {
			fprintf(stderr, "%s: holder %u: %s\n", h->prog, i,
				got > 0 ? msg : "died");
			return -1;
		}
	}
	return 0;
}

/*
 * Runs @argv once with stdout to @out: its wall, user and system time in
 * ns, and its minor page faults if @minflt; false if it did not exit 0.
 */
static inline bool bh_run_once(char *const argv[], const char *out,
			       double *wall, double *user, double *sys,
			       double *minflt)
{
	struct rusage ru;
	double t0;
	int status, fd;
	pid_t pid;

	t0 = bh_now_ns();
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
	*wall = bh_now_ns() - t0;
	*user = bh_tv_ns(&ru.ru_utime);
	*sys = bh_tv_ns(&ru.ru_stime);
	if (minflt)
		*minflt = ru.ru_minflt;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#endif /* BENCH_HOLDERS_H */
