// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - emulated NPU device memory.
 *
 * The module drives memreg_ndevs emulated devices, each with
 * memreg_dev_capacity bytes of "device memory".  That memory is host pages
 * the driver owns: allocated when a process asks (MEMREG_IOC_DEV_ALLOC),
 * mapped into it through mmap() of /dev/memreg, never on an LRU list, so
 * never swapped or migrated, and given back to the device when nothing
 * refers to them any more.
 *
 * An allocation (struct memreg_dalloc) is referenced by
 *   - its handle, until DEV_FREE or the close of the file that made it,
 *   - every VMA that maps it (vm_ops open/close),
 *   - every DEVICE registration inside it (no pin: the pages cannot move),
 *   - every dma-buf made of it (memreg_dev_export.c).
 * While a registration refers to it, or another driver pins its pages,
 * DEV_FREE is refused (EBUSY), and once freed it can be neither mapped nor
 * registered nor exported again, and its dma-bufs are revoked.
 *
 * Its mappings are ordinary pages, not VM_IO, so that an RDMA NIC can take
 * them into a memory region (ibv_reg_mr pins them with FOLL_LONGTERM, as
 * GPUDirect's peer memory lets it pin GPU memory): ADXL reads and writes
 * device memory across hosts that way.  memreg's own HOST registrations
 * still refuse them (memreg_host.c: not anonymous, shmem or hugetlbfs).
 * A pin holds a page's reference, so a page freed under one goes back to
 * the system only when it is unpinned.
 *
 * Device pages are unswappable and in no process's RSS: had they taken the
 * last of the RAM, the OOM killer would kill a process that did nothing
 * wrong.  So an allocation fails with ENOMEM before the kernel's estimate
 * of available memory (MemAvailable) would drop below a reserve, checked
 * before and while the pages are taken (others allocate too), and every
 * page is charged to the caller's memory cgroup (__GFP_ACCOUNT), whose
 * limit then fails the allocation in the same way.
 *
 * HUGE chunks are one order-9 allocation each, split into order-0 pages so
 * that every page can be mapped and released on its own; they are taken
 * without direct reclaim or compaction, the way a device's huge-page pool
 * is either there or not.
 */
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/nospec.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include "memreg_internal.h"
#include "memreg_compat.h"

#define MEMREG_HUGE_ORDER	(21 - PAGE_SHIFT)
#define MEMREG_HUGE_PAGES	(1UL << MEMREG_HUGE_ORDER)

/* mmap offset of allocation id: id << MEMREG_DEV_MMAP_SHIFT bytes */
#define MEMREG_DEV_MMAP_SHIFT	40
#define MEMREG_DEV_PGOFF_SHIFT	(MEMREG_DEV_MMAP_SHIFT - PAGE_SHIFT)
#define MEMREG_DEV_PGOFF_MASK	((1UL << MEMREG_DEV_PGOFF_SHIFT) - 1)
/*
 * Allocation ids whose offset mmap() takes (pgoff below 2^51 on 64-bit;
 * a 32-bit pgoff leaves room for few), and the largest allocation that
 * fits below the next id's offset.
 */
#define MEMREG_DEV_MAX_ID	min_t(unsigned long, (1UL << 23) - 1, \
				      ULONG_MAX >> MEMREG_DEV_PGOFF_SHIFT)
#define MEMREG_DEV_MAX_LEN	(1ULL << MEMREG_DEV_MMAP_SHIFT)

struct memreg_devmem memreg_devs[MEMREG_MAX_DEVICES];

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

static unsigned long long dev_ram_reserve;
module_param(dev_ram_reserve, ullong, 0644);
MODULE_PARM_DESC(dev_ram_reserve,
		 "RAM in bytes that device allocations leave to the system (0: an eighth of RAM, at least 64 MiB)");

u64 memreg_dev_ram_reserve_bytes(void)
{
	u64 set = READ_ONCE(dev_ram_reserve);

	if (set)
		return set;
	return max_t(u64, ((u64)totalram_pages() << PAGE_SHIFT) / 8, SZ_64M);
}

/* MemAvailable, in bytes. */
u64 memreg_dev_ram_available(void)
{
	long avail = si_mem_available();

	return avail > 0 ? (u64)avail << PAGE_SHIFT : 0;
}

/* Would @npages more pages leave less than the reserve available? */
static bool memreg_dev_ram_short(unsigned long npages)
{
	return memreg_dev_ram_available() <
	       memreg_dev_ram_reserve_bytes() + ((u64)npages << PAGE_SHIFT);
}

static const struct vm_operations_struct memreg_dev_vm_ops;

struct memreg_devmem *memreg_dev_get(u32 id)
{
	if (id >= memreg_ndevs)
		return NULL;
	return &memreg_devs[array_index_nospec(id, MEMREG_MAX_DEVICES)];
}

void memreg_dev_init(void)
{
	u32 i;

	for (i = 0; i < MEMREG_MAX_DEVICES; i++) {
		memreg_devs[i].id = i;
		spin_lock_init(&memreg_devs[i].lock);
	}
}

/* Take @len bytes of @dev's capacity, or say it is full. */
static int memreg_dev_reserve(struct memreg_devmem *dev, u64 len, bool huge)
{
	u64 cap = memreg_dev_capacity_bytes();
	int err = 0;

	spin_lock(&dev->lock);
	if (len > cap || dev->used > cap - len) {
		err = -ENOSPC;
	} else {
		dev->used += len;
		if (huge)
			dev->huge_bytes += len;
		else
			dev->normal_bytes += len;
	}
	spin_unlock(&dev->lock);
	return err;
}

static void memreg_dev_unreserve(struct memreg_devmem *dev, u64 len, bool huge)
{
	spin_lock(&dev->lock);
	dev->used -= len;
	if (huge)
		dev->huge_bytes -= len;
	else
		dev->normal_bytes -= len;
	spin_unlock(&dev->lock);
}

static void memreg_dev_free_pages(struct page **pages, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		__free_page(pages[i]);
		if (!(i % 4096))
			cond_resched();
	}
}

/*
 * Fill @d->pages with 2 MiB-contiguous chunks.  No direct reclaim and no
 * compaction: if the contiguous memory is not there now, say so (ENOMEM)
 * and let HUGE_FIRST fall back rather than stall the caller.
 */
static int memreg_dev_fill_huge(struct memreg_dalloc *d)
{
	gfp_t gfp = (GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN |
		     __GFP_NORETRY | __GFP_ACCOUNT) & ~__GFP_DIRECT_RECLAIM;
	unsigned long i, j;
	struct page *page;

	for (i = 0; i < d->npages; i += MEMREG_HUGE_PAGES) {
		if (fatal_signal_pending(current))
			goto fail_intr;
		if (memreg_dev_ram_short(d->npages - i))
			goto fail;
		page = alloc_pages(gfp, MEMREG_HUGE_ORDER);
		if (!page)
			goto fail;
		split_page(page, MEMREG_HUGE_ORDER);
		for (j = 0; j < MEMREG_HUGE_PAGES; j++)
			d->pages[i + j] = page + j;
		cond_resched();
	}
	return 0;

fail_intr:
	memreg_dev_free_pages(d->pages, i);
	return -EINTR;
fail:
	memreg_dev_free_pages(d->pages, i);
	return -ENOMEM;
}

/* 4 KiB pages; fail instead of waking the OOM killer for device memory. */
static int memreg_dev_fill_normal(struct memreg_dalloc *d)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN |
		    __GFP_RETRY_MAYFAIL | __GFP_ACCOUNT;
	unsigned long i;

	for (i = 0; i < d->npages; i++) {
		if (!(i % 512)) {
			if (fatal_signal_pending(current)) {
				memreg_dev_free_pages(d->pages, i);
				return -EINTR;
			}
			if (memreg_dev_ram_short(d->npages - i)) {
				memreg_dev_free_pages(d->pages, i);
				return -ENOMEM;
			}
			cond_resched();
		}
		d->pages[i] = alloc_page(gfp);
		if (!d->pages[i]) {
			memreg_dev_free_pages(d->pages, i);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Reserve capacity for @d (d->huge says which kind) and get its pages.
 * The reservation comes first so that two processes racing for the last
 * bytes of a device cannot both allocate pages for them.
 */
static int memreg_dev_fill(struct memreg_dalloc *d, u64 want)
{
	u64 unit = d->huge ? MEMREG_DEV_HUGE_SIZE : PAGE_SIZE;
	int err;

	d->len = round_up(want, unit);
	d->npages = d->len >> PAGE_SHIFT;
	err = memreg_dev_reserve(d->dev, d->len, d->huge);
	if (err)
		return err;
	/*
	 * A device of 1 TiB or more (dev_capacity) allows an array above
	 * INT_MAX bytes, which kvmalloc() refuses with a WARNING unless told
	 * not to: it is ENOMEM, as for host registrations.
	 */
	d->pages = kvmalloc_array(d->npages, sizeof(*d->pages),
				  GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!d->pages) {
		err = -ENOMEM;
		goto unreserve;
	}
	err = d->huge ? memreg_dev_fill_huge(d) : memreg_dev_fill_normal(d);
	if (err)
		goto free_array;
	return 0;

free_array:
	kvfree(d->pages);
	d->pages = NULL;
unreserve:
	memreg_dev_unreserve(d->dev, d->len, d->huge);
	return err;
}

static void memreg_dalloc_release(struct kref *ref)
{
	struct memreg_dalloc *d = container_of(ref, struct memreg_dalloc, ref);
	struct memreg_ctx *ctx = d->ctx;

	spin_lock(&ctx->lock);
	list_del_init(&d->kept_node);
	spin_unlock(&ctx->lock);

	memreg_dev_free_pages(d->pages, d->npages);
	kvfree(d->pages);
	memreg_dev_unreserve(d->dev, d->len, d->huge);
	memreg_cg_uncharge(d->cg, MEMREG_ROOM_DEV_ALLOC, d->len);
	memreg_ctx_uncharge_dev_alloc(ctx, d->dev->id, d->len);
	memreg_ctx_put(ctx);
	kfree(d);
}

void memreg_dalloc_put(struct memreg_dalloc *d)
{
	kref_put(&d->ref, memreg_dalloc_release);
}

/* A live allocation of @mf by handle, referenced; NULL if there is none. */
struct memreg_dalloc *memreg_dalloc_get(struct memreg_file *mf, u64 handle)
{
	struct memreg_dalloc *d;

	mutex_lock(&mf->lock);
	d = xa_load(&mf->dallocs, memreg_handle_id(handle));
	if (d && d->handle == handle)
		kref_get(&d->ref);
	else
		d = NULL;
	mutex_unlock(&mf->lock);
	return d;
}

int memreg_dev_alloc(struct memreg_file *mf, struct memreg_dev_alloc *req)
{
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_dalloc *d;
	u32 id;
	int err;

	if (req->reserved0 || !req->len)
		return -EINVAL;
	if (req->policy > MEMREG_DEV_NORMAL_ONLY)
		return -EINVAL;
	if (!memreg_dev_get(req->device))
		return -ENXIO;
	/* beyond any capacity, and round_up() below must not overflow */
	if (req->len > memreg_dev_capacity_bytes() ||
	    req->len > MEMREG_DEV_MAX_LEN)
		return -ENOSPC;

	/* over the process's or the cgroups' limits before a page is taken */
	err = memreg_ctx_charge_dev_alloc(ctx, req->device, req->len, false);
	if (err)
		return err;
	err = memreg_cg_check(ctx, MEMREG_ROOM_DEV_ALLOC,
			      round_up(req->len, PAGE_SIZE));
	if (err)
		return err;

	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return -ENOMEM;
	kref_init(&d->ref);
	spin_lock_init(&d->lock);
	mutex_init(&d->exports_lock);
	INIT_LIST_HEAD(&d->exports);
	INIT_LIST_HEAD(&d->kept_node);
	d->dev = memreg_dev_get(req->device);
	d->ctx = ctx;

	switch (req->policy) {
	case MEMREG_DEV_HUGE_ONLY:
		d->huge = true;
		err = memreg_dev_fill(d, req->len);
		break;
	case MEMREG_DEV_HUGE_FIRST:
		d->huge = req->len > MEMREG_DEV_HUGE_MIN;
		err = memreg_dev_fill(d, req->len);
		/* no contiguous memory, or 2 MiB rounding does not fit */
		if ((err == -ENOMEM || err == -ENOSPC) && d->huge) {
			d->huge = false;
			err = memreg_dev_fill(d, req->len);
		}
		break;
	default:
		err = memreg_dev_fill(d, req->len);
		break;
	}
	if (err)
		goto free_d;
	/* the authoritative check, with the size as rounded */
	err = memreg_ctx_charge_dev_alloc(ctx, d->dev->id, d->len, true);
	if (err)
		goto free_pages;
	/* the caller's cgroup and its ancestors hold it from now on */
	err = memreg_cg_charge(ctx, MEMREG_ROOM_DEV_ALLOC, d->len, &d->cg);
	if (err) {
		memreg_ctx_uncharge_dev_alloc(ctx, d->dev->id, d->len);
		goto free_pages;
	}

	mutex_lock(&mf->lock);
	/* cyclic, reusing freed ids once the mmap-able ones ran out */
	err = xa_alloc_cyclic(&mf->dallocs, &id, d,
			      XA_LIMIT(1, MEMREG_DEV_MAX_ID),
			      &mf->next_dalloc, GFP_KERNEL);
	if (err < 0) {
		mutex_unlock(&mf->lock);
		memreg_cg_uncharge(d->cg, MEMREG_ROOM_DEV_ALLOC, d->len);
		memreg_ctx_uncharge_dev_alloc(ctx, d->dev->id, d->len);
		goto free_pages;
	}
	d->id = id;
	d->handle = memreg_handle_make(id, get_random_u32());
	refcount_inc(&ctx->ref);
	mutex_unlock(&mf->lock);

	req->handle = d->handle;
	req->mmap_offset = (u64)id << MEMREG_DEV_MMAP_SHIFT;
	req->alloc_len = d->len;
	req->huge = d->huge;
	return 0;

free_pages:
	memreg_dev_free_pages(d->pages, d->npages);
	kvfree(d->pages);
	memreg_dev_unreserve(d->dev, d->len, d->huge);
free_d:
	kfree(d);
	return err;
}

/*
 * Does another driver pin pages of @d (an RDMA memory region, an io_uring
 * fixed buffer)?  memreg itself never pins device pages, so any pin is
 * theirs.  A pin taken after this looks keeps its pages alive past the
 * free (pins hold a reference), so the answer only has to be right for the
 * caller that deregisters before it frees.
 */
static bool memreg_dalloc_pinned(const struct memreg_dalloc *d)
{
	unsigned long i;

	for (i = 0; i < d->npages; i++) {
		if (folio_maybe_dma_pinned(page_folio(d->pages[i])))
			return true;
		if (!((i + 1) % 4096))
			cond_resched();
	}
	return false;
}

/*
 * Freed with MEMREG_DEV_FREE_KEEP_EXPORTS: the dma-bufs stay valid after
 * the handle, for as long as the allocating process lives (CANN's
 * physical memory handles, whose importers keep what they imported).  Not
 * longer: its limit bounds what it holds only while it is there to be
 * refused.  The list holds no reference; the release takes it off.
 */
static void memreg_dev_keep(struct memreg_dalloc *d)
{
	spin_lock(&d->ctx->lock);
	list_add_tail(&d->kept_node, &d->ctx->kept);
	spin_unlock(&d->ctx->lock);
}

/* Drop the handle's reference; the caller holds mf->lock. */
static void memreg_dev_forget(struct memreg_file *mf, struct memreg_dalloc *d)
{
	xa_erase(&mf->dallocs, d->id);
	memreg_dalloc_put(d);
}

int memreg_dev_free(struct memreg_file *mf, u64 handle, u32 flags)
{
	struct memreg_dalloc *d;
	int err = 0;

	mutex_lock(&mf->lock);
	d = xa_load(&mf->dallocs, memreg_handle_id(handle));
	if (!d || d->handle != handle) {
		err = -ENOENT;
		goto out;
	}
	/*
	 * Pinned pages stay the device's until unpinned: freeing them would
	 * give capacity back that the NIC still uses.
	 */
	if (memreg_dalloc_pinned(d)) {
		err = -EBUSY;
		goto out;
	}
	spin_lock(&d->lock);
	if (d->nregs)
		err = -EBUSY;
	else
		d->freed = true;
	spin_unlock(&d->lock);
	if (!err) {
		if (flags & MEMREG_DEV_FREE_KEEP_EXPORTS)
			memreg_dev_keep(d);
		else
			memreg_dev_export_revoke(d);
		memreg_dev_forget(mf, d);
	}
out:
	mutex_unlock(&mf->lock);
	return err;
}

/*
 * @ctx's address space is gone (exit, exec): revoke the exports of the
 * allocations it kept alive.  What other processes hold of them stays
 * charged to the process's user (memreg_user.c), and usable by nobody.
 */
void memreg_dev_revoke_kept(struct memreg_ctx *ctx)
{
	struct memreg_dalloc *d;

	for (;;) {
		spin_lock(&ctx->lock);
		/* one being released takes itself off: skip it */
		list_for_each_entry(d, &ctx->kept, kept_node)
			if (kref_get_unless_zero(&d->ref))
				break;
		if (list_entry_is_head(d, &ctx->kept, kept_node)) {
			spin_unlock(&ctx->lock);
			return;
		}
		list_del_init(&d->kept_node);
		spin_unlock(&ctx->lock);
		memreg_dev_export_revoke(d);
		memreg_dalloc_put(d);
		cond_resched();
	}
}

/* The file is going away: its handles go; mappings may outlive them. */
void memreg_dev_release_file(struct memreg_file *mf)
{
	struct memreg_dalloc *d;
	unsigned long id;

	mutex_lock(&mf->lock);
	xa_for_each(&mf->dallocs, id, d) {
		spin_lock(&d->lock);
		d->freed = true;
		spin_unlock(&d->lock);
		memreg_dev_export_revoke(d);
		memreg_dev_forget(mf, d);
		cond_resched();
	}
	mutex_unlock(&mf->lock);
	xa_destroy(&mf->dallocs);
}

int memreg_dev_info(struct memreg_file *mf, struct memreg_dev_info *info)
{
	struct memreg_devmem *dev = memreg_dev_get(info->device);

	if (!dev)
		return -ENXIO;
	info->capacity = memreg_dev_capacity_bytes();
	spin_lock(&dev->lock);
	info->used = dev->used;
	info->huge_bytes = dev->huge_bytes;
	info->normal_bytes = dev->normal_bytes;
	spin_unlock(&dev->lock);
	info->proc_bytes = memreg_ctx_dev_alloc_bytes(mf->ctx, dev->id);
	return 0;
}

/* Offset of @vma's first page inside its allocation, in pages. */
static unsigned long memreg_vma_first(const struct vm_area_struct *vma)
{
	return vma->vm_pgoff & MEMREG_DEV_PGOFF_MASK;
}

static void memreg_dev_vm_open(struct vm_area_struct *vma)
{
	struct memreg_dalloc *d = vma->vm_private_data;

	/* a split or mremap()ed VMA: one more mapping of the allocation */
	kref_get(&d->ref);
}

static void memreg_dev_vm_close(struct vm_area_struct *vma)
{
	memreg_dalloc_put(vma->vm_private_data);
}

static vm_fault_t memreg_dev_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct memreg_dalloc *d = vma->vm_private_data;
	unsigned long idx = vmf->pgoff & MEMREG_DEV_PGOFF_MASK;
	struct page *page;

	if (idx >= d->npages)
		return VM_FAULT_SIGBUS;
	page = d->pages[idx];
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct memreg_dev_vm_ops = {
	.open	= memreg_dev_vm_open,
	.close	= memreg_dev_vm_close,
	.fault	= memreg_dev_vm_fault,
};

int memreg_dev_mmap(struct memreg_file *mf, struct vm_area_struct *vma)
{
	u32 id = vma->vm_pgoff >> MEMREG_DEV_PGOFF_SHIFT;
	unsigned long first = memreg_vma_first(vma);
	struct memreg_dalloc *d;
	int err = 0;

	/*
	 * Device memory is shared with the device, never copied on write:
	 * MAP_SHARED.  VM_MAYSHARE, not VM_SHARED: mmap() clears VM_SHARED
	 * for a file opened read-only, whose MAP_SHARED mapping can never be
	 * written (no VM_MAYWRITE) and is as good as any.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if ((u64)vma->vm_pgoff >> (64 - PAGE_SHIFT - 1))
		return -EINVAL;

	mutex_lock(&mf->lock);
	d = xa_load(&mf->dallocs, id);
	if (!d) {
		err = -ENXIO;
		goto out;
	}
	if (first >= d->npages || vma_pages(vma) > d->npages - first) {
		err = -EINVAL;
		goto out;
	}
	kref_get(&d->ref);
	vma->vm_private_data = d;
	vma->vm_ops = &memreg_dev_vm_ops;
	/*
	 * Pinnable (no VM_IO), so that an RDMA NIC can register it.  A
	 * fork()ed child does not inherit it (unless MADV_DOFORK says
	 * otherwise: then vm_ops->open references the allocation for the
	 * child), the mapping never grows, and core dumps leave it out.
	 */
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
out:
	mutex_unlock(&mf->lock);
	return err;
}

/*
 * The device memory backend: a DEVICE registration of [addr, addr + len)
 * lies inside one mapping of one live allocation.  It references the
 * allocation and is counted in it, so the allocation can be neither freed
 * nor released while registered; nothing is pinned (the pages are ours).
 */
struct memreg_dev_reg {
	struct memreg_reg reg;
	struct memreg_dalloc *dalloc;	/* referenced */
	u64 dev_offset;			/* of addr inside the allocation */
};

static struct memreg_dev_reg *to_dev_reg(const struct memreg_reg *reg)
{
	return container_of(reg, struct memreg_dev_reg, reg);
}

static int memreg_dev_attach(struct memreg_reg *reg,
			     const struct memreg_register *req, u64 first,
			     unsigned long npages)
{
	struct memreg_dev_reg *dreg = to_dev_reg(reg);
	struct mm_struct *mm = reg->ctx->mm;
	struct vm_area_struct *vma;
	struct memreg_dalloc *d = NULL;
	unsigned long dfirst = 0;
	int err = -ENXIO;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, reg->addr);
	if (!vma || reg->len > vma->vm_end - reg->addr)
		goto out;
	if (vma->vm_ops == &memreg_dev_vm_ops) {
		d = vma->vm_private_data;
		dfirst = memreg_vma_first(vma);
	} else {
		/*
		 * A mapping of an export of one of this process's own
		 * allocations (aclrtMapMem).  Another process's export
		 * stays a dma-buf to it (DMABUF registrations): its owner
		 * may free it whenever it likes, which a DEVICE
		 * registration would refuse (EBUSY).
		 */
		d = memreg_dev_export_vma(vma, &dfirst);
		if (d && d->ctx != reg->ctx)
			d = NULL;
	}
	if (!d)
		goto out;
	/* peers may write through it: the mapping must be writable */
	if (!(vma->vm_flags & VM_WRITE)) {
		err = -EACCES;
		goto out;
	}
	spin_lock(&d->lock);
	if (!d->freed) {
		d->nregs++;
		kref_get(&d->ref);
		err = 0;
	}
	spin_unlock(&d->lock);
	if (err)
		goto out;
	dreg->dalloc = d;
	reg->device = d->dev->id;
	dreg->dev_offset = ((u64)dfirst << PAGE_SHIFT) +
			   (reg->addr - vma->vm_start);
out:
	mmap_read_unlock(mm);
	return err;
}

/* The registration is gone from every lookup: DEV_FREE may proceed. */
static void memreg_dev_unlink(struct memreg_reg *reg)
{
	struct memreg_dalloc *d = to_dev_reg(reg)->dalloc;

	spin_lock(&d->lock);
	d->nregs--;
	spin_unlock(&d->lock);
}

/* The last copy using the registration is done: drop its reference. */
static void memreg_dev_release(struct memreg_reg *reg)
{
	memreg_dalloc_put(to_dev_reg(reg)->dalloc);
}

static struct page *memreg_dev_page_at(const struct memreg_reg *reg,
				       u64 addr, unsigned int *off)
{
	const struct memreg_dev_reg *dreg = to_dev_reg(reg);
	u64 o = dreg->dev_offset + (addr - reg->addr);

	*off = offset_in_page(o);
	return dreg->dalloc->pages[o >> PAGE_SHIFT];
}

static int memreg_dev_fill_nl(struct sk_buff *skb, const struct memreg_reg *reg)
{
	return nla_put_u32(skb, MEMREG_A_DEVICE, reg->device);
}

const struct memreg_mem_ops memreg_dev_mem_ops = {
	.name			= "device",
	.reg_size		= sizeof(struct memreg_dev_reg),
	.limit_type		= MEMREG_MEM_DEVICE,
	.over_limit		= MEMREG_REFUSED_DEV_BYTES,
	.over_limit_errno	= -ENOSPC,
	.attach			= memreg_dev_attach,
	.unlink			= memreg_dev_unlink,
	.release		= memreg_dev_release,
	.page_at		= memreg_dev_page_at,
	.fill_nl		= memreg_dev_fill_nl,
	.nl_bytes		= MEMREG_A_DEV_BYTES,
	.nl_peak_bytes		= MEMREG_A_PEAK_DEV_BYTES,
	.nl_max_bytes		= MEMREG_A_MAX_DEV_BYTES,
};
