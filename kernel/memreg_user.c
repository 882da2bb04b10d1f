// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - per-user accounts: what no per-process limit can bound.
 *
 * /dev/memreg is open to every local user, and a user has as many
 * processes as RLIMIT_NPROC lets it fork.  Some objects cost the whole
 * system something that a per-process limit multiplies instead of bounds:
 *
 *  - Files.  An IPC name and a DMABUF registration each hold a reference
 *    on a dma-buf, which is a struct file that no descriptor counts:
 *    RLIMIT_NOFILE never sees it, and file-max is system-wide.  One user
 *    filled file-max through 23 fds, then every other user's shell said
 *    "Too many open files in system".  Each is charged here, and refused
 *    (EMFILE) past max_user_files, by default a sixteenth of file-max.
 *  - Device memory.  An allocation lives as long as its dma-bufs, which
 *    other processes may hold after its allocator exited; it stays
 *    charged to the allocator's context, whose process is gone, and its
 *    exports are revoked then (memreg_dev_revoke_kept()), so nobody can
 *    use it.  What is held that way stays charged here, to the user,
 *    against max_user_dev_bytes: a chain of helpers that allocate, hand
 *    over and exit cannot hold more than that, usable or not.
 *  - Guesses.  A failed IPC_IMPORT tells a guessed name from a wrong one
 *    only by succeeding; failures are rationed per user (a token bucket,
 *    ipc_import_fail_rate a second), so neither forking nor threads
 *    multiply the rate: every import takes a token before the lookup and
 *    gives it back if it succeeds.  While the bucket is empty every
 *    import is refused with EAGAIN before the name is looked up.
 *
 * An account is made by the first process of its user to open
 * /dev/memreg (each context holds a reference) and is unused once the
 * last object charged to it is gone (a charge holds a reference too,
 * since an object may outlive the process that made it).  An unused
 * account is freed only once its bucket is full again, so that closing
 * and reopening does not buy a fresh burst of guesses: the next new
 * account frees those.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include "memreg_internal.h"

static unsigned int max_user_files;
module_param(max_user_files, uint, 0644);
MODULE_PARM_DESC(max_user_files,
		 "dma-buf files memreg may hold for one user: IPC names and DMABUF registrations (0: a sixteenth of file-max, at least 1024)");

static unsigned int ipc_import_fail_rate = 100;
module_param(ipc_import_fail_rate, uint, 0644);
MODULE_PARM_DESC(ipc_import_fail_rate,
		 "Failed IPC imports a second per user, in bursts of up to 10 seconds' worth (100)");

static unsigned long long max_user_dev_bytes;
module_param(max_user_dev_bytes, ullong, 0644);
MODULE_PARM_DESC(max_user_dev_bytes,
		 "Device memory one user's processes may hold, with what their exports keep after they exit (0: no limit but the devices')");

static DEFINE_HASHTABLE(memreg_users, 6);
static DEFINE_SPINLOCK(memreg_users_lock);

/*
 * The per-user file limit in force: the parameter, or its default, a
 * sixteenth of file-max within [1024, 65536] (systemd sets file-max to
 * LONG_MAX, where a sixteenth is no limit).
 */
unsigned int memreg_user_max_files(void)
{
	unsigned int max = READ_ONCE(max_user_files);

	if (max)
		return max;
	return clamp_t(unsigned long, get_max_files() / 16, 1024, 65536);
}

static unsigned int memreg_user_import_fail_rate(void)
{
	return READ_ONCE(ipc_import_fail_rate);
}

/* Refill the bucket for the time gone by; under u->lock. */
static void memreg_user_refill(struct memreg_user *u)
{
	unsigned long rate = memreg_user_import_fail_rate();
	unsigned long now = jiffies, gone = now - u->import_stamp;
	u64 add = div_u64((u64)gone * rate, HZ);

	if (!add)
		return;
	u->import_budget = min_t(u64, u->import_budget + add, 10 * rate);
	u->import_stamp = now;
}

/* An unused account whose bucket is full: nothing to remember. */
static bool memreg_user_forgettable(struct memreg_user *u)
{
	bool full;

	spin_lock(&u->lock);
	memreg_user_refill(u);
	full = u->import_budget >= 10 * memreg_user_import_fail_rate();
	spin_unlock(&u->lock);
	return full;
}

/* Free the unused accounts that have nothing to remember; table locked. */
static void memreg_user_forget_unused(struct hlist_head *dead)
{
	struct hlist_node *tmp;
	struct memreg_user *u;
	int bkt;

	hash_for_each_safe(memreg_users, bkt, tmp, u, node) {
		if (!refcount_read(&u->ref) && memreg_user_forgettable(u)) {
			hash_del(&u->node);
			hlist_add_head(&u->node, dead);
		}
	}
}

/* The account of @uid, referenced; created if there is none. */
struct memreg_user *memreg_user_get(kuid_t uid)
{
	struct memreg_user *u, *fresh, *old;
	struct hlist_head dead = HLIST_HEAD_INIT;
	struct hlist_node *tmp;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	spin_lock(&memreg_users_lock);
	hash_for_each_possible(memreg_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid)) {
			/* an unused one is used again, bucket and all */
			if (!refcount_inc_not_zero(&u->ref))
				refcount_set(&u->ref, 1);
			goto out;
		}
	}
	memreg_user_forget_unused(&dead);
	u = fresh;
	fresh = NULL;
	if (u) {
		refcount_set(&u->ref, 1);
		u->uid = uid;
		spin_lock_init(&u->lock);
		u->import_budget = 10 * memreg_user_import_fail_rate();
		u->import_stamp = jiffies;
		hash_add(memreg_users, &u->node, __kuid_val(uid));
	}
out:
	spin_unlock(&memreg_users_lock);
	kfree(fresh);
	hlist_for_each_entry_safe(old, tmp, &dead, node)
		kfree(old);
	return u;
}

void memreg_user_put(struct memreg_user *u)
{
	/* under the lock: memreg_user_get() revives unused ones */
	spin_lock(&memreg_users_lock);
	if (!refcount_dec_and_test(&u->ref)) {
		spin_unlock(&memreg_users_lock);
		return;
	}
	WARN_ON_ONCE(atomic_read(&u->files));
	WARN_ON_ONCE(atomic64_read(&u->dev_bytes));
	WARN_ON_ONCE(atomic64_read(&u->export_pages));
	/* guesses spent lately: kept, and freed once forgotten */
	if (!memreg_user_forgettable(u)) {
		spin_unlock(&memreg_users_lock);
		return;
	}
	hash_del(&u->node);
	spin_unlock(&memreg_users_lock);
	kfree(u);
}

/* Module unload: every account is unused by now. */
void memreg_user_exit(void)
{
	struct hlist_node *tmp;
	struct memreg_user *u;
	int bkt;

	hash_for_each_safe(memreg_users, bkt, tmp, u, node) {
		WARN_ON_ONCE(refcount_read(&u->ref));
		hash_del(&u->node);
		kfree(u);
	}
}

/*
 * One more dma-buf file held for @u (an IPC name, a DMABUF registration);
 * -EMFILE past the limit.  The charge holds a reference on @u.
 */
int memreg_user_charge_file(struct memreg_user *u)
{
	if (atomic_inc_return(&u->files) > memreg_user_max_files()) {
		atomic_dec(&u->files);
		return -EMFILE;
	}
	refcount_inc(&u->ref);
	return 0;
}

void memreg_user_uncharge_file(struct memreg_user *u)
{
	atomic_dec(&u->files);
	memreg_user_put(u);
}

/*
 * @npages more host pages a dma-buf of a registration holds pinned for @u
 * (memreg_host_export.c), against the caller's RLIMIT_MEMLOCK: -ENOMEM
 * past it, unless the caller may lock memory without limit.
 */
int memreg_user_charge_export(struct memreg_user *u, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;

	if (atomic64_add_return(npages, &u->export_pages) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &u->export_pages);
		return -ENOMEM;
	}
	return 0;
}

void memreg_user_uncharge_export(struct memreg_user *u, unsigned long npages)
{
	atomic64_sub(npages, &u->export_pages);
}

/*
 * @len more device bytes for @u (@charge), or only whether they would fit:
 * -ENOSPC past max_user_dev_bytes.
 */
int memreg_user_charge_dev(struct memreg_user *u, u64 len, bool charge)
{
	u64 max = READ_ONCE(max_user_dev_bytes);

	if (!charge)
		return max && atomic64_read(&u->dev_bytes) + len > max ?
			-ENOSPC : 0;
	if (atomic64_add_return(len, &u->dev_bytes) > max && max) {
		atomic64_sub(len, &u->dev_bytes);
		return -ENOSPC;
	}
	return 0;
}

void memreg_user_uncharge_dev(struct memreg_user *u, u64 len)
{
	atomic64_sub(len, &u->dev_bytes);
}

/* What max_user_dev_bytes leaves @u, into a headroom row (if it is set). */
void memreg_user_dev_room(struct memreg_user *u, struct memreg_room *room)
{
	u64 max = READ_ONCE(max_user_dev_bytes);

	if (max)
		memreg_room_min(room, MEMREG_ROOM_BY_USER, max,
				atomic64_read(&u->dev_bytes), 0);
}

/*
 * May @u try an IPC import now?  Takes a guess from its budget, which
 * memreg_user_import_done() gives back if the import succeeds: N threads
 * cannot all pass on the last one.  -EAGAIN while the budget is spent.
 * A rate of 0 rations nothing.
 */
int memreg_user_import_begin(struct memreg_user *u)
{
	int err = 0;

	if (!memreg_user_import_fail_rate())
		return 0;
	spin_lock(&u->lock);
	memreg_user_refill(u);
	if (u->import_budget)
		u->import_budget--;
	else
		err = -EAGAIN;
	spin_unlock(&u->lock);
	if (err)
		atomic64_inc(&memreg_stats.ipc_import_throttled);
	return err;
}

/* The import memreg_user_import_begin() let through is done. */
void memreg_user_import_done(struct memreg_user *u, bool found)
{
	if (!found) {
		atomic64_inc(&memreg_stats.ipc_import_failed);
		return;
	}
	if (!memreg_user_import_fail_rate())
		return;
	/* a hit costs no guess */
	spin_lock(&u->lock);
	u->import_budget = min_t(u64, u->import_budget + 1,
				 10 * memreg_user_import_fail_rate());
	spin_unlock(&u->lock);
}
