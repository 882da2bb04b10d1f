// SPDX-License-Identifier: GPL-2.0
/*
 * mstx_stress - many region register/unregister calls from several threads
 * over several heaps, through the mstx header with libmemreg linked in (the
 * tool is found in the process: the "preload" way of attaching).
 *
 *   mstx_stress [-t THREADS] [-H HEAPS] [-n CALLS] [-w WINDOW]
 *
 * Each thread keeps WINDOW regions live and replaces the oldest on every
 * step (one unregister, one register), spreading them over every heap,
 * until the threads together have made CALLS calls.  Then it prints what
 * should be live, by its own count:
 *   heap ADDR_DECIMAL REGIONS BYTES
 *   calls N registers R unregisters U ns_per_call X
 *   ready PID
 * and holds everything until SIGTERM (exit 0) or until killed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <mstx/ms_tools_ext.h>

#define SLOT	4096UL

static unsigned long nthreads = 4, nheaps = 16, calls = 1000000, window = 32;
static char *heap_base[64];
static size_t heap_size;

struct worker {
	pthread_t t;
	unsigned long id;
	unsigned long calls, registers, unregisters;
	/* what this thread leaves live, per heap */
	unsigned long live[64];
	unsigned long long bytes[64];
};

/* Region @slot of thread @id in heap @h: disjoint for every thread. */
static void *region_addr(unsigned long id, unsigned long slot, unsigned long h)
{
	return heap_base[h] + (id * window + slot) * SLOT;
}

static uint64_t region_size(unsigned long step)
{
	return SLOT - (step % 7) * 64;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	unsigned long quota = calls / nthreads, step, slot, h;
	mstxMemVirtualRangeDesc_t *held;
	unsigned long *held_heap;

	held = calloc(window, sizeof(*held));
	held_heap = calloc(window, sizeof(*held_heap));
	if (!held || !held_heap)
		abort();
	for (step = 0; w->calls < quota; step++) {
		slot = step % window;
		h = (step / window + w->id) % nheaps;
		if (held[slot].ptr) {
			mstxMemRegionRef_t ref = {
				.refType = MSTX_MEM_REGION_REF_TYPE_POINTER,
				.pointer = held[slot].ptr,
			};
			mstxMemRegionsUnregisterBatch_t ub = { 1, &ref };

			mstxMemRegionsUnregister(globalDomain, &ub);
			w->unregisters++;
			w->calls++;
			w->live[held_heap[slot]]--;
			w->bytes[held_heap[slot]] -= held[slot].size;
			held[slot].ptr = NULL;
			if (w->calls == quota)
				break;
		}
		held[slot].deviceId = 0;
		held[slot].ptr = region_addr(w->id, slot, h);
		held[slot].size = region_size(step);
		held_heap[slot] = h;
		{
			mstxMemRegionsRegisterBatch_t rb = {
				.regionType = MSTX_MEM_TYPE_VIRTUAL_ADDRESS,
				.regionCount = 1,
				.regionDescArray = &held[slot],
			};

			mstxMemRegionsRegister(globalDomain, &rb);
		}
		w->registers++;
		w->calls++;
		w->live[h]++;
		w->bytes[h] += held[slot].size;
	}
	free(held);
	free(held_heap);
	return NULL;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	unsigned long h, i, c = 0, r = 0, u = 0;
	struct timespec t0, t1;
	struct worker *w;
	mstxDomainHandle_t domain;
	double ns;
	int opt;

	while ((opt = getopt(argc, argv, "t:H:n:w:")) != -1) {
		switch (opt) {
		case 't': nthreads = strtoul(optarg, NULL, 0); break;
		case 'H': nheaps = strtoul(optarg, NULL, 0); break;
		case 'n': calls = strtoul(optarg, NULL, 0); break;
		case 'w': window = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-t THREADS] [-H HEAPS] [-n CALLS] [-w WINDOW]\n",
				argv[0]);
			return 2;
		}
	}
	if (!nthreads || !nheaps || nheaps > 64 || !window)
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/*
	 * Blocked until the wait at the end, which unblocks them atomically
	 * (sigsuspend): a signal between the test of stop and the wait would
	 * otherwise be missed, and the wait would never end.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);

	domain = mstxDomainCreateA("mstx_stress");
	if (!domain) {
		printf("no tool attached\n");
		return 1;
	}
	/* address space only: the module tracks heaps, it does not pin them */
	heap_size = nthreads * window * SLOT;
	for (h = 0; h < nheaps; h++) {
		mstxMemVirtualRangeDesc_t range;
		mstxMemHeapDesc_t desc = {
			.usage = MSTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
			.type = MSTX_MEM_TYPE_VIRTUAL_ADDRESS,
			.typeSpecificDesc = &range,
		};

		heap_base[h] = mmap(NULL, heap_size, PROT_NONE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				    -1, 0);
		if (heap_base[h] == MAP_FAILED)
			return 1;
		range.deviceId = h % 2;
		range.ptr = heap_base[h];
		range.size = heap_size;
		if (!mstxMemHeapRegister(domain, &desc)) {
			printf("heap %lu refused\n", h);
			return 1;
		}
	}

	w = calloc(nthreads, sizeof(*w));
	if (!w)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nthreads; i++) {
		w[i].id = i;
		if (pthread_create(&w[i].t, NULL, worker_run, &w[i]))
			return 1;
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(w[i].t, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);

	for (h = 0; h < nheaps; h++) {
		unsigned long live = 0;
		unsigned long long bytes = 0;

		for (i = 0; i < nthreads; i++) {
			live += w[i].live[h];
			bytes += w[i].bytes[h];
		}
		printf("heap %lu %lu %llu\n", (unsigned long)(uintptr_t)heap_base[h],
		       live, bytes);
	}
	for (i = 0; i < nthreads; i++) {
		c += w[i].calls;
		r += w[i].registers;
		u += w[i].unregisters;
	}
	printf("calls %lu registers %lu unregisters %lu ns_per_call %.1f\n",
	       c, r, u, ns / (double)c);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
