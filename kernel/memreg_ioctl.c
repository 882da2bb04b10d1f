// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the ioctls of /dev/memreg: one table, one dispatcher.
 *
 * Every command is one row of memreg_ioctls[], in the manner of DRM's
 * drm_ioctl_desc: its number, the kernel's struct and the smallest size a
 * caller may pass, where its flags and reserved words are, which part of
 * the struct goes back to the caller, and what undoes the command when
 * that copy fails.  The dispatcher does for every command what the rows
 * say; a handler sees a checked struct in kernel memory and nothing else.
 *
 * The structs are extensible (see the UAPI header): each carries its own
 * size.  Smaller than the first version is EINVAL, larger must be zero
 * beyond what we know (E2BIG otherwise, copy_struct_from_user()), and we
 * copy back no more than the caller's size.  The number alone selects the
 * command: the size encoded in it is that of the caller's struct, which
 * may be newer or older than ours.  A flag the row does not list is
 * EINVAL, which is what lets one be defined later.
 */
#include <linux/capability.h>
#include <linux/dma-buf.h>
#include <linux/errno.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/nospec.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "memreg_internal.h"
#include "memreg_heap.h"

/* Every command's struct: the dispatcher's buffer holds any of them. */
union memreg_ioctl_arg {
	struct memreg_info info;
	struct memreg_register reg;
	struct memreg_unregister unreg;
	struct memreg_query query;
	struct memreg_dev_alloc dev_alloc;
	struct memreg_dev_free dev_free;
	struct memreg_dev_info dev_info;
	struct memreg_grant grant;
	struct memreg_revoke revoke;
	struct memreg_import import;
	struct memreg_unimport unimport;
	struct memreg_transfer transfer;
	struct memreg_mstx mstx;
	struct memreg_dev_export dev_export;
	struct memreg_reg_export reg_export;
	struct memreg_ipc_export ipc_export;
	struct memreg_ipc_allow ipc_allow;
	struct memreg_ipc_import ipc_import;
	struct memreg_ipc_close ipc_close;
	struct memreg_headroom headroom;
};

/* What goes back to the caller. */
enum memreg_ioctl_out {
	MEMREG_OUT_NONE,	/* nothing: the command only acts */
	MEMREG_OUT_OK,		/* the out part, if the command succeeded */
	MEMREG_OUT_ALWAYS,	/* the out part also on failure (progress) */
};

/**
 * struct memreg_ioctl_desc - one command of /dev/memreg
 * @name: for messages
 * @size: the kernel's struct
 * @size_ver0: the smallest struct a caller may pass
 * @flags_off: offset of the u32 flags word, or -1 if the struct has none
 * @flags_valid: the flags the command knows (any other is EINVAL)
 * @reserved_off: offset of the reserved words, which must be zero
 * @reserved_len: their length
 * @out: when the out part goes back
 * @out_off: where the out part starts
 * @out_len: its length; 0: to the end of the struct
 * @handler: the command, on the checked struct
 * @fd_handler: instead of @handler, a command whose result is a new file
 *	descriptor: it returns the dma-buf the descriptor will be for
 * @fd_off: where that descriptor's number goes in the struct
 * @undo: undoes a successful command whose result could not be copied
 *	out (the caller never learnt its handle or token)
 *
 * A command with @fd_handler gets its descriptor number reserved before
 * it runs (a full table fails it before anything is made) and written at
 * its out part; the file is installed only once the whole result reached
 * the caller.  A descriptor in the table cannot be taken back, so the
 * commit comes last, as with io_uring's fixed files and DRM's newer fd
 * ioctls; before it, nothing the caller can see has happened.
 */
struct memreg_ioctl_desc {
	const char *name;
	u32 size, size_ver0;
	s32 flags_off;
	u32 flags_valid;
	u32 reserved_off, reserved_len;
	enum memreg_ioctl_out out;
	u32 out_off, out_len;
	int (*handler)(struct memreg_file *mf, void *arg);
	int (*fd_handler)(struct memreg_file *mf, void *arg,
			  struct dma_buf **dmabuf);
	u32 fd_off;
	void (*undo)(struct memreg_file *mf, void *arg);
};

/* ---- the handlers: the work itself lives with its object ---- */

static u64 memreg_memlock_limit(void)
{
	unsigned long lim = rlimit(RLIMIT_MEMLOCK);

	if (capable(CAP_IPC_LOCK) || lim == RLIM_INFINITY)
		return MEMREG_UNLIMITED;
	return lim;
}

static int memreg_ioc_info(struct memreg_file *mf, void *arg)
{
	struct memreg_info *info = arg;
	struct memreg_limits lim;
	struct memreg_usage use;

	memreg_ctx_limits(mf->ctx, &lim);
	memreg_ctx_usage(mf->ctx, &use);
	info->abi_version = MEMREG_ABI_VERSION;
	info->features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_QUERY |
			 MEMREG_FEATURE_NETLINK | MEMREG_FEATURE_TRANSFER |
			 MEMREG_FEATURE_MSTX | MEMREG_FEATURE_DMABUF |
			 MEMREG_FEATURE_INCARNATION | MEMREG_FEATURE_REG_EXPORT;
	if (IS_ENABLED(CONFIG_CGROUPS))
		info->features |= MEMREG_FEATURE_CGROUP;
	if (memreg_ndevs)
		info->features |= MEMREG_FEATURE_DEVICE;
	info->page_size = PAGE_SIZE;
	info->devices = memreg_ndevs;
	info->dev_capacity = memreg_dev_capacity_bytes();
	memcpy(info->instance_id, memreg_instance_id,
	       sizeof(info->instance_id));
	info->max_regions = lim.max_regions;
	info->max_host_bytes = lim.max_bytes[MEMREG_MEM_HOST];
	info->max_dev_bytes = lim.max_bytes[MEMREG_MEM_DEVICE];
	info->memlock_limit = memreg_memlock_limit();
	info->regions = use.regions;
	info->host_bytes = use.bytes[MEMREG_MEM_HOST];
	info->dev_bytes = use.bytes[MEMREG_MEM_DEVICE];
	info->incarnation = mf->ctx->incarnation;
	info->start_time = mf->ctx->start_time;
	return 0;
}

static int memreg_ioc_register(struct memreg_file *mf, void *arg)
{
	return memreg_reg_register(mf, arg);
}

static void memreg_undo_register(struct memreg_file *mf, void *arg)
{
	memreg_reg_unregister(mf, ((struct memreg_register *)arg)->handle);
}

static int memreg_ioc_unregister(struct memreg_file *mf, void *arg)
{
	return memreg_reg_unregister(mf,
			((struct memreg_unregister *)arg)->handle);
}

static int memreg_ioc_query(struct memreg_file *mf, void *arg)
{
	return memreg_reg_query(mf->ctx, arg);
}

static int memreg_ioc_dev_alloc(struct memreg_file *mf, void *arg)
{
	return memreg_dev_alloc(mf, arg);
}

static void memreg_undo_dev_alloc(struct memreg_file *mf, void *arg)
{
	memreg_dev_free(mf, ((struct memreg_dev_alloc *)arg)->handle, 0);
}

static int memreg_ioc_dev_free(struct memreg_file *mf, void *arg)
{
	struct memreg_dev_free *f = arg;

	return memreg_dev_free(mf, f->handle, f->flags);
}

static int memreg_ioc_dev_info(struct memreg_file *mf, void *arg)
{
	return memreg_dev_info(mf, arg);
}

static int memreg_ioc_grant(struct memreg_file *mf, void *arg)
{
	return memreg_grant_create(mf, arg);
}

static void memreg_undo_grant(struct memreg_file *mf, void *arg)
{
	memreg_grant_revoke(mf, ((struct memreg_grant *)arg)->token);
}

static int memreg_ioc_revoke(struct memreg_file *mf, void *arg)
{
	return memreg_grant_revoke(mf, ((struct memreg_revoke *)arg)->token);
}

static int memreg_ioc_import(struct memreg_file *mf, void *arg)
{
	return memreg_import_create(mf, arg);
}

static void memreg_undo_import(struct memreg_file *mf, void *arg)
{
	memreg_import_remove(mf, ((struct memreg_import *)arg)->handle);
}

static int memreg_ioc_unimport(struct memreg_file *mf, void *arg)
{
	return memreg_import_remove(mf,
			((struct memreg_unimport *)arg)->handle);
}

static int memreg_ioc_transfer(struct memreg_file *mf, void *arg)
{
	return memreg_xfer(mf, arg);
}

static int memreg_ioc_mstx(struct memreg_file *mf, void *arg)
{
	return memreg_heap_batch(mf, arg);
}

static int memreg_ioc_dev_export(struct memreg_file *mf, void *arg,
				 struct dma_buf **dmabuf)
{
	return memreg_dev_export(mf, arg, dmabuf);
}

static int memreg_ioc_reg_export(struct memreg_file *mf, void *arg,
				 struct dma_buf **dmabuf)
{
	return memreg_host_export(mf, arg, dmabuf);
}

static int memreg_ioc_ipc_export(struct memreg_file *mf, void *arg)
{
	return memreg_ipc_export(mf, arg);
}

static void memreg_undo_ipc_export(struct memreg_file *mf, void *arg)
{
	memreg_ipc_close(mf, ((struct memreg_ipc_export *)arg)->token);
}

static int memreg_ioc_ipc_allow(struct memreg_file *mf, void *arg)
{
	return memreg_ipc_allow(mf, arg);
}

static int memreg_ioc_ipc_import(struct memreg_file *mf, void *arg,
				 struct dma_buf **dmabuf)
{
	return memreg_ipc_import(mf, arg, dmabuf);
}

static int memreg_ioc_ipc_close(struct memreg_file *mf, void *arg)
{
	return memreg_ipc_close(mf, ((struct memreg_ipc_close *)arg)->token);
}

static int memreg_ioc_headroom(struct memreg_file *mf, void *arg)
{
	struct memreg_headroom *h = arg;
	struct cgroup *cgrp;
	int err;

	if (h->reserved0)
		return -EINVAL;
	cgrp = memreg_cg_current_cgroup();
	err = memreg_headroom(mf->ctx, current, cgrp, h);
	memreg_cgroup_put(cgrp);
	return err;
}

/* ---- the table ---- */

/* One row: the command, its struct, then what sets it apart. */
#define MEMREG_IOCTL_ROW(ioc, st, ...)					\
	[_IOC_NR(MEMREG_IOC_##ioc)] = {					\
		.name = #ioc,						\
		.size = sizeof(struct st),				\
		.size_ver0 = MEMREG_##ioc##_SIZE_VER0,			\
		.reserved_off = offsetof(struct st, reserved),		\
		.reserved_len = sizeof_field(struct st, reserved),	\
		__VA_ARGS__						\
	}
#define MEMREG_IOCTL(ioc, st, fn, ...)					\
	MEMREG_IOCTL_ROW(ioc, st, .handler = fn, __VA_ARGS__)
/* a command whose result is a new file descriptor, at the struct's fd */
#define MEMREG_IOCTL_FD(ioc, st, fn, ...)				\
	MEMREG_IOCTL_ROW(ioc, st, .fd_handler = fn,			\
			 .fd_off = offsetof(struct st, fd),		\
			 .flags_off = offsetof(struct st, flags),	\
			 .flags_valid = MEMREG_EXPORT_CLOEXEC, __VA_ARGS__)
#define MEMREG_FLAGS(st)	.flags_off = offsetof(struct st, flags)
#define MEMREG_FLAGS_VALID(st, valid)					\
	.flags_off = offsetof(struct st, flags), .flags_valid = (valid)
#define MEMREG_NO_FLAGS		.flags_off = -1
#define MEMREG_OUT(when, st, field)					\
	.out = (when), .out_off = offsetof(struct st, field),		\
	.out_len = sizeof_field(struct st, field)
#define MEMREG_OUT_ALL(when)	.out = (when)

static const struct memreg_ioctl_desc memreg_ioctls[] = {
	MEMREG_IOCTL(INFO, memreg_info, memreg_ioc_info,
		     MEMREG_NO_FLAGS, MEMREG_OUT_ALL(MEMREG_OUT_OK)),
	MEMREG_IOCTL(REGISTER, memreg_register, memreg_ioc_register,
		     MEMREG_FLAGS(memreg_register),
		     MEMREG_OUT(MEMREG_OUT_OK, memreg_register, handle),
		     .undo = memreg_undo_register),
	MEMREG_IOCTL(UNREGISTER, memreg_unregister, memreg_ioc_unregister,
		     MEMREG_FLAGS(memreg_unregister)),
	MEMREG_IOCTL(QUERY, memreg_query, memreg_ioc_query,
		     MEMREG_FLAGS(memreg_query), MEMREG_OUT_ALL(MEMREG_OUT_OK)),
	MEMREG_IOCTL(DEV_ALLOC, memreg_dev_alloc, memreg_ioc_dev_alloc,
		     MEMREG_FLAGS(memreg_dev_alloc),
		     MEMREG_OUT_ALL(MEMREG_OUT_OK),
		     .undo = memreg_undo_dev_alloc),
	MEMREG_IOCTL(DEV_FREE, memreg_dev_free, memreg_ioc_dev_free,
		     MEMREG_FLAGS_VALID(memreg_dev_free,
					MEMREG_DEV_FREE_KEEP_EXPORTS)),
	MEMREG_IOCTL(DEV_INFO, memreg_dev_info, memreg_ioc_dev_info,
		     MEMREG_NO_FLAGS, MEMREG_OUT_ALL(MEMREG_OUT_OK)),
	MEMREG_IOCTL(GRANT, memreg_grant, memreg_ioc_grant,
		     MEMREG_NO_FLAGS, MEMREG_OUT_ALL(MEMREG_OUT_OK),
		     .undo = memreg_undo_grant),
	MEMREG_IOCTL(REVOKE, memreg_revoke, memreg_ioc_revoke,
		     MEMREG_FLAGS(memreg_revoke)),
	MEMREG_IOCTL(IMPORT, memreg_import, memreg_ioc_import,
		     MEMREG_FLAGS(memreg_import), MEMREG_OUT_ALL(MEMREG_OUT_OK),
		     .undo = memreg_undo_import),
	MEMREG_IOCTL(UNIMPORT, memreg_unimport, memreg_ioc_unimport,
		     MEMREG_FLAGS(memreg_unimport)),
	/* done and bytes matter most when a descriptor failed */
	MEMREG_IOCTL(TRANSFER, memreg_transfer, memreg_ioc_transfer,
		     MEMREG_FLAGS(memreg_transfer),
		     MEMREG_OUT_ALL(MEMREG_OUT_ALWAYS)),
	/* done: how many operations of the batch were applied */
	MEMREG_IOCTL(MSTX, memreg_mstx, memreg_ioc_mstx,
		     MEMREG_FLAGS(memreg_mstx),
		     MEMREG_OUT(MEMREG_OUT_ALWAYS, memreg_mstx, done)),
	MEMREG_IOCTL_FD(DEV_EXPORT, memreg_dev_export, memreg_ioc_dev_export,
			MEMREG_OUT(MEMREG_OUT_OK, memreg_dev_export, fd)),
	MEMREG_IOCTL(IPC_EXPORT, memreg_ipc_export, memreg_ioc_ipc_export,
		     MEMREG_FLAGS_VALID(memreg_ipc_export, MEMREG_IPC_ANY_PID |
					MEMREG_IPC_SHORT_TOKEN),
		     MEMREG_OUT(MEMREG_OUT_OK, memreg_ipc_export, token),
		     .undo = memreg_undo_ipc_export),
	MEMREG_IOCTL(IPC_ALLOW, memreg_ipc_allow, memreg_ioc_ipc_allow,
		     MEMREG_NO_FLAGS),
	/* fd and len */
	MEMREG_IOCTL_FD(IPC_IMPORT, memreg_ipc_import, memreg_ioc_ipc_import,
			MEMREG_OUT_ALL(MEMREG_OUT_OK)),
	MEMREG_IOCTL(IPC_CLOSE, memreg_ipc_close, memreg_ioc_ipc_close,
		     MEMREG_FLAGS(memreg_ipc_close)),
	MEMREG_IOCTL(HEADROOM, memreg_headroom, memreg_ioc_headroom,
		     MEMREG_FLAGS(memreg_headroom),
		     MEMREG_OUT_ALL(MEMREG_OUT_OK)),
	MEMREG_IOCTL_FD(REG_EXPORT, memreg_reg_export, memreg_ioc_reg_export,
			MEMREG_OUT(MEMREG_OUT_OK, memreg_reg_export, fd)),
};

/* ---- copying ---- */

/*
 * An extensible struct in: its size word first.  Returns the caller's
 * size, or a negative errno.
 */
static long memreg_copy_in(void *kbuf, size_t ksize, size_t ver0,
			   void __user *uarg)
{
	u32 usize;
	int err;

	if (get_user(usize, (u32 __user *)uarg))
		return -EFAULT;
	if (usize < ver0)
		return -EINVAL;
	/* no struct will grow past a page; do not scan gigabytes of zeroes */
	if (usize > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(kbuf, ksize, uarg, usize);
	if (err)
		return err;
	return usize;
}

int memreg_copy_array_in(void *dst, size_t ksize, const void __user *base,
			 u32 usize, u32 first, u32 n)
{
	const char __user *src = (const char __user *)base +
				 (size_t)first * usize;
	u32 i;
	int err;

	if (usize == ksize)
		return copy_from_user(dst, src, (size_t)n * ksize) ?
			-EFAULT : 0;
	for (i = 0; i < n; i++) {
		err = copy_struct_from_user((char *)dst + (size_t)i * ksize,
					    ksize, src + (size_t)i * usize,
					    usize);
		if (err)
			return err;
	}
	return 0;
}

/* The out part of @d, no more of it than the caller's @usize holds. */
static int memreg_copy_out(const struct memreg_ioctl_desc *d,
			   void __user *uarg, const void *kbuf, u32 usize)
{
	u32 off = d->out_off;
	u32 len = d->out_len ? d->out_len : d->size - off;

	if (off >= usize)
		return 0;
	len = min(len, usize - off);
	return copy_to_user(uarg + off, kbuf + off, len) ? -EFAULT : 0;
}

long memreg_ioctl_dispatch(struct memreg_file *mf, unsigned int cmd,
			   void __user *uarg)
{
	const struct memreg_ioctl_desc *d;
	union memreg_ioctl_arg karg;
	unsigned int nr = _IOC_NR(cmd);
	struct dma_buf *dmabuf = NULL;
	u32 flags = 0;
	long usize;
	int err, cerr = 0, fd = -1;

	if (_IOC_TYPE(cmd) != MEMREG_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE) ||
	    nr >= ARRAY_SIZE(memreg_ioctls))
		return -ENOTTY;
	/* no speculative read of a row past the table (Spectre v1) */
	nr = array_index_nospec(nr, ARRAY_SIZE(memreg_ioctls));
	d = &memreg_ioctls[nr];
	if (!d->handler && !d->fd_handler)
		return -ENOTTY;

	usize = memreg_copy_in(&karg, d->size, d->size_ver0, uarg);
	if (usize < 0)
		return usize;
	if (d->flags_off >= 0) {
		flags = *(u32 *)((char *)&karg + d->flags_off);
		if (flags & ~d->flags_valid)
			return -EINVAL;
	}
	if (memchr_inv((char *)&karg + d->reserved_off, 0, d->reserved_len))
		return -EINVAL;

	if (d->fd_handler) {
		fd = get_unused_fd_flags(flags & MEMREG_EXPORT_CLOEXEC ?
					 O_CLOEXEC : 0);
		if (fd < 0)
			return fd;
		*(s32 *)((char *)&karg + d->fd_off) = fd;
		err = d->fd_handler(mf, &karg, &dmabuf);
	} else {
		err = d->handler(mf, &karg);
	}
	if (d->out == MEMREG_OUT_ALWAYS || (d->out == MEMREG_OUT_OK && !err))
		cerr = memreg_copy_out(d, uarg, &karg, usize);
	if (fd >= 0) {
		if (!err && !cerr) {
			/* the commit: the dma-buf's reference goes to the fd */
			fd_install(fd, dmabuf->file);
			return 0;
		}
		put_unused_fd(fd);
		if (dmabuf)
			dma_buf_put(dmabuf);
	}
	if (cerr && !err && d->undo)
		d->undo(mf, &karg);
	return err ? err : cerr;
}
