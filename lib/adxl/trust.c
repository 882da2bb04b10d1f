// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Who may connect to a listening engine.  A hello is answered with grant
 * tokens (same kernel) or the UCX worker address and the key to it
 * (another kernel); either lets the holder read and write every
 * registration of the engine.  So before the listener answers a hello it
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
 * The uid owning the TCP socket [@src]:@sport -> [@dst]:@dport of this
 * network namespace, by an exact NETLINK_SOCK_DIAG lookup: 0 and *uid, or
 * -ENOENT (no such socket, or no inet_diag in this kernel), -errno.
 */
static int uid_by_sock_diag(int family, const uint8_t *src, uint16_t sport,
			    const uint8_t *dst, uint16_t dport, uid_t *uid)
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
				.idiag_sport = htons(sport),
				.idiag_dport = htons(dport),
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
	size_t alen = family == AF_INET ? 4 : 16;
	ssize_t n;
	int fd, ret = -ENOENT;

	memcpy(req.r.id.idiag_src, src, alen);
	memcpy(req.r.id.idiag_dst, dst, alen);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != (ssize_t)sizeof(req)) {
		ret = -errno;
		goto out;
	}
	n = recv(fd, &ans, sizeof(ans), 0);
	if (n < 0) {
		ret = -errno;
		goto out;
	}
	if (!NLMSG_OK(&ans.nlh, (size_t)n))
		goto out;
	if (ans.nlh.nlmsg_type == SOCK_DIAG_BY_FAMILY &&
	    ans.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
		const struct inet_diag_msg *m = NLMSG_DATA(&ans.nlh);

		/*
		 * A socket its process closed is a TIME_WAIT socket with no
		 * owner, reported as uid 0: not an answer.
		 */
		if (m->idiag_state == TCP_ESTABLISHED_STATE) {
			*uid = m->idiag_uid;
			ret = 0;
		}
	}
	/* NLMSG_ERROR: -ENOENT for "no such socket" and "no inet_diag". */
out:
	close(fd);
	return ret;
}

/*
 * The same from /proc/net/tcp or tcp6, which print each address as the
 * raw 32-bit words of its bytes in %08X and the ports in host order.
 */
static int uid_by_proc(int family, const uint8_t *src, uint16_t sport,
		       const uint8_t *dst, uint16_t dport, uid_t *uid)
{
	const char *path = family == AF_INET ? "/proc/net/tcp" :
					       "/proc/net/tcp6";
	size_t words = family == AF_INET ? 1 : 4, i;
	uint32_t want_src[4], want_dst[4];
	char line[512];
	int ret = -ENOENT;
	FILE *f;

	memcpy(want_src, src, words * 4);
	memcpy(want_dst, dst, words * 4);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		char local[33], remote[33];
		unsigned int lport, rport, st;
		unsigned long u;
		bool same = true;

		if (sscanf(line, " %*u: %32[0-9A-Fa-f]:%x %32[0-9A-Fa-f]:%x %x %*s %*s %*s %lu",
			   local, &lport, remote, &rport, &st, &u) != 6 ||
		    strlen(local) != words * 8 || strlen(remote) != words * 8 ||
		    lport != sport || rport != dport)
			continue;
		for (i = 0; i < words && same; i++) {
			char l8[9], r8[9];

			memcpy(l8, local + 8 * i, 8);
			memcpy(r8, remote + 8 * i, 8);
			l8[8] = r8[8] = '\0';
			same = (uint32_t)strtoul(l8, NULL, 16) == want_src[i] &&
			       (uint32_t)strtoul(r8, NULL, 16) == want_dst[i];
		}
		if (same) {
			/* established or nothing, as above */
			if (st == TCP_ESTABLISHED_STATE)
				*uid = (uid_t)u;
			ret = st == TCP_ESTABLISHED_STATE ? 0 : -ENOENT;
			break;
		}
	}
	fclose(f);
	return ret;
}

int adxl__sock_peer_uid(int fd, uid_t *uid)
{
	struct sockaddr_storage me, peer;
	socklen_t mlen = sizeof(me), plen = sizeof(peer);
	const uint8_t *src, *dst;
	uint16_t sport = 0, dport = 0;
	int family, f2, ret;

	if (getsockname(fd, (struct sockaddr *)&me, &mlen) ||
	    getpeername(fd, (struct sockaddr *)&peer, &plen))
		return -errno;
	/* The client's socket: its source is our peer, its destination us. */
	src = sa_addr(&peer, &family, &sport);
	dst = sa_addr(&me, &f2, &dport);
	if (!src || !dst || family != f2)
		return -EAFNOSUPPORT;
	ret = uid_by_sock_diag(family, src, sport, dst, dport, uid);
	if (ret)
		ret = uid_by_proc(family, src, sport, dst, dport, uid);
	/* An IPv4 client of an IPv6 listener has an AF_INET socket. */
	if (ret == -ENOENT) {
		int f = family;
		const uint8_t *s = src, *d = dst;

		unmap_v4(&f, &s);
		unmap_v4(&f2, &d);
		if (f == AF_INET && f2 == AF_INET) {
			ret = uid_by_sock_diag(AF_INET, s, sport, d, dport, uid);
			if (ret)
				ret = uid_by_proc(AF_INET, s, sport, d, dport,
						  uid);
		}
	}
	return ret;
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
 * Whose slot a new link takes while it waits for its hello: another
 * host's address (IPv6: its /64), or on this host the uid of the
 * client's socket if it is established now (a closed one has no owner:
 * UNKNOWN).
 */
void adxl__wait_key(int fd, struct adxl_wait_key *k)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	const uint8_t *addr;
	uint16_t port;
	int family;

	memset(k, 0, sizeof(*k));
	k->kind = ADXL_WAIT_UNKNOWN;
	if (getpeername(fd, (struct sockaddr *)&peer, &plen))
		return;
	addr = sa_addr(&peer, &family, &port);
	if (!addr)
		return;
	if (!addr_is_ours(family, addr)) {
		k->kind = ADXL_WAIT_ADDR;
		/* an IPv4 host on an IPv6 socket: its own key, not a /64 */
		unmap_v4(&family, &addr);
		if (family == AF_INET) {
			k->addr[10] = k->addr[11] = 0xff;
			memcpy(k->addr + 12, addr, 4);
		} else {
			/*
			 * A host commonly has a whole /64 to pick addresses
			 * from: one key for all of it, or each address
			 * would bring 64 slots more.
			 */
			memcpy(k->addr, addr, 8);
		}
		return;
	}
	if (!adxl__sock_peer_uid(fd, &k->uid))
		k->kind = ADXL_WAIT_UID;
}
