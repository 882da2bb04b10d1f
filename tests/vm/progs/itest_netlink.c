// SPDX-License-Identifier: GPL-2.0
/*
 * itest_netlink - the "memreg" generic netlink family's strict policies
 * and permissions, spoken to directly with libnl (the tool never sends
 * malformed requests, so these are the cases it cannot show).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <linux/memreg.h>
#include "nltest.h"

/* Send @msg as a request and return the kernel's answer: 0 or -errno. */
static int request(struct nlconn *c, struct nl_msg *msg)
{
	int err;

	err = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return -EIO;
	err = nl_wait_for_ack(c->sk);
	/* libnl maps the kernel's errno to its own codes */
	switch (err) {
	case 0: return 0;
	case -NLE_INVAL: return -EINVAL;
	case -NLE_PERM: return -EPERM;
	case -NLE_RANGE: return -ERANGE;
	case -NLE_OBJ_NOTFOUND: return -ESRCH;
	case -NLE_OPNOTSUPP: return -EOPNOTSUPP;
	default: return -1000 + err;
	}
}

static struct nl_msg *new_msg(struct nlconn *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family,
				    0, flags | NLM_F_ACK, cmd,
				    MEMREG_GENL_VERSION));
	return msg;
}

static void test_stats_takes_no_attribute(void **state)
{
	struct nlconn *c = *state;
	struct nl_msg *msg = new_msg(c, MEMREG_CMD_GET_STATS, 0);

	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, getpid()), 0);
	assert_int_equal(request(c, msg), -EINVAL);
}

static void test_unknown_attribute_rejected(void **state)
{
	struct nlconn *c = *state;
	struct nl_msg *msg = new_msg(c, MEMREG_CMD_REGION_GET, NLM_F_DUMP);

	assert_int_equal(nla_put_u32(msg, MEMREG_A_MAX + 5, 1), 0);
	assert_int_equal(request(c, msg), -EINVAL);
}

static void test_dump_pid_must_be_valid(void **state)
{
	struct nlconn *c = *state;
	struct nl_msg *msg;

	/* pid 0 is below the policy's minimum */
	msg = new_msg(c, MEMREG_CMD_PROC_GET, NLM_F_DUMP);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, 0), 0);
	assert_int_equal(request(c, msg), -ERANGE);
	/* a u64 where a u32 belongs */
	msg = new_msg(c, MEMREG_CMD_PROC_GET, NLM_F_DUMP);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_PID, 1), 0);
	assert_int_equal(request(c, msg), -EINVAL);
}

static void test_reserved_header_byte(void **state)
{
	struct nlconn *c = *state;
	struct nl_msg *msg = new_msg(c, MEMREG_CMD_GET_STATS, 0);
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));

	gh->reserved = 1;
	assert_int_equal(request(c, msg), -EINVAL);
}

static void test_unknown_command(void **state)
{
	struct nlconn *c = *state;

	assert_int_equal(request(c, new_msg(c, MEMREG_CMD_MAX + 1, 0)),
			 -EOPNOTSUPP);
	/* events are for the multicast group, not requests */
	assert_int_equal(request(c, new_msg(c, MEMREG_CMD_EVENT_REG_ADDED,
					    0)), -EOPNOTSUPP);
}

static void test_set_limits(void **state)
{
	struct nlconn *c = *state;
	struct nl_msg *msg;

	msg = new_msg(c, MEMREG_CMD_SET_LIMITS, 0);
	if (geteuid() != 0) {
		assert_int_equal(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, 1), 0);
		assert_int_equal(request(c, msg), -EPERM);
		return;
	}
	/* no limit given */
	assert_int_equal(request(c, msg), -EINVAL);
	/* a limit of the wrong width */
	msg = new_msg(c, MEMREG_CMD_SET_LIMITS, 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_MAX_REGIONS, 5), 0);
	assert_int_equal(request(c, msg), -EINVAL);
	/* attributes SET_LIMITS does not take */
	msg = new_msg(c, MEMREG_CMD_SET_LIMITS, 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, 256), 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_HANDLE, 1), 0);
	assert_int_equal(request(c, msg), -EINVAL);
	/* a pid without a memreg context */
	msg = new_msg(c, MEMREG_CMD_SET_LIMITS, 0);
	assert_int_equal(nla_put_u32(msg, MEMREG_A_PID, getpid()), 0);
	assert_int_equal(nla_put_u64(msg, MEMREG_A_MAX_REGIONS, 1), 0);
	assert_int_equal(request(c, msg), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats_takes_no_attribute),
		cmocka_unit_test(test_unknown_attribute_rejected),
		cmocka_unit_test(test_dump_pid_must_be_valid),
		cmocka_unit_test(test_reserved_header_byte),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_set_limits),
	};

	return cmocka_run_group_tests_name("memreg netlink", tests,
					   nltest_setup, nltest_teardown);
}
