// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the OOM killer and device memory: the holder pays.
 *
 * Device pages are RAM off the LRU, in no process's RSS unless it maps
 * and touches them, so in no OOM score.  DEV_ALLOC stops at the RAM
 * reserve, but whoever allocates after that may run the system out of
 * memory, and the OOM killer then kills by RSS: a 256 MB process went,
 * while the holder of 576 MB of device memory (VmRSS 248 kB) lived on.
 *
 * So memreg is asked first (an OOM notifier, called for a system-wide
 * OOM before a victim is chosen).  It finds the live process holding the
 * most device memory and counts that memory into its badness (device
 * pages plus RSS and swap, as oom_badness() counts a process's own
 * pages).  If no other process comes to as much, the holder is the one
 * the kernel would have killed had it seen the memory: memreg kills it
 * (SIGKILL), logs why, and reports its device pages as freed, so the OOM
 * killer kills nobody else while the holder exits and its pages go back.
 * A holder with oom_score_adj -1000 is never chosen, as for the OOM
 * killer; a memory cgroup's OOM is left to the cgroup (device pages are
 * charged to the allocator's cgroup, whose limit fails the allocation).
 *
 * What the notifier cannot see: it is not told the OOM's constraints, so
 * it also acts for a GFP_NOFS allocation (where the kernel would kill
 * nobody), under a cpuset or mempolicy (where the holder's pages may be
 * on other nodes), and for sysrq-f (where the kernel kills as well).  It
 * ignores oom_score_adj other than -1000.  Those are the price of a
 * holder that would otherwise never be chosen at all.
 */
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/oom.h>
#include <linux/pid.h>
#include <linux/printk.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include "memreg_internal.h"

/*
 * The holder memreg killed last, when, and what it held: give it time to
 * exit.  It is no longer found as a holder then (its mm is gone before
 * its pages are), and the OOM killer, which did not choose it, would not
 * wait for it.
 */
static struct pid *memreg_oom_victim;
static unsigned long memreg_oom_killed_at;
static unsigned long memreg_oom_victim_pages;
static DEFINE_MUTEX(memreg_oom_lock);

/* A process's own pages, as the OOM killer counts them. */
static unsigned long memreg_oom_task_pages(struct task_struct *p)
{
	unsigned long pages = 0;

	task_lock(p);
	if (p->mm)
		pages = get_mm_rss(p->mm) +
			get_mm_counter(p->mm, MM_SWAPENTS) +
			(mm_pgtables_bytes(p->mm) >> PAGE_SHIFT);
	task_unlock(p);
	return pages;
}

/*
 * What killing @ctx's process would give back: its allocations, less
 * those whose handle it freed keeping their exports (other processes may
 * hold those, and killing it only revokes them).  Under ctx->lock.
 */
static u64 memreg_oom_ctx_bytes(struct memreg_ctx *ctx)
{
	struct memreg_dalloc *d;
	u64 bytes = 0;
	int i;

	for (i = 0; i < MEMREG_MAX_DEVICES; i++)
		bytes += ctx->dev_alloc[i];
	list_for_each_entry(d, &ctx->kept, kept_node)
		bytes -= min(bytes, d->len);
	return bytes;
}

/*
 * The live process holding the most device memory, referenced: a context
 * whose process still runs in its address space (not one an exec() left
 * behind, whose memory that process's death would not free).
 */
static struct pid *memreg_oom_holder(unsigned long *dev_pages)
{
	struct task_struct *task;
	struct memreg_ctx *ctx;
	struct pid *best = NULL;
	unsigned long id;
	u64 most = 0, bytes;
	bool live;

	rcu_read_lock();
	xa_for_each(&memreg_ctxs, id, ctx) {
		spin_lock(&ctx->lock);
		bytes = memreg_oom_ctx_bytes(ctx);
		spin_unlock(&ctx->lock);
		if (bytes <= most)
			continue;
		task = pid_task(ctx->tgid, PIDTYPE_TGID);
		if (!task || is_global_init(task) ||
		    (task->flags & PF_KTHREAD))
			continue;
		task_lock(task);
		live = task->mm == ctx->mm;
		task_unlock(task);
		if (live) {
			most = bytes;
			best = ctx->tgid;
		}
	}
	best = get_pid(best);
	rcu_read_unlock();
	*dev_pages = most >> PAGE_SHIFT;
	return best;
}

/* The most pages any other killable process has of its own. */
static unsigned long memreg_oom_others(struct task_struct *holder)
{
	struct task_struct *p;
	unsigned long most = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (same_thread_group(p, holder) || (p->flags & PF_KTHREAD) ||
		    p->signal->oom_score_adj == OOM_SCORE_ADJ_MIN)
			continue;
		most = max(most, memreg_oom_task_pages(p));
	}
	rcu_read_unlock();
	return most;
}

static int memreg_oom_notify(struct notifier_block *nb, unsigned long unused,
			     void *arg)
{
	unsigned long *freed = arg, dev_pages, own, others;
	struct task_struct *task;
	struct pid *pid;

	/* a dying allocator: the OOM killer lets it have reserves and go */
	if (fatal_signal_pending(current))
		return NOTIFY_DONE;

	mutex_lock(&memreg_oom_lock);
	/*
	 * Killed already, and still exiting: wait for it, a while; then
	 * the OOM killer goes on (a victim stuck in D state, or one whose
	 * mm another process shares).
	 */
	if (memreg_oom_victim) {
		bool exiting;

		rcu_read_lock();
		exiting = pid_task(memreg_oom_victim, PIDTYPE_TGID);
		rcu_read_unlock();
		if (exiting &&
		    time_before(jiffies, memreg_oom_killed_at + 2 * HZ)) {
			*freed += memreg_oom_victim_pages;
			mutex_unlock(&memreg_oom_lock);
			return NOTIFY_OK;
		}
		put_pid(memreg_oom_victim);
		memreg_oom_victim = NULL;
	}
	mutex_unlock(&memreg_oom_lock);

	pid = memreg_oom_holder(&dev_pages);
	if (!pid)
		return NOTIFY_DONE;
	task = get_pid_task(pid, PIDTYPE_TGID);
	if (!task)
		goto put_pid;

	mutex_lock(&memreg_oom_lock);
	if (task->signal->oom_score_adj == OOM_SCORE_ADJ_MIN)
		goto unlock;
	own = memreg_oom_task_pages(task);
	others = memreg_oom_others(task);
	if (dev_pages + own <= others)
		goto unlock;	/* the OOM killer's choice is the right one */

	pr_warn("memreg: out of memory: killing process %d (%s), which holds %lu MiB of device memory (RSS and swap %lu MiB; no other process more than %lu MiB)\n",
		pid_nr(pid), task->comm, dev_pages >> (20 - PAGE_SHIFT),
		own >> (20 - PAGE_SHIFT), others >> (20 - PAGE_SHIFT));
	send_sig(SIGKILL, task, 1);
	put_pid(memreg_oom_victim);
	memreg_oom_victim = get_pid(pid);
	memreg_oom_killed_at = jiffies;
	memreg_oom_victim_pages = dev_pages;
	*freed += dev_pages;
unlock:
	mutex_unlock(&memreg_oom_lock);
	put_task_struct(task);
put_pid:
	put_pid(pid);
	return NOTIFY_OK;
}

static struct notifier_block memreg_oom_nb = {
	.notifier_call = memreg_oom_notify,
};

int memreg_oom_init(void)
{
	return register_oom_notifier(&memreg_oom_nb);
}

void memreg_oom_exit(void)
{
	unregister_oom_notifier(&memreg_oom_nb);
	put_pid(memreg_oom_victim);
	memreg_oom_victim = NULL;
}
