// SPDX-License-Identifier: GPL-2.0
/*
 * pair_bench - ADXL across two hosts (UCX, and with -R RDMA) against a
 * plain TCP stream of the same bytes between the same two hosts, 4 KiB
 * to 64 MiB.
 *
 *   server:  pair_bench -s ADDR          (e.g. 10.9.0.1, in VM a)
 *   client:  pair_bench -c SERVER -l ADDR [-R] [-J] [-r REPS] [-q]  (VM b)
 *
 * Both register a 64 MiB host buffer with an ADXL engine on ADDR:29300.
 * The server also listens on TCP port 29301; the client connects there
 * first and learns the server's buffer address, then Connects its engine
 * (Transport=auto: another kernel, so UCX).  For each size S the client
 * measures, alternating so both see the same conditions:
 *   ucx read    TransferSync READ of S bytes from the server's buffer
 *   tcp read    ask for S bytes on the TCP connection, receive them
 *   ucx write   TransferSync WRITE of S bytes into the server's buffer
 *   tcp write   send S bytes, wait for the server's one-byte ack
 * With -R (both hosts have an RDMA device) the client has a second
 * engine, on ADDR:29302 with Transport=rdma, and the first one gets
 * Transport=ucx; the server's engine (Transport=auto) serves both:
 *   rdma read   TransferSync READ over RDMA (the NIC reads, one-sided)
 *   rdma write  TransferSync WRITE over RDMA
 * Each TCP transfer is one request and its answer, like an ADXL call.
 * The first transfer of every size is checked byte for byte (a write by
 * reading it back over the other path).  One
 * repetition moves at least 8 MiB (one transfer from 8 MiB up); MB/s per
 * repetition are printed, and with -J as BENCH lines (bench_json.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <adxl/adxl.h>

#include "bench_json.h"

#define BUF		(64UL << 20)
#define ENGINE_PORT	29300
#define TCP_PORT	29301
#define REP_BYTES	(8UL << 20)
#define MAX_REPS	16
#define TIMEOUT_MS	120000

/* TCP requests: the size, with the top bit for a write; 0 ends. */
#define REQ_WRITE	(1ULL << 63)

static int json;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "pair_bench: %s: %s\n", what,
		errno ? strerror(errno) : adxl_last_error());
	exit(1);
}

static uint8_t pattern(size_t i, unsigned int seed)
{
	return (uint8_t)(i * 131 + (i >> 12) * 7 + seed);
}

static void fill(uint8_t *p, size_t len, unsigned int seed);

static uint8_t *buffer(unsigned int seed)
{
	uint8_t *p = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	fill(p, BUF, seed);
	return p;
}

/* An engine on ADDR:PORT with BUF registered; @transport NULL: auto. */
static adxl_engine_t *engine(const char *addr, int port, uint8_t *buf,
			     const char *transport)
{
	struct adxl_mem_desc d = { (uintptr_t)buf, BUF };
	struct adxl_option o = { "Transport", transport };
	adxl_mem_handle_t h;
	adxl_engine_t *e;
	char name[64];

	snprintf(name, sizeof(name), "%s:%d", addr, port);
	errno = 0;
	if (adxl_engine_create(&e) ||
	    adxl_initialize(e, name, &o, transport ? 1 : 0) ||
	    adxl_register_mem(e, &d, ADXL_MEM_HOST, &h))
		die("ADXL engine");
	return e;
}

static int full_io(int fd, void *p, size_t len, int out)
{
	uint8_t *c = p;

	while (len) {
		ssize_t n = out ? write(fd, c, len) : read(fd, c, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static void nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* ---- server ---- */

static int serve(const char *addr)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(TCP_PORT) };
	uint8_t *buf = buffer(1);
	adxl_engine_t *e = engine(addr, ENGINE_PORT, buf, NULL);
	uint64_t req, where = (uintptr_t)buf;
	int one = 1, lfd, fd;
	uint8_t ack = 1;

	inet_pton(AF_INET, addr, &sa.sin_addr);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, 1))
		die("TCP listen");
	printf("serving on %s (engine port %d, TCP port %d)\n", addr,
	       ENGINE_PORT, TCP_PORT);
	fflush(stdout);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		die("accept");
	nodelay(fd);
	if (full_io(fd, &where, sizeof(where), 1))
		die("send the address");
	/* The engine serves the client's UCX transfers meanwhile. */
	while (!full_io(fd, &req, sizeof(req), 0) && req) {
		size_t len = req & ~REQ_WRITE;

		if (len > BUF)
			break;
		if (req & REQ_WRITE) {
			if (full_io(fd, buf, len, 0) || full_io(fd, &ack, 1, 1))
				break;
		} else if (full_io(fd, buf, len, 1)) {
			break;
		}
	}
	close(fd);
	close(lfd);
	adxl_engine_destroy(e);
	printf("done\n");
	return 0;
}

/* ---- client ---- */

struct client {
	adxl_engine_t *e;
	adxl_engine_t *re;		/* -R: Transport=rdma, else NULL */
	char peer[64];
	uint8_t *buf;
	uint64_t raddr;
	int fd;
};

enum path {
	UCX_READ, TCP_READ, UCX_WRITE, TCP_WRITE, RDMA_READ, RDMA_WRITE, PATHS
};
static const char *const path_name[PATHS] = {
	"ucx read", "tcp read", "ucx write", "tcp write", "rdma read",
	"rdma write",
};

static void one(struct client *c, enum path p, size_t len)
{
	struct adxl_transfer_desc d = { (uintptr_t)c->buf, c->raddr, len };
	uint64_t req = len;
	uint8_t ack;
	adxl_status_t st;

	switch (p) {
	case UCX_READ:
	case UCX_WRITE:
	case RDMA_READ:
	case RDMA_WRITE:
		st = adxl_transfer_sync(p >= RDMA_READ ? c->re : c->e, c->peer,
					p == UCX_READ || p == RDMA_READ ?
						ADXL_READ : ADXL_WRITE,
					&d, 1, TIMEOUT_MS);
		if (st) {
			errno = 0;
			die("TransferSync");
		}
		break;
	case TCP_READ:
		if (full_io(c->fd, &req, sizeof(req), 1) ||
		    full_io(c->fd, c->buf, len, 0))
			die("TCP read");
		break;
	case TCP_WRITE:
		req |= REQ_WRITE;
		if (full_io(c->fd, &req, sizeof(req), 1) ||
		    full_io(c->fd, c->buf, len, 1) ||
		    full_io(c->fd, &ack, 1, 0))
			die("TCP write");
		break;
	default:
		break;
	}
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(i, seed);
}

static void expect(const struct client *c, enum path p, size_t len,
		   unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (c->buf[i] != pattern(i, seed)) {
			fprintf(stderr, "pair_bench: %s of %zu bytes: byte %zu is %u, not %u\n",
				path_name[p], len, i, c->buf[i],
				pattern(i, seed));
			exit(1);
		}
	}
}

/*
 * The first transfer of a size, checked: a read must bring the server's
 * pattern (seed 1); a write of another pattern is read back by the other
 * path, then the server's pattern is put back the same way.
 */
static void checked(struct client *c, enum path p, size_t len)
{
	enum path back = p == TCP_WRITE ? UCX_READ : TCP_READ;
	enum path restore = p == TCP_WRITE ? UCX_WRITE : TCP_WRITE;

	if (p == UCX_READ || p == TCP_READ || p == RDMA_READ) {
		memset(c->buf, 0, len);
		one(c, p, len);
		expect(c, p, len, 1);
		return;
	}
	fill(c->buf, len, 3 + p);
	one(c, p, len);
	memset(c->buf, 0, len);
	one(c, back, len);
	expect(c, p, len, 3 + p);
	fill(c->buf, len, 1);
	one(c, restore, len);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int client(const char *server, const char *addr, int reps, int quick,
		  int rdma)
{
	static const size_t sizes[] = {
		4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20,
		64 << 20,
	};
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(TCP_PORT) };
	double mbs[PATHS][MAX_REPS], med[PATHS];
	struct client c = { .buf = buffer(2) };
	unsigned int s, n_sizes = quick ? 6 : 8;
	int tries, r, p, paths = rdma ? PATHS : RDMA_READ;
	struct bj j;

	/* with RDMA beside it, auto would pick RDMA: name each path */
	c.e = engine(addr, ENGINE_PORT, c.buf, rdma ? "ucx" : NULL);
	if (rdma)
		c.re = engine(addr, ENGINE_PORT + 2, c.buf, "rdma");
	snprintf(c.peer, sizeof(c.peer), "%s:%d", server, ENGINE_PORT);
	inet_pton(AF_INET, server, &sa.sin_addr);
	for (tries = 0;; tries++) {
		c.fd = socket(AF_INET, SOCK_STREAM, 0);
		if (!connect(c.fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(c.fd);
		if (tries == 600)
			die("TCP connect");
		usleep(200000);
	}
	nodelay(c.fd);
	if (full_io(c.fd, &c.raddr, sizeof(c.raddr), 0))
		die("receive the address");
	if (adxl_connect(c.e, c.peer, 60000) ||
	    (c.re && adxl_connect(c.re, c.peer, 60000))) {
		errno = 0;
		die("Connect");
	}
	printf("%-10s", "size");
	for (p = 0; p < paths; p++)
		printf(" %10s", path_name[p]);
	printf("   %s read, write (MB/s, medians of %d)\n",
	       rdma ? "ucx/tcp, rdma/tcp, rdma/ucx" : "ucx/tcp", reps);
	for (s = 0; s < n_sizes; s++) {
		size_t len = sizes[s];
		size_t n = len >= REP_BYTES ? 1 : REP_BYTES / len;

		for (p = 0; p < paths; p++)
			checked(&c, p, len);
		for (r = 0; r < reps; r++) {
			for (p = 0; p < paths; p++) {
				double t0 = now_s();
				size_t i;

				for (i = 0; i < n; i++)
					one(&c, p, len);
				mbs[p][r] = len * n / (now_s() - t0) / 1e6;
			}
		}
		for (p = 0; p < paths; p++) {
			double sorted[MAX_REPS];

			memcpy(sorted, mbs[p], reps * sizeof(double));
			qsort(sorted, reps, sizeof(double), cmp_double);
			med[p] = sorted[reps / 2];
		}
		printf("%-10zu", len);
		for (p = 0; p < paths; p++)
			printf(" %10.1f", med[p]);
		printf("   %.2f %.2f", med[UCX_READ] / med[TCP_READ],
		       med[UCX_WRITE] / med[TCP_WRITE]);
		if (rdma)
			printf(", %.2f %.2f, %.2f %.2f",
			       med[RDMA_READ] / med[TCP_READ],
			       med[RDMA_WRITE] / med[TCP_WRITE],
			       med[RDMA_READ] / med[UCX_READ],
			       med[RDMA_WRITE] / med[UCX_WRITE]);
		printf("\n");
		if (!json)
			continue;
		for (p = 0; p < paths; p++) {
			bj_begin(&j, "pair");
			bj_str(&j, "path", path_name[p]);
			bj_u64(&j, "bytes", len);
			bj_u64(&j, "per_rep", n);
			bj_samples(&j, "mbs", mbs[p], reps);
			bj_end(&j);
		}
	}
	{
		uint64_t end = 0;

		full_io(c.fd, &end, sizeof(end), 1);
	}
	close(c.fd);
	adxl_engine_destroy(c.e);
	adxl_engine_destroy(c.re);
	return 0;
}

int main(int argc, char **argv)
{
	const char *server = NULL, *listen_addr = NULL, *local = NULL;
	int opt, reps = 3, quick = 0, rdma = 0;

	while ((opt = getopt(argc, argv, "s:c:l:r:JqR")) != -1) {
		switch (opt) {
		case 's': listen_addr = optarg; break;
		case 'c': server = optarg; break;
		case 'l': local = optarg; break;
		case 'r': reps = atoi(optarg); break;
		case 'J': json = 1; break;
		case 'q': quick = 1; break;
		case 'R': rdma = 1; break;
		default: goto usage;
		}
	}
	if (reps < 1 || reps > MAX_REPS)
		goto usage;
	if (listen_addr)
		return serve(listen_addr);
	if (server && local)
		return client(server, local, reps, quick, rdma);
usage:
	fprintf(stderr, "usage: pair_bench -s ADDR | -c SERVER -l ADDR [-R] [-J] [-r REPS] [-q]\n");
	return 2;
}
