// SPDX-License-Identifier: GPL-2.0
/*
 * Dumps as tables.  Rows are written as the kernel's messages arrive: a
 * listing of 100,000 registrations costs one message buffer, not a copy of
 * the list.
 */
#include <errno.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "listing.h"

struct listing_state {
	struct out *o;
	const struct listing *l;
	bool begun;
};

static int listing_row(struct nlmsghdr *nlh, void *arg)
{
	struct listing_state *s = arg;

	if (!s->begun) {
		s->l->begin(s->o);
		s->begun = true;
	}
	return s->l->print_row(s->o, nlh);
}

int listing_run(struct memreg *m, const struct listing *l)
{
	struct listing_state s = { .o = &m->out, .l = l };
	struct nlerr_status st;
	struct nl_msg *req;
	int ret;

	req = mrnl_request(&m->nl, l->cmd, NLM_F_DUMP);
	if (req && ((m->args.has_pid &&
		     nla_put_u32(req, MEMREG_A_PID, m->args.pid) < 0) ||
		    (m->args.has_device &&
		     nla_put_u32(req, MEMREG_A_DEVICE, m->args.device) < 0))) {
		nlmsg_free(req);
		req = NULL;
	}
	ret = mrnl_transact(&m->nl, req, listing_row, &s, &st);
	if (!s.begun && !ret)
		l->begin(&m->out);
	if (s.begun || !ret)
		out_table_end(&m->out);

	if (ret) {
		if (st.error == ESRCH && m->args.has_pid)
			fprintf(m->err, "memreg: no memreg context for pid %u\n",
				m->args.pid);
		else if ((st.error == ENODEV || st.error == ENXIO) &&
			 m->args.has_device)
			fprintf(m->err, "memreg: no device %u\n",
				m->args.device);
		else
			nlerr_report(m->err, l->what, &st, NULL);
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}
