// SPDX-License-Identifier: GPL-2.0
/*
 * cg_probe - charge the caller's cgroup and report what is left, for
 * tests/vm/cases/cgroup.sh.
 *
 *   cg_probe [-h BYTES] [-d BYTES] [-m] [-w]
 *   cg_probe -t THREADS -h BYTES
 *
 * -h registers BYTES of anonymous host memory, -d allocates BYTES of
 * device 0 (4 KiB pages), each printing "host OK" / "dev OK" or the
 * errno ("host 122"); then one line "headroom host=N hostby=B dev=N
 * devby=B total=N cgroup=ID" (MEMREG_IOC_HEADROOM, device 0).  -m prints
 * "meminfo free=N total=N" from aclrtGetMemInfo on device 0.  -w prints
 * "ready" and holds everything until SIGTERM.  -t: THREADS threads, each
 * with a context of its own, register BYTES at the same moment (a
 * barrier), so that several make the first charge of a cgroup whose
 * records do not exist yet; prints "threads OK" or the first errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

static void hold(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
}

static pthread_barrier_t start;
static unsigned long long thread_bytes;

/* One thread's registration: 0 or an errno. */
static void *thread_main(void *arg)
{
	struct memreg_ctx *ctx = NULL;
	uint64_t handle;
	long err = 0;
	void *buf;

	(void)arg;
	buf = mmap(NULL, thread_bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED || memreg_open(&ctx))
		err = ENOMEM;
	pthread_barrier_wait(&start);
	if (!err && memreg_register(ctx, buf, thread_bytes, MEMREG_MEM_HOST,
				    0, &handle))
		err = errno;
	/* the registration goes with its context, before the memory */
	if (ctx)
		memreg_close(ctx);
	if (buf != MAP_FAILED)
		munmap(buf, thread_bytes);
	return (void *)err;
}

static int threads(int n)
{
	pthread_t tid[64];
	long first = 0;
	void *ret;
	int i;

	if (n < 1 || n > 64 || !thread_bytes ||
	    pthread_barrier_init(&start, NULL, n))
		return 2;
	for (i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, thread_main, NULL))
			return 1;
	for (i = 0; i < n; i++) {
		pthread_join(tid[i], &ret);
		if (!first)
			first = (long)ret;
	}
	if (first)
		printf("threads %ld\n", first);
	else
		printf("threads OK\n");
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long host = 0, dev = 0;
	struct memreg_lib_headroom h;
	struct memreg_dev_mem mem;
	struct memreg_ctx *ctx;
	int opt, meminfo = 0, wait = 0, nthreads = 0;
	uint64_t handle;
	void *buf;

	/* each line as it comes: a holder that never gets ready shows how far */
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "h:d:mwt:")) != -1) {
		switch (opt) {
		case 'h':
			host = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			dev = strtoull(optarg, NULL, 0);
			break;
		case 'm':
			meminfo = 1;
			break;
		case 'w':
			wait = 1;
			break;
		case 't':
			nthreads = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (nthreads) {
		thread_bytes = host;
		return threads(nthreads);
	}
	if (memreg_open(&ctx)) {
		printf("open failed\n");
		return 1;
	}
	if (host) {
		buf = mmap(NULL, host, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED) {
			printf("mmap %d\n", errno);
			return 1;
		}
		if (memreg_register(ctx, buf, host, MEMREG_MEM_HOST, 0,
				    &handle))
			printf("host %d\n", errno);
		else
			printf("host OK\n");
	}
	if (dev) {
		if (memreg_dev_alloc(ctx, 0, MEMREG_DEV_NORMAL_ONLY, dev, &mem))
			printf("dev %d\n", errno);
		else
			printf("dev OK\n");
	}
	if (memreg_headroom(ctx, 0, &h)) {
		printf("headroom failed\n");
		return 1;
	}
	printf("headroom host=%llu hostby=%u dev=%llu devby=%u total=%llu cgroup=%llu\n",
	       (unsigned long long)h.room[MEMREG_ROOM_HOST].bytes,
	       h.room[MEMREG_ROOM_HOST].by,
	       (unsigned long long)h.room[MEMREG_ROOM_DEV_ALLOC].bytes,
	       h.room[MEMREG_ROOM_DEV_ALLOC].by,
	       (unsigned long long)h.dev_total,
	       (unsigned long long)h.cgroup_id);
	if (meminfo) {
		size_t f, t;

		if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
		    aclrtGetMemInfo(ACL_HBM_MEM, &f, &t) != ACL_SUCCESS)
			return 1;
		printf("meminfo free=%zu total=%zu\n", f, t);
	}
	fflush(stdout);
	if (wait)
		hold();
	return 0;
}
