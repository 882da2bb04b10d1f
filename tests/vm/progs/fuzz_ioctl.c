// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_fuzz: the /dev/memreg ioctls.  Each generator builds a struct that
 * is mostly right (the size the kernel knows, valid flags, zero reserved
 * fields, a handle this process really got, an address it really mapped),
 * because a wrong struct is refused at the door and reaches nothing; one
 * field in a few is made wrong, so that every refusal is tried as well.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "fuzz.h"

/* Handles this process let go of: the kernel must not know them any more. */
#define FZ_NSTALE 16
static uint64_t fz_stale[FZ_NSTALE];
static unsigned int fz_stale_next;

/* Bigger than any struct size tried (a page and then some), page aligned. */
#define FZ_ARGBUF 8192
__thread uint8_t fz_argbuf[FZ_ARGBUF] __attribute__((aligned(4096)));

uint64_t fz_interesting(struct fz_rng *r)
{
	static const uint64_t vals[] = {
		0, 1, 2, 7, 8, 63, 64, 4095, 4096, 4097, 65535, 65536,
		(2ULL << 20) - 1, 2ULL << 20, (2ULL << 20) + 1, 1ULL << 30,
		1ULL << 40, (1ULL << 40) + 1, 0x7fffffffULL, 0x80000000ULL,
		0xffffffffULL, 0x100000000ULL, 0x00007fffffffffffULL,
		0x0000800000000000ULL, 0xffff888000000000ULL,
		0xffffffff81000000ULL, 0x7fffffffffffffffULL,
		0x8000000000000000ULL, ~0ULL - 4095, ~0ULL,
	};
	uint64_t v = vals[fz_below(r, ARRAY_SIZE(vals))];

	switch (fz_below(r, 4)) {
	case 0:
		return v + 1;
	case 1:
		return v - 1;
	default:
		return v;
	}
}

static void fz_stale_add(uint64_t h)
{
	fz_stale[__atomic_fetch_add(&fz_stale_next, 1, __ATOMIC_RELAXED) %
		 FZ_NSTALE] = h;
}

/* A wrong handle: stale, random, a real one with a bit flipped, or 0. */
static uint64_t fz_bad_handle(struct fz_thread *t, uint64_t real)
{
	switch (fz_below(&t->rng, 4)) {
	case 0:
		return fz_stale[fz_below(&t->rng, FZ_NSTALE)];
	case 1:
		return fz_next(&t->rng);
	case 2:
		return real ^ (1ULL << fz_below(&t->rng, 64));
	default:
		return fz_interesting(&t->rng);
	}
}

void fz_pool_init(struct fz_proc *p)
{
	pthread_mutex_init(&p->lock, NULL);
	for (int i = 0; i < FZ_NFDS; i++)
		p->fds[i] = -1;
	p->tmpfd = -1;
	fz_dmabuf_init(p);
}

/*
 * An fd to call on, mostly one of the process's /dev/memreg files (opened
 * again if it was closed); sometimes another file or no file at all.
 */
int fz_pick_fd(struct fz_thread *t, int *fdi)
{
	struct fz_proc *p = t->p;
	int i = fz_below(&t->rng, FZ_NFDS), fd;

	*fdi = i;
	if (fz_one_in(&t->rng, 200)) {
		*fdi = -1;
		return fz_one_in(&t->rng, 2) ? p->tmpfd : -1;
	}
	pthread_mutex_lock(&p->lock);
	fd = p->fds[i];
	if (fd < 0) {
		fd = open("/dev/memreg", O_RDWR | O_CLOEXEC);
		p->fds[i] = fd;
	}
	pthread_mutex_unlock(&p->lock);
	return fd;
}

/*
 * A range to register or name: mostly inside one of the pool's mappings
 * (any alignment, any length up to its end), sometimes straddling its end,
 * unmapped, in the kernel's half or overflowing.
 */
uint64_t fz_pick_addr(struct fz_thread *t, uint64_t *len, int *kind)
{
	struct fz_proc *p = t->p;
	struct fz_map m = { 0 };
	uint64_t off, ps = p->page_size;

	*kind = -1;
	if (fz_one_in(&t->rng, 12)) {
		switch (fz_below(&t->rng, 5)) {
		case 0:		/* the kernel's half */
			*len = ps * (1 + fz_below(&t->rng, 4));
			return 0xffff888000000000ULL + ps * fz_below(&t->rng, 1024);
		case 1:		/* overflowing */
			*len = ~0ULL - fz_below(&t->rng, 8192);
			return ps * (1 + fz_below(&t->rng, 1024));
		case 2:		/* low and unmapped */
			*len = ps;
			return ps * fz_below(&t->rng, 16);
		default:
			*len = fz_interesting(&t->rng);
			return fz_interesting(&t->rng);
		}
	}
	pthread_mutex_lock(&p->lock);
	for (int tries = 0; tries < 4 && !m.addr; tries++)
		m = p->maps[fz_below(&t->rng, FZ_NMAPS)];
	pthread_mutex_unlock(&p->lock);
	if (!m.addr) {
		*len = ps;
		return ps * 16;
	}
	*kind = m.kind;
	if (fz_one_in(&t->rng, 3)) {
		off = ps * fz_below(&t->rng, m.len / ps);
		*len = ps * (1 + fz_below(&t->rng, (m.len - off) / ps));
	} else {
		off = fz_below(&t->rng, m.len);
		*len = 1 + fz_below(&t->rng, m.len - off);
	}
	/* big registrations are slow to pin under TCG: keep most small */
	if (*len > 16 * ps && !fz_one_in(&t->rng, 8))
		*len = 1 + fz_below(&t->rng, 16 * ps);
	if (fz_one_in(&t->rng, 20))
		*len += ps * (1 + fz_below(&t->rng, 4));	/* past its end */
	return m.addr + off;
}

/*
 * Make the call: the struct at @s (in fz_argbuf) of @ssize bytes, its size
 * field set here.  Most calls are what a good caller makes; some have a
 * short size, a longer one with a zero or nonzero tail, one above a page,
 * another size in the command or no readable struct at all.  Returns 0 or
 * the errno, and counts it; *@clean says whether the struct was sent as
 * it is, so that its output can be trusted.
 */
int fz_call(struct fz_thread *t, enum fz_kind kind, int fd,
	    unsigned int nr, size_t ssize, bool *clean)
{
	uint32_t usize = ssize, csize = ssize;
	void *arg = fz_argbuf;
	unsigned int r = fz_below(&t->rng, 200);
	int ret;

	memset(fz_argbuf + ssize, 0, 128);
	*clean = false;
	if (r < 3) {
		usize = fz_below(&t->rng, ssize);
	} else if (r < 6) {
		usize = ssize + 1 + fz_below(&t->rng, 120);
	} else if (r < 8) {
		usize = ssize + 1 + fz_below(&t->rng, 120);
		fz_argbuf[ssize + fz_below(&t->rng, usize - ssize)] =
			1 + fz_below(&t->rng, 255);
	} else if (r < 9) {
		usize = 4097 + fz_below(&t->rng, 1 << 20);
	} else if (r < 10) {
		usize = fz_next(&t->rng);
	} else {
		*clean = true;
	}
	memcpy(fz_argbuf, &usize, sizeof(usize));
	if (fz_one_in(&t->rng, 40))
		csize = fz_below(&t->rng, 1 << 14);	/* _IOC_SIZEBITS */
	if (fz_one_in(&t->rng, 150)) {
		static const uintptr_t bad[] = {
			0, 1, 4096, 0xffff888000000000ULL, ~0ULL - 7,
		};
		arg = (void *)bad[fz_below(&t->rng, 5)];
		*clean = false;
	}
	ret = ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, MEMREG_IOC_MAGIC, nr,
			     csize), arg) ? errno : 0;
	fz_count(kind, ret);
	return ret;
}

/* mostly 0, sometimes one random bit or all of them */
uint32_t fz_flags(struct fz_thread *t)
{
	if (!fz_one_in(&t->rng, 25))
		return 0;
	return fz_one_in(&t->rng, 4) ? fz_next(&t->rng) :
	       1U << fz_below(&t->rng, 32);
}

void fz_reserved(struct fz_thread *t, void *res, size_t len)
{
	if (fz_one_in(&t->rng, 30))
		((uint8_t *)res)[fz_below(&t->rng, len)] = 1 + fz_below(&t->rng, 255);
}

bool fz_pick_reg(struct fz_thread *t, int fdi, struct fz_reg *out, bool take)
{
	struct fz_proc *p = t->p;
	unsigned int start = fz_below(&t->rng, FZ_NREGS);
	bool any = fz_one_in(&t->rng, 8), found = false;

	pthread_mutex_lock(&p->lock);
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (unsigned int i = 0; i < FZ_NREGS; i++) {
			struct fz_reg *r = &p->regs[(start + i) % FZ_NREGS];

			if (!r->handle || (!any && pass == 0 && r->fdi != fdi))
				continue;
			*out = *r;
			if (take)
				r->handle = 0;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return found;
}

static bool fz_pick_import(struct fz_thread *t, int fdi, struct fz_import *out,
			   bool take)
{
	struct fz_proc *p = t->p;
	unsigned int start = fz_below(&t->rng, FZ_NIMPORTS);
	bool any = fz_one_in(&t->rng, 8), found = false;

	pthread_mutex_lock(&p->lock);
	for (int pass = 0; pass < 2 && !found; pass++) {
		for (unsigned int i = 0; i < FZ_NIMPORTS; i++) {
			struct fz_import *im = &p->imports[(start + i) % FZ_NIMPORTS];

			if (!im->handle || (!any && pass == 0 && im->fdi != fdi))
				continue;
			*out = *im;
			if (take)
				im->handle = 0;
			found = true;
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return found;
}

static void fz_unregister(int fd, uint64_t handle)
{
	struct memreg_unregister u = { .size = sizeof(u), .handle = handle };

	fz_count(FZ_UNREGISTER, ioctl(fd, MEMREG_IOC_UNREGISTER, &u) ? errno : 0);
	fz_stale_add(handle);
}

/* Keep what a call made; a full pool lets go of an old one first. */
void fz_keep_reg(struct fz_thread *t, int fd, const struct fz_reg *nr)
{
	struct fz_proc *p = t->p;
	struct fz_reg *slot = &p->regs[fz_below(&t->rng, FZ_NREGS)], old;

	pthread_mutex_lock(&p->lock);
	old = *slot;
	*slot = *nr;
	if (old.handle && old.fdi >= 0)
		fd = p->fds[old.fdi];
	pthread_mutex_unlock(&p->lock);
	if (old.handle)
		fz_unregister(fd, old.handle);
}

static void fz_do_register(struct fz_thread *t)
{
	struct memreg_register *r = (void *)fz_argbuf;
	struct fz_reg nr = { 0 };
	int fdi, fd = fz_pick_fd(t, &fdi);
	int kind;
	uint64_t len, addr = fz_pick_addr(t, &len, &kind);
	unsigned int ty = fz_below(&t->rng, 20);
	bool clean;

	memset(r, 0, sizeof(*r));
	/* the type that fits the mapping, mostly; device memory as host too */
	r->type = (kind == FZ_MAP_DEV) == (ty < 16) ? MEMREG_MEM_DEVICE :
		  MEMREG_MEM_HOST;
	if (ty == 19)
		r->type = fz_interesting(&t->rng);
	r->addr = addr;
	r->len = len;
	r->access = fz_one_in(&t->rng, 20) ? fz_next(&t->rng) :
		    fz_below(&t->rng, 4);
	r->flags = fz_flags(t);
	fz_reserved(t, r->reserved, sizeof(r->reserved));
	if (fz_call(t, FZ_REGISTER, fd, _IOC_NR(MEMREG_IOC_REGISTER),
		    sizeof(*r), &clean) || !clean || fdi < 0)
		return;
	nr.handle = r->handle;
	nr.fdi = fdi;
	nr.addr = addr;
	nr.len = len;
	nr.access = r->access;
	fz_keep_reg(t, fd, &nr);
}

static void fz_do_unregister(struct fz_thread *t)
{
	struct memreg_unregister *u = (void *)fz_argbuf;
	struct fz_reg reg = { 0 };
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean, have = fz_pick_reg(t, fdi, &reg, !fz_one_in(&t->rng, 10));

	memset(u, 0, sizeof(*u));
	u->handle = have && !fz_one_in(&t->rng, 10) ? reg.handle :
		    fz_bad_handle(t, reg.handle);
	u->flags = fz_flags(t);
	fz_reserved(t, u->reserved, sizeof(u->reserved));
	fz_call(t, FZ_UNREGISTER, fd, _IOC_NR(MEMREG_IOC_UNREGISTER),
		sizeof(*u), &clean);
	if (have)
		fz_stale_add(reg.handle);
}

static void fz_do_info(struct fz_thread *t)
{
	struct memreg_info *in = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean;

	memset(in, 0, sizeof(*in));
	fz_reserved(t, in->reserved, sizeof(in->reserved));
	fz_call(t, FZ_INFO, fd, _IOC_NR(MEMREG_IOC_INFO), sizeof(*in), &clean);
}

static void fz_do_query(struct fz_thread *t)
{
	struct memreg_query *q = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi);
	static const uint32_t esz[] = {
		MEMREG_REGION_SIZE_VER0, MEMREG_REGION_SIZE_VER0,
		MEMREG_REGION_SIZE_VER0, 72, 128, 4096, 32, 4097, 0,
	};
	uint32_t es = esz[fz_below(&t->rng, ARRAY_SIZE(esz))];
	bool clean;

	memset(q, 0, sizeof(*q));
	q->flags = fz_flags(t);
	q->cursor = fz_one_in(&t->rng, 2) ? 0 : fz_one_in(&t->rng, 2) ?
		    fz_below(&t->rng, 4096) : fz_interesting(&t->rng);
	q->entry_size = es;
	q->count = fz_below(&t->rng, 33);
	if (es && es <= 4096 && q->count > t->scratch_len / es)
		q->count = t->scratch_len / es;
	q->regions = (uintptr_t)t->scratch;
	if (fz_one_in(&t->rng, 30)) {
		/* a count far past the array, or an array that is not there */
		q->count = fz_one_in(&t->rng, 2) ? fz_next(&t->rng) : 1 << 20;
		if (fz_one_in(&t->rng, 2))
			q->regions = fz_interesting(&t->rng);
	}
	fz_reserved(t, q->reserved, sizeof(q->reserved));
	fz_call(t, FZ_QUERY, fd, _IOC_NR(MEMREG_IOC_QUERY), sizeof(*q), &clean);
}

static void fz_dev_free(int fd, uint64_t handle)
{
	struct memreg_dev_free f = { .size = sizeof(f), .handle = handle };

	fz_count(FZ_DEV_FREE, ioctl(fd, MEMREG_IOC_DEV_FREE, &f) ? errno : 0);
	fz_stale_add(handle);
}

static void fz_do_dev_alloc(struct fz_thread *t)
{
	struct memreg_dev_alloc *a = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	int fdi, fd = fz_pick_fd(t, &fdi);
	unsigned int r = fz_below(&t->rng, 100);
	struct fz_dev *slot, old;
	bool clean;

	memset(a, 0, sizeof(*a));
	a->device = fz_one_in(&t->rng, 20) ? fz_interesting(&t->rng) :
		    fz_below(&t->rng, p->devices ? p->devices : 1);
	a->policy = fz_one_in(&t->rng, 30) ? fz_interesting(&t->rng) :
		    fz_below(&t->rng, 3);
	if (r < 85)
		a->len = 1 + fz_below(&t->rng, 16 * p->page_size);
	else if (r < 95)
		a->len = MEMREG_DEV_HUGE_SIZE - fz_below(&t->rng, 2);
	else
		a->len = fz_interesting(&t->rng);
	/* 2 MiB chunks are scarce in a small VM: mostly 4 KiB pages */
	if (a->len > MEMREG_DEV_HUGE_MIN && a->policy == MEMREG_DEV_HUGE_ONLY &&
	    !fz_one_in(&t->rng, 4))
		a->policy = MEMREG_DEV_NORMAL_ONLY;
	a->flags = fz_flags(t);
	fz_reserved(t, a->reserved, sizeof(a->reserved));
	if (fz_one_in(&t->rng, 30))
		a->reserved0 = 1;
	if (fz_call(t, FZ_DEV_ALLOC, fd, _IOC_NR(MEMREG_IOC_DEV_ALLOC),
		    sizeof(*a), &clean) || !clean || fdi < 0)
		return;
	pthread_mutex_lock(&p->lock);
	slot = &p->devs[fz_below(&t->rng, FZ_NDEVS)];
	old = *slot;
	slot->handle = a->handle;
	slot->fdi = fdi;
	slot->offset = a->mmap_offset;
	slot->len = a->alloc_len;
	slot->device = a->device;
	if (old.handle)
		fd = p->fds[old.fdi];
	pthread_mutex_unlock(&p->lock);
	/* EBUSY if registered: then it goes with the file */
	if (old.handle)
		fz_dev_free(fd, old.handle);
}

static void fz_do_dev_free(struct fz_thread *t)
{
	struct memreg_dev_free *f = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	int fdi, fd = fz_pick_fd(t, &fdi);
	struct fz_dev *slot = &p->devs[fz_below(&t->rng, FZ_NDEVS)], d;
	bool clean;

	pthread_mutex_lock(&p->lock);
	d = *slot;
	if (d.handle && fdi == d.fdi && !fz_one_in(&t->rng, 4))
		slot->handle = 0;
	pthread_mutex_unlock(&p->lock);
	memset(f, 0, sizeof(*f));
	f->handle = d.handle && !fz_one_in(&t->rng, 10) ? d.handle :
		    fz_bad_handle(t, d.handle);
	f->flags = fz_flags(t);
	fz_reserved(t, f->reserved, sizeof(f->reserved));
	fz_call(t, FZ_DEV_FREE, fd, _IOC_NR(MEMREG_IOC_DEV_FREE), sizeof(*f),
		&clean);
}

static void fz_do_dev_info(struct fz_thread *t)
{
	struct memreg_dev_info *d = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean;

	memset(d, 0, sizeof(*d));
	d->device = fz_one_in(&t->rng, 10) ? fz_interesting(&t->rng) :
		    fz_below(&t->rng, t->p->devices + 1);
	fz_reserved(t, d->reserved, sizeof(d->reserved));
	fz_call(t, FZ_DEV_INFO, fd, _IOC_NR(MEMREG_IOC_DEV_INFO), sizeof(*d),
		&clean);
}

/* For any process to import: a torn copy is just a wrong token. */
static void fz_publish(const uint8_t *token, const struct fz_reg *reg,
		       uint32_t access)
{
	struct fz_token *tok = &fz_sh->tokens[__atomic_fetch_add(
		&fz_sh->tokens_published, 1, __ATOMIC_RELAXED) % FZ_NTOKENS];

	memcpy(tok->token, token, 16);
	tok->addr = reg->addr;
	tok->len = reg->len;
	tok->access = access;
	tok->pid = getpid();
}

/* One of the newest tokens of any process: the likeliest to be alive. */
static void fz_newest_token(struct fz_thread *t, uint8_t *token, unsigned int n)
{
	uint64_t pub = __atomic_load_n(&fz_sh->tokens_published,
				       __ATOMIC_RELAXED);

	memcpy(token, fz_sh->tokens[(pub - 1 - fz_below(&t->rng, n)) %
				    FZ_NTOKENS].token, 16);
}

static void fz_do_grant(struct fz_thread *t)
{
	struct memreg_grant *g = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	struct fz_reg reg = { 0 };
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean, have = fz_pick_reg(t, fdi, &reg, false);
	struct fz_grant *slot;

	memset(g, 0, sizeof(*g));
	g->handle = have && !fz_one_in(&t->rng, 15) ? reg.handle :
		    fz_bad_handle(t, reg.handle);
	g->access = fz_one_in(&t->rng, 15) ? fz_next(&t->rng) :
		    fz_one_in(&t->rng, 8) ? 1 + fz_below(&t->rng, 3) :
		    reg.access ? reg.access : 1;
	fz_reserved(t, g->reserved, sizeof(g->reserved));
	if (fz_call(t, FZ_GRANT, fd, _IOC_NR(MEMREG_IOC_GRANT), sizeof(*g),
		    &clean) || !clean)
		return;
	pthread_mutex_lock(&p->lock);
	slot = &p->grants[fz_below(&t->rng, FZ_NGRANTS)];
	memcpy(slot->token, g->token, 16);
	slot->fdi = fdi;
	slot->used = true;
	pthread_mutex_unlock(&p->lock);
	fz_publish(g->token, &reg, g->access);
}

static void fz_do_revoke(struct fz_thread *t)
{
	struct memreg_revoke *rv = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	int fdi, fd = fz_pick_fd(t, &fdi);
	struct fz_grant *slot = &p->grants[fz_below(&t->rng, FZ_NGRANTS)];
	bool clean;

	memset(rv, 0, sizeof(*rv));
	switch (fz_below(&t->rng, 8)) {
	case 0:		/* someone else's */
		memcpy(rv->token,
		       fz_sh->tokens[fz_below(&t->rng, FZ_NTOKENS)].token, 16);
		break;
	case 1:
		for (int i = 0; i < 16; i++)
			rv->token[i] = fz_next(&t->rng);
		break;
	default:
		pthread_mutex_lock(&p->lock);
		memcpy(rv->token, slot->token, 16);
		slot->used = false;
		pthread_mutex_unlock(&p->lock);
	}
	rv->flags = fz_flags(t);
	fz_reserved(t, rv->reserved, sizeof(rv->reserved));
	fz_call(t, FZ_REVOKE, fd, _IOC_NR(MEMREG_IOC_REVOKE), sizeof(*rv),
		&clean);
}

static void fz_unimport(int fd, uint64_t handle)
{
	struct memreg_unimport u = { .size = sizeof(u), .handle = handle };

	fz_count(FZ_UNIMPORT, ioctl(fd, MEMREG_IOC_UNIMPORT, &u) ? errno : 0);
	fz_stale_add(handle);
}

static struct fz_import fz_keep_import(struct fz_thread *t, int fd, int fdi,
				       const struct memreg_import *im)
{
	struct fz_proc *p = t->p;
	struct fz_import *slot, old, nw = {
		.handle = im->handle, .fdi = fdi, .addr = im->addr,
		.len = im->len, .access = im->access,
	};

	pthread_mutex_lock(&p->lock);
	slot = &p->imports[fz_below(&t->rng, FZ_NIMPORTS)];
	old = *slot;
	*slot = nw;
	if (old.handle)
		fd = p->fds[old.fdi];
	pthread_mutex_unlock(&p->lock);
	if (old.handle)
		fz_unimport(fd, old.handle);
	return nw;
}

static void fz_do_import(struct fz_thread *t)
{
	struct memreg_import *im = (void *)fz_argbuf;
	struct fz_proc *p = t->p;
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean;

	memset(im, 0, sizeof(*im));
	if (fz_one_in(&t->rng, 10)) {
		for (int i = 0; i < 16; i++)
			im->token[i] = fz_one_in(&t->rng, 2) ? 0 : fz_next(&t->rng);
	} else if (fz_one_in(&t->rng, 4)) {
		pthread_mutex_lock(&p->lock);
		memcpy(im->token, p->grants[fz_below(&t->rng, FZ_NGRANTS)].token,
		       16);
		pthread_mutex_unlock(&p->lock);
	} else {
		fz_newest_token(t, im->token, 8);
	}
	im->flags = fz_flags(t);
	fz_reserved(t, im->reserved, sizeof(im->reserved));
	if (fz_call(t, FZ_IMPORT, fd, _IOC_NR(MEMREG_IOC_IMPORT), sizeof(*im),
		    &clean) || !clean || fdi < 0)
		return;
	fz_keep_import(t, fd, fdi, im);
}

static void fz_do_unimport(struct fz_thread *t)
{
	struct memreg_unimport *u = (void *)fz_argbuf;
	struct fz_import im = { 0 };
	int fdi, fd = fz_pick_fd(t, &fdi);
	bool clean, have = fz_pick_import(t, fdi, &im, !fz_one_in(&t->rng, 10));

	memset(u, 0, sizeof(*u));
	u->handle = have && !fz_one_in(&t->rng, 10) ? im.handle :
		    fz_bad_handle(t, im.handle);
	u->flags = fz_flags(t);
	fz_reserved(t, u->reserved, sizeof(u->reserved));
	fz_call(t, FZ_UNIMPORT, fd, _IOC_NR(MEMREG_IOC_UNIMPORT), sizeof(*u),
		&clean);
	if (have)
		fz_stale_add(im.handle);
}

/* A sub-range of [base, base + len): mostly inside, a few bytes long. */
static void fz_subrange(struct fz_thread *t, uint64_t base, uint64_t len,
			uint64_t *addr, uint64_t *n)
{
	uint64_t off = len ? fz_below(&t->rng, len) : 0;

	*n = len - off ? 1 + fz_below(&t->rng, len - off) : 1;
	if (*n > 16384 && !fz_one_in(&t->rng, 16))
		*n = 1 + fz_below(&t->rng, 16384);
	*addr = base + off;
	if (fz_one_in(&t->rng, 25)) {
		switch (fz_below(&t->rng, 4)) {
		case 0:
			*n = len + 1;		/* past the end */
			*addr = base;
			break;
		case 1:
			*addr = base - 1;	/* before the start */
			break;
		case 2:
			*n = 0;
			break;
		default:
			*n = fz_interesting(&t->rng);
		}
	}
}

/*
 * One descriptor between @reg and @im (either may be empty: 0 handles).
 * @sane: every field as a good caller sets it, else any of them may be off.
 */
static void fz_desc(struct fz_thread *t, bool sane, const struct fz_reg *r,
		    const struct fz_import *i, struct memreg_xfer_desc *d)
{
	struct fz_reg reg = *r;
	struct fz_import im = *i;
	uint64_t n1, n2, la, ra;

	memset(d, 0, sizeof(*d));
	if (sane) {
		uint64_t len = reg.len < im.len ? reg.len : im.len;

		/* the op the grant allows */
		d->op = im.access == MEMREG_ACCESS_REMOTE_READ ? MEMREG_XFER_READ :
			im.access == MEMREG_ACCESS_REMOTE_WRITE ? MEMREG_XFER_WRITE :
			fz_below(&t->rng, 2);
		d->local_handle = reg.handle;
		d->remote_handle = im.handle;
		d->len = len ? 1 + fz_below(&t->rng, len < 8192 ? len : 8192) : 1;
		d->local_addr = reg.addr + fz_below(&t->rng, reg.len - d->len + 1);
		d->remote_addr = im.addr + fz_below(&t->rng, im.len - d->len + 1);
		return;
	}
	d->op = fz_one_in(&t->rng, 30) ? fz_interesting(&t->rng) :
		fz_below(&t->rng, 2);
	d->flags = fz_flags(t);
	d->local_handle = reg.handle && !fz_one_in(&t->rng, 20) ? reg.handle :
			  fz_bad_handle(t, reg.handle);
	d->remote_handle = im.handle && !fz_one_in(&t->rng, 20) ? im.handle :
			   fz_bad_handle(t, im.handle);
	fz_subrange(t, reg.addr, reg.len, &la, &n1);
	fz_subrange(t, im.addr, im.len, &ra, &n2);
	d->local_addr = la;
	d->remote_addr = ra;
	d->len = n1 < n2 ? n1 : n2;
	/* both ranges fit: the copy is done by the kernel on pinned pages */
	if (fz_one_in(&t->rng, 2) && d->local_addr - reg.addr + d->len <= reg.len)
		d->remote_addr = im.addr + (d->local_addr - reg.addr) %
				 (im.len ? im.len : 1);
	if (d->remote_addr + d->len > im.addr + im.len && !fz_one_in(&t->rng, 8))
		d->remote_addr = im.addr;
}

static void fz_fill_desc(struct fz_thread *t, int fdi, bool sane,
			 struct memreg_xfer_desc *d)
{
	struct fz_reg reg = { 0 };
	struct fz_import im = { 0 };

	fz_pick_reg(t, fdi, &reg, false);
	fz_pick_import(t, fdi, &im, false);
	fz_desc(t, sane && reg.handle && im.handle && reg.fdi == fdi &&
		im.fdi == fdi, &reg, &im, d);
}

static void fz_do_transfer(struct fz_thread *t)
{
	struct memreg_transfer *x = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi);
	unsigned int r = fz_below(&t->rng, 200);
	uint32_t dsz = MEMREG_XFER_DESC_SIZE_VER0, count, filled;
	uint8_t *descs = t->scratch;
	bool clean, sane = !fz_one_in(&t->rng, 4);

	if (r < 4)
		dsz = 48 + 8 * (1 + fz_below(&t->rng, 4));	/* zero tail */
	else if (r < 6)
		dsz = 48 + 1 + fz_below(&t->rng, 64);		/* nonzero tail */
	else if (r < 8)
		dsz = fz_one_in(&t->rng, 2) ? fz_below(&t->rng, 48) :
		      4097 + fz_below(&t->rng, 1000);
	count = 1 + fz_below(&t->rng, 8);
	r = fz_below(&t->rng, 300);
	if (r < 3)
		count = 0;
	else if (r < 6)
		count = MEMREG_XFER_MAX_DESCS + fz_below(&t->rng, 2);
	else if (r < 8)
		count = fz_next(&t->rng);
	else if (r < 10)
		count = 64 + fz_below(&t->rng, 1024);
	/* fill what fits in the scratch buffer and what a call will read */
	filled = count;
	if (dsz > 4096 || (uint64_t)filled * dsz > t->scratch_len)
		filled = dsz <= 4096 ? t->scratch_len / dsz : 0;
	if (filled > 1100)
		filled = 1 + fz_below(&t->rng, 4);	/* the rest: zeroes or old */
	for (uint32_t i = 0; i < filled; i++) {
		uint8_t *d = descs + (size_t)i * dsz;

		fz_fill_desc(t, fdi, sane, (void *)d);
		if (dsz > 48) {
			memset(d + 48, 0, dsz - 48);
			if ((dsz - 48) % 8)
				d[48 + fz_below(&t->rng, dsz - 48)] = 0x5a;
		}
	}
	memset(x, 0, sizeof(*x));
	x->flags = sane ? 0 : fz_flags(t);
	x->descs = fz_one_in(&t->rng, 60) ? fz_interesting(&t->rng) :
		   (uintptr_t)descs;
	x->count = count;
	x->desc_size = dsz;
	if (fz_one_in(&t->rng, 30))
		x->reserved0 = 1;
	fz_reserved(t, x->reserved, sizeof(x->reserved));
	fz_call(t, FZ_TRANSFER, fd, _IOC_NR(MEMREG_IOC_TRANSFER), sizeof(*x),
		&clean);
}

static void fz_do_mstx(struct fz_thread *t)
{
	struct memreg_mstx *m = (void *)fz_argbuf;
	int fdi, fd = fz_pick_fd(t, &fdi);
	uint32_t osz = MEMREG_MSTX_OP_SIZE_VER0, count, filled;
	unsigned int r = fz_below(&t->rng, 200);
	uint8_t *ops = t->scratch;
	/* a domain name of 4 KiB with no NUL: the module cuts it */
	static __thread char longdom[4096];
	char dom[16];
	bool clean;

	if (r < 4)
		osz = 40 + 8 * (1 + fz_below(&t->rng, 3));
	else if (r < 6)
		osz = 41 + fz_below(&t->rng, 64);
	else if (r < 8)
		osz = fz_one_in(&t->rng, 2) ? fz_below(&t->rng, 40) :
		      4097 + fz_below(&t->rng, 100);
	count = 1 + fz_below(&t->rng, 16);
	r = fz_below(&t->rng, 300);
	if (r < 3)
		count = 0;
	else if (r < 6)
		count = MEMREG_MSTX_BATCH_MAX + fz_below(&t->rng, 2);
	else if (r < 8)
		count = fz_next(&t->rng);
	filled = count;
	if (osz > 4096 || (uint64_t)filled * osz > t->scratch_len)
		filled = osz <= 4096 ? t->scratch_len / osz : 0;
	if (filled > MEMREG_MSTX_BATCH_MAX)
		filled = MEMREG_MSTX_BATCH_MAX;
	snprintf(dom, sizeof(dom), "fz%u", (unsigned int)fz_below(&t->rng, 6));
	if (!longdom[0])
		memset(longdom, 'd', sizeof(longdom));
	for (uint32_t i = 0; i < filled; i++) {
		struct memreg_mstx_op *o = (void *)(ops + (size_t)i * osz);
		/* heap h covers [h << 24, (h << 24) + 1 MiB): fake addresses */
		uint32_t h = fz_below(&t->rng, 9);

		memset(o, 0, osz);
		o->op = fz_one_in(&t->rng, 50) ? fz_interesting(&t->rng) :
			1 + fz_below(&t->rng, 5);
		o->flags = fz_one_in(&t->rng, 50) ? 1 : 0;
		o->heap = fz_one_in(&t->rng, 40) ? fz_interesting(&t->rng) : h;
		o->addr = ((uint64_t)h << 24) +
			  (o->op == MEMREG_MSTX_HEAP_ADD ? 0 :
			   fz_below(&t->rng, 1 << 21));
		o->len = o->op == MEMREG_MSTX_HEAP_ADD ? 1 << 20 :
			 1 + fz_below(&t->rng, 65536);
		if (fz_one_in(&t->rng, 30))
			o->len = fz_interesting(&t->rng);
		o->device = fz_below(&t->rng, 3);
		o->reserved = fz_one_in(&t->rng, 60);
		switch (fz_below(&t->rng, 12)) {
		case 0:
			o->domain = (uintptr_t)longdom;
			break;
		case 1:
			o->domain = fz_interesting(&t->rng);
			break;
		case 2:
		case 3:
		case 4:
			o->domain = 0;
			break;
		default:
			o->domain = (uintptr_t)dom;
		}
		if (osz > 40 && (osz - 40) % 8)
			((uint8_t *)o)[40 + fz_below(&t->rng, osz - 40)] = 1;
	}
	memset(m, 0, sizeof(*m));
	m->flags = fz_flags(t);
	m->ops = fz_one_in(&t->rng, 60) ? fz_interesting(&t->rng) :
		 (uintptr_t)ops;
	m->count = count;
	m->op_size = osz;
	if (fz_one_in(&t->rng, 40))
		m->reserved0 = 1;
	fz_reserved(t, m->reserved, sizeof(m->reserved));
	fz_call(t, FZ_MSTX, fd, _IOC_NR(MEMREG_IOC_MSTX), sizeof(*m), &clean);
}

/*
 * The path a real pair of peers takes, in one go: register, grant, import
 * one of the newest tokens (often this one, often another process's) and
 * transfer between the two.  Separate calls seldom line these up before
 * one of them is gone again.
 */
static void fz_do_chain(struct fz_thread *t)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_HOST,
		.access = MEMREG_ACCESS_ALL,
	};
	struct memreg_grant g = { .size = sizeof(g) };
	struct memreg_import im = { .size = sizeof(im) };
	struct memreg_transfer x = { .size = sizeof(x) };
	struct memreg_xfer_desc *d = t->scratch;
	int fdi, fd = fz_pick_fd(t, &fdi), ret;
	struct fz_reg reg;
	struct fz_import imp;
	uint64_t len;
	int kind;

	if (fdi < 0)
		return;
	r.addr = fz_pick_addr(t, &len, &kind);
	r.len = len;
	if (kind == FZ_MAP_DEV)
		r.type = MEMREG_MEM_DEVICE;
	ret = ioctl(fd, MEMREG_IOC_REGISTER, &r) ? errno : 0;
	fz_count(FZ_REGISTER, ret);
	if (ret)
		return;
	reg = (struct fz_reg){ .handle = r.handle, .fdi = fdi, .addr = r.addr,
			       .len = r.len, .access = r.access };
	fz_keep_reg(t, fd, &reg);
	g.handle = r.handle;
	g.access = 1 + fz_below(&t->rng, 3);
	ret = ioctl(fd, MEMREG_IOC_GRANT, &g) ? errno : 0;
	fz_count(FZ_GRANT, ret);
	if (ret)
		return;
	fz_publish(g.token, &reg, g.access);
	fz_newest_token(t, im.token, 3);
	ret = ioctl(fd, MEMREG_IOC_IMPORT, &im) ? errno : 0;
	fz_count(FZ_IMPORT, ret);
	if (ret)
		return;
	imp = fz_keep_import(t, fd, fdi, &im);
	x.count = 1 + fz_below(&t->rng, 4);
	for (uint32_t i = 0; i < x.count; i++)
		fz_desc(t, true, &reg, &imp, &d[i]);
	x.descs = (uintptr_t)d;
	x.desc_size = sizeof(*d);
	fz_count(FZ_TRANSFER, ioctl(fd, MEMREG_IOC_TRANSFER, &x) ? errno : 0);
}

/* Numbers, directions and magics the module does not serve: ENOTTY. */
static void fz_do_badcmd(struct fz_thread *t)
{
	int fdi, fd = fz_pick_fd(t, &fdi);
	unsigned int dir = fz_below(&t->rng, 4), nr = fz_below(&t->rng, 0x20);
	unsigned int type = fz_one_in(&t->rng, 4) ? fz_below(&t->rng, 256) :
			    MEMREG_IOC_MAGIC;
	int ret;

	memset(fz_argbuf, 0, 256);
	*(uint32_t *)fz_argbuf = fz_below(&t->rng, 256);
	/* the right magic, direction and a served number would be a real call */
	if (type == MEMREG_IOC_MAGIC && dir == (_IOC_READ | _IOC_WRITE))
		nr |= 0x40;
	ret = ioctl(fd, _IOC(dir, type, nr, fz_below(&t->rng, 512)),
		    fz_argbuf) ? errno : 0;
	fz_count(FZ_BADCMD, ret);
}

void fz_ioctl_one(struct fz_thread *t)
{
	unsigned int r = fz_below(&t->rng, 100);

	if (r < 8)
		fz_do_chain(t);
	else if (r < 22)
		fz_do_register(t);
	else if (r < 30)
		fz_do_unregister(t);
	else if (r < 33)
		fz_do_info(t);
	else if (r < 38)
		fz_do_query(t);
	else if (r < 44)
		fz_do_dev_alloc(t);
	else if (r < 49)
		fz_do_dev_free(t);
	else if (r < 51)
		fz_do_dev_info(t);
	else if (r < 59)
		fz_do_grant(t);
	else if (r < 63)
		fz_do_revoke(t);
	else if (r < 72)
		fz_do_import(t);
	else if (r < 76)
		fz_do_unimport(t);
	else if (r < 89)
		fz_do_transfer(t);
	else if (r < 94)
		fz_do_mstx(t);
	else if (r < 98)
		fz_dmabuf_one(t);
	else
		fz_do_badcmd(t);
}
