// SPDX-License-Identifier: GPL-2.0
/*
 * adxl_bench - moving bytes from another process: ADXL TransferSync
 * through the memreg module against the ways there are without it.
 *
 *   adxl_bench [-t SECONDS_PER_POINT] [-n TRIALS] [-J]
 *
 * A child process owns the source buffer (registered with its ADXL
 * engine, which listens on loopback); this process reads it into a local
 * buffer with
 *   module   adxl TransferSync, READ (one copy, pages pinned beforehand)
 *   pvr      process_vm_readv (one copy, pins and unpins on every call)
 *   shm2     the shared-memory way: the owner copies into a shared buffer,
 *            the reader copies out (two copies, timed back to back)
 *   memcpy   one glibc memcpy in this process
 *   norep    the same in a process started with GLIBC_TUNABLES that keep
 *            glibc from `rep movsb` (which TCG runs at 0.03 GB/s at
 *            16-256 KiB: a ceiling that low would judge nothing)
 *   vec      a loop of 16-byte SSE2 loads and stores, 64 bytes a round
 * and the ceiling each transfer is judged against is the best of the
 * last three at that size ("best").  All of them are measured the same
 * way in the same boot; the norep figures come from a child process
 * (adxl_bench -C BLOCK BLOCKS) that prints its trials.
 * First as one transfer of 4 KiB .. 64 MiB, then as 16 MiB split into
 * descriptors of 4, 16 and 64 KiB (one TransferSync, process_vm_readv with
 * IOV_MAX vectors, a loop of memcpys).  Prints GB/s (10^9 bytes/s), the
 * ratios and the targets beside them; it asserts nothing.  Each figure is
 * the best of TRIALS trials (default 3); -J adds one "BENCH {...}" line
 * per row with every trial of every method (bench_json.h), for
 * scripts/bench's medians.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <adxl/adxl.h>

#include "bench_json.h"
#include "copy_sse2.h"

#define MAX_SIZE	(64UL << 20)
#define BATCH_TOTAL	(16UL << 20)
#define SERVER		"127.0.0.1:29500"
#define CLIENT		"127.0.0.1:29501"
#define MAX_TRIALS	32

static double secs_per_point = 0.5;
static unsigned int trials = 3;
static int json;
static adxl_engine_t *eng;
static pid_t child;
static uint8_t *remote;		/* the child's buffer, in the child */
static uint8_t *local, *src, *shm;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *map(size_t len, int shared)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memset(p, 0x5a, len);	/* touched: no page faults in the timing */
	return p;
}

/* The owner: an engine with its buffer registered, until killed. */
static void run_child(int wfd)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h;
	uint8_t *buf = map(MAX_SIZE, 0);

	d = (struct adxl_mem_desc){ (uintptr_t)buf, MAX_SIZE };
	if (adxl_engine_create(&eng) || adxl_initialize(eng, SERVER, NULL, 0) ||
	    adxl_register_mem(eng, &d, ADXL_MEM_HOST, &h))
		_exit(1);
	if (write(wfd, &buf, sizeof(buf)) != sizeof(buf))
		_exit(1);
	for (;;)
		pause();
}

/* One way of reading @n blocks of @bl bytes; returns seconds per round. */
typedef void (*method_fn)(size_t bl, size_t n);

static struct adxl_transfer_desc *descs;
static struct iovec *liov, *riov;

static void m_module(size_t bl, size_t n)
{
	size_t i;
	adxl_status_t st;

	for (i = 0; i < n; i++)
		descs[i] = (struct adxl_transfer_desc){
			(uintptr_t)local + i * bl, (uintptr_t)remote + i * bl, bl };
	st = adxl_transfer_sync(eng, SERVER, ADXL_READ, descs, n, 60000);
	if (st) {
		fprintf(stderr, "TransferSync: %u: %s\n", st, adxl_last_error());
		exit(1);
	}
}

static void m_pvr(size_t bl, size_t n)
{
	size_t i, done = 0;

	while (done < n) {
		size_t k = n - done < IOV_MAX ? n - done : IOV_MAX;

		for (i = 0; i < k; i++) {
			liov[i] = (struct iovec){ local + (done + i) * bl, bl };
			riov[i] = (struct iovec){ remote + (done + i) * bl, bl };
		}
		if (process_vm_readv(child, liov, k, riov, k, 0) != (ssize_t)(k * bl)) {
			perror("process_vm_readv");
			exit(1);
		}
		done += k;
	}
}

static void m_shm2(size_t bl, size_t n)
{
	size_t i;

	/* The owner's copy in, then the reader's copy out. */
	for (i = 0; i < n; i++)
		memcpy(shm + i * bl, src + i * bl, bl);
	for (i = 0; i < n; i++)
		memcpy(local + i * bl, shm + i * bl, bl);
}

static void m_memcpy(size_t bl, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		memcpy(local + i * bl, src + i * bl, bl);
}

static void m_vec(size_t bl, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		copy_sse2(local + i * bl, src + i * bl, bl);
}

/*
 * Keeps glibc (2.36) from `rep movsb` at every size below the
 * non-temporal threshold: the threshold above which it is used, set as
 * high as the tunable goes.
 */
#define NOREP_TUNABLES \
	"glibc.cpu.x86_rep_movsb_threshold=0x7fffffffffffffff"

/*
 * GB/s of @fn moving @n blocks of @bl: the best of the trials of about
 * secs_per_point / 3 each, so that a burst of other load on the machine
 * (the VM is emulated, and shares two cores) does not decide a figure.
 * Every trial's GB/s goes to @each.
 */
static double measure(method_fn fn, size_t bl, size_t n, double *each)
{
	double t0, t, best = 0, bytes = (double)bl * n;
	unsigned long reps;
	unsigned int trial;

	fn(bl, n);	/* warm up */
	for (trial = 0; trial < trials; trial++) {
		reps = 0;
		t0 = now();
		do {
			fn(bl, n);
			reps++;
			t = now() - t0;
		} while (t < secs_per_point / 3 || reps < 2);
		each[trial] = bytes * reps / t / 1e9;
		if (each[trial] > best)
			best = each[trial];
	}
	return best;
}

static char self_exe[PATH_MAX];

/*
 * The norep figure: this program run again as a child with NOREP_TUNABLES
 * in its environment (glibc reads tunables at start only), measuring
 * memcpy alone; its trials come back on a pipe.  0 if it failed.
 */
static double measure_norep(size_t bl, size_t n, double *each)
{
	char a_t[32], a_n[16], a_bl[32], a_blocks[32], line[4096], *p, *end;
	double best = 0;
	unsigned int i;
	int fds[2], st;
	pid_t pid;
	FILE *f;

	snprintf(a_t, sizeof(a_t), "%g", secs_per_point);
	snprintf(a_n, sizeof(a_n), "%u", trials);
	snprintf(a_bl, sizeof(a_bl), "%zu", bl);
	snprintf(a_blocks, sizeof(a_blocks), "%zu", n);
	for (i = 0; i < trials; i++)
		each[i] = 0;
	if (pipe(fds))
		return 0;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		setenv("GLIBC_TUNABLES", NOREP_TUNABLES, 1);
		execl(self_exe, "adxl_bench", "-t", a_t, "-n", a_n, "-C", a_bl,
		      a_blocks, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (f && fgets(line, sizeof(line), f)) {
		p = line;
		for (i = 0; i < trials; i++, p = end) {
			each[i] = strtod(p, &end);
			if (end == p)
				break;
			if (each[i] > best)
				best = each[i];
		}
	}
	if (f)
		fclose(f);
	else
		close(fds[0]);
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st))
		return 0;
	return best;
}

/* adxl_bench -C BLOCK BLOCKS: memcpy's trials only, one line (the child) */
static int copy_only(size_t bl, size_t n)
{
	double each[MAX_TRIALS];
	unsigned int i;

	if (!bl || !n || bl * n > MAX_SIZE)
		return 2;
	local = map(MAX_SIZE, 0);
	src = map(MAX_SIZE, 0);
	measure(m_memcpy, bl, n, each);
	for (i = 0; i < trials; i++)
		printf("%s%.6f", i ? " " : "", each[i]);
	printf("\n");
	return 0;
}

enum { M_MODULE, M_PVR, M_SHM2, M_MEMCPY, M_NOREP, M_VEC, M_COUNT };

static void row_json(const char *label, size_t bl, size_t n,
		     double (*each)[MAX_TRIALS])
{
	static const char *const names[M_COUNT] = {
		"module", "pvr", "shm2", "memcpy", "memcpy_norep", "vec",
	};
	struct bj j;
	int i;

	bj_begin(&j, "adxl");
	bj_str(&j, "row", label);
	bj_u64(&j, "block", bl);
	bj_u64(&j, "blocks", n);
	for (i = 0; i < M_COUNT; i++)
		bj_samples(&j, names[i], each[i], trials);
	bj_end(&j);
}

static void row(const char *label, size_t bl, size_t n, int small_descs)
{
	double each[M_COUNT][MAX_TRIALS];
	double m = measure(m_module, bl, n, each[M_MODULE]);
	double p = measure(m_pvr, bl, n, each[M_PVR]);
	double s = measure(m_shm2, bl, n, each[M_SHM2]);
	double c = measure(m_memcpy, bl, n, each[M_MEMCPY]);
	double nr = measure_norep(bl, n, each[M_NOREP]);
	double v = measure(m_vec, bl, n, each[M_VEC]);
	double best = c > nr ? c : nr;
	const char *target;
	int met;

	if (v > best)
		best = v;
	if (small_descs) {
		met = m >= 1.5 * p;
		target = "module >= 1.5x pvr";
	} else if ((size_t)bl * n >= (1UL << 20)) {
		met = m >= 0.9 * best && m > p;
		target = "module >= 0.9x best, > pvr";
	} else {
		met = m > p;
		target = "module > pvr";
	}
	printf("%-14s %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f   %6.2f %6.2f   %-26s %s\n",
	       label, m, p, s, c, nr, v, m / best, m / p, target,
	       met ? "met" : "NOT met");
	if (json)
		row_json(label, bl, n, each);
}

static void header(const char *first)
{
	printf("%-14s %8s %8s %8s %8s %8s %8s   %6s %6s   %-26s %s\n", first,
	       "module", "pvr", "shm2", "memcpy", "norep", "vec", "m/best",
	       "m/pvr", "target", "");
}

static void label_size(char *buf, size_t len, size_t bytes)
{
	if (bytes >= (1UL << 20))
		snprintf(buf, len, "%zu MiB", bytes >> 20);
	else
		snprintf(buf, len, "%zu KiB", bytes >> 10);
}

int main(int argc, char **argv)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h;
	int fds[2], opt;
	size_t sz, bl;
	char lab[32];

	while ((opt = getopt(argc, argv, "t:n:JC")) != -1) {
		if (opt == 'C') {
			if (optind + 2 != argc)
				return 2;
			trials = trials && trials <= MAX_TRIALS ? trials : 3;
			return copy_only(strtoul(argv[optind], NULL, 0),
					 strtoul(argv[optind + 1], NULL, 0));
		} else if (opt == 't')
			secs_per_point = atof(optarg);
		else if (opt == 'n')
			trials = strtoul(optarg, NULL, 0);
		else if (opt == 'J')
			json = 1;
		else
			return 2;
	}
	if (!trials || trials > MAX_TRIALS) {
		fprintf(stderr, "adxl_bench: -n takes 1..%d\n", MAX_TRIALS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0) {
		perror("adxl_bench: /proc/self/exe");
		return 1;
	}

	if (pipe(fds))
		return 1;
	child = fork();
	if (child == 0) {
		close(fds[0]);
		run_child(fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], &remote, sizeof(remote)) != sizeof(remote)) {
		fprintf(stderr, "the owner process did not start\n");
		return 1;
	}

	local = map(MAX_SIZE, 0);
	src = map(MAX_SIZE, 0);
	shm = map(MAX_SIZE, 1);
	descs = calloc(BATCH_TOTAL / 4096, sizeof(*descs));
	liov = calloc(IOV_MAX, sizeof(*liov));
	riov = calloc(IOV_MAX, sizeof(*riov));
	d = (struct adxl_mem_desc){ (uintptr_t)local, MAX_SIZE };
	if (adxl_engine_create(&eng) || adxl_initialize(eng, CLIENT, NULL, 0) ||
	    adxl_register_mem(eng, &d, ADXL_MEM_HOST, &h) ||
	    adxl_connect(eng, SERVER, 10000)) {
		fprintf(stderr, "engine setup: %s\n", adxl_last_error());
		kill(child, SIGKILL);
		return 1;
	}

	printf("# GB/s; module = ADXL TransferSync through memreg, pvr = process_vm_readv,\n"
	       "# shm2 = copy into and out of shared memory; one local copy by glibc memcpy,\n"
	       "# by memcpy without rep movsb (norep: %s), by an SSE2 loop (vec);\n"
	       "# best = the best of those three, the ceiling\n", NOREP_TUNABLES);
	header("one transfer");
	for (sz = 4096; sz <= MAX_SIZE; sz *= 4) {
		label_size(lab, sizeof(lab), sz);
		row(lab, sz, 1, 0);
	}
	printf("\n");
	header("16 MiB as");
	for (bl = 4096; bl <= 65536; bl *= 4) {
		label_size(lab, sizeof(lab), bl);
		strcat(lab, " descs");
		row(lab, bl, BATCH_TOTAL / bl, 1);
	}

	adxl_engine_destroy(eng);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return 0;
}
