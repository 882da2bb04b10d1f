// SPDX-License-Identifier: GPL-2.0
/*
 * adxl_restart - a peer that restarts at the same name and addresses.
 *
 *   adxl_restart serve  -l NAME -A ADDR -s SIZE -S SEED [-T TRANSPORT]
 *   adxl_restart client -l NAME -c PEER -A ADDR -s SIZE -S SEED -N SEED2
 *                       [-W GOFILE] [-n COUNT] [-T TRANSPORT]
 *
 * serve maps SIZE bytes at ADDR (MAP_FIXED_NOREPLACE: a restarted server
 * has its memory where the old one had it), fills them with SEED's
 * pattern, registers them with an engine listening as NAME, prints
 * "ready" and waits; it prints "peer connected" when its client says so
 * (a notify).  On SIGTERM, or the client's notify "done", it checks every
 * byte still holds SEED's pattern ("pass intact" / "fail ... changed")
 * and exits.
 *
 * client connects to PEER, READs its buffer and checks SEED's pattern,
 * says "connected" (stdout, and a notify to the server) and waits:
 * meanwhile the harness kills the server with SIGKILL and starts another
 * at the same name and ADDR, with SEED2's pattern.  With -W it waits for
 * GOFILE; without (two VMs: no shared files), its transfers are refused
 * as EXITED until the new server answers at the name (60 s at most).
 * Then COUNT (1000) transfers with what it learnt before, WRITEs and
 * READs in turn, must each be refused: ADXL_NOT_CONNECTED with
 * adxl_peer_state() RESTARTED, and no READ may bring a byte back.  It
 * prints how long the first refusal took (the one round trip that tells
 * the restart) and the others on average.  Then Disconnect and Connect
 * again: a READ must see SEED2's pattern; it tells the server "done".
 *
 * Lines: "pass ..." / "fail ..."; exit 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "adxl_testlib.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

static int failures;
static volatile sig_atomic_t stop;

#define PASS(...) do { printf("pass "); printf(__VA_ARGS__); \
		       printf("\n"); fflush(stdout); } while (0)
#define FAIL(...) do { printf("fail "); printf(__VA_ARGS__); \
		       printf("\n"); fflush(stdout); failures++; } while (0)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void on_notify(const char *name, size_t name_len, const char *msg,
		      size_t msg_len, void *arg)
{
	(void)msg;
	(void)msg_len;
	(void)arg;
	if (name_len == 9 && !memcmp(name, "connected", 9)) {
		printf("peer connected\n");
		fflush(stdout);
	} else if (name_len == 4 && !memcmp(name, "done", 4)) {
		stop = 1;
	}
}

static int serve(const char *name, uintptr_t at, size_t size, uint64_t seed,
		 const char *transport)
{
	struct adxl_mem_desc d;
	adxl_mem_handle_t h;
	adxl_engine_t *eng;
	long long bad;
	void *p;

	p = mmap((void *)at, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || (uintptr_t)p != at) {
		FAIL("serve: cannot map %zu bytes at 0x%lx", size,
		     (unsigned long)at);
		return 1;
	}
	atl_fill(p, size, seed, 0);
	eng = atl_engine(name, transport);
	if (!eng)
		return 1;
	d = (struct adxl_mem_desc){ at, size };
	if (adxl_register_mem(eng, &d, ADXL_MEM_HOST, &h)) {
		FAIL("serve: RegisterMem: %s", adxl_last_error());
		return 1;
	}
	signal(SIGTERM, on_term);
	printf("ready 0x%lx pid %d\n", (unsigned long)at, (int)getpid());
	fflush(stdout);
	while (!stop) {
		adxl_get_notifies(eng, on_notify, NULL);
		usleep(20 * 1000);
	}
	bad = atl_check(p, size, seed, 0);
	if (bad >= 0)
		FAIL("serve %s: the buffer changed at offset %lld", name, bad);
	else
		PASS("serve %s: all %zu bytes intact", name, size);
	adxl_deregister_mem(eng, h);
	adxl_finalize(eng);
	adxl_engine_destroy(eng);
	return failures ? 1 : 0;
}

static void wait_file(const char *path)
{
	struct stat st;

	while (stat(path, &st))
		usleep(20 * 1000);
}

static int client(const char *name, const char *peer, uintptr_t at,
		  size_t size, uint64_t seed, uint64_t seed2, const char *go,
		  int count, const char *transport)
{
	struct adxl_transfer_desc d;
	adxl_mem_handle_t lh;
	struct atl_mem local;
	adxl_engine_t *eng;
	int i, refused = 0, other = 0;
	double first = 0, rest = 0;
	long long bad;

	eng = atl_engine(name, transport);
	if (!eng || atl_alloc_reg(eng, &local, ADXL_MEM_HOST, size, &lh))
		return 1;
	if (adxl_connect(eng, peer, 20000)) {
		FAIL("client: Connect %s: %s", peer, adxl_last_error());
		return 1;
	}
	d = (struct adxl_transfer_desc){ (uintptr_t)local.addr, at, size };
	if (adxl_transfer_sync(eng, peer, ADXL_READ, &d, 1, 20000)) {
		FAIL("client: READ before the restart: %s", adxl_last_error());
		return 1;
	}
	bad = atl_check(local.addr, size, seed, 0);
	if (bad >= 0)
		FAIL("client: the first server's bytes are wrong at %lld", bad);
	else
		PASS("client: read the first server's %zu bytes", size);
	/* the harness kills the server on this line: the notify first */
	if (adxl_send_notify(eng, peer, "connected", 9, "", 0, 20000))
		FAIL("client: SendNotify connected: %s", adxl_last_error());
	printf("connected\n");
	fflush(stdout);

	if (go) {
		wait_file(go);
	} else {
		double until = now_s() + 60;
		adxl_status_t st;

		/*
		 * READs until the new server answers: the old one's while it
		 * lives, refused (EXITED) between the two; one in flight as
		 * the old one is killed may fail otherwise (FAILED, TIMEOUT)
		 */
		do {
			usleep(50 * 1000);
			st = adxl_transfer_sync(eng, peer, ADXL_READ, &d, 1,
						5000);
		} while (adxl_peer_state(eng, peer) != ADXL_PEER_RESTARTED &&
			 now_s() < until);
		if (st != ADXL_NOT_CONNECTED ||
		    adxl_peer_state(eng, peer) != ADXL_PEER_RESTARTED) {
			FAIL("client: no restart seen: %s, state %d: %s",
			     atl_status(st), (int)adxl_peer_state(eng, peer),
			     adxl_last_error());
			return 1;
		}
	}

	/* What was learnt before the restart: the same addresses, both ways. */
	for (i = 0; i < count; i++) {
		enum adxl_transfer_op op = i % 2 ? ADXL_READ : ADXL_WRITE;
		adxl_status_t st;
		double t;

		/* a READ that got through would bring seed2's bytes here */
		atl_fill(local.addr, size, seed + 1000, 0);
		t = now_s();
		st = adxl_transfer_sync(eng, peer, op, &d, 1, 20000);
		t = now_s() - t;
		if (i == 0)
			first = t;
		else
			rest += t;
		if (st == ADXL_NOT_CONNECTED &&
		    adxl_peer_state(eng, peer) == ADXL_PEER_RESTARTED &&
		    strstr(adxl_last_error(), "restarted"))
			refused++;
		else if (other++ < 3)
			FAIL("client: stale %s %d: %s, state %d: %s",
			     op == ADXL_READ ? "READ" : "WRITE", i,
			     atl_status(st), (int)adxl_peer_state(eng, peer),
			     adxl_last_error());
		if (op == ADXL_READ &&
		    atl_check(local.addr, size, seed + 1000, 0) >= 0)
			FAIL("client: a refused READ %d brought bytes back", i);
	}
	if (refused == count)
		PASS("client: all %d transfers with pre-restart addresses refused as restarted (first %.1f ms, then %.1f us each)",
		     count, first * 1e3, count > 1 ? rest / (count - 1) * 1e6 : 0);
	else
		FAIL("client: %d of %d stale transfers refused as restarted",
		     refused, count);

	/* A fresh Connect reaches the new process, knowingly. */
	if (adxl_disconnect(eng, peer, 5000))
		FAIL("client: Disconnect: %s", adxl_last_error());
	if (adxl_peer_state(eng, peer) != ADXL_PEER_NONE)
		FAIL("client: state after Disconnect %d",
		     (int)adxl_peer_state(eng, peer));
	if (adxl_connect(eng, peer, 20000)) {
		FAIL("client: Connect after the restart: %s",
		     adxl_last_error());
	} else if (adxl_peer_state(eng, peer) != ADXL_PEER_CONNECTED) {
		FAIL("client: state after Connect %d",
		     (int)adxl_peer_state(eng, peer));
	} else if (adxl_transfer_sync(eng, peer, ADXL_READ, &d, 1, 20000)) {
		FAIL("client: READ after Connect: %s", adxl_last_error());
	} else if ((bad = atl_check(local.addr, size, seed2, 0)) >= 0) {
		FAIL("client: the new server's bytes are wrong at %lld", bad);
	} else {
		PASS("client: a fresh Connect reads the new server's %zu bytes",
		     size);
	}
	if (adxl_send_notify(eng, peer, "done", 4, "", 0, 20000))
		FAIL("client: SendNotify done: %s", adxl_last_error());
	adxl_disconnect(eng, peer, 5000);
	adxl_deregister_mem(eng, lh);
	adxl_finalize(eng);
	adxl_engine_destroy(eng);
	atl_free(&local);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *peer = NULL, *go = NULL, *transport = NULL;
	uint64_t seed = 1, seed2 = 2;
	uintptr_t at = 0x7e0000000000UL;
	size_t size = 1 << 20;
	int count = 1000, c;

	if (argc < 2)
		goto usage;
	optind = 2;
	while ((c = getopt(argc, argv, "l:c:A:s:S:N:W:n:T:")) != -1) {
		switch (c) {
		case 'l': name = optarg; break;
		case 'c': peer = optarg; break;
		case 'A': at = strtoull(optarg, NULL, 0); break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'N': seed2 = strtoull(optarg, NULL, 0); break;
		case 'W': go = optarg; break;
		case 'n': count = atoi(optarg); break;
		case 'T': transport = optarg; break;
		default: goto usage;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "serve") && name)
		return serve(name, at, size, seed, transport);
	if (!strcmp(argv[1], "client") && name && peer && count > 0)
		return client(name, peer, at, size, seed, seed2, go, count,
			      transport);
usage:
	fprintf(stderr, "usage: adxl_restart serve|client ... (see the source)\n");
	return 2;
}
