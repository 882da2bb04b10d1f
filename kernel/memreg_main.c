// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - registered host and device memory for accelerator runtimes.
 *
 * Module entry: parameters (the global default limits), the /dev/memreg
 * misc device and its ioctls.  The ioctl structs are extensible (see the
 * UAPI header): each carries its own size, handled in memreg_copy_in().
 */
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "memreg.h"

static unsigned long long max_regions = 256;
module_param(max_regions, ullong, 0644);
MODULE_PARM_DESC(max_regions, "Default registrations per process (256)");

static unsigned long long max_host_bytes = 20ULL << 30;
module_param(max_host_bytes, ullong, 0644);
MODULE_PARM_DESC(max_host_bytes,
		 "Default registered host bytes per process (20 GiB)");

static unsigned long long max_dev_bytes = 50ULL << 30;
module_param(max_dev_bytes, ullong, 0644);
MODULE_PARM_DESC(max_dev_bytes,
		 "Default registered device bytes per process (50 GiB)");

unsigned int memreg_ndevs = 2;
module_param_named(devices, memreg_ndevs, uint, 0444);
MODULE_PARM_DESC(devices, "Emulated NPU devices (2, at most 16)");

static unsigned long long dev_capacity = 1ULL << 30;
module_param(dev_capacity, ullong, 0644);
MODULE_PARM_DESC(dev_capacity,
		 "Memory of each emulated device in bytes (1 GiB); a change applies to new allocations");

u64 memreg_dev_capacity_bytes(void)
{
	return READ_ONCE(dev_capacity);
}

u8 memreg_instance_id[16];
struct memreg_stats memreg_stats;

void memreg_default_limits(struct memreg_limits *lim)
{
	lim->max_regions = READ_ONCE(max_regions);
	lim->max_host_bytes = READ_ONCE(max_host_bytes);
	lim->max_dev_bytes = READ_ONCE(max_dev_bytes);
}

void memreg_set_default_limits(const struct memreg_limits *lim,
			       unsigned int which)
{
	if (which & MEMREG_OVR_REGIONS)
		WRITE_ONCE(max_regions, lim->max_regions);
	if (which & MEMREG_OVR_HOST)
		WRITE_ONCE(max_host_bytes, lim->max_host_bytes);
	if (which & MEMREG_OVR_DEV)
		WRITE_ONCE(max_dev_bytes, lim->max_dev_bytes);
}

/*
 * Copy an extensible struct in: sizes below the first version are EINVAL,
 * bigger ones must be zero beyond what we know (copy_struct_from_user()
 * says E2BIG otherwise).  Returns the caller's size, or a negative errno.
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

static int memreg_copy_out(void __user *uarg, const void *kbuf, size_t ksize,
			   size_t usize)
{
	return copy_to_user(uarg, kbuf, min(ksize, usize)) ? -EFAULT : 0;
}

static u64 memreg_memlock_limit(void)
{
	unsigned long lim = rlimit(RLIMIT_MEMLOCK);

	if (capable(CAP_IPC_LOCK) || lim == RLIM_INFINITY)
		return MEMREG_UNLIMITED;
	return lim;
}

static long memreg_ioctl_info(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_limits lim;
	struct memreg_info info;
	long usize;

	usize = memreg_copy_in(&info, sizeof(info), MEMREG_INFO_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(info.reserved, 0, sizeof(info.reserved)))
		return -EINVAL;

	memreg_ctx_limits(ctx, &lim);
	info.abi_version = MEMREG_ABI_VERSION;
	info.features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_QUERY |
			MEMREG_FEATURE_NETLINK | MEMREG_FEATURE_TRANSFER |
			MEMREG_FEATURE_MSTX;
	if (memreg_ndevs)
		info.features |= MEMREG_FEATURE_DEVICE;
	info.page_size = PAGE_SIZE;
	info.devices = memreg_ndevs;
	info.dev_capacity = memreg_dev_capacity_bytes();
	memcpy(info.instance_id, memreg_instance_id, sizeof(info.instance_id));
	info.max_regions = lim.max_regions;
	info.max_host_bytes = lim.max_host_bytes;
	info.max_dev_bytes = lim.max_dev_bytes;
	info.memlock_limit = memreg_memlock_limit();
	spin_lock(&ctx->lock);
	info.regions = ctx->use.regions;
	info.host_bytes = ctx->use.host_bytes;
	info.dev_bytes = ctx->use.dev_bytes;
	spin_unlock(&ctx->lock);
	return memreg_copy_out(uarg, &info, sizeof(info), usize);
}

static long memreg_ioctl_register(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_register req;
	long usize;
	int err;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_REGISTER_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;

	err = memreg_region_register(mf, &req);
	if (err)
		return err;
	if (put_user(req.handle, (u64 __user *)(uarg +
			offsetof(struct memreg_register, handle)))) {
		/* The caller cannot learn the handle: do not leave it behind. */
		memreg_region_unregister(mf, req.handle);
		return -EFAULT;
	}
	return 0;
}

static long memreg_ioctl_unregister(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_unregister req;
	long usize;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_UNREGISTER_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (req.flags || memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	return memreg_region_unregister(mf, req.handle);
}

static long memreg_ioctl_query(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_query q;
	long usize;
	int err;

	usize = memreg_copy_in(&q, sizeof(q), MEMREG_QUERY_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(q.reserved, 0, sizeof(q.reserved)))
		return -EINVAL;
	err = memreg_region_query(mf->ctx, &q);
	if (err)
		return err;
	return memreg_copy_out(uarg, &q, sizeof(q), usize);
}

static long memreg_ioctl_dev_alloc(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_dev_alloc req;
	long usize;
	int err;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_DEV_ALLOC_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	err = memreg_dev_alloc(mf, &req);
	if (err)
		return err;
	err = memreg_copy_out(uarg, &req, sizeof(req), usize);
	if (err)	/* the caller cannot learn the handle: free it */
		memreg_dev_free(mf, req.handle);
	return err;
}

static long memreg_ioctl_dev_free(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_dev_free req;
	long usize;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_DEV_FREE_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (req.flags || memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	return memreg_dev_free(mf, req.handle);
}

static long memreg_ioctl_dev_info(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_dev_info info;
	long usize;
	int err;

	usize = memreg_copy_in(&info, sizeof(info), MEMREG_DEV_INFO_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(info.reserved, 0, sizeof(info.reserved)))
		return -EINVAL;
	err = memreg_dev_info(mf, &info);
	if (err)
		return err;
	return memreg_copy_out(uarg, &info, sizeof(info), usize);
}

static long memreg_ioctl_grant(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_grant req;
	long usize;
	int err;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_GRANT_SIZE_VER0, uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	err = memreg_share_create(mf, &req);
	if (err)
		return err;
	err = memreg_copy_out(uarg, &req, sizeof(req), usize);
	if (err)	/* the caller cannot learn the token: revoke it */
		memreg_share_revoke(mf, req.token);
	return err;
}

static long memreg_ioctl_revoke(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_revoke req;
	long usize;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_REVOKE_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (req.flags || memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	return memreg_share_revoke(mf, req.token);
}

static long memreg_ioctl_import(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_import req;
	long usize;
	int err;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_IMPORT_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	err = memreg_remote_create(mf, &req);
	if (err)
		return err;
	err = memreg_copy_out(uarg, &req, sizeof(req), usize);
	if (err)
		memreg_remote_remove(mf, req.handle);
	return err;
}

static long memreg_ioctl_unimport(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_unimport req;
	long usize;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_UNIMPORT_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (req.flags || memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	return memreg_remote_remove(mf, req.handle);
}

static long memreg_ioctl_transfer(struct memreg_file *mf, void __user *uarg)
{
	struct memreg_transfer req;
	long usize;
	int err, cerr;

	usize = memreg_copy_in(&req, sizeof(req), MEMREG_TRANSFER_SIZE_VER0,
			       uarg);
	if (usize < 0)
		return usize;
	if (memchr_inv(req.reserved, 0, sizeof(req.reserved)))
		return -EINVAL;
	err = memreg_xfer(mf, &req);
	/* done and bytes matter most when a descriptor failed */
	cerr = memreg_copy_out(uarg, &req, sizeof(req), usize);
	return err ? err : cerr;
}

static long memreg_ioctl(struct file *filp, unsigned int cmd,
			 unsigned long arg)
{
	struct memreg_file *mf = filp->private_data;
	void __user *uarg = (void __user *)arg;

	/*
	 * Registrations pin pages of the opener's address space and are
	 * charged to it; a child that inherited the file, or a process the
	 * fd was passed to, must open its own.
	 */
	if (current->mm != mf->ctx->mm)
		return -EPERM;

	/*
	 * Dispatch on the number alone: the size encoded in the command is
	 * that of the caller's struct, which may be newer or older than ours;
	 * the struct's own size field says which (memreg_copy_in()).
	 */
	if (_IOC_TYPE(cmd) != MEMREG_IOC_MAGIC ||
	    _IOC_DIR(cmd) != (_IOC_READ | _IOC_WRITE))
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(MEMREG_IOC_INFO):
		return memreg_ioctl_info(mf, uarg);
	case _IOC_NR(MEMREG_IOC_REGISTER):
		return memreg_ioctl_register(mf, uarg);
	case _IOC_NR(MEMREG_IOC_UNREGISTER):
		return memreg_ioctl_unregister(mf, uarg);
	case _IOC_NR(MEMREG_IOC_QUERY):
		return memreg_ioctl_query(mf, uarg);
	case _IOC_NR(MEMREG_IOC_DEV_ALLOC):
		return memreg_ioctl_dev_alloc(mf, uarg);
	case _IOC_NR(MEMREG_IOC_DEV_FREE):
		return memreg_ioctl_dev_free(mf, uarg);
	case _IOC_NR(MEMREG_IOC_DEV_INFO):
		return memreg_ioctl_dev_info(mf, uarg);
	case _IOC_NR(MEMREG_IOC_GRANT):
		return memreg_ioctl_grant(mf, uarg);
	case _IOC_NR(MEMREG_IOC_REVOKE):
		return memreg_ioctl_revoke(mf, uarg);
	case _IOC_NR(MEMREG_IOC_IMPORT):
		return memreg_ioctl_import(mf, uarg);
	case _IOC_NR(MEMREG_IOC_UNIMPORT):
		return memreg_ioctl_unimport(mf, uarg);
	case _IOC_NR(MEMREG_IOC_TRANSFER):
		return memreg_ioctl_transfer(mf, uarg);
	case _IOC_NR(MEMREG_IOC_MSTX):
		return memreg_heap_ioctl(mf, uarg);
	default:
		return -ENOTTY;
	}
}

static int memreg_open(struct inode *inode, struct file *filp)
{
	struct memreg_file *mf;
	struct memreg_ctx *ctx;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL_ACCOUNT);
	if (!mf)
		return -ENOMEM;
	ctx = memreg_ctx_get_current();
	if (IS_ERR(ctx)) {
		kfree(mf);
		return PTR_ERR(ctx);
	}
	mf->ctx = ctx;
	mutex_init(&mf->lock);
	INIT_LIST_HEAD(&mf->regions);
	xa_init_flags(&mf->dallocs, XA_FLAGS_ALLOC1);
	xa_init_flags(&mf->imports, XA_FLAGS_ALLOC1);
	memreg_ctx_add_file(ctx, mf);
	filp->private_data = mf;
	return nonseekable_open(inode, filp);
}

/*
 * Drop everything @mf holds: on close, and when its process's mm goes
 * (memreg_ctx.c), whichever comes first; the second call finds nothing.
 */
void memreg_file_drop_all(struct memreg_file *mf)
{
	memreg_heap_release_file(mf);
	memreg_remote_release_file(mf);
	memreg_region_release_file(mf);
	memreg_dev_release_file(mf);
}

static int memreg_release(struct inode *inode, struct file *filp)
{
	struct memreg_file *mf = filp->private_data;

	memreg_ctx_del_file(mf->ctx, mf);
	memreg_file_drop_all(mf);
	memreg_ctx_put(mf->ctx);
	mutex_destroy(&mf->lock);
	kfree(mf);
	return 0;
}

/* Maps emulated device memory: the offset comes from MEMREG_IOC_DEV_ALLOC. */
static int memreg_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct memreg_file *mf = filp->private_data;

	if (current->mm != mf->ctx->mm)
		return -EPERM;
	return memreg_dev_mmap(mf, vma);
}

static const struct file_operations memreg_fops = {
	.owner		= THIS_MODULE,
	.open		= memreg_open,
	.release	= memreg_release,
	.mmap		= memreg_mmap,
	.unlocked_ioctl	= memreg_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice memreg_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= MEMREG_DEVICE_NAME,
	.fops	= &memreg_fops,
	.mode	= 0666,
};

static int __init memreg_init(void)
{
	int err;

	get_random_bytes(memreg_instance_id, sizeof(memreg_instance_id));
	if (memreg_ndevs > MEMREG_MAX_DEVICES) {
		pr_err("memreg: devices=%u: at most %u\n", memreg_ndevs,
		       MEMREG_MAX_DEVICES);
		return -EINVAL;
	}
	memreg_dev_init();

	err = memreg_nl_init();
	if (err)
		return err;
	err = misc_register(&memreg_misc);
	if (err) {
		memreg_nl_exit();
		return err;
	}
	return 0;
}

static void __exit memreg_exit(void)
{
	misc_deregister(&memreg_misc);
	memreg_nl_exit();
	/*
	 * Contexts wait for SRCU (their MMU notifiers), then RCU; regions
	 * and contexts still in those queues must not outlive us.
	 */
	mmu_notifier_synchronize();
	rcu_barrier();
}

module_init(memreg_init);
module_exit(memreg_exit);

MODULE_DESCRIPTION("memreg: registered host and device memory");
MODULE_AUTHOR("memreg developers");
MODULE_LICENSE("GPL");
