// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_fuzz - a structured fuzzer for /dev/memreg and the "memreg"
 * generic netlink family, for the VM (tests/vm/cases/fuzz.sh).
 *
 *   memreg_fuzz [--seed N] [--seconds S] [--procs P] [--threads T]
 *
 * P worker processes of T threads each make calls until S seconds have
 * passed: ioctls (fuzz_ioctl.c), netlink requests (fuzz_netlink.c) and
 * changes to the memory and files beneath them, forks and kills
 * (fuzz_mm.c).  The seed is printed first; the same seed makes every
 * thread draw the same calls again (their results may differ, since the
 * threads and processes race).  The end is a table of calls by kind and a
 * TAP line: "ok" if every worker exited by itself.  The kernel's side --
 * KASAN, lockdep, kmemleak, leaked pins -- is the harness's to judge.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz.h"

struct fz_shared *fz_sh;
uint64_t fz_deadline_ns;

#define FZ_SCRATCH	(4UL << 20)	/* > MEMREG_XFER_MAX_DESCS descriptors */
#define FZ_MAX_PROCS	64
#define FZ_MAX_THREADS	64

static const char *const fz_kind_names[] = {
#define FZ_KIND_NAME(k, name) name,
	FZ_KINDS(FZ_KIND_NAME)
#undef FZ_KIND_NAME
};

/*
 * Where a stuck worker's threads are, before the SIGKILL that ends it:
 * each one's state, wchan and kernel stack (/proc/PID/task/TID/stack,
 * root only; a user's run prints what it may read), as comments.
 */
static void fz_dump_stuck(pid_t pid)
{
	char path[96], line[256];
	struct dirent *de;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		static const char *const what[] = { "stat", "wchan", "stack" };

		for (unsigned int i = 0; i < 3; i++) {
			snprintf(path, sizeof(path), "/proc/%d/task/%.16s/%s",
				 pid, de->d_name, what[i]);
			f = fopen(path, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				printf("#   %s %s: %s%s", de->d_name, what[i],
				       line, strchr(line, '\n') ? "" : "\n");
			fclose(f);
		}
	}
	closedir(d);
	fflush(stdout);
}

uint64_t fz_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* --mix: how many in 100 calls go to the ioctls, netlink, memory and files */
static unsigned int fz_mix_ioctl = 84, fz_mix_netlink = 8, fz_mix_mm = 8;

void fz_step(struct fz_thread *t)
{
	unsigned int r = fz_below(&t->rng, fz_mix_ioctl + fz_mix_netlink +
				  fz_mix_mm);

	if (r < fz_mix_ioctl)
		fz_ioctl_one(t);
	else if (r < fz_mix_ioctl + fz_mix_netlink)
		fz_netlink_one(t);
	else
		fz_mm_one(t);
	t->calls++;
}

static void *fz_thread_main(void *arg)
{
	struct fz_thread *t = arg;

	/*
	 * The clock is read at every step (a vDSO call): under KASAN and TCG a
	 * step can take a second, and checking every 32 steps ran 40 s over.
	 */
	while (fz_now_ns() < fz_deadline_ns)
		fz_step(t);
	return NULL;
}

/* Seeds of process @proc's threads: apart, whatever the run's seed. */
static uint64_t fz_thread_seed(uint64_t seed, int proc, int thread)
{
	struct fz_rng r = { seed ^ ((uint64_t)proc << 40) ^
			    ((uint64_t)thread << 20) };

	return fz_next(&r);
}

/*
 * A worker that crashes says where, on the output the harness keeps: the
 * faulting address and a backtrace (addr2line -e memreg_fuzz turns its
 * offsets into lines).  Nothing in it allocates or locks: write(),
 * backtrace_symbols_fd(), and snprintf() of two integers and a pointer;
 * backtrace() was called once before, so that it loads libgcc outside.
 */
static void fz_on_crash(int sig, siginfo_t *si, void *uc)
{
	void *frames[32];
	char line[128];
	int n;

	(void)uc;
	n = snprintf(line, sizeof(line), "# pid %d: signal %d (SIGSEGV) at address %p\n",
		     getpid(), sig, si->si_addr);
	if (n > 0)
		write(STDOUT_FILENO, line, n);
	n = backtrace(frames, 32);
	backtrace_symbols_fd(frames, n, STDOUT_FILENO);
	raise(sig);		/* SA_RESETHAND: the default action now */
}

static void fz_report_crashes(void)
{
	struct sigaction sa = {
		.sa_sigaction = fz_on_crash,
		.sa_flags = SA_SIGINFO | SA_RESETHAND,
	};
	void *frame;

	backtrace(&frame, 1);
	sigaction(SIGSEGV, &sa, NULL);
}

static int fz_worker(int index, uint64_t seed, int threads)
{
	static struct fz_proc p;
	static struct fz_thread ts[FZ_MAX_THREADS];
	pthread_t tids[FZ_MAX_THREADS];
	struct memreg_info info = { .size = sizeof(info) };
	struct fz_rng r = { fz_thread_seed(seed, index, 999) };
	int fd;

	fz_report_crashes();
	fz_pool_init(&p);
	p.index = index;
	p.page_size = sysconf(_SC_PAGESIZE);
	fd = open("/dev/memreg", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, MEMREG_IOC_INFO, &info)) {
		perror("memreg_fuzz: /dev/memreg");
		return 1;
	}
	p.fds[0] = fd;
	p.devices = info.devices;
	fz_mm_init(&p, &r);
	/* every buffer is made now: later mmap()s are the pool's alone */
	for (int i = 0; i < threads; i++) {
		struct fz_thread *t = &ts[i];

		t->p = &p;
		t->index = i;
		t->rng.s = fz_thread_seed(seed, index, i);
		t->nlfd = -1;
		t->scratch_len = FZ_SCRATCH;
		t->scratch = mmap(NULL, FZ_SCRATCH, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		t->dmabuf_win = mmap(NULL, FZ_DMABUF_WIN, PROT_NONE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				     -1, 0);
		if (t->scratch == MAP_FAILED || t->dmabuf_win == MAP_FAILED) {
			perror("memreg_fuzz: mmap");
			return 1;
		}
	}
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&tids[i], NULL, fz_thread_main, &ts[i])) {
			fprintf(stderr, "memreg_fuzz: pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	fz_reap_children(&p, true);
	return 0;
}

static void fz_usage(void)
{
	fprintf(stderr,
		"usage: memreg_fuzz [--seed N] [--seconds S] [--procs P] [--threads T]\n"
		"                   [--mix IOCTL,NETLINK,MM]  (weights, default 84,8,8)\n");
	exit(2);
}

static void fz_print_stats(double secs)
{
	uint64_t total = 0, ok = 0;

	printf("# calls by kind:\n");
	for (int k = 0; k < FZ_NKINDS; k++) {
		const struct fz_kstat *st = &fz_sh->stats[k];
		char line[2048];
		int n;

		total += st->calls;
		ok += st->ok;
		if (!st->calls)
			continue;
		n = snprintf(line, sizeof(line), "# %-30s %10llu (ok %llu",
			     fz_kind_names[k], (unsigned long long)st->calls,
			     (unsigned long long)st->ok);
		for (int e = 1; e < FZ_NERRNO && n < (int)sizeof(line) - 64; e++) {
			const char *name = strerrorname_np(e);

			if (st->err[e])
				n += snprintf(line + n, sizeof(line) - n, ", %s %llu",
					      name ? name : "?",
					      (unsigned long long)st->err[e]);
		}
		if (st->err[0])
			snprintf(line + n, sizeof(line) - n, ", other %llu",
				 (unsigned long long)st->err[0]);
		printf("%s)\n", line);
	}
	printf("# total %llu calls, %llu ok, in %.1f s: %.0f calls/s\n",
	       (unsigned long long)total, (unsigned long long)ok, secs,
	       secs > 0 ? total / secs : 0.0);
	printf("# grant tokens published: %llu\n",
	       (unsigned long long)fz_sh->tokens_published);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "threads", required_argument, NULL, 'T' },
		{ "mix", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t seed = 0, start;
	bool have_seed = false;
	int seconds = 180, procs = 3, threads = 3, c, bad = 0;
	char why[128] = "";
	pid_t pids[FZ_MAX_PROCS];
	double secs;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'T':
			threads = atoi(optarg);
			break;
		case 'm':
			if (sscanf(optarg, "%u,%u,%u", &fz_mix_ioctl,
				   &fz_mix_netlink, &fz_mix_mm) != 3 ||
			    !(fz_mix_ioctl + fz_mix_netlink + fz_mix_mm))
				fz_usage();
			break;
		default:
			fz_usage();
		}
	}
	if (optind != argc || seconds < 1 || procs < 1 || procs > FZ_MAX_PROCS ||
	    threads < 1 || threads > FZ_MAX_THREADS)
		fz_usage();
	if (!have_seed)
		seed = fz_now_ns() ^ ((uint64_t)getpid() << 32);
	printf("# seed %llu\n", (unsigned long long)seed);
	printf("# memreg_fuzz --seed %llu --seconds %d --procs %d --threads %d --mix %u,%u,%u (uid %d)\n",
	       (unsigned long long)seed, seconds, procs, threads, fz_mix_ioctl,
	       fz_mix_netlink, fz_mix_mm, getuid());
	fflush(stdout);

	fz_sh = mmap(NULL, sizeof(*fz_sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fz_sh == MAP_FAILED) {
		perror("memreg_fuzz: mmap");
		return 1;
	}
	if (fz_nl_resolve())
		printf("# netlink family %s not found: netlink calls fail\n",
		       MEMREG_GENL_NAME);
	/* the children we SIGKILL are reaped by their workers */
	signal(SIGPIPE, SIG_IGN);
	start = fz_now_ns();
	fz_deadline_ns = start + seconds * 1000000000ULL;
	for (int i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(fz_worker(i, seed, threads));
		if (pids[i] < 0) {
			perror("memreg_fuzz: fork");
			return 1;
		}
	}
	/*
	 * A worker still alive a minute after the end is stuck in the kernel:
	 * that is a finding, and so is a worker that a signal killed.
	 */
	for (int i = 0, waited = 0; i < procs; ) {
		int st;
		pid_t pid = waitpid(pids[i], &st, WNOHANG);

		if (pid == 0) {
			if (fz_now_ns() > fz_deadline_ns + 60000000000ULL && !waited) {
				printf("# worker %d (pid %d) still running 60 s after the end: SIGKILL\n",
				       i, pids[i]);
				fz_dump_stuck(pids[i]);
				if (!bad)
					snprintf(why, sizeof(why),
						 ": worker %d stuck 60 s after the end", i);
				kill(pids[i], SIGKILL);
				bad++;
				waited = 1;
			}
			usleep(100000);
			continue;
		}
		if (pid < 0) {
			bad++;
		} else if (WIFSIGNALED(st)) {
			if (!waited) {
				printf("# worker %d (pid %d) killed by signal %d (%s)\n",
				       i, pids[i], WTERMSIG(st), strsignal(WTERMSIG(st)));
				if (!bad)
					snprintf(why, sizeof(why),
						 ": worker %d killed by signal %d (%s)",
						 i, WTERMSIG(st),
						 strsignal(WTERMSIG(st)));
				bad++;
			}
		} else if (WEXITSTATUS(st)) {
			printf("# worker %d (pid %d) exited %d\n", i, pids[i],
			       WEXITSTATUS(st));
			if (!bad)
				snprintf(why, sizeof(why),
					 ": worker %d exited %d", i,
					 WEXITSTATUS(st));
			bad++;
		}
		i++;
		waited = 0;
	}
	secs = (fz_now_ns() - start) / 1e9;
	fz_print_stats(secs);
	printf("# the workers were done %.1f s after the end\n",
	       secs - seconds);
	{
		uint64_t total = 0;

		for (int k = 0; k < FZ_NKINDS; k++)
			total += fz_sh->stats[k].calls;
		/* the first failure's reason on the TAP line: CI shows that line */
		printf("%s - fuzz: %llu calls in %.0f s, %s%s (seed %llu)\n",
		       bad ? "not ok" : "ok", (unsigned long long)total, secs,
		       bad ? "a worker failed" : "no crash", why,
		       (unsigned long long)seed);
	}
	return bad ? 1 : 0;
}
