// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - headroom: how much a process may still register and allocate.
 *
 * Each kind of memory (enum memreg_room_kind) is bounded by several
 * limits at once: the process's own, every ancestor cgroup's (its limit
 * minus what the node and its descendants hold), RLIMIT_MEMLOCK for host
 * memory, and for device allocations the user's limit, the device's free
 * capacity and the RAM reserve.  What a caller may still do is the least
 * of them, and which one that is tells it who holds the rest.  The
 * answer is a moment's: others charge and free meanwhile.
 */
#include <linux/capability.h>
#include <linux/cgroup.h>
#include <linux/errno.h>
#include <linux/sched/signal.h>
#include "memreg_internal.h"

/* The process's own limits, and RLIMIT_MEMLOCK of @task. */
static void memreg_headroom_proc(struct memreg_ctx *ctx,
				 struct task_struct *task,
				 struct memreg_headroom *out)
{
	struct memreg_room *room = out->room;
	struct memreg_ctx_snapshot snap;
	struct memreg_limits lim;
	u64 alloc = 0, by_limit[MEMREG_MEM_TYPES] = {};
	unsigned long memlock;
	u32 t, lt;
	int d;

	memreg_ctx_limits(ctx, &lim);
	memreg_ctx_snapshot(ctx, &snap);
	/* a limit counts every type charged against it (dma-buf: device) */
	for (t = 0; t < MEMREG_MEM_TYPES; t++)
		by_limit[memreg_mem_types[t]->limit_type] += snap.use.bytes[t];
	for (t = 0; t < MEMREG_MEM_TYPES; t++) {
		lt = memreg_mem_types[t]->limit_type;
		memreg_room_min(&room[t], MEMREG_ROOM_BY_PROCESS,
				lim.max_bytes[lt], by_limit[lt], 0);
	}
	for (d = 0; d < MEMREG_MAX_DEVICES; d++)
		alloc += snap.dev_alloc[d];
	memreg_room_min(&room[MEMREG_ROOM_DEV_ALLOC], MEMREG_ROOM_BY_PROCESS,
			lim.max_bytes[MEMREG_MEM_DEVICE], alloc, 0);
	out->regions = lim.max_regions > snap.use.regions ?
		       lim.max_regions - snap.use.regions : 0;

	if (!task || has_capability_noaudit(task, CAP_IPC_LOCK))
		return;
	memlock = task_rlimit(task, RLIMIT_MEMLOCK);
	if (memlock == RLIM_INFINITY)
		return;
	/* pinned_vm is in pages: whole pages of the limit are what counts */
	memreg_room_min(&room[MEMREG_ROOM_HOST], MEMREG_ROOM_BY_MEMLOCK,
			(u64)(memlock >> PAGE_SHIFT) << PAGE_SHIFT,
			(u64)atomic64_read(&ctx->mm->pinned_vm) << PAGE_SHIFT,
			0);
}

/* The device's free capacity and the RAM its allocations must leave. */
static void memreg_headroom_dev(struct memreg_devmem *dev,
				struct memreg_room *room)
{
	u64 used;

	spin_lock(&dev->lock);
	used = dev->used;
	spin_unlock(&dev->lock);
	memreg_room_min(room, MEMREG_ROOM_BY_DEVICE,
			memreg_dev_capacity_bytes(), used, 0);
	memreg_room_min(room, MEMREG_ROOM_BY_RAM, memreg_dev_ram_available(),
			memreg_dev_ram_reserve_bytes(), 0);
}

/*
 * Fill @out (@out->device in) for process @ctx (NULL: none, only the
 * cgroups), whose task @task (NULL: none) gives RLIMIT_MEMLOCK, and
 * cgroup @cgrp (referenced; NULL: none).  -ENXIO: no such device.
 */
int memreg_headroom(struct memreg_ctx *ctx, struct task_struct *task,
		    struct cgroup *cgrp, struct memreg_headroom *out)
{
	struct memreg_devmem *dev = memreg_dev_get(out->device);
	u64 dev_limit = MEMREG_UNLIMITED;
	u32 k;

	if (!dev)
		return -ENXIO;
	for (k = 0; k < MEMREG_ROOM_KINDS; k++)
		memreg_room_init(&out->room[k]);
	out->regions = MEMREG_UNLIMITED;
	out->cgroup_id = 0;

	if (ctx)
		memreg_headroom_proc(ctx, task, out);
	if (cgrp) {
		dev_limit = memreg_cg_room(cgrp, out->room);
		out->cgroup_id = cgroup_id(cgrp);
	}
	if (ctx)
		memreg_user_dev_room(ctx->user,
				     &out->room[MEMREG_ROOM_DEV_ALLOC]);
	memreg_headroom_dev(dev, &out->room[MEMREG_ROOM_DEV_ALLOC]);
	out->dev_total = min(memreg_dev_capacity_bytes(), dev_limit);
	return 0;
}
