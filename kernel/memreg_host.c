// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the host memory backend: pinning a process's memory and
 * charging it to RLIMIT_MEMLOCK.
 *
 * The charge goes to mm->pinned_vm (what /proc/PID/status shows as VmPin)
 * of the mm captured when the process opened /dev/memreg, before any page
 * is pinned, and is given back to that same mm, never to current->mm.
 * Pages are pinned with FOLL_LONGTERM in batches of one page of pointers,
 * and every failure unwinds completely.
 */
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/hugetlb.h>
#include <linux/shmem_fs.h>
#include "memreg_internal.h"

/*
 * Small registrations keep their page pointers in the registration itself:
 * one allocation less on the register path, for 64 bytes a registration.
 */
#define MEMREG_HOST_INLINE_PAGES	8

/* A registration of host memory: the pages it pinned. */
struct memreg_host_reg {
	struct memreg_reg reg;
	struct page **pages;		/* inline_pages, or allocated */
	unsigned long npages;		/* PAGE_SIZE pages pinned and charged */
	struct page *inline_pages[MEMREG_HOST_INLINE_PAGES];
};

static struct memreg_host_reg *to_host_reg(const struct memreg_reg *reg)
{
	return container_of(reg, struct memreg_host_reg, reg);
}

/*
 * Charge first and back out: no lock needed around the check.  Whether
 * the caller may pass the limit (CAP_IPC_LOCK, a security hook) is asked
 * only when it would be passed, not on every registration.
 */
static int memreg_charge_pinned(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned;

	pinned = atomic64_add_return(npages, &mm->pinned_vm);
	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

static void memreg_unpin_pages(struct page **pages, unsigned long npages)
{
	unsigned long done, n;

	for (done = 0; done < npages; done += n) {
		n = min_t(unsigned long, npages - done, MEMREG_PIN_BATCH);
		unpin_user_pages_dirty_lock(pages + done, n, true);
		cond_resched();
	}
}

/*
 * GUP says -EFAULT both for a hole and for a read-only mapping; tell the
 * caller which, since "make the buffer writable" is a different fix.
 */
static int memreg_explain_fault(struct mm_struct *mm, unsigned long addr)
{
	struct vm_area_struct *vma;
	int err = -EFAULT;

	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = vma_lookup(mm, addr);
	if (vma && !(vma->vm_flags & VM_WRITE))
		err = -EACCES;
	mmap_read_unlock(mm);
	return err;
}

/*
 * Pages of a regular file's shared mapping may not be pinned for long:
 * module copies into them (TRANSFER) would bypass the filesystem's
 * page_mkwrite and dirty tracking.  Kernels from 6.5 refuse such
 * FOLL_LONGTERM pins themselves; older ones pin them, so the pinned folios
 * are looked at (as GUP-fast does from 6.5 on) rather than the VMAs: no
 * mmap lock and no VMA lookups on the register path.  Anonymous memory
 * (a private file mapping written is anonymous after the COW),
 * shmem/memfd and hugetlbfs are fine.
 */
static bool memreg_folio_longterm_ok(struct folio *folio)
{
	struct address_space *mapping;

	if (folio_test_anon(folio) || folio_test_hugetlb(folio))
		return true;
	mapping = READ_ONCE(folio->mapping);
	return mapping && shmem_mapping(mapping);
}

/*
 * The distinct folios of the pinned pages (a huge page counts once), or
 * -EFAULT if one of them may not be pinned for long.
 */
static long memreg_count_folios(struct page **pages, unsigned long npages)
{
	unsigned long i, n = 0;
	struct folio *prev = NULL, *folio;

	for (i = 0; i < npages; i++) {
		folio = page_folio(pages[i]);
		if (folio == prev)
			continue;
		if (!memreg_folio_longterm_ok(folio))
			return -EFAULT;
		n++;
		prev = folio;
	}
	return n;
}

/*
 * Pin [reg->addr, reg->addr + reg->len) of the calling process, charged to
 * the mm its context captured: the @npages pages from @start, as
 * memreg_check_range() found them.  CAP_IPC_LOCK may pass RLIMIT_MEMLOCK.
 */
static int memreg_host_attach(struct memreg_reg *reg,
			      const struct memreg_register *req, u64 start,
			      unsigned long npages)
{
	struct memreg_host_reg *hreg = to_host_reg(reg);
	struct mm_struct *mm = reg->ctx->mm;
	unsigned long pinned = 0;
	struct page **pages;
	long folios;
	int ret;

	if (!access_ok((void __user *)(unsigned long)reg->addr, reg->len))
		return -EFAULT;

	/*
	 * RLIMIT_MEMLOCK before the page array: the array of a range the
	 * limit refuses (up to 8 bytes per 4 KiB page asked for) must not be
	 * allocated on behalf of a user who may not pin it.
	 */
	ret = memreg_charge_pinned(mm, npages);
	if (ret) {
		memreg_ctx_refused(reg->ctx, reg->type, reg->len,
				   MEMREG_REFUSED_MEMLOCK);
		return ret;
	}
	/*
	 * With the byte limit raised (limits set host unlimited) and no
	 * memlock limit (CAP_IPC_LOCK, or RLIMIT_MEMLOCK infinity), the array
	 * of a range of 1 TiB or more is above INT_MAX bytes: kvmalloc()
	 * refuses it, and without __GFP_NOWARN it WARNs.  It is just ENOMEM.
	 */
	if (npages <= MEMREG_HOST_INLINE_PAGES)
		pages = hreg->inline_pages;
	else
		pages = kvmalloc_array(npages, sizeof(*pages),
				       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages) {
		ret = -ENOMEM;
		goto uncharge;
	}

	while (pinned < npages) {
		unsigned long addr = start + pinned * PAGE_SIZE;
		int n = min_t(unsigned long, npages - pinned, MEMREG_PIN_BATCH);

		ret = pin_user_pages_fast(addr, n, FOLL_WRITE | FOLL_LONGTERM,
					  pages + pinned);
		if (ret <= 0) {
			ret = ret ? ret : -EFAULT;
			if (ret == -EFAULT)
				ret = memreg_explain_fault(mm, addr);
			goto unpin;
		}
		pinned += ret;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto unpin;
		}
		cond_resched();
	}

	folios = memreg_count_folios(pages, npages);
	if (folios < 0) {
		ret = folios;
		goto unpin;
	}
	hreg->pages = pages;
	hreg->npages = npages;
	reg->pinned_pages = folios;
	atomic64_add(npages, &memreg_stats.pinned_pages);
	return 0;

unpin:
	memreg_unpin_pages(pages, pinned);
	if (pages != hreg->inline_pages)
		kvfree(pages);
uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
	return ret;
}

/* Unpin and uncharge, from the mm the pin was charged to. */
static void memreg_host_release(struct memreg_reg *reg)
{
	struct memreg_host_reg *hreg = to_host_reg(reg);
	struct mm_struct *mm = reg->ctx->mm;

	memreg_unpin_pages(hreg->pages, hreg->npages);
	atomic64_sub(hreg->npages, &mm->pinned_vm);
	atomic64_sub(hreg->npages, &memreg_stats.pinned_pages);
	if (hreg->pages != hreg->inline_pages)
		kvfree(hreg->pages);
	hreg->pages = NULL;
	hreg->npages = 0;
}

static struct page *memreg_host_page_at(const struct memreg_reg *reg,
					u64 addr, unsigned int *off)
{
	u64 o = addr - (reg->addr & PAGE_MASK);

	*off = offset_in_page(o);
	return to_host_reg(reg)->pages[o >> PAGE_SHIFT];
}

const struct memreg_mem_ops memreg_host_mem_ops = {
	.name			= "host",
	.reg_size		= sizeof(struct memreg_host_reg),
	.limit_type		= MEMREG_MEM_HOST,
	.over_limit		= MEMREG_REFUSED_HOST_BYTES,
	.over_limit_errno	= -EDQUOT,
	.attach			= memreg_host_attach,
	.release		= memreg_host_release,
	.page_at		= memreg_host_page_at,
	.nl_bytes		= MEMREG_A_HOST_BYTES,
	.nl_peak_bytes		= MEMREG_A_PEAK_HOST_BYTES,
	.nl_max_bytes		= MEMREG_A_MAX_HOST_BYTES,
};
