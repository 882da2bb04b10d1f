/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libnl connection to the "memreg" family that the netlink test
 * programs share, as a cmocka group setup/teardown pair: the tests get it
 * as *state.
 */
#ifndef NLTEST_H
#define NLTEST_H

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/memreg.h>

struct nlconn {
	struct nl_sock *sk;
	int family;
};

static inline int nltest_setup(void **state)
{
	static struct nlconn c;

	c.sk = nl_socket_alloc();
	if (!c.sk || genl_connect(c.sk))
		return -1;
	c.family = genl_ctrl_resolve(c.sk, MEMREG_GENL_NAME);
	if (c.family < 0)
		return -1;
	*state = &c;
	return 0;
}

static inline int nltest_teardown(void **state)
{
	struct nlconn *c = *state;

	nl_socket_free(c->sk);
	return 0;
}

#endif
