// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - grants of registrations to peers, and their imports.
 *
 * GRANT makes a share of a registration, named by a 128-bit random token:
 * its first four bytes are the share's id in memreg_shares (a cyclic id,
 * so a dead token's id is not soon reused), the other twelve are random,
 * and a lookup compares all sixteen in constant time.  IMPORT of the token
 * by a peer makes a remote, a handle in the peer's file that refers to the
 * share.
 *
 * A share's registration pointer goes NULL (under RCU) when it is revoked:
 * by REVOKE, by unregistering the registration, or by closing its file
 * (exit).  From then on IMPORT of its token fails, and transfers through
 * its remotes fail with EKEYREVOKED; a transfer already copying holds its
 * own reference on the registration (memreg_xfer.c).
 */
#include <linux/errno.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "memreg.h"

static DEFINE_XARRAY_ALLOC1(memreg_shares);
static u32 memreg_next_share;

/*
 * Compare two tokens in a time that does not depend on where they differ
 * (crypto_memneq() is not in every kernel config memreg builds for).
 */
static bool memreg_token_eq(const u8 *a, const u8 *b)
{
	u8 diff = 0;
	int i;

	for (i = 0; i < 16; i++)
		diff |= READ_ONCE(a[i]) ^ READ_ONCE(b[i]);
	return !diff;
}

static void memreg_share_release(struct kref *ref)
{
	struct memreg_share *share = container_of(ref, struct memreg_share,
						  ref);

	/* transfers may still be reading it under RCU */
	kfree_rcu(share, rcu);
}

void memreg_share_put(struct memreg_share *share)
{
	kref_put(&share->ref, memreg_share_release);
}

/* A live share by token, referenced; NULL if unknown or revoked. */
static struct memreg_share *memreg_share_find(const u8 *token)
{
	struct memreg_share *share;
	u32 id;

	memcpy(&id, token, sizeof(id));
	rcu_read_lock();
	share = xa_load(&memreg_shares, id);
	if (share && (!memreg_token_eq(share->token, token) ||
		      !kref_get_unless_zero(&share->ref)))
		share = NULL;
	rcu_read_unlock();
	return share;
}

int memreg_share_create(struct memreg_file *mf, struct memreg_grant *req)
{
	struct memreg_share *share;
	struct memreg_reg *reg;
	int err;

	if (!req->access || req->access & ~MEMREG_ACCESS_ALL)
		return -EINVAL;

	share = kzalloc(sizeof(*share), GFP_KERNEL_ACCOUNT);
	if (!share)
		return -ENOMEM;
	kref_init(&share->ref);
	spin_lock_init(&share->lock);
	share->owner = mf;
	share->access = req->access;

	mutex_lock(&mf->lock);
	reg = memreg_region_lookup(&memreg_regions, req->handle, mf);
	if (!reg) {
		err = -ENOENT;
		goto unlock;
	}
	if (req->access & ~reg->access) {
		err = -EACCES;
		goto unlock;
	}
	/* kernel memory a process can make us hold stays bounded */
	if (atomic_read(&reg->nr_grants) >= MEMREG_MAX_GRANTS) {
		err = -EMFILE;
		goto unlock;
	}
	err = xa_alloc_cyclic(&memreg_shares, &share->id, NULL, xa_limit_32b,
			      &memreg_next_share, GFP_KERNEL);
	if (err < 0)
		goto unlock;
	memcpy(share->token, &share->id, sizeof(share->id));
	get_random_bytes(share->token + sizeof(share->id),
			 sizeof(share->token) - sizeof(share->id));
	rcu_assign_pointer(share->reg, reg);
	list_add_tail(&share->reg_node, &reg->grants);
	atomic_inc(&reg->nr_grants);
	/* published last: IMPORT may find it from here on */
	xa_store(&memreg_shares, share->id, share, GFP_KERNEL);
	memcpy(req->token, share->token, sizeof(req->token));
	mutex_unlock(&mf->lock);
	return 0;

unlock:
	mutex_unlock(&mf->lock);
	kfree(share);
	return err;
}

/* Revoke @share; the caller holds its owner's lock. */
static void memreg_share_kill(struct memreg_share *share)
{
	struct memreg_reg *reg = rcu_dereference_protected(share->reg,
				lockdep_is_held(&share->owner->lock));

	xa_erase(&memreg_shares, share->id);
	list_del(&share->reg_node);
	atomic_dec(&reg->nr_grants);
	spin_lock(&share->lock);
	atomic_sub(share->nremotes, &reg->nr_imports);
	RCU_INIT_POINTER(share->reg, NULL);
	spin_unlock(&share->lock);
	memreg_share_put(share);
}

/* The registration goes: every grant of it dies with it. */
void memreg_share_revoke_reg(struct memreg_reg *reg)
{
	struct memreg_share *share, *next;

	lockdep_assert_held(&reg->owner->lock);
	list_for_each_entry_safe(share, next, &reg->grants, reg_node)
		memreg_share_kill(share);
}

int memreg_share_revoke(struct memreg_file *mf, const u8 *token)
{
	struct memreg_share *share;
	int err = -ENOENT;

	mutex_lock(&mf->lock);
	share = memreg_share_find(token);
	if (share) {
		/* only the file that granted it may revoke it */
		if (share->owner == mf && rcu_access_pointer(share->reg)) {
			memreg_share_kill(share);
			err = 0;
		}
		memreg_share_put(share);
	}
	mutex_unlock(&mf->lock);
	return err;
}

int memreg_remote_create(struct memreg_file *mf, struct memreg_import *req)
{
	struct memreg_remote *remote;
	struct memreg_share *share;
	struct memreg_reg *reg;
	int err;

	share = memreg_share_find(req->token);
	if (!share)
		return -ENOENT;
	remote = kzalloc(sizeof(*remote), GFP_KERNEL_ACCOUNT);
	if (!remote) {
		err = -ENOMEM;
		goto put_share;
	}
	remote->share = share;

	/* counted first: two files of the process may import at once */
	if (atomic_inc_return(&mf->ctx->nr_imports) > MEMREG_MAX_IMPORTS) {
		err = -EMFILE;
		goto uncount;
	}
	mutex_lock(&mf->lock);
	err = xa_alloc_cyclic(&mf->imports, &remote->id, NULL, xa_limit_32b,
			      &mf->next_import, GFP_KERNEL);
	if (err < 0)
		goto unlock;
	remote->handle = memreg_handle_make(remote->id, get_random_u32());

	/* the grant may have been revoked since we found it */
	rcu_read_lock();
	spin_lock(&share->lock);
	reg = rcu_dereference(share->reg);
	if (reg) {
		share->nremotes++;
		atomic_inc(&reg->nr_imports);
		req->addr = reg->addr;
		req->len = reg->len;
		req->type = reg->type;
		req->device = reg->device;
		req->pid = memreg_ctx_pid(reg->ctx);
	}
	spin_unlock(&share->lock);
	rcu_read_unlock();
	if (!reg) {
		xa_erase(&mf->imports, remote->id);
		err = -ENOENT;
		goto unlock;
	}
	req->access = share->access;
	req->handle = remote->handle;
	xa_store(&mf->imports, remote->id, remote, GFP_KERNEL);
	mutex_unlock(&mf->lock);
	return 0;

unlock:
	mutex_unlock(&mf->lock);
uncount:
	atomic_dec(&mf->ctx->nr_imports);
	kfree(remote);
put_share:
	memreg_share_put(share);
	return err;
}

/* Drop @remote, already out of its file's xarray. */
static void memreg_remote_free(struct memreg_file *mf,
			       struct memreg_remote *remote)
{
	struct memreg_share *share = remote->share;
	struct memreg_reg *reg;

	rcu_read_lock();
	spin_lock(&share->lock);
	reg = rcu_dereference(share->reg);
	share->nremotes--;
	if (reg)
		atomic_dec(&reg->nr_imports);
	spin_unlock(&share->lock);
	rcu_read_unlock();
	atomic_dec(&mf->ctx->nr_imports);
	memreg_share_put(share);
	kfree_rcu(remote, rcu);
}

int memreg_remote_remove(struct memreg_file *mf, u64 handle)
{
	struct memreg_remote *remote;

	mutex_lock(&mf->lock);
	remote = xa_load(&mf->imports, memreg_handle_id(handle));
	if (!remote || remote->handle != handle) {
		mutex_unlock(&mf->lock);
		return -ENOENT;
	}
	xa_erase(&mf->imports, remote->id);
	mutex_unlock(&mf->lock);
	memreg_remote_free(mf, remote);
	return 0;
}

void memreg_remote_release_file(struct memreg_file *mf)
{
	struct memreg_remote *remote;
	unsigned long id;

	xa_for_each(&mf->imports, id, remote) {
		xa_erase(&mf->imports, id);
		memreg_remote_free(mf, remote);
		cond_resched();
	}
	xa_destroy(&mf->imports);
}

/*
 * The registration behind remote @handle of @mf, referenced for a copy,
 * and its share (referenced too, so that the copy can see a revocation);
 * an ERR_PTR: -ENOENT no such remote, -EKEYREVOKED the grant is gone.
 */
struct memreg_reg *memreg_remote_get_reg(struct memreg_file *mf, u64 handle,
					 struct memreg_share **sharep)
{
	struct memreg_reg *reg, *drop = NULL;
	struct memreg_remote *remote;
	struct memreg_share *share;

	rcu_read_lock();
	remote = xa_load(&mf->imports, memreg_handle_id(handle));
	if (!remote || remote->handle != handle) {
		reg = ERR_PTR(-ENOENT);
		goto out;
	}
	share = remote->share;
	reg = rcu_dereference(share->reg);
	if (!reg || !refcount_inc_not_zero(&reg->users)) {
		reg = ERR_PTR(-EKEYREVOKED);
		goto out;
	}
	if (!kref_get_unless_zero(&share->ref)) {
		/* the remote is being dropped by another thread */
		drop = reg;
		reg = ERR_PTR(-EKEYREVOKED);
		goto out;
	}
	*sharep = share;
out:
	rcu_read_unlock();
	if (drop)	/* may be the last reference: not under RCU */
		memreg_region_put(drop);
	return reg;
}
