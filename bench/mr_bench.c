// SPDX-License-Identifier: GPL-2.0
/*
 * mr_bench - `memreg -j region` against `rdma -j res show mr` over the
 * same number of objects, in one boot (issue 32: a listing as cheap as
 * the kernel's own, RDMA's restrack and nldev).
 *
 *   mr_bench [-J] [-n ROWS] [-p PROCS] [-r RUNS] [-d DEV] [-t TOOL]
 *	      [-R RDMA]
 *
 * The program opens the rxe (or any verbs) device DEV (default: the
 * first) and registers ROWS memory regions of 4 KiB (default 100000,
 * fewer if the device's max_mr is smaller: it says so), one page each,
 * and holds them; PROCS processes (default 32) hold ROWS memreg
 * registrations between them, one page each, as nl_bench does (the
 * per-process limit must be raised first: `memreg limits set regions
 * 4096`).  Then, RUNS times each (default 5), taking turns:
 *
 *   rdma	`RDMA -j res show mr` (iproute2), output to /dev/null
 *   memreg	`TOOL -j region`, output to /dev/null
 *   rdma_raw	the same dump (RDMA_NLDEV_CMD_RES_MR_GET) read by a
 *		minimal reader in this process: recvmsg into the buffer
 *		size the tool uses (libmnl's: 4 KiB), rows counted, nothing
 *		printed.  Its system time is the kernel's cost of the dump.
 *   memreg_raw	REGION_GET read the same way, with the tool's 64 KiB
 *		buffer (the kernel then builds 32 KiB datagrams)
 *
 * and, before anything is registered, each tool with nothing to list
 * (its fixed cost).  The user and system CPU time of the tools come
 * from wait4, the readers' from getrusage around the dump.  Per row:
 * (wall - empty wall) / rows; the tool's share is its user time, the
 * kernel's the system time.  Minor page faults are counted too: under
 * TCG a new page costs its clearing by `rep stosb`, so the memory a tool
 * keeps shows in its system time.
 *
 * Prints figures, never judges them; -J adds "BENCH {...}" lines
 * (bench_json.h) with every run.  Run it as root (CAP_NET_ADMIN shows
 * rdma's keys, as the listing of memreg shows addresses to the owner).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <infiniband/verbs.h>

#include <linux/memreg.h>
#include <memreg/memreg.h>

#include "bench_json.h"
#include "bench_holders.h"

#define MAX_PROCS	BH_MAX_PROCS
#define MAX_RUNS	BH_MAX_RUNS
#define PAGE		BH_PAGE
#define RDMA_OUT	"/tmp/mr_bench.rdma.json"
#define MEMREG_OUT	"/tmp/mr_bench.memreg.json"

/*
 * What each tool's recvmsg buffer is, which sizes the kernel's dump
 * pieces: rdma's is libmnl's MNL_SOCKET_BUFFER_SIZE, the page size up to
 * 8 KiB in libmnl 1.0.4 (Debian 12: 4 KiB pieces); the memreg tool's is
 * 64 KiB (32 KiB pieces, the kernel's most).
 */
#define RDMA_RECVBUF	(sysconf(_SC_PAGESIZE) < 8192 ? \
			 (size_t)sysconf(_SC_PAGESIZE) : 8192)
#define MEMREG_RECVBUF	(64 << 10)

static bool json;
static unsigned int procs = 32, runs = 5;
static unsigned long total = 100000;
static const char *tool = "memreg", *rdma = "rdma", *devname;
static struct bh_holders holders = { .prog = "mr_bench" };

/* ---- the verbs side: ROWS MRs of one page each ---- */

static struct ibv_context *vctx;
static struct ibv_pd *pd;
static struct ibv_mr **mrs;
static unsigned long nr_mrs;
static char ibname[64];

static int open_verbs(unsigned long *max_mr)
{
	struct ibv_device **list;
	struct ibv_device_attr attr;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list || !n) {
		fprintf(stderr, "mr_bench: no verbs device\n");
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!devname || !strcmp(ibv_get_device_name(list[i]), devname))
			break;
	if (i == n) {
		fprintf(stderr, "mr_bench: no verbs device %s\n", devname);
		return -1;
	}
	snprintf(ibname, sizeof(ibname), "%s", ibv_get_device_name(list[i]));
	vctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!vctx || ibv_query_device(vctx, &attr)) {
		fprintf(stderr, "mr_bench: %s: %s\n", ibname, strerror(errno));
		return -1;
	}
	*max_mr = attr.max_mr;
	pd = ibv_alloc_pd(vctx);
	if (!pd) {
		fprintf(stderr, "mr_bench: ibv_alloc_pd: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int register_mrs(unsigned long n)
{
	char *buf;
	unsigned long i;

	buf = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	mrs = calloc(n, sizeof(*mrs));
	if (buf == MAP_FAILED || !mrs)
		return -1;
	/*
	 * fork() copies pinned anonymous pages at once (they may not be
	 * shared copy-on-write): without this every tool started below
	 * would copy the whole buffer first, as ibv_fork_init() knows.
	 */
	if (madvise(buf, n * PAGE, MADV_DONTFORK)) {
		fprintf(stderr, "mr_bench: madvise: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		mrs[i] = ibv_reg_mr(pd, buf + i * PAGE, PAGE,
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_READ);
		if (!mrs[i]) {
			fprintf(stderr, "mr_bench: ibv_reg_mr %lu: %s\n", i,
				strerror(errno));
			return -1;
		}
		nr_mrs = i + 1;
	}
	return 0;
}

/* ---- minimal dump readers ---- */

struct raw {
	int fd;
	uint32_t seq;
	unsigned char *buf;
	size_t bufsz;
};

static int raw_open(struct raw *r, int proto, size_t bufsz)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -1;
	r->bufsz = bufsz;
	r->buf = malloc(bufsz);
	r->seq = 1;
	return r->buf ? 0 : -1;
}

static void put_attr(struct nlmsghdr *h, uint16_t type, const void *data,
		     uint16_t len)
{
	struct nlattr *a = (void *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/*
 * Sends @h and reads every answer until DONE or an error; @row is called
 * on each message (it returns how many rows it held).  Returns the rows,
 * or < 0.
 */
static long raw_exchange(struct raw *r, struct nlmsghdr *h,
			 long (*row)(const struct nlmsghdr *, void *),
			 void *arg, unsigned long *bytes)
{
	long rows = 0;
	ssize_t n;

	h->nlmsg_seq = ++r->seq;
	if (send(r->fd, h, h->nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		struct nlmsghdr *m;

		n = recv(r->fd, r->buf, r->bufsz, 0);
		if (n < 0)
			return -1;
		if (bytes)
			*bytes += n;
		for (m = (void *)r->buf; NLMSG_OK(m, n); m = NLMSG_NEXT(m, n)) {
			if (m->nlmsg_seq != r->seq)
				continue;
			if (m->nlmsg_type == NLMSG_DONE)
				return rows;
			if (m->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(m);

				if (!e->error)
					return rows;
				errno = -e->error;
				return -1;
			}
			rows += row(m, arg);
		}
	}
}

/* memreg: the family id, then one row per message */
static uint16_t memreg_family;

static long family_row(const struct nlmsghdr *m, void *arg)
{
	const struct nlattr *a = (void *)((char *)NLMSG_DATA(m) + GENL_HDRLEN);
	int len = m->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	(void)arg;
	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			memreg_family = *(uint16_t *)((char *)a + NLA_HDRLEN);
	return 0;
}

static long memreg_row(const struct nlmsghdr *m, void *arg)
{
	(void)arg;
	return m->nlmsg_type == memreg_family;
}

static long memreg_dump(struct raw *r, unsigned long *bytes)
{
	union {
		struct nlmsghdr h;
		char b[256];
	} u;
	struct genlmsghdr *g = NLMSG_DATA(&u.h);

	memset(&u, 0, sizeof(u));
	u.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (!memreg_family) {
		u.h.nlmsg_type = GENL_ID_CTRL;
		u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		g->cmd = CTRL_CMD_GETFAMILY;
		g->version = 1;
		put_attr(&u.h, CTRL_ATTR_FAMILY_NAME, MEMREG_GENL_NAME,
			 sizeof(MEMREG_GENL_NAME));
		if (raw_exchange(r, &u.h, family_row, NULL, NULL) < 0 ||
		    !memreg_family)
			return -1;
		memset(&u, 0, sizeof(u));
		u.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
		u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	}
	u.h.nlmsg_type = memreg_family;
	g->cmd = MEMREG_CMD_REGION_GET;
	g->version = MEMREG_GENL_VERSION;
	return raw_exchange(r, &u.h, memreg_row, NULL, bytes);
}

/* rdma: the device's index, then the MR table's entries */
static uint32_t rdma_index;
static bool rdma_found;

static const struct nlattr *nest_find(const void *p, int len, uint16_t type,
				      const struct nlattr **next, int *left)
{
	const struct nlattr *a = p;

	for (; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		if ((a->nla_type & NLA_TYPE_MASK) == type) {
			if (next) {
				*left = len - NLA_ALIGN(a->nla_len);
				*next = (void *)((char *)a +
						 NLA_ALIGN(a->nla_len));
			}
			return a;
		}
	}
	return NULL;
}

static long rdma_dev_row(const struct nlmsghdr *m, void *arg)
{
	const struct nlattr *name, *idx;
	int len = m->nlmsg_len - NLMSG_HDRLEN;

	(void)arg;
	name = nest_find(NLMSG_DATA(m), len, RDMA_NLDEV_ATTR_DEV_NAME, NULL,
			 NULL);
	idx = nest_find(NLMSG_DATA(m), len, RDMA_NLDEV_ATTR_DEV_INDEX, NULL,
			NULL);
	if (name && idx && !strcmp((char *)name + NLA_HDRLEN, ibname)) {
		rdma_index = *(uint32_t *)((char *)idx + NLA_HDRLEN);
		rdma_found = true;
	}
	return 0;
}

static long rdma_row(const struct nlmsghdr *m, void *arg)
{
	const struct nlattr *t, *e;
	int len = m->nlmsg_len - NLMSG_HDRLEN, left;
	long rows = 0;

	(void)arg;
	t = nest_find(NLMSG_DATA(m), len, RDMA_NLDEV_ATTR_RES_MR, NULL, NULL);
	if (!t)
		return 0;
	left = t->nla_len - NLA_HDRLEN;
	e = (void *)((char *)t + NLA_HDRLEN);
	while ((e = nest_find(e, left, RDMA_NLDEV_ATTR_RES_MR_ENTRY, &e,
			      &left)))
		rows++;
	return rows;
}

static long rdma_dump(struct raw *r, unsigned long *bytes)
{
	union {
		struct nlmsghdr h;
		char b[256];
	} u;

	memset(&u, 0, sizeof(u));
	u.h.nlmsg_len = NLMSG_LENGTH(0);
	u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (!rdma_found) {
		u.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						  RDMA_NLDEV_CMD_GET);
		if (raw_exchange(r, &u.h, rdma_dev_row, NULL, NULL) < 0 ||
		    !rdma_found)
			return -1;
		u.h.nlmsg_len = NLMSG_LENGTH(0);
	}
	u.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					  RDMA_NLDEV_CMD_RES_MR_GET);
	put_attr(&u.h, RDMA_NLDEV_ATTR_DEV_INDEX, &rdma_index,
		 sizeof(rdma_index));
	return raw_exchange(r, &u.h, rdma_row, NULL, bytes);
}

/* ---- timing ---- */

struct sample {
	double wall[MAX_RUNS], user[MAX_RUNS], sys[MAX_RUNS];
	double minflt[MAX_RUNS];	/* page faults: the memory it touched */
	unsigned long rows, bytes;
	unsigned int n;
	const char *name;
	bool failed;
};

static void tool_run(struct sample *s, char *const argv[])
{
	unsigned int k = s->n;

	if (s->failed || !bh_run_once(argv, "/dev/null", &s->wall[k],
				   &s->user[k], &s->sys[k], &s->minflt[k])) {
		if (!s->failed)
			fprintf(stderr, "mr_bench: %s failed\n", argv[0]);
		s->failed = true;
		return;
	}
	s->n++;
}

enum raw_kind { RAW_RDMA, RAW_MEMREG };

static void raw_run(struct sample *s, struct raw *r, enum raw_kind kind)
{
	struct rusage a, b;
	unsigned long bytes = 0;
	unsigned int k = s->n;
	double t0;
	long rows;

	if (s->failed)
		return;
	getrusage(RUSAGE_SELF, &a);
	t0 = bh_now_ns();
	rows = kind == RAW_RDMA ? rdma_dump(r, &bytes) :
	       memreg_dump(r, &bytes);
	s->wall[k] = bh_now_ns() - t0;
	getrusage(RUSAGE_SELF, &b);
	if (rows < 0) {
		fprintf(stderr, "mr_bench: %s: %s\n", s->name, strerror(errno));
		s->failed = true;
		return;
	}
	s->user[k] = bh_tv_ns(&b.ru_utime) - bh_tv_ns(&a.ru_utime);
	s->sys[k] = bh_tv_ns(&b.ru_stime) - bh_tv_ns(&a.ru_stime);
	s->minflt[k] = b.ru_minflt - a.ru_minflt;
	s->rows = rows;
	s->bytes = bytes;
	s->n++;
}

static void report(const struct sample *s, const struct sample *empty)
{
	double w = bh_median(s->wall, s->n), e = empty ? bh_median(empty->wall,
							     empty->n) : 0;
	struct bj j;

	if (!s->n)
		return;
	printf("%-15s %7lu rows: %9.1f ms wall (user %.1f, sys %.1f)",
	       s->name, s->rows, w / 1e6, bh_median(s->user, s->n) / 1e6,
	       bh_median(s->sys, s->n) / 1e6);
	if (s->rows)
		printf("; per row %.2f us (user %.2f, sys %.2f)",
		       (w - e) / 1e3 / s->rows,
		       (bh_median(s->user, s->n) -
			(empty ? bh_median(empty->user, empty->n) : 0)) / 1e3 /
		       s->rows,
		       (bh_median(s->sys, s->n) -
			(empty ? bh_median(empty->sys, empty->n) : 0)) / 1e3 /
		       s->rows);
	printf("; %.0f page faults\n", bh_median(s->minflt, s->n));
	if (json) {
		bj_begin(&j, "mr");
		bj_str(&j, "case", s->name);
		bj_u64(&j, "rows", s->rows);
		bj_u64(&j, "bytes", s->bytes);
		bj_samples(&j, "wall_ns", s->wall, s->n);
		bj_samples(&j, "user_ns", s->user, s->n);
		bj_samples(&j, "sys_ns", s->sys, s->n);
		bj_samples(&j, "minflt", s->minflt, s->n);
		bj_end(&j);
	}
}

/* Rows of one JSON listing: occurrences of @key; its size in *@bytes. */
static unsigned long count_rows(const char *path, const char *key,
				unsigned long *bytes)
{
	FILE *f = fopen(path, "r");
	unsigned long rows = 0;
	size_t k = 0;
	int c;

	*bytes = 0;
	if (!f)
		return 0;
	while ((c = getc(f)) != EOF) {
		(*bytes)++;
		k = c == key[k] ? k + 1 : c == key[0];
		if (!key[k]) {
			rows++;
			k = 0;
		}
	}
	fclose(f);
	return rows;
}

int main(int argc, char **argv)
{
	char *rdma_argv[] = { (char *)rdma, "-j", "res", "show", "mr", NULL };
	char *memreg_argv[] = { (char *)tool, "-j", "region", NULL };
	struct sample s_rdma0 = { .name = "rdma_empty" };
	struct sample s_memreg0 = { .name = "memreg_empty" };
	struct sample s_rdma = { .name = "rdma" };
	struct sample s_memreg = { .name = "memreg" };
	struct sample s_rdma_raw = { .name = "rdma_raw" };
	struct sample s_memreg_raw = { .name = "memreg_raw" };
	struct raw r_rdma, r_memreg;
	unsigned long max_mr;
	unsigned int k;
	double t0;
	struct bj j;
	int opt, ret = 1;

	while ((opt = getopt(argc, argv, "Jn:p:r:d:t:R:")) != -1) {
		switch (opt) {
		case 'J':
			json = true;
			break;
		case 'n':
			total = strtoul(optarg, NULL, 0);
			break;
		case 'p':
			procs = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			devname = optarg;
			break;
		case 't':
			tool = optarg;
			break;
		case 'R':
			rdma = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!procs || procs > MAX_PROCS || !runs || runs > MAX_RUNS || !total)
		goto usage;
	rdma_argv[0] = (char *)rdma;
	memreg_argv[0] = (char *)tool;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (open_verbs(&max_mr) ||
	    raw_open(&r_rdma, NETLINK_RDMA, RDMA_RECVBUF) ||
	    raw_open(&r_memreg, NETLINK_GENERIC, MEMREG_RECVBUF))
		return 1;
	printf("# %s: max_mr %lu\n", ibname, max_mr);
	if (total > max_mr) {
		printf("# note: %s holds at most %lu MRs: %lu rows each, not %lu\n",
		       ibname, max_mr, max_mr, total);
		total = max_mr;
	}
	for (k = 0; k < runs; k++) {
		tool_run(&s_rdma0, rdma_argv);
		tool_run(&s_memreg0, memreg_argv);
	}
	if (s_rdma0.failed || s_memreg0.failed)
		return 1;

	/* the holders first: they need not inherit the MRs' buffer at all */
	t0 = bh_now_ns();
	holders.procs = procs;
	if (bh_start_holders(&holders, total))
		goto out;
	printf("# %u processes registered %lu pages with memreg in %.0f ms\n",
	       procs, total, (bh_now_ns() - t0) / 1e6);
	t0 = bh_now_ns();
	if (register_mrs(total)) {
		/* rxe may give out before max_mr: compare at what it took */
		if (nr_mrs < 1000)
			goto out;
		printf("# note: only %lu MRs registered\n", nr_mrs);
		total = nr_mrs;
	}
	printf("# %lu MRs of 4 KiB on %s in %.0f ms\n", nr_mrs, ibname,
	       (bh_now_ns() - t0) / 1e6);
	if (json) {
		bj_begin(&j, "mr_setup");
		bj_str(&j, "device", ibname);
		bj_u64(&j, "max_mr", max_mr);
		bj_u64(&j, "rows", total);
		bj_u64(&j, "procs", procs);
		bj_end(&j);
	}

	/*
	 * What the listings hold, one file at a time: the VM's /tmp is
	 * small, and the two together (16 MB at 100,000 rows) overflowed it.
	 */
	if (!bh_run_once(rdma_argv, RDMA_OUT, &t0, &t0, &t0, NULL)) {
		fprintf(stderr, "mr_bench: %s failed\n", rdma);
		goto out;
	}
	s_rdma.rows = count_rows(RDMA_OUT, "\"mrn\":", &s_rdma.bytes);
	unlink(RDMA_OUT);
	if (!bh_run_once(memreg_argv, MEMREG_OUT, &t0, &t0, &t0, NULL)) {
		fprintf(stderr, "mr_bench: %s failed\n", tool);
		goto out;
	}
	s_memreg.rows = count_rows(MEMREG_OUT, "\"id\":", &s_memreg.bytes);
	unlink(MEMREG_OUT);
	if (s_rdma.rows < total || s_memreg.rows < total)
		printf("# note: the listings have %lu (rdma) and %lu (memreg) rows, fewer than %lu\n",
		       s_rdma.rows, s_memreg.rows, total);

	/* taking turns, so that a busy spell of the machine hits all alike */
	for (k = 0; k < runs; k++) {
		tool_run(&s_rdma, rdma_argv);
		tool_run(&s_memreg, memreg_argv);
		raw_run(&s_rdma_raw, &r_rdma, RAW_RDMA);
		raw_run(&s_memreg_raw, &r_memreg, RAW_MEMREG);
		/* progress, for a run that takes minutes */
		fprintf(stderr, "mr_bench: round %u: rdma %.0f ms, memreg %.0f ms\n",
			k + 1, s_rdma.n > k ? s_rdma.wall[k] / 1e6 : 0,
			s_memreg.n > k ? s_memreg.wall[k] / 1e6 : 0);
	}
	printf("# median of %u runs; tools' output to /dev/null; per row: minus the empty listing\n",
	       runs);
	report(&s_rdma0, NULL);
	report(&s_memreg0, NULL);
	report(&s_rdma, &s_rdma0);
	report(&s_memreg, &s_memreg0);
	report(&s_rdma_raw, NULL);
	report(&s_memreg_raw, NULL);
	if (s_rdma.n && s_memreg.n)
		printf("# memreg / rdma per row: %.2fx (tool), %.2fx (raw dump)\n",
		       (bh_median(s_memreg.wall, s_memreg.n) -
			bh_median(s_memreg0.wall, s_memreg0.n)) / s_memreg.rows /
		       ((bh_median(s_rdma.wall, s_rdma.n) -
			 bh_median(s_rdma0.wall, s_rdma0.n)) / s_rdma.rows),
		       s_rdma_raw.n && s_memreg_raw.n && s_rdma_raw.rows &&
		       s_memreg_raw.rows ?
		       bh_median(s_memreg_raw.wall, s_memreg_raw.n) /
		       s_memreg_raw.rows /
		       (bh_median(s_rdma_raw.wall, s_rdma_raw.n) /
			s_rdma_raw.rows) : 0);
	ret = s_rdma.failed || s_memreg.failed || s_rdma_raw.failed ||
	      s_memreg_raw.failed;
out:
	bh_stop_holders(&holders);
	unlink(RDMA_OUT);
	unlink(MEMREG_OUT);
	return ret;
usage:
	fprintf(stderr, "usage: %s [-J] [-n ROWS] [-p PROCS] [-r RUNS] [-d DEV] [-t TOOL] [-R RDMA]\n",
		argv[0]);
	return 2;
}
