// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel error messages and extended acks.
 *
 * With NETLINK_EXT_ACK set the kernel appends NLMSGERR_ATTR_* attributes to
 * its error (and DONE) messages and flags them NLM_F_ACK_TLVS.  In an
 * NLMSG_ERROR they follow the echoed request, which is cut down to its
 * header when NLM_F_CAPPED is set; in an NLMSG_DONE they follow the int
 * error code.  libnl does not decode them, so this file does.
 */
#include <errno.h>
#include <string.h>

#include <netlink/attr.h>

#include "nlerr.h"

/* Copy NLMSGERR_ATTR_MSG out of the attribute stream at @p, if present. */
static void nlerr_ack_tlvs(const unsigned char *p, size_t len,
			   struct nlerr_status *st)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t alen = a->nla_len, step = NLA_ALIGN(alen);

		if (alen < NLA_HDRLEN || alen > len)
			return;
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG) {
			size_t n = alen - NLA_HDRLEN;
			const char *s = (const char *)p + NLA_HDRLEN;

			/* the kernel NUL-terminates; do not rely on it */
			n = strnlen(s, n);
			if (n >= sizeof(st->msg))
				n = sizeof(st->msg) - 1;
			memcpy(st->msg, s, n);
			st->msg[n] = '\0';
			/* a newline would break "one line per error" */
			st->msg[strcspn(st->msg, "\n")] = '\0';
			return;
		}
		if (step >= len)
			return;
		p += step;
		len -= step;
	}
}

int nlerr_decode(const struct nlmsghdr *nlh, size_t len,
		 struct nlerr_status *st)
{
	const unsigned char *data = (const unsigned char *)nlh + NLMSG_HDRLEN;
	size_t payload, off;
	int code;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN ||
	    nlh->nlmsg_len > len)
		return -EBADMSG;
	payload = nlh->nlmsg_len - NLMSG_HDRLEN;

	if (nlh->nlmsg_type == NLMSG_ERROR) {
		const struct nlmsgerr *e = (const struct nlmsgerr *)data;

		if (payload < sizeof(*e))
			return -EBADMSG;
		code = e->error;
		if (nlh->nlmsg_flags & NLM_F_CAPPED)
			off = sizeof(*e);
		else
			off = sizeof(e->error) + NLMSG_ALIGN(e->msg.nlmsg_len);
	} else if (nlh->nlmsg_type == NLMSG_DONE) {
		/* a dump that ended without trouble may carry no payload */
		if (payload < sizeof(int)) {
			st->error = 0;
			return 0;
		}
		memcpy(&code, data, sizeof(code));
		off = NLMSG_ALIGN(sizeof(int));
	} else {
		return -EBADMSG;
	}

	/* errors are negative errnos; a positive value is not one */
	st->error = code < 0 ? -code : 0;
	if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) && off < payload)
		nlerr_ack_tlvs(data + off, payload - off, st);
	return 0;
}

void nlerr_report(FILE *err, const char *what, const struct nlerr_status *st,
		  const char *cap)
{
	const char *sep = st->msg[0] ? ": " : "";

	if ((st->error == EPERM || st->error == EACCES) && cap)
		fprintf(err, "memreg: permission denied (need %s)%s%s\n",
			cap, sep, st->msg);
	else if (st->error == EPERM || st->error == EACCES)
		fprintf(err, "memreg: %s: permission denied%s%s\n",
			what, sep, st->msg);
	else
		fprintf(err, "memreg: %s: %s%s%s\n", what,
			strerror(st->error), sep, st->msg);
}

void nlerr_report_warnings(FILE *err, const struct nlerr_status *st)
{
	if (st->msg[0])
		fprintf(err, "memreg: warning from the kernel: %s\n", st->msg);
	if (st->dump_interrupted)
		fprintf(err, "memreg: warning: the list changed while it was read; rows may be missing or repeated (run again)\n");
}
