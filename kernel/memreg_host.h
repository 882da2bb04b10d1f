/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memreg - a host registration's pinned pages, shared by the host backend
 * (memreg_host.c) and its dma-buf exports (memreg_host_export.c).
 */
#ifndef _MEMREG_HOST_H
#define _MEMREG_HOST_H

#include "memreg_internal.h"

/*
 * Small registrations keep their page pointers in the registration itself:
 * one allocation less on the register path, for 64 bytes a registration.
 */
#define MEMREG_HOST_INLINE_PAGES	8

/*
 * Pages that follow each other in one folio: a 2 MiB huge page is one run,
 * not 512 page pointers.  On hugetlbfs a run holds one pin, of its first
 * page: a hugetlb folio is always mapped whole and in order, so the
 * folio's other pages are where the addresses say, and the pin keeps the
 * whole folio.  Elsewhere (THP) a run's pages are pinned one pin each, as
 * GUP returns them (a THP may be mapped by page table entries in any
 * order, so each page's place is what GUP saw), and unpinned by range
 * (unpin_user_page_range_dirty_lock() steps by folio).
 */
struct memreg_host_run {
	struct page *page;		/* the run's first page */
	unsigned long first;		/* its index in the registration */
};

/*
 * A registration of host memory: the pages it pinned, as an array of page
 * pointers or, when they fall into few runs (huge pages), as runs.
 */
struct memreg_host_reg {
	struct memreg_reg reg;
	struct page **pages;		/* inline_pages, allocated, or NULL */
	struct memreg_host_run *runs;	/* when pages is NULL */
	/* at most npages / MEMREG_PIN_BATCH + 1024: see memreg_host.c */
	unsigned int nruns;
	bool run_pinned_once;		/* one pin a run (hugetlbfs) */
	/*
	 * Exported as a dma-buf once (memreg_host_export.c), and out of every
	 * lookup: each set once, under a full barrier, read by the other
	 * side, so an export made as it is unregistered is revoked or refused.
	 */
	bool exported;
	bool unlinked;
	unsigned long npages;		/* PAGE_SIZE pages pinned and charged */
	struct page *inline_pages[MEMREG_HOST_INLINE_PAGES];
};

/*
 * One kmalloc-256 object a registration (docs/security.md's row): what a
 * field added here or in struct memreg_reg would double.
 */
static_assert(sizeof(struct memreg_host_reg) <= 256);

static inline struct memreg_host_reg *to_host_reg(const struct memreg_reg *reg)
{
	return container_of(reg, struct memreg_host_reg, reg);
}

struct page *memreg_host_page_at(const struct memreg_reg *reg, u64 addr,
				 unsigned int *off);

#endif /* _MEMREG_HOST_H */
