/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the memreg tool's unit tests: capturing output in
 * memory, and building the netlink messages the kernel would send.
 */
#ifndef MEMREG_TOOL_TEST_H
#define MEMREG_TOOL_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

/*
 * The tests of each source file.  They run as one cmocka group, so that
 * the closing summary counts them all.
 */
#define TOOL_TEST_SET(name) \
	extern const struct CMUnitTest name##_tests[]; \
	extern const size_t n_##name##_tests

TOOL_TEST_SET(fmt);
TOOL_TEST_SET(json);
TOOL_TEST_SET(args);
TOOL_TEST_SET(print);
TOOL_TEST_SET(nl);
TOOL_TEST_SET(run);

/* Output written to a FILE, readable as one string. */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static inline void capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

static inline const char *capture_text(struct capture *c)
{
	fflush(c->f);
	return c->buf ? c->buf : "";
}

static inline void capture_close(struct capture *c)
{
	fclose(c->f);
	free(c->buf);
	c->buf = NULL;
}

/* Family id for hand-built messages: any id that is not a control one. */
#define FAKE_FAMILY	0x20

/* An empty memreg message of command @cmd, as the kernel would start it. */
static inline struct nl_msg *fake_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	assert_non_null(msg);
	assert_non_null(genlmsg_put(msg, 0, 1, FAKE_FAMILY, 0, NLM_F_MULTI,
				    cmd, MEMREG_GENL_VERSION));
	return msg;
}

#endif /* MEMREG_TOOL_TEST_H */
