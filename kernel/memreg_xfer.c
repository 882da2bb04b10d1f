// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - MEMREG_IOC_TRANSFER: batched single copies between a
 * registration of the caller and an imported registration of a peer.
 *
 * Both sides are pages memreg already holds (pinned host pages, or the
 * device allocation's pages), so a copy takes neither the mmap lock nor a
 * pin: it looks the two registrations up under RCU, takes a reference on
 * each (unregister and exit then wait for nothing but the last put), and
 * copies page by page through the kernel's direct map.  Consecutive
 * descriptors naming the same handles reuse the references, and what the
 * backends prepared for copies (a dma-buf's CPU access and kernel
 * mapping: copy_prepare), which costs as much for one byte as for the
 * whole buffer.
 */
#include <linux/errno.h>
#include <linux/highmem.h>
#include <linux/kasan-checks.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "memreg_internal.h"

/* Descriptors copied in from user space at a time. */
#define MEMREG_XFER_CHUNK	64
/* Batches this small are copied onto the stack (4 x 48 bytes). */
#define MEMREG_XFER_ONSTACK	4

/* Copy bytes between pages at most this many pages between checks. */
#define MEMREG_XFER_RESCHED	256

struct memreg_xfer_state {
	struct memreg_file *mf;
	u64 lhandle;			/* handle of lreg */
	struct memreg_reg *lreg;	/* referenced */
	u64 rhandle;			/* import handle of rreg */
	struct memreg_reg *rreg;	/* referenced */
	struct memreg_grant_obj *grant;	/* referenced, rreg's grant */
	u64 bytes;
	u64 read_bytes;
	u64 write_bytes;
};

/* @reg joins the call: what its backend needs for copies, once. */
static int memreg_xfer_prepare(struct memreg_reg *reg)
{
	return reg->ops->copy_prepare ? reg->ops->copy_prepare(reg) : 0;
}

static void memreg_xfer_finish(struct memreg_reg *reg)
{
	if (reg->ops->copy_finish)
		reg->ops->copy_finish(reg);
}

static void memreg_xfer_drop_local(struct memreg_xfer_state *st)
{
	if (st->lreg) {
		memreg_xfer_finish(st->lreg);
		memreg_reg_put(st->lreg);
	}
	st->lreg = NULL;
}

static void memreg_xfer_drop_remote(struct memreg_xfer_state *st)
{
	if (st->rreg) {
		memreg_xfer_finish(st->rreg);
		memreg_reg_put(st->rreg);
		memreg_grant_put(st->grant);
	}
	st->rreg = NULL;
}

static bool memreg_xfer_inside(const struct memreg_reg *reg, u64 addr,
			       u64 len)
{
	return memreg_range_inside(reg->addr, reg->len, addr, len);
}

/*
 * 8 bytes at any alignment: a constant-size __builtin_memcpy() is one
 * move.  Macros, not inline functions: an instrumented helper would not
 * be inlined into the uninstrumented copy below.
 */
#define MEMREG_XFER_LD(p) \
	({ u64 __v; __builtin_memcpy(&__v, (p), sizeof(__v)); __v; })
#define MEMREG_XFER_ST(p, v) \
	do { u64 __v = (v); __builtin_memcpy((p), &__v, sizeof(__v)); } while (0)

/*
 * Copy @n bytes in blocks of 64, each read into registers before any of
 * it is written, rather than with copy_page() or memcpy().
 *
 * qemu's TCG, where this module's tests and benchmarks run, keeps a
 * direct-mapped software TLB indexed by page number (a few hundred
 * entries and up, resized as the guest runs).  Two pages whose kernel
 * addresses are a multiple of its size apart share one slot, and buffers
 * the page allocator fills one after the other often sit 2, 64 or
 * 128 MiB apart.  Then each access to the other page swaps the two
 * through qemu's victim TLB under a lock, and x86's copy_page() (rep
 * movsq) changes page every 8 bytes, memcpy() (rep movsb) every byte: a
 * 4 KiB page took 8 us instead of 1, most of it in those swaps
 * (issue 32).  Blocks of 64 bytes change page 128 times a page, not
 * 1024, whatever the two pages' distance.  On hardware a loop like this
 * is what x86 itself uses where rep movs is slow (copy_page_regs).
 *
 * KASAN checks the two ranges once, here, and not each 8-byte move (the
 * debug kernel's instrumentation made every move a call); copy_page(),
 * assembly, was not checked at all.
 */
static __no_sanitize_address void memreg_xfer_copy_bytes(void *to,
							 const void *from,
							 size_t n)
{
	const u8 *s = from;
	u8 *d = to;

	kasan_check_read(from, n);
	kasan_check_write(to, n);
	for (; n >= 64; n -= 64, s += 64, d += 64) {
		u64 a = MEMREG_XFER_LD(s);
		u64 b = MEMREG_XFER_LD(s + 8);
		u64 c = MEMREG_XFER_LD(s + 16);
		u64 e = MEMREG_XFER_LD(s + 24);
		u64 f = MEMREG_XFER_LD(s + 32);
		u64 g = MEMREG_XFER_LD(s + 40);
		u64 h = MEMREG_XFER_LD(s + 48);
		u64 k = MEMREG_XFER_LD(s + 56);

		/* all eight loads before the first store, never one memcpy() */
		barrier();
		MEMREG_XFER_ST(d, a);
		MEMREG_XFER_ST(d + 8, b);
		MEMREG_XFER_ST(d + 16, c);
		MEMREG_XFER_ST(d + 24, e);
		MEMREG_XFER_ST(d + 32, f);
		MEMREG_XFER_ST(d + 40, g);
		MEMREG_XFER_ST(d + 48, h);
		MEMREG_XFER_ST(d + 56, k);
		barrier();
	}
	if (n)
		memcpy(d, s, n);
}

static int memreg_xfer_copy(struct memreg_reg *dst, u64 daddr,
			    struct memreg_reg *src, u64 saddr, u64 len)
{
	unsigned int soff, doff, n, pages = 0;
	struct page *sp, *dp;
	void *s, *d;

	while (len) {
		/* an exporter took the memory back: not one byte more */
		if (READ_ONCE(src->revoked) || READ_ONCE(dst->revoked))
			return -EKEYREVOKED;
		sp = src->ops->page_at(src, saddr, &soff);
		dp = dst->ops->page_at(dst, daddr, &doff);
		n = min_t(u64, len, PAGE_SIZE - max(soff, doff));
		s = kmap_local_page(sp);
		d = kmap_local_page(dp);
		memreg_xfer_copy_bytes(d + doff, s + soff, n);
		kunmap_local(d);
		kunmap_local(s);
		saddr += n;
		daddr += n;
		len -= n;
		if (++pages == MEMREG_XFER_RESCHED) {
			pages = 0;
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/*
 * Copy with both sides' backends told (a dma-buf's revocation), @dst
 * written.  Both were prepared when the call took them, so neither begin
 * takes a lock while the other side is counted.  A process may import its
 * own grant: then both sides are one registration, told once.
 */
static int memreg_xfer_copy_between(struct memreg_reg *dst, u64 daddr,
				    struct memreg_reg *src, u64 saddr,
				    u64 len)
{
	bool tell_src = src->ops->copy_begin && src != dst;
	int err;

	if (tell_src) {
		err = src->ops->copy_begin(src);
		if (err)
			return err;
	}
	if (dst->ops->copy_begin) {
		err = dst->ops->copy_begin(dst);
		if (err)
			goto end_src;
	}
	err = memreg_xfer_copy(dst, daddr, src, saddr, len);
	if (dst->ops->copy_end)
		dst->ops->copy_end(dst);
end_src:
	if (tell_src)
		src->ops->copy_end(src);
	return err;
}

static int memreg_xfer_one(struct memreg_xfer_state *st,
			   const struct memreg_xfer_desc *d)
{
	struct memreg_reg *reg;
	u32 need;
	int err;

	if (d->flags || !d->len ||
	    (d->op != MEMREG_XFER_READ && d->op != MEMREG_XFER_WRITE))
		return -EINVAL;
	if (fatal_signal_pending(current))
		return -EINTR;

	if (!st->lreg || st->lhandle != d->local_handle) {
		memreg_xfer_drop_local(st);
		reg = memreg_reg_get(st->mf, d->local_handle);
		if (!reg)
			return -ENOENT;
		err = memreg_xfer_prepare(reg);
		if (err) {
			memreg_reg_put(reg);
			return err;
		}
		st->lreg = reg;
		st->lhandle = d->local_handle;
	}
	if (!st->rreg || st->rhandle != d->remote_handle) {
		memreg_xfer_drop_remote(st);
		reg = memreg_import_get_reg(st->mf, d->remote_handle,
					    &st->grant);
		if (IS_ERR(reg))
			return PTR_ERR(reg);
		err = memreg_xfer_prepare(reg);
		if (err) {
			memreg_reg_put(reg);
			memreg_grant_put(st->grant);
			return err;
		}
		st->rreg = reg;
		st->rhandle = d->remote_handle;
	}
	/*
	 * revoked since the batch took its reference, or the memory's
	 * exporter revoked the registration: stop now
	 */
	if (!rcu_access_pointer(st->grant->reg))
		return memreg_grant_revoked_err(st->grant);
	if (READ_ONCE(st->rreg->revoked))
		return -EKEYREVOKED;

	need = d->op == MEMREG_XFER_READ ? MEMREG_ACCESS_REMOTE_READ :
					   MEMREG_ACCESS_REMOTE_WRITE;
	if (!(st->grant->access & need))
		return -EACCES;
	if (!memreg_xfer_inside(st->lreg, d->local_addr, d->len) ||
	    !memreg_xfer_inside(st->rreg, d->remote_addr, d->len))
		return -ERANGE;

	if (d->op == MEMREG_XFER_READ)
		err = memreg_xfer_copy_between(st->lreg, d->local_addr,
					       st->rreg, d->remote_addr,
					       d->len);
	else
		err = memreg_xfer_copy_between(st->rreg, d->remote_addr,
					       st->lreg, d->local_addr,
					       d->len);
	if (err)
		return err;
	st->bytes += d->len;
	if (d->op == MEMREG_XFER_READ)
		st->read_bytes += d->len;
	else
		st->write_bytes += d->len;
	return 0;
}

int memreg_xfer(struct memreg_file *mf, struct memreg_transfer *req)
{
	struct memreg_xfer_desc onstack[MEMREG_XFER_ONSTACK];
	struct memreg_xfer_state st = { .mf = mf };
	struct memreg_ctx *ctx = mf->ctx;
	struct memreg_xfer_desc *descs;
	u32 i, n, done = 0;
	int err = 0;

	req->done = 0;
	req->bytes = 0;
	if (req->reserved0 || !req->count ||
	    req->count > MEMREG_XFER_MAX_DESCS ||
	    req->desc_size < MEMREG_XFER_DESC_SIZE_VER0 ||
	    req->desc_size > PAGE_SIZE)
		return -EINVAL;

	/* the common small batch costs no allocation */
	if (req->count <= MEMREG_XFER_ONSTACK) {
		descs = onstack;
	} else {
		descs = kmalloc_array(MEMREG_XFER_CHUNK, sizeof(*descs),
				      GFP_KERNEL);
		if (!descs)
			return -ENOMEM;
	}
	while (done < req->count && !err) {
		n = min_t(u32, req->count - done, descs == onstack ?
			  MEMREG_XFER_ONSTACK : MEMREG_XFER_CHUNK);
		err = memreg_copy_array_in(descs, sizeof(*descs),
					   u64_to_user_ptr(req->descs),
					   req->desc_size, done, n);
		for (i = 0; i < n && !err; i++) {
			err = memreg_xfer_one(&st, &descs[i]);
			if (!err)
				done++;
			/* many small descriptors make a long call too */
			cond_resched();
		}
	}
	memreg_xfer_drop_local(&st);
	memreg_xfer_drop_remote(&st);
	if (descs != onstack)
		kfree(descs);

	atomic64_add(done, &ctx->xfer_descs);
	atomic64_add(st.read_bytes, &ctx->xfer_read_bytes);
	atomic64_add(st.write_bytes, &ctx->xfer_write_bytes);
	req->done = done;
	req->bytes = st.bytes;
	return err;
}
