// SPDX-License-Identifier: GPL-2.0
/*
 * listfmt_bench - what `memreg region` costs per row in the tool itself:
 * decoding a message and formatting it, with no kernel and no socket.
 *
 *   listfmt_bench [-J] [-n ROWS] [-r RUNS] [-O PREFIX]
 *
 * ROWS (default 100000) REGION_GET messages are built by hand once, with
 * every attribute in the order and padding the kernel uses (32 processes,
 * one in 8 a device registration, one in 5 another user's with no
 * HANDLE/ADDR), and packed into datagrams of at most 32 KiB, as the
 * kernel fills them for a reader with a large receive buffer.  Each run
 * copies one datagram at a time into a receive buffer (what recvmsg does:
 * the tool reads messages hot from the cache, not 16 MB from memory) and
 * feeds its messages through region_print_row() into /dev/null, as JSON
 * and as the table; the median of RUNS (default 7) is printed as ns per
 * row, the copy included.
 * -O PREFIX writes each output once to PREFIX.json and PREFIX.txt, to
 * compare two builds byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "bench_json.h"
#include "tool.h"

#define MAX_RUNS	64
#define DGRAM		32768

static char *msgs;		/* the datagrams, end to end */
static size_t msgs_len;
static size_t *dgram_end;	/* where each datagram ends in msgs */
static size_t n_dgrams;
static char rbuf[DGRAM];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void put_u64(struct nl_msg *m, int type, uint64_t v)
{
	/* nla_put_u64_64bit(): a PAD first when the payload is misaligned */
	if ((nlmsg_hdr(m)->nlmsg_len + NLA_HDRLEN) % 8)
		nla_put(m, MEMREG_A_PAD, 0, NULL);
	nla_put_u64(m, type, v);
}

static void build(unsigned long rows)
{
	size_t cap = rows * 256, len, start = 0;
	struct nl_msg *m;
	unsigned long i;
	char comm[16];

	msgs = malloc(cap);
	dgram_end = calloc(rows, sizeof(*dgram_end));
	if (!msgs || !dgram_end) {
		perror("malloc");
		exit(1);
	}
	for (i = 0; i < rows; i++) {
		unsigned int proc = i % 32;
		bool dev = i % 8 == 7, hidden = i % 5 == 4;

		m = nlmsg_alloc();
		genlmsg_put(m, 0, 1, 0x20, 0, NLM_F_MULTI,
			    MEMREG_CMD_REGION_GET, MEMREG_GENL_VERSION);
		snprintf(comm, sizeof(comm), "holder-%u", proc);
		nla_put_u32(m, MEMREG_A_PID, 1000 + proc);
		nla_put_string(m, MEMREG_A_COMM, comm);
		nla_put_u32(m, MEMREG_A_UID, hidden ? 1001 : 0);
		nla_put_u32(m, MEMREG_A_ID, i + 1);
		nla_put_u32(m, MEMREG_A_TYPE,
			    dev ? MEMREG_MEM_DEVICE : MEMREG_MEM_HOST);
		nla_put_u32(m, MEMREG_A_ACCESS, i % 4);
		put_u64(m, MEMREG_A_LEN, 4096ULL << (i % 19));
		put_u64(m, MEMREG_A_PINNED_PAGES, 1ULL << (i % 19));
		put_u64(m, MEMREG_A_AGE_MS, i * 977 % 200000000);
		if (dev)
			nla_put_u32(m, MEMREG_A_DEVICE, i % 4);
		nla_put_u32(m, MEMREG_A_GRANTS, i % 3);
		nla_put_u32(m, MEMREG_A_IMPORTS, i % 2);
		if (!hidden) {
			put_u64(m, MEMREG_A_HANDLE, 0x5eed000000000000ULL ^
				(i * 0x9e3779b97f4a7c15ULL));
			put_u64(m, MEMREG_A_ADDR, 0x7f3a12400000ULL + i * 4096);
		}
		len = NLMSG_ALIGN(nlmsg_hdr(m)->nlmsg_len);
		/* a message that does not fit starts the next datagram */
		if (!n_dgrams || msgs_len + len - start > DGRAM) {
			start = msgs_len;
			n_dgrams++;
		}
		memcpy(msgs + msgs_len, nlmsg_hdr(m), len);
		msgs_len += len;
		nlmsg_free(m);
		dgram_end[n_dgrams - 1] = msgs_len;
	}
}

/* One listing of every message to @f; ns per row. */
static double run(FILE *f, bool json, unsigned long rows)
{
	struct nlmsghdr *nlh;
	size_t off, start = 0, d;
	struct out o;
	double t0;

	t0 = now_ns();
	out_init(&o, f, json, false);
	region_table_begin(&o);
	for (d = 0; d < n_dgrams; start = dgram_end[d++]) {
		memcpy(rbuf, msgs + start, dgram_end[d] - start);
		for (off = 0; off < dgram_end[d] - start;
		     off += NLMSG_ALIGN(nlh->nlmsg_len)) {
			nlh = (struct nlmsghdr *)(rbuf + off);
			if (region_print_row(&o, nlh)) {
				fprintf(stderr, "listfmt_bench: bad message\n");
				exit(1);
			}
		}
	}
	out_table_end(&o);
	fflush(f);
	return (now_ns() - t0) / rows;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned long rows = 100000;
	unsigned int runs = 7, r, mode;
	const char *prefix = NULL;
	double ns[MAX_RUNS], s[MAX_RUNS];
	bool json = false;
	char path[4096];
	struct bj j;
	FILE *f;
	int opt;

	while ((opt = getopt(argc, argv, "Jn:r:O:")) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'n':
			rows = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 'O':
			prefix = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-J] [-n ROWS] [-r RUNS] [-O PREFIX]\n",
				argv[0]);
			return 2;
		}
	}
	if (!rows || !runs || runs > MAX_RUNS)
		return 2;
	build(rows);
	printf("# %lu rows, %zu bytes of messages in %zu datagrams\n",
	       rows, msgs_len, n_dgrams);
	printf("# median of %u runs to /dev/null\n", runs);
	for (mode = 0; mode < 2; mode++) {
		const char *name = mode ? "table" : "json";

		if (prefix) {
			snprintf(path, sizeof(path), "%s.%s", prefix,
				 mode ? "txt" : "json");
			f = fopen(path, "w");
			if (!f) {
				perror(path);
				return 1;
			}
			run(f, !mode, rows);
			fclose(f);
		}
		f = fopen("/dev/null", "w");
		if (!f)
			return 1;
		for (r = 0; r < runs; r++)
			ns[r] = run(f, !mode, rows);
		fclose(f);
		memcpy(s, ns, runs * sizeof(*ns));
		qsort(s, runs, sizeof(*s), cmp_double);
		printf("%-5s %8.1f ns/row (min %.1f, max %.1f)\n", name,
		       s[runs / 2], s[0], s[runs - 1]);
		if (json) {
			bj_begin(&j, "listfmt");
			bj_str(&j, "case", name);
			bj_u64(&j, "rows", rows);
			bj_samples(&j, "ns_per_row", ns, runs);
			bj_end(&j);
		}
	}
	return 0;
}
