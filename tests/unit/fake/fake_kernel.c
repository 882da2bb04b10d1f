// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake module (see fake_kernel.h).  Its checks follow the rules of
 * uapi/linux/memreg.h, so a library that sends a bad size, a nonzero
 * reserved field or flag is refused here as the module would refuse it;
 * the tests also compare the recorded bytes with the exact struct they
 * expect.
 *
 * Two back ends share those checks: one set of tables for the process
 * behind a mutex (the default), and one registration table per thread
 * with no lock at all (see fake.per_thread).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core.h"
#include "layers.h"
#include "fake_kernel.h"

struct fake_kernel fake;

uint64_t fake_handle(size_t n)
{
	/* Increasing, so that it can double as the cursor; never 0. */
	return 0x5a000000ULL + 0x10ULL * (n + 1);
}

uint64_t fake_import_handle(uint64_t handle)
{
	/* Apart from every registration handle, and still tied to one. */
	return handle | 1ULL << 62;
}

static int fail(int errnum)
{
	errno = errnum;
	return -1;
}

/* ---- device memory, MSTX state: outside struct fake, no test reads it ---- */

struct fake_alloc {
	uint64_t handle;
	uint32_t device;
	uint64_t offset;	/* in the memfd: DEV_ALLOC's mmap offset */
	uint64_t len;
	int huge;
	int live;
};

#define ALLOC_BASE	0xd000
#define MAX_ALLOCS	4096

static int memfd = -1;
static char memfd_path[64];
static uint64_t next_offset;
static struct fake_alloc allocs[MAX_ALLOCS];
static unsigned int nr_allocs;

/*
 * dma-bufs: the memfd opened again, standing for a range of it; a later
 * one made with the same fd number (the first was closed) wins.
 */
struct fake_dmabuf {
	int fd;
	uint64_t base;		/* where the range starts in the memfd */
	uint64_t len;
	unsigned int alloc;	/* index in allocs: freed means revoked */
};

/* IPC names: the token's first 4 bytes are the index + 1. */
struct fake_name {
	uint8_t token[16];
	struct fake_dmabuf buf;
	int owner_fd;		/* the "file" that made it */
	int32_t owner_pid;
	int any_pid;
	unsigned int npids;
	int32_t pids[MEMREG_IPC_MAX_PIDS];
	int live;
};

#define MAX_DMABUFS	1024
#define MAX_NAMES	64

static struct fake_dmabuf dmabufs[MAX_DMABUFS];
static unsigned int nr_dmabufs;
static struct fake_name names[MAX_NAMES];
static unsigned int nr_names;

/* Live MSTX regions by (heap, addr): a small open-addressing set. */
#define SET_SIZE	(1u << 16)
struct set_entry {
	uint32_t heap;
	uint64_t addr;
	int used;		/* 1 live, -1 a tombstone, 0 never used */
};
static struct set_entry *set;	/* allocated at the first MSTX call */

/* Live heap ids, by their low bits: the tests use few. */
static unsigned char heap_live[1u << 16];

/* ---- what the module checks before it looks at its tables ---- */

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

/* The size rules the extensible structs share: first version up, no larger. */
static int check_size(__u32 size, size_t ver0, size_t known)
{
	if (size < ver0)
		return EINVAL;
	if (size > known)
		return E2BIG;	/* the library never has a bigger struct */
	return 0;
}

static int check_info(const struct memreg_info *k)
{
	int err = check_size(k->size, MEMREG_INFO_SIZE_VER0, sizeof(*k));

	if (err)
		return err;
	if (!all_zero(k->reserved, sizeof(k->reserved)))
		return EINVAL;
	return 0;
}

static int check_register(const struct memreg_register *r)
{
	int err = check_size(r->size, MEMREG_REGISTER_SIZE_VER0, sizeof(*r));

	if (err)
		return err;
	if (r->flags || !all_zero(r->reserved, sizeof(r->reserved)) ||
	    r->len == 0 || r->addr + r->len < r->addr ||
	    r->type > MEMREG_MEM_DMABUF || (r->access & ~MEMREG_ACCESS_ALL) ||
	    r->reserved0 || (r->type != MEMREG_MEM_DMABUF && r->fd))
		return EINVAL;
	return 0;
}

static int check_unregister(const struct memreg_unregister *u)
{
	int err = check_size(u->size, MEMREG_UNREGISTER_SIZE_VER0, sizeof(*u));

	if (err)
		return err;
	if (u->flags || !all_zero(u->reserved, sizeof(u->reserved)))
		return EINVAL;
	return 0;
}

static int check_query(const struct memreg_query *q)
{
	int err = check_size(q->size, MEMREG_QUERY_SIZE_VER0, sizeof(*q));

	if (err)
		return err;
	if (q->flags || !all_zero(q->reserved, sizeof(q->reserved)) ||
	    q->entry_size != sizeof(struct memreg_region))
		return EINVAL;
	if (q->count && !q->regions)
		return EFAULT;
	return 0;
}

/* The device, grant and batch structs: exactly the size the library has. */
static int check_dev_alloc(const struct memreg_dev_alloc *a)
{
	if (a->size != sizeof(*a) || a->flags || a->reserved0 ||
	    !all_zero(a->reserved, sizeof(a->reserved)) || !a->len ||
	    a->policy > MEMREG_DEV_NORMAL_ONLY)
		return EINVAL;
	return a->device >= FAKE_DEVICES ? ENXIO : 0;
}

static int check_dev_free(const struct memreg_dev_free *f)
{
	if (f->size != sizeof(*f) || (f->flags & ~MEMREG_DEV_FREE_KEEP_EXPORTS) ||
	    !all_zero(f->reserved, sizeof(f->reserved)))
		return EINVAL;
	return 0;
}

static int check_dev_info(const struct memreg_dev_info *d)
{
	if (d->size != sizeof(*d) || !all_zero(d->reserved, sizeof(d->reserved)))
		return EINVAL;
	return d->device >= FAKE_DEVICES ? ENXIO : 0;
}

static int check_headroom(const struct memreg_headroom *h)
{
	if (h->size != sizeof(*h) || h->flags || h->reserved0 ||
	    !all_zero(h->reserved, sizeof(h->reserved)))
		return EINVAL;
	return h->device >= FAKE_DEVICES ? ENXIO : 0;
}

static int check_grant(const struct memreg_grant *g)
{
	if (g->size != sizeof(*g) || (g->access & ~MEMREG_ACCESS_ALL) ||
	    !all_zero(g->reserved, sizeof(g->reserved)))
		return EINVAL;
	return 0;
}

static int check_revoke(const struct memreg_revoke *r)
{
	if (r->size != sizeof(*r) || r->flags ||
	    !all_zero(r->reserved, sizeof(r->reserved)))
		return EINVAL;
	return 0;
}

static int check_import(const struct memreg_import *im)
{
	if (im->size != sizeof(*im) || im->flags ||
	    !all_zero(im->reserved, sizeof(im->reserved)))
		return EINVAL;
	return 0;
}

static int check_unimport(const struct memreg_unimport *u)
{
	if (u->size != sizeof(*u) || u->flags ||
	    !all_zero(u->reserved, sizeof(u->reserved)))
		return EINVAL;
	return 0;
}

static int check_transfer(const struct memreg_transfer *t)
{
	if (t->size != sizeof(*t) || t->flags || t->reserved0 ||
	    !all_zero(t->reserved, sizeof(t->reserved)) ||
	    t->desc_size != sizeof(struct memreg_xfer_desc) ||
	    !t->count || t->count > MEMREG_XFER_MAX_DESCS)
		return EINVAL;
	return t->descs ? 0 : EFAULT;
}

static int check_dev_export(const struct memreg_dev_export *e)
{
	if (e->size != sizeof(*e) || (e->flags & ~MEMREG_EXPORT_CLOEXEC) ||
	    e->reserved0 || !all_zero(e->reserved, sizeof(e->reserved)) ||
	    !e->len || e->offset % 4096)
		return EINVAL;
	return 0;
}

static int check_reg_export(const struct memreg_reg_export *e)
{
	if (e->size != sizeof(*e) || (e->flags & ~MEMREG_EXPORT_CLOEXEC) ||
	    e->reserved0 || !all_zero(e->reserved, sizeof(e->reserved)) ||
	    !e->len || e->offset % 4096)
		return EINVAL;
	return 0;
}

static int check_ipc_export(const struct memreg_ipc_export *x)
{
	if (x->size != sizeof(*x) ||
	    (x->flags & ~(MEMREG_IPC_ANY_PID | MEMREG_IPC_SHORT_TOKEN)) ||
	    x->reserved0 || !all_zero(x->reserved, sizeof(x->reserved)))
		return EINVAL;
	return 0;
}

static int check_ipc_allow(const struct memreg_ipc_allow *a)
{
	if (a->size != sizeof(*a) || !all_zero(a->reserved, sizeof(a->reserved)))
		return EINVAL;
	/* The module's answer to a count of 0 too. */
	if (!a->count || a->count > MEMREG_IPC_MAX_PIDS)
		return E2BIG;
	return a->pids ? 0 : EFAULT;
}

static int check_ipc_import(const struct memreg_ipc_import *im)
{
	if (im->size != sizeof(*im) || (im->flags & ~MEMREG_EXPORT_CLOEXEC) ||
	    im->reserved0 || !all_zero(im->reserved, sizeof(im->reserved)))
		return EINVAL;
	return 0;
}

static int check_ipc_close(const struct memreg_ipc_close *c)
{
	if (c->size != sizeof(*c) || c->flags ||
	    !all_zero(c->reserved, sizeof(c->reserved)))
		return EINVAL;
	return 0;
}

static int check_mstx(const struct memreg_mstx *m)
{
	if (m->size != sizeof(*m) ||
	    m->op_size != sizeof(struct memreg_mstx_op) ||
	    m->count > MEMREG_MSTX_BATCH_MAX || m->flags || m->reserved0)
		return EINVAL;
	return 0;
}

static int check(int cmd, const void *arg)
{
	switch (cmd) {
	case FAKE_INFO:
		return check_info(arg);
	case FAKE_REGISTER:
		return check_register(arg);
	case FAKE_UNREGISTER:
		return check_unregister(arg);
	case FAKE_QUERY:
		return check_query(arg);
	case FAKE_DEV_ALLOC:
		return check_dev_alloc(arg);
	case FAKE_DEV_FREE:
		return check_dev_free(arg);
	case FAKE_DEV_INFO:
		return check_dev_info(arg);
	case FAKE_HEADROOM:
		return check_headroom(arg);
	case FAKE_GRANT:
		return check_grant(arg);
	case FAKE_REVOKE:
		return check_revoke(arg);
	case FAKE_IMPORT:
		return check_import(arg);
	case FAKE_UNIMPORT:
		return check_unimport(arg);
	case FAKE_TRANSFER:
		return check_transfer(arg);
	case FAKE_DEV_EXPORT:
		return check_dev_export(arg);
	case FAKE_REG_EXPORT:
		return check_reg_export(arg);
	case FAKE_IPC_EXPORT:
		return check_ipc_export(arg);
	case FAKE_IPC_ALLOW:
		return check_ipc_allow(arg);
	case FAKE_IPC_IMPORT:
		return check_ipc_import(arg);
	case FAKE_IPC_CLOSE:
		return check_ipc_close(arg);
	default:
		return check_mstx(arg);
	}
}

static void fill_region(struct memreg_region *out, uint64_t handle,
			const struct memreg_register *r)
{
	memset(out, 0, sizeof(*out));
	out->handle = handle;
	out->addr = r->addr;
	out->len = r->len;
	out->type = r->type;
	out->access = r->access;
	out->pinned_pages = (r->len + 4095) / 4096;
}

/* ---- registrations, under fake.lock ---- */

static int do_info(struct memreg_info *k)
{
	__u32 size = k->size;

	*k = fake.info;
	k->size = size;
	k->regions = fake.live;
	return 0;
}

static struct fake_region *find_region(uint64_t handle)
{
	size_t i;

	for (i = 0; i < fake.nr_regions; i++)
		if (fake.regions[i].r.handle == handle && fake.regions[i].live)
			return &fake.regions[i];
	return NULL;
}

static const struct fake_dmabuf *find_dmabuf(int fd);

static int do_register(struct memreg_register *r)
{
	const struct fake_dmabuf *b;
	struct fake_region *fr;

	if (r->type == MEMREG_MEM_DMABUF) {
		if (fcntl(r->fd, F_GETFD) < 0)
			return EBADF;
		b = find_dmabuf(r->fd);
		if (!b)
			return EINVAL;
		if (r->addr > b->len || r->len > b->len - r->addr)
			return ERANGE;
	}
	if (fake.nr_regions == fake.cap_regions) {
		size_t cap = fake.cap_regions ? 2 * fake.cap_regions : 64;
		void *p = realloc(fake.regions, cap * sizeof(*fake.regions));

		if (!p)
			return ENOMEM;
		fake.regions = p;
		fake.cap_regions = cap;
	}
	fr = &fake.regions[fake.nr_regions];
	fill_region(&fr->r, fake_handle(fake.nr_regions), r);
	fr->live = 1;
	fake.nr_regions++;
	fake.live++;
	if (r->type == MEMREG_MEM_HOST)
		fake.host_registered += r->len;
	r->handle = fr->r.handle;
	return 0;
}

static int do_unregister(struct memreg_unregister *u)
{
	struct fake_region *fr = find_region(u->handle);

	if (!fr)
		return ENOENT;
	fr->live = 0;
	fake.live--;
	return 0;
}

static int do_query(struct memreg_query *q)
{
	struct memreg_region *out = (struct memreg_region *)(uintptr_t)q->regions;
	unsigned int room = q->count, n = 0;
	size_t i;

	if (fake.query_batch && room > fake.query_batch)
		room = fake.query_batch;

	/* Live entries after the cursor, which is the last handle given. */
	for (i = 0; i < fake.nr_regions && n < room; i++) {
		const struct fake_region *fr = &fake.regions[i];

		if (!fr->live ||
		    (!fake.query_stuck && fr->r.handle <= q->cursor))
			continue;
		out[n++] = fr->r;
		q->cursor = fake.query_stuck ? fake_handle(0) : fr->r.handle;
	}
	if (fake.query_zero_cursor_at_end) {
		for (; i < fake.nr_regions; i++)
			if (fake.regions[i].live)
				break;
		if (i == fake.nr_regions)
			q->cursor = 0;
	}
	q->count = n + (fake.query_overflow ? 1 : 0);
	q->total = fake.live;
	return 0;
}

/*
 * ---- emulated device memory ----
 *
 * HUGE_FIRST at most 1 MiB gets 4 KiB pages, HUGE_ONLY rounds to 2 MiB
 * chunks or fails with ENOMEM, a full device is ENOSPC, an unknown handle
 * ENOENT.  Each allocation is a fresh range of the memfd, at the offset
 * DEV_ALLOC hands back for the library's mmap.
 */

static int do_dev_alloc(struct memreg_dev_alloc *a)
{
	uint64_t unit = 4096, len;
	int huge = 0;

	fake.dev.last_alloc = *a;
	if (a->policy == MEMREG_DEV_HUGE_ONLY ||
	    (a->policy == MEMREG_DEV_HUGE_FIRST && a->len > MEMREG_DEV_HUGE_MIN)) {
		if (!fake.dev.no_huge) {
			unit = MEMREG_DEV_HUGE_SIZE;
			huge = 1;
		} else if (a->policy == MEMREG_DEV_HUGE_ONLY) {
			return ENOMEM;
		}
	}
	len = (a->len + unit - 1) / unit * unit;
	if (fake.dev.used[a->device] + len > FAKE_CAPACITY)
		return ENOSPC;
	if (nr_allocs == MAX_ALLOCS || memfd < 0 ||
	    ftruncate(memfd, (off_t)(next_offset + len)))
		return ENOMEM;

	allocs[nr_allocs] = (struct fake_alloc){
		.handle = ALLOC_BASE + nr_allocs, .device = a->device,
		.offset = next_offset, .len = len, .huge = huge, .live = 1,
	};
	a->handle = allocs[nr_allocs].handle;
	a->mmap_offset = next_offset;
	a->alloc_len = len;
	a->huge = huge;
	nr_allocs++;
	next_offset += len;
	fake.dev.used[a->device] += len;
	if (huge)
		fake.dev.huge[a->device] += len;
	fake.dev.live++;
	return 0;
}

static int do_dev_free(struct memreg_dev_free *f)
{
	struct fake_alloc *fa;

	if (f->handle < ALLOC_BASE || f->handle >= ALLOC_BASE + nr_allocs)
		return ENOENT;
	fa = &allocs[f->handle - ALLOC_BASE];
	if (!fa->live)
		return ENOENT;
	fa->live = 0;
	fake.dev.used[fa->device] -= fa->len;
	if (fa->huge)
		fake.dev.huge[fa->device] -= fa->len;
	fake.dev.live--;
	return 0;
}

static int do_dev_info(struct memreg_dev_info *d)
{
	d->capacity = FAKE_CAPACITY;
	d->used = fake.dev.used[d->device];
	d->huge_bytes = fake.dev.huge[d->device];
	d->normal_bytes = d->used - d->huge_bytes;
	d->proc_bytes = d->used;
	return 0;
}

/* @r lowered to what @limit leaves over @used, if that is less. */
static void room_min(struct memreg_room *r, uint32_t by, uint64_t limit,
		     uint64_t used, uint64_t cgroup_id)
{
	uint64_t left = limit > used ? limit - used : 0;

	if (limit == MEMREG_UNLIMITED || left >= r->bytes)
		return;
	r->bytes = left;
	r->by = by;
	r->limit = limit;
	r->used = used;
	r->cgroup_id = cgroup_id;
}

/* The fake's cgroup: one node, of this id. */
#define FAKE_CGROUP_ID	4242

static int do_headroom(struct memreg_headroom *h)
{
	uint64_t used = fake.dev.used[h->device], mine = 0;
	uint64_t cg_max = fake.headroom.cg_dev_max[h->device];
	struct memreg_room *dev = &h->room[MEMREG_ROOM_DEV_ALLOC];
	int k, d;

	for (d = 0; d < FAKE_DEVICES; d++)
		mine += fake.dev.used[d];
	memset(h->room, 0, sizeof(h->room));
	for (k = 0; k < MEMREG_ROOM_KINDS; k++)
		h->room[k].bytes = MEMREG_UNLIMITED;
	h->cgroup_id = FAKE_CGROUP_ID;
	h->regions = fake.info.max_regions - fake.live;
	/* registrations: against the usage INFO reports */
	room_min(&h->room[MEMREG_ROOM_HOST], MEMREG_ROOM_BY_PROCESS,
		 fake.info.max_host_bytes, fake.info.host_bytes, 0);
	for (k = MEMREG_ROOM_DEVICE; k <= MEMREG_ROOM_DMABUF; k++)
		room_min(&h->room[k], MEMREG_ROOM_BY_PROCESS,
			 fake.info.max_dev_bytes, fake.info.dev_bytes, 0);
	room_min(dev, MEMREG_ROOM_BY_PROCESS, fake.info.max_dev_bytes, mine, 0);
	if (cg_max)
		room_min(dev, MEMREG_ROOM_BY_CGROUP, cg_max,
			 used + fake.headroom.cg_dev_others[h->device],
			 FAKE_CGROUP_ID);
	room_min(dev, MEMREG_ROOM_BY_DEVICE, FAKE_CAPACITY,
		 used + fake.headroom.cg_dev_others[h->device], 0);
	h->dev_total = cg_max && cg_max < FAKE_CAPACITY ? cg_max : FAKE_CAPACITY;
	return 0;
}

/*
 * ---- grants, imports, transfers ----
 *
 * The token names the registration: enough for a fake, where granter and
 * importer are the same process.  TRANSFER copies the bytes itself, in
 * this process; its descriptors are not checked against the tables (the
 * adxl tests look at how the library resolved them, in fake.xfer).
 */

static int do_grant(struct memreg_grant *g)
{
	if (!find_region(g->handle))
		return ENOENT;
	memset(g->token, 0, sizeof(g->token));
	memcpy(g->token, &g->handle, sizeof(g->handle));
	return 0;
}

static int do_import(struct memreg_import *im)
{
	struct fake_region *fr;
	uint64_t h;

	memcpy(&h, im->token, sizeof(h));
	fr = find_region(h);
	if (!fr)
		return ENOENT;
	im->handle = fake_import_handle(h);
	im->addr = fr->r.addr;
	im->len = fr->r.len;
	/* as the module: what the registration is, and what the grant allows */
	im->type = fr->r.type;
	im->access = MEMREG_ACCESS_ALL;
	im->device = fr->r.device;
	return 0;
}

static int do_transfer(struct memreg_transfer *t)
{
	const struct memreg_xfer_desc *d = (const void *)(uintptr_t)t->descs;
	uint32_t i;
	int err;

	fake.xfer.count = t->count;
	fake.xfer.first = d[0];
	if (fake.xfer.seen)
		fake.xfer.seen(d, t->count, fake.xfer.arg);
	for (i = 0; i < t->count; i++) {
		if (fake.fail_errno[FAKE_TRANSFER] &&
		    i == fake.fail_at[FAKE_TRANSFER]) {
			t->done = i;
			err = fake.fail_errno[FAKE_TRANSFER];
			fake.fail_errno[FAKE_TRANSFER] = 0;
			return err;
		}
		if (fake.xfer.fail_remote &&
		    d[i].remote_handle == fake.xfer.fail_remote) {
			t->done = i;
			return fake.xfer.fail_errno;
		}
		if (d[i].op == MEMREG_XFER_READ)
			memcpy((void *)(uintptr_t)d[i].local_addr,
			       (void *)(uintptr_t)d[i].remote_addr, d[i].len);
		else
			memcpy((void *)(uintptr_t)d[i].remote_addr,
			       (void *)(uintptr_t)d[i].local_addr, d[i].len);
		t->bytes += d[i].len;
	}
	t->done = t->count;
	return 0;
}

/*
 * ---- dma-bufs and IPC names ----
 *
 * The rules of memreg_dev_export.c and memreg_ipc.c: page-aligned
 * exports inside their allocation, names that only their file closes or
 * allows, imports only for the pids allowed (or any with ANY_PID, or the
 * exporter itself).
 */

static const struct fake_dmabuf *find_dmabuf(int fd)
{
	struct stat st, mst;
	unsigned int i;

	/* Another file with a number a dma-buf of ours once had is not one. */
	if (fd < 0 || memfd < 0 || fstat(fd, &st) || fstat(memfd, &mst) ||
	    st.st_ino != mst.st_ino || st.st_dev != mst.st_dev)
		return NULL;
	for (i = nr_dmabufs; i-- > 0;)
		if (dmabufs[i].fd == fd)
			return &dmabufs[i];
	return NULL;
}

/* A new fd of the device memory standing for @b; 0 or an errno. */
static int new_dmabuf(const struct fake_dmabuf *b, int cloexec, __s32 *fd)
{
	int nfd;

	if (nr_dmabufs == MAX_DMABUFS)
		return EMFILE;
	nfd = open(memfd_path, O_RDWR | (cloexec ? O_CLOEXEC : 0));
	if (nfd < 0)
		return errno;
	dmabufs[nr_dmabufs] = *b;
	dmabufs[nr_dmabufs].fd = nfd;
	nr_dmabufs++;
	fake.ipc.bufs++;
	*fd = nfd;
	return 0;
}

static int do_dev_export(struct memreg_dev_export *e)
{
	struct fake_dmabuf b;
	struct fake_alloc *fa;
	uint64_t len = (e->len + 4095) / 4096 * 4096;

	if (e->handle < ALLOC_BASE || e->handle >= ALLOC_BASE + nr_allocs)
		return ENOENT;
	fa = &allocs[e->handle - ALLOC_BASE];
	if (!fa->live)
		return ENOENT;
	if (len < e->len || e->offset > fa->len || len > fa->len - e->offset)
		return ERANGE;
	b.base = fa->offset + e->offset;
	b.len = len;
	b.alloc = (unsigned int)(e->handle - ALLOC_BASE);
	return new_dmabuf(&b, e->flags & MEMREG_EXPORT_CLOEXEC, &e->fd);
}

/*
 * The rules of memreg_host_export.c, on the fake's registrations.  The
 * fake cannot share a process's anonymous pages, so the fd is a memfd of
 * the buffer's size: what the library hands back, not the bytes.
 */
static int do_reg_export(struct memreg_reg_export *e)
{
	struct fake_region *fr = find_region(e->handle);
	uint64_t len = (e->len + 4095) / 4096 * 4096, spanned;
	int nfd;

	if (!fr)
		return ENOENT;
	if (fr->r.type != MEMREG_MEM_HOST)
		return EOPNOTSUPP;
	if (fr->r.access != MEMREG_ACCESS_ALL)
		return EACCES;
	spanned = (fr->r.addr + fr->r.len + 4095) / 4096 * 4096 -
		  fr->r.addr / 4096 * 4096;
	if (len < e->len || e->offset > spanned || len > spanned - e->offset)
		return ERANGE;
	nfd = memfd_create("fake-reg-export",
			   e->flags & MEMREG_EXPORT_CLOEXEC ? MFD_CLOEXEC : 0);
	if (nfd < 0)
		return errno;
	if (ftruncate(nfd, (off_t)len)) {
		close(nfd);
		return EIO;
	}
	e->fd = nfd;
	return 0;
}

/* The live name @token stands for, or NULL. */
static struct fake_name *find_name(const uint8_t *token)
{
	uint32_t id;

	memcpy(&id, token, sizeof(id));
	if (!id || id > nr_names || !names[id - 1].live ||
	    memcmp(names[id - 1].token, token, 16))
		return NULL;
	return &names[id - 1];
}

static int do_ipc_export(struct memreg_ipc_export *x, int fd)
{
	const struct fake_dmabuf *b;
	struct fake_name *n;
	uint32_t id;

	if (fcntl(x->fd, F_GETFD) < 0)
		return EBADF;
	b = find_dmabuf(x->fd);
	if (!b)
		return EINVAL;
	if (nr_names == MAX_NAMES)
		return EMFILE;
	n = &names[nr_names];
	memset(n, 0, sizeof(*n));
	id = ++nr_names;
	memcpy(n->token, &id, sizeof(id));
	/* SHORT_TOKEN: 4 bytes of id, 4 "random", the last 8 zero. */
	memset(n->token + sizeof(id), 0xa5 ^ (int)id,
	       (x->flags & MEMREG_IPC_SHORT_TOKEN ? 8 : 16) - sizeof(id));
	n->buf = *b;
	n->owner_fd = fd;
	n->owner_pid = fake.ipc.pid;
	n->any_pid = x->flags & MEMREG_IPC_ANY_PID;
	n->live = 1;
	fake.ipc.live_names++;
	memcpy(x->token, n->token, 16);
	return 0;
}

static int do_ipc_allow(struct memreg_ipc_allow *a, int fd)
{
	const __s32 *pids = (const __s32 *)(uintptr_t)a->pids;
	struct fake_name *n;
	uint32_t i;

	fake.ipc.last_allow_count = a->count;
	for (i = 0; i < a->count && i < 8; i++)
		fake.ipc.last_allow_pids[i] = pids[i];
	/* Pids first, as the module looks them up before the name. */
	for (i = 0; i < a->count; i++)
		if (pids[i] <= 0 || (kill(pids[i], 0) && errno != EPERM))
			return ESRCH;
	n = find_name(a->token);
	if (!n || n->owner_fd != fd)
		return ENOENT;
	if (n->npids + a->count > MEMREG_IPC_MAX_PIDS)
		return E2BIG;
	memcpy(n->pids + n->npids, pids, a->count * sizeof(*pids));
	n->npids += a->count;
	return 0;
}

static int do_ipc_import(struct memreg_ipc_import *im)
{
	struct fake_name *n = find_name(im->token);
	unsigned int i;
	int ok, err;

	if (!n)
		return ENOENT;
	ok = n->any_pid || n->owner_pid == fake.ipc.pid;
	for (i = 0; i < n->npids && !ok; i++)
		ok = n->pids[i] == fake.ipc.pid;
	if (!ok)
		return EPERM;
	err = new_dmabuf(&n->buf, im->flags & MEMREG_EXPORT_CLOEXEC, &im->fd);
	if (!err)
		im->len = n->buf.len;
	return err;
}

static int do_ipc_close(struct memreg_ipc_close *c, int fd)
{
	struct fake_name *n = find_name(c->token);

	if (!n || n->owner_fd != fd)
		return ENOENT;
	n->live = 0;
	fake.ipc.live_names--;
	return 0;
}

/*
 * The library's mmap of a dma-buf: the range of the memfd it stands for.
 * A revoked one (its allocation freed) is ENODEV, as the module's mmap.
 */
static void *fake_mmap(int fd, size_t len)
{
	const struct fake_dmabuf *b;
	void *p = MAP_FAILED;
	int err = 0;

	pthread_mutex_lock(&fake.lock);
	b = find_dmabuf(fd);
	if (!b)
		err = EINVAL;
	else if (!allocs[b->alloc].live)
		err = ENODEV;
	else if (len > b->len)
		err = EINVAL;
	if (!err) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 (off_t)b->base);
		if (p == MAP_FAILED)
			err = errno;
		else
			fake.ipc.maps++;
	}
	pthread_mutex_unlock(&fake.lock);
	if (err)
		errno = err;
	return p;
}

/*
 * The same at a chosen address (MAP_FIXED), from @offset into the
 * dma-buf; a range past its end is EINVAL, as the module's mmap.
 */
static void *fake_mmap_fixed(int fd, void *addr, size_t len, size_t offset)
{
	const struct fake_dmabuf *b;
	void *p = MAP_FAILED;
	int err = 0;

	pthread_mutex_lock(&fake.lock);
	b = find_dmabuf(fd);
	if (!b)
		err = EINVAL;
	else if (!allocs[b->alloc].live)
		err = ENODEV;
	else if (offset > b->len || len > b->len - offset)
		err = EINVAL;
	if (!err) {
		p = mmap(addr, len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, (off_t)(b->base + offset));
		if (p == MAP_FAILED)
			err = errno;
		else
			fake.ipc.maps++;
	}
	pthread_mutex_unlock(&fake.lock);
	if (err)
		errno = err;
	return p;
}

/* ---- MSTX ---- */

static unsigned int set_slot(uint32_t heap, uint64_t addr, int *found)
{
	unsigned int i = (unsigned int)((addr >> 6) * 2654435761u + heap) &
			 (SET_SIZE - 1);

	for (;; i = (i + 1) & (SET_SIZE - 1)) {
		if (!set[i].used) {
			*found = 0;
			return i;
		}
		if (set[i].used > 0 && set[i].heap == heap &&
		    set[i].addr == addr) {
			*found = 1;
			return i;
		}
	}
}

static void mstx_apply_region(uint16_t code, const struct memreg_mstx_op *op)
{
	unsigned int i;
	int found;

	if (code == MEMREG_MSTX_REGION_ADD) {
		i = set_slot(op->heap, op->addr, &found);
		if (!found) {
			set[i].used = 1;
			set[i].heap = op->heap;
			set[i].addr = op->addr;
			fake.mstx.live++;
		}
	} else if (code == MEMREG_MSTX_REGION_DEL) {
		i = set_slot(op->heap, op->addr, &found);
		if (found) {
			/* a tombstone keeps the probe chains intact */
			set[i].used = -1;
			fake.mstx.live--;
		} else {
			fake.mstx.early_dels++;
		}
	}
}

static void mstx_apply(const struct memreg_mstx_op *op)
{
	if (fake.mstx.nops < FAKE_MSTX_MAX_OPS)
		fake.mstx.ops[fake.mstx.nops] = *op;
	if (op->op == MEMREG_MSTX_HEAP_ADD && op->domain)
		strncpy(fake.mstx.domains[fake.mstx.nops % 64],
			(const char *)(uintptr_t)op->domain, 63);
	fake.mstx.nops++;
	switch (op->op) {
	case MEMREG_MSTX_HEAP_ADD:
		heap_live[op->heap & 0xffff] = 1;
		break;
	case MEMREG_MSTX_HEAP_DEL:
		heap_live[op->heap & 0xffff] = 0;
		break;
	case MEMREG_MSTX_REGION_ADD_DEL:
		fake.mstx.add_dels++;
		mstx_apply_region(MEMREG_MSTX_REGION_ADD, op);
		mstx_apply_region(MEMREG_MSTX_REGION_DEL, op);
		break;
	default:
		mstx_apply_region(op->op, op);
	}
}

/* What the module refuses before applying an operation. */
static int mstx_check(const struct memreg_mstx_op *op)
{
	if (op->op == MEMREG_MSTX_REGION_ADD_DEL && op->heap &&
	    !heap_live[op->heap & 0xffff])
		return ENOENT;
	return 0;
}

static int do_mstx(struct memreg_mstx *m)
{
	const struct memreg_mstx_op *ops = (const void *)(uintptr_t)m->ops;
	uint32_t i;
	int err;

	/* Allocated here: the other suites need no 1 Mi operations. */
	if (!fake.mstx.ops) {
		fake.mstx.ops = calloc(FAKE_MSTX_MAX_OPS,
				       sizeof(*fake.mstx.ops));
		set = calloc(SET_SIZE, sizeof(*set));
		if (!fake.mstx.ops || !set)
			abort();
	}
	for (i = 0; i < m->count; i++) {
		if (fake.fail_errno[FAKE_MSTX] &&
		    i == fake.fail_at[FAKE_MSTX]) {
			m->done = i;
			err = fake.fail_errno[FAKE_MSTX];
			fake.fail_errno[FAKE_MSTX] = 0;
			return err;
		}
		err = mstx_check(&ops[i]);
		if (err) {
			m->done = i;
			return err;
		}
		mstx_apply(&ops[i]);
	}
	m->done = m->count;
	return 0;
}

/* ---- the process's tables, under fake.lock ---- */

static int dispatch(int cmd, void *arg, int fd)
{
	switch (cmd) {
	case FAKE_INFO:
		return do_info(arg);
	case FAKE_REGISTER:
		return do_register(arg);
	case FAKE_UNREGISTER:
		return do_unregister(arg);
	case FAKE_QUERY:
		return do_query(arg);
	case FAKE_DEV_ALLOC:
		return do_dev_alloc(arg);
	case FAKE_DEV_FREE:
		return do_dev_free(arg);
	case FAKE_DEV_INFO:
		return do_dev_info(arg);
	case FAKE_HEADROOM:
		return do_headroom(arg);
	case FAKE_GRANT:
		return do_grant(arg);
	case FAKE_IMPORT:
		return do_import(arg);
	case FAKE_TRANSFER:
		return do_transfer(arg);
	case FAKE_MSTX:
		return do_mstx(arg);
	case FAKE_DEV_EXPORT:
		return do_dev_export(arg);
	case FAKE_REG_EXPORT:
		return do_reg_export(arg);
	case FAKE_IPC_EXPORT:
		return do_ipc_export(arg, fd);
	case FAKE_IPC_ALLOW:
		return do_ipc_allow(arg, fd);
	case FAKE_IPC_IMPORT:
		return do_ipc_import(arg);
	case FAKE_IPC_CLOSE:
		return do_ipc_close(arg, fd);
	default:
		return 0;	/* REVOKE, UNIMPORT: no test looks */
	}
}

/* A batch fails at one of its operations, in dispatch(); the rest at once. */
static int batched(int cmd)
{
	return cmd == FAKE_TRANSFER || cmd == FAKE_MSTX;
}

static int shared_ioctl(int cmd, unsigned long request, int fd, void *arg)
{
	struct fake_call *call;
	size_t len = _IOC_SIZE(request);
	int err = 0;

	pthread_mutex_lock(&fake.lock);
	fake.calls[cmd]++;
	call = &fake.last[cmd];
	call->request = request;
	call->fd = fd;
	if (len > sizeof(call->bytes))
		len = sizeof(call->bytes);
	memcpy(call->bytes, arg, len);
	if (cmd == FAKE_QUERY &&
	    fake.nr_queries < sizeof(fake.queries) / sizeof(fake.queries[0]))
		fake.queries[fake.nr_queries++] = *call;

	if (!batched(cmd)) {
		err = fake.fail_errno[cmd];
		fake.fail_errno[cmd] = 0;
	}
	if (!err)
		err = check(cmd, arg);
	if (!err)
		err = dispatch(cmd, arg, fd);
	pthread_mutex_unlock(&fake.lock);
	return err ? fail(err) : 0;
}

/* ---- one registration table per thread, no lock ---- */

#define TLS_MAX_LIVE	64

static __thread struct {
	uint64_t id;
	uint64_t seq;
	unsigned long calls[FAKE_NR_CMDS];
	unsigned int nr_live;
	struct memreg_region live[TLS_MAX_LIVE];
} tls;

void fake_thread_init(unsigned int id)
{
	memset(&tls, 0, sizeof(tls));
	tls.id = id;
}

unsigned long fake_thread_calls(enum fake_cmd cmd)
{
	return tls.calls[cmd];
}

uint64_t fake_thread_live(void)
{
	return tls.nr_live;
}

static int thread_ioctl(int cmd, void *arg)
{
	struct memreg_info *k = arg;
	struct memreg_register *r = arg;
	struct memreg_unregister *u = arg;
	struct memreg_query *q = arg;
	struct memreg_region *out;
	unsigned int i, n;
	__u32 size;
	int err;

	tls.calls[cmd]++;
	err = check(cmd, arg);
	if (err)
		return fail(err);

	switch (cmd) {
	case FAKE_INFO:
		/* fake.info is written before the threads start, then read. */
		size = k->size;
		*k = fake.info;
		k->size = size;
		k->regions = tls.nr_live;
		return 0;
	case FAKE_REGISTER:
		if (tls.nr_live == TLS_MAX_LIVE)
			return fail(EMFILE);
		r->handle = (tls.id + 1) << 40 | ++tls.seq;
		fill_region(&tls.live[tls.nr_live++], r->handle, r);
		return 0;
	case FAKE_UNREGISTER:
		for (i = 0; i < tls.nr_live; i++) {
			if (tls.live[i].handle == u->handle) {
				tls.live[i] = tls.live[--tls.nr_live];
				return 0;
			}
		}
		return fail(ENOENT);
	default:
		/* The cursor is an index into the thread's table. */
		out = (struct memreg_region *)(uintptr_t)q->regions;
		for (n = 0; n < q->count && q->cursor < tls.nr_live; n++)
			out[n] = tls.live[q->cursor++];
		q->count = n;
		q->total = tls.nr_live;
		return 0;
	}
}

/* ---- the hook ---- */

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	static const unsigned long requests[FAKE_NR_CMDS] = {
		[FAKE_INFO] = MEMREG_IOC_INFO,
		[FAKE_REGISTER] = MEMREG_IOC_REGISTER,
		[FAKE_UNREGISTER] = MEMREG_IOC_UNREGISTER,
		[FAKE_QUERY] = MEMREG_IOC_QUERY,
		[FAKE_DEV_ALLOC] = MEMREG_IOC_DEV_ALLOC,
		[FAKE_DEV_FREE] = MEMREG_IOC_DEV_FREE,
		[FAKE_DEV_INFO] = MEMREG_IOC_DEV_INFO,
		[FAKE_GRANT] = MEMREG_IOC_GRANT,
		[FAKE_REVOKE] = MEMREG_IOC_REVOKE,
		[FAKE_IMPORT] = MEMREG_IOC_IMPORT,
		[FAKE_UNIMPORT] = MEMREG_IOC_UNIMPORT,
		[FAKE_TRANSFER] = MEMREG_IOC_TRANSFER,
		[FAKE_MSTX] = MEMREG_IOC_MSTX,
		[FAKE_DEV_EXPORT] = MEMREG_IOC_DEV_EXPORT,
		[FAKE_IPC_EXPORT] = MEMREG_IOC_IPC_EXPORT,
		[FAKE_IPC_ALLOW] = MEMREG_IOC_IPC_ALLOW,
		[FAKE_IPC_IMPORT] = MEMREG_IOC_IPC_IMPORT,
		[FAKE_IPC_CLOSE] = MEMREG_IOC_IPC_CLOSE,
		[FAKE_HEADROOM] = MEMREG_IOC_HEADROOM,
		[FAKE_REG_EXPORT] = MEMREG_IOC_REG_EXPORT,
	};
	int cmd;

	for (cmd = 0; cmd < FAKE_NR_CMDS; cmd++)
		if (requests[cmd] == request)
			break;
	if (cmd == FAKE_NR_CMDS || fd < 0)
		return fail(fd < 0 ? EBADF : ENOTTY);

	if (fake.per_thread && cmd <= FAKE_QUERY)
		return thread_ioctl(cmd, arg);
	return shared_ioctl(cmd, request, fd, arg);
}

/* ---- setup, for the tests ---- */

/* Free the tables, close the memory; the hook and fake.info stay. */
static void release(void)
{
	free(fake.regions);
	fake.regions = NULL;
	free(fake.mstx.ops);
	fake.mstx.ops = NULL;
	free(set);
	set = NULL;
	if (memfd >= 0)
		close(memfd);
	memfd = -1;
}

int fake_kernel_setup(void)
{
	static const __u8 id[16] = { 0x6d, 0x65, 0x6d, 0x72, 0x65, 0x67, 0x21,
				     0x00, 0xff, 0x10, 0x20, 0x30, 0x40, 0x50,
				     0x60, 0x70 };

	/* Set up twice without a teardown (a test that starts over): fine. */
	release();
	memset(&fake, 0, sizeof(fake));
	pthread_mutex_init(&fake.lock, NULL);
	memset(allocs, 0, sizeof(allocs));
	nr_allocs = 0;
	next_offset = 0;
	memset(dmabufs, 0, sizeof(dmabufs));
	nr_dmabufs = 0;
	memset(names, 0, sizeof(names));
	nr_names = 0;
	memset(heap_live, 0, sizeof(heap_live));

	/* A module with every feature the fake answers for. */
	fake.info.abi_version = MEMREG_ABI_VERSION;
	fake.info.features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_DEVICE |
			     MEMREG_FEATURE_QUERY | MEMREG_FEATURE_NETLINK |
			     MEMREG_FEATURE_MSTX | MEMREG_FEATURE_TRANSFER |
			     MEMREG_FEATURE_DMABUF;
	fake.info.page_size = 4096;
	memcpy(fake.info.instance_id, id, sizeof(id));
	fake.info.max_regions = 256;
	fake.info.max_host_bytes = 20ULL << 30;
	fake.info.max_dev_bytes = 50ULL << 30;
	fake.info.memlock_limit = MEMREG_UNLIMITED;
	fake.info.host_bytes = 12345;
	fake.info.dev_bytes = 67890;
	fake.info.devices = FAKE_DEVICES;
	fake.info.dev_capacity = FAKE_CAPACITY;

	memfd = memfd_create("fake-memreg", MFD_CLOEXEC);
	if (memfd < 0)
		return -1;
	/* The library opens the path itself: the memfd's /proc name. */
	snprintf(memfd_path, sizeof(memfd_path), "/proc/self/fd/%d", memfd);
	if (setenv("MEMREG_DEVICE", memfd_path, 1))
		return -1;
	fake.ipc.pid = getpid();
	memreg__test_ioctl = fake_ioctl;
	memreg__test_mmap = fake_mmap;
	memreg__test_mmap_fixed = fake_mmap_fixed;
	return 0;
}

void fake_kernel_forget(void)
{
	pthread_mutex_lock(&fake.lock);
	memset(fake.fail_errno, 0, sizeof(fake.fail_errno));
	memset(fake.calls, 0, sizeof(fake.calls));
	memset(fake.last, 0, sizeof(fake.last));
	fake.nr_queries = 0;
	fake.mstx.nops = 0;
	fake.mstx.early_dels = 0;
	fake.mstx.live = 0;
	fake.mstx.add_dels = 0;
	if (set)
		memset(set, 0, SET_SIZE * sizeof(*set));
	pthread_mutex_unlock(&fake.lock);
}

void fake_kernel_teardown(void)
{
	const char *dev = getenv("MEMREG_DEVICE");

	memreg__test_ioctl = NULL;
	memreg__test_mmap = NULL;
	memreg__test_mmap_fixed = NULL;
	/*
	 * The memfd's number is free for the next file this process opens:
	 * a context opened after this must not find that file instead.
	 */
	if (dev && !strcmp(dev, memfd_path))
		setenv("MEMREG_DEVICE", "/nonexistent/memreg", 1);
	release();
	pthread_mutex_destroy(&fake.lock);
	memset(&fake, 0, sizeof(fake));
}

void fake_set_instance(uint8_t b)
{
	pthread_mutex_lock(&fake.lock);
	memset(fake.info.instance_id, b, sizeof(fake.info.instance_id));
	pthread_mutex_unlock(&fake.lock);
}

unsigned long fake_calls(enum fake_cmd cmd)
{
	unsigned long n;

	pthread_mutex_lock(&fake.lock);
	n = fake.calls[cmd];
	pthread_mutex_unlock(&fake.lock);
	return n;
}

unsigned long fake_mstx_nops(void)
{
	unsigned long n;

	pthread_mutex_lock(&fake.lock);
	n = fake.mstx.nops;
	pthread_mutex_unlock(&fake.lock);
	return n;
}

struct memreg_mstx_op fake_mstx_op(unsigned long i)
{
	struct memreg_mstx_op op;

	pthread_mutex_lock(&fake.lock);
	op = fake.mstx.ops[i];
	pthread_mutex_unlock(&fake.lock);
	return op;
}
