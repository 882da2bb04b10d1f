// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * adxl-rdma.so: the RDMA transport of libmemreg's ADXL engine on
 * libibverbs (rdma_int.h says which file does what).  This file: which
 * device, port and GID an engine uses, its protection domain, and the
 * plugin's table of operations.
 *
 * The GID matters on RoCE: it is the address the peer's packets go to,
 * one per IP address of the network device and RoCE version.  Index 0 is
 * the link-local IPv6 address as RoCE v1 (Ethernet frames, one L2 segment
 * only), so unless told otherwise we take the RoCE v2 GID (UDP/IP,
 * routable) of an IPv4 address, which is what the control connection
 * reached the peer on, as perftest's -x does by hand.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rdma_int.h"

void rdmap_say(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, ADXL_PLUGIN_ERR_LEN, fmt, ap);
	va_end(ap);
}

/* Adds to a message rdmap_say() wrote (what else went wrong after it). */
void rdmap_append(char *err, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!err)
		return;
	used = strnlen(err, ADXL_PLUGIN_ERR_LEN - 1);
	va_start(ap, fmt);
	vsnprintf(err + used, ADXL_PLUGIN_ERR_LEN - used, fmt, ap);
	va_end(ap);
}

int64_t rdmap_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned int min_u(unsigned int a, int b)
{
	return b >= 0 && (unsigned int)b < a ? (unsigned int)b : a;
}

/* Adds "; " and a finding to @why, what open() says when no port is fit. */
static void why_add(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void why_add(char *why, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(why, len - 1);
	va_list ap;

	if (used)
		used += (size_t)snprintf(why + used, len - used, "; ");
	if (used >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(why + used, len - used, fmt, ap);
	va_end(ap);
}

/*
 * Opens @dev and takes its port @want (0: the first active one) into @r.
 * Else closes it again and adds to @why what it found.
 */
static bool try_device(struct adxl_plugin_ctx *r, struct ibv_device *dev,
		       unsigned int want, char *why, size_t whylen)
{
	const char *name = ibv_get_device_name(dev);
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_context *ctx;
	unsigned int p, last;

	/* Queue pairs connected by hand are InfiniBand's and RoCE's only. */
	if (dev->transport_type != IBV_TRANSPORT_IB) {
		why_add(why, whylen, "%s: not InfiniBand or RoCE (iWARP?)",
			name);
		return false;
	}
	ctx = ibv_open_device(dev);
	if (!ctx) {
		why_add(why, whylen, "%s: ibv_open_device: %s", name,
			strerror(errno));
		return false;
	}
	if (ibv_query_device(ctx, &da)) {
		why_add(why, whylen, "%s: ibv_query_device failed", name);
		ibv_close_device(ctx);
		return false;
	}
	if (want > da.phys_port_cnt) {
		why_add(why, whylen, "%s has no port %u (it has %u)", name,
			want, da.phys_port_cnt);
		ibv_close_device(ctx);
		return false;
	}
	last = want ? want : da.phys_port_cnt;
	for (p = want ? want : 1; p <= last; p++) {
		if (ibv_query_port(ctx, (uint8_t)p, &pa)) {
			why_add(why, whylen, "%s port %u: ibv_query_port failed",
				name, p);
			continue;
		}
		if (pa.state != IBV_PORT_ACTIVE) {
			why_add(why, whylen, "%s port %u: %s", name, p,
				ibv_port_state_str(pa.state));
			continue;
		}
		r->ctx = ctx;
		r->port = (uint8_t)p;
		r->link_layer = pa.link_layer;
		r->mtu = pa.active_mtu;
		r->lid = pa.lid;
		r->gid_tbl_len = pa.gid_tbl_len;
		if (pa.max_msg_sz && pa.max_msg_sz < r->chunk)
			r->chunk = pa.max_msg_sz;
		r->cqe = min_u(SQ_DEPTH + 1, da.max_cqe);
		r->sq_depth = min_u(SQ_DEPTH, da.max_qp_wr);
		/* One CQ entry per work request (the spare: max_recv_wr). */
		if (r->sq_depth >= r->cqe)
			r->sq_depth = r->cqe - 1;
		/*
		 * max_qp_init_rd_atom bounds READs we initiate, max_qp_rd_atom
		 * those we serve (ibv_query_device(3)).  A device without
		 * READ would refuse them; 1 keeps a READ from waiting forever.
		 */
		r->rd_atomic = min_u(RD_ATOMIC_MAX, da.max_qp_init_rd_atom);
		r->dest_rd_atomic = min_u(RD_ATOMIC_MAX, da.max_qp_rd_atom);
		if (!r->rd_atomic)
			r->rd_atomic = 1;
		if (!r->dest_rd_atomic)
			r->dest_rd_atomic = 1;
		if (r->sq_depth && r->cqe) {
			/* grant.c: a window per peer, where the device has them */
			if (!(da.max_mw > 0 && (da.device_cap_flags &
						IBV_DEVICE_MEM_WINDOW_TYPE_2B)))
				r->windows = false;
			return true;
		}
		why_add(why, whylen, "%s: max_qp_wr %d, max_cqe %d", name,
			da.max_qp_wr, da.max_cqe);
		r->ctx = NULL;
		break;
	}
	ibv_close_device(ctx);
	return false;
}

static bool gid_is_ipv4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static bool gid_is_zero(const union ibv_gid *g)
{
	static const uint8_t zero[16];

	return !memcmp(g->raw, zero, sizeof(zero));
}

/*
 * Entries of the whole device's GID table (every port's) that a query
 * may return: the sum of the ports' table sizes, 0 if unknown.
 */
static size_t gid_room(struct ibv_context *ctx)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	size_t room = 0;
	unsigned int p;

	if (ibv_query_device(ctx, &da))
		return 0;
	for (p = 1; p <= da.phys_port_cnt; p++)
		if (!ibv_query_port(ctx, (uint8_t)p, &pa))
			room += (size_t)pa.gid_tbl_len;
	return room;
}

/*
 * The one search of the GID table, at open (@ip NULL: any IPv4 address)
 * and per queue pair (the address the peer reaches us at): our port's
 * RoCE v2 GID of an IPv4 address, the lowest index if several.  The
 * table comes whole, with each entry's type, in one query (it changes
 * when addresses do, so it is asked again each time).
 */
int rdmap_gid_find(struct adxl_plugin_ctx *r, const uint8_t *ip,
		   struct ibv_gid_entry *out)
{
	struct ibv_gid_entry *t;
	int found = -1;
	ssize_t n, i;

	if (r->link_layer != IBV_LINK_LAYER_ETHERNET || !r->gid_room)
		return -1;
	t = calloc(r->gid_room, sizeof(*t));
	if (!t)
		return -1;
	n = ibv_query_gid_table(r->ctx, t, r->gid_room, 0);
	for (i = 0; i < n; i++) {
		if (t[i].port_num != r->port ||
		    t[i].gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    !gid_is_ipv4(&t[i].gid) ||
		    (ip && memcmp(t[i].gid.raw + 12, ip, 4)) ||
		    (found >= 0 && t[i].gid_index >= out->gid_index))
			continue;
		*out = t[i];
		found = (int)t[i].gid_index;
	}
	free(t);
	return found;
}

/* Entry @index of our port's table, if it is in use. */
static bool gid_at(struct adxl_plugin_ctx *r, long index,
		   struct ibv_gid_entry *out)
{
	return index >= 0 && index < r->gid_tbl_len &&
	       !ibv_query_gid_ex(r->ctx, r->port, (uint32_t)index, out, 0) &&
	       !gid_is_zero(&out->gid);
}

static int pick_gid(struct adxl_plugin_ctx *r, char *err)
{
	const char *env = getenv("MEMREG_ADXL_RDMA_GID_INDEX");
	const char *name = ibv_get_device_name(r->ctx->device);
	struct ibv_gid_entry e;

	r->gid_room = gid_room(r->ctx);
	if (env && *env) {
		char *end;
		long v;

		errno = 0;
		v = strtol(env, &end, 10);
		if (errno || *end || !gid_at(r, v, &e)) {
			rdmap_say(err, "MEMREG_ADXL_RDMA_GID_INDEX=%s: %s port %u has no GID there (its table has %d entries; show_gids lists them)",
				  env, name, r->port, r->gid_tbl_len);
			return -EINVAL;
		}
		r->gid_forced = true;
	} else if (rdmap_gid_find(r, NULL, &e) < 0 && !gid_at(r, 0, &e)) {
		/* On InfiniBand, or with no RoCE v2 GID of IPv4: index 0. */
		rdmap_say(err, "%s port %u: no GID at index 0", name, r->port);
		return -EIO;
	}
	r->gid = e.gid;
	r->gid_index = (int)e.gid_index;
	r->gid_type = e.gid_type;
	return 0;
}

static void describe_init(struct adxl_plugin_ctx *r)
{
	const char *name = ibv_get_device_name(r->ctx->device);
	char gid[INET6_ADDRSTRLEN] = "?";
	char link[48];

	inet_ntop(AF_INET6, r->gid.raw, gid, sizeof(gid));
	/* Older InfiniBand drivers leave the link layer unspecified. */
	if (r->link_layer != IBV_LINK_LAYER_ETHERNET)
		snprintf(link, sizeof(link), "InfiniBand, LID %u", r->lid);
	else if (r->gid_type == IBV_GID_TYPE_ROCE_V2)
		snprintf(link, sizeof(link), "RoCE v2");
	else if (r->gid_type == IBV_GID_TYPE_ROCE_V1)
		snprintf(link, sizeof(link), "RoCE v1");
	else
		snprintf(link, sizeof(link), "RoCE");
	snprintf(r->desc, sizeof(r->desc), "%s port %u, %s, GID %s (index %d), MTU %d, %s",
		 name, r->port, link, gid, r->gid_index, 128 << r->mtu,
		 r->windows ? "a memory window per peer" :
			      "one rkey per registration for every peer");
}

static void close_dev(struct adxl_plugin_ctx *r)
{
	/* Defensive: close() comes after every mr_dereg. */
	rdmap_mr_dereg_all(r);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ctx)
		ibv_close_device(r->ctx);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* MEMREG_ADXL_RDMA_DEVICE: "name" or "name:port" into @name and @port. */
static int parse_device(const char *env, char *name, size_t len,
			unsigned int *port, char *err)
{
	const char *colon = strchr(env, ':');
	size_t n = colon ? (size_t)(colon - env) : strlen(env);

	*port = 0;
	if (colon) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(colon + 1, &end, 10);
		if (errno || end == colon + 1 || *end || !v || v > 255)
			n = 0;	/* reported below */
		*port = (unsigned int)v;
	}
	if (!n || n >= len) {
		rdmap_say(err, "MEMREG_ADXL_RDMA_DEVICE=%s: want a device name, or name:port (rxe0, mlx5_0:1)",
			  env);
		return -EINVAL;
	}
	memcpy(name, env, n);
	name[n] = '\0';
	return 0;
}

static int open_dev(struct adxl_plugin_ctx **out, char *err)
{
	const char *env = getenv("MEMREG_ADXL_RDMA_DEVICE");
	const char *chunk = getenv("MEMREG_ADXL_RDMA_CHUNK");
	const char *timeout = getenv("MEMREG_ADXL_RDMA_ACK_TIMEOUT");
	const char *windows = getenv("MEMREG_ADXL_RDMA_WINDOWS");
	char want[IBV_SYSFS_NAME_MAX] = "";
	char why[ADXL_PLUGIN_ERR_LEN] = "";
	char names[128] = "";
	struct ibv_device **list;
	unsigned int port = 0;
	struct adxl_plugin_ctx *r;
	int i, num = 0, ret;

	if (env && *env) {
		ret = parse_device(env, want, sizeof(want), &port, err);
		if (ret)
			return ret;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		rdmap_say(err, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	r->chunk = CHUNK;
	if (chunk && *chunk) {
		unsigned long long v = strtoull(chunk, NULL, 0);

		if (v && v <= CHUNK_MAX)
			r->chunk = v;
	}
	/* "0": the MRs' own rkeys, even where the device has windows */
	r->windows = !(windows && !strcmp(windows, "0"));
	r->ack_timeout = ACK_TIMEOUT;
	if (timeout && *timeout) {
		unsigned long v = strtoul(timeout, NULL, 0);

		if (v && v <= ACK_TIMEOUT_MAX)
			r->ack_timeout = v;
	}

	list = ibv_get_device_list(&num);
	if (!list) {
		/*
		 * ENOSYS: no /sys/class/infiniband_verbs, i.e. no RDMA driver
		 * (and so no ib_uverbs) in this kernel.
		 */
		rdmap_say(err, "no RDMA device: ibv_get_device_list: %s%s",
			  strerror(errno), errno == ENOSYS ?
			  " (no RDMA driver loaded; soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0)" :
			  "");
		close_dev(r);
		return -ENODEV;
	}
	for (i = 0; i < num && !r->ctx; i++) {
		const char *name = ibv_get_device_name(list[i]);
		size_t used = strlen(names);

		snprintf(names + used, sizeof(names) - used, "%s%s",
			 used ? ", " : "", name);
		if (want[0] && strcmp(name, want))
			continue;
		try_device(r, list[i], port, why, sizeof(why));
	}
	/* Opened devices stay valid (ibv_get_device_list(3)). */
	ibv_free_device_list(list);
	if (!r->ctx) {
		if (!num)
			rdmap_say(err, "no RDMA device (soft-RoCE: modprobe rdma_rxe; rdma link add rxe0 type rxe netdev eth0)");
		else if (want[0] && !why[0])
			rdmap_say(err, "MEMREG_ADXL_RDMA_DEVICE=%s: no such device (there are: %s)",
				  env, names);
		else
			rdmap_say(err, "no RDMA device with an active port (%s)",
				  why);
		close_dev(r);
		return -ENODEV;
	}

	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd) {
		ret = errno == ENOMEM ? -ENOMEM : -EIO;
		rdmap_say(err, "%s: ibv_alloc_pd: %s",
			  ibv_get_device_name(r->ctx->device), strerror(errno));
		close_dev(r);
		return ret;
	}
	ret = pick_gid(r, err);
	if (ret) {
		close_dev(r);
		return ret;
	}
	describe_init(r);
	*out = r;
	return 0;
}

static const char *describe(struct adxl_plugin_ctx *r)
{
	return r->desc;
}

/* The context, with what the engine's options say its links send with. */
static int open_ctx(const struct adxl_plugin_conf *conf,
		    struct adxl_plugin_ctx **out, char *err)
{
	int ret = open_dev(out, err);

	if (!ret) {
		(*out)->traffic_class = conf->traffic_class;
		(*out)->service_level = conf->service_level;
	}
	return ret;
}

/* Peers get their keys from ep_grant, never the MR's own here. */
static int mem_reg(struct adxl_plugin_ctx *r, void *addr, size_t len,
		   struct adxl_plugin_mem **out, char *err)
{
	uint32_t own_rkey;

	return rdmap_mr_reg(r, addr, len, out, &own_rkey, err);
}

static const struct adxl_plugin plugin = {
	.transport = "rdma",
	.open = open_ctx,
	.close = close_dev,
	.describe = describe,
	.mem_reg = mem_reg,
	.mem_dereg = rdmap_mr_dereg,
	.ep_create = rdmap_ep_create,
	.ep_connect = rdmap_ep_connect,
	.ep_grant = rdmap_mr_grant,
	.ep_destroy = rdmap_qp_destroy,
	.ep_failed = rdmap_qp_failed,
	.xfer = rdmap_xfer,
};

__attribute__((visibility("default")))
const struct adxl_plugin *adxl_transport_plugin_v1(void)
{
	return &plugin;
}
