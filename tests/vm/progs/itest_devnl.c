// SPDX-License-Identifier: GPL-2.0
/*
 * itest_devnl - MEMREG_CMD_DEV_GET and the device attributes of the other
 * dumps, read with libnl: what they say must match what the processes
 * allocated, with every process listed exactly once even when a device's
 * list of processes needs more than one message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/memreg.h>
#include "nltest.h"
#include "memtest.h"

/*
 * Enough processes that one device's list cannot fit one dump skb: 1000
 * took 3 messages on every kernel (so one holds 334 to 499 of them), and
 * 600 take 2 or more.  The debug kernel forks and allocates several times
 * slower (1000 processes: 21 s there, 1 s on 6.12): 600 there, still a
 * list the dump resumes; the test fails if it ever fits one message.
 */
#define NPROCS_MAX	1000
#define NPROCS_DEBUG	600
static unsigned int nprocs = NPROCS_MAX;
#define PAGE	4096

/* What one dump collected. */
struct seen {
	uint32_t device;	/* the device the test looks at */
	unsigned int messages;	/* messages about it */
	uint64_t capacity, used, huge, normal;
	pid_t *pids;		/* DEV_USAGE entries, in order */
	uint64_t *bytes;
	unsigned int n, room;
	/* PROC_GET and REGION_GET */
	pid_t self;
	uint64_t self_dev_bytes;	/* DEV_USAGE of self for device */
	int region_device;		/* DEVICE of self's region, -1 none */
	int err;
};

static int parse_dev(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[MEMREG_A_MAX + 1], *a, *u[MEMREG_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct seen *s = arg;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, MEMREG_A_MAX, NULL) ||
	    !tb[MEMREG_A_DEVICE] || !tb[MEMREG_A_CAPACITY] ||
	    !tb[MEMREG_A_USED_BYTES] || !tb[MEMREG_A_HUGE_BYTES] ||
	    !tb[MEMREG_A_NORMAL_BYTES]) {
		s->err = -EPROTO;
		return NL_STOP;
	}
	if (nla_get_u32(tb[MEMREG_A_DEVICE]) != s->device)
		return NL_OK;
	s->messages++;
	s->capacity = nla_get_u64(tb[MEMREG_A_CAPACITY]);
	s->used = nla_get_u64(tb[MEMREG_A_USED_BYTES]);
	s->huge = nla_get_u64(tb[MEMREG_A_HUGE_BYTES]);
	s->normal = nla_get_u64(tb[MEMREG_A_NORMAL_BYTES]);
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != MEMREG_A_DEV_USAGE)
			continue;
		if (nla_parse_nested(u, MEMREG_A_MAX, a, NULL) ||
		    !u[MEMREG_A_PID] || !u[MEMREG_A_DEV_ALLOC_BYTES] ||
		    !u[MEMREG_A_COMM]) {
			s->err = -EPROTO;
			return NL_STOP;
		}
		if (s->n == s->room) {
			s->room = s->room ? 2 * s->room : 64;
			s->pids = realloc(s->pids, s->room * sizeof(*s->pids));
			s->bytes = realloc(s->bytes, s->room * sizeof(*s->bytes));
		}
		s->pids[s->n] = nla_get_u32(u[MEMREG_A_PID]);
		s->bytes[s->n++] = nla_get_u64(u[MEMREG_A_DEV_ALLOC_BYTES]);
	}
	return NL_OK;
}

static int parse_proc(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[MEMREG_A_MAX + 1], *a, *u[MEMREG_A_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct seen *s = arg;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, MEMREG_A_MAX, NULL) || !tb[MEMREG_A_PID])
		return NL_OK;
	if ((pid_t)nla_get_u32(tb[MEMREG_A_PID]) != s->self)
		return NL_OK;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != MEMREG_A_DEV_USAGE ||
		    nla_parse_nested(u, MEMREG_A_MAX, a, NULL) ||
		    !u[MEMREG_A_DEVICE] || !u[MEMREG_A_DEV_ALLOC_BYTES])
			continue;
		if (nla_get_u32(u[MEMREG_A_DEVICE]) == s->device)
			s->self_dev_bytes += nla_get_u64(u[MEMREG_A_DEV_ALLOC_BYTES]);
	}
	return NL_OK;
}

static int parse_region(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];
	struct seen *s = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, MEMREG_A_MAX, NULL) ||
	    !tb[MEMREG_A_PID] || !tb[MEMREG_A_TYPE])
		return NL_OK;
	if ((pid_t)nla_get_u32(tb[MEMREG_A_PID]) != s->self)
		return NL_OK;
	if (nla_get_u32(tb[MEMREG_A_TYPE]) == MEMREG_MEM_DEVICE)
		s->region_device = tb[MEMREG_A_DEVICE] ?
				   (int)nla_get_u32(tb[MEMREG_A_DEVICE]) : -2;
	return NL_OK;
}

/* Dump @cmd (with DEVICE = @filter unless negative) into @s: 0 or -errno. */
static int dump(struct nlconn *c, uint8_t cmd, long filter,
		nl_recvmsg_msg_cb_t fn, struct seen *s)
{
	struct nl_msg *msg = nlmsg_alloc();
	int err;

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family,
				    0, NLM_F_DUMP, cmd, MEMREG_GENL_VERSION));
	if (filter >= 0)
		assert_int_equal(nla_put_u32(msg, MEMREG_A_DEVICE, filter), 0);
	nl_socket_modify_cb(c->sk, NL_CB_VALID, NL_CB_CUSTOM, fn, s);
	err = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return -EIO;
	err = nl_recvmsgs_default(c->sk);
	if (err == -NLE_NODEV)
		return -ENODEV;
	if (err < 0)
		return -1000 + err;
	return s->err;
}

static void test_unknown_device(void **state)
{
	struct nlconn *c = *state;
	struct seen s = { .device = 0 };

	assert_int_equal(dump(c, MEMREG_CMD_DEV_GET, 2, parse_dev, &s),
			 -ENODEV);
}

/* Our own allocation and registration, as the three dumps show them. */
static void test_own_allocation(void **state)
{
	struct nlconn *c = *state;
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 1, .len = 3 * PAGE,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};
	struct seen s = { .device = 1, .self = getpid() };
	struct seen p = { .device = 1, .self = getpid(), .region_device = -1 };
	int fd = memtest_open();
	uint64_t h;
	char *m;

	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), 0);
	m = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	assert_true(m != MAP_FAILED);
	assert_int_equal(memtest_register(fd, m, PAGE, MEMREG_MEM_DEVICE, &h),
			 0);

	assert_int_equal(dump(c, MEMREG_CMD_DEV_GET, 1, parse_dev, &s), 0);
	assert_int_equal(s.messages, 1);
	assert_true(s.used >= 3 * PAGE);
	assert_int_equal(s.used, s.huge + s.normal);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.pids[0], getpid());
	assert_int_equal(s.bytes[0], 3 * PAGE);

	assert_int_equal(dump(c, MEMREG_CMD_PROC_GET, -1, parse_proc, &p), 0);
	assert_int_equal(p.self_dev_bytes, 3 * PAGE);
	assert_int_equal(dump(c, MEMREG_CMD_REGION_GET, -1, parse_region, &p),
			 0);
	assert_int_equal(p.region_device, 1);

	free(s.pids);
	free(s.bytes);
	close(fd);	/* handle, registration and mapping go with... */
	munmap(m, a.alloc_len);	/* ...the last mapping */
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

/* nprocs processes on one device: each listed once, with its bytes. */
static void test_many_processes(void **state)
{
	struct nlconn *c = *state;
	struct seen s = { .device = 0 };
	const char *k = getenv("MEMREG_VM_KERNEL");
	pid_t *kids;
	int ready[2], hold[2], st;
	unsigned int i, j;
	char ch;

	if (k && !strcmp(k, "debug"))
		nprocs = NPROCS_DEBUG;
	kids = calloc(nprocs, sizeof(*kids));
	assert_non_null(kids);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(hold), 0);
	for (i = 0; i < nprocs; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0) {
			struct memreg_dev_alloc a = {
				.size = sizeof(a), .device = 0, .len = PAGE,
				.policy = MEMREG_DEV_NORMAL_ONLY,
			};
			int fd = memtest_open();

			close(hold[1]);
			if (fd < 0 || ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
				_exit(1);
			if (write(ready[1], "r", 1) != 1)
				_exit(1);
			/* until the parent closes its end */
			if (read(hold[0], &ch, 1) < 0)
				_exit(1);
			_exit(0);
		}
	}
	close(hold[0]);
	for (i = 0; i < nprocs; i++)
		assert_int_equal(read(ready[0], &ch, 1), 1);

	assert_int_equal(dump(c, MEMREG_CMD_DEV_GET, -1, parse_dev, &s), 0);
	print_message("# %u processes in %u messages about device 0\n", s.n,
		      s.messages);
	/* the list went on in a second message, and lost nobody */
	assert_true(s.messages >= 2);
	qsort(kids, nprocs, sizeof(*kids), cmp_pid);
	qsort(s.pids, s.n, sizeof(*s.pids), cmp_pid);
	for (i = 0, j = 0; i < s.n; i++) {
		if (j < nprocs && s.pids[i] == kids[j]) {
			j++;
			continue;
		}
		/* someone else's (another test's) memory is fine */
		assert_true(j == nprocs || s.pids[i] < kids[j]);
	}
	assert_int_equal(j, nprocs);
	assert_true(s.used >= (uint64_t)nprocs * PAGE);

	close(hold[1]);
	for (i = 0; i < nprocs; i++) {
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	close(ready[0]);
	close(ready[1]);
	free(kids);
	free(s.pids);
	free(s.bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_device),
		cmocka_unit_test(test_own_allocation),
		cmocka_unit_test(test_many_processes),
	};

	return cmocka_run_group_tests_name("memreg device netlink", tests,
					   nltest_setup, nltest_teardown);
}
