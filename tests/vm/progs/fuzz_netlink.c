// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_fuzz: the generic netlink family "memreg", through a raw socket
 * and messages built by hand, so that every byte can be wrong: commands as
 * do and as dump, with the attributes each one reads (a pid of this or
 * another worker, of nobody, of init; a device; limits), and with wrong
 * ones (other types, short and long payloads, nla_len past the message or
 * below the header, nests of garbage, unknown commands and versions).
 *
 * The kernel handles a request while sendmsg() runs, and continues a dump
 * inside recvmsg(); so reading with MSG_DONTWAIT until EAGAIN sees every
 * answer without ever sleeping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz.h"

int fz_genl_family;
static int fz_genl_events;	/* multicast group id of "events", 0 if unknown */

#define FZ_NLBUF 65536
static __thread uint8_t fz_nlrx[FZ_NLBUF] __attribute__((aligned(8)));

static int fz_nl_socket(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1;

	if (fd >= 0)
		setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

/* Append an attribute at *off; its payload may be NULL (zeroes). */
static void fz_put(uint8_t *buf, size_t *off, size_t room, uint16_t type,
		   const void *data, uint16_t len)
{
	struct nlattr *a = (void *)(buf + *off);

	if (*off + NLA_HDRLEN + NLA_ALIGN(len) > room)
		return;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (data)
		memcpy(buf + *off + NLA_HDRLEN, data, len);
	else
		memset(buf + *off + NLA_HDRLEN, 0, len);
	memset(buf + *off + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	*off += NLA_HDRLEN + NLA_ALIGN(len);
}

/* Resolve the family and its "events" group with CTRL_CMD_GETFAMILY. */
int fz_nl_resolve(void)
{
	uint8_t buf[256] __attribute__((aligned(8)));
	struct nlmsghdr *nh = (void *)buf;
	struct genlmsghdr *gh = NLMSG_DATA(nh);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	int fd = fz_nl_socket();
	ssize_t n;

	if (fd < 0)
		return -1;
	memset(buf, 0, sizeof(buf));
	fz_put(buf, &off, sizeof(buf), CTRL_ATTR_FAMILY_NAME, MEMREG_GENL_NAME,
	       sizeof(MEMREG_GENL_NAME));
	nh->nlmsg_len = off;
	nh->nlmsg_type = GENL_ID_CTRL;
	nh->nlmsg_flags = NLM_F_REQUEST;
	nh->nlmsg_seq = 1;
	gh->cmd = CTRL_CMD_GETFAMILY;
	gh->version = 1;
	if (send(fd, buf, off, 0) < 0)
		goto out;
	n = recv(fd, fz_nlrx, FZ_NLBUF, MSG_DONTWAIT);
	for (nh = (void *)fz_nlrx; n > 0 && NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		struct nlattr *a;
		int alen;

		if (nh->nlmsg_type != GENL_ID_CTRL)
			continue;
		a = (void *)((uint8_t *)NLMSG_DATA(nh) + GENL_HDRLEN);
		alen = nh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
		for (; alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
		       a->nla_len <= alen;
		     alen -= NLA_ALIGN(a->nla_len),
		     a = (void *)((uint8_t *)a + NLA_ALIGN(a->nla_len))) {
			uint8_t *pl = (uint8_t *)a + NLA_HDRLEN;

			if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
				fz_genl_family = *(uint16_t *)pl;
			if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
				continue;
			/* { { NAME, ID }, ... }: take the "events" one */
			for (struct nlattr *g = (void *)pl;
			     (uint8_t *)g + NLA_HDRLEN <= (uint8_t *)a + a->nla_len &&
			     g->nla_len >= NLA_HDRLEN;
			     g = (void *)((uint8_t *)g + NLA_ALIGN(g->nla_len))) {
				uint8_t *q = (uint8_t *)g + NLA_HDRLEN;
				uint32_t id = 0;
				bool events = false;

				while (q + NLA_HDRLEN <= (uint8_t *)g + g->nla_len) {
					struct nlattr *x = (void *)q;

					if (x->nla_len < NLA_HDRLEN)
						break;
					if (x->nla_type == CTRL_ATTR_MCAST_GRP_ID)
						id = *(uint32_t *)(q + NLA_HDRLEN);
					if (x->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
					    !strcmp((char *)q + NLA_HDRLEN,
						    MEMREG_GENL_MCGRP_EVENTS))
						events = true;
					q += NLA_ALIGN(x->nla_len);
				}
				if (events)
					fz_genl_events = id;
			}
		}
	}
out:
	close(fd);
	return fz_genl_family ? 0 : -1;
}

/* Some pid: ours, a neighbour's, a worker's, init, nobody, absurd. */
static uint32_t fz_some_pid(struct fz_thread *t)
{
	switch (fz_below(&t->rng, 8)) {
	case 0:
	case 1:
		return getpid();
	case 2:
		return fz_sh->tokens[fz_below(&t->rng, FZ_NTOKENS)].pid;
	case 3:
		return getpid() + fz_below(&t->rng, 8) - 4;
	case 4:
		return 1;
	case 5:
		return 0x7fffffff;
	case 6:
		return 0xffffffff;
	default:
		return fz_below(&t->rng, 4194304);
	}
}

/* The attributes a command reads, right mostly. */
static void fz_good_attrs(struct fz_thread *t, uint8_t cmd, uint8_t *buf,
			  size_t *off, size_t room)
{
	uint32_t u32;
	uint64_t u64;

	/* PID filters the dumps but DEV_GET's, and aims SET_LIMITS */
	if (cmd != MEMREG_CMD_GET_STATS && cmd != MEMREG_CMD_DEV_GET &&
	    fz_one_in(&t->rng, cmd == MEMREG_CMD_SET_LIMITS ? 4 : 2)) {
		u32 = fz_some_pid(t);
		fz_put(buf, off, room, MEMREG_A_PID, &u32, 4);
	}
	if (cmd == MEMREG_CMD_DEV_GET && fz_one_in(&t->rng, 2)) {
		u32 = fz_below(&t->rng, 4);
		fz_put(buf, off, room, MEMREG_A_DEVICE, &u32, 4);
	}
	if (cmd != MEMREG_CMD_SET_LIMITS)
		return;
	/*
	 * Limits stay set for the rest of the run and every other test: keep
	 * them mostly generous so that registrations still succeed (the
	 * script puts the defaults back).
	 */
	for (uint16_t a = MEMREG_A_MAX_REGIONS; a <= MEMREG_A_MAX_DEV_BYTES; a++) {
		if (!fz_one_in(&t->rng, 2))
			continue;
		if (a == MEMREG_A_MAX_REGIONS)
			u64 = 64 + fz_below(&t->rng, 1024);
		else
			u64 = (1ULL << 24) << fz_below(&t->rng, 12);
		if (fz_one_in(&t->rng, 20))
			u64 = fz_interesting(&t->rng);
		fz_put(buf, off, room, a, &u64, 8);
	}
}

/* Attributes that are wrong in every way the parser has to catch. */
static void fz_bad_attrs(struct fz_thread *t, uint8_t *buf, size_t *off,
			 size_t room)
{
	unsigned int n = 1 + fz_below(&t->rng, 4);
	uint8_t junk[64];

	for (unsigned int i = 0; i < sizeof(junk); i++)
		junk[i] = fz_next(&t->rng);
	for (unsigned int i = 0; i < n; i++) {
		uint16_t type = fz_below(&t->rng, MEMREG_A_MAX + 8);
		uint16_t len;

		switch (fz_below(&t->rng, 6)) {
		case 0:		/* wrong payload size for its type */
			len = fz_below(&t->rng, 17);
			fz_put(buf, off, room, type, junk, len);
			break;
		case 1: {	/* a nest of garbage */
			size_t start = *off;
			struct nlattr *a = (void *)(buf + start);

			fz_put(buf, off, room, type | NLA_F_NESTED, NULL, 0);
			if (*off == start)
				break;
			len = fz_below(&t->rng, 40);
			fz_put(buf, off, room, fz_below(&t->rng, 64), junk, len);
			fz_put(buf, off, room, fz_below(&t->rng, 64) | NLA_F_NESTED,
			       junk + 8, fz_below(&t->rng, 24));
			a->nla_len = *off - start;
			break;
		}
		case 2: {	/* nla_len past the message */
			struct nlattr *a = (void *)(buf + *off);

			fz_put(buf, off, room, type, junk, 4);
			if ((uint8_t *)a < buf + *off)
				a->nla_len = 8 + fz_below(&t->rng, 4096);
			break;
		}
		case 3: {	/* nla_len below its header */
			struct nlattr *a = (void *)(buf + *off);

			fz_put(buf, off, room, type, junk, 4);
			if ((uint8_t *)a < buf + *off)
				a->nla_len = fz_below(&t->rng, NLA_HDRLEN);
			break;
		}
		case 4:		/* a string with no NUL */
			fz_put(buf, off, room, MEMREG_A_COMM, "xxxxxxxxxxxxxxxxxxxx", 20);
			break;
		default:	/* right size, random value */
			fz_put(buf, off, room, type, junk,
			       fz_one_in(&t->rng, 2) ? 4 : 8);
		}
	}
}

static const enum fz_kind fz_nl_kinds[][2] = {
	[MEMREG_CMD_GET_STATS] = { FZ_NL_DO_STATS, FZ_NL_DUMP_STATS },
	[MEMREG_CMD_PROC_GET] = { FZ_NL_DO_PROC, FZ_NL_DUMP_PROC },
	[MEMREG_CMD_REGION_GET] = { FZ_NL_DO_REGION, FZ_NL_DUMP_REGION },
	[MEMREG_CMD_SET_LIMITS] = { FZ_NL_DO_LIMITS, FZ_NL_DUMP_LIMITS },
	[MEMREG_CMD_DEV_GET] = { FZ_NL_DO_DEV, FZ_NL_DUMP_DEV },
	[MEMREG_CMD_HEAP_GET] = { FZ_NL_DO_HEAP, FZ_NL_DUMP_HEAP },
};

/*
 * Read every answer there is.  Returns 0 if the request was answered
 * without an error, the error of its NLMSG_ERROR, or ENODATA when nothing
 * came (a message the kernel drops without a word).
 */
static int fz_nl_drain(struct fz_thread *t, uint32_t seq)
{
	int ret = ENODATA;
	ssize_t n;

	for (int rounds = 0; rounds < 100000; rounds++) {
		struct nlmsghdr *nh;

		n = recv(t->nlfd, fz_nlrx, FZ_NLBUF, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ENOBUFS: events overran the socket; keep reading */
			if (errno == ENOBUFS)
				continue;
			break;
		}
		for (nh = (void *)fz_nlrx; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
			if (nh->nlmsg_seq != seq)
				continue;	/* an event, or an older request */
			if (nh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nh);

				ret = -e->error;
			} else if (ret == ENODATA) {
				ret = 0;
			}
		}
	}
	return ret;
}

void fz_netlink_one(struct fz_thread *t)
{
	uint8_t buf[2048] __attribute__((aligned(8)));
	struct nlmsghdr *nh = (void *)buf;
	struct genlmsghdr *gh = (void *)(buf + NLMSG_HDRLEN);
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN, sendlen;
	bool dump, garbage = fz_one_in(&t->rng, 6);
	uint8_t cmd;
	enum fz_kind kind;
	int ret;

	if (t->nlfd < 0) {
		t->nlfd = fz_nl_socket();
		if (t->nlfd < 0 || !fz_genl_family) {
			fz_count(FZ_NL_OTHER, errno ? errno : ENOENT);
			return;
		}
	}
	/* now and then listen to the events too (and let them overrun) */
	if (fz_genl_events && fz_one_in(&t->rng, 2000)) {
		int opt = fz_one_in(&t->rng, 2) ? NETLINK_ADD_MEMBERSHIP :
			  NETLINK_DROP_MEMBERSHIP;

		setsockopt(t->nlfd, SOL_NETLINK, opt, &fz_genl_events,
			   sizeof(fz_genl_events));
	}
	static const uint8_t cmds[] = {
		MEMREG_CMD_GET_STATS, MEMREG_CMD_PROC_GET, MEMREG_CMD_REGION_GET,
		MEMREG_CMD_SET_LIMITS, MEMREG_CMD_DEV_GET, MEMREG_CMD_HEAP_GET,
	};
	cmd = cmds[fz_below(&t->rng, sizeof(cmds))];
	if (fz_one_in(&t->rng, 15))
		cmd = fz_one_in(&t->rng, 2) ? fz_below(&t->rng, MEMREG_CMD_MAX + 4) :
		      fz_next(&t->rng);
	/* mostly as the command is served (do or dump), one in 8 the other way */
	dump = cmd != MEMREG_CMD_GET_STATS && cmd != MEMREG_CMD_SET_LIMITS;
	if (fz_one_in(&t->rng, 8))
		dump = !dump;
	/* SET_LIMITS is rare: each one changes what the other calls get */
	if (cmd == MEMREG_CMD_SET_LIMITS && !dump && !fz_one_in(&t->rng, 4))
		cmd = MEMREG_CMD_GET_STATS;
	kind = cmd < ARRAY_SIZE(fz_nl_kinds) &&
	       fz_nl_kinds[cmd][0] ? fz_nl_kinds[cmd][dump] : FZ_NL_OTHER;

	memset(buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	nh->nlmsg_type = fz_genl_family;
	if (fz_one_in(&t->rng, 100))
		nh->nlmsg_type = fz_below(&t->rng, 64);
	nh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	nh->nlmsg_seq = ++t->nlseq;
	gh->cmd = cmd;
	gh->version = fz_one_in(&t->rng, 50) ? fz_next(&t->rng) :
		      MEMREG_GENL_VERSION;
	if (garbage) {
		kind = FZ_NL_GARBAGE;
		if (fz_one_in(&t->rng, 2))
			fz_good_attrs(t, cmd, buf, &off, sizeof(buf));
		fz_bad_attrs(t, buf, &off, sizeof(buf));
		if (fz_one_in(&t->rng, 2))
			fz_good_attrs(t, cmd, buf, &off, sizeof(buf));
	} else {
		fz_good_attrs(t, cmd, buf, &off, sizeof(buf));
	}
	sendlen = off;
	nh->nlmsg_len = off;
	if (garbage && fz_one_in(&t->rng, 4)) {
		/* the header disagrees with what is sent, or there is no genl header */
		switch (fz_below(&t->rng, 3)) {
		case 0:
			nh->nlmsg_len = fz_below(&t->rng, off + 64);
			break;
		case 1:
			sendlen = NLMSG_HDRLEN + fz_below(&t->rng, GENL_HDRLEN + 1);
			nh->nlmsg_len = sendlen;
			break;
		default:
			nh->nlmsg_flags = fz_next(&t->rng) | NLM_F_REQUEST;
		}
	}
	if (send(t->nlfd, buf, sendlen, 0) < 0) {
		fz_count(kind, errno);
		return;
	}
	ret = fz_nl_drain(t, nh->nlmsg_seq);
	fz_count(kind, ret > 0 && ret < FZ_NERRNO ? ret : ret ? FZ_NERRNO : 0);
}
