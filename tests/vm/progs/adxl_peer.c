// SPDX-License-Identifier: GPL-2.0
/*
 * adxl_peer - one ADXL engine of the VM transfer tests.
 *
 *   adxl_peer -l NAME [-k host|dev] [-s SIZE] [-S SEED] [-T TRANSPORT]
 *             [-c PEER -a PEER_ADDR|FILE|notify -P PEER_SEED [-b B1,B2,...]
 *              [-L [-R SECS]] [-n] [-t MS] [-C MS]]
 *             [-g GOFILE] [-w N]
 *
 * Listens as NAME, registers three buffers of SIZE bytes (the one peers
 * use, filled with the pattern of SEED; a scratch buffer; a source
 * buffer) and prints "ready 0x<addr of the first>".  With -g it waits for
 * GOFILE to exist (every peer registered) before connecting to PEER, whose
 * buffer is at PEER_ADDR (or in the "ready" line of FILE, the peer's
 * output) with the pattern of PEER_SEED.  For each batch
 * size B it then READs B descriptors (odd lengths and offsets, remote
 * blocks in a shuffled order) and checks every byte, including that the
 * bytes between the blocks stayed untouched; WRITEs B descriptors and
 * reads the peer's buffer back to check it; restores it; and does one
 * TransferAsync.  Finally it writes a last pattern and tells the peer by a
 * notify, and the peer checks its own buffer.  -w N: wait for N such
 * notifies (from the peers that connect to it) before exiting.
 * -L: after connecting, READ in a loop until a transfer fails, checking
 * the bytes of every READ that succeeded; print "error STATUS: message"
 * and exit 3 (the kill -9 and revocation tests).
 *
 * Across hosts (two VMs) nothing is shared but the network:
 *  -a notify    the peer's buffer address comes in a notify "addr" that
 *               the peer sends once it has connected to us; we send ours
 *  -n           exchange addresses, then only serve (no transfers)
 *  -R SECS      after -L's failure, Connect again for up to SECS seconds
 *               (the peer's host coming back), exchange addresses with the
 *               new peer and run the transfer tests with it
 *  -T T         Initialize option Transport=T (auto, kernel, ucx, rdma)
 *  -D MS        (with -n) DeregisterMem our buffer MS ms after the peer
 *               said it loops: its reads must fail from then on
 *  -V K         revocations: the buffer is registered as K slices; with
 *               -n -D, K-1 of them are deregistered one after the other
 *               (every 300 ms from MS) and the peer is told "vdone"; with
 *               -L, the peer READs every slice in turn on one Connect
 *               until told so: each slice's reads fail once it is gone,
 *               with a status that says so, and the others go on; then
 *               it tells the peer "vend" (which prints "peer finished")
 *  -r           Connect must be refused (this host is not on the peer's
 *               allow-list, or we are another user of its host); then exit
 *  -t MS        transfer timeout (60000); -C MS Connect timeout (10000)
 * With -L the peer is told "loop" by notify once the loop runs, and with
 * -n a peer that is told so prints "peer looping".
 *
 * Lines: "pass ..." / "fail ..."; exit 0 only if nothing failed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adxl_testlib.h"

static adxl_engine_t *eng;
static struct atl_mem mem, scratch, src;
static const char *peer;
static uintptr_t peer_addr;
static uint64_t seed = 1, peer_seed;
static size_t size = 1 << 20;
static int failures;
static volatile sig_atomic_t stop;
static int xfer_timeout = 60000;
static adxl_mem_handle_t mem_handle;	/* mem's registration */
static double peer_looping_at;		/* when the peer said "loop" */
static bool addr_by_notify;
static const char *my_name;		/* -l NAME */
#define MAX_SLICES	64
static int vslices;			/* -V K */
static adxl_mem_handle_t slice_handle[MAX_SLICES];
static bool vdone;			/* the peer said "vdone" */

static double now_s(void);

#define PASS(...) (printf("pass " __VA_ARGS__), printf("\n"))
#define FAIL(...) (printf("fail " __VA_ARGS__), printf("\n"), failures++)

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int xfer(enum adxl_transfer_op op, struct adxl_transfer_desc *d,
		size_t n, const char *what)
{
	adxl_status_t st = adxl_transfer_sync(eng, peer, op, d, n,
					      xfer_timeout);

	if (st) {
		FAIL("%s: %s: %s", what, atl_status(st), adxl_last_error());
		return -1;
	}
	return 0;
}

/* Remote block perm(i) of B: 7919 is prime and above 4096, so a bijection. */
static size_t perm(size_t i, size_t b)
{
	return (i * 7919) % b;
}

static void make_descs(struct adxl_transfer_desc *d, size_t b, uintptr_t local)
{
	size_t bl = size / b, i;

	for (i = 0; i < b; i++) {
		size_t skew = b > 1 ? i % 3 : 0;

		d[i].local_addr = local + i * bl + skew;
		d[i].remote_addr = peer_addr + perm(i, b) * bl + skew;
		d[i].len = bl - skew;
	}
}

static void restore_peer(void)
{
	struct adxl_transfer_desc d = { (uintptr_t)src.addr, peer_addr, size };

	atl_fill(src.addr, size, peer_seed, 0);
	xfer(ADXL_WRITE, &d, 1, "restore");
}

static void test_batch(size_t b, const char *kind)
{
	struct adxl_transfer_desc *d = calloc(b, sizeof(*d));
	size_t bl = size / b, i;
	uint64_t wseed = seed * 1000003 + b;
	int bad = 0;

	/* READ: every block where it belongs, nothing between them. */
	memset(scratch.addr, 0, size);
	make_descs(d, b, (uintptr_t)scratch.addr);
	if (xfer(ADXL_READ, d, b, "read"))
		goto out;
	for (i = 0; i < b && !bad; i++) {
		uint8_t *p = (uint8_t *)d[i].local_addr;
		size_t off = d[i].remote_addr - peer_addr;
		long long at = atl_check(p, d[i].len, peer_seed, off);

		if (at >= 0) {
			FAIL("read %s batch %zu: descriptor %zu byte %lld differs",
			     kind, b, i, at);
			bad = 1;
		}
		if (p - (uint8_t *)scratch.addr != (long)(i * bl) && p[-1]) {
			FAIL("read %s batch %zu: byte before descriptor %zu written",
			     kind, b, i);
			bad = 1;
		}
	}
	if (!bad)
		PASS("read %s batch %zu", kind, b);

	/* WRITE, then read the whole peer buffer back to look at it. */
	make_descs(d, b, (uintptr_t)src.addr);
	atl_fill(src.addr, size, wseed, 0);
	if (xfer(ADXL_WRITE, d, b, "write"))
		goto out;
	{
		struct adxl_transfer_desc all = { (uintptr_t)scratch.addr,
						  peer_addr, size };

		if (xfer(ADXL_READ, &all, 1, "read back"))
			goto out;
	}
	for (i = 0, bad = 0; i < b && !bad; i++) {
		size_t roff = d[i].remote_addr - peer_addr;
		size_t loff = d[i].local_addr - (uintptr_t)src.addr;
		long long at = atl_check((uint8_t *)scratch.addr + roff,
					 d[i].len, wseed, loff);

		if (at >= 0) {
			FAIL("write %s batch %zu: descriptor %zu byte %lld differs",
			     kind, b, i, at);
			bad = 1;
		}
	}
	if (!bad)
		PASS("write %s batch %zu", kind, b);
	restore_peer();
out:
	free(d);
}

static void test_async(const char *kind)
{
	struct adxl_transfer_desc d = { (uintptr_t)scratch.addr, peer_addr, size };
	enum adxl_transfer_status ts;
	adxl_transfer_req_t req;
	adxl_status_t st;
	int polls = 0;

	memset(scratch.addr, 0, size);
	st = adxl_transfer_async(eng, peer, ADXL_READ, &d, 1, &req);
	if (st) {
		FAIL("async %s: TransferAsync %s", kind, atl_status(st));
		return;
	}
	do {
		st = adxl_get_transfer_status(eng, req, &ts);
		if (ts == ADXL_TRANSFER_WAITING)
			usleep(1000);
	} while (!st && ts == ADXL_TRANSFER_WAITING && ++polls < 60000);
	if (st || ts != ADXL_TRANSFER_COMPLETED) {
		FAIL("async %s: status %s/%d", kind, atl_status(st), ts);
		return;
	}
	if (atl_check(scratch.addr, size, peer_seed, 0) >= 0)
		FAIL("async %s: data differs", kind);
	else if (adxl_get_transfer_status(eng, req, &ts) != ADXL_PARAM_INVALID)
		FAIL("async %s: a released request answered again", kind);
	else
		PASS("async read %s (then released)", kind);
}

static void on_notify(const char *name, size_t nl, const char *msg, size_t ml,
		      void *arg)
{
	int *got = arg;
	char buf[64];
	unsigned long long s;
	long long at;

	if (nl == 4 && !memcmp(name, "loop", 4)) {
		printf("peer looping\n");
		peer_looping_at = now_s();
		return;
	}
	if (nl == 5 && !memcmp(name, "vdone", 5)) {
		vdone = true;
		return;
	}
	if (nl == 4 && !memcmp(name, "vend", 4)) {
		printf("peer finished\n");
		return;
	}
	if (nl == 4 && !memcmp(name, "addr", 4) && ml < sizeof(buf)) {
		memcpy(buf, msg, ml);
		buf[ml] = '\0';
		peer_addr = strtoull(buf, NULL, 16);
		return;
	}
	if (nl != 4 || memcmp(name, "done", 4) || ml >= sizeof(buf)) {
		FAIL("unexpected notify %.*s", (int)nl, name);
		return;
	}
	memcpy(buf, msg, ml);
	buf[ml] = '\0';
	s = strtoull(buf, NULL, 16);
	at = atl_check(mem.addr, size, s, 0);
	if (at >= 0)
		FAIL("own buffer as the peer wrote it: byte %lld differs", at);
	else
		PASS("own buffer holds what the peer wrote, byte for byte");
	(*got)++;
}

/* PEER_ADDR is a number, or a file (the peer's output): "ready 0x...". */
static int read_addr(const char *arg)
{
	unsigned long long a = 0;
	FILE *f;

	if (!strcmp(arg, "notify")) {
		addr_by_notify = true;
		return 0;
	}
	if (arg[0] != '/') {
		peer_addr = strtoull(arg, NULL, 0);
		return 0;
	}
	f = fopen(arg, "r");
	if (!f || fscanf(f, "ready %llx", &a) != 1) {
		fprintf(stderr, "no address in %s\n", arg);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	peer_addr = a;
	return 0;
}

static int reg(struct atl_mem *m, enum adxl_mem_type type)
{
	struct adxl_mem_desc d;
	size_t slice = size / (vslices ? vslices : 1);
	int i;

	if (m != &mem || !vslices)
		return atl_alloc_reg(eng, m, type, size,
				     m == &mem ? &mem_handle : NULL);
	/* -V: one allocation, K registrations */
	if (atl_alloc(m, type, size))
		return -1;
	for (i = 0; i < vslices; i++) {
		d = (struct adxl_mem_desc){
			(uintptr_t)m->addr + i * slice, slice
		};
		if (adxl_register_mem(eng, &d, type, &slice_handle[i])) {
			fprintf(stderr, "RegisterMem slice %d: %s\n", i,
				adxl_last_error());
			return -1;
		}
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Send our buffer's address and wait for the peer's (-a notify). */
static int exchange_addr(int *got)
{
	char msg[128];
	adxl_status_t st;
	int i;

	/* "ADDR NAME": an engine with several peers (adxl_fanin) tells by
	 * NAME which peer's buffer ADDR is; strtoull() stops at the space.
	 */
	snprintf(msg, sizeof(msg), "%lx %s", (unsigned long)(uintptr_t)mem.addr,
		 my_name);
	st = adxl_send_notify(eng, peer, "addr", 4, msg, strlen(msg), 30000);
	if (st) {
		FAIL("SendNotify addr: %s: %s", atl_status(st), adxl_last_error());
		return -1;
	}
	for (i = 0; !peer_addr && i < 120 * 100 && !stop; i++) {
		adxl_get_notifies(eng, on_notify, got);
		usleep(10000);
	}
	if (!peer_addr) {
		FAIL("no address from %s in 120 s", peer);
		return -1;
	}
	PASS("addresses exchanged with %s by notify (its buffer at 0x%lx)",
	     peer, (unsigned long)peer_addr);
	return 0;
}

static void run_tests(const char *batches, const char *kind)
{
	char *list = strdup(batches), *tok, *save = NULL;
	uint64_t last = seed * 7 + 0xf1;
	struct adxl_transfer_desc d = { (uintptr_t)src.addr, peer_addr, size };
	adxl_status_t st;
	char msg[32];

	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		test_batch(strtoul(tok, NULL, 0), kind);
	free(list);
	test_async(kind);

	/* The last word: a pattern of our own, checked by the peer. */
	atl_fill(src.addr, size, last, 0);
	if (!xfer(ADXL_WRITE, &d, 1, "final write")) {
		snprintf(msg, sizeof(msg), "%llx", (unsigned long long)last);
		st = adxl_send_notify(eng, peer, "done", 4, msg, strlen(msg),
				      10000);
		if (st)
			FAIL("SendNotify: %s", atl_status(st));
	}
}

/*
 * -L: READ until a transfer fails, and say how it failed and how long the
 * failing call took (a lost host must not hang it past its timeout).
 * Notifies are read on the way, so "peer looping" shows when both ends
 * loop (each serving the other's reads while reading).
 */
static void loop_until_failure(void)
{
	struct adxl_transfer_desc *d = calloc(256, sizeof(*d));
	unsigned long n = 0;
	adxl_status_t st;
	int ignored = 0;
	double t0;

	make_descs(d, 256, (uintptr_t)scratch.addr);
	for (;;) {
		size_t i;

		memset(scratch.addr, 0, size);
		t0 = now_s();
		st = adxl_transfer_sync(eng, peer, ADXL_READ, d, 256,
					xfer_timeout);
		if (st)
			break;
		/*
		 * What a READ that succeeded returns is the peer's pattern,
		 * every time: never stale or foreign bytes, also in the
		 * last one before the peer deregistered (-D).
		 */
		for (i = 0; i < 256; i++) {
			long long at = atl_check((uint8_t *)d[i].local_addr,
						 d[i].len, peer_seed,
						 d[i].remote_addr - peer_addr);

			if (at >= 0) {
				FAIL("loop read %lu: descriptor %zu byte %lld is not the peer's",
				     n, i, at);
				free(d);
				return;
			}
		}
		if (n++ == 0) {
			printf("looping\n");
			adxl_send_notify(eng, peer, "loop", 4, "", 0, 10000);
		}
		adxl_get_notifies(eng, on_notify, &ignored);
	}
	printf("error %s: %s\n", atl_status(st), adxl_last_error());
	printf("stopped after %lu transfers; the failing call took %.0f ms (timeout %d ms)\n",
	       n, (now_s() - t0) * 1000, xfer_timeout);
	free(d);
}

/*
 * Whether status @st (with adxl_last_error()) says the range is gone: the
 * peer's NIC refused it (FAILED, "deregistered"), or a renewed table no
 * longer holds it (PARAM_INVALID, "not in memory").
 */
static bool says_gone(adxl_status_t st)
{
	return (st == ADXL_FAILED && strstr(adxl_last_error(), "deregistered")) ||
	       (st == ADXL_PARAM_INVALID &&
		strstr(adxl_last_error(), "not in memory"));
}

/* Whether the slice of @d is found gone: its READ says so. */
static bool gone_now(const struct adxl_transfer_desc *d)
{
	return says_gone(adxl_transfer_sync(eng, peer, ADXL_READ, d, 1,
					    xfer_timeout));
}

/*
 * -L -V K: READ each of the peer's K slices in turn, on one Connect, until
 * the peer says it deregistered K-1 of them.  A slice's first failing read
 * must say it is gone (FAILED, "deregistered"; or, once another renewal
 * fetched the peer's table, refused here as not registered); any other
 * failure ends the loop.  The slice left must read right after the last
 * revocation, without a new Connect.
 */
static void loop_over_slices(void)
{
	size_t slice = size / vslices;
	bool gone[MAX_SLICES] = { false };
	unsigned long reads = 0, after = 0, raced = 0, timed_out = 0;
	int n_gone = 0, i, ignored = 0, last = vslices - 1;
	double end = now_s() + 120, loop_t0 = now_s();
	adxl_status_t st;

	while (!(vdone && n_gone == vslices - 1) && now_s() < end && !stop) {
		for (i = 0; i < vslices; i++) {
			struct adxl_transfer_desc d = {
				(uintptr_t)scratch.addr + i * slice,
				peer_addr + i * slice, slice
			};
			long long at;

			if (gone[i])
				continue;
			memset(scratch.addr + i * slice, 0, slice);
			st = adxl_transfer_sync(eng, peer, ADXL_READ, &d, 1,
						xfer_timeout);
			if (says_gone(st)) {
				gone[i] = true;
				n_gone++;
				printf("gone slice %d: %s: %s (%.3f s)\n", i,
				       atl_status(st), adxl_last_error(),
				       now_s() - loop_t0);
				continue;
			}
			/*
			 * 6.1's rxe sometimes loses a's refusal, and then
			 * answers nothing on the failed queue pair: our READ
			 * times out.  The next call renews the link and must
			 * then find the slice gone.
			 */
			if (st == ADXL_TIMEOUT && gone_now(&d)) {
				gone[i] = true;
				n_gone++;
				timed_out++;
				printf("timed out slice %d, then found it gone: %s (%.3f s)\n",
				       i, adxl_last_error(), now_s() - loop_t0);
				continue;
			}
			if (st) {
				printf("error %s: %s\n", atl_status(st),
				       adxl_last_error());
				FAIL("slice %d: READ failed otherwise after %d revocations",
				     i, n_gone);
				return;
			}
			at = atl_check(scratch.addr + i * slice, slice,
				       peer_seed, i * slice);
			/*
			 * A READ that raced the deregistration of its own
			 * slice: soft-RoCE on 6.1 may complete it with the
			 * tail never copied (its responder sends what it
			 * could not read from the MR it was losing).  Such a
			 * READ is told by its slice being gone at once; on a
			 * slice still there, other bytes are a failure.
			 */
			if (at >= 0 && gone_now(&d)) {
				gone[i] = true;
				n_gone++;
				raced++;
				printf("raced slice %d: its READ succeeded with byte %lld on not the peer's, and the slice was deregistered (%.3f s)\n",
				       i, at, now_s() - loop_t0);
				continue;
			}
			if (at >= 0) {
				const uint8_t *b = (uint8_t *)scratch.addr +
						   i * slice;
				size_t j, bad = 0, zero = 0;

				for (j = at; j < slice; j++)
					if (b[j] != atl_byte(peer_seed,
							     i * slice + j)) {
						bad++;
						zero += !b[j];
					}
				FAIL("slice %d (of %d gone): byte %lld is not the peer's (%zu bytes differ from there, %zu of them zero), %.3f s after the peer looped",
				     i, n_gone, at, bad, zero,
				     now_s() - loop_t0);
				return;
			}
			if (n_gone)
				after++;
			if (reads++ == 0) {
				printf("looping\n");
				adxl_send_notify(eng, peer, "loop", 4, "", 0,
						 10000);
			}
		}
		adxl_get_notifies(eng, on_notify, &ignored);
	}
	if (n_gone != vslices - 1 || !vdone) {
		FAIL("%d of %d slices found gone in 120 s (the peer %s)",
		     n_gone, vslices - 1,
		     vdone ? "said it deregistered them" : "never said done");
		return;
	}
	/* the slice never deregistered, on the same Connect, ten times */
	for (i = 0; i < 10; i++) {
		struct adxl_transfer_desc d = {
			(uintptr_t)scratch.addr, peer_addr + last * slice, slice
		};

		memset(scratch.addr, 0, slice);
		st = adxl_transfer_sync(eng, peer, ADXL_READ, &d, 1,
					xfer_timeout);
		if (st || atl_check(scratch.addr, slice, peer_seed,
				    last * slice) >= 0) {
			FAIL("the slice left, after %d revocations: %s: %s",
			     n_gone, atl_status(st),
			     st ? adxl_last_error() : "bytes differ");
			return;
		}
		after++;
	}
	PASS("%d revocations on one Connect: each slice's READ failed once it was gone, and %lu READs of the others succeeded after them, byte for byte (%lu in all; %lu raced their slice's deregistration, %lu timed out before the next call found it gone)",
	     n_gone, after, reads, raced, timed_out);
}

/* -n -D -V: deregister K-1 slices, 300 ms apart; then tell the peer. */
static void revoke_slices(int *next, double start)
{
	adxl_status_t st;

	if (*next >= vslices - 1 || now_s() < start + *next * 0.3)
		return;
	st = adxl_deregister_mem(eng, slice_handle[*next]);
	if (st)
		FAIL("DeregisterMem slice %d: %s", *next, atl_status(st));
	else
		printf("deregistered slice %d while the peer reads (%.3f s after it looped)\n",
		       *next, now_s() - peer_looping_at);
	if (++*next == vslices - 1) {
		st = adxl_send_notify(eng, peer, "vdone", 5, "", 0, 10000);
		if (st)
			FAIL("SendNotify vdone: %s", atl_status(st));
	}
}

/* -R: the peer's host is back: Connect until it answers. */
static int reconnect(int secs)
{
	double end = now_s() + secs;
	adxl_status_t st;

	do {
		st = adxl_connect(eng, peer, 5000);
		if (!st)
			break;
		usleep(200000);
	} while (now_s() < end && !stop);
	if (st) {
		FAIL("Connect again to %s within %d s: %s: %s", peer, secs,
		     atl_status(st), adxl_last_error());
		return -1;
	}
	PASS("connected to %s again", peer);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = NULL, *batches = "1,16,256,4096", *gofile = NULL;
	enum adxl_mem_type type = ADXL_MEM_HOST;
	const char *kind = "host", *peer_addr_arg = NULL, *transport = NULL;
	int opt, wait_n = 0, got = 0, loop = 0, waited, again = 0;
	int connect_timeout = 10000, serve_only = 0, refusal = 0, dereg_ms = -1;
	int next_slice = 0;
	struct sigaction sa = { .sa_handler = on_term };
	adxl_status_t st;

	while ((opt = getopt(argc, argv, "l:k:s:S:c:a:P:b:Lg:w:T:t:C:R:nrD:V:")) != -1) {
		switch (opt) {
		case 'l': name = optarg; break;
		case 'k':
			kind = optarg;
			if (atl_parse_type(optarg, &type))
				return 2;
			break;
		case 's': size = strtoull(optarg, NULL, 0); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'c': peer = optarg; break;
		case 'a': peer_addr_arg = optarg; break;
		case 'P': peer_seed = strtoull(optarg, NULL, 0); break;
		case 'b': batches = optarg; break;
		case 'L': loop = 1; break;
		case 'g': gofile = optarg; break;
		case 'w': wait_n = atoi(optarg); break;
		case 'T': transport = optarg; break;
		case 't': xfer_timeout = atoi(optarg); break;
		case 'C': connect_timeout = atoi(optarg); break;
		case 'R': again = atoi(optarg); break;
		case 'n': serve_only = 1; break;
		case 'r': refusal = 1; break;
		case 'D': dereg_ms = atoi(optarg); break;
		case 'V':
			vslices = atoi(optarg);
			if (vslices < 2 || vslices > MAX_SLICES)
				return 2;
			break;
		default: return 2;
		}
	}
	if (!name)
		return 2;
	my_name = name;
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	eng = atl_engine(name, transport);
	if (!eng)
		return 1;
	if (reg(&mem, type) || reg(&scratch, type) || reg(&src, type))
		return 1;
	atl_fill(mem.addr, size, seed, 0);
	printf("ready 0x%lx\n", (unsigned long)(uintptr_t)mem.addr);

	while (gofile && access(gofile, F_OK) && !stop)
		usleep(10000);

	if (peer && peer_addr_arg && read_addr(peer_addr_arg))
		return 1;
	if (peer && refusal) {
		st = adxl_connect(eng, peer, connect_timeout);
		if (st == ADXL_FAILED && strstr(adxl_last_error(), "refused"))
			PASS("%s refused us: %s", peer, adxl_last_error());
		else
			FAIL("Connect %s: %s (%s), expected a refusal", peer,
			     atl_status(st), adxl_last_error());
		adxl_engine_destroy(eng);
		return failures ? 1 : 0;
	}
	if (peer) {
		st = adxl_connect(eng, peer, connect_timeout);
		if (st) {
			FAIL("Connect %s: %s: %s", peer, atl_status(st),
			     adxl_last_error());
			return 1;
		}
		PASS("connected to %s", peer);
		if (addr_by_notify && exchange_addr(&got))
			return 1;
	}
	if (peer && loop && vslices) {
		loop_over_slices();
		/* the peer serves until we are done, whatever the outcome */
		adxl_send_notify(eng, peer, "vend", 4, "", 0, 10000);
		adxl_engine_destroy(eng);
		printf("done %d failures\n", failures);
		return failures ? 1 : 0;
	}
	if (peer && loop) {
		loop_until_failure();
		if (!again)
			return 3;
		peer_addr = 0;
		if (reconnect(again) || (addr_by_notify && exchange_addr(&got)))
			return 1;
	}
	if (peer && !serve_only)
		run_tests(batches, kind);
	/*
	 * Serve until told, or until the expected peers said done (a peer
	 * that failed never will: give up after a while).
	 */
	for (waited = 0; !stop && (wait_n == 0 ? !peer || serve_only :
				  got < wait_n); waited++) {
		adxl_get_notifies(eng, on_notify, &got);
		if (dereg_ms >= 0 && vslices && peer_looping_at)
			revoke_slices(&next_slice,
				      peer_looping_at + dereg_ms / 1000.0);
		else if (dereg_ms >= 0 && peer_looping_at &&
		    now_s() - peer_looping_at >= dereg_ms / 1000.0) {
			st = adxl_deregister_mem(eng, mem_handle);
			if (st)
				FAIL("DeregisterMem while the peer reads: %s",
				     atl_status(st));
			else
				printf("deregistered while the peer reads\n");
			dereg_ms = -1;
		}
		if (wait_n && waited == 120 * 200) {
			FAIL("only %d of %d peers said done in 120 s", got, wait_n);
			break;
		}
		usleep(5000);
	}
	adxl_engine_destroy(eng);
	atl_free(&mem);
	atl_free(&scratch);
	atl_free(&src);
	printf("done %d failures\n", failures);
	return failures ? 1 : 0;
}
