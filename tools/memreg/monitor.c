// SPDX-License-Identifier: GPL-2.0
/*
 * memreg monitor: one line per event of the "events" multicast group until
 * SIGINT or SIGTERM.  Output is flushed after every event, since whoever
 * reads it (a test, a log shipper) is usually on the other end of a pipe.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include <linux/memreg.h>

#include "attrs.h"
#include "fmt.h"
#include "tool.h"

/*
 * Text labels of event fields, lower case as in "ip monitor".  One per
 * field region_fields() writes, in its order: a field past the last
 * label would be dropped, and a missing one would shift the labels.
 */
static const struct out_column region_event_columns[] = {
	{ "pid", 0 }, { "comm", 0 }, { "id", 0 }, { "handle", 0 }, { "type", 0 },
	{ "dev", 0 }, { "addr", 0 }, { "len", 0 }, { "pinned", 0 },
	{ "grants", 0 }, { "imports", 0 }, { "age", 0 },
};

static const struct out_column refused_event_columns[] = {
	{ "pid", 0 }, { "comm", 0 }, { "reason", 0 }, { "len", 0 },
	{ "type", 0 }, { "cgroup", 0 },
};

static const struct out_column heap_event_columns[] = {
	{ "pid", 0 }, { "comm", 0 }, { "heap", 0 }, { "kind", 0 },
	{ "domain", 0 }, { "dev", 0 }, { "size", 0 }, { "count", 0 },
	{ "bytes", 0 },
};

static const struct out_column proc_event_columns[] = {
	{ "pid", 0 }, { "comm", 0 },
};

#define N(a)	(sizeof(a) / sizeof((a)[0]))

static void monitor_comm(struct out *o, struct nlattr **tb,
			 bool proc_fallback)
{
	char buf[64];
	const char *comm = attrs_comm(tb, buf, sizeof(buf), proc_fallback);

	if (comm)
		out_string(o, "comm", comm);
	else
		out_absent(o, "comm");
}

static void monitor_reason(struct out *o, const struct nlattr *a)
{
	char buf[FMT_BUF_LEN];
	const char *name;

	if (!a) {
		out_absent(o, "reason");
		return;
	}
	name = attrs_refusal_name(nla_get_u32(a));
	if (!name) {
		snprintf(buf, sizeof(buf), "reason%u", nla_get_u32(a));
		name = buf;
	}
	out_string(o, "reason", name);
}

/* An mstx heap event: what happened to which heap, and how often. */
static int monitor_heap(struct out *o, struct nlattr **tb)
{
	struct nlattr *hb[MEMREG_HEAP_A_MAX + 1];
	char buf[FMT_BUF_LEN];
	const char *kind;

	if (!tb[MEMREG_A_HEAP] || attrs_parse_heap(tb[MEMREG_A_HEAP], hb) < 0)
		return -EBADMSG;
	out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
	monitor_comm(o, tb, true);
	out_attr_u32(o, "heap", hb[MEMREG_HEAP_A_ID]);
	if (hb[MEMREG_HEAP_A_EVENT]) {
		kind = attrs_heap_event_name(nla_get_u32(hb[MEMREG_HEAP_A_EVENT]));
		if (!kind) {
			snprintf(buf, sizeof(buf), "kind%u",
				 nla_get_u32(hb[MEMREG_HEAP_A_EVENT]));
			kind = buf;
		}
		out_string(o, "kind", kind);
	} else {
		out_absent(o, "kind");
	}
	if (hb[MEMREG_HEAP_A_DOMAIN])
		out_string(o, "domain", nla_get_string(hb[MEMREG_HEAP_A_DOMAIN]));
	else
		out_absent(o, "domain");
	out_attr_u32(o, "device", hb[MEMREG_HEAP_A_DEVICE]);
	out_attr_size(o, "size", hb[MEMREG_HEAP_A_SIZE]);
	out_attr_u64(o, "count", hb[MEMREG_HEAP_A_COUNT]);
	out_attr_size(o, "bytes", hb[MEMREG_HEAP_A_BYTES]);
	return 0;
}

int monitor_print_event(struct out *o, struct nlmsghdr *nlh)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *tb[MEMREG_A_MAX + 1];
	char tag[FMT_BUF_LEN];
	const char *name;

	if (nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	name = attrs_event_name(gh->cmd);

	switch (gh->cmd) {
	case MEMREG_CMD_EVENT_REG_ADDED:
	case MEMREG_CMD_EVENT_REG_REMOVED:
		out_line_begin(o, region_event_columns,
			       N(region_event_columns), name);
		region_fields(o, tb, true);
		break;
	case MEMREG_CMD_EVENT_LIMIT_REFUSED:
		out_line_begin(o, refused_event_columns,
			       N(refused_event_columns), name);
		out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
		monitor_comm(o, tb, true);
		monitor_reason(o, tb[MEMREG_A_REASON]);
		out_attr_size(o, "len", tb[MEMREG_A_LEN]);
		out_attr_mem_type(o, "type", tb[MEMREG_A_TYPE]);
		/* reason cgroup: the node whose limit refused */
		if (tb[MEMREG_A_CGROUP])
			out_string(o, "cgroup",
				   nla_get_string(tb[MEMREG_A_CGROUP]));
		else
			out_absent(o, "cgroup");
		out_attr_json_u64(o, "cgroup_id", tb[MEMREG_A_CGROUP_ID]);
		break;
	case MEMREG_CMD_EVENT_HEAP:
		out_line_begin(o, heap_event_columns, N(heap_event_columns),
			       name);
		if (monitor_heap(o, tb) < 0) {
			out_line_end(o);
			return -EBADMSG;
		}
		break;
	case MEMREG_CMD_EVENT_PROC_GONE:
		out_line_begin(o, proc_event_columns, N(proc_event_columns),
			       name);
		out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
		/* the process is gone: /proc/PID is someone else, if anyone */
		monitor_comm(o, tb, false);
		break;
	default:
		/* an event from a newer module: show that something happened */
		snprintf(tag, sizeof(tag), "EVENT%u", gh->cmd);
		out_line_begin(o, proc_event_columns, N(proc_event_columns),
			       tag);
		out_attr_u32(o, "pid", tb[MEMREG_A_PID]);
		monitor_comm(o, tb, false);
		break;
	}
	out_line_end(o);
	fflush(o->f);
	return 0;
}

static int monitor_event(struct nlmsghdr *nlh, void *arg)
{
	struct memreg *m = arg;

	/* one bad event is no reason to stop watching */
	if (monitor_print_event(&m->out, nlh) < 0)
		fprintf(m->err, "memreg: skipped a malformed event\n");
	return 0;
}

static volatile sig_atomic_t monitor_stop;

static void monitor_on_signal(int sig)
{
	(void)sig;
	monitor_stop = 1;
}

/*
 * SIGINT and SIGTERM are blocked except inside ppoll(), so a signal can
 * only arrive while we wait and is never lost between the check of
 * monitor_stop and going to sleep.  libnl itself retries on EINTR, which
 * is why the wait is ours and not inside nl_recvmsgs().
 */
static int monitor_loop(struct memreg *m)
{
	struct sigaction sa = { .sa_handler = monitor_on_signal };
	struct pollfd pfd = { .fd = mrnl_fd(&m->nl), .events = POLLIN };
	struct nlerr_status st;
	sigset_t stop_sigs, wait_mask;
	int ret;

	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_sigs, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	while (!monitor_stop) {
		ret = ppoll(&pfd, 1, NULL, &wait_mask);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			fprintf(m->err, "memreg: monitor: poll: %s\n",
				strerror(errno));
			return 1;
		}
		ret = mrnl_receive(&m->nl, monitor_event, m, &st);
		if (ret == -ENOBUFS) {
			fprintf(m->err, "memreg: warning: events were lost (receive buffer overflow)\n");
			continue;
		}
		if (ret < 0) {
			nlerr_report(m->err, "monitor", &st, NULL);
			return 1;
		}
	}

	/*
	 * Told to stop: print what the kernel had already queued, so that
	 * whoever stops us right after an event still sees it.
	 */
	while (poll(&pfd, 1, 0) > 0) {
		ret = mrnl_receive(&m->nl, monitor_event, m, &st);
		if (ret < 0 && ret != -ENOBUFS)
			break;
	}
	return 0;
}

int cmd_monitor(struct memreg *m)
{
	struct nlerr_status st;

	if (mrnl_subscribe(&m->nl, MEMREG_GENL_MCGRP_EVENTS, &st)) {
		/* the group is open to everyone: no capability to name */
		nlerr_report(m->err, "monitor", &st, NULL);
		return 1;
	}
	return monitor_loop(m);
}
