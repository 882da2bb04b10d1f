// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the host memory backend: pinning a process's memory and
 * charging it to RLIMIT_MEMLOCK.
 *
 * The charge goes to mm->pinned_vm (what /proc/PID/status shows as VmPin)
 * of the mm captured when the process opened /dev/memreg, before any page
 * is pinned, and is given back to that same mm, never to current->mm.
 * Pages are pinned with FOLL_LONGTERM in batches of one page of pointers,
 * and every failure unwinds completely.  A registration inside one that
 * pinned its pages is a child (memreg_share.c): it pins and charges
 * nothing, and copies go through its parent's pages.
 */
#include <linux/capability.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/hugetlb.h>
#include <linux/shmem_fs.h>
#include "memreg_internal.h"
#include "memreg_host.h"

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
		if (!((i + 1) % (MEMREG_PIN_BATCH * MEMREG_PIN_BATCH)))
			cond_resched();
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

/* Pin up to @n pages from @addr into @pages: how many, or an errno. */
static long memreg_pin_some(struct mm_struct *mm, unsigned long addr,
			    unsigned long n, struct page **pages)
{
	long ret;

	ret = pin_user_pages_fast(addr, min_t(unsigned long, n, MEMREG_PIN_BATCH),
				  FOLL_WRITE | FOLL_LONGTERM, pages);
	if (ret <= 0) {
		ret = ret ? ret : -EFAULT;
		if (ret == -EFAULT)
			ret = memreg_explain_fault(mm, addr);
		return ret;
	}
	if (fatal_signal_pending(current)) {
		memreg_unpin_pages(pages, ret);
		return -EINTR;
	}
	cond_resched();
	return ret;
}

/*
 * Pin pages [@done, hreg->npages) of the registration from @start into the
 * page array hreg->pages, checking that each folio may be pinned for long.
 * On failure nothing of what this call pinned stays pinned.
 */
static int memreg_pin_paged(struct memreg_host_reg *hreg, u64 start,
			    unsigned long done)
{
	struct mm_struct *mm = hreg->reg.ctx->mm;
	unsigned long pinned = done;
	long ret;

	while (pinned < hreg->npages) {
		ret = memreg_pin_some(mm, start + pinned * PAGE_SIZE,
				      hreg->npages - pinned,
				      hreg->pages + pinned);
		if (ret < 0)
			goto unpin;
		pinned += ret;
	}
	return 0;

unpin:
	memreg_unpin_pages(hreg->pages + done, pinned - done);
	return ret;
}

/* The pages of @nruns runs, up to page @npages: unpinned, marked dirty. */
static void memreg_unpin_runs(const struct memreg_host_run *runs,
			      unsigned long nruns, unsigned long npages)
{
	unsigned long i, end;

	for (i = 0; i < nruns; i++) {
		end = i + 1 < nruns ? runs[i + 1].first : npages;
		unpin_user_page_range_dirty_lock(runs[i].page,
						 end - runs[i].first, true);
		if (!(i % MEMREG_PIN_BATCH))
			cond_resched();
	}
}

/*
 * Runs of one pin each (hugetlbfs): that pin, the folio marked dirty if
 * @dirty (a registration's memory may have been written by its copies; a
 * registration given up while it was being made was not).
 */
static void memreg_unpin_runs_once(const struct memreg_host_run *runs,
				   unsigned long nruns, bool dirty)
{
	unsigned long i;

	for (i = 0; i < nruns; i++) {
		struct page *page = runs[i].page;

		unpin_user_pages_dirty_lock(&page, 1, dirty);
		if (!(i % MEMREG_PIN_BATCH))
			cond_resched();
	}
}

/*
 * The runs did not pay (memory of small folios): the same pages as an
 * array, with @rest pinned pages of @buf from page @done on, and the rest
 * of the range pinned into it.  The folios, or an errno with every page
 * unpinned and no array left.
 */
static long memreg_runs_to_paged(struct memreg_host_reg *hreg, u64 start,
				 struct page **buf, unsigned long rest,
				 unsigned long done)
{
	const struct memreg_host_run *runs = hreg->runs;
	unsigned long i, j, end, pinned = done + rest;
	struct page **pages;
	long ret;

	pages = kvmalloc_array(hreg->npages, sizeof(*pages),
			       GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages) {
		memreg_unpin_runs(runs, hreg->nruns, done);
		memreg_unpin_pages(buf, rest);
		return -ENOMEM;
	}
	for (i = 0; i < hreg->nruns; i++) {
		end = i + 1 < hreg->nruns ? runs[i + 1].first : done;
		for (j = runs[i].first; j < end; j++)
			pages[j] = nth_page(runs[i].page, j - runs[i].first);
		cond_resched();
	}
	memcpy(pages + done, buf, rest * sizeof(*pages));
	kvfree(hreg->runs);
	hreg->runs = NULL;
	hreg->nruns = 0;
	hreg->pages = pages;

	ret = memreg_pin_paged(hreg, start, pinned);
	if (!ret) {
		pinned = hreg->npages;
		ret = memreg_count_folios(pages, pinned);
		if (ret >= 0)
			return ret;
	}
	memreg_unpin_pages(pages, pinned);
	kvfree(pages);
	hreg->pages = NULL;
	return ret;
}

/*
 * Pin a range of hugetlbfs memory as one run, one pin, per huge page: the
 * folios, or -EAGAIN when a page is not hugetlb (a range beyond the
 * hugetlbfs mapping, or one remapped meanwhile), for the caller to pin it
 * page by page.  Then nothing stays pinned but, when it was the range's
 * first page, that page, in *@first (else NULL): every page of memory
 * that is not hugetlbfs is pinned once.
 */
static long memreg_pin_hugetlb(struct memreg_host_reg *hreg, u64 start,
			       struct page **first)
{
	struct mm_struct *mm = hreg->reg.ctx->mm;
	unsigned long cap, pinned = 0;
	struct memreg_host_run *run;
	struct folio *folio;
	struct page *page;
	long n, ret = 0;

	/* runs of 2 MiB at least, and the two ends */
	cap = DIV_ROUND_UP(hreg->npages, MEMREG_PIN_BATCH) + 2;
	hreg->runs = NULL;
	hreg->nruns = 0;
	*first = NULL;
	while (pinned < hreg->npages) {
		n = memreg_pin_some(mm, start + pinned * PAGE_SIZE, 1, &page);
		if (n < 0) {
			ret = n;
			goto unpin;
		}
		folio = page_folio(page);
		if (!folio_test_hugetlb(folio) || hreg->nruns == cap) {
			if (!pinned)
				*first = page;
			else
				unpin_user_page(page);
			ret = -EAGAIN;
			goto unpin;
		}
		/* (after the first page: none for memory of small pages) */
		if (!hreg->runs) {
			hreg->runs = kvmalloc_array(cap, sizeof(*hreg->runs),
						    GFP_KERNEL_ACCOUNT |
						    __GFP_NOWARN);
			if (!hreg->runs) {
				unpin_user_page(page);
				ret = -ENOMEM;
				goto unpin;
			}
		}
		run = &hreg->runs[hreg->nruns++];
		run->page = page;
		run->first = pinned;
		pinned += min_t(unsigned long, hreg->npages - pinned,
				folio_nr_pages(folio) -
				folio_page_idx(folio, page));
		ret++;
	}
	hreg->run_pinned_once = true;
	return ret;

unpin:
	memreg_unpin_runs_once(hreg->runs, hreg->nruns, false);
	kvfree(hreg->runs);
	hreg->runs = NULL;
	hreg->nruns = 0;
	return ret;
}

/*
 * Pin the range as runs of pages within one folio: up to one run per
 * 2 MiB on huge pages, and a batch of small pages at each end.  A range
 * whose first batch has no huge page at either end goes to the page array
 * at once; one whose huge pages give way to small ones later, when the
 * runs are used up (at the cost of the runs turned into pointers).  @first, if not NULL, is
 * the range's first page, pinned already.  The folios pinned, or an errno
 * with nothing pinned.
 */
static long memreg_pin_runs(struct memreg_host_reg *hreg, u64 start,
			    struct page *first)
{
	struct mm_struct *mm = hreg->reg.ctx->mm;
	unsigned long cap, pinned = 0, left = 0, i;
	struct memreg_host_run *run = NULL;
	struct folio *folio, *prev = NULL;
	struct page **buf;
	long n, ret = 0;

	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		if (first)
			unpin_user_page(first);
		return -ENOMEM;
	}
	hreg->nruns = 0;
	if (first) {
		/* the rest of a first batch, to judge by */
		buf[0] = first;
		n = memreg_pin_some(mm, start + PAGE_SIZE,
				    min_t(unsigned long, hreg->npages - 1,
					  MEMREG_PIN_BATCH - 1), buf + 1);
		if (n < 0)
			unpin_user_page(first);
		else
			n++;
	} else {
		n = memreg_pin_some(mm, start, hreg->npages, buf);
	}
	if (n < 0) {
		ret = n;
		goto out;
	}
	/*
	 * Huge pages at either end of the first batch: runs, with room for
	 * a batch of small pages before the first huge page and one after
	 * the last (a buffer that is not 2 MiB-aligned); else the array.
	 */
	if (!folio_test_large(page_folio(buf[0])) &&
	    !folio_test_large(page_folio(buf[n - 1]))) {
		ret = memreg_runs_to_paged(hreg, start, buf, n, 0);
		goto out;
	}
	cap = DIV_ROUND_UP(hreg->npages, MEMREG_PIN_BATCH) + 2 * MEMREG_PIN_BATCH;
	hreg->runs = kvmalloc_array(cap, sizeof(*hreg->runs),
				    GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!hreg->runs) {
		memreg_unpin_pages(buf, n);
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		for (i = 0; i < n; i++) {
			/* the next page of the same folio: the run goes on */
			if (left && buf[i] == nth_page(run->page,
						       pinned + i - run->first)) {
				left--;
				continue;
			}
			if (hreg->nruns == cap) {
				ret = memreg_runs_to_paged(hreg, start, buf + i,
							   n - i, pinned + i);
				goto out;
			}
			folio = page_folio(buf[i]);
			if (folio != prev) {
				if (!memreg_folio_longterm_ok(folio)) {
					memreg_unpin_pages(buf + i, n - i);
					pinned += i;
					ret = -EFAULT;
					goto unpin;
				}
				ret++;
				prev = folio;
			}
			run = &hreg->runs[hreg->nruns++];
			run->page = buf[i];
			run->first = pinned + i;
			left = folio_nr_pages(folio) -
			       folio_page_idx(folio, buf[i]) - 1;
		}
		pinned += n;
		if (pinned == hreg->npages)
			break;
		n = memreg_pin_some(mm, start + pinned * PAGE_SIZE,
				    hreg->npages - pinned, buf);
		if (n < 0) {
			ret = n;
			goto unpin;
		}
	}
	goto out;

unpin:
	memreg_unpin_runs(hreg->runs, hreg->nruns, pinned);
out:
	kfree(buf);
	if (ret < 0 || hreg->pages) {
		kvfree(hreg->runs);
		hreg->runs = NULL;
		hreg->nruns = 0;
	}
	return ret;
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
	long folios;
	int ret;

	/* the parent's pages, pinned and charged once */
	if (reg->parent) {
		reg->pinned_pages = 0;
		return 0;
	}
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
	hreg->npages = npages;
	hreg->pages = NULL;
	hreg->runs = NULL;

	/*
	 * More than one batch: perhaps huge pages, tried as hugetlbfs runs
	 * (a first page that is not hugetlb ends that at once), then as runs
	 * of pages.
	 */
	if (npages > MEMREG_PIN_BATCH) {
		struct page *first;

		hreg->run_pinned_once = false;
		folios = memreg_pin_hugetlb(hreg, start, &first);
		if (folios == -EAGAIN)
			folios = memreg_pin_runs(hreg, start, first);
		if (folios < 0) {
			ret = folios;
			goto uncharge;
		}
		goto pinned;
	}

	if (npages <= MEMREG_HOST_INLINE_PAGES)
		hreg->pages = hreg->inline_pages;
	else
		hreg->pages = kvmalloc_array(npages, sizeof(*hreg->pages),
					     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!hreg->pages) {
		ret = -ENOMEM;
		goto uncharge;
	}
	ret = memreg_pin_paged(hreg, start, 0);
	if (ret)
		goto free;
	folios = memreg_count_folios(hreg->pages, npages);
	if (folios < 0) {
		ret = folios;
		memreg_unpin_pages(hreg->pages, npages);
		goto free;
	}
pinned:
	reg->pinned_pages = folios;
	atomic64_add(npages, &memreg_stats.pinned_pages);
	return 0;

free:
	if (hreg->pages != hreg->inline_pages)
		kvfree(hreg->pages);
	hreg->pages = NULL;
uncharge:
	hreg->npages = 0;
	atomic64_sub(npages, &mm->pinned_vm);
	return ret;
}

/* Unpin and uncharge, from the mm the pin was charged to. */
static void memreg_host_release(struct memreg_reg *reg)
{
	struct memreg_host_reg *hreg = to_host_reg(reg);
	struct mm_struct *mm = reg->ctx->mm;

	/* a child's pages are its parent's, which it still references */
	if (reg->parent)
		return;
	if (hreg->runs) {
		if (hreg->run_pinned_once)
			memreg_unpin_runs_once(hreg->runs, hreg->nruns, true);
		else
			memreg_unpin_runs(hreg->runs, hreg->nruns,
					  hreg->npages);
		kvfree(hreg->runs);
	} else {
		memreg_unpin_pages(hreg->pages, hreg->npages);
		if (hreg->pages != hreg->inline_pages)
			kvfree(hreg->pages);
	}
	atomic64_sub(hreg->npages, &mm->pinned_vm);
	atomic64_sub(hreg->npages, &memreg_stats.pinned_pages);
	hreg->pages = NULL;
	hreg->runs = NULL;
	hreg->nruns = 0;
	hreg->npages = 0;
}

/* The run holding page @idx of the registration: the last run from it. */
static struct page *memreg_host_run_page(const struct memreg_host_reg *hreg,
					 unsigned long idx)
{
	unsigned long lo = 0, hi = hreg->nruns, mid;

	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (hreg->runs[mid].first <= idx)
			lo = mid;
		else
			hi = mid;
	}
	return nth_page(hreg->runs[lo].page, idx - hreg->runs[lo].first);
}

struct page *memreg_host_page_at(const struct memreg_reg *reg, u64 addr,
				 unsigned int *off)
{
	const struct memreg_host_reg *hreg;
	u64 o;

	/* a child's pages are its parent's, at the same addresses */
	if (reg->parent)
		reg = reg->parent;
	hreg = to_host_reg(reg);
	o = addr - (reg->addr & PAGE_MASK);
	*off = offset_in_page(o);
	if (hreg->runs)
		return memreg_host_run_page(hreg, o >> PAGE_SHIFT);
	return hreg->pages[o >> PAGE_SHIFT];
}

/* Out of every lookup: its dma-bufs are revoked (memreg_host_export.c). */
static void memreg_host_unlink(struct memreg_reg *reg)
{
	memreg_host_export_revoke(reg);
}

const struct memreg_mem_ops memreg_host_mem_ops = {
	.name			= "host",
	.reg_size		= sizeof(struct memreg_host_reg),
	.limit_type		= MEMREG_MEM_HOST,
	.shares			= true,
	.over_limit		= MEMREG_REFUSED_HOST_BYTES,
	.over_limit_errno	= -EDQUOT,
	.attach			= memreg_host_attach,
	.unlink			= memreg_host_unlink,
	.release		= memreg_host_release,
	.page_at		= memreg_host_page_at,
	.nl_bytes		= MEMREG_A_HOST_BYTES,
	.nl_peak_bytes		= MEMREG_A_PEAK_HOST_BYTES,
	.nl_max_bytes		= MEMREG_A_MAX_HOST_BYTES,
};
