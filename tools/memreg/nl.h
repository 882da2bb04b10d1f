/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tool's generic netlink connection to the memreg module (libnl-genl-3).
 */
#ifndef MEMREG_TOOL_NL_H
#define MEMREG_TOOL_NL_H

#include <stdint.h>
#include <stdio.h>

#include <netlink/netlink.h>

#include "nlerr.h"

struct mrnl {
	struct nl_sock *sk;
	int family;		/* resolved id of genl family "memreg" */
};

/*
 * A generic netlink socket set up the way the tool talks (extended acks,
 * explicit acks), family not yet known.  -1 with the reason on @err.
 */
int mrnl_connect(struct mrnl *nl, FILE *err);

/*
 * Connect and resolve the family.  On failure the reason is printed on
 * @err ("kernel module not loaded" when the family does not exist) and -1
 * is returned.
 */
int mrnl_open(struct mrnl *nl, FILE *err);
void mrnl_close(struct mrnl *nl);

/* A request for @cmd with @flags (NLM_F_DUMP or NLM_F_ACK); NULL if OOM. */
struct nl_msg *mrnl_request(struct mrnl *nl, uint8_t cmd, int flags);

/*
 * Called for each memreg message of a reply, as it arrives.  Returns 0, or
 * a negative errno that stops the exchange and becomes its error.
 */
typedef int (*mrnl_reply_fn)(struct nlmsghdr *nlh, void *arg);

/*
 * Send @req (consumed) and read the answer to its end: the ack of a doit,
 * NLMSG_DONE of a dump, or an error.  Returns 0, or -1 with @st->error set
 * (and @st->msg, if the kernel explained).  A dump that was interrupted by
 * a change of the kernel's lists is still read to its end and flagged in
 * @st->dump_interrupted.
 */
int mrnl_transact(struct mrnl *nl, struct nl_msg *req, mrnl_reply_fn fn,
		  void *arg, struct nlerr_status *st);

/* Join multicast group @group of the family; -1 with @st on failure. */
int mrnl_subscribe(struct mrnl *nl, const char *group,
		   struct nlerr_status *st);

/*
 * Read what is waiting on a subscribed socket and pass each memreg message
 * to @fn.  Returns 0, -ENOBUFS if the socket overflowed and events were
 * lost (the socket stays usable), or -1 with @st set.
 */
int mrnl_receive(struct mrnl *nl, mrnl_reply_fn fn, void *arg,
		 struct nlerr_status *st);

/* The socket's file descriptor, to poll. */
int mrnl_fd(const struct mrnl *nl);

#endif /* MEMREG_TOOL_NL_H */
