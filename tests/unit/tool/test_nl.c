// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel errors and the netlink exchange.
 *
 * nlerr_decode() is fed error, ack and DONE messages built by hand, with
 * and without extended-ack attributes.  mrnl_transact() is run for real
 * against the kernel's own generic netlink controller ("nlctrl", present in
 * every kernel), which answers dumps, doits and errors the way the memreg
 * family will.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>
#include <netlink/genl/ctrl.h>

#include "tool_test.h"
#include "listing.h"
#include "nl.h"
#include "nlerr.h"
#include "tool.h"

/* An NLMSG_ERROR for a request of @req_payload bytes, echoed unless capped. */
static struct nl_msg *error_msg(int error, int flags, size_t req_payload)
{
	struct nl_msg *msg = nlmsg_alloc_simple(NLMSG_ERROR, flags);
	struct nlmsgerr e = { .error = error };
	unsigned char echo[64] = { 0 };

	assert_non_null(msg);
	assert_true(req_payload <= sizeof(echo));
	e.msg.nlmsg_len = NLMSG_HDRLEN + req_payload;
	e.msg.nlmsg_type = FAKE_FAMILY;
	e.msg.nlmsg_seq = 7;
	assert_int_equal(nlmsg_append(msg, &e, sizeof(e), NLMSG_ALIGNTO), 0);
	if (!(flags & NLM_F_CAPPED) && req_payload)
		assert_int_equal(nlmsg_append(msg, echo, req_payload,
					      NLMSG_ALIGNTO), 0);
	return msg;
}

static void decode(struct nl_msg *msg, struct nlerr_status *st, int ret)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	memset(st, 0, sizeof(*st));
	assert_int_equal(nlerr_decode(nlh, nlh->nlmsg_len, st), ret);
	nlmsg_free(msg);
}

static void test_decode_error_capped(void **state)
{
	struct nlerr_status st;
	struct nl_msg *msg;

	(void)state;
	msg = error_msg(-EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 24);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG,
					"host limit below current usage"), 0);
	assert_int_equal(nla_put_u32(msg, NLMSGERR_ATTR_OFFS, 20), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, EINVAL);
	assert_string_equal(st.msg, "host limit below current usage");
}

static void test_decode_error_echoed(void **state)
{
	struct nlerr_status st;
	struct nl_msg *msg;

	(void)state;
	/* the TLVs come after the whole echoed request (28 bytes, padded) */
	msg = error_msg(-ERANGE, NLM_F_ACK_TLVS, 26);
	assert_int_equal(nla_put_u32(msg, NLMSGERR_ATTR_OFFS, 20), 0);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG,
					"regions out of range"), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, ERANGE);
	assert_string_equal(st.msg, "regions out of range");

	/* without NLM_F_ACK_TLVS, trailing bytes are not looked at */
	msg = error_msg(-EPERM, 0, 8);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG, "x"), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, EPERM);
	assert_string_equal(st.msg, "");
}

static void test_decode_ack_warning(void **state)
{
	struct nlerr_status st;
	struct nl_msg *msg;

	(void)state;
	msg = error_msg(0, NLM_F_CAPPED | NLM_F_ACK_TLVS, 16);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG,
					"limit below usage,\napplies to new registrations"), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, 0);
	/* one line per message: cut at the newline */
	assert_string_equal(st.msg, "limit below usage,");

	msg = error_msg(0, NLM_F_CAPPED, 16);
	decode(msg, &st, 0);
	assert_int_equal(st.error, 0);
	assert_string_equal(st.msg, "");
}

static void test_decode_done(void **state)
{
	struct nlerr_status st;
	struct nl_msg *msg;
	int code;

	(void)state;
	/* a dump that ended well */
	msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	code = 0;
	assert_int_equal(nlmsg_append(msg, &code, sizeof(code),
				      NLMSG_ALIGNTO), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, 0);

	/* a DONE without any payload (old kernels) */
	msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI);
	decode(msg, &st, 0);
	assert_int_equal(st.error, 0);

	/* a dump that failed half-way, with an explanation */
	msg = nlmsg_alloc_simple(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS);
	code = -EMSGSIZE;
	assert_int_equal(nlmsg_append(msg, &code, sizeof(code),
				      NLMSG_ALIGNTO), 0);
	assert_int_equal(nla_put_string(msg, NLMSGERR_ATTR_MSG,
					"region does not fit"), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, EMSGSIZE);
	assert_string_equal(st.msg, "region does not fit");
}

static void test_decode_garbage(void **state)
{
	struct nlerr_status st;
	struct nl_msg *msg;
	struct nlmsghdr *nlh;
	struct nlattr bad = { .nla_len = 200, .nla_type = NLMSGERR_ATTR_MSG };

	(void)state;
	/* an attribute claiming more bytes than there are */
	msg = error_msg(-EIO, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	assert_int_equal(nlmsg_append(msg, &bad, sizeof(bad), NLMSG_ALIGNTO), 0);
	decode(msg, &st, 0);
	assert_int_equal(st.error, EIO);
	assert_string_equal(st.msg, "");

	/* an echoed length far past the message */
	msg = error_msg(-EIO, NLM_F_ACK_TLVS, 0);
	((struct nlmsgerr *)nlmsg_data(nlmsg_hdr(msg)))->msg.nlmsg_len = 0xfffffff0;
	decode(msg, &st, 0);
	assert_int_equal(st.error, EIO);

	/* a header claiming more than was received */
	msg = error_msg(-EIO, 0, 0);
	nlh = nlmsg_hdr(msg);
	memset(&st, 0, sizeof(st));
	assert_int_equal(nlerr_decode(nlh, nlh->nlmsg_len - 1, &st), -EBADMSG);
	/* an error message too short for struct nlmsgerr */
	nlh->nlmsg_len = NLMSG_HDRLEN + 4;
	assert_int_equal(nlerr_decode(nlh, nlh->nlmsg_len, &st), -EBADMSG);
	nlmsg_free(msg);
}

static void expect_report(const struct nlerr_status *st, const char *cap,
			  const char *want)
{
	struct capture c;

	capture_open(&c);
	nlerr_report(c.f, "limits set", st, cap);
	assert_string_equal(capture_text(&c), want);
	capture_close(&c);
}

static void test_report(void **state)
{
	struct nlerr_status st = { .error = EPERM };
	struct capture c;

	(void)state;
	expect_report(&st, "CAP_NET_ADMIN",
		      "memreg: permission denied (need CAP_NET_ADMIN)\n");
	st.error = EACCES;
	expect_report(&st, NULL, "memreg: limits set: permission denied\n");
	st.error = EINVAL;
	strcpy(st.msg, "host limit below current usage");
	expect_report(&st, "CAP_NET_ADMIN",
		      "memreg: limits set: Invalid argument: host limit below current usage\n");
	st.error = EPERM;
	expect_report(&st, "CAP_NET_ADMIN",
		      "memreg: permission denied (need CAP_NET_ADMIN): host limit below current usage\n");

	capture_open(&c);
	memset(&st, 0, sizeof(st));
	nlerr_report_warnings(c.f, &st);
	assert_string_equal(capture_text(&c), "");
	strcpy(st.msg, "deprecated attribute");
	st.dump_interrupted = true;
	nlerr_report_warnings(c.f, &st);
	assert_string_equal(capture_text(&c),
		"memreg: warning from the kernel: deprecated attribute\n"
		"memreg: warning: the list changed while it was read; rows may be missing or repeated (run again)\n");
	capture_close(&c);
}

/* ---- live exchanges with the kernel's generic netlink controller ---- */

struct ctrl_replies {
	int count;
	int fail_at;		/* 1-based reply to fail on; 0: never */
	char first_name[64];
};

static int ctrl_reply(struct nlmsghdr *nlh, void *arg)
{
	struct ctrl_replies *r = arg;
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0)
		return -EBADMSG;
	if (!r->count && tb[CTRL_ATTR_FAMILY_NAME])
		snprintf(r->first_name, sizeof(r->first_name), "%s",
			 nla_get_string(tb[CTRL_ATTR_FAMILY_NAME]));
	if (++r->count == r->fail_at)
		return -ECANCELED;
	return 0;
}

static int ctrl_setup(void **state)
{
	static struct mrnl nl;

	if (mrnl_connect(&nl, stderr))
		return -1;
	nl.family = GENL_ID_CTRL;
	*state = &nl;
	return 0;
}

static int ctrl_teardown(void **state)
{
	mrnl_close(*state);
	return 0;
}

static struct nl_msg *ctrl_getfamily(struct mrnl *nl, const char *name)
{
	struct nl_msg *req = mrnl_request(nl, CTRL_CMD_GETFAMILY, NLM_F_ACK);

	assert_non_null(req);
	assert_int_equal(nla_put_string(req, CTRL_ATTR_FAMILY_NAME, name), 0);
	return req;
}

static void test_live_dump(void **state)
{
	struct ctrl_replies r = { 0 };
	struct nlerr_status st;
	struct mrnl *nl = *state;

	assert_int_equal(mrnl_transact(nl, mrnl_request(nl, CTRL_CMD_GETFAMILY,
							NLM_F_DUMP),
				       ctrl_reply, &r, &st), 0);
	assert_int_equal(st.error, 0);
	assert_false(st.dump_interrupted);
	/* at least nlctrl itself; usually a few dozen families */
	assert_true(r.count >= 1);
	assert_string_equal(r.first_name, "nlctrl");
}

static void test_live_doit(void **state)
{
	struct ctrl_replies r = { 0 };
	struct nlerr_status st;
	struct mrnl *nl = *state;

	assert_int_equal(mrnl_transact(nl, ctrl_getfamily(nl, "nlctrl"),
				       ctrl_reply, &r, &st), 0);
	assert_int_equal(r.count, 1);
	assert_string_equal(r.first_name, "nlctrl");
}

static void test_live_errors(void **state)
{
	struct ctrl_replies r = { 0 };
	struct nlerr_status st;
	struct mrnl *nl = *state;
	struct nl_msg *req;
	uint8_t one_byte = 1;

	assert_int_equal(mrnl_transact(nl, ctrl_getfamily(nl, "memreg-none"),
				       ctrl_reply, &r, &st), -1);
	assert_int_equal(st.error, ENOENT);
	assert_int_equal(r.count, 0);

	/* an attribute the controller's policy refuses */
	req = mrnl_request(nl, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	assert_non_null(req);
	assert_int_equal(nla_put(req, CTRL_ATTR_FAMILY_ID, 1, &one_byte), 0);
	assert_int_equal(mrnl_transact(nl, req, ctrl_reply, &r, &st), -1);
	assert_true(st.error == ERANGE || st.error == EINVAL);

	/*
	 * A name over the policy's 15 characters: EINVAL, and the kernel's
	 * extended ack says why ("Attribute failed policy validation" on
	 * 6.x) -- proof that NETLINK_EXT_ACK is on and decoded.
	 */
	assert_int_equal(mrnl_transact(nl, ctrl_getfamily(nl, "memreg-test-none"),
				       ctrl_reply, &r, &st), -1);
	assert_int_equal(st.error, EINVAL);
	assert_true(st.msg[0] != '\0');
	print_message("extended ack: \"%s\"\n", st.msg);
	assert_int_equal(r.count, 0);

	/* a command the family does not have: kernels differ in the errno */
	req = mrnl_request(nl, 0xee, NLM_F_ACK);
	assert_int_equal(mrnl_transact(nl, req, ctrl_reply, &r, &st), -1);
	assert_true(st.error == EOPNOTSUPP || st.error == EINVAL);
	print_message("unknown command: %s \"%s\"\n", strerror(st.error),
		      st.msg);
}

/*
 * A reply handler that gives up half-way through a dump leaves the rest of
 * the dump on the socket; the next request must not mistake it for its
 * own answer.
 */
static void test_live_abort_then_reuse(void **state)
{
	struct ctrl_replies r = { .fail_at = 1 };
	struct nlerr_status st;
	struct mrnl *nl = *state;

	assert_int_equal(mrnl_transact(nl, mrnl_request(nl, CTRL_CMD_GETFAMILY,
							NLM_F_DUMP),
				       ctrl_reply, &r, &st), -1);
	assert_int_equal(st.error, ECANCELED);
	assert_int_equal(r.count, 1);

	memset(&r, 0, sizeof(r));
	assert_int_equal(mrnl_transact(nl, ctrl_getfamily(nl, "nlctrl"),
				       ctrl_reply, &r, &st), 0);
	assert_int_equal(r.count, 1);
	assert_string_equal(r.first_name, "nlctrl");
}

/*
 * listing_run() on the controller's family dump, which comes in family id
 * order: rows printed by a key that reverses it, or by one key for all
 * (the kernel's order kept), and a row the printer refuses half-way.
 */
static const struct out_column family_columns[] = { { "ID", 0 } };

static void family_begin(struct out *o)
{
	out_table_begin(o, family_columns, 1);
}

static int family_print_calls;

static int family_print(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	/* the third row is "malformed" when a test says so */
	if (family_print_calls >= 0 && ++family_print_calls == 3)
		return -EBADMSG;
	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	out_row_begin(o);
	out_u64(o, "id", nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]));
	out_row_end(o);
	return 0;
}

static int family_key_reverse(struct nlmsghdr *nlh, uint64_t key[2])
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (genlmsg_parse(nlh, 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	key[0] = UINT16_MAX - nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	key[1] = 0;
	return 0;
}

static int family_key_same(struct nlmsghdr *nlh, uint64_t key[2])
{
	(void)nlh;
	key[0] = key[1] = 7;
	return 0;
}

/* Run @l on the controller; the ids printed, in order, and the status. */
static int family_listing(struct mrnl *nl, const struct listing *l,
			  bool json, unsigned int *ids, size_t *n,
			  struct capture *out, struct capture *err)
{
	struct memreg m = { 0 };
	const char *p;
	int ret;

	capture_open(out);
	capture_open(err);
	m.nl = *nl;
	m.err = err->f;
	out_init(&m.out, out->f, json, false);
	ret = listing_run(&m, l);
	out_flush(&m.out);
	*n = 0;
	p = capture_text(out);
	if (!json)
		p = strchr(p, '\n');	/* past the header */
	while (p && *p) {
		while (*p && (*p < '0' || *p > '9'))
			p++;
		if (!*p)
			break;
		ids[(*n)++] = strtoul(p, (char **)&p, 10);
	}
	return ret;
}

static void test_live_listing_sorted(void **state)
{
	struct listing l = {
		.what = "family show",
		.cmd = CTRL_CMD_GETFAMILY,
		.begin = family_begin,
		.print_row = family_print,
		.sort_key = family_key_reverse,
	};
	unsigned int ids[1024], kernel_order[1024];
	struct capture out, err;
	size_t n, n0, i;

	family_print_calls = -1;
	assert_int_equal(family_listing(*state, &l, false, ids, &n, &out,
					&err), 0);
	assert_string_equal(capture_text(&err), "");
	capture_close(&out);
	capture_close(&err);
	assert_true(n >= 1);
	for (i = 1; i < n; i++)
		assert_true(ids[i - 1] > ids[i]);

	/* equal keys: the kernel's order, which is by id */
	l.sort_key = family_key_same;
	assert_int_equal(family_listing(*state, &l, true, kernel_order, &n0,
					&out, &err), 0);
	capture_close(&out);
	capture_close(&err);
	assert_int_equal(n0, n);
	for (i = 0; i < n; i++)
		assert_int_equal(kernel_order[i], ids[n - 1 - i]);

	/* a row that cannot be printed: the rows before it, well-formed JSON */
	if (n < 3)
		skip();
	family_print_calls = 0;
	assert_int_equal(family_listing(*state, &l, true, ids, &n, &out, &err),
			 1);
	assert_int_equal(n, 2);
	assert_int_equal(capture_text(&out)[0], '[');
	assert_non_null(strstr(capture_text(&out), "}]\n"));
	assert_string_equal(capture_text(&err),
			    "memreg: family show: Bad message\n");
	capture_close(&out);
	capture_close(&err);
}

const struct CMUnitTest nl_tests[] = {
	cmocka_unit_test(test_decode_error_capped),
	cmocka_unit_test(test_decode_error_echoed),
	cmocka_unit_test(test_decode_ack_warning),
	cmocka_unit_test(test_decode_done),
	cmocka_unit_test(test_decode_garbage),
	cmocka_unit_test(test_report),
	cmocka_unit_test_setup_teardown(test_live_dump, ctrl_setup,
					ctrl_teardown),
	cmocka_unit_test_setup_teardown(test_live_doit, ctrl_setup,
					ctrl_teardown),
	cmocka_unit_test_setup_teardown(test_live_errors, ctrl_setup,
					ctrl_teardown),
	cmocka_unit_test_setup_teardown(test_live_listing_sorted, ctrl_setup,
					ctrl_teardown),
	cmocka_unit_test_setup_teardown(test_live_abort_then_reuse,
					ctrl_setup, ctrl_teardown),
};

const size_t n_nl_tests = sizeof(nl_tests) / sizeof(nl_tests[0]);
