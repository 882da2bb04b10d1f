// SPDX-License-Identifier: GPL-2.0
/*
 * mstx_bench - what one mstxMemRegionsRegister or mstxMemRegionsUnregister
 * call costs a program: with no tool attached, and with libmemreg attached
 * (amortised: the batches' ioctls and the kernel's work included, and the
 * final flush at heap unregister), for two ways of using regions:
 *
 *   pair    each region is unregistered right after its register (an
 *	     allocator handing out a block that is freed at once): the
 *	     library folds the two into one operation.
 *   window  64 regions are live; each step unregisters the oldest and
 *	     registers a new one: every call reaches the kernel as an
 *	     operation of its own, which stores or drops a region.
 *
 *   mstx_bench [-n ITERATIONS] [-m pair|window] [-r RUNS]
 *	runs itself, in this boot, without a tool and (if /dev/memreg
 *	exists) with MSTX_INJECTION_PATH=libmemreg.so, for each way (or the
 *	one given), RUNS times each (3), the two alternating; prints the
 *	fastest run of each and their ratio.  The fastest, because what
 *	slows a run down (other load on the machine, an emulator's
 *	translation) is not the cost of the call.
 *   mstx_bench -1 [-n ITERATIONS] [-m pair|window]
 *	one measurement in this process, whatever tool it finds.
 *
 * Built a second time as mstx_bench_stub, with libmemreg's objects and a
 * kernel stub behind its ioctl hook: the library's own share of the cost,
 * on a host without the module.
 *
 * Figures are printed, never judged: timings depend on the machine.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <mstx/ms_tools_ext.h>

#define WINDOW	64

static char pool[WINDOW * 64] __attribute__((aligned(4096)));

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per call over 2 * @n calls. */
static double measure(unsigned long n, bool window, uint64_t *tool)
{
	mstxMemVirtualRangeDesc_t range = { 0, pool, sizeof(pool) };
	mstxMemHeapDesc_t desc = {
		MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
		MSTX_MEM_TYPE_VIRTUAL_ADDRESS, &range,
	};
	mstxMemVirtualRangeDesc_t region = { 0, NULL, 64 };
	mstxMemRegionsRegisterBatch_t rb = {
		NULL, MSTX_MEM_TYPE_VIRTUAL_ADDRESS, 1, &region, NULL,
	};
	mstxMemRegionRef_t ref;
	mstxMemRegionsUnregisterBatch_t ub = { 1, &ref };
	mstxMemHeapHandle_t heap;
	double t0, t1;
	unsigned long i;

	mstxGetToolId(tool);
	heap = mstxMemHeapRegister(globalDomain, &desc);
	rb.heap = heap;
	ref.refType = MSTX_MEM_REGION_REF_TYPE_POINTER;

	/* warm up: first calls attach the tool, fault in buffers */
	for (i = 0; i < 1000; i++) {
		region.ptr = pool + (i % WINDOW) * 64;
		mstxMemRegionsRegister(globalDomain, &rb);
		ref.pointer = region.ptr;
		mstxMemRegionsUnregister(globalDomain, &ub);
	}

	if (window) {
		/* the window's regions live across the measurement */
		for (i = 0; i < WINDOW; i++) {
			region.ptr = pool + i * 64;
			mstxMemRegionsRegister(globalDomain, &rb);
		}
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		region.ptr = pool + (i % WINDOW) * 64;
		ref.pointer = region.ptr;
		if (window) {
			/* the oldest goes, a new one takes its place */
			mstxMemRegionsUnregister(globalDomain, &ub);
			mstxMemRegionsRegister(globalDomain, &rb);
		} else {
			mstxMemRegionsRegister(globalDomain, &rb);
			mstxMemRegionsUnregister(globalDomain, &ub);
		}
		/* a program does other work between calls: reload every time */
		__asm__ volatile("" ::: "memory");
	}
	/* what is still buffered is part of the cost */
	mstxMemHeapUnregister(globalDomain, heap);
	t1 = now_ns();
	return (t1 - t0) / (2.0 * n);
}

/* Run ourselves with -1, with or without a tool; its ns per call. */
static double run_child(const char *self, const char *inject,
			unsigned long n, const char *mode,
			unsigned long long *tool)
{
	char nbuf[32], line[256];
	double ns = -1;
	int fds[2], status;
	FILE *f;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (inject)
			setenv("MSTX_INJECTION_PATH", inject, 1);
		else
			unsetenv("MSTX_INJECTION_PATH");
		snprintf(nbuf, sizeof(nbuf), "%lu", n);
		execl(self, self, "-1", "-n", nbuf, "-m", mode, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "ns_per_call %lf tool %llx", &ns, tool);
	if (f)
		fclose(f);
	waitpid(pid, &status, 0);
	return ns;
}

static const char *find_libmemreg(char *buf, size_t len)
{
	const char *dirs = getenv("LD_LIBRARY_PATH");
	struct stat st;
	char *copy, *dir, *save = NULL;

	if (dirs) {
		copy = strdup(dirs);
		for (dir = strtok_r(copy, ":", &save); dir;
		     dir = strtok_r(NULL, ":", &save)) {
			snprintf(buf, len, "%s/libmemreg.so", dir);
			if (!stat(buf, &st)) {
				free(copy);
				return buf;
			}
		}
		free(copy);
	}
	/* the dynamic linker's own search */
	snprintf(buf, len, "libmemreg.so");
	return buf;
}

static unsigned int runs = 3;

static double fastest(const char *inject, unsigned long n, const char *mode,
		      unsigned long long *tool)
{
	double ns, best = -1;
	unsigned int i;

	for (i = 0; i < runs; i++) {
		ns = run_child("/proc/self/exe", inject, n, mode, tool);
		if (ns >= 0 && (best < 0 || ns < best))
			best = ns;
	}
	return best;
}

/* Both figures for one way of using regions; nonzero if the tool failed. */
static int compare(const char *mode, unsigned long n)
{
	unsigned long long tool = 0;
	double none, with;
	char lib[4096];

	none = fastest(NULL, n, mode, &tool);
	/* mstx_bench_stub has the library built in: its share alone */
	printf("%-6s no tool:         %8.2f ns/call (%s)\n", mode, none,
	       tool ? "a tool attached: the library with a stub kernel" :
		      "no tool");
	if (access("/dev/memreg", R_OK | W_OK)) {
		printf("%-6s with memreg: skipped, no /dev/memreg here (%s)\n",
		       mode, strerror(errno));
		return 0;
	}
	tool = 0;
	with = fastest(find_libmemreg(lib, sizeof(lib)), n, mode, &tool);
	if (with < 0 || !tool) {
		printf("%-6s with memreg: the tool did not attach\n", mode);
		return 1;
	}
	printf("%-6s memreg attached: %8.2f ns/call (amortised, kernel included)\n",
	       mode, with);
	printf("%-6s ratio memreg/no tool: %.1fx\n", mode, with / none);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n = 2000000;
	const char *mode = NULL;
	uint64_t tool_id = 0;
	bool once = false;
	int opt, err;

	while ((opt = getopt(argc, argv, "1n:m:r:")) != -1) {
		switch (opt) {
		case '1': once = true; break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 'm': mode = optarg; break;
		case 'r': runs = strtoul(optarg, NULL, 0); break;
		default:
			goto usage;
		}
	}
	if (!n || !runs ||
	    (mode && strcmp(mode, "pair") && strcmp(mode, "window")))
		goto usage;
	if (once) {
		double ns = measure(n, mode && !strcmp(mode, "window"),
				    &tool_id);

		printf("ns_per_call %.2f tool %llx\n", ns,
		       (unsigned long long)tool_id);
		return 0;
	}
	printf("mstxMemRegionsRegister/Unregister, %lu calls each\n", 2 * n);
	if (mode)
		return compare(mode, n);
	err = compare("pair", n);
	return compare("window", n) || err;
usage:
	fprintf(stderr,
		"usage: %s [-1] [-n ITERATIONS] [-m pair|window] [-r RUNS]\n",
		argv[0]);
	return 2;
}
