// SPDX-License-Identifier: GPL-2.0
/*
 * libnl socket handling: family lookup, request/answer exchanges, events.
 *
 * Each exchange gets its own callback set, so that a reply handler sees
 * only the memreg messages of its own request and every way an answer can
 * end (ack, error, DONE with or without an error code) is accounted for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/socket.h>

#include <linux/memreg.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* Room for event bursts; the kernel caps it at net.core.rmem_max. */
#define MRNL_RCVBUF	(4 << 20)

/* recvmsg's buffer: twice the largest dump datagram the kernel builds */
#define MRNL_MSGBUF	(64 << 10)

struct mrnl_exchange {
	struct mrnl *nl;
	mrnl_reply_fn fn;
	void *arg;
	uint32_t seq;		/* 0: events, no sequence to match */
	struct nlerr_status *st;
	bool done;
	bool failed;
};

int mrnl_connect(struct mrnl *nl, FILE *err)
{
	int one = 1, ret;

	nl->family = -1;
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(err, "memreg: out of memory\n");
		return -1;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		fprintf(err, "memreg: cannot open a generic netlink socket: %s\n",
			nl_geterror(ret));
		nl_socket_free(nl->sk);
		nl->sk = NULL;
		return -1;
	}
	/*
	 * Ask for extended acks: the kernel then says which attribute or
	 * limit it objected to, not just an errno.  Kernels without it
	 * refuse the option; the errno alone still gets through.
	 */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	/*
	 * Read into a buffer larger than anything the kernel sends us, in
	 * one recvmsg per datagram.  The kernel sizes a dump's datagrams
	 * by the reader's largest recvmsg buffer, up to 32 KiB: with
	 * libnl's default of four pages a 100,000-row listing came in
	 * 16 KiB datagrams of about 100 rows, each read twice (a MSG_PEEK
	 * for its size, then the read).  Now a datagram holds about 200
	 * rows and is read once.  Doit replies and events are a page at most; should a
	 * message ever not fit, libnl fails with NLE_MSG_TRUNC rather than
	 * pass on part of it.
	 */
	nl_socket_set_msg_buf_size(nl->sk, MRNL_MSGBUF);
	nl_socket_disable_msg_peek(nl->sk);
	/* our requests ask for acks explicitly, and only doit ones */
	nl_socket_disable_auto_ack(nl->sk);
	return 0;
}

/*
 * libnl's controller lookups wait for an ack only when the socket is in
 * auto-ack mode, and hang or misread otherwise: lend it that mode.
 */
static int mrnl_resolve_family(struct mrnl *nl)
{
	int ret;

	nl_socket_enable_auto_ack(nl->sk);
	ret = genl_ctrl_resolve(nl->sk, MEMREG_GENL_NAME);
	nl_socket_disable_auto_ack(nl->sk);
	return ret;
}

int mrnl_open(struct mrnl *nl, FILE *err)
{
	int ret;

	if (mrnl_connect(nl, err))
		return -1;
	ret = mrnl_resolve_family(nl);
	if (ret == -NLE_OBJ_NOTFOUND) {
		fprintf(err, "memreg: kernel module not loaded (generic netlink family \"%s\" not found)\n",
			MEMREG_GENL_NAME);
		goto fail;
	}
	if (ret < 0) {
		fprintf(err, "memreg: cannot look up generic netlink family \"%s\": %s\n",
			MEMREG_GENL_NAME, nl_geterror(ret));
		goto fail;
	}
	nl->family = ret;
	return 0;

fail:
	mrnl_close(nl);
	return -1;
}

void mrnl_close(struct mrnl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

int mrnl_fd(const struct mrnl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

struct nl_msg *mrnl_request(struct mrnl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 flags, cmd, MEMREG_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static void mrnl_fail(struct mrnl_exchange *x, int error, const char *why)
{
	x->st->error = error;
	if (why)
		snprintf(x->st->msg, sizeof(x->st->msg), "%s", why);
	x->failed = true;
	x->done = true;
}

static int mrnl_on_seq(struct nl_msg *msg, void *arg)
{
	struct mrnl_exchange *x = arg;

	/* a late answer to something else: not ours to interpret */
	if (x->seq && nlmsg_hdr(msg)->nlmsg_seq != x->seq)
		return NL_SKIP;
	return NL_OK;
}

/*
 * Each kind of message is handled by a function of the header, called
 * from libnl's callbacks (events) or from mrnl_read() (exchanges).
 */
static int mrnl_valid(struct mrnl_exchange *x, struct nlmsghdr *nlh)
{
	int ret;

	if (nlh->nlmsg_type != x->nl->family)
		return NL_SKIP;
	ret = x->fn(nlh, x->arg);
	if (ret < 0) {
		mrnl_fail(x, -ret, NULL);
		return NL_STOP;
	}
	return NL_OK;
}

static int mrnl_on_valid(struct nl_msg *msg, void *arg)
{
	return mrnl_valid(arg, nlmsg_hdr(msg));
}

/* NLMSG_ERROR with an errno; libnl passes its payload, not the header. */
static int mrnl_error(struct mrnl_exchange *x, const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);

	if (x->seq && nlh->nlmsg_seq != x->seq)
		return NL_SKIP;
	if (nlerr_decode(nlh, nlh->nlmsg_len, x->st) || !x->st->error)
		x->st->error = e->error < 0 ? -e->error : EPROTO;
	x->failed = true;
	x->done = true;
	return NL_STOP;
}

static int mrnl_on_error(struct sockaddr_nl *who, struct nlmsgerr *e,
			 void *arg)
{
	(void)who;
	return mrnl_error(arg, (const struct nlmsghdr *)((const char *)e -
							  NLMSG_HDRLEN));
}

/* NLMSG_ERROR with errno 0: the ack of a doit, possibly with a warning. */
static int mrnl_ack(struct mrnl_exchange *x, const struct nlmsghdr *nlh)
{
	nlerr_decode(nlh, nlh->nlmsg_len, x->st);
	x->done = true;
	return NL_STOP;
}

static int mrnl_on_ack(struct nl_msg *msg, void *arg)
{
	return mrnl_ack(arg, nlmsg_hdr(msg));
}

/*
 * NLMSG_DONE.  A dump that failed after it started (say, -EMSGSIZE or a
 * permission check per object) ends with DONE carrying the negative errno;
 * libnl would treat that as success, so look.
 */
static int mrnl_finish(struct mrnl_exchange *x, const struct nlmsghdr *nlh)
{
	if (nlerr_decode(nlh, nlh->nlmsg_len, x->st) == 0 && x->st->error)
		x->failed = true;
	x->done = true;
	return NL_STOP;
}

static int mrnl_on_finish(struct nl_msg *msg, void *arg)
{
	return mrnl_finish(arg, nlmsg_hdr(msg));
}

/*
 * The kernel's list changed while it was being dumped.  The rows already
 * printed cannot be taken back, so keep reading and let the caller warn.
 */
static int mrnl_on_dump_intr(struct nl_msg *msg, void *arg)
{
	struct mrnl_exchange *x = arg;

	(void)msg;
	x->st->dump_interrupted = true;
	return NL_OK;
}

static struct nl_cb *mrnl_callbacks(struct mrnl_exchange *x)
{
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);

	if (!cb)
		return NULL;
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, mrnl_on_seq, x);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, mrnl_on_valid, x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, mrnl_on_ack, x);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, mrnl_on_finish, x);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, mrnl_on_dump_intr, x);
	nl_cb_err(cb, NL_CB_CUSTOM, mrnl_on_error, x);
	return cb;
}

/*
 * One datagram of an exchange's answer, its messages dispatched the way
 * libnl's nl_recvmsgs() dispatches them to the callbacks above, minus its
 * copy of every message into a newly allocated nl_msg: two allocations
 * and a copy per row of a listing, which under emulation cost more than
 * printing the row.  @buf has MRNL_MSGBUF bytes.
 */
static void mrnl_read(struct mrnl_exchange *x, char *buf)
{
	struct sockaddr_nl who;
	struct iovec iov = { .iov_base = buf, .iov_len = MRNL_MSGBUF };
	struct msghdr mh = {
		.msg_name = &who, .msg_namelen = sizeof(who),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	n = recvmsg(nl_socket_get_fd(x->nl->sk), &mh, 0);
	if (n < 0) {
		if (errno != EINTR)
			mrnl_fail(x, EIO, strerror(errno));
		return;
	}
	if (mh.msg_flags & MSG_TRUNC) {
		mrnl_fail(x, EIO, nl_geterror(NLE_MSG_TRUNC));
		return;
	}
	/* only the kernel answers requests; anyone else is ignored */
	if (mh.msg_namelen != sizeof(who) || who.nl_pid)
		return;

	len = n;
	for (nlh = (struct nlmsghdr *)buf; !x->done && NLMSG_OK(nlh, len);
	     nlh = NLMSG_NEXT(nlh, len)) {
		if (x->seq && nlh->nlmsg_seq != x->seq)
			continue;
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
			x->st->dump_interrupted = true;
		switch (nlh->nlmsg_type) {
		case NLMSG_DONE:
			mrnl_finish(x, nlh);
			break;
		case NLMSG_NOOP:
			break;
		case NLMSG_OVERRUN:
			mrnl_fail(x, EIO, nl_geterror(NLE_MSG_OVERFLOW));
			break;
		case NLMSG_ERROR:
			if (nlh->nlmsg_len <
			    NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				mrnl_fail(x, EIO, nl_geterror(NLE_MSG_TRUNC));
			else if (((struct nlmsgerr *)NLMSG_DATA(nlh))->error)
				mrnl_error(x, nlh);
			else
				mrnl_ack(x, nlh);
			break;
		default:
			mrnl_valid(x, nlh);
			break;
		}
	}
}

int mrnl_transact(struct mrnl *nl, struct nl_msg *req, mrnl_reply_fn fn,
		  void *arg, struct nlerr_status *st)
{
	struct mrnl_exchange x = {
		.nl = nl, .fn = fn, .arg = arg, .st = st,
	};
	char *buf;
	int ret;

	memset(st, 0, sizeof(*st));
	if (!req) {
		st->error = ENOMEM;
		return -1;
	}
	/* one buffer for the whole answer, however many rows it has */
	buf = malloc(MRNL_MSGBUF);
	if (!buf) {
		nlmsg_free(req);
		st->error = ENOMEM;
		return -1;
	}

	ret = nl_send_auto(nl->sk, req);
	x.seq = nlmsg_hdr(req)->nlmsg_seq;
	nlmsg_free(req);
	if (ret < 0)
		mrnl_fail(&x, EIO, nl_geterror(ret));

	while (!x.done)
		mrnl_read(&x, buf);
	free(buf);
	return x.failed ? -1 : 0;
}

int mrnl_subscribe(struct mrnl *nl, const char *group,
		   struct nlerr_status *st)
{
	int grp, ret;

	memset(st, 0, sizeof(*st));
	nl_socket_enable_auto_ack(nl->sk);
	grp = genl_ctrl_resolve_grp(nl->sk, MEMREG_GENL_NAME, group);
	nl_socket_disable_auto_ack(nl->sk);
	if (grp < 0) {
		st->error = ENOENT;
		snprintf(st->msg, sizeof(st->msg),
			 "the module has no multicast group \"%s\"", group);
		return -1;
	}
	nl_socket_set_buffer_size(nl->sk, MRNL_RCVBUF, 0);
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret < 0) {
		/* libnl folds errnos into its own codes; EPERM survives */
		st->error = ret == -NLE_PERM ? EPERM : EIO;
		if (ret != -NLE_PERM)
			snprintf(st->msg, sizeof(st->msg), "%s",
				 nl_geterror(ret));
		return -1;
	}
	return 0;
}

int mrnl_receive(struct mrnl *nl, mrnl_reply_fn fn, void *arg,
		 struct nlerr_status *st)
{
	struct mrnl_exchange x = {
		.nl = nl, .fn = fn, .arg = arg, .st = st, .seq = 0,
	};
	struct nl_cb *cb;
	int ret;

	memset(st, 0, sizeof(*st));
	cb = mrnl_callbacks(&x);
	if (!cb) {
		st->error = ENOMEM;
		return -1;
	}
	ret = nl_recvmsgs(nl->sk, cb);
	nl_cb_put(cb);
	if (x.failed)
		return -1;
	/* recvmsg's ENOBUFS reaches us as libnl's NLE_NOMEM */
	if (ret == -NLE_NOMEM)
		return -ENOBUFS;
	if (ret < 0) {
		st->error = EIO;
		snprintf(st->msg, sizeof(st->msg), "%s", nl_geterror(ret));
		return -1;
	}
	return 0;
}
