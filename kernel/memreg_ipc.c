// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - named dma-bufs: what CANN's aclrtIpcMem* calls are built on.
 *
 * A process gives a dma-buf a name (IPC_EXPORT: a 16-byte token, the
 * first four bytes the name's id, the rest random), says which processes
 * may use it (IPC_ALLOW, or MEMREG_IPC_ANY_PID), and a process allowed
 * turns the token into a dma-buf fd of its own (IPC_IMPORT).  The kernel
 * checks the importer's identity: a token that leaks is of no use to a
 * process the exporter did not name.  Pids are kept as struct pid, so a
 * pid reused by another process after the named one exited does not
 * inherit the right.
 *
 * A name holds a reference on its dma-buf until IPC_CLOSE or the close of
 * the file that made it; an import is an ordinary dma-buf fd that holds
 * its own, so closing the name does not take memory from an importer.
 *
 * What a name costs, and who pays (docs/security.md):
 *  - the dma-buf's struct file, which no descriptor counts: charged to
 *    the user's account (memreg_user.c, max_user_files), so that closing
 *    the fd after IPC_EXPORT cannot fill file-max;
 *  - the name itself: at most max_ipc_names per process (EMFILE);
 *  - its allow-list: distinct pids only, at most MEMREG_IPC_MAX_PIDS a
 *    name and max_ipc_pids a process (E2BIG), charged to the caller's
 *    memory cgroup.
 * Guessing: a name's id is random, not sequential, and to another user
 * the two ways an import can miss (no such name, not allowed) are one
 * errno, ENOENT, so a guess learns nothing but success (the exporter's own
 * user gets EPERM for a name it may not import); failures are rationed per
 * user
 * (memreg_user_import_begin()).  A short token (MEMREG_IPC_SHORT_TOKEN)
 * has 32 random id bits and 32 more: at 100 failures a second, finding
 * one of N live names takes 2^63 / N / 100 seconds on average.
 */
#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include "memreg_internal.h"

struct memreg_ipc_name {
	u32 id;				/* key in memreg_ipc_names, random */
	u8 token[MEMREG_TOKEN_LEN];
	struct dma_buf *dmabuf;		/* referenced */
	struct memreg_file *owner;
	struct memreg_ctx *ctx;		/* charged: owner's, alive as it is */
	struct list_head file_node;	/* in owner->ipc_names */
	bool any_pid;
	unsigned int npids;
	struct pid **pids;		/* referenced */
};

static unsigned int max_ipc_names = 1024;
module_param(max_ipc_names, uint, 0644);
MODULE_PARM_DESC(max_ipc_names, "IPC names per process (1024)");

static unsigned int max_ipc_pids = 16384;
module_param(max_ipc_pids, uint, 0644);
MODULE_PARM_DESC(max_ipc_pids,
		 "Allow-list entries of all the IPC names of a process (16384)");

unsigned int memreg_ipc_max_names(void)
{
	return READ_ONCE(max_ipc_names);
}

unsigned int memreg_ipc_max_pids(void)
{
	return READ_ONCE(max_ipc_pids);
}

/* All names; the lock also protects every file's ipc_names list. */
static DEFINE_XARRAY(memreg_ipc_names);
static DEFINE_MUTEX(memreg_ipc_lock);

static void memreg_ipc_free(struct memreg_ipc_name *name)
{
	unsigned int i;

	for (i = 0; i < name->npids; i++)
		put_pid(name->pids[i]);
	kfree(name->pids);
	atomic_sub(name->npids, &name->ctx->ipc_pids);
	atomic_dec(&name->ctx->ipc_names);
	memreg_user_uncharge_file(name->ctx->user);
	dma_buf_put(name->dmabuf);
	kfree(name);
}

/*
 * Give @name a random id no live name has: a guess of one name's token
 * tells nothing of the next one's.  Under memreg_ipc_lock.
 */
static int memreg_ipc_insert(struct memreg_ipc_name *name)
{
	int tries, err = -EBUSY;

	/*
	 * The table is far from full (names are limited): few tries.  Its
	 * nodes are the exporter's: a random id can need a node chain of
	 * its own (up to 3.4 KiB).
	 */
	for (tries = 0; tries < 16 && err == -EBUSY; tries++) {
		name->id = get_random_u32();
		err = name->id ? xa_insert(&memreg_ipc_names, name->id, name,
					   GFP_KERNEL_ACCOUNT) : -EBUSY;
	}
	return err == -EBUSY ? -ENOSPC : err;
}

/* The name @token stands for, if it is live; under memreg_ipc_lock. */
static struct memreg_ipc_name *memreg_ipc_find(const u8 *token)
{
	lockdep_assert_held(&memreg_ipc_lock);
	return memreg_token_lookup(&memreg_ipc_names, token,
				   offsetof(struct memreg_ipc_name, token));
}

int memreg_ipc_export(struct memreg_file *mf, struct memreg_ipc_export *req)
{
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_ipc_name *name;
	struct dma_buf *dmabuf;
	int err;

	if (req->flags & ~(MEMREG_IPC_ANY_PID | MEMREG_IPC_SHORT_TOKEN) ||
	    req->reserved0)
		return -EINVAL;
	/* EBADF: not an open fd; EINVAL: not a dma-buf */
	dmabuf = dma_buf_get(req->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	name = kzalloc(sizeof(*name), GFP_KERNEL_ACCOUNT);
	if (!name) {
		dma_buf_put(dmabuf);
		return -ENOMEM;
	}
	name->dmabuf = dmabuf;
	name->owner = mf;
	name->ctx = ctx;
	name->any_pid = req->flags & MEMREG_IPC_ANY_PID;

	/* the process's names, then the user's files: EMFILE either way */
	if (atomic_inc_return(&ctx->ipc_names) > memreg_ipc_max_names()) {
		err = -EMFILE;
		goto dec_names;
	}
	err = memreg_user_charge_file(ctx->user);
	if (err)
		goto dec_names;

	mutex_lock(&memreg_ipc_lock);
	err = memreg_ipc_insert(name);
	if (err) {
		mutex_unlock(&memreg_ipc_lock);
		memreg_user_uncharge_file(ctx->user);
		goto dec_names;
	}
	/* a short token is CANN's 8-byte key: its id and 4 random bytes */
	memreg_token_make(name->token, name->id,
			  req->flags & MEMREG_IPC_SHORT_TOKEN ? 4 :
			  MEMREG_TOKEN_LEN);
	list_add(&name->file_node, &mf->ipc_names);
	memcpy(req->token, name->token, sizeof(req->token));
	mutex_unlock(&memreg_ipc_lock);
	return 0;

dec_names:
	atomic_dec(&ctx->ipc_names);
	dma_buf_put(dmabuf);
	kfree(name);
	return err;
}

/* Is @pid allowed on @name already?  Under memreg_ipc_lock. */
static bool memreg_ipc_listed(const struct memreg_ipc_name *name,
			      const struct pid *pid)
{
	unsigned int i;

	for (i = 0; i < name->npids; i++)
		if (name->pids[i] == pid)
			return true;
	return false;
}

int memreg_ipc_allow(struct memreg_file *mf, struct memreg_ipc_allow *req)
{
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_ipc_name *name;
	struct pid **pids, **grown;
	unsigned int i, j, got = 0, added = 0;
	s32 *nrs;
	int err = 0;

	if (!req->count || req->count > MEMREG_IPC_MAX_PIDS)
		return -E2BIG;
	nrs = memdup_user(u64_to_user_ptr(req->pids),
			  array_size(req->count, sizeof(*nrs)));
	if (IS_ERR(nrs))
		return PTR_ERR(nrs);
	pids = kcalloc(req->count, sizeof(*pids), GFP_KERNEL_ACCOUNT);
	if (!pids) {
		err = -ENOMEM;
		goto free_nrs;
	}
	/* pid numbers as the caller sees them: its own namespace */
	for (got = 0; got < req->count; got++) {
		pids[got] = nrs[got] > 0 ? find_get_pid(nrs[got]) : NULL;
		if (!pids[got]) {
			err = -ESRCH;
			goto put_pids;
		}
	}

	mutex_lock(&memreg_ipc_lock);
	name = memreg_ipc_find(req->token);
	if (!name || name->owner != mf) {
		err = -ENOENT;
		goto unlock;
	}
	/*
	 * Distinct pids only, moved to the front of @pids: a pid listed
	 * twice costs once (a list of one pid repeated 1024 times was
	 * 8 KiB of kernel memory a name).
	 */
	for (i = 0; i < got; i++) {
		bool dup = memreg_ipc_listed(name, pids[i]);

		for (j = 0; j < added && !dup; j++)
			dup = pids[j] == pids[i];
		if (dup)
			put_pid(pids[i]);
		else
			pids[added++] = pids[i];
	}
	got = added;
	if (!added)
		goto unlock;
	if (name->npids + added > MEMREG_IPC_MAX_PIDS) {
		err = -E2BIG;
		goto unlock;
	}
	if (atomic_add_return(added, &ctx->ipc_pids) > memreg_ipc_max_pids()) {
		atomic_sub(added, &ctx->ipc_pids);
		err = -E2BIG;
		goto unlock;
	}
	grown = krealloc_array(name->pids, name->npids + added,
			       sizeof(*grown), GFP_KERNEL_ACCOUNT);
	if (!grown) {
		atomic_sub(added, &ctx->ipc_pids);
		err = -ENOMEM;
		goto unlock;
	}
	memcpy(grown + name->npids, pids, added * sizeof(*pids));
	name->pids = grown;
	name->npids += added;
	got = 0;			/* the name holds them now */
unlock:
	mutex_unlock(&memreg_ipc_lock);
put_pids:
	for (i = 0; i < got; i++)
		put_pid(pids[i]);
	kfree(pids);
free_nrs:
	kfree(nrs);
	return err;
}

static bool memreg_ipc_allowed(const struct memreg_ipc_name *name)
{
	struct pid *me = task_tgid(current);

	return name->any_pid || name->owner->ctx->tgid == me ||
	       memreg_ipc_listed(name, me);
}

/*
 * The named dma-buf, for the dispatcher to install at the descriptor it
 * reserved (req->fd) once the caller has the result.
 */
int memreg_ipc_import(struct memreg_file *mf, struct memreg_ipc_import *req,
		      struct dma_buf **out)
{
	struct memreg_user *user = mf->ctx->user;
	struct memreg_ipc_name *name;
	struct dma_buf *dmabuf;
	int err;

	if (req->flags & ~MEMREG_EXPORT_CLOEXEC || req->reserved0)
		return -EINVAL;
	/* while the user's guesses are spent, no lookup at all */
	err = memreg_user_import_begin(user);
	if (err)
		return err;
	mutex_lock(&memreg_ipc_lock);
	name = memreg_ipc_find(req->token);
	if (!name || !memreg_ipc_allowed(name)) {
		/*
		 * Another user learns nothing from a miss: unknown and not
		 * allowed are one answer.  The exporter's own user may tell
		 * them apart (EPERM, as CANN's "no permission"): its
		 * processes are not a boundary to each other (they may
		 * ptrace and read each other's memory).
		 */
		err = name && uid_eq(name->ctx->uid, mf->ctx->uid) ?
			-EPERM : -ENOENT;
		mutex_unlock(&memreg_ipc_lock);
		memreg_user_import_done(user, false);
		atomic64_inc(&mf->ctx->ipc_import_failed);
		return err;
	}
	memreg_user_import_done(user, true);
	dmabuf = name->dmabuf;
	get_dma_buf(dmabuf);
	mutex_unlock(&memreg_ipc_lock);

	req->len = dmabuf->size;
	*out = dmabuf;
	return 0;
}

int memreg_ipc_close(struct memreg_file *mf, const u8 *token)
{
	struct memreg_ipc_name *name;

	mutex_lock(&memreg_ipc_lock);
	name = memreg_ipc_find(token);
	if (!name || name->owner != mf) {
		mutex_unlock(&memreg_ipc_lock);
		return -ENOENT;
	}
	xa_erase(&memreg_ipc_names, name->id);
	list_del(&name->file_node);
	mutex_unlock(&memreg_ipc_lock);
	memreg_ipc_free(name);
	return 0;
}

/* The file is going away (close, exit, kill -9): its names go too. */
void memreg_ipc_release_file(struct memreg_file *mf)
{
	struct memreg_ipc_name *name, *next;
	LIST_HEAD(dying);

	mutex_lock(&memreg_ipc_lock);
	list_for_each_entry(name, &mf->ipc_names, file_node)
		xa_erase(&memreg_ipc_names, name->id);
	list_splice_init(&mf->ipc_names, &dying);
	mutex_unlock(&memreg_ipc_lock);

	list_for_each_entry_safe(name, next, &dying, file_node)
		memreg_ipc_free(name);
}
