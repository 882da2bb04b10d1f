// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_fuzz: the address space and the files under the registrations.
 * Mappings of every kind the module meets (anonymous, THP, shmem, memfd,
 * hugetlb, a /tmp file shared and private, read-only, /dev/memreg device
 * memory) are made, unmapped whole or in part, moved, zapped, protected and
 * kept from children; /dev/memreg is closed, reopened and duplicated; and
 * children are forked that register, grant and import on their own and
 * then exit, or are killed with SIGKILL, while they hold all of it.
 *
 * Every change to the address space is made under the process's pool lock,
 * from the pool's own record of what is mapped: a stale copy of a range
 * would otherwise unmap memory that a later mmap() put there (a thread's
 * scratch buffer, say) and crash the fuzzer instead of the kernel.
 *
 * And every pool mapping lives in an arena of its own, reserved PROT_NONE
 * at the start: slot i has 32 MiB of it, its mapping at 2 MiB or 16 MiB
 * in (mremap() moves it between the two), at most 8 MiB long, and what is
 * unmapped is unmapped by reserving it again (fz_reserve()).  A range that runs past a mapping's
 * end (on purpose, or into a hole) meets PROT_NONE, never the fuzzer's
 * own memory: registered, that memory would be written by TRANSFERs --
 * the statistics page, a thread's stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fuzz.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define FZ_HPAGE	(2UL << 20)
#define FZ_FILE_PAGES	64
#define FZ_SLOT		(32UL << 20)	/* arena bytes per pool slot */
#define FZ_HALF_A	(2UL << 20)	/* where in it a mapping starts */
#define FZ_HALF_B	(16UL << 20)	/* ... or, mremap()ed, starts */
#define FZ_MAP_MAX	(8UL << 20)	/* longest mapping */

static uint64_t fz_arena;

static uint64_t fz_slot_base(int i)
{
	return fz_arena + (uint64_t)i * FZ_SLOT;
}

static int fz_errno(long ret)
{
	return ret < 0 ? errno : 0;
}

/*
 * Close [addr, addr + len) of the arena again (the lock held).  Mapped over
 * what is there, which the kernel unmaps as munmap() would: a munmap()
 * first would leave a hole for a moment, which another thread's mmap(NULL)
 * (glibc's, the kernel picks where) could take and this would then clobber
 * -- a worker died of SIGSEGV so when dma-bufs were still mapped anywhere.
 * Only mremap() leaves its old range empty until this closes it.
 */
static int fz_reserve(uint64_t addr, uint64_t len)
{
	return fz_errno((long)mmap((void *)addr, len, PROT_NONE,
				   MAP_PRIVATE | MAP_ANONYMOUS |
				   MAP_NORESERVE | MAP_FIXED, -1, 0));
}

/* Unmap slot @i (the lock held); what is left of it in the pool is gone. */
static void fz_unmap_slot(struct fz_proc *p, int i)
{
	if (!p->maps[i].addr)
		return;
	fz_count(FZ_MUNMAP, fz_reserve(p->maps[i].addr, p->maps[i].len));
	p->maps[i].addr = 0;
}

static int fz_hugetlb_maps(struct fz_proc *p)
{
	int n = 0;

	for (int i = 0; i < FZ_NMAPS; i++)
		n += p->maps[i].addr && p->maps[i].kind == FZ_MAP_HUGETLB;
	return n;
}

/*
 * A new mapping of @kind in slot @slot (free), touched; 0 and an errno in
 * *err if it failed.
 */
static uint64_t fz_map_kind(struct fz_proc *p, struct fz_rng *r, int kind,
			    int slot, uint64_t *len, int *err)
{
	uint64_t ps = p->page_size, pages = 1 + fz_below(r, 16);
	int rw = PROT_READ | PROT_WRITE, fd;
	void *m = MAP_FAILED, *at = (void *)(fz_slot_base(slot) + FZ_HALF_A);

	*len = pages * ps;
	switch (kind) {
	case FZ_MAP_ANON:
		m = mmap(at, *len, rw,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_FIXED,
			 -1, 0);
		break;
	case FZ_MAP_THP:
		/* 2 MiB aligned (the arena is), so THP (always, in the VM) backs it */
		*len = FZ_HPAGE;
		m = mmap(at, *len, rw, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0);
		if (m == MAP_FAILED)
			break;
		madvise(m, *len, MADV_HUGEPAGE);
		madvise(m, *len, MADV_POPULATE_WRITE);
		break;
	case FZ_MAP_SHARED:
		m = mmap(at, *len, rw,
			 MAP_SHARED | MAP_ANONYMOUS | MAP_POPULATE | MAP_FIXED,
			 -1, 0);
		break;
	case FZ_MAP_MEMFD:
		fd = memfd_create("memreg_fuzz", MFD_CLOEXEC);
		if (fd < 0)
			break;
		if (!ftruncate(fd, *len))
			m = mmap(at, *len, rw, MAP_SHARED | MAP_POPULATE | MAP_FIXED,
				 fd, 0);
		close(fd);
		break;
	case FZ_MAP_HUGETLB:
		/* the VM has 16 huge pages for everyone: one per process */
		if (fz_hugetlb_maps(p)) {
			errno = EAGAIN;
			break;
		}
		*len = FZ_HPAGE;
		m = mmap(at, *len, rw,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE |
			 MAP_FIXED, -1, 0);
		break;
	case FZ_MAP_FILE_SHARED:
	case FZ_MAP_FILE_PRIVATE:
		m = mmap(at, *len, rw,
			 (kind == FZ_MAP_FILE_SHARED ? MAP_SHARED : MAP_PRIVATE) |
			 MAP_POPULATE | MAP_FIXED, p->tmpfd,
			 ps * fz_below(r, FZ_FILE_PAGES - pages + 1));
		break;
	case FZ_MAP_RDONLY:
		m = mmap(at, *len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE | MAP_FIXED,
			 -1, 0);
		break;
	}
	if (m == MAP_FAILED) {
		*err = errno ? errno : EINVAL;
		/* a failed MAP_FIXED may have unmapped the reservation */
		fz_reserve((uintptr_t)at, FZ_MAP_MAX);
		return 0;
	}
	*err = 0;
	return (uintptr_t)m;
}

static void fz_map_into(struct fz_proc *p, int slot, uint64_t addr,
			uint64_t len, int kind)
{
	p->maps[slot].addr = addr;
	p->maps[slot].len = len;
	p->maps[slot].kind = kind;
}

static void fz_do_mmap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int kind = fz_below(&t->rng, FZ_MAP_DEV), err;
	int slot = fz_below(&t->rng, FZ_NMAPS);
	uint64_t len, addr;

	pthread_mutex_lock(&p->lock);
	fz_unmap_slot(p, slot);
	addr = fz_map_kind(p, &t->rng, kind, slot, &len, &err);
	fz_count(FZ_MMAP, err);
	if (addr)
		fz_map_into(p, slot, addr, len, kind);
	pthread_mutex_unlock(&p->lock);
}

/* Map (part of) a device allocation of the pool, mostly as it should be. */
static void fz_do_dev_mmap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	struct fz_dev d;
	uint64_t ps = p->page_size, off, len, pages;
	int slot = fz_below(&t->rng, FZ_NMAPS), fd, flags = MAP_SHARED;
	int prot = PROT_READ | PROT_WRITE;
	void *m;

	pthread_mutex_lock(&p->lock);
	/* a live allocation if there is one; else offset 0: ENXIO */
	for (int i = 0, s = fz_below(&t->rng, FZ_NDEVS); i < FZ_NDEVS; i++) {
		d = p->devs[(s + i) % FZ_NDEVS];
		if (d.handle)
			break;
	}
	fd = d.handle ? p->fds[d.fdi] : p->fds[0];
	pages = d.len / ps;
	off = pages ? fz_below(&t->rng, pages) : 0;
	len = ps * (pages - off ? 1 + fz_below(&t->rng, pages - off) : 1);
	off = d.offset + off * ps;
	switch (fz_below(&t->rng, 20)) {
	case 0:
		flags = MAP_PRIVATE;		/* never allowed */
		break;
	case 1:
		len += ps * (1 + fz_below(&t->rng, 16));	/* past its end */
		break;
	case 2:
		off = fz_interesting(&t->rng) & ~(ps - 1);
		break;
	case 3:
		prot = PROT_READ;
		break;
	}
	if (len > FZ_MAP_MAX)
		len = FZ_MAP_MAX;
	fz_unmap_slot(p, slot);
	m = mmap((void *)(fz_slot_base(slot) + FZ_HALF_A), len, prot,
		 flags | MAP_FIXED, fd, off);
	fz_count(FZ_DEV_MMAP, m == MAP_FAILED ? errno : 0);
	if (m != MAP_FAILED)
		fz_map_into(p, slot, (uintptr_t)m, len, FZ_MAP_DEV);
	else
		fz_reserve(fz_slot_base(slot) + FZ_HALF_A, FZ_MAP_MAX);
	pthread_mutex_unlock(&p->lock);
}

/* A page-aligned part of slot @i: [*addr, *addr + *len); false if empty. */
static bool fz_slot_part(struct fz_thread *t, int i, uint64_t *addr,
			 uint64_t *len)
{
	struct fz_map *m = &t->p->maps[i];
	uint64_t ps = t->p->page_size, pages = m->len / ps, off;

	if (!m->addr || !pages)
		return false;
	if (m->kind == FZ_MAP_HUGETLB || fz_one_in(&t->rng, 3)) {
		*addr = m->addr;
		*len = m->len;
		return true;
	}
	off = fz_below(&t->rng, pages);
	*addr = m->addr + off * ps;
	*len = ps * (1 + fz_below(&t->rng, pages - off));
	return true;
}

static void fz_do_munmap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NMAPS);
	uint64_t addr, len;

	pthread_mutex_lock(&p->lock);
	if (fz_slot_part(t, i, &addr, &len)) {
		if (addr == p->maps[i].addr && len == p->maps[i].len) {
			fz_unmap_slot(p, i);
		} else {
			/* a hole: the pool still names the whole range */
			fz_count(FZ_MUNMAP, fz_reserve(addr, len));
		}
	}
	pthread_mutex_unlock(&p->lock);
}

static void fz_do_mremap(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NMAPS);
	struct fz_map *m = &p->maps[i];
	uint64_t ps = p->page_size, nlen, to;
	void *n;

	pthread_mutex_lock(&p->lock);
	if (!m->addr) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	nlen = m->kind == FZ_MAP_HUGETLB ? m->len :
	       ps * (1 + fz_below(&t->rng, 2 * m->len / ps));
	if (nlen > FZ_MAP_MAX)
		nlen = FZ_MAP_MAX;
	/* to the other half of the slot: the mapping moves, the arena stays */
	to = fz_slot_base(i) + (m->addr - fz_slot_base(i) < FZ_HALF_B ?
				FZ_HALF_B : FZ_HALF_A);
	n = mremap((void *)m->addr, m->len, nlen, MREMAP_MAYMOVE | MREMAP_FIXED,
		   (void *)to);
	fz_count(FZ_MREMAP, n == MAP_FAILED ? errno : 0);
	if (n != MAP_FAILED) {
		fz_reserve(m->addr, m->len);
		m->addr = (uintptr_t)n;
		m->len = nlen;
	} else {
		/* MREMAP_FIXED may have unmapped the target first */
		fz_reserve(to, FZ_MAP_MAX);
	}
	pthread_mutex_unlock(&p->lock);
}

static void fz_do_madvise(struct fz_thread *t, bool dontfork)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NMAPS), advice;
	uint64_t addr, len;

	if (dontfork)
		advice = fz_one_in(&t->rng, 2) ? MADV_DONTFORK : MADV_DOFORK;
	else
		advice = MADV_DONTNEED;
	pthread_mutex_lock(&p->lock);
	if (fz_slot_part(t, i, &addr, &len))
		fz_count(dontfork ? FZ_MADV_DONTFORK : FZ_MADV_DONTNEED,
			 fz_errno(madvise((void *)addr, len, advice)));
	pthread_mutex_unlock(&p->lock);
}

static void fz_do_mprotect(struct fz_thread *t)
{
	static const int prots[] = {
		PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
		PROT_READ | PROT_WRITE, PROT_WRITE,
	};
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NMAPS);
	uint64_t addr, len;

	pthread_mutex_lock(&p->lock);
	if (fz_slot_part(t, i, &addr, &len))
		fz_count(FZ_MPROTECT, fz_errno(mprotect((void *)addr, len,
					prots[fz_below(&t->rng, 5)])));
	pthread_mutex_unlock(&p->lock);
}

static void fz_do_reopen(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NFDS), ret = 0;

	pthread_mutex_lock(&p->lock);
	if (p->fds[i] >= 0)
		close(p->fds[i]);
	errno = 0;
	/* left closed now and then: fz_pick_fd opens it when it is next used */
	p->fds[i] = fz_one_in(&t->rng, 4) ? -1 :
		    open(fz_one_in(&t->rng, 20) ? "/dev/null" : "/dev/memreg",
			 (fz_one_in(&t->rng, 10) ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (p->fds[i] == -1 && errno)
		ret = errno;
	pthread_mutex_unlock(&p->lock);
	fz_count(FZ_REOPEN, ret);
}

static void fz_do_dup(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NFDS), j = fz_below(&t->rng, FZ_NFDS);
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	if (i != j && p->fds[i] >= 0) {
		if (p->fds[j] >= 0) {
			if (dup2(p->fds[i], p->fds[j]) < 0)
				ret = errno;
		} else {
			p->fds[j] = fcntl(p->fds[i], F_DUPFD_CLOEXEC, 0);
			if (p->fds[j] < 0)
				ret = errno;
		}
		fz_count(FZ_DUP, ret);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Kill (or just reap) children; with @kill_them, all of them, and wait. */
void fz_reap_children(struct fz_proc *p, bool kill_them)
{
	for (int i = 0; i < FZ_NCHILDREN; i++) {
		pid_t pid = p->children[i];

		if (!pid)
			continue;
		if (kill_them)
			kill(pid, SIGKILL);
		if (waitpid(pid, NULL, kill_them ? 0 : WNOHANG) == pid) {
			p->children[i] = 0;
			if (!kill_them)
				fz_count(FZ_KILL, 0);
		}
	}
}

static void fz_do_kill(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NCHILDREN);
	pid_t pid;

	pthread_mutex_lock(&p->lock);
	pid = p->children[i];
	p->children[i] = 0;
	pthread_mutex_unlock(&p->lock);
	if (!pid) {
		pthread_mutex_lock(&p->lock);
		fz_reap_children(p, false);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	kill(pid, SIGKILL);
	fz_count(FZ_KILL, waitpid(pid, NULL, 0) == pid ? 0 : errno);
}

/*
 * A child: the forking thread alone, with a copy of the pools.  Its files
 * are the parent's (every ioctl on them is EPERM) until it opens its own;
 * the parent's handles mean nothing to it.  It makes its own registrations,
 * grants and imports through the shared token page, and then exits, kills
 * itself, exec()s with its memreg files kept open (the files live on in
 * the new program; what they held must go with the old address space),
 * or waits for its parent's SIGKILL, holding what it made.
 */
static void fz_child(struct fz_thread *t, pid_t parent)
{
	struct fz_proc *p = t->p;
	unsigned int steps = fz_below(&t->rng, 40), end;

	/*
	 * Dies with the thread that forked it: a worker that dies (the OOM
	 * killer, a crash) must not leave children holding device memory
	 * and pins in pause() for ever, hiding what the harness checks.
	 */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/* the lock may have been held by another thread at fork() */
	pthread_mutex_init(&p->lock, NULL);
	p->child = true;
	memset(p->children, 0, sizeof(p->children));
	if (t->nlfd >= 0)
		close(t->nlfd);
	t->nlfd = -1;
	for (int i = 0; i < FZ_NFDS; i++) {
		if (!fz_one_in(&t->rng, 3))
			continue;
		if (p->fds[i] >= 0)
			close(p->fds[i]);
		p->fds[i] = open("/dev/memreg", O_RDWR | O_CLOEXEC);
	}
	for (unsigned int i = 0; i < steps && fz_now_ns() < fz_deadline_ns; i++)
		fz_step(t);
	end = fz_below(&t->rng, 4);
	if (end == 0)
		_exit(0);
	if (end == 1)
		raise(SIGKILL);
	if (end == 2) {
		for (int i = 0; i < FZ_NFDS; i++)
			if (p->fds[i] >= 0)
				fcntl(p->fds[i], F_SETFD, 0);
		execl("/bin/sleep", "sleep", "1", (char *)NULL);
		_exit(0);	/* no sleep here: as good as an exit */
	}
	/* until the parent's SIGKILL, or the end of the run */
	while (fz_now_ns() < fz_deadline_ns)
		pause();
	_exit(0);
}

static void fz_do_fork(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NCHILDREN);
	struct fz_thread ct = *t;
	pid_t pid, old, parent;

	if (p->child)
		return;
	/* the child's choices come from the parent's sequence, reproducibly */
	ct.rng.s = fz_next(&t->rng);
	pthread_mutex_lock(&p->lock);
	old = p->children[i];
	p->children[i] = 0;
	pthread_mutex_unlock(&p->lock);
	if (old) {
		kill(old, SIGKILL);
		fz_count(FZ_KILL, waitpid(old, NULL, 0) == old ? 0 : errno);
	}
	parent = getpid();
	pid = fork();
	if (pid == 0)
		fz_child(&ct, parent);
	fz_count(FZ_FORK, pid < 0 ? errno : 0);
	if (pid < 0)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->children[i]) {
		/* another thread forked into the slot meanwhile: no room */
		pthread_mutex_unlock(&p->lock);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return;
	}
	p->children[i] = pid;
	pthread_mutex_unlock(&p->lock);
}

void fz_mm_init(struct fz_proc *p, struct fz_rng *r)
{
	char name[64];
	void *a;
	int err;

	/* the arena, 2 MiB aligned for THP and hugetlb */
	a = mmap(NULL, FZ_NMAPS * FZ_SLOT + FZ_HPAGE, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED) {
		perror("memreg_fuzz: arena");
		exit(1);
	}
	fz_arena = ((uintptr_t)a + FZ_HPAGE - 1) & ~(FZ_HPAGE - 1);

	snprintf(name, sizeof(name), "/tmp/memreg_fuzz.%d", getpid());
	p->tmpfd = open(name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (p->tmpfd >= 0) {
		unlink(name);
		if (ftruncate(p->tmpfd, FZ_FILE_PAGES * p->page_size))
			fz_count(FZ_MMAP, errno);
	}
	/* a few of each kind to start with, so the first calls have targets */
	for (int i = 0; i < FZ_NMAPS / 2; i++) {
		int kind = i < 4 ? FZ_MAP_ANON : i % FZ_MAP_DEV;
		uint64_t len, addr = fz_map_kind(p, r, kind, i, &len, &err);

		fz_count(FZ_MMAP, err);
		if (addr)
			fz_map_into(p, i, addr, len, kind);
	}
}

void fz_mm_one(struct fz_thread *t)
{
	unsigned int r = fz_below(&t->rng, 100);

	if (r < 20)
		fz_do_mmap(t);
	else if (r < 36)
		fz_do_dev_mmap(t);
	else if (r < 48)
		fz_do_munmap(t);
	else if (r < 55)
		fz_do_mremap(t);
	else if (r < 64)
		fz_do_madvise(t, false);
	else if (r < 69)
		fz_do_madvise(t, true);
	else if (r < 76)
		fz_do_mprotect(t);
	else if (r < 80)
		fz_do_fork(t);
	else if (r < 86)
		fz_do_kill(t);
	else if (r < 93)
		fz_do_reopen(t);
	else
		fz_do_dup(t);
}
