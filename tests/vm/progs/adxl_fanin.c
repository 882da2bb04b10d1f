// SPDX-License-Identifier: GPL-2.0
/*
 * adxl_fanin - one engine reads from several peers at once (fan-in), the
 * way a decode node pulls KV-cache blocks from several prefill nodes.
 *
 *   adxl_fanin -l NAME [-T TRANSPORT] [-s SIZE] [-r ROUNDS] [-b BLOCKS]
 *              [-C MS] [-t MS] PEER=SEED PEER=SEED [...]
 *
 * Each PEER is an adxl_peer serving SIZE bytes of the pattern of SEED
 * (adxl_peer -n -c NAME -a notify -w 1).  One engine, listening as NAME,
 * registers a destination and a source buffer per peer, connects to every
 * peer and learns its buffer address from its "addr" notify ("ADDR NAME").
 * Then one thread per peer, started together, READs the peer's whole
 * buffer ROUNDS times in BLOCKS descriptors (remote blocks shuffled) and
 * checks every byte; the threads' busy intervals must overlap (the reads
 * ran at the same time, not one after the other).  Last, each thread
 * WRITEs a pattern of its own over its peer's buffer and tells the peer
 * by a "done" notify, and the peer checks it (adxl_peer -w 1).
 *
 * Lines: "pass ..." / "fail ..."; exit 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adxl_testlib.h"

#define MAX_PEERS 8

struct fanin_peer {
	const char *name;
	uint64_t seed;
	uintptr_t addr;			/* its buffer, from its "addr" notify */
	struct atl_mem dst, src;
	pthread_t thread;
	double start, end;		/* the reads' busy interval */
	double mbs;
	int failures;
};

static adxl_engine_t *eng;
static struct fanin_peer peers[MAX_PEERS];
static int n_peers;
static size_t size = 4 << 20;
static int rounds = 8, blocks = 64, xfer_timeout = 60000;
static atomic_int failures;
static pthread_barrier_t go;

#define PASS(...) (printf("pass " __VA_ARGS__), printf("\n"))
#define FAIL(...) (printf("fail " __VA_ARGS__), printf("\n"), failures++)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int reg(struct atl_mem *m)
{
	return atl_alloc_reg(eng, m, ADXL_MEM_HOST, size, NULL);
}

/* "ADDR NAME" from a peer's adxl_peer -a notify */
static void on_notify(const char *name, size_t nl, const char *msg, size_t ml,
		      void *arg)
{
	char buf[256], *sp;
	int i;

	(void)arg;
	if (nl != 4 || memcmp(name, "addr", 4) || ml >= sizeof(buf)) {
		FAIL("unexpected notify %.*s", (int)nl, name);
		return;
	}
	memcpy(buf, msg, ml);
	buf[ml] = '\0';
	sp = strchr(buf, ' ');
	if (!sp) {
		FAIL("an addr notify without the peer's name: '%s'", buf);
		return;
	}
	for (i = 0; i < n_peers; i++)
		if (!strcmp(sp + 1, peers[i].name))
			peers[i].addr = strtoull(buf, NULL, 16);
}

static int connect_all(int connect_timeout)
{
	char msg[32];
	adxl_status_t st;
	int i, known, tries;

	for (i = 0; i < n_peers; i++) {
		st = adxl_connect(eng, peers[i].name, connect_timeout);
		if (st) {
			FAIL("Connect %s: %s: %s", peers[i].name, atl_status(st),
			     adxl_last_error());
			return -1;
		}
		/* Our address: the peer waits for one before it serves. */
		snprintf(msg, sizeof(msg), "%lx",
			 (unsigned long)(uintptr_t)peers[i].dst.addr);
		st = adxl_send_notify(eng, peers[i].name, "addr", 4, msg,
				      strlen(msg), 30000);
		if (st) {
			FAIL("SendNotify addr to %s: %s", peers[i].name,
			     atl_status(st));
			return -1;
		}
	}
	for (tries = 0; tries < 120 * 100; tries++) {
		adxl_get_notifies(eng, on_notify, NULL);
		for (known = 0, i = 0; i < n_peers; i++)
			known += peers[i].addr != 0;
		if (known == n_peers)
			break;
		usleep(10000);
	}
	for (i = 0; i < n_peers; i++)
		if (!peers[i].addr) {
			FAIL("no address from %s in 120 s", peers[i].name);
			return -1;
		}
	PASS("connected to %d peers, addresses exchanged by notify", n_peers);
	return 0;
}

/* Remote block perm(i) of b: 7919 is prime and above any b used here. */
static size_t perm(size_t i, size_t b)
{
	return (i * 7919) % b;
}

static int transfer(struct fanin_peer *p, enum adxl_transfer_op op,
		    struct adxl_transfer_desc *d, size_t n, const char *what)
{
	adxl_status_t st = adxl_transfer_sync(eng, p->name, op, d, n,
					      xfer_timeout);

	if (st) {
		FAIL("%s %s: %s: %s", what, p->name, atl_status(st),
		     adxl_last_error());
		p->failures++;
		return -1;
	}
	return 0;
}

static void *reader(void *arg)
{
	struct fanin_peer *p = arg;
	size_t bl = size / blocks, i;
	struct adxl_transfer_desc *d = calloc(blocks, sizeof(*d));
	uint64_t last = p->seed * 13 + 0x5a;
	int r;

	if (!d) {
		FAIL("out of memory");
		return NULL;
	}
	for (i = 0; i < (size_t)blocks; i++) {
		d[i].local_addr = (uintptr_t)p->dst.addr + perm(i, blocks) * bl;
		d[i].remote_addr = p->addr + perm(i, blocks) * bl;
		d[i].len = bl;
	}
	pthread_barrier_wait(&go);
	p->start = now_s();
	for (r = 0; r < rounds && !p->failures; r++) {
		long long at;

		memset(p->dst.addr, 0, size);
		if (transfer(p, ADXL_READ, d, blocks, "READ"))
			break;
		at = atl_check(p->dst.addr, size, p->seed, 0);
		if (at >= 0) {
			FAIL("READ from %s, round %d: byte %lld is not the peer's",
			     p->name, r, at);
			p->failures++;
		}
	}
	p->end = now_s();
	if (!p->failures) {
		p->mbs = (double)size * rounds / (p->end - p->start) / 1e6;
		PASS("%d READs of %zu bytes in %d blocks from %s, every byte checked (%.1f MB/s)",
		     rounds, size, blocks, p->name, p->mbs);
	}

	/* The last word: our pattern over the peer's buffer, checked there. */
	atl_fill(p->src.addr, size, last, 0);
	for (i = 0; i < (size_t)blocks; i++)
		d[i].local_addr = (uintptr_t)p->src.addr + perm(i, blocks) * bl;
	if (!transfer(p, ADXL_WRITE, d, blocks, "WRITE")) {
		char msg[32];
		adxl_status_t st;

		snprintf(msg, sizeof(msg), "%llx", (unsigned long long)last);
		st = adxl_send_notify(eng, p->name, "done", 4, msg, strlen(msg),
				      10000);
		if (st)
			FAIL("SendNotify done to %s: %s", p->name, atl_status(st));
		else
			PASS("WROTE %zu bytes to %s, the peer checks them", size,
			     p->name);
	}
	free(d);
	return NULL;
}

static int add_peer(char *arg)
{
	char *eq = strrchr(arg, '=');

	if (!eq || n_peers == MAX_PEERS) {
		fprintf(stderr, "adxl_fanin: '%s' is not PEER=SEED (at most %d)\n",
			arg, MAX_PEERS);
		return -1;
	}
	*eq = '\0';
	peers[n_peers].name = arg;
	peers[n_peers].seed = strtoull(eq + 1, NULL, 0);
	n_peers++;
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *transport = NULL;
	int opt, i, connect_timeout = 120000, overlap = 1;
	double total = 0;

	while ((opt = getopt(argc, argv, "l:T:s:r:b:C:t:")) != -1) {
		switch (opt) {
		case 'l': name = optarg; break;
		case 'T': transport = optarg; break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'b': blocks = atoi(optarg); break;
		case 'C': connect_timeout = atoi(optarg); break;
		case 't': xfer_timeout = atoi(optarg); break;
		default: return 2;
		}
	}
	for (i = optind; i < argc; i++)
		if (add_peer(argv[i]))
			return 2;
	if (!name || n_peers < 2 || blocks < 1 || blocks > 7919 ||
	    size % blocks) {
		fprintf(stderr, "usage: adxl_fanin -l NAME [-T T] [-s SIZE] [-r N] [-b BLOCKS] PEER=SEED PEER=SEED...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	eng = atl_engine(name, transport);
	if (!eng)
		return 1;
	for (i = 0; i < n_peers; i++)
		if (reg(&peers[i].dst) || reg(&peers[i].src))
			return 1;
	if (connect_all(connect_timeout))
		return 1;

	pthread_barrier_init(&go, NULL, n_peers);
	for (i = 0; i < n_peers; i++)
		pthread_create(&peers[i].thread, NULL, reader, &peers[i]);
	for (i = 0; i < n_peers; i++)
		pthread_join(peers[i].thread, NULL);

	/* At once: every reader started before any other one finished. */
	for (i = 0; i < n_peers; i++) {
		int j;

		total += peers[i].mbs;
		for (j = 0; j < n_peers; j++)
			if (peers[j].start >= peers[i].end)
				overlap = 0;
	}
	if (!failures) {
		if (overlap)
			PASS("the %d peers were read at the same time: %.1f MB/s in all",
			     n_peers, total);
		else
			FAIL("the reads did not overlap: one peer was read after another");
	}
	adxl_engine_destroy(eng);
	return failures ? 1 : 0;
}
