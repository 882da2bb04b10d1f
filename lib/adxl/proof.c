// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The same-host proof: a client on this host shows that it runs as the
 * engine's user before its hello is answered (trust.c says who must).
 *
 * Why not ask who owns the client's TCP socket: the owner is whoever
 * created the socket, not whoever uses it, and a socket closed a moment
 * ago is a TIME_WAIT socket that the kernel reports as uid 0.  A uid 1000
 * process that sent HELLO and NOTIFY in one write and closed got its
 * notifies into root's engine so.  The proof asks the kernel instead,
 * about a process that acts now:
 *
 *   1. The hello comes in on TCP from a local address.  The listener
 *      answers with a challenge (PROVE): the abstract name of its Unix
 *      socket and 32 random bytes, and reads nothing more from the link
 *      until the proof decides it.  What a client pipelined after its
 *      hello waits unread in the socket, and is dropped with the link if
 *      the proof fails or never comes.
 *   2. The client connects to that Unix socket and sends the nonce and
 *      the TCP connection's two addresses as its kernel reports them
 *      (PROOF).  The kernel records the connecting process's credentials
 *      at connect(); SO_PEERCRED reads them, so the uid is the one of the
 *      process that answers the challenge, whoever made the TCP socket.
 *   3. The link with that nonce is served (HELLO_REPLY with the table)
 *      only if that uid is the engine's effective uid and the addresses
 *      are the link's; otherwise it is refused and closed.  A nonce is
 *      good for one attempt.
 *
 * The addresses bind the proof to one connection: a client that proves a
 * nonce some third process relayed to it (one that listens where the
 * client meant to connect and itself connected to us) names its own
 * connection, not the relay's, and the relay's link is refused.
 *
 * The socket's name is random (the abstract namespace has no permissions,
 * and anyone could take a fixed name first); anyone may connect to it,
 * which is harmless: SO_PEERCRED and the nonce decide, and connections
 * are few per uid (PROVERS_PER_UID) and short (PROOF_DEADLINE_MS).  An
 * abstract name needs no directory and vanishes with the socket when the
 * engine stops or dies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include <sys/un.h>

#include "adxl_int.h"

/* A proof connection says its piece and takes its answer within this. */
#define PROOF_DEADLINE_MS	5000
/*
 * Proof connections of one uid at once: a client proves once per Connect
 * and is done in a round trip, so a uid with more is flooding and loses
 * its oldest ones (a client whose proof connection is closed so dials
 * again, as when its TCP link is closed before the answer).
 */
#define PROVERS_PER_UID		64
/* A proof is a small fixed message; anything larger is not one. */
#define PROOF_MAX		96

static int fill_random(void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static socklen_t abstract_addr(const char *name, struct sockaddr_un *un)
{
	size_t n = strlen(name);

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	/* sun_path[0] = '\0': the abstract namespace, no file */
	memcpy(un->sun_path + 1, name, n);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

int adxl__proof_start(struct adxl_engine *e)
{
	struct sockaddr_un un;
	uint8_t r[8];
	int tries, err = EADDRINUSE;

	e->provers = calloc(ADXL_MAX_PROVERS, sizeof(*e->provers));
	e->proof_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			     SOCK_CLOEXEC, 0);
	if (!e->provers || e->proof_fd < 0) {
		err = e->provers ? errno : ENOMEM;
		goto fail;
	}
	/* A name someone else took (or guessed) first: another one. */
	for (tries = 0; tries < 16 && err == EADDRINUSE; tries++) {
		err = -fill_random(r, sizeof(r));
		if (err)
			goto fail;
		snprintf(e->proof_name, sizeof(e->proof_name),
			 "memreg-adxl/%d/%02x%02x%02x%02x%02x%02x%02x%02x",
			 (int)getpid(), r[0], r[1], r[2], r[3], r[4], r[5],
			 r[6], r[7]);
		err = bind(e->proof_fd, (struct sockaddr *)&un,
			   abstract_addr(e->proof_name, &un)) ? errno : 0;
	}
	if (err || listen(e->proof_fd, 128)) {
		err = err ? err : errno;
		goto fail;
	}
	return 0;

fail:
	adxl__err("Initialize: cannot make the socket where clients of this host prove their user: %s",
		  strerror(err));
	adxl__proof_stop(e);
	return -err;
}

static void prover_close(struct adxl_engine *e, size_t i)
{
	close(e->provers[i].fd);
	adxl__buf_free(&e->provers[i].out);
	e->provers[i] = e->provers[--e->n_provers];
}

void adxl__proof_stop(struct adxl_engine *e)
{
	while (e->n_provers)
		prover_close(e, e->n_provers - 1);
	free(e->provers);
	e->provers = NULL;
	if (e->proof_fd >= 0)
		close(e->proof_fd);
	e->proof_fd = -1;
	e->proof_name[0] = '\0';
}

int adxl__proof_challenge(struct adxl_engine *e, struct adxl_link *l,
			  const char *peer_name)
{
	struct adxl_prove v;
	struct adxl_buf b = { 0 };
	int ret;

	if (e->proof_fd < 0)
		return -ENOTCONN;
	memset(&v, 0, sizeof(v));
	snprintf(v.name, sizeof(v.name), "%s", e->proof_name);
	ret = fill_random(v.nonce, sizeof(v.nonce));
	if (ret)
		return ret;
	ret = adxl__prove_encode(&v, &b);
	if (!ret)
		ret = adxl__frame_msg(&l->out, ADXL_MSG_PROVE, b.data, b.len);
	adxl__buf_free(&b);
	if (ret)
		return ret;
	memcpy(l->nonce, v.nonce, sizeof(l->nonce));
	/* For the log only: the link is nobody until it is proven. */
	snprintf(l->name, sizeof(l->name), "%s", peer_name);
	l->proving = true;
	return 0;
}

size_t adxl__proof_pollfds(struct adxl_engine *e, struct pollfd *pfd)
{
	size_t i;

	pfd[0] = (struct pollfd){ .fd = e->proof_fd, .events = POLLIN };
	for (i = 0; i < e->n_provers; i++)
		pfd[i + 1] = (struct pollfd){
			.fd = e->provers[i].fd,
			.events = e->provers[i].out.len ? POLLOUT : POLLIN,
		};
	return e->n_provers + 1;
}

/* An address as 16 bytes (IPv4 as ::ffff:a.b.c.d) and its port. */
static int addr16(const struct sockaddr_storage *ss, uint8_t out[16],
		  uint32_t *port)
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;

		out[10] = out[11] = 0xff;
		memcpy(out + 12, &s->sin_addr, 4);
		*port = ntohs(s->sin_port);
		return 0;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;

		memcpy(out, &s->sin6_addr, 16);
		*port = ntohs(s->sin6_port);
		return 0;
	}
	return -EAFNOSUPPORT;
}

/* The two ends of TCP socket @fd: its own (@me) and its peer's. */
static int link_ends(int fd, uint8_t me[16], uint32_t *me_port,
		     uint8_t peer[16], uint32_t *peer_port)
{
	struct sockaddr_storage a, b;
	socklen_t al = sizeof(a), bl = sizeof(b);

	if (getsockname(fd, (struct sockaddr *)&a, &al) ||
	    getpeername(fd, (struct sockaddr *)&b, &bl))
		return -errno;
	if (addr16(&a, me, me_port) || addr16(&b, peer, peer_port))
		return -EAFNOSUPPORT;
	return 0;
}

/* Compare secrets in a time that does not depend on where they differ. */
static bool same_secret(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint8_t d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return !d;
}

/* Whether proof @f names the connection of link @l. */
static bool proof_names_link(const struct adxl_proof *f,
			     const struct adxl_link *l)
{
	uint8_t me[16], peer[16];
	uint32_t me_port, peer_port;

	if (link_ends(l->fd, me, &me_port, peer, &peer_port))
		return false;
	return !memcmp(f->client_addr, peer, 16) &&
	       f->client_port == peer_port &&
	       !memcmp(f->server_addr, me, 16) && f->server_port == me_port;
}

/* Decide the link proof @f names: the status to answer the prover. */
static uint32_t decide(struct adxl_engine *e, const struct adxl_prover *pv,
		       const struct adxl_proof *f)
{
	struct adxl_link *l = NULL;
	char why[256];
	size_t i;

	for (i = 0; i < e->n_links; i++) {
		if (e->links[i].proving &&
		    same_secret(e->links[i].nonce, f->nonce, ADXL_NONCE_LEN)) {
			l = &e->links[i];
			break;
		}
	}
	if (!l)
		return ADXL_PROOF_UNKNOWN;
	/* One attempt per nonce, whatever it comes to. */
	l->proving = false;
	memset(l->nonce, 0, sizeof(l->nonce));
	if (!proof_names_link(f, l)) {
		/*
		 * The nonce reached a process that is not at the end of this
		 * link: relayed by whoever holds the link.  Not served.
		 */
		snprintf(why, sizeof(why),
			 "the answer to its challenge (from pid %d, uid %u) came for another connection: a relayed challenge?",
			 (int)pv->pid, (unsigned int)pv->uid);
		if (adxl__hello_answer(e, l, ADXL_HELLO_OTHER_USER, l->name,
				       why))
			l->proving = true;	/* the deadline drops it */
		return ADXL_PROOF_OTHER_LINK;
	}
	if (pv->uid != geteuid()) {
		snprintf(why, sizeof(why),
			 "uid %u (pid %d) answered the challenge of its connection, this engine runs as uid %u",
			 (unsigned int)pv->uid, (int)pv->pid,
			 (unsigned int)geteuid());
		if (adxl__hello_answer(e, l, ADXL_HELLO_OTHER_USER, l->name,
				       why))
			l->proving = true;
		return ADXL_PROOF_OTHER_USER;
	}
	if (adxl__hello_answer(e, l, ADXL_HELLO_OK, l->name, NULL))
		l->proving = true;
	return ADXL_PROOF_OK;
}

/*
 * Read what prover @pv sent; once the proof is whole, decide it and queue
 * the answer.  0 while it lives, -errno to close it.
 */
static int prover_read(struct adxl_engine *e, struct adxl_prover *pv)
{
	struct adxl_proof f;
	struct adxl_buf b = { 0 };
	uint32_t h[3], status;
	size_t want = ADXL_MSG_HDR_LEN;
	ssize_t n;
	int ret;

	if (pv->in_have >= ADXL_MSG_HDR_LEN) {
		memcpy(h, pv->in, sizeof(h));
		want += be32toh(h[2]);
	}
	n = recv(pv->fd, pv->in + pv->in_have, want - pv->in_have,
		 MSG_DONTWAIT);
	if (n == 0)
		return -ECONNRESET;
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	pv->in_have += (size_t)n;
	if (pv->in_have < ADXL_MSG_HDR_LEN)
		return 0;
	memcpy(h, pv->in, sizeof(h));
	if (be32toh(h[0]) != ADXL_MSG_MAGIC ||
	    be32toh(h[1]) != ADXL_MSG_PROOF || be32toh(h[2]) > PROOF_MAX)
		return -EPROTO;
	if (pv->in_have < ADXL_MSG_HDR_LEN + be32toh(h[2]))
		return 0;	/* the rest follows */
	if (adxl__proof_decode(pv->in + ADXL_MSG_HDR_LEN, be32toh(h[2]), &f))
		return -EPROTO;
	status = decide(e, pv, &f);
	adxl__buf_u32(&b, status);
	ret = b.err ? -ENOMEM :
		adxl__frame_msg(&pv->out, ADXL_MSG_PROOF_REPLY, b.data, b.len);
	adxl__buf_free(&b);
	return ret;
}

/* Send the answer: 0 while some is left, 1 once it is out, -errno. */
static int prover_write(struct adxl_prover *pv)
{
	while (pv->out_off < pv->out.len) {
		ssize_t n = send(pv->fd, pv->out.data + pv->out_off,
				 pv->out.len - pv->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		pv->out_off += (size_t)n;
	}
	return 1;
}

/*
 * Room for a prover of @uid: beyond PROVERS_PER_UID the uid's oldest
 * goes; when all are taken, the oldest of another uid than the engine's
 * (ours are never crowded out by others).  false: no room for it.
 */
static bool prover_room(struct adxl_engine *e, uid_t uid)
{
	ssize_t mine = -1, other = -1;
	size_t i, n_mine = 0;

	for (i = 0; i < e->n_provers; i++) {
		const struct adxl_prover *pv = &e->provers[i];

		if (pv->uid == uid) {
			n_mine++;
			if (mine < 0 || pv->born_ms < e->provers[mine].born_ms)
				mine = (ssize_t)i;
		}
		if (pv->uid != geteuid() &&
		    (other < 0 || pv->born_ms < e->provers[other].born_ms))
			other = (ssize_t)i;
	}
	if (n_mine >= PROVERS_PER_UID) {
		prover_close(e, (size_t)mine);
		return true;
	}
	if (e->n_provers < ADXL_MAX_PROVERS)
		return true;
	if (other < 0)
		return false;
	prover_close(e, (size_t)other);
	return true;
}

static void prover_accept(struct adxl_engine *e)
{
	for (;;) {
		struct ucred cred;
		socklen_t len = sizeof(cred);
		struct adxl_prover *pv;
		int fd;

		fd = accept4(e->proof_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		/* The kernel's word on who connected, taken at connect(). */
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
		    !prover_room(e, cred.uid)) {
			close(fd);
			continue;
		}
		pv = &e->provers[e->n_provers++];
		memset(pv, 0, sizeof(*pv));
		pv->fd = fd;
		pv->uid = cred.uid;
		pv->pid = cred.pid;
		pv->born_ms = adxl__now_ms();
	}
}

void adxl__proof_serve(struct adxl_engine *e, const struct pollfd *pfd,
		       size_t n, int64_t now, int64_t *wait_ms)
{
	size_t i;

	if (e->proof_fd < 0 || !n)
		return;
	/* Backwards: closing one moves the last into its slot. */
	for (i = n - 1; i-- > 0;) {
		struct adxl_prover *pv = &e->provers[i];
		int ret = 0;

		if (pfd[i + 1].revents) {
			if (!pv->out.len)
				ret = prover_read(e, pv);
			if (!ret && pv->out.len)
				ret = prover_write(pv);
		}
		if (!ret && now - pv->born_ms >= PROOF_DEADLINE_MS)
			ret = -ETIMEDOUT;
		if (ret) {
			prover_close(e, i);
			continue;
		}
		if (*wait_ms < 0 ||
		    pv->born_ms + PROOF_DEADLINE_MS - now < *wait_ms)
			*wait_ms = pv->born_ms + PROOF_DEADLINE_MS - now;
	}
	if (pfd[0].revents)
		prover_accept(e);
}

/* ---- the client's side ---- */

adxl_status_t adxl__proof_give(int fd, const uint8_t *p, size_t len,
			       const char *peer, int64_t deadline, bool *closed)
{
	struct adxl_prove v;
	struct adxl_proof f;
	struct adxl_buf b = { 0 };
	struct sockaddr_un un;
	struct timeval tv;
	uint8_t *msg = NULL;
	uint32_t type, status;
	int64_t left;
	size_t mlen;
	int u, ret;

	if (adxl__prove_decode(p, len, &v)) {
		adxl__err("Connect %s: malformed challenge", peer);
		return ADXL_FAILED;
	}
	memset(&f, 0, sizeof(f));
	memcpy(f.nonce, v.nonce, sizeof(f.nonce));
	/* Our connection as our kernel sees it: the proof is for it alone. */
	if (link_ends(fd, f.client_addr, &f.client_port, f.server_addr,
		      &f.server_port)) {
		adxl__err("Connect %s: the control connection is gone", peer);
		return ADXL_FAILED;
	}
	left = deadline < 0 ? 60000 : deadline - adxl__now_ms();
	if (left <= 0)
		goto timeout;
	u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (u < 0) {
		adxl__err("Connect %s: %s", peer, strerror(errno));
		return ADXL_FAILED;
	}
	/* connect() on a Unix socket waits for a full backlog this long. */
	tv.tv_sec = left / 1000;
	tv.tv_usec = (left % 1000) * 1000;
	setsockopt(u, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(u, (struct sockaddr *)&un, abstract_addr(v.name, &un))) {
		ret = errno;
		close(u);
		if (ret == EAGAIN || ret == EINPROGRESS)
			goto timeout;
		adxl__err("Connect %s: cannot reach the engine's proof socket @%s: %s",
			  peer, v.name, strerror(ret));
		return ADXL_FAILED;
	}
	ret = adxl__proof_encode(&f, &b);
	if (!ret)
		ret = adxl__send_msg(u, ADXL_MSG_PROOF, b.data, b.len,
				     deadline);
	adxl__buf_free(&b);
	if (!ret)
		ret = adxl__recv_msg(u, &type, &msg, &mlen, deadline);
	close(u);
	if (ret == -ETIMEDOUT)
		goto timeout;
	if (!ret && (type != ADXL_MSG_PROOF_REPLY || mlen != 4))
		ret = -EPROTO;
	/* Closed before it answered (a crowd of provers): dial again. */
	if (ret == -ECONNRESET || ret == -EPIPE) {
		*closed = true;
		return ADXL_FAILED;
	}
	if (ret) {
		free(msg);
		adxl__err("Connect %s: proving our user failed: %s", peer,
			  ret == -EPROTO ? "not an ADXL engine" :
					   strerror(-ret));
		return ADXL_FAILED;
	}
	memcpy(&status, msg, 4);
	status = be32toh(status);
	free(msg);
	/*
	 * A refusal also comes as the hello's answer on the TCP link, which
	 * the caller reads next and reports; a proof the engine did not
	 * know has no such answer.
	 */
	if (status == ADXL_PROOF_UNKNOWN) {
		adxl__err("Connect %s: the engine did not accept our proof of user",
			  peer);
		return ADXL_FAILED;
	}
	return ADXL_SUCCESS;

timeout:
	adxl__err("Connect %s: no answer to hello in time (while proving our user)",
		  peer);
	return ADXL_TIMEOUT;
}
