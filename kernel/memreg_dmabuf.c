// SPDX-License-Identifier: GPL-2.0
/*
 * memreg - the dma-buf backend: registrations of memory another driver
 * owns, named by a dma-buf fd and a range of it (MEMREG_MEM_DMABUF).
 *
 * Attachment: a registration attaches only to exporters that can move
 * their memory (those with pin/unpin: GPU VRAM), always dynamically (with
 * move_notify), never pinned, and never maps the attachment.
 *  - Exporters that cannot move their memory (udmabuf, the dma-heaps)
 *    get no attachment: the registration's reference on the dma-buf keeps
 *    the memory where it is.  An attachment would cost the whole buffer's
 *    scatterlist (the dma-buf core maps a static exporter's buffer at
 *    attach time for a dynamic importer), per registration.
 *  - memreg's own exports get none either: the registration watches the
 *    export (memreg_export_watch()), which tells it when the exporting
 *    process frees the allocation or unregisters the host registration
 *    (DEV_FREE, UNREGISTER, close, exit), as move_notify would; a revoked export cannot be registered (ENODEV).  That is the
 *    revocation the tests exercise on every kernel.
 *  - Exporters that can move it are not pinned: a pin would keep VRAM
 *    from being evicted for as long as the registration lives, which is
 *    what RDMA accepts only for devices that cannot take a page fault
 *    (ib_umem_dmabuf_get_pinned).  memreg never needs the memory to stay
 *    put: its move_notify revokes the registration instead.
 *
 * CPU access: a registration costs the kernel a constant, whatever the
 * size of the buffer: no kernel mapping is kept for its lifetime.
 *  - memreg's own exports are pages memreg owns or pinned: copies reach
 *    them through the export's pages (memreg_export_page()), with no
 *    mapping at all.  A kept vmap of the whole buffer per registration
 *    let a 1-byte registration of a fresh 256 MiB export cost 0.5 MB of
 *    kernel page tables that x86-64 never gives back.
 *  - Other exporters' buffers are mapped per copy, through the
 *    exporter's kernel mapping (dma_buf_vmap, which the dma-buf core
 *    shares between the users of one buffer): taken when the first copy
 *    on the registration begins and given back when the last one ends,
 *    between begin_cpu_access and end_cpu_access.  So the kernel address
 *    space and page tables in use are bounded by the copies running, and
 *    each maps a buffer its creator was charged for in full by its
 *    exporter (memfd pages for udmabuf, the heap's pages).
 * An importer must not look at the pages of a mapped sg_table (the
 * dma-buf core mangles them under CONFIG_DMABUF_DEBUG), so an exporter
 * without a vmap (udmabuf before 6.x, I/O memory) gives none: such a
 * registration is still made, charged and listed, but TRANSFER refuses
 * it (EOPNOTSUPP).  Attach tries one vmap to tell, and gives it back.
 *
 * Revocation against copies: a copy is prepared first (the exporter's
 * begin_cpu_access, and the kernel mapping of another exporter's buffer:
 * both may take the buffer's reservation lock), once for as long as a
 * TRANSFER call keeps using the registration, then counted in the
 * registration's copies_inflight around each descriptor, which checks
 * reg->revoked (and again before every page).  Revocation sets revoked,
 * then waits until no copy is counted.  Each side looks after a full
 * barrier, so either the copy sees revoked or the revocation sees the copy
 * and waits for it: once it returns no copy touches the memory, and a copy
 * in flight ends with EKEYREVOKED, never with bytes read after the move.
 * A counter, not a lock: a transfer between two dma-bufs counts itself in
 * both, and with a rwsem two revocations and two such transfers the other
 * way round would deadlock (readers queue behind a waiting writer).  No
 * copy waits for a lock while it is counted on either side: both sides
 * are prepared before either is counted, and move_notify runs with the
 * reservation lock held.
 *
 * The charge is against the process's device byte limit (limit_type),
 * not RLIMIT_MEMLOCK: memreg pins nothing of the process's own memory.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <linux/vmalloc.h>
#include <net/netlink.h>
#include "memreg_internal.h"
#include "memreg_compat.h"

/* A registration of a dma-buf range; reg->addr is the offset into it. */
struct memreg_dmabuf_reg {
	struct memreg_reg reg;
	struct dma_buf *dmabuf;			/* referenced */
	struct dma_buf_attachment *attach;	/* only for dynamic exporters */
	bool own_export;			/* memreg's: pages, no map */
	struct list_head watch_node;		/* in the export's watchers */
	bool cpu_access;			/* copies may reach it */
	atomic_t copies_inflight;		/* see the revocation above */
	/* another exporter's buffer: its kernel mapping, while copies run */
	struct mutex map_lock;
	unsigned int map_users;
	struct iosys_map map;
	/* copied at attach: the dumps read them under RCU only */
	char exporter[32];
	u64 size;
	u64 ino;
};

static struct memreg_dmabuf_reg *to_dmabuf_reg(const struct memreg_reg *reg)
{
	return container_of(reg, struct memreg_dmabuf_reg, reg);
}

/*
 * The exporter moves or takes back the memory.  From now on no copy may
 * touch it: wait for those under way, which stop at their next page.
 */
static void memreg_dmabuf_revoke(struct memreg_dmabuf_reg *dreg)
{
	if (READ_ONCE(dreg->reg.revoked))
		return;
	WRITE_ONCE(dreg->reg.revoked, true);
	smp_mb();	/* pairs with memreg_dmabuf_copy_begin() */
	/* the copies under way see it at their next page: wait for them */
	wait_var_event(&dreg->copies_inflight,
		       !atomic_read(&dreg->copies_inflight));
	pr_debug("memreg: registration %u of dma-buf %llu revoked by %s\n",
		 dreg->reg.id, dreg->ino, dreg->exporter);
}

/* Another driver's (it holds the buffer's reservation lock). */
static void memreg_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	memreg_dmabuf_revoke(attach->importer_priv);
}

/* memreg's own export (memreg_export_revoke()). */
void memreg_dmabuf_revoke_watcher(struct list_head *node)
{
	memreg_dmabuf_revoke(container_of(node, struct memreg_dmabuf_reg,
					  watch_node));
}

static const struct dma_buf_attach_ops memreg_dmabuf_attach_ops = {
	.allow_peer2peer = false,
	.move_notify = memreg_dmabuf_move_notify,
};

/*
 * Can copies reach another exporter's buffer?  Only through a kernel
 * mapping in RAM: try one and give it back at once.
 */
static bool memreg_dmabuf_probe_vmap(struct dma_buf *dmabuf)
{
	struct iosys_map map;
	bool ok;

	if (memreg_dma_buf_vmap(dmabuf, &map))
		return false;
	ok = !map.is_iomem;
	memreg_dma_buf_vunmap(dmabuf, &map);
	return ok;
}

static int memreg_dmabuf_attach(struct memreg_reg *reg,
				const struct memreg_register *req, u64 first,
				unsigned long npages)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);
	struct dma_buf *dmabuf;
	int err;

	atomic_set(&dreg->copies_inflight, 0);
	mutex_init(&dreg->map_lock);
	/* EBADF: not an open fd; EINVAL: not a dma-buf */
	dmabuf = dma_buf_get(req->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	if (!memreg_range_inside(0, dmabuf->size, reg->addr, reg->len)) {
		err = -ERANGE;
		goto put;
	}
	/* a file no descriptor counts: the user's (memreg_user.c) */
	err = memreg_user_charge_file(reg->ctx->user);
	if (err)
		goto put;
	dreg->dmabuf = dmabuf;
	INIT_LIST_HEAD(&dreg->watch_node);
	dreg->own_export = memreg_export_owns(dmabuf);
	if (dreg->own_export) {
		/* ENODEV: its allocation was freed already */
		err = memreg_export_watch(dmabuf, &dreg->watch_node);
		if (err)
			goto uncharge;
	} else if (dma_buf_is_dynamic(dmabuf)) {
		dreg->attach = dma_buf_dynamic_attach(dmabuf,
						      memreg_dma_device(),
						      &memreg_dmabuf_attach_ops,
						      dreg);
		if (IS_ERR(dreg->attach)) {
			err = PTR_ERR(dreg->attach);
			dreg->attach = NULL;
			goto uncharge;
		}
	}
	dreg->cpu_access = dreg->own_export ||
			   memreg_dmabuf_probe_vmap(dmabuf);
	strscpy(dreg->exporter, dmabuf->exp_name ? dmabuf->exp_name : "?",
		sizeof(dreg->exporter));
	dreg->size = dmabuf->size;
	dreg->ino = file_inode(dmabuf->file)->i_ino;
	/* memreg pins nothing itself: the exporter holds the memory */
	reg->pinned_pages = 0;
	return 0;

uncharge:
	memreg_user_uncharge_file(reg->ctx->user);
put:
	dreg->dmabuf = NULL;
	dma_buf_put(dmabuf);
	return err;
}

static void memreg_dmabuf_release(struct memreg_reg *reg)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);

	/* no copy runs: the mapping went with the last one */
	WARN_ON_ONCE(dreg->map_users);
	dreg->cpu_access = false;
	if (dreg->own_export)
		memreg_export_unwatch(dreg->dmabuf, &dreg->watch_node);
	if (dreg->attach)
		dma_buf_detach(dreg->dmabuf, dreg->attach);
	dma_buf_put(dreg->dmabuf);
	dreg->dmabuf = NULL;
	memreg_user_uncharge_file(reg->ctx->user);
	mutex_destroy(&dreg->map_lock);
}

static struct page *memreg_dmabuf_page_at(const struct memreg_reg *reg,
					  u64 addr, unsigned int *off)
{
	const struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);
	void *p;

	if (dreg->own_export) {
		*off = offset_in_page(addr);
		return memreg_export_page(dreg->dmabuf, addr >> PAGE_SHIFT);
	}
	p = dreg->map.vaddr + addr;
	*off = offset_in_page(p);
	/* vmap()ed pages, or a buffer in the direct map */
	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

/* Another exporter's kernel mapping, for one more copy. */
static int memreg_dmabuf_map_get(struct memreg_dmabuf_reg *dreg)
{
	int err = 0;

	mutex_lock(&dreg->map_lock);
	if (!dreg->map_users) {
		err = memreg_dma_buf_vmap(dreg->dmabuf, &dreg->map);
		/* moved to I/O memory since attach: no CPU copy */
		if (!err && dreg->map.is_iomem) {
			memreg_dma_buf_vunmap(dreg->dmabuf, &dreg->map);
			err = -EOPNOTSUPP;
		}
	}
	if (!err)
		dreg->map_users++;
	mutex_unlock(&dreg->map_lock);
	return err;
}

/* One copy less; the last gives the mapping back. */
static void memreg_dmabuf_map_put(struct memreg_dmabuf_reg *dreg)
{
	mutex_lock(&dreg->map_lock);
	if (!--dreg->map_users)
		memreg_dma_buf_vunmap(dreg->dmabuf, &dreg->map);
	mutex_unlock(&dreg->map_lock);
}

/*
 * Copies are about to use the registration (a TRANSFER call took it):
 * the exporter's CPU access, and another exporter's kernel mapping.
 * Either may take the reservation lock: nothing is counted yet.
 */
static int memreg_dmabuf_copy_prepare(struct memreg_reg *reg)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);
	int err;

	if (!dreg->cpu_access)
		return -EOPNOTSUPP;
	err = dma_buf_begin_cpu_access(dreg->dmabuf, DMA_BIDIRECTIONAL);
	if (err)
		return err;
	if (!dreg->own_export) {
		err = memreg_dmabuf_map_get(dreg);
		if (err)
			dma_buf_end_cpu_access(dreg->dmabuf, DMA_BIDIRECTIONAL);
	}
	return err;
}

static void memreg_dmabuf_copy_finish(struct memreg_reg *reg)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);

	if (!dreg->own_export)
		memreg_dmabuf_map_put(dreg);
	dma_buf_end_cpu_access(dreg->dmabuf, DMA_BIDIRECTIONAL);
}

static void memreg_dmabuf_copy_end(struct memreg_reg *reg)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);

	if (atomic_dec_and_test(&dreg->copies_inflight))
		wake_up_var(&dreg->copies_inflight);
}

/* One copy (a descriptor) begins: counted, unless revoked. */
static int memreg_dmabuf_copy_begin(struct memreg_reg *reg)
{
	struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);

	if (READ_ONCE(reg->revoked))
		return -EKEYREVOKED;
	atomic_inc(&dreg->copies_inflight);
	smp_mb__after_atomic();	/* pairs with memreg_dmabuf_revoke() */
	if (READ_ONCE(reg->revoked)) {
		memreg_dmabuf_copy_end(reg);
		return -EKEYREVOKED;
	}
	return 0;
}

static int memreg_dmabuf_fill_nl(struct sk_buff *skb,
				 const struct memreg_reg *reg)
{
	const struct memreg_dmabuf_reg *dreg = to_dmabuf_reg(reg);

	if (nla_put_string(skb, MEMREG_A_EXPORTER, dreg->exporter) ||
	    nla_put_u64_64bit(skb, MEMREG_A_DMABUF_SIZE, dreg->size,
			      MEMREG_A_PAD) ||
	    nla_put_u64_64bit(skb, MEMREG_A_DMABUF_INO, dreg->ino,
			      MEMREG_A_PAD))
		return -EMSGSIZE;
	if (READ_ONCE(reg->revoked) && nla_put_flag(skb, MEMREG_A_REVOKED))
		return -EMSGSIZE;
	if (!dreg->cpu_access && nla_put_flag(skb, MEMREG_A_NO_CPU_ACCESS))
		return -EMSGSIZE;
	return 0;
}

const struct memreg_mem_ops memreg_dmabuf_mem_ops = {
	.name			= "dmabuf",
	.reg_size		= sizeof(struct memreg_dmabuf_reg),
	.limit_type		= MEMREG_MEM_DEVICE,
	.fd_backed		= true,
	.over_limit		= MEMREG_REFUSED_DEV_BYTES,
	.over_limit_errno	= -ENOSPC,
	.attach			= memreg_dmabuf_attach,
	.release		= memreg_dmabuf_release,
	.page_at		= memreg_dmabuf_page_at,
	.copy_prepare		= memreg_dmabuf_copy_prepare,
	.copy_finish		= memreg_dmabuf_copy_finish,
	.copy_begin		= memreg_dmabuf_copy_begin,
	.copy_end		= memreg_dmabuf_copy_end,
	.fill_nl		= memreg_dmabuf_fill_nl,
	.nl_bytes		= MEMREG_A_DMABUF_BYTES,
	.nl_peak_bytes		= MEMREG_A_PEAK_DMABUF_BYTES,
};
