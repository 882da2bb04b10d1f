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
 */
#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
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
	u32 id;				/* key in memreg_ipc_names */
	u8 token[16];
	struct dma_buf *dmabuf;		/* referenced */
	struct memreg_file *owner;
	struct list_head file_node;	/* in owner->ipc_names */
	bool any_pid;
	unsigned int npids;
	struct pid **pids;		/* referenced */
};

/* All names; the lock also protects every file's ipc_names list. */
static DEFINE_XARRAY_ALLOC1(memreg_ipc_names);
static DEFINE_MUTEX(memreg_ipc_lock);
static u32 memreg_ipc_next_id;

static void memreg_ipc_free(struct memreg_ipc_name *name)
{
	unsigned int i;

	for (i = 0; i < name->npids; i++)
		put_pid(name->pids[i]);
	kfree(name->pids);
	dma_buf_put(name->dmabuf);
	kfree(name);
}

/* The name @token stands for, if it is live; under memreg_ipc_lock. */
static struct memreg_ipc_name *memreg_ipc_find(const u8 *token)
{
	struct memreg_ipc_name *name;
	u32 id;

	memcpy(&id, token, sizeof(id));
	name = xa_load(&memreg_ipc_names, id);
	if (!name || !memreg_token_eq(name->token, token))
		return NULL;
	return name;
}

int memreg_ipc_export(struct memreg_file *mf, struct memreg_ipc_export *req)
{
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
	name->any_pid = req->flags & MEMREG_IPC_ANY_PID;

	mutex_lock(&memreg_ipc_lock);
	if (mf->nr_ipc_names >= MEMREG_IPC_MAX_NAMES) {
		err = -EMFILE;
		goto unlock;
	}
	err = xa_alloc_cyclic(&memreg_ipc_names, &name->id, name,
			      xa_limit_32b, &memreg_ipc_next_id, GFP_KERNEL);
	if (err < 0)
		goto unlock;
	memcpy(name->token, &name->id, sizeof(name->id));
	get_random_bytes(name->token + sizeof(name->id),
			 (req->flags & MEMREG_IPC_SHORT_TOKEN ? 8 :
			  sizeof(name->token)) - sizeof(name->id));
	list_add(&name->file_node, &mf->ipc_names);
	mf->nr_ipc_names++;
	memcpy(req->token, name->token, sizeof(req->token));
	mutex_unlock(&memreg_ipc_lock);
	return 0;

unlock:
	mutex_unlock(&memreg_ipc_lock);
	memreg_ipc_free(name);
	return err;
}

int memreg_ipc_allow(struct memreg_file *mf, struct memreg_ipc_allow *req)
{
	struct memreg_ipc_name *name;
	struct pid **pids, **grown;
	unsigned int i, got = 0;
	s32 *nrs;
	int err = 0;

	if (!req->count || req->count > MEMREG_IPC_MAX_PIDS)
		return -E2BIG;
	nrs = memdup_user(u64_to_user_ptr(req->pids),
			  array_size(req->count, sizeof(*nrs)));
	if (IS_ERR(nrs))
		return PTR_ERR(nrs);
	pids = kcalloc(req->count, sizeof(*pids), GFP_KERNEL);
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
	if (name->npids + req->count > MEMREG_IPC_MAX_PIDS) {
		err = -E2BIG;
		goto unlock;
	}
	grown = krealloc_array(name->pids, name->npids + req->count,
			       sizeof(*grown), GFP_KERNEL);
	if (!grown) {
		err = -ENOMEM;
		goto unlock;
	}
	memcpy(grown + name->npids, pids, req->count * sizeof(*pids));
	name->pids = grown;
	name->npids += req->count;
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
	unsigned int i;

	if (name->any_pid || name->owner->ctx->tgid == me)
		return true;
	for (i = 0; i < name->npids; i++)
		if (name->pids[i] == me)
			return true;
	return false;
}

int memreg_ipc_import(struct memreg_file *mf, struct memreg_ipc_import *req)
{
	struct memreg_ipc_name *name;
	struct dma_buf *dmabuf;
	int fd;

	if (req->flags & ~MEMREG_EXPORT_CLOEXEC || req->reserved0)
		return -EINVAL;
	mutex_lock(&memreg_ipc_lock);
	name = memreg_ipc_find(req->token);
	if (!name) {
		mutex_unlock(&memreg_ipc_lock);
		return -ENOENT;
	}
	if (!memreg_ipc_allowed(name)) {
		mutex_unlock(&memreg_ipc_lock);
		return -EPERM;
	}
	dmabuf = name->dmabuf;
	get_dma_buf(dmabuf);
	mutex_unlock(&memreg_ipc_lock);

	/*
	 * The size before the fd: once installed, another thread may close
	 * it, and the exporter's close then drops the last reference.
	 */
	req->len = dmabuf->size;
	fd = dma_buf_fd(dmabuf, req->flags & MEMREG_EXPORT_CLOEXEC ?
			O_CLOEXEC : 0);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	req->fd = fd;
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
	mf->nr_ipc_names--;
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
	mf->nr_ipc_names = 0;
	mutex_unlock(&memreg_ipc_lock);

	list_for_each_entry_safe(name, next, &dying, file_node)
		memreg_ipc_free(name);
}
