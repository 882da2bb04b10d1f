// SPDX-License-Identifier: GPL-2.0
/*
 * memreg limits [show] cgroup PATH, memreg limits set cgroup PATH ...:
 * one cgroup v2 node's charges and limits (MEMREG_CMD_CGROUP_GET, a dump
 * filtered by the node) and changing them (MEMREG_CMD_CGROUP_SET).
 *
 * The kernel takes the node's directory in our file system, since that
 * is what permissions are on; PATH may be that directory, or the node's
 * path in the hierarchy as /proc/PID/cgroup prints it, under the first
 * cgroup2 mount.
 */
#include <errno.h>
#include <limits.h>
#include <mntent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/magic.h>
#include <linux/memreg.h>

#include "attrs.h"
#include "tool.h"

/* Where cgroup2 is mounted: the first mount in /proc/self/mounts. */
static int cgroup2_mount(char *buf, size_t len)
{
	struct mntent *me;
	FILE *f;
	int ret = -ENOENT;

	f = setmntent("/proc/self/mounts", "r");
	if (!f)
		return -errno;
	while ((me = getmntent(f))) {
		if (!strcmp(me->mnt_type, "cgroup2")) {
			ret = snprintf(buf, len, "%s", me->mnt_dir) <
			      (int)len ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	endmntent(f);
	return ret;
}

int cgroup_dir(const char *path, char *buf, size_t len, FILE *err)
{
	struct statfs sfs;
	char mnt[PATH_MAX];
	int ret;

	if (!statfs(path, &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC) {
		if (snprintf(buf, len, "%s", path) >= (int)len)
			goto too_long;
		return 0;
	}
	ret = cgroup2_mount(mnt, sizeof(mnt));
	if (ret) {
		fprintf(err, "memreg: %s is no cgroup2 directory, and no cgroup2 file system is mounted\n",
			path);
		return 1;
	}
	if (snprintf(buf, len, "%s/%s", mnt, path + (*path == '/')) >=
	    (int)len)
		goto too_long;
	return 0;
too_long:
	fprintf(err, "memreg: cgroup path too long: %s\n", path);
	return 1;
}

static const struct out_column cgroup_columns[] = {
	{ "cgroup", 12 },
	{ "id", 6 },
	{ "host", 8 },
	{ "max host", 8 },
	{ "dev", 8 },
	{ "dev alloc", 9 },
	{ "max dev", 8 },
	{ "dmabuf", 8 },
	{ "max dmabuf", 10 },
	{ "refused", 7 },
};

#define N_CGROUP_COLUMNS (sizeof(cgroup_columns) / sizeof(cgroup_columns[0]))

static void out_attr_limit(struct out *o, const char *key,
			   const struct nlattr *a)
{
	/* no attribute: no limit */
	out_count(o, key, a ? nla_get_u64(a) : MEMREG_UNLIMITED);
}

int cgroup_print(struct out *o, struct nlmsghdr *nlh)
{
	struct nlattr *tb[MEMREG_A_MAX + 1];

	if (attrs_parse(nlh, tb) < 0)
		return -EBADMSG;
	out_block_begin(o, cgroup_columns, N_CGROUP_COLUMNS);
	if (tb[MEMREG_A_CGROUP])
		out_string(o, "cgroup", nla_get_string(tb[MEMREG_A_CGROUP]));
	else
		out_absent(o, "cgroup");
	out_attr_u64(o, "cgroup_id", tb[MEMREG_A_CGROUP_ID]);
	out_attr_size(o, "host_bytes", tb[MEMREG_A_HOST_BYTES]);
	out_attr_limit(o, "max_host_bytes", tb[MEMREG_A_MAX_HOST_BYTES]);
	out_attr_size(o, "dev_bytes", tb[MEMREG_A_DEV_BYTES]);
	out_attr_size(o, "dev_alloc_bytes", tb[MEMREG_A_DEV_ALLOC_BYTES]);
	out_attr_limit(o, "max_dev_bytes", tb[MEMREG_A_MAX_DEV_BYTES]);
	out_attr_size(o, "dmabuf_bytes", tb[MEMREG_A_DMABUF_BYTES]);
	out_attr_limit(o, "max_dmabuf_bytes", tb[MEMREG_A_MAX_DMABUF_BYTES]);
	out_attr_u64(o, "refused", tb[MEMREG_A_REFUSED_CGROUP]);
	out_block_end(o);
	return 0;
}

struct cgroup_state {
	struct out *o;
	bool printed;
};

static int cgroup_reply(struct nlmsghdr *nlh, void *arg)
{
	struct cgroup_state *s = arg;

	if (s->printed)
		return 0;
	s->printed = true;
	return cgroup_print(s->o, nlh);
}

static int cgroup_show(struct memreg *m, const char *dir)
{
	struct cgroup_state s = { .o = &m->out };
	struct nlerr_status st;
	struct nl_msg *req;

	req = mrnl_request(&m->nl, MEMREG_CMD_CGROUP_GET, NLM_F_DUMP);
	if (req && nla_put_string(req, MEMREG_A_CGROUP_DIR, dir) < 0) {
		nlmsg_free(req);
		req = NULL;
	}
	if (mrnl_transact(&m->nl, req, cgroup_reply, &s, &st)) {
		nlerr_report(m->err, "limits show cgroup", &st, NULL);
		return 1;
	}
	if (!s.printed) {
		/* memreg keeps no counters of it: nothing charged, no limit */
		out_block_begin(&m->out, cgroup_columns, N_CGROUP_COLUMNS);
		out_string(&m->out, "cgroup", m->args.cgroup);
		out_absent(&m->out, "cgroup_id");
		out_size(&m->out, "host_bytes", 0);
		out_count(&m->out, "max_host_bytes", MEMREG_UNLIMITED);
		out_size(&m->out, "dev_bytes", 0);
		out_size(&m->out, "dev_alloc_bytes", 0);
		out_count(&m->out, "max_dev_bytes", MEMREG_UNLIMITED);
		out_size(&m->out, "dmabuf_bytes", 0);
		out_count(&m->out, "max_dmabuf_bytes", MEMREG_UNLIMITED);
		out_u64(&m->out, "refused", 0);
		out_block_end(&m->out);
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}

static int cgroup_reply_ignore(struct nlmsghdr *nlh, void *arg)
{
	(void)nlh;
	(void)arg;
	return 0;
}

static int cgroup_set(struct memreg *m, const char *dir)
{
	const struct memreg_args *a = &m->args;
	struct nlerr_status st;
	struct nl_msg *req;

	req = mrnl_request(&m->nl, MEMREG_CMD_CGROUP_SET, NLM_F_ACK);
	if (req &&
	    (nla_put_string(req, MEMREG_A_CGROUP_DIR, dir) < 0 ||
	     ((a->set & SET_HOST) &&
	      nla_put_u64(req, MEMREG_A_MAX_HOST_BYTES, a->max_host_bytes) < 0) ||
	     ((a->set & SET_DEV) &&
	      nla_put_u64(req, MEMREG_A_MAX_DEV_BYTES, a->max_dev_bytes) < 0) ||
	     ((a->set & SET_DMABUF) &&
	      nla_put_u64(req, MEMREG_A_MAX_DMABUF_BYTES,
			  a->max_dmabuf_bytes) < 0))) {
		nlmsg_free(req);
		req = NULL;
	}
	if (mrnl_transact(&m->nl, req, cgroup_reply_ignore, NULL, &st)) {
		nlerr_report(m->err, "limits set cgroup", &st,
			     "CAP_NET_ADMIN or write access to the cgroup's parent directory");
		return 1;
	}
	nlerr_report_warnings(m->err, &st);
	return 0;
}

int cmd_cgroup_limits(struct memreg *m)
{
	char dir[PATH_MAX];

	if (cgroup_dir(m->args.cgroup, dir, sizeof(dir), m->err))
		return 1;
	return m->args.action == ACT_SET ? cgroup_set(m, dir) :
					   cgroup_show(m, dir);
}
