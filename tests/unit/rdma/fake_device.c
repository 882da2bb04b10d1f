// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake libibverbs (fake_verbs.h): devices, their ports and GID
 * tables, contexts and protection domains.
 *
 * A GID entry is read with its type, as libibverbs 44 reads it from the
 * kernel (ibv_query_gid_ex, ibv_query_gid_table): "RoCE v2"; "IB/RoCE
 * v1", which is RoCE v1 on Ethernet and IB on InfiniBand; or, where the
 * kernel names no type (old kernels), what libibverbs then assumes,
 * "IB/RoCE v1".  An unused entry (no address) is no entry: ENODATA, and
 * left out of the table.  Devices' paths name nothing: nobody reads them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_int.h"

/* Per device: a link-local address and an IPv4 one, as rxe lists them. */
static const char *const link_local[FAKE_MAX_DEVICES] = {
	"fe80::1", "fe80::2", "fe80::3", "fe80::4"
};
static const char *const ipv4[FAKE_MAX_DEVICES] = {
	"::ffff:10.9.0.1", "::ffff:10.9.0.2", "::ffff:10.9.0.3",
	"::ffff:10.9.0.4"
};

void fv_device_defaults(struct fake_device *c, int n)
{
	struct fake_port *p = &c->ports[0];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "fake%d", n);
	c->transport = IBV_TRANSPORT_IB;
	/* rxe's */
	c->max_qp_wr = 16384;
	c->max_cqe = 32767;
	c->max_qp_rd_atom = 128;
	c->max_qp_init_rd_atom = 128;
	c->n_ports = 1;
	p->state = IBV_PORT_ACTIVE;
	p->link_layer = IBV_LINK_LAYER_ETHERNET;
	p->mtu = IBV_MTU_1024;
	p->max_msg_sz = 1U << 23;
	p->n_gids = 5;
	p->gids[0] = (struct fake_gid){ link_local[n], "IB/RoCE v1" };
	p->gids[1] = (struct fake_gid){ link_local[n], "RoCE v2" };
	p->gids[2] = (struct fake_gid){ ipv4[n], "IB/RoCE v1" };
	p->gids[3] = (struct fake_gid){ ipv4[n], "RoCE v2" };
	/* [4]: unused */
	c->ports[1] = *p;
}

struct fake_port *fv_port_of(struct fdev *d, uint8_t port)
{
	if (!port || port > d->cfg.n_ports || port > FAKE_MAX_PORTS)
		return NULL;
	return &d->cfg.ports[port - 1];
}

bool fv_port_gid(const struct fake_port *p, int index, union ibv_gid *g)
{
	memset(g, 0, sizeof(*g));
	if (index < 0 || index >= p->n_gids || index >= FAKE_MAX_GIDS ||
	    !p->gids[index].addr)
		return false;
	return inet_pton(AF_INET6, p->gids[index].addr, g->raw) == 1;
}

/* Under fv.lock: whether some port of some device has @g (RoCE's ARP). */
bool fv_gid_known(const union ibv_gid *g)
{
	union ibv_gid have;
	int i, p, k;

	for (i = 0; i < fv.n_devs; i++) {
		const struct fake_device *c = &fv.devs[i].cfg;

		for (p = 0; p < c->n_ports && p < FAKE_MAX_PORTS; p++)
			for (k = 0; k < c->ports[p].n_gids; k++)
				if (fv_port_gid(&c->ports[p], k, &have) &&
				    !memcmp(&have, g, sizeof(have)))
					return true;
	}
	return false;
}

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list;
	int i;

	pthread_mutex_lock(&fv.lock);
	if (fv.no_driver) {
		pthread_mutex_unlock(&fv.lock);
		/* What libibverbs says without /sys/class/infiniband_verbs. */
		errno = ENOSYS;
		return NULL;
	}
	list = calloc((size_t)fv.n_devs + 1, sizeof(*list));
	if (!list) {
		pthread_mutex_unlock(&fv.lock);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < fv.n_devs; i++) {
		struct fdev *d = &fv.devs[i];

		struct ibv_device dev = {
			.transport_type = d->cfg.transport,
		};

		snprintf(dev.name, sizeof(dev.name), "%s", d->cfg.name);
		snprintf(dev.dev_name, sizeof(dev.dev_name), "uverbs%d", i);
		snprintf(dev.dev_path, sizeof(dev.dev_path),
			 "/nonexistent/fake-verbs/uverbs%d", i);
		snprintf(dev.ibdev_path, sizeof(dev.ibdev_path),
			 "/nonexistent/fake-verbs/%s", d->cfg.name);
		d->dev = dev;
		d->dev.node_type = d->cfg.transport == IBV_TRANSPORT_IWARP ?
				   IBV_NODE_RNIC : IBV_NODE_CA;
		list[i] = &d->dev;
	}
	if (num)
		*num = fv.n_devs;
	pthread_mutex_unlock(&fv.lock);
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct fctx *c;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_OPEN_DEVICE);
	c = e ? NULL : calloc(1, sizeof(*c));
	if (!c) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	c->d = (struct fdev *)dev;
	c->ctx.device = dev;
	c->ctx.cmd_fd = -1;
	c->ctx.async_fd = -1;
	c->ctx.num_comp_vectors = 1;
	/* The data path is inline in verbs.h: it calls these. */
	c->ctx.ops.poll_cq = fv_poll_cq;
	c->ctx.ops.req_notify_cq = fv_req_notify_cq;
	c->ctx.ops.post_send = fv_post_send;
	c->ctx.ops.alloc_mw = fv_alloc_mw;
	c->ctx.ops.dealloc_mw = fv_dealloc_mw;
	fv.live[LIVE_CTX]++;
	pthread_mutex_unlock(&fv.lock);
	return &c->ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	struct fctx *c = (struct fctx *)ctx;

	pthread_mutex_lock(&fv.lock);
	if (c->children)
		fv_misuse_add("ibv_close_device(%s) with %u PDs, channels or CQs left",
				ctx->device->name, c->children);
	if (fv.live[LIVE_CTX])
		fv.live[LIVE_CTX]--;
	pthread_mutex_unlock(&fv.lock);
	free(c);
	return 0;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	const struct fake_device *c = &((struct fctx *)ctx)->d->cfg;

	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&fv.lock);
	snprintf(a->fw_ver, sizeof(a->fw_ver), "fake");
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 4096;
	a->max_qp = 1024;
	a->max_qp_wr = c->max_qp_wr;
	a->max_sge = 32;
	a->max_cq = 1024;
	a->max_cqe = c->max_cqe;
	a->max_mr = 1024;
	a->max_pd = 1024;
	a->max_qp_rd_atom = c->max_qp_rd_atom;
	a->max_qp_init_rd_atom = c->max_qp_init_rd_atom;
	a->phys_port_cnt = (uint8_t)c->n_ports;
	if (!c->no_windows) {
		a->max_mw = 1024;
		a->device_cap_flags |= IBV_DEVICE_MEM_WINDOW |
				       IBV_DEVICE_MEM_WINDOW_TYPE_2B;
	}
	pthread_mutex_unlock(&fv.lock);
	return 0;
}

/*
 * verbs.h's ibv_query_port() is an inline that calls this symbol for a
 * context without the extended ops (ours), with a whole struct
 * ibv_port_attr that it cleared; the compat type is never defined.
 */
#undef ibv_query_port
int ibv_query_port(struct ibv_context *ctx, uint8_t port,
		   struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)compat;
	struct fake_port *p;

	pthread_mutex_lock(&fv.lock);
	p = fv_port_of(((struct fctx *)ctx)->d, port);
	if (!p) {
		pthread_mutex_unlock(&fv.lock);
		return EINVAL;
	}
	a->state = p->state;
	a->max_mtu = IBV_MTU_4096;
	a->active_mtu = p->mtu;
	a->gid_tbl_len = p->n_gids;
	a->max_msg_sz = p->max_msg_sz;
	a->lid = p->lid;
	a->link_layer = p->link_layer;
	a->phys_state = p->state == IBV_PORT_ACTIVE ? 5 : 3;
	pthread_mutex_unlock(&fv.lock);
	return 0;
}

/* The strings libibverbs has for them. */
const char *ibv_port_state_str(enum ibv_port_state state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "no state change (NOP)",
		[IBV_PORT_DOWN] = "down",
		[IBV_PORT_INIT] = "init",
		[IBV_PORT_ARMED] = "armed",
		[IBV_PORT_ACTIVE] = "active",
		[IBV_PORT_ACTIVE_DEFER] = "active defer",
	};

	if ((unsigned int)state < sizeof(names) / sizeof(names[0]))
		return names[state];
	return "unknown";
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		  union ibv_gid *gid)
{
	struct fake_port *p;
	int ret = -1;

	pthread_mutex_lock(&fv.lock);
	p = fv_port_of(((struct fctx *)ctx)->d, port);
	if (p && index >= 0 && index < p->n_gids) {
		/* An unused entry reads as zeros. */
		fv_port_gid(p, index, gid);
		ret = 0;
	}
	pthread_mutex_unlock(&fv.lock);
	return ret;
}

/* Entry @index of port @p (under fv.lock): false if unused. */
static bool gid_entry(const struct fake_port *p, uint8_t port, int index,
		      struct ibv_gid_entry *e)
{
	static const union ibv_gid zero;
	const char *type = p->gids[index].type;

	memset(e, 0, sizeof(*e));
	if (!fv_port_gid(p, index, &e->gid) ||
	    !memcmp(&e->gid, &zero, sizeof(zero)))
		return false;
	e->gid_index = (uint32_t)index;
	e->port_num = port;
	if (type && !strcmp(type, "RoCE v2"))
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
	else if (p->link_layer == IBV_LINK_LAYER_ETHERNET)
		e->gid_type = IBV_GID_TYPE_ROCE_V1;
	else
		e->gid_type = IBV_GID_TYPE_IB;
	return true;
}

int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port,
		      uint32_t index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	struct fake_port *p;
	int ret = 0;

	if (flags || entry_size < sizeof(e))
		return EINVAL;
	pthread_mutex_lock(&fv.lock);
	p = port > 0xff ? NULL : fv_port_of(((struct fctx *)ctx)->d,
					    (uint8_t)port);
	if (!p || index >= (uint32_t)p->n_gids || index >= FAKE_MAX_GIDS)
		ret = EINVAL;
	else if (!gid_entry(p, (uint8_t)port, (int)index, &e))
		ret = ENODATA;
	else
		memcpy(entry, &e, sizeof(e));
	pthread_mutex_unlock(&fv.lock);
	return ret;
}

/* Every port's entries in use, port by port; -EINVAL if they do not fit. */
ssize_t _ibv_query_gid_table(struct ibv_context *ctx,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	struct fdev *d = ((struct fctx *)ctx)->d;
	struct ibv_gid_entry e;
	ssize_t n = 0;
	int port, k;

	if (flags || entry_size < sizeof(e) || !max_entries)
		return -EINVAL;
	pthread_mutex_lock(&fv.lock);
	for (port = 1; port <= d->cfg.n_ports && port <= FAKE_MAX_PORTS; port++) {
		const struct fake_port *p = fv_port_of(d, (uint8_t)port);

		for (k = 0; k < p->n_gids && k < FAKE_MAX_GIDS; k++) {
			if (!gid_entry(p, (uint8_t)port, k, &e))
				continue;
			if ((size_t)n == max_entries) {
				n = -EINVAL;
				goto out;
			}
			memcpy((char *)entries + (size_t)n * entry_size, &e,
			       sizeof(e));
			n++;
		}
	}
out:
	pthread_mutex_unlock(&fv.lock);
	return n;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct fpd *pd;
	int e;

	pthread_mutex_lock(&fv.lock);
	e = fv_failing(FAKE_ALLOC_PD);
	pd = e ? NULL : calloc(1, sizeof(*pd));
	if (!pd) {
		pthread_mutex_unlock(&fv.lock);
		errno = e ? e : ENOMEM;
		return NULL;
	}
	pd->pd.context = ctx;
	((struct fctx *)ctx)->children++;
	fv.live[LIVE_PD]++;
	pthread_mutex_unlock(&fv.lock);
	return &pd->pd;
}

int ibv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct fpd *pd = (struct fpd *)ibpd;

	pthread_mutex_lock(&fv.lock);
	if (pd->mrs || pd->qps) {
		fv_misuse_add("ibv_dealloc_pd with %u MRs and %u QPs on it",
				pd->mrs, pd->qps);
		pthread_mutex_unlock(&fv.lock);
		return EBUSY;
	}
	((struct fctx *)ibpd->context)->children--;
	if (fv.live[LIVE_PD])
		fv.live[LIVE_PD]--;
	pthread_mutex_unlock(&fv.lock);
	free(pd);
	return 0;
}
