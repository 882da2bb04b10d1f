// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - registered host and device memory for accelerator runtimes.
 *
 * Module entry: init and exit, the /dev/memreg misc device: open,
 * release, mmap, and the ioctls, which are one table in memreg_ioctl.c.
 * Parameters live with what they set: the default limits in memreg_ctx.c,
 * the emulated devices' in memreg_dev.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "memreg_internal.h"
#include "memreg_compat.h"

u8 memreg_instance_id[16];

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

	return memreg_ioctl_dispatch(mf, cmd, uarg);
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
	INIT_LIST_HEAD(&mf->ipc_names);
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
	memreg_ipc_release_file(mf);
	memreg_import_release_file(mf);
	memreg_reg_release_file(mf);
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

/*
 * The device dma-buf attachments are made for (memreg_dmabuf.c): the
 * exporter maps its buffer for it, so it needs a DMA mask.  The module's
 * copies use the CPU, never this mapping.
 */
struct device *memreg_dma_device(void)
{
	return memreg_misc.this_device;
}

static int __init memreg_init(void)
{
	int err;

	get_random_bytes(memreg_instance_id, sizeof(memreg_instance_id));
	if (memreg_ndevs > MEMREG_MAX_DEVICES) {
		pr_err("devices=%u: at most %u\n", memreg_ndevs,
		       MEMREG_MAX_DEVICES);
		return -EINVAL;
	}
	memreg_dev_init();

	err = memreg_heap_cache_init();
	if (err)
		return err;
	err = memreg_nl_init();
	if (err)
		goto heap_cache;
	err = misc_register(&memreg_misc);
	if (err)
		goto nl;
	err = dma_coerce_mask_and_coherent(memreg_misc.this_device,
					   DMA_BIT_MASK(64));
	if (err)
		goto misc;
	err = memreg_oom_init();
	if (err)
		goto misc;
	return 0;

misc:
	misc_deregister(&memreg_misc);
nl:
	memreg_nl_exit();
heap_cache:
	memreg_heap_cache_exit();
	return err;
}

static void __exit memreg_exit(void)
{
	memreg_oom_exit();
	misc_deregister(&memreg_misc);
	memreg_nl_exit();
	/*
	 * Contexts wait for SRCU (their MMU notifiers), then RCU; regions
	 * and contexts still in those queues must not outlive us.
	 */
	mmu_notifier_synchronize();
	rcu_barrier();
	memreg_reg_exit();
	memreg_user_exit();
	memreg_cg_exit();
	memreg_heap_cache_exit();
}

module_init(memreg_init);
module_exit(memreg_exit);

MODULE_DESCRIPTION("memreg: registered host and device memory");
MODULE_AUTHOR("memreg developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(MEMREG_VERSION);
MEMREG_IMPORT_NS_DMA_BUF;
