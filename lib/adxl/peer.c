// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Peers this engine connected to: Connect, Disconnect, the peer table.
 *
 * Connect opens the TCP control connection, says hello (our name, the name
 * we expect, our kernel instance and pid) and receives the peer's hello
 * with its registration table and grant tokens.  A peer on this host
 * first challenges us to prove our uid on its Unix socket (proof.c).  On
 * Then the transport that will carry the peer's memory takes over: the
 * one the option Transport names, or with auto the first of the table
 * that reaches the peer (transport.c); it may say a link hello of its own
 * on the control connection (link.c).
 *
 * A peer is reference counted: a transfer or notify holds it, so that a
 * concurrent Disconnect never closes the socket or drops the imports under
 * it.  The last reference unimports and closes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include "adxl_int.h"

/* How often Connect tries again while nothing listens on the port yet. */
#define RETRY_MS	20

static void peer_free(struct adxl_engine *e, struct adxl_peer *p)
{
	if (p->via && p->via->release)
		p->via->release(p->via, e, p);
	free(p->rregs);
	if (p->fd >= 0)
		close(p->fd);
	pthread_mutex_destroy(&p->io_lock);
	free(p->name);
	free(p);
}

static struct adxl_peer *find_locked(struct adxl_engine *e, const char *name)
{
	struct adxl_peer *p;

	for (p = e->peers; p; p = p->next)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

struct adxl_peer *adxl__peer_get(struct adxl_engine *e, const char *name)
{
	struct adxl_peer *p;

	pthread_mutex_lock(&e->lock);
	p = find_locked(e, name);
	if (p)
		p->refs++;
	pthread_mutex_unlock(&e->lock);
	return p;
}

void adxl__peer_put(struct adxl_engine *e, struct adxl_peer *p)
{
	bool last;

	pthread_mutex_lock(&e->lock);
	last = --p->refs == 0;
	pthread_mutex_unlock(&e->lock);
	if (last)
		peer_free(e, p);
}

void adxl__peer_lost(struct adxl_peer *p)
{
	if (__atomic_exchange_n(&p->dead, true, __ATOMIC_RELAXED))
		return;
	adxl__warn("peer %s (pid %u) lost its control connection: it exited or closed the engine",
		   p->name, p->pid);
}

/*
 * A connected TCP socket to @addr by @deadline: fd, or -errno:
 * -ECONNREFUSED if nothing listened there until the deadline (at once,
 * without @retry), -ETIMEDOUT if the host did not answer in time.
 */
static int dial(const struct adxl_name *addr, int64_t deadline, bool retry)
{
	int last = -ETIMEDOUT;	/* what the deadline ends in */

	for (;;) {
		struct pollfd pfd;
		int fd, err = 0, one = 1;
		socklen_t len = sizeof(err);
		int64_t left;

		fd = socket(addr->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(fd, (const struct sockaddr *)&addr->sa, addr->sa_len) &&
		    errno != EINPROGRESS) {
			err = errno;
		} else {
			left = deadline - adxl__now_ms();
			if (left <= 0) {
				close(fd);
				return last;
			}
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, (int)left) <= 0) {
				close(fd);
				return -ETIMEDOUT;
			}
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
		}
		if (!err)
			return fd;
		close(fd);
		/*
		 * Nothing listens yet: the peer may still be starting, so try
		 * again until the deadline.  Refused until then is a failure,
		 * not a timeout (hixl: FAILED).
		 */
		if (err != ECONNREFUSED || !retry)
			return -err;
		last = -ECONNREFUSED;
		left = deadline - adxl__now_ms();
		if (left <= 0)
			return last;
		usleep((useconds_t)(left < RETRY_MS ? left : RETRY_MS) * 1000);
	}
}

/*
 * How long a WHO may take: the call's own time, but at least WHO_MIN_MS
 * (a call that spent its deadline on the transfer still learns why) and
 * at most WHO_MAX_MS (a host that does not answer must not hold up an
 * async worker that has no deadline).
 */
#define WHO_MIN_MS	200
#define WHO_MAX_MS	1000
/* A peer found LOST or EXITED is asked again at most this often. */
#define WHO_AGAIN_MS	500

/*
 * Who answers at @p's name now: ADXL_PEER_RESTARTED (another identity),
 * ADXL_PEER_LOST (the one we knew: only the connection went), or
 * ADXL_PEER_EXITED (nothing answers by @deadline).  One connection, one
 * WHO and its answer: the round trip that tells a restart.
 */
static enum adxl_peer_state who_is_there(struct adxl_peer *p,
					 int64_t deadline)
{
	enum adxl_peer_state st = ADXL_PEER_EXITED;
	struct adxl_rd r = { 0 };
	struct adxl_ident now;
	struct adxl_name addr;
	uint8_t *msg = NULL;
	uint32_t type;
	size_t len;
	int fd;

	if (adxl__parse_name(p->name, &addr))
		return st;
	/* refused means nobody there: no retries until the deadline */
	fd = dial(&addr, deadline, false);
	if (fd < 0)
		return st;
	if (!adxl__send_msg(fd, ADXL_MSG_WHO, NULL, 0, deadline) &&
	    !adxl__recv_msg(fd, &type, &msg, &len, deadline) &&
	    type == ADXL_MSG_WHO_REPLY) {
		r = (struct adxl_rd){ .p = msg, .len = len };
		if (!adxl__ident_get(&r, &now) && r.off == len)
			st = adxl__ident_same(&now, &p->ident) ?
				ADXL_PEER_LOST : ADXL_PEER_RESTARTED;
	}
	free(msg);
	close(fd);
	return st;
}

adxl_status_t adxl__peer_gone(struct adxl_peer *p, const char *what,
			      int64_t deadline)
{
	int64_t now = adxl__now_ms(), budget, asked;
	enum adxl_peer_state st, seen;

	adxl__peer_lost(p);
	st = __atomic_load_n(&p->gone, __ATOMIC_ACQUIRE);
	asked = __atomic_load_n(&p->gone_ms, __ATOMIC_RELAXED);
	/*
	 * A restart is final; an exit may yet turn into one, so LOST and
	 * EXITED are asked again, but not by every call: many threads on
	 * one dead peer must not each dial it.
	 */
	if (st != ADXL_PEER_RESTARTED &&
	    (st == ADXL_PEER_NONE || now - asked >= WHO_AGAIN_MS)) {
		budget = deadline < 0 ? now + WHO_MAX_MS : deadline;
		if (budget < now + WHO_MIN_MS)
			budget = now + WHO_MIN_MS;
		if (budget > now + WHO_MAX_MS)
			budget = now + WHO_MAX_MS;
		__atomic_store_n(&p->gone_ms, now, __ATOMIC_RELAXED);
		seen = who_is_there(p, budget);
		/* never over a RESTARTED another thread found meanwhile */
		st = __atomic_load_n(&p->gone, __ATOMIC_ACQUIRE);
		while (st != ADXL_PEER_RESTARTED &&
		       !__atomic_compare_exchange_n(&p->gone, &st, seen, false,
						    __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE))
			;
		if (st != ADXL_PEER_RESTARTED)
			st = seen;
	}
	if (st == ADXL_PEER_RESTARTED)
		adxl__err("%s %s: refused: the peer restarted (the engine now at that name is another process or another Initialize than pid %u's): nothing learnt before the restart reaches it; Disconnect, Connect again and take its addresses anew",
			  what, p->name, p->pid);
	else if (st == ADXL_PEER_LOST)
		adxl__err("%s %s: not connected: the control connection to it is gone, though the engine still runs; Connect again",
			  what, p->name);
	else
		adxl__err("%s %s: not connected: the peer (pid %u) exited or finalized, and nothing answers at its name",
			  what, p->name, p->pid);
	return ADXL_NOT_CONNECTED;
}

enum adxl_peer_state adxl_peer_state(adxl_engine_t *e,
				     const char *remote_engine)
{
	enum adxl_peer_state st;
	struct adxl_peer *p;

	if (!e || !remote_engine)
		return ADXL_PEER_NONE;
	p = adxl__peer_get(e, remote_engine);
	if (!p)
		return ADXL_PEER_NONE;
	if (!adxl__peer_dead(p) && adxl__sock_dead(p->fd))
		adxl__peer_lost(p);
	st = !adxl__peer_dead(p) ? ADXL_PEER_CONNECTED :
	     __atomic_load_n(&p->gone, __ATOMIC_ACQUIRE);
	if (st == ADXL_PEER_NONE)	/* dead, not yet asked who is there */
		st = ADXL_PEER_LOST;
	adxl__peer_put(e, p);
	return st;
}

static int cmp_rreg(const void *a, const void *b)
{
	const struct adxl_rreg *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * In address order, as adxl__rreg_find() searches them; a peer with
 * nothing registered: no table (qsort's NULL is UB).
 */
void adxl__rregs_sort(struct adxl_peer *p)
{
	if (p->n_rregs)
		qsort(p->rregs, p->n_rregs, sizeof(*p->rregs), cmp_rreg);
}

adxl_status_t adxl__rregs_set(struct adxl_peer *p,
			      const struct adxl_wreg *regs, size_t n)
{
	size_t i;

	p->rregs = n ? calloc(n, sizeof(*p->rregs)) : NULL;
	if (n && !p->rregs)
		return ADXL_FAILED;
	for (i = 0; i < n; i++) {
		p->rregs[i] = (struct adxl_rreg){
			.addr = regs[i].addr, .len = regs[i].len,
			.type = regs[i].type, .key = regs[i].key,
		};
	}
	p->n_rregs = n;
	adxl__rregs_sort(p);
	return ADXL_SUCCESS;
}

static adxl_status_t handshake(struct adxl_engine *e, struct adxl_peer *p,
			       int64_t deadline, bool *closed)
{
	struct adxl_hello out, in;
	struct adxl_buf b = { 0 };
	adxl_status_t st;
	uint8_t *msg;
	uint32_t type;
	size_t len;
	int ret;

	memset(&out, 0, sizeof(out));
	out.pid = (uint32_t)getpid();
	out.ident = e->ident;
	snprintf(out.name, sizeof(out.name), "%s", e->name);
	snprintf(out.target, sizeof(out.target), "%s", p->name);
	ret = adxl__hello_encode(&out, &b);
	if (!ret)
		ret = adxl__send_msg(p->fd, ADXL_MSG_HELLO, b.data, b.len,
				     deadline);
	adxl__buf_free(&b);
	if (!ret)
		ret = adxl__recv_msg(p->fd, &type, &msg, &len, deadline);
	/*
	 * On one host the engine first asks us to prove our user
	 * (proof.c); its answer to the hello follows on this link.
	 */
	if (!ret && type == ADXL_MSG_PROVE) {
		st = adxl__proof_give(p->fd, msg, len, p->name, deadline,
				      closed);
		free(msg);
		if (st)
			return st;
		ret = adxl__recv_msg(p->fd, &type, &msg, &len, deadline);
	}
	if (ret == -ETIMEDOUT) {
		adxl__err("Connect %s: no answer to hello in time", p->name);
		return ADXL_TIMEOUT;
	}
	if (ret == -ECONNRESET || ret == -EPIPE) {
		/* Closed before it answered: the caller may dial again. */
		*closed = true;
		return ADXL_FAILED;
	}
	if (ret) {
		adxl__err("Connect %s: control connection failed: %s", p->name,
			  ret == -EPROTO ? "not an ADXL engine" : strerror(-ret));
		return ADXL_FAILED;
	}
	ret = type == ADXL_MSG_HELLO_REPLY ?
		adxl__hello_decode(msg, len, &in) : -EPROTO;
	free(msg);
	if (ret) {
		adxl__err("Connect %s: malformed hello reply", p->name);
		return ADXL_FAILED;
	}
	if (in.status) {
		if (in.status == ADXL_HELLO_WRONG_NAME)
			adxl__err("Connect %s: the engine there is named %s",
				  p->name, in.name);
		else if (in.status == ADXL_HELLO_OTHER_USER)
			adxl__err("Connect %s: refused: the engine serves only its own user on its host",
				  p->name);
		else if (in.status == ADXL_HELLO_NOT_ALLOWED)
			adxl__err("Connect %s: refused: this host is not on the engine's allow-list (AllowPeers / MEMREG_ADXL_ALLOW_PEERS there)",
				  p->name);
		else
			adxl__err("Connect %s: refused (status %u)", p->name,
				  in.status);
		free(in.regs);
		return ADXL_FAILED;
	}
	p->pid = in.pid;
	p->ident = in.ident;
	adxl__trace("Connect %s: hello answered (pid %u)", p->name, in.pid);
	st = adxl__transport_connect(e, p, &in, deadline);
	free(in.regs);
	return st;
}

static struct adxl_peer *unlink_peer(struct adxl_engine *e, const char *name)
{
	struct adxl_peer **pp, *p = NULL;

	pthread_mutex_lock(&e->lock);
	for (pp = &e->peers; *pp; pp = &(*pp)->next) {
		if (!strcmp((*pp)->name, name)) {
			p = *pp;
			*pp = p->next;
			break;
		}
	}
	pthread_mutex_unlock(&e->lock);
	return p;
}

adxl_status_t adxl__connect_locked(struct adxl_engine *e, const char *name,
				   int32_t timeout_ms)
{
	int64_t deadline = adxl__deadline(timeout_ms);
	struct adxl_name addr;
	struct adxl_peer *p;
	adxl_status_t st;
	bool closed;
	int fd;

	if (strlen(name) > ADXL_NAME_MAX || adxl__parse_name(name, &addr) ||
	    addr.port <= 0)
		return ADXL_PARAM_INVALID;

	/*
	 * Looked at under a reference of our own: Disconnect does not take
	 * conn_lock, and one on another thread may drop the table's
	 * reference, and free the entry, while we look.
	 */
	p = adxl__peer_get(e, name);
	if (p) {
		bool alive;

		/* a peer that died since, though no call has noticed it yet */
		if (!adxl__peer_dead(p) && adxl__sock_dead(p->fd))
			adxl__peer_lost(p);
		alive = !adxl__peer_dead(p) &&
			!__atomic_load_n(&p->link_down, __ATOMIC_RELAXED) &&
			!(p->via && p->via->broken &&
			  p->via->broken(p->via, e, p));
		adxl__peer_put(e, p);
		if (alive)
			return ADXL_ALREADY_CONNECTED;
		/*
		 * Gone, its link broke, or its transport found it broken
		 * (an endpoint a transfer timed out on, which the next one
		 * would renew): this Connect replaces it, if a Disconnect
		 * has not taken it out of the table meanwhile.  Only a
		 * Connect adds to the table, and we hold conn_lock: what
		 * is found under the name now is that entry or nothing.
		 */
		p = unlink_peer(e, name);
		if (p)
			adxl__peer_put(e, p);
	}

again:
	fd = dial(&addr, deadline, true);
	if (fd == -ETIMEDOUT) {
		adxl__err("Connect %s: no listening engine answered within %d ms",
			  name, timeout_ms);
		return ADXL_TIMEOUT;
	}
	if (fd == -ECONNREFUSED) {
		adxl__err("Connect %s: nothing listens there: connection refused until the timeout (%d ms)",
			  name, timeout_ms);
		return ADXL_FAILED;
	}
	if (fd < 0) {
		adxl__err("Connect %s: %s", name, strerror(-fd));
		return ADXL_FAILED;
	}

	p = calloc(1, sizeof(*p));
	if (p)
		p->name = strdup(name);
	if (!p || !p->name) {
		free(p);
		close(fd);
		return ADXL_FAILED;
	}
	adxl__trace("Connect %s: dialed (fd %d)", name, fd);
	p->fd = fd;
	p->refs = 1;
	pthread_mutex_init(&p->io_lock, NULL);
	closed = false;
	st = handshake(e, p, deadline, &closed);
	if (st) {
		peer_free(e, p);
		/*
		 * A listener that closed the connection before answering (one
		 * going away, or dropping links it cannot serve) is tried again
		 * while there is time, as one that refused it.
		 */
		if (closed && adxl__now_ms() + RETRY_MS < deadline) {
			adxl__warn("Connect %s: the connection closed before the hello was answered; trying again",
				   name);
			usleep(RETRY_MS * 1000);
			goto again;
		}
		if (closed)
			adxl__err("Connect %s: the peer closed the connection before answering",
				  name);
		return st;
	}
	pthread_mutex_lock(&e->lock);
	p->next = e->peers;
	e->peers = p;
	pthread_mutex_unlock(&e->lock);
	adxl__trace("Connect %s: connected", name);
	return ADXL_SUCCESS;
}

adxl_status_t adxl_connect(adxl_engine_t *e, const char *remote_engine,
			   int32_t timeout_ms)
{
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "Connect");
	if (st)
		return st;
	if (!remote_engine || timeout_ms <= 0)
		return ADXL_PARAM_INVALID;
	/* One Connect at a time: two to the same peer must not both succeed. */
	pthread_mutex_lock(&e->conn_lock);
	st = adxl__connect_locked(e, remote_engine, timeout_ms);
	pthread_mutex_unlock(&e->conn_lock);
	return st;
}

struct adxl_peer *adxl__peer_for_op(struct adxl_engine *e, const char *name,
				    int32_t timeout_ms, adxl_status_t *status)
{
	struct adxl_peer *p = adxl__peer_get(e, name);

	if (p || !e->auto_connect) {
		*status = p ? ADXL_SUCCESS : ADXL_NOT_CONNECTED;
		return p;
	}
	pthread_mutex_lock(&e->conn_lock);
	*status = adxl__connect_locked(e, name, timeout_ms > 0 ? timeout_ms : 1000);
	pthread_mutex_unlock(&e->conn_lock);
	if (*status == ADXL_ALREADY_CONNECTED)
		*status = ADXL_SUCCESS;
	if (*status)
		return NULL;
	p = adxl__peer_get(e, name);
	if (!p)
		*status = ADXL_NOT_CONNECTED;
	return p;
}

static void say_bye(struct adxl_peer *p, int64_t deadline)
{
	pthread_mutex_lock(&p->io_lock);
	if (!adxl__peer_dead(p))
		adxl__send_msg(p->fd, ADXL_MSG_BYE, NULL, 0, deadline);
	pthread_mutex_unlock(&p->io_lock);
}

adxl_status_t adxl_disconnect(adxl_engine_t *e, const char *remote_engine,
			      int32_t timeout_ms)
{
	struct adxl_name addr;
	struct adxl_peer *p;
	adxl_status_t st;

	if (!e)
		return ADXL_PARAM_INVALID;
	st = adxl__ready(e, "Disconnect");
	if (st)
		return st;
	if (!remote_engine || timeout_ms <= 0 ||
	    adxl__parse_name(remote_engine, &addr))
		return ADXL_PARAM_INVALID;
	p = unlink_peer(e, remote_engine);
	if (!p)
		return ADXL_NOT_CONNECTED;
	say_bye(p, adxl__deadline(timeout_ms));
	adxl__peer_put(e, p);
	return ADXL_SUCCESS;
}

void adxl__peers_drop_all(struct adxl_engine *e)
{
	struct adxl_peer *p;

	for (;;) {
		pthread_mutex_lock(&e->lock);
		p = e->peers;
		if (p)
			e->peers = p->next;
		pthread_mutex_unlock(&e->lock);
		if (!p)
			break;
		say_bye(p, adxl__deadline(1000));
		adxl__peer_put(e, p);
	}
}
