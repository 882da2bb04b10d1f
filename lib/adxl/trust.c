// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who may connect to a listening engine.  A hello is answered with grant
 * tokens (same kernel), and a link hello with what reaches a transport's
 * end and the keys it granted (another kernel); either lets the holder
 * read and write every registration of the engine.  So before the listener answers a hello it
 * classifies the link:
 *
 * - A connection from this host (the peer's address is one of ours, or a
 *   loopback address): the client must prove that it runs as our
 *   effective uid (proof.c: it connects to our Unix socket, the kernel
 *   tells us its uid with SO_PEERCRED, and it hands over a nonce that came
 *   on the TCP link).  Who owns the client's TCP socket decides nothing:
 *   the owner is whoever created the socket, not whoever uses it (a socket
 *   root hands to uid 1000 is root's), and a socket closed a moment ago is
 *   a TIME_WAIT socket that the lookups report as uid 0.  The lookup
 *   below (NETLINK_SOCK_DIAG or /proc/net/tcp) is kept for one thing, the
 *   listener's accounting of links that wait for a hello (server.c): if it
 *   is fooled, a hello waits in the wrong queue; nobody gets in by it.
 * - A connection from another host: served only if its address is on the
 *   engine's allow-list (option AllowPeers, else the environment variable
 *   MEMREG_ADXL_ALLOW_PEERS): addresses and prefixes, or "*" for every
 *   host.  Without a list no remote peer is served.
 *
 * What this assumes, as ADXL and HIXL do in production: the fabric between
 * hosts is trusted (an address is not proof of identity against someone
 * who can spoof it), and the allow-list keeps strangers on a shared
 * network out.  On one host, uids are the boundary, as for files.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "adxl_int.h"

/* TCP_ESTABLISHED of the kernel's tcp_states.h, as inet_diag reports it. */
#define TCP_ESTABLISHED_STATE	1

/* One entry of an allow-list: an address and the bits that must match. */
struct adxl_allow_net {
	int family;
	uint8_t addr[16];
	unsigned int bits;
};

void adxl__allow_free(struct adxl_allow *a)
{
	if (!a)
		return;
	free(a->nets);
	free(a);
}

/* "addr" or "addr/bits", IPv4 or IPv6 (without brackets). */
static int parse_net(const char *s, struct adxl_allow_net *n)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	unsigned long bits;
	unsigned int max;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, buf, n->addr) == 1) {
		n->family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, n->addr) == 1) {
		n->family = AF_INET6;
		max = 128;
	} else {
		return -1;
	}
	n->bits = max;
	if (slash) {
		errno = 0;
		bits = strtoul(slash + 1, &end, 10);
		if (errno || !slash[1] || *end || bits > max)
			return -1;
		n->bits = (unsigned int)bits;
	}
	return 0;
}

int adxl__allow_parse(const char *spec, struct adxl_allow **out)
{
	struct adxl_allow *a;
	char *copy, *tok, *save = NULL;
	size_t n = 1;
	const char *c;
	int ret = 0;

	*out = NULL;
	for (c = spec; *c; c++)
		n += *c == ',';
	a = calloc(1, sizeof(*a));
	copy = strdup(spec);
	if (a)
		a->nets = calloc(n, sizeof(*a->nets));
	if (!a || !copy || !a->nets) {
		free(copy);
		adxl__allow_free(a);
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		if (!strcmp(tok, "*")) {
			a->any = true;
			continue;
		}
		if (parse_net(tok, &a->nets[a->n_nets])) {
			ret = -EINVAL;
			break;
		}
		a->n_nets++;
	}
	free(copy);
	if (!ret && !a->any && !a->n_nets)
		ret = -EINVAL;	/* an empty list is a mistake, not "nobody" */
	if (ret) {
		adxl__allow_free(a);
		return ret;
	}
	*out = a;
	return 0;
}

static bool net_match(const struct adxl_allow_net *n, int family,
		      const uint8_t *addr)
{
	unsigned int full = n->bits / 8, rest = n->bits % 8;

	if (n->family != family || memcmp(n->addr, addr, full))
		return false;
	return !rest || !((n->addr[full] ^ addr[full]) & (0xff00 >> rest));
}

/* An IPv4 peer on an IPv6 socket arrives as ::ffff:a.b.c.d. */
static void unmap_v4(int *family, const uint8_t **addr)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (*family == AF_INET6 && !memcmp(*addr, prefix, sizeof(prefix))) {
		*family = AF_INET;
		*addr += 12;
	}
}

bool adxl__allow_match(const struct adxl_allow *a, int family,
		       const uint8_t *addr)
{
	size_t i;

	if (!a)
		return false;
	if (a->any)
		return true;
	unmap_v4(&family, &addr);
	for (i = 0; i < a->n_nets; i++)
		if (net_match(&a->nets[i], family, addr))
			return true;
	return false;
}

/* The address bytes and port of a socket address. */
static const uint8_t *sa_addr(const struct sockaddr_storage *ss, int *family,
			      uint16_t *port)
{
	*family = ss->ss_family;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		*port = ntohs(s->sin_port);
		return (const uint8_t *)&s->sin_addr;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		*port = ntohs(s->sin6_port);
		return (const uint8_t *)&s->sin6_addr;
	}
	return NULL;
}

/* Whether @addr is loopback or an address of one of our interfaces. */
static bool addr_is_ours(int family, const uint8_t *addr)
{
	struct ifaddrs *ifa, *i;
	bool ours = false;

	unmap_v4(&family, &addr);
	if (family == AF_INET && addr[0] == 127)
		return true;
	if (family == AF_INET6 && !memcmp(addr, &in6addr_loopback, 16))
		return true;
	if (getifaddrs(&ifa))
		return false;
	for (i = ifa; i && !ours; i = i->ifa_next) {
		const uint8_t *a;
		uint16_t port;
		int f;

		if (!i->ifa_addr)
			continue;
		a = sa_addr((const struct sockaddr_storage *)i->ifa_addr, &f,
			    &port);
		ours = a && f == family &&
		       !memcmp(a, addr, f == AF_INET ? 4 : 16);
	}
	freeifaddrs(ifa);
	return ours;
}

/*
 * A client socket of this host to look up: both ends as 16 bytes (IPv4
 * as ::ffff:a.b.c.d), the client's first, and what was found of it.
 */
struct sock_want {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	int found;		/* 0 not yet, 1 established (@uid), -1 not */
	uid_t uid;
};

static bool is_mapped(const uint8_t *a)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, prefix, sizeof(prefix));
}

/*
 * An exact NETLINK_SOCK_DIAG lookup of @w as a socket of @family on
 * netlink socket @nl: 1 established (w->uid), -1 found but not
 * established, 0 not found -- or no inet_diag in this kernel, which
 * answers the same ENOENT.
 */
static int diag_lookup(int nl, int family, struct sock_want *w)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
		},
		.r = {
			.sdiag_family = (uint8_t)family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~0U,
			.id = {
				.idiag_sport = htons(w->sport),
				.idiag_dport = htons(w->dport),
				.idiag_cookie = { INET_DIAG_NOCOOKIE,
						  INET_DIAG_NOCOOKIE },
			},
		},
	};
	union {
		struct nlmsghdr nlh;
		uint8_t bytes[1024];
	} ans;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	const struct inet_diag_msg *m;
	size_t off = family == AF_INET ? 12 : 0;
	ssize_t n;

	memcpy(req.r.id.idiag_src, w->src + off, 16 - off);
	memcpy(req.r.id.idiag_dst, w->dst + off, 16 - off);
	if (sendto(nl, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)sizeof(req))
		return 0;
	n = recv(nl, &ans, sizeof(ans), 0);
	if (n < 0 || !NLMSG_OK(&ans.nlh, (size_t)n) ||
	    ans.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    ans.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return 0;	/* NLMSG_ERROR: ENOENT, for either reason */
	m = NLMSG_DATA(&ans.nlh);
	/*
	 * A socket its process closed is a TIME_WAIT socket with no owner,
	 * reported as uid 0: not an answer.
	 */
	if (m->idiag_state != TCP_ESTABLISHED_STATE)
		return -1;
	w->uid = m->idiag_uid;
	return 1;
}

/* 16 bytes from the hex words /proc/net/tcp{,6} prints (raw u32 each). */
static bool proc_addr(const char *hex, uint8_t out[16])
{
	size_t words = strlen(hex) / 8, i;

	if (strlen(hex) % 8 || (words != 1 && words != 4))
		return false;
	memset(out, 0, 16);
	if (words == 1)
		out[10] = out[11] = 0xff;
	for (i = 0; i < words; i++) {
		char w8[9];
		uint32_t v;

		memcpy(w8, hex + 8 * i, 8);
		w8[8] = '\0';
		v = (uint32_t)strtoul(w8, NULL, 16);
		memcpy(out + (words == 1 ? 12 : 4 * i), &v, 4);
	}
	return true;
}

/*
 * One pass over /proc/net/tcp or tcp6 for every socket of @w not found
 * yet: each line is read once, however many sockets are wanted (the file
 * lists every TCP socket of the namespace, TIME_WAIT ones too, so under a
 * flood of connections a pass per socket would be the listener's whole
 * time).
 */
static void proc_pass(const char *path, struct sock_want *w, size_t n)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char local[33], remote[33];
		unsigned int lport, rport, st;
		uint8_t la[16], ra[16];
		unsigned long u;
		size_t i;

		if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*s %*s %*s %lu",
			   local, &lport, remote, &rport, &st, &u) != 6 ||
		    !proc_addr(local, la) || !proc_addr(remote, ra))
			continue;
		for (i = 0; i < n; i++) {
			if (w[i].found || lport != w[i].sport ||
			    rport != w[i].dport || memcmp(la, w[i].src, 16) ||
			    memcmp(ra, w[i].dst, 16))
				continue;
			/* established or nothing, as above */
			w[i].found = st == TCP_ESTABLISHED_STATE ? 1 : -1;
			w[i].uid = (uid_t)u;
		}
	}
	fclose(f);
}

/*
 * Look up the sockets of @w: by sock_diag unless *@no_diag, then in
 * /proc for those it did not find.  If /proc finds what sock_diag did
 * not, this kernel has no inet_diag (it answers ENOENT for everything):
 * *@no_diag is set and later calls go to /proc at once.
 */
static void lookup(struct sock_want *w, size_t n, bool *no_diag)
{
	bool diag_tried = false, missed = false;
	size_t i;
	int nl = -1;

	if (!*no_diag)
		nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			    NETLINK_SOCK_DIAG);
	for (i = 0; nl >= 0 && i < n; i++) {
		/* an IPv4 client of an IPv6 listener has an AF_INET socket */
		if (is_mapped(w[i].src) && is_mapped(w[i].dst))
			w[i].found = diag_lookup(nl, AF_INET, &w[i]);
		if (!w[i].found)
			w[i].found = diag_lookup(nl, AF_INET6, &w[i]);
		diag_tried = true;
		missed |= !w[i].found;
	}
	if (nl >= 0)
		close(nl);
	if (nl >= 0 && !missed)
		return;
	proc_pass("/proc/net/tcp", w, n);
	/* tcp6 only for what tcp did not have: each pass costs the lot */
	for (i = 0; i < n; i++) {
		if (!w[i].found) {
			proc_pass("/proc/net/tcp6", w, n);
			break;
		}
	}
	for (i = 0; diag_tried && i < n; i++)
		if (w[i].found)
			*no_diag = true;
}

/* Both ends of TCP socket @fd as 16 bytes: the peer's, then ours. */
static int ends16(int fd, uint8_t peer[16], uint16_t *pport, uint8_t me[16],
		  uint16_t *mport)
{
	struct sockaddr_storage a, b;
	socklen_t al = sizeof(a), bl = sizeof(b);
	const uint8_t *pa, *ma;
	int pf, mf;

	if (getpeername(fd, (struct sockaddr *)&a, &al) ||
	    getsockname(fd, (struct sockaddr *)&b, &bl))
		return -errno;
	pa = sa_addr(&a, &pf, pport);
	ma = sa_addr(&b, &mf, mport);
	if (!pa || !ma)
		return -EAFNOSUPPORT;
	memset(peer, 0, 16);
	memset(me, 0, 16);
	if (pf == AF_INET) {
		peer[10] = peer[11] = me[10] = me[11] = 0xff;
		memcpy(peer + 12, pa, 4);
		memcpy(me + 12, ma, 4);
	} else {
		memcpy(peer, pa, 16);
		memcpy(me, ma, 16);
	}
	return 0;
}

int adxl__sock_peer_uid(int fd, uid_t *uid)
{
	struct sock_want w = { .found = 0 };
	bool no_diag = false;
	int ret;

	/* The client's socket: its source is our peer, its destination us. */
	ret = ends16(fd, w.src, &w.sport, w.dst, &w.dport);
	if (ret)
		return ret;
	lookup(&w, 1, &no_diag);
	if (w.found != 1)
		return -ENOENT;
	*uid = w.uid;
	return 0;
}

uint32_t adxl__peer_allowed(const struct adxl_engine *e, int fd, char *why,
			    size_t why_len)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	char text[INET6_ADDRSTRLEN] = "?";
	const uint8_t *addr;
	uint16_t port;
	int family;

	if (getpeername(fd, (struct sockaddr *)&peer, &plen)) {
		snprintf(why, why_len, "the connection is gone: %s",
			 strerror(errno));
		return ADXL_HELLO_NOT_ALLOWED;
	}
	addr = sa_addr(&peer, &family, &port);
	if (!addr) {
		snprintf(why, why_len, "not an IP connection");
		return ADXL_HELLO_NOT_ALLOWED;
	}
	inet_ntop(family, addr, text, sizeof(text));
	if (!addr_is_ours(family, addr)) {
		if (adxl__allow_match(e->allow, family, addr))
			return ADXL_HELLO_OK;
		snprintf(why, why_len,
			 "%s is another host and not on this engine's allow-list (option AllowPeers or MEMREG_ADXL_ALLOW_PEERS)",
			 text);
		return ADXL_HELLO_NOT_ALLOWED;
	}
	/*
	 * This host: the client proves its uid (proof.c).  Whose TCP socket
	 * it is says nothing (see the top of this file).
	 */
	(void)port;
	return ADXL_HELLO_PROVE;
}


/*
 * Whose slot each of @n new links takes while it waits for its hello:
 * another host's address (IPv6: its /64), or on this host the uid of the
 * client's socket if it is established now (a closed one has no owner:
 * UNKNOWN).  All at once, so that /proc/net/tcp is read once per batch
 * where there is no inet_diag.
 */
void adxl__wait_keys(struct adxl_engine *e, const int *fds, size_t n,
		     struct adxl_wait_key *keys)
{
	struct sock_want *w = calloc(n, sizeof(*w));
	size_t *of = calloc(n, sizeof(*of));
	size_t i, nw = 0;

	memset(keys, 0, n * sizeof(*keys));
	for (i = 0; w && of && i < n; i++) {
		struct sock_want *x = &w[nw];
		const uint8_t *addr;
		int family;

		keys[i].kind = ADXL_WAIT_UNKNOWN;
		if (ends16(fds[i], x->src, &x->sport, x->dst, &x->dport))
			continue;
		family = is_mapped(x->src) ? AF_INET : AF_INET6;
		addr = x->src + (family == AF_INET ? 12 : 0);
		if (!addr_is_ours(family, addr)) {
			keys[i].kind = ADXL_WAIT_ADDR;
			/*
			 * A host commonly has a whole /64 to pick addresses
			 * from: one key for all of it, or each address would
			 * bring 64 slots more.  IPv4 (also on an IPv6
			 * socket): the address.
			 */
			memcpy(keys[i].addr, x->src,
			       family == AF_INET ? 16 : 8);
			continue;
		}
		of[nw++] = i;
	}
	if (nw)
		lookup(w, nw, &e->no_sock_diag);
	for (i = 0; i < nw; i++) {
		if (w[i].found != 1)
			continue;
		keys[of[i]].kind = ADXL_WAIT_UID;
		keys[of[i]].uid = w[i].uid;
	}
	free(w);
	free(of);
}
