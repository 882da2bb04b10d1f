/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - internal declarations shared by the module's files.
 *
 * Object model:
 *   struct memreg_ctx     one per process (thread group) that opened
 *                         /dev/memreg; shared by all its open files; holds
 *                         the counters and the limits.
 *   struct memreg_file    one per open file; owns its registrations.
 *   struct memreg_reg     one registration; lives in the global registry
 *                         (memreg_regs, keyed by id, walked by the netlink
 *                         dump) and in its process's xarray (for QUERY).
 *
 * Lifetimes: a region holds a reference on its ctx; a file holds one too.
 * Regions and contexts are freed after an RCU grace period so that the
 * netlink dumps can walk them under rcu_read_lock() without taking locks
 * that the register path holds while it allocates.
 */
#ifndef _MEMREG_INTERNAL_H
#define _MEMREG_INTERNAL_H

#include <linux/types.h>
#include <linux/export.h>
#include <linux/kconfig.h>
#include <linux/mm_types.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/xarray.h>
#include <linux/ktime.h>
#include <linux/kref.h>
#include <linux/rbtree.h>
#include <linux/mmu_notifier.h>
#include <linux/cgroup.h>
#include <linux/memreg.h>

/*
 * memreg_kunit.ko tests internal functions of memreg.ko; they are exported
 * only to kernels built with KUnit, never to production kernels.
 */
#if IS_ENABLED(CONFIG_KUNIT)
#define MEMREG_EXPORT_FOR_KUNIT(sym)	EXPORT_SYMBOL_GPL(sym)
#else
#define MEMREG_EXPORT_FOR_KUNIT(sym)
#endif

/* Pages per pin_user_pages_fast() call: one page full of page pointers. */
#define MEMREG_PIN_BATCH	(PAGE_SIZE / sizeof(struct page *))

/* Emulated devices the module can drive (module parameter "devices"). */
#define MEMREG_MAX_DEVICES	16

/* Live grants per registration, and imports per process. */
#define MEMREG_MAX_GRANTS	64
#define MEMREG_MAX_IMPORTS	65536

/* Most entries one MEMREG_IOC_QUERY call copies out. */
#define MEMREG_QUERY_MAX	256

/* Memory types: enum memreg_mem_type, each one backend (below). */
#define MEMREG_MEM_TYPES	(MEMREG_MEM_DMABUF + 1)

struct memreg_limits {
	u64 max_regions;
	u64 max_bytes[MEMREG_MEM_TYPES];	/* registered, per type */
};

/* Bits of memreg_ctx.overridden: which limits an administrator set. */
#define MEMREG_OVR_REGIONS	BIT(0)
#define MEMREG_OVR_BYTES(type)	BIT(1 + (type))
#define MEMREG_OVR_HOST		MEMREG_OVR_BYTES(MEMREG_MEM_HOST)
#define MEMREG_OVR_DEV		MEMREG_OVR_BYTES(MEMREG_MEM_DEVICE)

struct memreg_usage {
	u64 regions;
	u64 bytes[MEMREG_MEM_TYPES];		/* registered, per type */
};

/* One user's account (memreg_user.c): what per-process limits cannot bound. */
struct memreg_user {
	refcount_t ref;
	kuid_t uid;
	struct hlist_node node;		/* in memreg_user.c's table */
	atomic_t files;			/* dma-buf files held for it */
	atomic64_t dev_bytes;		/* device memory its processes hold */
	atomic64_t export_pages;	/* host pages its dma-bufs hold pinned */
	spinlock_t lock;		/* protects the import bucket */
	u64 import_budget;		/* failed IPC imports it may still make */
	unsigned long import_stamp;	/* jiffies of the last refill */
};

struct memreg_ctx {
	refcount_t ref;
	u32 id;				/* key in memreg_ctxs */
	struct pid *tgid;		/* the process */
	struct mm_struct *mm;		/* mmgrab()ed: pinned_vm is charged here */
	/*
	 * Told when the mm is torn down (exit, exec): every file of the
	 * process then drops what it holds, so no pin outlives the address
	 * space it was charged to (see memreg_ctx.c).
	 */
	struct mmu_notifier mn;
	struct hlist_node hash_node;	/* in memreg_ctx.c's table by mm */
	struct mutex files_lock;	/* protects files */
	struct list_head files;		/* open files, memreg_file.ctx_node */
	kuid_t uid;
	struct memreg_user *user;	/* uid's account, referenced */
	char comm[TASK_COMM_LEN];
	/*
	 * Which life of which process this is (MEMREG_IOC_INFO): a number
	 * the module never issues twice, and the process's start time, so
	 * that a peer can tell a restarted process at the same pid, port and
	 * addresses from the one it knew.
	 */
	u64 incarnation;
	u64 start_time;			/* ns since boot */

	spinlock_t lock;		/* protects the fields below */
	struct memreg_usage use;
	struct memreg_usage peak;
	struct memreg_limits limits;	/* per-process values, see overridden */
	unsigned int overridden;	/* MEMREG_OVR_*; others follow defaults */

	u64 dev_alloc[MEMREG_MAX_DEVICES];	/* device bytes allocated */
	/*
	 * Allocations freed with MEMREG_DEV_FREE_KEEP_EXPORTS whose
	 * dma-bufs live on: revoked when the address space goes
	 * (memreg_dev_revoke_kept()), so no export outlives its allocator.
	 */
	struct list_head kept;

	/*
	 * dma-bufs of its host registrations (memreg_host_export.c), for
	 * the revocation when a registration goes; the registrations keep
	 * the context while they are exported.
	 */
	struct mutex exports_lock;
	struct list_head exports;

	/* IPC names and allow-list entries of all its files (memreg_ipc.c) */
	atomic_t ipc_names;
	atomic_t ipc_pids;
	atomic64_t ipc_import_failed;

	/* mstx heaps and regions of all its files (memreg_heap.c) */
	atomic64_t mstx_heaps;
	atomic64_t mstx_regions;

	/* transfers (memreg_xfer.c) */
	atomic_t nr_imports;		/* import handles the process holds */
	atomic64_t xfer_descs;
	atomic64_t xfer_read_bytes;
	atomic64_t xfer_write_bytes;

	struct xarray regions;		/* ctx_index -> region of this process */
	/*
	 * The cgroup record it charged last, one of its users (under
	 * memreg_cgroup.c's lock): kept for the next charge in that cgroup,
	 * until it charges in another or its last file closes.
	 */
	struct memreg_cg *cg_last;
	/*
	 * Registrations whose pages later ones may share: an interval tree
	 * by page span (memreg_share.c), under lock.
	 */
	struct rb_root_cached shared;
	struct rcu_head rcu;
};

struct memreg_heaps;

struct memreg_file {
	struct memreg_ctx *ctx;
	struct list_head ctx_node;	/* in ctx->files, under its files_lock */
	struct mutex lock;		/* protects regions and dallocs */
	struct list_head regions;
	struct xarray dallocs;		/* id -> device allocation of this file */
	u32 next_dalloc;		/* cyclic id allocation in dallocs */
	struct xarray imports;		/* id -> peer's grant imported here */
	u32 next_import;
	struct memreg_heaps *heaps;	/* mstx heap tracking, memreg_heap.c */
	struct list_head ipc_names;	/* memreg_ipc.c, under its lock */
};

/*
 * One registration, whatever its memory type.  What holds the memory is
 * the type's backend's (struct memreg_mem_ops): it allocates a struct of
 * its own that begins with this one (container_of), so nothing of one
 * type's state sits in another's registrations.
 */
struct memreg_reg {
	/*
	 * The registry's reference plus one per transfer copying from or to
	 * it: unregistering takes it out of every lookup at once, but the
	 * pages stay pinned (and charged) until the last copy is done.
	 */
	refcount_t users;
	u32 id;				/* key in memreg_regs, low handle bits */
	u64 handle;
	struct memreg_ctx *ctx;		/* holds a reference */
	struct memreg_cg *cg;		/* the cgroup charged; NULL: none */
	struct memreg_file *owner;
	struct list_head file_node;
	const struct memreg_mem_ops *ops;	/* its type's backend */
	/*
	 * A byte each (with the flags beside them), so that a host
	 * registration stays a kmalloc-256 object (memreg_host.c).
	 */
	u8 type;			/* enum memreg_mem_type */
	u8 access;			/* MEMREG_ACCESS_* */
	/* in ctx->shared: later registrations inside it share its pages */
	bool shared;
	/*
	 * The memory's owner took it back (a dma-buf exporter's
	 * move_notify): no copy may touch it any more.  Set once.
	 */
	bool revoked;
	u32 device;			/* the device id; 0 for host memory */
	u64 addr;
	u64 len;
	ktime_t created;
	/*
	 * A child (memreg_share.c): the registration whose pinned pages it
	 * copies through, referenced (one of its users), never a child
	 * itself.  It pins and charges no byte: its parent did.  Set before
	 * attach, for the registration's life.
	 */
	struct memreg_reg *parent;

	/* what QUERY and the dump report, set by the backend's attach */
	unsigned long pinned_pages;	/* distinct folios: a huge page is one */

	/* grants of it to peers (memreg_grant.c), under owner->lock */
	struct list_head grants;
	atomic_t nr_grants;
	atomic_t nr_imports;		/* live imports of those grants */
	/*
	 * Its slot in ctx->regions: the lowest free, so that a process's few
	 * registrations sit in one xarray node.  Keyed by the global id (up
	 * to 2^32, cyclic), a registration alone in its part of the index
	 * cost a chain of 3-5 nodes, allocated and freed with it.
	 */
	u32 ctx_index;

	struct rcu_head rcu;
};

struct sk_buff;

/**
 * struct memreg_mem_ops - a memory type's backend
 * @name: for messages
 * @reg_size: the backend's registration struct, which begins with
 *	struct memreg_reg
 * @limit_type: the type whose byte limit it is charged against (its own,
 *	or another's: dma-buf bytes are device bytes)
 * @fd_backed: the range is in a file @req->fd names, not in the caller's
 *	address space
 * @shares: a registration inside a live one of the same process and type
 *	holds no memory of its own: it is a child (reg->parent is set before
 *	@attach), and the backend's @attach, @release and @page_at serve it
 *	from the parent's pages (memreg_share.c)
 * @over_limit: the refusal when the type's byte limit is reached
 * @over_limit_errno: and its errno (the UAPI's, per type)
 * @attach: take hold of [reg->addr, +reg->len) of the calling process
 *	(@first: its first page, @npages: pages spanned), or of the file
 *	@req names: pin it, or reference what provides it; set
 *	reg->pinned_pages and reg->device.  The registration is charged
 *	already.  0 or -errno.
 * @unlink: optional; the registration is out of every lookup (called
 *	before the last user is gone)
 * @release: the last user is gone (or attach's caller unwinds): let go
 *	of what attach took
 * @page_at: the page holding byte @addr of the registration, and the
 *	byte's offset in it: what transfers copy through
 * @copy_prepare: optional; copies (a TRANSFER call) are about to use the
 *	registration, for as long as until @copy_finish: get what they need
 *	that may sleep or take locks (CPU access, a kernel mapping); 0, or
 *	-errno to refuse them.  Called once per call and registration.
 * @copy_finish: optional; let go of what @copy_prepare took
 * @copy_begin: optional; one copy is about to use page_at; 0, or -errno
 *	to refuse it.  Takes no lock: the other side of the copy may be
 *	counted already.  Not called twice for one copy (a copy within one
 *	registration begins once).
 * @copy_end: optional; that copy is done
 * @fill_nl: optional; the type's own attributes of a dump entry
 * @nl_bytes: the netlink attribute of the type's registered bytes (stats,
 *	processes), @nl_peak_bytes of their peak, @nl_max_bytes of the limit
 *
 * A new memory type is a file with one of these and a row in
 * memreg_mem_types[] (memreg_reg.c).
 */
struct memreg_mem_ops {
	const char *name;
	size_t reg_size;
	u32 limit_type;
	bool fd_backed;
	bool shares;
	enum memreg_refusal over_limit;
	int over_limit_errno;
	int (*attach)(struct memreg_reg *reg,
		      const struct memreg_register *req, u64 first,
		      unsigned long npages);
	void (*unlink)(struct memreg_reg *reg);
	void (*release)(struct memreg_reg *reg);
	struct page *(*page_at)(const struct memreg_reg *reg, u64 addr,
				unsigned int *off);
	int (*copy_prepare)(struct memreg_reg *reg);
	void (*copy_finish)(struct memreg_reg *reg);
	int (*copy_begin)(struct memreg_reg *reg);
	void (*copy_end)(struct memreg_reg *reg);
	int (*fill_nl)(struct sk_buff *skb, const struct memreg_reg *reg);
	u16 nl_bytes, nl_peak_bytes, nl_max_bytes;	/* MEMREG_A_* of the type */
};

extern const struct memreg_mem_ops memreg_host_mem_ops;
extern const struct memreg_mem_ops memreg_dev_mem_ops;
extern const struct memreg_mem_ops memreg_dmabuf_mem_ops;
extern const struct memreg_mem_ops *const memreg_mem_types[MEMREG_MEM_TYPES];

/* One emulated device's memory. */
struct memreg_devmem {
	u32 id;
	spinlock_t lock;		/* protects the counters */
	u64 used;			/* bytes allocated, both kinds */
	u64 huge_bytes;			/* in 2 MiB chunks */
	u64 normal_bytes;		/* in 4 KiB pages */
};

/* One MEMREG_IOC_DEV_ALLOC allocation; see memreg_dev.c for its refs. */
struct memreg_dalloc {
	struct kref ref;
	u32 id;				/* key in its file's dallocs */
	u64 handle;
	struct memreg_devmem *dev;
	struct memreg_ctx *ctx;		/* charged with it; referenced */
	struct memreg_cg *cg;		/* the cgroup charged; NULL: none */
	u64 len;			/* bytes taken from the device */
	unsigned long npages;
	struct page **pages;		/* order-0 pages, chunks split */
	bool huge;

	spinlock_t lock;		/* protects freed and nregs */
	bool freed;			/* handle gone: no new map or register */
	unsigned int nregs;		/* DEVICE registrations inside it */

	/* its dma-bufs (memreg_dev_export.c), revoked when it is freed */
	struct mutex exports_lock;
	struct list_head exports;
	struct list_head kept_node;	/* in ctx->kept, under ctx->lock */
};

/* module-wide state: memreg_main.c, memreg_ctx.c (limits, stats) */
void memreg_file_drop_all(struct memreg_file *mf);
extern u8 memreg_instance_id[16];
extern struct xarray memreg_regs;
extern struct xarray memreg_ctxs;

struct memreg_stats {
	atomic64_t procs;
	atomic64_t regions;
	atomic64_t bytes[MEMREG_MEM_TYPES];	/* registered, per type */
	atomic64_t pinned_pages;
	atomic64_t refused[MEMREG_REFUSED_CGROUP + 1];
	atomic64_t ipc_import_failed;	/* names not found, or not allowed */
	atomic64_t ipc_import_throttled;	/* refused: guesses rationed */
};
extern struct memreg_stats memreg_stats;

extern unsigned int memreg_ndevs;
u64 memreg_dev_capacity_bytes(void);

void memreg_default_limits(struct memreg_limits *lim);
void memreg_set_default_limits(const struct memreg_limits *lim,
			       unsigned int which);

/* memreg_token.c: the 16-byte names of grants and IPC names */
#define MEMREG_TOKEN_LEN	16
struct xarray;
void memreg_token_make(u8 *token, u32 id, unsigned int random_len);
void *memreg_token_lookup(struct xarray *xa, const u8 *token,
			  size_t token_off);
bool memreg_token_eq(const u8 *a, const u8 *b);

/* memreg_limits.c: pure checks, KUnit-tested */
int memreg_check_range(u64 addr, u64 len, u64 *first, unsigned long *npages);
bool memreg_range_inside(u64 base, u64 blen, u64 addr, u64 len);
int memreg_check_limits(const struct memreg_usage *use,
			const struct memreg_limits *lim,
			const struct memreg_mem_ops *const *types, u32 type,
			u64 len, enum memreg_refusal *why);
void memreg_effective_limits(const struct memreg_limits *own,
			     unsigned int overridden,
			     const struct memreg_limits *defaults,
			     struct memreg_limits *out);
u64 memreg_handle_make(u32 id, u32 cookie);
u32 memreg_handle_id(u64 handle);
bool memreg_fits(u64 use, u64 max, u64 len);
void memreg_room_init(struct memreg_room *room);
void memreg_room_min(struct memreg_room *room, u32 by, u64 limit, u64 used,
		     u64 cgroup_id);

/* memreg_cursor.c */
unsigned long memreg_walk(struct xarray *xa, unsigned long *cursor,
			  int (*emit)(void *entry, void *arg), void *arg);

/* memreg_ctx.c */
struct memreg_ctx *memreg_ctx_get_current(void);
void memreg_ctx_put(struct memreg_ctx *ctx);
void memreg_ctx_add_file(struct memreg_ctx *ctx, struct memreg_file *mf);
void memreg_ctx_del_file(struct memreg_ctx *ctx, struct memreg_file *mf);
struct memreg_ctx *memreg_ctx_find_pid(pid_t pid);
void memreg_ctx_limits(struct memreg_ctx *ctx, struct memreg_limits *out);
int memreg_ctx_charge(struct memreg_ctx *ctx, u32 type, u64 len);
void memreg_ctx_refused(struct memreg_ctx *ctx, u32 type, u64 len,
			enum memreg_refusal why);
struct cgroup;
void memreg_ctx_refused_cg(struct memreg_ctx *ctx, u32 type, u64 len,
			   struct cgroup *cgrp);
void memreg_ctx_note_peak(struct memreg_ctx *ctx);
void memreg_ctx_uncharge(struct memreg_ctx *ctx, u32 type, u64 len);
int memreg_ctx_charge_dev_alloc(struct memreg_ctx *ctx, u32 dev, u64 len,
				bool charge);
void memreg_ctx_uncharge_dev_alloc(struct memreg_ctx *ctx, u32 dev, u64 len);
void memreg_ctx_set_limits(struct memreg_ctx *ctx,
			   const struct memreg_limits *lim, unsigned int which);
pid_t memreg_ctx_pid(const struct memreg_ctx *ctx);
void memreg_ctx_usage(struct memreg_ctx *ctx, struct memreg_usage *out);
u64 memreg_ctx_dev_alloc_bytes(struct memreg_ctx *ctx, u32 dev);

/* A context's counters at one moment, for the readers (dumps, INFO). */
struct memreg_ctx_snapshot {
	struct memreg_usage use, peak;
	u64 dev_alloc[MEMREG_MAX_DEVICES];
};
void memreg_ctx_snapshot(struct memreg_ctx *ctx,
			 struct memreg_ctx_snapshot *out);

/* memreg_ioctl.c: the ioctl table and its dispatcher */
long memreg_ioctl_dispatch(struct memreg_file *mf, unsigned int cmd,
			   void __user *uarg);
/*
 * @n elements of a user array of @usize-byte elements (an extensible
 * struct each) from element @first, into @dst of @ksize-byte elements.
 */
int memreg_copy_array_in(void *dst, size_t ksize, const void __user *base,
			 u32 usize, u32 first, u32 n);


/* memreg_reg.c */
int memreg_reg_register(struct memreg_file *mf, struct memreg_register *req);
void memreg_reg_exit(void);
struct memreg_reg *memreg_reg_lookup(struct xarray *xa, u64 handle,
					const struct memreg_file *owner);
int memreg_reg_unregister(struct memreg_file *mf, u64 handle);
void memreg_reg_release_file(struct memreg_file *mf);
int memreg_reg_query(struct memreg_ctx *ctx, struct memreg_query *q);
u64 memreg_reg_age_ms(const struct memreg_reg *reg);
struct memreg_reg *memreg_reg_get(struct memreg_file *mf, u64 handle);
void memreg_reg_put(struct memreg_reg *reg);

/*
 * memreg_grant.c: a grant of a registration to peers (the UAPI's struct
 * memreg_grant is the ioctl that makes one, hence _obj); its import by a
 * peer is an import (a handle) in the peer's file.
 */
struct memreg_grant_obj {
	u32 id;				/* key in memreg_grants: token bytes 0-3 */
	u8 token[MEMREG_TOKEN_LEN];
	u32 access;
	struct memreg_reg __rcu *reg;	/* NULL once revoked */
	struct memreg_file *owner;
	struct list_head reg_node;	/* in reg->grants, under owner->lock */
	spinlock_t lock;		/* reg going NULL against nimports */
	unsigned int nimports;
	/*
	 * Revoked because its owner's file went (close, exit, exec): its
	 * imports then say EOWNERDEAD.  Set before reg goes NULL.
	 */
	bool owner_gone;
	struct kref ref;		/* the registry's, and each import's */
	struct rcu_head rcu;
};

struct memreg_import_obj {
	u32 id;				/* key in its file's imports */
	u64 handle;
	struct memreg_grant_obj *grant;	/* referenced */
	struct rcu_head rcu;
};

int memreg_grant_create(struct memreg_file *mf, struct memreg_grant *req);
int memreg_grant_revoke(struct memreg_file *mf, const u8 *token);
void memreg_grant_revoke_reg(struct memreg_reg *reg, bool owner_gone);
int memreg_grant_revoked_err(const struct memreg_grant_obj *grant);
int memreg_import_create(struct memreg_file *mf, struct memreg_import *req);
int memreg_import_remove(struct memreg_file *mf, u64 handle);
void memreg_import_release_file(struct memreg_file *mf);
struct memreg_reg *memreg_import_get_reg(struct memreg_file *mf, u64 handle,
					 struct memreg_grant_obj **grant);
void memreg_grant_put(struct memreg_grant_obj *grant);

/* memreg_share.c: children that share their parent's pinned pages */
void memreg_share_find_parent(struct memreg_reg *reg);
void memreg_share_add(struct memreg_reg *reg);
void memreg_share_del(struct memreg_reg *reg);

/* memreg_xfer.c */
int memreg_xfer(struct memreg_file *mf, struct memreg_transfer *req);

/* memreg_dev.c: emulated device memory */
extern struct memreg_devmem memreg_devs[MEMREG_MAX_DEVICES];
void memreg_dev_init(void);
u64 memreg_dev_ram_reserve_bytes(void);
u64 memreg_dev_ram_available(void);
struct memreg_devmem *memreg_dev_get(u32 id);
int memreg_dev_alloc(struct memreg_file *mf, struct memreg_dev_alloc *req);
int memreg_dev_free(struct memreg_file *mf, u64 handle, u32 flags);
int memreg_dev_info(struct memreg_file *mf, struct memreg_dev_info *info);
void memreg_dev_release_file(struct memreg_file *mf);
void memreg_dev_revoke_kept(struct memreg_ctx *ctx);
int memreg_dev_mmap(struct memreg_file *mf, struct vm_area_struct *vma);
struct memreg_dalloc *memreg_dalloc_get(struct memreg_file *mf, u64 handle);
void memreg_dalloc_put(struct memreg_dalloc *d);

/* memreg_export.c: memreg's dma-bufs, whatever their source */
struct dma_buf;
bool memreg_export_owns(const struct dma_buf *dmabuf);
struct page *memreg_export_page(const struct dma_buf *dmabuf, pgoff_t pgoff);
int memreg_export_watch(struct dma_buf *dmabuf, struct list_head *node);
void memreg_export_unwatch(struct dma_buf *dmabuf, struct list_head *node);
/* memreg_dmabuf.c: the export behind @node (a watcher) is revoked */
void memreg_dmabuf_revoke_watcher(struct list_head *node);

/* memreg_dev_export.c: device allocations as dma-bufs */
int memreg_dev_export(struct memreg_file *mf, struct memreg_dev_export *req,
		      struct dma_buf **out);
void memreg_dev_export_revoke(struct memreg_dalloc *d);
struct memreg_dalloc *memreg_dev_export_vma(struct vm_area_struct *vma,
					    unsigned long *first);

/* memreg_host_export.c: host registrations as dma-bufs, no second pin */
int memreg_host_export(struct memreg_file *mf, struct memreg_reg_export *req,
		       struct dma_buf **out);
void memreg_host_export_revoke(struct memreg_reg *reg);

/* memreg_user.c: per-user accounts */
struct memreg_user *memreg_user_get(kuid_t uid);
void memreg_user_put(struct memreg_user *u);
unsigned int memreg_user_max_files(void);
int memreg_user_charge_file(struct memreg_user *u);
int memreg_user_charge_dev(struct memreg_user *u, u64 len, bool charge);
void memreg_user_uncharge_dev(struct memreg_user *u, u64 len);
void memreg_user_dev_room(struct memreg_user *u, struct memreg_room *room);
void memreg_user_uncharge_file(struct memreg_user *u);
int memreg_user_charge_export(struct memreg_user *u, unsigned long npages);
void memreg_user_uncharge_export(struct memreg_user *u, unsigned long npages);
int memreg_user_import_begin(struct memreg_user *u);
void memreg_user_import_done(struct memreg_user *u, bool found);
void memreg_user_exit(void);

/* memreg_ipc.c: named dma-bufs for CANN's IPC calls */
unsigned int memreg_ipc_max_names(void);
unsigned int memreg_ipc_max_pids(void);
int memreg_ipc_export(struct memreg_file *mf, struct memreg_ipc_export *req);
int memreg_ipc_allow(struct memreg_file *mf, struct memreg_ipc_allow *req);
int memreg_ipc_import(struct memreg_file *mf, struct memreg_ipc_import *req,
		      struct dma_buf **out);
int memreg_ipc_close(struct memreg_file *mf, const u8 *token);
void memreg_ipc_release_file(struct memreg_file *mf);

/* memreg_main.c: the device dma-buf attachments are made for */
struct device *memreg_dma_device(void);

/* memreg_oom.c: device memory in the OOM killer's choice */
int memreg_oom_init(void);
void memreg_oom_exit(void);

/* memreg_heap.c: mstx heaps and regions */
int memreg_heap_batch(struct memreg_file *mf, struct memreg_mstx *req);
int memreg_heap_cache_init(void);
void memreg_heap_cache_exit(void);
void memreg_heap_release_file(struct memreg_file *mf);

/*
 * memreg_cgroup.c: charges and limits per cgroup v2 node.  Without
 * CONFIG_CGROUPS nothing is charged and no limit can be set.
 */
struct memreg_cg;
struct memreg_cg_snapshot {
	u64 id;
	struct cgroup *cgrp;
	u64 use[MEMREG_ROOM_KINDS];
	u64 max[MEMREG_MEM_TYPES];
	u64 refused;
};
#ifdef CONFIG_CGROUPS
struct cgroup *memreg_cg_task_cgroup(struct task_struct *task);
struct cgroup *memreg_cg_current_cgroup(void);
int memreg_cg_charge(struct memreg_ctx *ctx, u32 kind, u64 len,
		     struct memreg_cg **out);
int memreg_cg_check(struct memreg_ctx *ctx, u32 kind, u64 len);
void memreg_cg_uncharge(struct memreg_cg *cg, u32 kind, u64 len);
void memreg_cg_put(struct memreg_cg *cg);
u64 memreg_cg_room(struct cgroup *cgrp, struct memreg_room *room);
int memreg_cg_set_limits(struct cgroup *cgrp, const u64 *max,
			 unsigned int which);
struct memreg_cg *memreg_cg_next(u64 after, struct memreg_cg_snapshot *snap);
u64 memreg_cg_records(void);
void memreg_cg_ctx_release(struct memreg_ctx *ctx);
void memreg_cg_exit(void);

static inline void memreg_cgroup_put(struct cgroup *cgrp)
{
	cgroup_put(cgrp);
}
#else
static inline void memreg_cgroup_put(struct cgroup *cgrp)
{
}

static inline struct cgroup *memreg_cg_task_cgroup(struct task_struct *task)
{
	return NULL;
}

static inline struct cgroup *memreg_cg_current_cgroup(void)
{
	return NULL;
}

static inline int memreg_cg_charge(struct memreg_ctx *ctx, u32 kind, u64 len,
				   struct memreg_cg **out)
{
	*out = NULL;
	return 0;
}

static inline int memreg_cg_check(struct memreg_ctx *ctx, u32 kind, u64 len)
{
	return 0;
}

static inline void memreg_cg_uncharge(struct memreg_cg *cg, u32 kind, u64 len)
{
}

static inline void memreg_cg_put(struct memreg_cg *cg)
{
}

static inline u64 memreg_cg_room(struct cgroup *cgrp, struct memreg_room *room)
{
	return MEMREG_UNLIMITED;
}

static inline struct memreg_cg *
memreg_cg_next(u64 after, struct memreg_cg_snapshot *snap)
{
	return NULL;
}

static inline u64 memreg_cg_records(void)
{
	return 0;
}

static inline void memreg_cg_ctx_release(struct memreg_ctx *ctx)
{
}

static inline void memreg_cg_exit(void)
{
}
#endif

/* memreg_headroom.c: MEMREG_IOC_HEADROOM and MEMREG_CMD_HEADROOM_GET */
int memreg_headroom(struct memreg_ctx *ctx, struct task_struct *task,
		    struct cgroup *cgrp, struct memreg_headroom *out);

/* memreg_nl.c and memreg_nl_*.c */
int memreg_nl_init(void);
void memreg_nl_exit(void);
void memreg_event_region(const struct memreg_reg *reg, u8 cmd);
void memreg_event_refused(const struct memreg_ctx *ctx, u32 type, u64 len,
			  enum memreg_refusal why, struct cgroup *cgrp);
void memreg_event_proc_gone(const struct memreg_ctx *ctx);

#endif /* _MEMREG_INTERNAL_H */
