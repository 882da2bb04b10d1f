/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel said went wrong: the errno of an NLMSG_ERROR or of a
 * failed dump's NLMSG_DONE, with the extended ack message if it sent one,
 * and the words the tool uses to tell the user.
 */
#ifndef MEMREG_TOOL_NLERR_H
#define MEMREG_TOOL_NLERR_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/netlink.h>

struct nlerr_status {
	int error;		/* positive errno, 0 if none */
	char msg[256];		/* extended ack text, "" if none */
	bool dump_interrupted;	/* NLM_F_DUMP_INTR seen on some part */
};

/*
 * Decode an NLMSG_ERROR (error or plain ack) or NLMSG_DONE of @len bytes
 * into @st.  A message without an error may still carry an ack text (a
 * warning); it lands in st->msg with st->error 0.  Returns -EBADMSG for a
 * message too short to hold what its header claims, else 0.
 */
int nlerr_decode(const struct nlmsghdr *nlh, size_t len,
		 struct nlerr_status *st);

/*
 * Tell the user about a failed request, as "memreg: what: reason".
 * Permission errors get @cap, the capability the request needs, if given.
 */
void nlerr_report(FILE *err, const char *what, const struct nlerr_status *st,
		  const char *cap);

/*
 * After a request succeeded: pass on the kernel's warning, if it sent one,
 * and say that a dump may be inconsistent if the kernel flagged it so.
 */
void nlerr_report_warnings(FILE *err, const struct nlerr_status *st);

#endif /* MEMREG_TOOL_NLERR_H */
