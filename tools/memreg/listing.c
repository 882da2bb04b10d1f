// SPDX-License-Identifier: GPL-2.0
/*
 * Dumps as sorted tables.
 *
 * The kernel dumps in the order of its own ids (context ids for processes,
 * cyclic registration ids), which is neither the pid order people look
 * for nor stable from one run to the next.  So the messages of a dump are
 * kept, as they came, in one growing buffer, sorted by a key taken from
 * each when it arrives, and printed at the end: a listing of 100,000
 * registrations costs their messages' bytes (about 200 each) and one sort,
 * not an allocation per row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/memreg.h>

#include "comm.h"
#include "listing.h"

struct listing_row {
	uint64_t key[2];
	size_t seq;		/* arrival: ties keep the kernel's order */
	size_t off;		/* of its message in listing_state.msgs */
};

struct listing_state {
	const struct listing *l;
	char *msgs;		/* the messages, each at a 4-byte boundary */
	size_t msgs_len, msgs_cap;
	struct listing_row *rows;
	size_t n, rows_cap;
};

uint64_t listing_key_u32(const struct nlattr *a)
{
	return a ? nla_get_u32(a) : LISTING_KEY_LAST;
}

/* Room for @need elements of @size in *@p; doubling, so amortised O(1). */
static int listing_reserve(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int listing_keep(struct nlmsghdr *nlh, void *arg)
{
	struct listing_state *s = arg;
	size_t len = NLMSG_ALIGN(nlh->nlmsg_len);
	struct listing_row *r;
	uint64_t key[2];
	int ret;

	ret = s->l->sort_key(nlh, key);
	if (ret < 0)
		return ret;
	if (listing_reserve((void **)&s->msgs, &s->msgs_cap,
			    s->msgs_len + len, 1) ||
	    listing_reserve((void **)&s->rows, &s->rows_cap, s->n + 1,
			    sizeof(*s->rows)))
		return -ENOMEM;
	memcpy(s->msgs + s->msgs_len, nlh, nlh->nlmsg_len);
	r = &s->rows[s->n];
	r->key[0] = key[0];
	r->key[1] = key[1];
	r->seq = s->n++;
	r->off = s->msgs_len;
	s->msgs_len += len;
	return 0;
}

static int listing_cmp(const void *pa, const void *pb)
{
	const struct listing_row *a = pa, *b = pb;

	if (a->key[0] != b->key[0])
		return a->key[0] < b->key[0] ? -1 : 1;
	if (a->key[1] != b->key[1])
		return a->key[1] < b->key[1] ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The rows, sorted; 0 or the first printer's negative errno. */
static int listing_print(struct out *o, struct listing_state *s)
{
	size_t i;
	int ret = 0;

	qsort(s->rows, s->n, sizeof(*s->rows), listing_cmp);
	s->l->begin(o);
	for (i = 0; i < s->n && !ret; i++)
		ret = s->l->print_row(o, (struct nlmsghdr *)(s->msgs +
							      s->rows[i].off));
	out_table_end(o);
	return ret;
}

int listing_run(struct memreg *m, const struct listing *l)
{
	struct listing_state s = { .l = l };
	struct nlerr_status st;
	struct nl_msg *req;
	int ret, pret;

	req = mrnl_request(&m->nl, l->cmd, NLM_F_DUMP);
	if (req && ((m->args.has_pid &&
		     nla_put_u32(req, MEMREG_A_PID, m->args.pid) < 0) ||
		    (m->args.has_device &&
		     nla_put_u32(req, MEMREG_A_DEVICE, m->args.device) < 0))) {
		nlmsg_free(req);
		req = NULL;
	}
	ret = mrnl_transact(&m->nl, req, listing_keep, &s, &st);

	/*
	 * The kernel filters by pid without asking whether the pid is a
	 * process: an empty answer for a pid that is none is a mistake of
	 * the caller's, said as "limits show pid" says it.
	 */
	if (!ret && !s.n && m->args.has_pid && !proc_pid_alive(m->args.pid)) {
		proc_report_no_context(m->err, m->args.pid);
		ret = 1;
		goto out;
	}
	if (s.n || !ret) {
		pret = listing_print(&m->out, &s);
		if (pret < 0 && !ret) {
			st.error = -pret;
			st.msg[0] = '\0';
			ret = -1;
		}
	}

	if (ret) {
		if (st.error == ESRCH && m->args.has_pid)
			proc_report_no_context(m->err, m->args.pid);
		else if ((st.error == ENODEV || st.error == ENXIO) &&
			 m->args.has_device)
			fprintf(m->err, "memreg: no device %u\n",
				m->args.device);
		else
			nlerr_report(m->err, l->what, &st, NULL);
		ret = 1;
		goto out;
	}
	nlerr_report_warnings(m->err, &st);
out:
	free(s.msgs);
	free(s.rows);
	return ret;
}
