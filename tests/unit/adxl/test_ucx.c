// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The UCX transport on the host, without a module: engines on the fake
 * module that report different kernel instances (as on two hosts) reach
 * each other over UCX (the real plugin and libucx, over loopback).
 *
 *  - Transport=auto picks UCX across "kernels" and the module on one;
 *    Transport=ucx forces UCX; Transport=kernel refuses to serve it;
 *  - transfers in both directions, byte for byte, batches, ranges that
 *    run past a registration;
 *  - a peer process that stops answering (SIGSTOP: a host that hangs or
 *    lost power) gives TIMEOUT within the timeout, Connect then works
 *    again, and a peer killed with SIGKILL gives an error, never a hang.
 *
 * MEMREG_ADXL_UCX_PLUGIN names the plugin of the build tree (Makefile).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "adxl_int.h"
#include "fake_kernel.h"
#include "tests.h"

#define LEN	(1 << 20)

static char A[32], B[32];

/*
 * A port of its own for each engine pair: other runs of these tests may
 * share the loopback, and a test that failed left its engines listening.
 */
static unsigned int random_port(void)
{
	static unsigned int salt;

	srand((unsigned int)time(NULL) ^ (unsigned int)getpid() ^ (salt += 7919));
	return 20000 + (unsigned int)rand() % 40000;
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 13 + 5);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- engines ---- */

struct two {
	adxl_engine_t *a, *b;
	uint8_t *la, *rb;
	adxl_mem_handle_t ha, hb;
};

/* Initialize @e as @name (a random port) with Transport=@transport. */
static int init_engine(adxl_engine_t *e, char *name, size_t size,
		       const char *transport, unsigned int port)
{
	struct adxl_option o = { "adxl.Transport", transport };

	snprintf(name, size, "127.0.0.1:%u", port);
	return adxl_initialize(e, name, &o, transport ? 1 : 0);
}

/* A on "kernel" 0x42, B on @b_instance, each with one 1 MiB buffer. */
static struct two *two_engines(uint8_t b_instance, const char *ta,
			       const char *tb)
{
	struct two *t = calloc(1, sizeof(*t));
	struct adxl_mem_desc d;
	int tries;
	size_t i;

	assert_int_equal(fake_kernel_setup(), 0);
	fake_set_instance(0x42);
	t->la = calloc(1, LEN);
	t->rb = malloc(LEN);
	for (i = 0; i < LEN; i++)
		t->rb[i] = pattern(i);
	assert_int_equal(adxl_engine_create(&t->a), 0);
	assert_int_equal(adxl_engine_create(&t->b), 0);
	for (tries = 0;; tries++) {
		unsigned int port = random_port();

		fake_set_instance(0x42);
		if (!init_engine(t->a, A, sizeof(A), ta, port)) {
			fake_set_instance(b_instance);
			if (!init_engine(t->b, B, sizeof(B), tb, port + 1))
				break;
			adxl_finalize(t->a);
		}
		assert_true(tries < 50);
	}
	d = (struct adxl_mem_desc){ (uintptr_t)t->la, LEN };
	assert_int_equal(adxl_register_mem(t->a, &d, ADXL_MEM_HOST, &t->ha), 0);
	d = (struct adxl_mem_desc){ (uintptr_t)t->rb, LEN };
	assert_int_equal(adxl_register_mem(t->b, &d, ADXL_MEM_HOST, &t->hb), 0);
	return t;
}

static void two_free(struct two *t)
{
	adxl_engine_destroy(t->a);
	adxl_engine_destroy(t->b);
	free(t->la);
	free(t->rb);
	free(t);
	fake_kernel_teardown();
}

static void check_read_write(struct two *t)
{
	struct adxl_transfer_desc d[3];
	size_t i;

	/* Odd offsets and lengths, out of order. */
	d[0] = (struct adxl_transfer_desc){ (uintptr_t)t->la + 1, (uintptr_t)t->rb + 9000, 3 };
	d[1] = (struct adxl_transfer_desc){ (uintptr_t)t->la + 100, (uintptr_t)t->rb, 65536 };
	d[2] = (struct adxl_transfer_desc){ (uintptr_t)t->la + LEN - 1, (uintptr_t)t->rb + LEN - 1, 1 };
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, d, 3, 5000),
			 ADXL_SUCCESS);
	assert_memory_equal(t->la + 1, t->rb + 9000, 3);
	assert_memory_equal(t->la + 100, t->rb, 65536);
	assert_int_equal(t->la[LEN - 1], t->rb[LEN - 1]);
	assert_int_equal(t->la[0], 0);
	assert_int_equal(t->la[4], 0);

	/* WRITE: the whole buffer, then one byte, land where they belong. */
	for (i = 0; i < LEN; i++)
		t->la[i] = (uint8_t)~pattern(i);
	d[0] = (struct adxl_transfer_desc){ (uintptr_t)t->la, (uintptr_t)t->rb, LEN };
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_WRITE, d, 1, 5000),
			 ADXL_SUCCESS);
	assert_memory_equal(t->rb, t->la, LEN);
}

static void test_auto_picks_ucx_across_kernels(void **state)
{
	struct two *t = two_engines(0x43, NULL, NULL);
	struct adxl_transfer_desc d = { (uintptr_t)t->la, (uintptr_t)t->rb + LEN - 8, 16 };
	struct adxl_peer *p;

	(void)state;
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_SUCCESS);
	p = adxl__peer_get(t->a, B);
	assert_non_null(p);
	/* this host has no RDMA device: auto tried it and went on with UCX */
	assert_string_equal(p->via->name, "ucx");
	assert_non_null(p->tpeer);
	assert_memory_not_equal(p->ident.instance_id, t->a->ident.instance_id,
				sizeof(p->ident.instance_id));
	adxl__peer_put(t->a, p);
	check_read_write(t);
	/* Nothing went through the (fake) module. */
	assert_int_equal(fake_calls(FAKE_TRANSFER), 0);
	/* No module checks the remote end over UCX: the library does. */
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, &d, 1, 1000),
			 ADXL_PARAM_INVALID);
	assert_non_null(strstr(adxl_last_error(), "past the end"));
	/* Notifies go over the control connection as before. */
	assert_int_equal(adxl_send_notify(t->a, B, "k", 1, "v", 1, 2000),
			 ADXL_SUCCESS);
	two_free(t);
}

/*
 * Many small ranges (slots of the in-flight window reused 16 times), and
 * the serving side's own check: a range deregistered after Connect is
 * refused by the peer (FAILED, nothing written), and the link stays up.
 */
static void test_peer_checks_ranges(void **state)
{
	struct two *t = two_engines(0x43, NULL, NULL);
	enum { N = 4096 };
	struct adxl_transfer_desc *d = calloc(N, sizeof(*d));
	struct adxl_mem_desc md = { (uintptr_t)t->rb, LEN };
	size_t i;

	(void)state;
	assert_non_null(d);
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_SUCCESS);
	/* Descriptor i reads block N-1-i: every block lands where it should. */
	for (i = 0; i < N; i++)
		d[i] = (struct adxl_transfer_desc){
			(uintptr_t)t->la + i * (LEN / N),
			(uintptr_t)t->rb + (N - 1 - i) * (LEN / N), LEN / N };
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, d, N, 10000),
			 ADXL_SUCCESS);
	for (i = 0; i < N; i++)
		assert_memory_equal(t->la + i * (LEN / N),
				    t->rb + (N - 1 - i) * (LEN / N), LEN / N);

	assert_int_equal(adxl_deregister_mem(t->b, t->hb), ADXL_SUCCESS);
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, d, 1, 5000),
			 ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "refused"));
	memset(t->la, 0xee, LEN);
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_WRITE, d, N, 5000),
			 ADXL_FAILED);
	for (i = 0; i < LEN; i++)
		assert_int_equal(t->rb[i], pattern(i));

	/* Registered again at the same place: no new Connect needed. */
	assert_int_equal(adxl_register_mem(t->b, &md, ADXL_MEM_HOST, &t->hb),
			 ADXL_SUCCESS);
	memset(t->la, 0, LEN);
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, d, N, 10000),
			 ADXL_SUCCESS);
	assert_memory_equal(t->la, t->rb + LEN - LEN / N, LEN / N);
	free(d);
	two_free(t);
}

static void test_auto_uses_module_on_one_kernel(void **state)
{
	struct two *t = two_engines(0x42, NULL, NULL);
	struct adxl_peer *p;

	(void)state;
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_SUCCESS);
	p = adxl__peer_get(t->a, B);
	assert_string_equal(p->via->name, "kernel");
	adxl__peer_put(t->a, p);
	check_read_write(t);
	assert_int_equal(fake_calls(FAKE_TRANSFER), 2);
	two_free(t);
}

static void test_forced_ucx_on_one_kernel(void **state)
{
	struct two *t = two_engines(0x42, "ucx", NULL);
	size_t n = 5000, i;
	struct adxl_transfer_desc *d = calloc(n, sizeof(*d));

	(void)state;
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_SUCCESS);
	check_read_write(t);
	assert_int_equal(fake_calls(FAKE_TRANSFER), 0);
	/* More descriptors than one plugin call takes, each 200 bytes. */
	for (i = 0; i < LEN; i++)
		t->rb[i] = pattern(i);
	memset(t->la, 0, LEN);
	for (i = 0; i < n; i++)
		d[i] = (struct adxl_transfer_desc){ (uintptr_t)t->la + i * 200,
						    (uintptr_t)t->rb + i * 200,
						    200 };
	assert_int_equal(adxl_transfer_sync(t->a, B, ADXL_READ, d, n, 10000),
			 ADXL_SUCCESS);
	assert_memory_equal(t->la, t->rb, n * 200);
	free(d);
	two_free(t);
}

/*
 * Transport=rdma on a host without an RDMA device (or without the plugin):
 * Connect fails and says so, instead of falling back as auto does.
 */
static void test_forced_rdma_without_device(void **state)
{
	struct two *t = two_engines(0x43, "rdma", NULL);
	struct adxl_peer *p;

	(void)state;
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "RDMA transport"));
	p = adxl__peer_get(t->a, B);
	assert_null(p);
	two_free(t);
}

static void test_kernel_transport_refuses_ucx(void **state)
{
	struct two *t = two_engines(0x43, "ucx", "kernel");
	adxl_engine_t *e;

	(void)state;
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_FAILED);
	assert_non_null(strstr(adxl_last_error(), "Transport=kernel"));
	two_free(t);

	/* A value that is not a transport. */
	assert_int_equal(fake_kernel_setup(), 0);
	fake_set_instance(0x42);
	assert_int_equal(adxl_engine_create(&e), 0);
	assert_int_equal(init_engine(e, A, sizeof(A), "infiniband", 0),
			 ADXL_PARAM_INVALID);
	adxl_engine_destroy(e);
	fake_kernel_teardown();
}

/* ---- a peer in another process, which the test stops and kills ---- */

static int ucx_client_main(int argc, char **argv);
static int ucx_load_main(void);

/* argv: test_adxl ucx-peer NAME FD: serve NAME, write the buffer's address. */
int test_ucx_peer_main(int argc, char **argv)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h;
	adxl_engine_t *e;
	uint8_t *buf;
	uint64_t addr;
	size_t i;
	int fd;

	if (argc > 1 && !strcmp(argv[1], "ucx-client"))
		return ucx_client_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "ucx-load"))
		return ucx_load_main();
	if (argc != 4)
		return 2;
	fd = atoi(argv[3]);
	if (fake_kernel_setup())
		return 1;
	fake_set_instance(0x77);	/* another kernel */
	buf = malloc(LEN);
	for (i = 0; i < LEN; i++)
		buf[i] = pattern(i);
	if (adxl_engine_create(&e) || adxl_initialize(e, argv[2], NULL, 0))
		return 1;
	d = (struct adxl_mem_desc){ (uintptr_t)buf, LEN };
	if (adxl_register_mem(e, &d, ADXL_MEM_HOST, &h))
		return 1;
	addr = (uintptr_t)buf;
	if (write(fd, &addr, sizeof(addr)) != sizeof(addr))
		return 1;
	/* Serve until the test kills us, or goes away itself. */
	while (read(fd, &addr, 1) > 0)
		;
	adxl_engine_destroy(e);
	return 0;
}

/*
 * argv: test_adxl ucx-client NAME ADDR FD: connect to NAME, say so on FD,
 * then READ its buffer at ADDR in a loop until killed.
 */
static int ucx_client_main(int argc, char **argv)
{
	struct adxl_transfer_desc d;
	struct adxl_mem_desc md;
	adxl_mem_handle_t h;
	adxl_engine_t *e;
	uint8_t *buf = malloc(LEN);
	int fd;

	if (argc != 5)
		return 2;
	fd = atoi(argv[4]);
	if (fake_kernel_setup())
		return 1;
	fake_set_instance(0x78);
	if (adxl_engine_create(&e) || adxl_initialize(e, "127.0.0.1", NULL, 0))
		return 1;
	md = (struct adxl_mem_desc){ (uintptr_t)buf, LEN };
	if (adxl_register_mem(e, &md, ADXL_MEM_HOST, &h) ||
	    adxl_connect(e, argv[2], 10000))
		return 1;
	d = (struct adxl_transfer_desc){ (uintptr_t)buf,
					 strtoull(argv[3], NULL, 0), LEN };
	if (adxl_transfer_sync(e, argv[2], ADXL_READ, &d, 1, 10000) ||
	    write(fd, "r", 1) != 1)
		return 1;
	for (;;)
		adxl_transfer_sync(e, argv[2], ADXL_READ, &d, 1, 10000);
}

static pid_t start_peer(const char *name, uint64_t *addr, int *keep)
{
	int fds[2];
	char fdarg[16];
	struct pollfd pfd;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A fresh process: UCX in a forked threaded one is undefined. */
		snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
		fcntl(fds[1], F_SETFD, 0);
		execl("/proc/self/exe", "test_adxl", "ucx-peer", name, fdarg,
		      (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 30000), 1);
	assert_int_equal(read(fds[0], addr, sizeof(*addr)), sizeof(*addr));
	*keep = fds[0];
	return pid;
}

static adxl_status_t timed_read(adxl_engine_t *e, uint8_t *local,
				uint64_t remote, int timeout_ms, double *ms)
{
	struct adxl_transfer_desc d = { (uintptr_t)local, remote, LEN };
	double t0 = now_ms();
	adxl_status_t st;

	st = adxl_transfer_sync(e, B, ADXL_READ, &d, 1, timeout_ms);
	*ms = now_ms() - t0;
	return st;
}

static void check_pattern(const uint8_t *p)
{
	size_t i;

	for (i = 0; i < LEN; i++)
		if (p[i] != pattern(i))
			fail_msg("byte %zu is %u, not %u", i, p[i], pattern(i));
}

static void test_lost_peer(void **state)
{
	struct adxl_mem_desc md;
	adxl_mem_handle_t h;
	adxl_engine_t *a;
	uint64_t raddr;
	uint8_t *la = calloc(1, LEN);
	adxl_status_t st;
	int keep, status;
	unsigned int port;
	double ms;
	pid_t pid;
	int wst;

	(void)state;
	port = random_port();
	snprintf(B, sizeof(B), "127.0.0.1:%u", port);
	pid = start_peer(B, &raddr, &keep);

	assert_int_equal(fake_kernel_setup(), 0);
	fake_set_instance(0x42);
	assert_int_equal(adxl_engine_create(&a), 0);
	assert_int_equal(adxl_initialize(a, "127.0.0.1", NULL, 0), 0);
	md = (struct adxl_mem_desc){ (uintptr_t)la, LEN };
	assert_int_equal(adxl_register_mem(a, &md, ADXL_MEM_HOST, &h), 0);
	assert_int_equal(adxl_connect(a, B, 10000), ADXL_SUCCESS);
	assert_int_equal(timed_read(a, la, raddr, 5000, &ms), ADXL_SUCCESS);
	check_pattern(la);

	/*
	 * The peer stops answering: TIMEOUT, in about the timeout.  kill()
	 * returns before the peer has stopped: a read right after it once
	 * was still answered (check-quick, 2026-11-27).  Wait until it has.
	 */
	kill(pid, SIGSTOP);
	assert_int_equal(waitpid(pid, &wst, WUNTRACED), pid);
	assert_true(WIFSTOPPED(wst));
	st = timed_read(a, la, raddr, 500, &ms);
	assert_int_equal(st, ADXL_TIMEOUT);
	printf("# stopped peer: TIMEOUT after %.0f ms (timeout 500 ms)\n", ms);
	assert_true(ms >= 450 && ms < 500 + 2000);
	/* The link is closed: said so at once, until Connect again. */
	assert_int_equal(timed_read(a, la, raddr, 500, &ms), ADXL_NOT_CONNECTED);
	assert_true(ms < 100);
	kill(pid, SIGCONT);
	assert_int_equal(adxl_connect(a, B, 10000), ADXL_SUCCESS);
	memset(la, 0, LEN);
	assert_int_equal(timed_read(a, la, raddr, 5000, &ms), ADXL_SUCCESS);
	check_pattern(la);

	/* The peer dies: an error within the timeout, never a hang. */
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	st = timed_read(a, la, raddr, 3000, &ms);
	printf("# killed peer: %s after %.0f ms (timeout 3000 ms)\n",
	       st == ADXL_FAILED ? "FAILED" : st == ADXL_TIMEOUT ? "TIMEOUT" :
	       st == ADXL_NOT_CONNECTED ? "NOT_CONNECTED" : "other", ms);
	assert_true(st == ADXL_FAILED || st == ADXL_NOT_CONNECTED ||
		    st == ADXL_TIMEOUT);
	assert_true(ms < 3000 + 2000);
	/* And nothing listens there now: Connect says so within its time. */
	st = adxl_connect(a, B, 1000);
	assert_true(st == ADXL_TIMEOUT || st == ADXL_FAILED);

	adxl_engine_destroy(a);
	close(keep);
	free(la);
	fake_kernel_teardown();
}

/* A client killed while we serve its reads: we go on serving. */
static void test_client_killed(void **state)
{
	struct two *t = two_engines(0x43, NULL, NULL);
	char addr[32], fdarg[16];
	struct pollfd pfd;
	int fds[2], status, i;
	char c;
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
	snprintf(addr, sizeof(addr), "0x%lx", (unsigned long)(uintptr_t)t->rb);
	for (i = 0; i < 3; i++) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
			fcntl(fds[1], F_SETFD, 0);
			execl("/proc/self/exe", "test_adxl", "ucx-client", B,
			      addr, fdarg, (char *)NULL);
			_exit(127);
		}
		pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
		assert_int_equal(poll(&pfd, 1, 30000), 1);
		assert_int_equal(read(fds[0], &c, 1), 1);
		usleep(20000 * (i + 1));	/* in the middle of a read */
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
	}
	/* Still serving: our own engine A connects and reads. */
	usleep(200000);
	assert_int_equal(adxl_connect(t->a, B, 5000), ADXL_SUCCESS);
	check_read_write(t);
	close(fds[0]);
	close(fds[1]);
	two_free(t);
}

/* Whether the UCX plugin @file is loaded in this process. */
static bool plugin_loaded(const char *file)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_NOLOAD);

	if (h)
		dlclose(h);
	return h;
}

/* Initialize @e as 127.0.0.1:PORT (a free one) with option Transport @t. */
static int init_anywhere(adxl_engine_t *e, const char *t)
{
	char name[32];
	int tries;

	for (tries = 0; tries < 50; tries++)
		if (!init_engine(e, name, sizeof(name), t, random_port()))
			return 0;
	return -1;
}

/*
 * argv: test_adxl ucx-load, a process where nothing loaded UCX yet.  An
 * engine with Transport=kernel leaves it unloaded; one that may use UCX
 * has it loaded when Initialize returns, so that no thread of the engine
 * loads it later beside the application's: libucm moves the program break
 * as it loads, which breaks a malloc of the main thread in progress
 * (lib/adxl/plugged.c, adxl__plugged_preload).  0, or which check failed.
 */
static int ucx_load_main(void)
{
	const char *file = getenv("MEMREG_ADXL_UCX_PLUGIN");
	adxl_engine_t *k, *a;

	if (!file || fake_kernel_setup())
		return 2;
	if (plugin_loaded(file))
		return 3;
	if (adxl_engine_create(&k) || init_anywhere(k, "kernel"))
		return 2;
	if (plugin_loaded(file))
		return 4;
	if (adxl_engine_create(&a) || init_anywhere(a, NULL))
		return 2;
	if (!plugin_loaded(file))
		return 5;
	adxl_engine_destroy(a);
	adxl_engine_destroy(k);
	return 0;
}

/*
 * UCX is loaded by Initialize, on the caller's thread, before the
 * engine's listener runs: a peer's link hello that arrives while the
 * application registers and connects never makes the listener thread
 * load it (pair-6.12's power loss: the rebooted engine's main thread
 * segfaulted in malloc while its listener loaded UCX for the peer).
 */
static void test_ucx_loaded_by_initialize(void **state)
{
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test_adxl", "ucx-load", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	/* 3: loaded before; 4: by a Transport=kernel engine; 5: not by auto */
	assert_int_equal(WEXITSTATUS(st), 0);
}

int test_ucx_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ucx_loaded_by_initialize),
		cmocka_unit_test(test_auto_picks_ucx_across_kernels),
		cmocka_unit_test(test_auto_uses_module_on_one_kernel),
		cmocka_unit_test(test_forced_ucx_on_one_kernel),
		cmocka_unit_test(test_kernel_transport_refuses_ucx),
		cmocka_unit_test(test_forced_rdma_without_device),
		cmocka_unit_test(test_lost_peer),
		cmocka_unit_test(test_client_killed),
		cmocka_unit_test(test_peer_checks_ranges),
	};

	return cmocka_run_group_tests_name("adxl over UCX (loopback)", tests,
					   NULL, NULL);
}
