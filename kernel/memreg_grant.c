// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - grants of registrations to peers, and their imports.
 *
 * GRANT makes a grant of a registration, named by a token
 * (memreg_token.c) whose id in memreg_grants is cyclic, so that a dead
 * token's id is not soon reused.  IMPORT of the token
 * by a peer makes an import, a handle in the peer's file that refers to
 * the grant.
 *
 * A grant's registration pointer goes NULL (under RCU) when it is revoked:
 * by REVOKE, by unregistering the registration, or by closing its file
 * (exit).  From then on IMPORT of its token fails, and transfers through
 * its imports fail: EOWNERDEAD if its owner's file went (the owner exited,
 * exec()ed or closed it: a peer that restarts is a new owner whose
 * grants never answer to the old tokens), EKEYREVOKED otherwise.  A
 * transfer already copying holds its own reference on the registration
 * (memreg_xfer.c).
 */
#include <linux/errno.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "memreg_internal.h"

static DEFINE_XARRAY_ALLOC1(memreg_grants);
static u32 memreg_next_grant;

static void memreg_grant_release(struct kref *ref)
{
	struct memreg_grant_obj *grant = container_of(ref, struct memreg_grant_obj,
						  ref);

	/* transfers may still be reading it under RCU */
	kfree_rcu(grant, rcu);
}

void memreg_grant_put(struct memreg_grant_obj *grant)
{
	kref_put(&grant->ref, memreg_grant_release);
}

/* A live grant by token, referenced; NULL if unknown or revoked. */
static struct memreg_grant_obj *memreg_grant_find(const u8 *token)
{
	struct memreg_grant_obj *grant;

	rcu_read_lock();
	grant = memreg_token_lookup(&memreg_grants, token,
				    offsetof(struct memreg_grant_obj, token));
	if (grant && !kref_get_unless_zero(&grant->ref))
		grant = NULL;
	rcu_read_unlock();
	return grant;
}

int memreg_grant_create(struct memreg_file *mf, struct memreg_grant *req)
{
	struct memreg_grant_obj *grant;
	struct memreg_reg *reg;
	int err;

	if (!req->access || req->access & ~MEMREG_ACCESS_ALL)
		return -EINVAL;

	grant = kzalloc(sizeof(*grant), GFP_KERNEL_ACCOUNT);
	if (!grant)
		return -ENOMEM;
	kref_init(&grant->ref);
	spin_lock_init(&grant->lock);
	grant->owner = mf;
	grant->access = req->access;

	mutex_lock(&mf->lock);
	reg = memreg_reg_lookup(&memreg_regs, req->handle, mf);
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
	err = xa_alloc_cyclic(&memreg_grants, &grant->id, NULL, xa_limit_32b,
			      &memreg_next_grant, GFP_KERNEL);
	if (err < 0)
		goto unlock;
	memreg_token_make(grant->token, grant->id, MEMREG_TOKEN_LEN);
	rcu_assign_pointer(grant->reg, reg);
	list_add_tail(&grant->reg_node, &reg->grants);
	atomic_inc(&reg->nr_grants);
	/* published last: IMPORT may find it from here on */
	xa_store(&memreg_grants, grant->id, grant, GFP_KERNEL);
	memcpy(req->token, grant->token, sizeof(req->token));
	mutex_unlock(&mf->lock);
	return 0;

unlock:
	mutex_unlock(&mf->lock);
	kfree(grant);
	return err;
}

/* Revoke @grant; the caller holds its owner's lock. */
static void memreg_grant_kill(struct memreg_grant_obj *grant, bool owner_gone)
{
	struct memreg_reg *reg = rcu_dereference_protected(grant->reg,
				lockdep_is_held(&grant->owner->lock));

	xa_erase(&memreg_grants, grant->id);
	list_del(&grant->reg_node);
	atomic_dec(&reg->nr_grants);
	spin_lock(&grant->lock);
	atomic_sub(grant->nimports, &reg->nr_imports);
	WRITE_ONCE(grant->owner_gone, owner_gone);
	/* a reader that sees reg NULL sees owner_gone: pairs with smp_rmb() */
	smp_wmb();
	RCU_INIT_POINTER(grant->reg, NULL);
	spin_unlock(&grant->lock);
	memreg_grant_put(grant);
}

/*
 * The registration goes: every grant of it dies with it.  @owner_gone:
 * because its file goes (memreg_reg_release_file()), not UNREGISTER.
 */
void memreg_grant_revoke_reg(struct memreg_reg *reg, bool owner_gone)
{
	struct memreg_grant_obj *grant, *next;

	lockdep_assert_held(&reg->owner->lock);
	list_for_each_entry_safe(grant, next, &reg->grants, reg_node)
		memreg_grant_kill(grant, owner_gone);
}

int memreg_grant_revoke(struct memreg_file *mf, const u8 *token)
{
	struct memreg_grant_obj *grant;
	int err = -ENOENT;

	mutex_lock(&mf->lock);
	grant = memreg_grant_find(token);
	if (grant) {
		/* only the file that granted it may revoke it */
		if (grant->owner == mf && rcu_access_pointer(grant->reg)) {
			memreg_grant_kill(grant, false);
			err = 0;
		}
		memreg_grant_put(grant);
	}
	mutex_unlock(&mf->lock);
	return err;
}

int memreg_import_create(struct memreg_file *mf, struct memreg_import *req)
{
	struct memreg_import_obj *import;
	struct memreg_grant_obj *grant;
	struct memreg_reg *reg;
	int err;

	grant = memreg_grant_find(req->token);
	if (!grant)
		return -ENOENT;
	import = kzalloc(sizeof(*import), GFP_KERNEL_ACCOUNT);
	if (!import) {
		err = -ENOMEM;
		goto put_share;
	}
	import->grant = grant;

	/* counted first: two files of the process may import at once */
	if (atomic_inc_return(&mf->ctx->nr_imports) > MEMREG_MAX_IMPORTS) {
		err = -EMFILE;
		goto uncount;
	}
	mutex_lock(&mf->lock);
	err = xa_alloc_cyclic(&mf->imports, &import->id, NULL, xa_limit_32b,
			      &mf->next_import, GFP_KERNEL);
	if (err < 0)
		goto unlock;
	import->handle = memreg_handle_make(import->id, get_random_u32());

	/* the grant may have been revoked since we found it */
	rcu_read_lock();
	spin_lock(&grant->lock);
	reg = rcu_dereference(grant->reg);
	if (reg) {
		grant->nimports++;
		atomic_inc(&reg->nr_imports);
		req->addr = reg->addr;
		req->len = reg->len;
		req->type = reg->type;
		req->device = reg->device;
		req->pid = memreg_ctx_pid(reg->ctx);
		req->incarnation = reg->ctx->incarnation;
	}
	spin_unlock(&grant->lock);
	rcu_read_unlock();
	if (!reg) {
		xa_erase(&mf->imports, import->id);
		err = -ENOENT;
		goto unlock;
	}
	req->access = grant->access;
	req->handle = import->handle;
	xa_store(&mf->imports, import->id, import, GFP_KERNEL);
	mutex_unlock(&mf->lock);
	return 0;

unlock:
	mutex_unlock(&mf->lock);
uncount:
	atomic_dec(&mf->ctx->nr_imports);
	kfree(import);
put_share:
	memreg_grant_put(grant);
	return err;
}

/* Drop @import, already out of its file's xarray. */
static void memreg_import_free(struct memreg_file *mf,
			       struct memreg_import_obj *import)
{
	struct memreg_grant_obj *grant = import->grant;
	struct memreg_reg *reg;

	rcu_read_lock();
	spin_lock(&grant->lock);
	reg = rcu_dereference(grant->reg);
	grant->nimports--;
	if (reg)
		atomic_dec(&reg->nr_imports);
	spin_unlock(&grant->lock);
	rcu_read_unlock();
	atomic_dec(&mf->ctx->nr_imports);
	memreg_grant_put(grant);
	kfree_rcu(import, rcu);
}

int memreg_import_remove(struct memreg_file *mf, u64 handle)
{
	struct memreg_import_obj *import;

	mutex_lock(&mf->lock);
	import = xa_load(&mf->imports, memreg_handle_id(handle));
	if (!import || import->handle != handle) {
		mutex_unlock(&mf->lock);
		return -ENOENT;
	}
	xa_erase(&mf->imports, import->id);
	mutex_unlock(&mf->lock);
	memreg_import_free(mf, import);
	return 0;
}

void memreg_import_release_file(struct memreg_file *mf)
{
	struct memreg_import_obj *import;
	unsigned long id;

	xa_for_each(&mf->imports, id, import) {
		xa_erase(&mf->imports, id);
		memreg_import_free(mf, import);
		cond_resched();
	}
	xa_destroy(&mf->imports);
}

/* Why a transfer through @grant, found revoked, fails. */
int memreg_grant_revoked_err(const struct memreg_grant_obj *grant)
{
	smp_rmb();	/* pairs with memreg_grant_kill()'s */
	return READ_ONCE(grant->owner_gone) ? -EOWNERDEAD : -EKEYREVOKED;
}

/*
 * The registration behind import @handle of @mf, referenced for a copy,
 * and its grant (referenced too, so that the copy can see a revocation);
 * an ERR_PTR: -ENOENT no such import, -EKEYREVOKED the grant is gone,
 * -EOWNERDEAD the grant went with its owner's file.
 */
struct memreg_reg *memreg_import_get_reg(struct memreg_file *mf, u64 handle,
					 struct memreg_grant_obj **sharep)
{
	struct memreg_reg *reg, *drop = NULL;
	struct memreg_import_obj *import;
	struct memreg_grant_obj *grant;

	rcu_read_lock();
	import = xa_load(&mf->imports, memreg_handle_id(handle));
	if (!import || import->handle != handle) {
		reg = ERR_PTR(-ENOENT);
		goto out;
	}
	grant = import->grant;
	reg = rcu_dereference(grant->reg);
	if (!reg || !refcount_inc_not_zero(&reg->users)) {
		reg = ERR_PTR(memreg_grant_revoked_err(grant));
		goto out;
	}
	if (!kref_get_unless_zero(&grant->ref)) {
		/* the import is being dropped by another thread */
		drop = reg;
		reg = ERR_PTR(-EKEYREVOKED);
		goto out;
	}
	*sharep = grant;
out:
	rcu_read_unlock();
	if (drop)	/* may be the last reference: not under RCU */
		memreg_reg_put(drop);
	return reg;
}
