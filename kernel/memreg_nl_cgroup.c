// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the cgroups over netlink: MEMREG_CMD_CGROUP_GET (a dump of the
 * nodes memreg keeps counters of) and MEMREG_CMD_CGROUP_SET (one node's
 * limits), and how a request names a cgroup.
 *
 * A request names a cgroup by its directory in the sender's file system
 * (CGROUP_DIR: a path on a cgroup2 mount), not by a path in the
 * hierarchy: the directory is what permissions are on.  Limits follow
 * the cgroup v2 delegation rule: the one who may make and remove a node
 * (write and search its parent directory) may limit it, so the owner of a
 * delegated subtree limits the nodes below its root, not the root itself,
 * whose limits are its delegator's.  CAP_NET_ADMIN may limit any node.
 *
 * Without CONFIG_CGROUPS there is no node to name: both commands answer
 * EOPNOTSUPP, and nothing names a cgroup in replies or events.
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/fs.h>
#include <linux/kernfs.h>
#include <linux/magic.h>
#include <linux/namei.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include "memreg_nl.h"

const struct nla_policy memreg_nl_cgroup_dump_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_CGROUP_DIR]		= { .type = NLA_NUL_STRING,
					    .len = PATH_MAX - 1 },
};

const struct nla_policy memreg_nl_cgroup_set_policy[MEMREG_A_MAX + 1] = {
	[MEMREG_A_CGROUP_DIR]		= { .type = NLA_NUL_STRING,
					    .len = PATH_MAX - 1 },
	[MEMREG_A_MAX_HOST_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_DEV_BYTES]	= { .type = NLA_U64 },
	[MEMREG_A_MAX_DMABUF_BYTES]	= { .type = NLA_U64 },
};

#ifdef CONFIG_CGROUPS
/* The limits CGROUP_SET takes, by the limit's memory type. */
static const u16 memreg_nl_cgroup_max_attr[MEMREG_MEM_TYPES] = {
	[MEMREG_MEM_HOST]	= MEMREG_A_MAX_HOST_BYTES,
	[MEMREG_MEM_DEVICE]	= MEMREG_A_MAX_DEV_BYTES,
	[MEMREG_MEM_DMABUF]	= MEMREG_A_MAX_DMABUF_BYTES,
};

/* And the charges the dump reports, by enum memreg_room_kind. */
static const u16 memreg_nl_cgroup_use_attr[MEMREG_ROOM_KINDS] = {
	[MEMREG_ROOM_HOST]	= MEMREG_A_HOST_BYTES,
	[MEMREG_ROOM_DEVICE]	= MEMREG_A_DEV_BYTES,
	[MEMREG_ROOM_DMABUF]	= MEMREG_A_DMABUF_BYTES,
	[MEMREG_ROOM_DEV_ALLOC]	= MEMREG_A_DEV_ALLOC_BYTES,
};

int memreg_nl_put_cgroup(struct sk_buff *skb, struct cgroup *cgrp,
			 bool global)
{
	char *buf;
	int len, err;

	if (memreg_nl_put_u64(skb, MEMREG_A_CGROUP_ID, cgroup_id(cgrp)))
		return -EMSGSIZE;
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!buf)
		return 0;	/* the id says which, the path is a courtesy */
	if (global)
		len = kernfs_path_from_node(cgrp->kn, NULL, buf, PATH_MAX);
	else
		len = cgroup_path_ns(cgrp, buf, PATH_MAX,
				     current->nsproxy->cgroup_ns);
	/*
	 * A path longer than MEMREG_NL_CGROUP_PATH_MAX is left out, the id
	 * kept: a row or event of up to PATH_MAX would not fit one message
	 * (NLMSG_GOODSIZE), and the event would be lost, the dump stuck.
	 */
	err = len >= 0 && len <= MEMREG_NL_CGROUP_PATH_MAX &&
	      nla_put_string(skb, MEMREG_A_CGROUP, buf) ? -EMSGSIZE : 0;
	kfree(buf);
	return err;
}

/* The cgroup of id @id as above; only the id if it is gone since. */
int memreg_nl_put_cgroup_id(struct sk_buff *skb, u64 id)
{
	struct cgroup *cgrp = cgroup_get_from_id(id);
	int err;

	if (IS_ERR(cgrp))
		return memreg_nl_put_u64(skb, MEMREG_A_CGROUP_ID, id);
	err = memreg_nl_put_cgroup(skb, cgrp, false);
	cgroup_put(cgrp);
	return err;
}

/*
 * The cgroup whose directory @attr names, referenced; with @set, only if
 * the caller may set its limits (above).  -ENOENT/-ENOTDIR/...: the
 * path's lookup; -EINVAL: not a cgroup2 directory; -EPERM: may not.
 */
struct cgroup *memreg_nl_cgroup_dir(const struct nlattr *attr,
				    struct netlink_ext_ack *extack, bool set,
				    bool admin)
{
	struct path path, parent;
	struct cgroup *cgrp;
	int err;

	err = kern_path(nla_data(attr), LOOKUP_FOLLOW | LOOKUP_DIRECTORY,
			&path);
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "no such directory");
		return ERR_PTR(err);
	}
	if (path.dentry->d_sb->s_magic != CGROUP2_SUPER_MAGIC ||
	    BITS_PER_LONG < 64) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "not a cgroup v2 directory");
		cgrp = ERR_PTR(-EINVAL);
		goto out;
	}
	/* on 64-bit kernfs makes a directory's inode number its cgroup id */
	cgrp = cgroup_get_from_id(d_inode(path.dentry)->i_ino);
	if (IS_ERR(cgrp) || !set || admin)
		goto out;

	/* who may make and remove the node, in this mount */
	err = -EPERM;
	if (path.dentry != path.mnt->mnt_root) {
		parent.mnt = path.mnt;
		parent.dentry = dget_parent(path.dentry);
		err = path_permission(&parent, MAY_WRITE | MAY_EXEC);
		dput(parent.dentry);
	}
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "CAP_NET_ADMIN or write access to the cgroup's parent directory needed");
		cgroup_put(cgrp);
		cgrp = ERR_PTR(-EPERM);
	}
out:
	path_put(&path);
	return cgrp;
}

int memreg_nl_cgroup_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	u64 max[MEMREG_MEM_TYPES] = {};
	unsigned int which = 0;
	struct cgroup *cgrp;
	int t, err;

	if (!tb[MEMREG_A_CGROUP_DIR]) {
		GENL_SET_ERR_MSG(info, "no cgroup given");
		return -EINVAL;
	}
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		const struct nlattr *a = tb[memreg_nl_cgroup_max_attr[t]];

		if (a) {
			max[t] = nla_get_u64(a);
			which |= MEMREG_OVR_BYTES(t);
		}
	}
	if (!which) {
		GENL_SET_ERR_MSG(info, "no limit given");
		return -EINVAL;
	}
	cgrp = memreg_nl_cgroup_dir(tb[MEMREG_A_CGROUP_DIR], info->extack, true,
				    netlink_capable(skb, CAP_NET_ADMIN));
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	err = memreg_cg_set_limits(cgrp, max, which);
	cgroup_put(cgrp);
	return err;
}

static int memreg_nl_cgroup_fill(struct sk_buff *skb,
				 const struct memreg_cg_snapshot *snap)
{
	int k;

	if (memreg_nl_put_cgroup(skb, snap->cgrp, false) ||
	    memreg_nl_put_u64(skb, MEMREG_A_REFUSED_CGROUP, snap->refused))
		return -EMSGSIZE;
	for (k = 0; k < MEMREG_ROOM_KINDS; k++)
		if (memreg_nl_put_u64(skb, memreg_nl_cgroup_use_attr[k],
				      snap->use[k]))
			return -EMSGSIZE;
	for (k = 0; k < MEMREG_MEM_TYPES; k++)
		if (snap->max[k] != MEMREG_UNLIMITED &&
		    memreg_nl_put_u64(skb, memreg_nl_cgroup_max_attr[k],
				      snap->max[k]))
			return -EMSGSIZE;
	return 0;
}

/* CGROUP_DIR: only that node (cursor2: its id). */
static int memreg_nl_cgroup_start(struct memreg_nl_dump_state *st,
				  struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	struct cgroup *cgrp;

	if (!tb[MEMREG_A_CGROUP_DIR])
		return 0;
	cgrp = memreg_nl_cgroup_dir(tb[MEMREG_A_CGROUP_DIR], extack, false,
				    false);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	st->cursor2 = cgroup_id(cgrp);
	st->cursor = st->cursor2 - 1;
	cgroup_put(cgrp);
	return 0;
}

/*
 * Every node, by id; with the filter, the one node (nothing if memreg
 * keeps no counters of it).
 */
static void memreg_nl_cgroup_walk(struct memreg_nl_dump *d)
{
	struct memreg_nl_dump_state *st = d->st;
	struct memreg_cg_snapshot snap;
	struct memreg_cg *cg;
	void *hdr;
	int err;

	for (;;) {
		cg = memreg_cg_next(st->cursor, &snap);
		if (!cg)
			return;
		if (st->cursor2 && snap.id != st->cursor2) {
			memreg_cg_put(cg);
			return;
		}
		hdr = memreg_nl_dump_begin(d);
		err = hdr ? memreg_nl_cgroup_fill(d->skb, &snap) : -EMSGSIZE;
		if (hdr)
			err = memreg_nl_dump_end(d, hdr, err);
		memreg_cg_put(cg);
		if (err)
			return;
		st->cursor = snap.id;
	}
}

#else
/* No caller has a cgroup to name: every cgroup pointer here is NULL. */
int memreg_nl_put_cgroup(struct sk_buff *skb, struct cgroup *cgrp,
			 bool global)
{
	return 0;
}

int memreg_nl_put_cgroup_id(struct sk_buff *skb, u64 id)
{
	return 0;
}

struct cgroup *memreg_nl_cgroup_dir(const struct nlattr *attr,
				    struct netlink_ext_ack *extack, bool set,
				    bool admin)
{
	NL_SET_ERR_MSG_ATTR(extack, attr, "kernel built without cgroups");
	return ERR_PTR(-EOPNOTSUPP);
}

int memreg_nl_cgroup_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	GENL_SET_ERR_MSG(info, "kernel built without cgroups");
	return -EOPNOTSUPP;
}

/* A dump with no node to list would read as "none charged": refuse it. */
static int memreg_nl_cgroup_start(struct memreg_nl_dump_state *st,
				  struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "kernel built without cgroups");
	return -EOPNOTSUPP;
}

static void memreg_nl_cgroup_walk(struct memreg_nl_dump *d)
{
}
#endif

const struct memreg_nl_dump_cmd memreg_nl_cgroup_dump = {
	.cmd	= MEMREG_CMD_CGROUP_GET,
	.policy	= memreg_nl_cgroup_dump_policy,
	.start	= memreg_nl_cgroup_start,
	.walk	= memreg_nl_cgroup_walk,
};
