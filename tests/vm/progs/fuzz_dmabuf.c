// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzer's dma-buf calls: DEV_EXPORT of device allocations, REG_EXPORT
 * of registrations (of any type: only HOST ones may be), DMABUF
 * registrations of what it exported (and of fds that are no dma-buf),
 * named dma-bufs passed between processes, and CPU mappings of dma-bufs
 * touched while other threads free or revoke them.  The registrations go
 * into the same pool as the others, so grants, imports and transfers use
 * them too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"

/* A touch of a revoked mapping is a SIGBUS: expected, caught here. */
static __thread sigjmp_buf *volatile fz_bus_jmp;

static void fz_on_sigbus(int sig)
{
	if (fz_bus_jmp)
		siglongjmp(*fz_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

void fz_dmabuf_init(struct fz_proc *p)
{
	struct sigaction sa = {
		.sa_handler = fz_on_sigbus, .sa_flags = SA_NODEFER,
	};

	for (int i = 0; i < FZ_NDMABUFS; i++)
		p->dmabufs[i] = -1;
	memset(p->names, 0, sizeof(p->names));
	sigaction(SIGBUS, &sa, NULL);
}

/* Keep a dma-buf fd in the pool; a full slot lets go of the old one. */
static void fz_keep_dmabuf(struct fz_thread *t, int fd)
{
	struct fz_proc *p = t->p;
	int *slot, old;

	pthread_mutex_lock(&p->lock);
	slot = &p->dmabufs[fz_below(&t->rng, FZ_NDMABUFS)];
	old = *slot;
	*slot = fd;
	pthread_mutex_unlock(&p->lock);
	if (old >= 0)
		close(old);
}

/* A dma-buf of the pool, mostly; else an fd that is not one. */
static int fz_pick_dmabuf(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int fd, fdi;

	switch (fz_below(&t->rng, 16)) {
	case 0:
		return -1;
	case 1:
		return 1000 + (int)fz_below(&t->rng, 24);	/* not open */
	case 2:
		return p->tmpfd;				/* a file */
	case 3:
		return fz_pick_fd(t, &fdi);			/* /dev/memreg */
	}
	pthread_mutex_lock(&p->lock);
	fd = p->dmabufs[fz_below(&t->rng, FZ_NDMABUFS)];
	pthread_mutex_unlock(&p->lock);
	return fd;
}

static uint64_t fz_dmabuf_size(int fd)
{
	off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;

	return end > 0 ? (uint64_t)end : 0;
}

/* [off, off + len) mostly inside @size bytes, sometimes anything. */
static void fz_range(struct fz_thread *t, uint64_t size, uint64_t *off,
		     uint64_t *len, uint64_t align)
{
	if (!size || fz_one_in(&t->rng, 8)) {
		*off = fz_one_in(&t->rng, 2) ? fz_interesting(&t->rng) : 0;
		*len = fz_interesting(&t->rng);
		return;
	}
	*off = fz_below(&t->rng, size) & ~(align - 1);
	*len = 1 + fz_below(&t->rng, size - *off);
	if (fz_one_in(&t->rng, 10))
		*len += fz_below(&t->rng, 3 * 4096);	/* past the end */
}

static void fz_do_export(struct fz_thread *t)
{
	struct memreg_dev_export *e = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	struct fz_dev dev;
	int fdi, fd = fz_pick_fd(t, &fdi);
	uint64_t off, len;
	bool clean;

	pthread_mutex_lock(&p->lock);
	dev = p->devs[fz_below(&t->rng, FZ_NDEVS)];
	if (dev.handle && dev.fdi >= 0 && p->fds[dev.fdi] >= 0 &&
	    !fz_one_in(&t->rng, 10))
		fd = p->fds[dev.fdi];
	pthread_mutex_unlock(&p->lock);

	memset(e, 0, sizeof(*e));
	e->handle = fz_one_in(&t->rng, 10) ? fz_next(&t->rng) : dev.handle;
	fz_range(t, dev.len, &off, &len,
		 fz_one_in(&t->rng, 8) ? 1 : p->page_size);
	e->offset = off;
	e->len = len;
	e->flags = fz_one_in(&t->rng, 4) ? fz_flags(t) : MEMREG_EXPORT_CLOEXEC;
	fz_reserved(t, e->reserved, sizeof(e->reserved));
	if (fz_one_in(&t->rng, 30))
		e->reserved0 = 1;
	if (!fz_call(t, FZ_DEV_EXPORT, fd, _IOC_NR(MEMREG_IOC_DEV_EXPORT),
		     sizeof(*e), &clean) && clean && e->fd >= 0)
		fz_keep_dmabuf(t, e->fd);
}

/*
 * A registration of the pool (on its own file mostly), a range of its
 * pages mostly inside; the dma-buf is kept like DEV_EXPORT's, so it is
 * registered, named and mapped as they are, while threads unregister
 * the registration under it.
 */
static void fz_do_reg_export(struct fz_thread *t)
{
	struct memreg_reg_export *e = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	struct fz_reg reg = { 0 };
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean, have = fz_pick_reg(t, fdi, &reg, false);
	uint64_t off, len;

	pthread_mutex_lock(&p->lock);
	if (have && reg.fdi >= 0 && p->fds[reg.fdi] >= 0 &&
	    !fz_one_in(&t->rng, 10))
		fd = p->fds[reg.fdi];
	pthread_mutex_unlock(&p->lock);

	memset(e, 0, sizeof(*e));
	e->handle = have && !fz_one_in(&t->rng, 10) ? reg.handle :
		    fz_next(&t->rng);
	fz_range(t, reg.len + (reg.addr & (p->page_size - 1)), &off, &len,
		 fz_one_in(&t->rng, 8) ? 1 : p->page_size);
	e->offset = off;
	e->len = len;
	e->flags = fz_one_in(&t->rng, 4) ? fz_flags(t) : MEMREG_EXPORT_CLOEXEC;
	fz_reserved(t, e->reserved, sizeof(e->reserved));
	if (fz_one_in(&t->rng, 30))
		e->reserved0 = 1;
	if (!fz_call(t, FZ_REG_EXPORT, fd, _IOC_NR(MEMREG_IOC_REG_EXPORT),
		     sizeof(*e), &clean) && clean && e->fd >= 0)
		fz_keep_dmabuf(t, e->fd);
}

static void fz_do_register(struct fz_thread *t)
{
	struct memreg_register *r = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi), dfd = fz_pick_dmabuf(t);
	struct fz_reg nr = { 0 };
	uint64_t off, len;
	bool clean;

	memset(r, 0, sizeof(*r));
	r->type = fz_one_in(&t->rng, 12) ? fz_below(&t->rng, 4) :
		  MEMREG_MEM_DMABUF;
	r->fd = dfd;
	fz_range(t, fz_dmabuf_size(dfd), &off, &len, 1);
	r->addr = off;
	r->len = len;
	r->access = fz_below(&t->rng, 4);
	r->flags = fz_flags(t);
	fz_reserved(t, r->reserved, sizeof(r->reserved));
	if (fz_call(t, FZ_DMABUF_REG, fd, _IOC_NR(MEMREG_IOC_REGISTER),
		    sizeof(*r), &clean) || !clean || fdi < 0)
		return;
	nr.handle = r->handle;
	nr.fdi = fdi;
	nr.addr = r->addr;
	nr.len = r->len;
	nr.access = r->access;
	fz_keep_reg(t, fd, &nr);
}

/* A name this process made, one some process published, or garbage. */
static void fz_pick_name(struct fz_thread *t, uint8_t *token)
{
	struct fz_proc *p = t->p;

	switch (fz_below(&t->rng, 3)) {
	case 0:
		pthread_mutex_lock(&p->lock);
		memcpy(token, p->names[fz_below(&t->rng, FZ_NNAMES)], 16);
		pthread_mutex_unlock(&p->lock);
		break;
	case 1:
		memcpy(token, fz_sh->ipc_tokens[fz_below(&t->rng,
							 FZ_NIPC_TOKENS)], 16);
		break;
	default:
		for (int i = 0; i < 16; i += 8) {
			uint64_t v = fz_next(&t->rng);

			memcpy(token + i, &v, 8);
		}
	}
}

static void fz_do_ipc(struct fz_thread *t)
{
	struct fz_proc *p = t->p;
	int fdi, fd = fz_pick_fd(t, &fdi);
	uint8_t old[16];
	bool clean;

	switch (fz_below(&t->rng, 4)) {
	case 0: {
		struct memreg_ipc_export *e = (void *)fz_argbuf;
		uint8_t *slot;

		memset(e, 0, sizeof(*e));
		e->fd = fz_pick_dmabuf(t);
		e->flags = fz_one_in(&t->rng, 8) ? fz_flags(t) :
			   fz_below(&t->rng, 2) * MEMREG_IPC_ANY_PID;
		fz_reserved(t, e->reserved, sizeof(e->reserved));
		if (fz_call(t, FZ_IPC, fd, _IOC_NR(MEMREG_IOC_IPC_EXPORT),
			    sizeof(*e), &clean) || !clean)
			return;
		memcpy(fz_sh->ipc_tokens[fz_below(&t->rng, FZ_NIPC_TOKENS)],
		       e->token, 16);
		pthread_mutex_lock(&p->lock);
		slot = p->names[fz_below(&t->rng, FZ_NNAMES)];
		memcpy(old, slot, 16);
		memcpy(slot, e->token, 16);
		pthread_mutex_unlock(&p->lock);
		/* a full slot lets go of its name (ENOENT if it went before) */
		if (old[0] | old[1] | old[2] | old[3]) {
			struct memreg_ipc_close c = { .size = sizeof(c) };

			memcpy(c.token, old, 16);
			fz_count(FZ_IPC, ioctl(fd, MEMREG_IOC_IPC_CLOSE, &c) ?
				 errno : 0);
		}
		return;
	}
	case 1: {
		struct memreg_ipc_allow *a = (void *)fz_argbuf;
		int32_t *pids = (void *)(fz_argbuf + 1024);
		uint32_t n = 1 + fz_below(&t->rng, 4);

		memset(a, 0, sizeof(*a));
		fz_pick_name(t, a->token);
		for (uint32_t i = 0; i < n; i++)
			pids[i] = fz_below(&t->rng, 3) == 0 ? getppid() :
				  fz_one_in(&t->rng, 2) ? getpid() :
				  (int32_t)fz_interesting(&t->rng);
		a->count = fz_one_in(&t->rng, 10) ? fz_interesting(&t->rng) : n;
		a->pids = fz_one_in(&t->rng, 20) ? fz_interesting(&t->rng) :
			  (uintptr_t)pids;
		fz_reserved(t, a->reserved, sizeof(a->reserved));
		fz_call(t, FZ_IPC, fd, _IOC_NR(MEMREG_IOC_IPC_ALLOW),
			sizeof(*a), &clean);
		return;
	}
	case 2: {
		struct memreg_ipc_import *im = (void *)fz_argbuf;

		memset(im, 0, sizeof(*im));
		fz_pick_name(t, im->token);
		im->flags = fz_one_in(&t->rng, 8) ? fz_flags(t) :
			    MEMREG_EXPORT_CLOEXEC;
		fz_reserved(t, im->reserved, sizeof(im->reserved));
		if (!fz_call(t, FZ_IPC, fd, _IOC_NR(MEMREG_IOC_IPC_IMPORT),
			     sizeof(*im), &clean) && clean && im->fd >= 0)
			fz_keep_dmabuf(t, im->fd);
		return;
	}
	default: {
		struct memreg_ipc_close *c = (void *)fz_argbuf;

		memset(c, 0, sizeof(*c));
		fz_pick_name(t, c->token);
		c->flags = fz_flags(t);
		fz_reserved(t, c->reserved, sizeof(c->reserved));
		fz_call(t, FZ_IPC, fd, _IOC_NR(MEMREG_IOC_IPC_CLOSE),
			sizeof(*c), &clean);
	}
	}
}

/* The thread's dma-buf window PROT_NONE again, whatever was mapped in it. */
static void fz_close_window(struct fz_thread *t)
{
	mmap(t->dmabuf_win, FZ_DMABUF_WIN, PROT_NONE,
	     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
}

/* Map part of a dma-buf, touch it (it may be revoked: SIGBUS), unmap. */
static void fz_do_mmap(struct fz_thread *t)
{
	int dfd = fz_pick_dmabuf(t);
	uint64_t size = fz_dmabuf_size(dfd), off, len;
	volatile char *m;
	sigjmp_buf jb;
	int ret = 0;

	fz_range(t, size, &off, &len, t->p->page_size);
	if (len > FZ_DMABUF_WIN)
		len = FZ_DMABUF_WIN;
	/* into this thread's window (fuzz.h says why not anywhere) */
	m = mmap(t->dmabuf_win, len, fz_one_in(&t->rng, 4) ? PROT_READ :
		 PROT_READ | PROT_WRITE,
		 (fz_one_in(&t->rng, 10) ? MAP_PRIVATE : MAP_SHARED) | MAP_FIXED,
		 dfd, off);
	if (m == MAP_FAILED) {
		fz_count(FZ_DMABUF_MMAP, errno);
		/* a failed MAP_FIXED may have unmapped the window */
		fz_close_window(t);
		return;
	}
	if (!sigsetjmp(jb, 1)) {
		/* armed before the touches, as the handler sees it */
		fz_bus_jmp = &jb;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		(void)m[0];
		(void)m[len - 1];
	} else {
		/* SIGBUS: revoked under us, or a file shorter than the map */
		ret = EFAULT;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	fz_bus_jmp = NULL;
	/* unmapped by closing the window over it: no hole, even for a moment */
	fz_close_window(t);
	fz_count(FZ_DMABUF_MMAP, ret);
}

void fz_dmabuf_one(struct fz_thread *t)
{
	unsigned int r = fz_below(&t->rng, 12);

	if (r < 3)
		fz_do_export(t);
	else if (r < 5)
		fz_do_reg_export(t);
	else if (r < 8)
		fz_do_register(t);
	else if (r < 10)
		fz_do_ipc(t);
	else
		fz_do_mmap(t);
}
