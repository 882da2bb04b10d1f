// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The listening side: one thread per listening engine polls the listening
 * socket and the links peers opened to it.  It answers hellos with this
 * engine's registration table as it is at that moment (registrations made
 * later are not visible to that peer, as in the reference), and link
 * hellos with what connects to a transport's end (link.c), queues notifies,
 * and forgets a link at BYE or EOF.  A hello is answered with tokens only
 * if the peer may have them (trust.c); otherwise with a refusal, and the
 * link is closed.  A hello from this host is first challenged: the link
 * is not read again until the client has proven its uid on the engine's
 * Unix socket, which the same thread serves (proof.c).
 *
 * The thread never waits for one peer: every socket is non-blocking, what
 * arrives is gathered per link until a message is whole, and an answer
 * the socket cannot take at once waits per link for POLLOUT.  So a peer
 * that sends half a message, or never reads its answer, delays nobody
 * else.  Bounds keep hostile peers from holding resources:
 *   - a message from a peer is small (IN_MAX): a larger header drops the
 *     link before anything is allocated;
 *   - a message, once begun, must be whole within MSG_DEADLINE_MS, and a
 *     queued answer taken within the same time;
 *   - a new link must have its hello accepted (and proven) within
 *     HELLO_DEADLINE_MS;
 *   - links waiting for that are counted per key: the uid of the client's
 *     socket on this host, the address (IPv6: the /64) of another host.
 *     A key has at most WAIT_PER_KEY of them; a new one beyond that
 *     closes the key's oldest (a good peer says hello at once).  So one
 *     user's idle connections take that user's slots only, not another's
 *     hellos.  At most MAX_WAITING wait in all; beyond that the oldest of
 *     another key than the engine's own uid goes, so the engine's user is
 *     never crowded out.  The uid comes from a socket-owner lookup, which
 *     decides no trust (trust.c): if it is fooled, a link waits in the
 *     wrong queue, and is still proven like any other;
 *   - at most MAX_LINKS links in all.
 * Peers send one message and wait for its answer, so a link is not read
 * while its answer waits: pipelined requests cannot pile up answers.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>

#include "adxl_int.h"

#define MSG_DEADLINE_MS		5000
#define HELLO_DEADLINE_MS	10000
#define MAX_LINKS		4096
#define WAIT_PER_KEY		64
#define MAX_WAITING		1024
/* Connections accepted per turn of the loop (the rest wait in the queue). */
#define ACCEPT_BATCH		64
/*
 * The kernel's queue of connections not accepted yet.  When it is full the
 * kernel drops new SYNs, whoever sends them, and a client waits a second
 * for its retry: so deep that idle connections a user holds (each one an
 * open file of theirs) rarely fill it.  net.core.somaxconn caps it (4096
 * since Linux 5.4).
 */
#define LISTEN_BACKLOG		4096
/* One message served for longer than this delays every other link. */
#define SLOW_SERVE_MS		2000
/* The largest message a peer sends us: a notify (two strings) or a hello. */
#define IN_MAX			(2 * ADXL_NOTIFY_MAX_LEN + 1024)

static void link_close(struct adxl_engine *e, size_t i, bool orderly)
{
	struct adxl_link *l = &e->links[i];

	if (!orderly && l->hello_done)
		adxl__warn("%s: peer %s closed its control connection without Disconnect (exited?)",
			   e->name, l->name);
	/* its transports' ends first: the peer reaches nothing from now on */
	adxl__transports_link_release(e, l);
	close(l->fd);
	free(l->in);
	adxl__buf_free(&l->out);
	/* a notify it held and never committed is dropped with it */
	adxl__notify_unhold(l);
	adxl__notify_link_gone(e, l->id);
	/* GetNotifies resets the links' counters under notify_lock. */
	pthread_mutex_lock(&e->notify_lock);
	e->links[i] = e->links[--e->n_links];
	pthread_mutex_unlock(&e->notify_lock);
}

static bool same_key(const struct adxl_wait_key *a,
		     const struct adxl_wait_key *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == ADXL_WAIT_UID)
		return a->uid == b->uid;
	if (a->kind == ADXL_WAIT_ADDR)
		return !memcmp(a->addr, b->addr, sizeof(a->addr));
	return true;	/* the unknown share one queue */
}

static bool key_is_ours(const struct adxl_wait_key *k)
{
	return k->kind == ADXL_WAIT_UID && k->uid == geteuid();
}

static const char *key_text(const struct adxl_wait_key *k, char *buf,
			    size_t len)
{
	if (k->kind == ADXL_WAIT_UID)
		snprintf(buf, len, "uid %u of this host", (unsigned int)k->uid);
	else if (k->kind == ADXL_WAIT_ADDR)
		inet_ntop(AF_INET6, k->addr, buf, (socklen_t)len);
	else
		snprintf(buf, len, "clients whose user could not be told");
	return buf;
}

/*
 * Make room among the links waiting for a hello for one more of key @k
 * (WAIT_PER_KEY, MAX_WAITING: the top of this file).
 */
static void wait_room(struct adxl_engine *e, const struct adxl_wait_key *k)
{
	ssize_t same = -1, other = -1;
	size_t i, n_same = 0, n_wait = 0;
	char text[INET6_ADDRSTRLEN + 40];

	for (i = 0; i < e->n_links; i++) {
		const struct adxl_link *l = &e->links[i];

		if (l->hello_done)
			continue;
		n_wait++;
		if (same_key(&l->key, k)) {
			n_same++;
			if (same < 0 || l->born_ms < e->links[same].born_ms)
				same = (ssize_t)i;
		}
		if (!key_is_ours(&l->key) &&
		    (other < 0 || l->born_ms < e->links[other].born_ms))
			other = (ssize_t)i;
	}
	if (n_same >= WAIT_PER_KEY) {
		/* Once per flood, not once per connection of it. */
		if (adxl__now_ms() - e->flood_warned_ms > 10000) {
			adxl__warn("%s: %d connections of %s without a hello; closing its oldest (a flood, or a port scan?)",
				   e->name, WAIT_PER_KEY,
				   key_text(k, text, sizeof(text)));
			e->flood_warned_ms = adxl__now_ms();
		}
		link_close(e, (size_t)same, true);
		return;
	}
	if (n_wait >= MAX_WAITING && other >= 0) {
		if (adxl__now_ms() - e->flood_warned_ms > 10000) {
			adxl__warn("%s: %d connections without a hello; closing the oldest of other users and hosts",
				   e->name, MAX_WAITING);
			e->flood_warned_ms = adxl__now_ms();
		}
		link_close(e, (size_t)other, true);
	}
}

/* Take link @fd, waiting for its hello under key @k. */
static void add_link(struct adxl_engine *e, int fd,
		     const struct adxl_wait_key *k)
{
	struct adxl_link *l;
	int one = 1;

	wait_room(e, k);
	if (e->n_links == MAX_LINKS) {
		adxl__warn("%s: %d links already, refusing another", e->name,
			   MAX_LINKS);
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	pthread_mutex_lock(&e->notify_lock);
	l = &e->links[e->n_links];
	memset(l, 0, sizeof(*l));
	l->fd = fd;
	l->id = ++e->next_link_id;
	l->born_ms = adxl__now_ms();
	l->key = *k;
	e->n_links++;
	pthread_mutex_unlock(&e->notify_lock);
	adxl__trace("%s: link %llu accepted (fd %d), waiting for its hello",
		    e->name, (unsigned long long)l->id, fd);
}

/*
 * Accept a batch of what waits (ACCEPT_BATCH at most: a peer that
 * reconnects as fast as we close its idle links must not keep us here
 * while the hellos of the links we have wait to be read), and find whose
 * slots they take all at once (trust.c reads /proc/net/tcp once for them).
 */
static void do_accept(struct adxl_engine *e)
{
	struct adxl_wait_key keys[ACCEPT_BATCH];
	int fds[ACCEPT_BATCH];
	size_t i, n = 0;

	while (n < ACCEPT_BATCH) {
		int fd = accept4(e->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd >= 0)
			fds[n++] = fd;
		else if (errno != EINTR && errno != ECONNABORTED)
			break;
	}
	if (!n)
		return;
	adxl__wait_keys(e, fds, n, keys);
	for (i = 0; i < n; i++)
		add_link(e, fds[i], &keys[i]);
}

int adxl__hello_answer(struct adxl_engine *e, struct adxl_link *l,
		       uint32_t status, const char *name, const char *why)
{
	struct adxl_hello out;
	struct adxl_buf b = { 0 };
	int ret;

	memset(&out, 0, sizeof(out));
	out.pid = (uint32_t)getpid();
	out.ident = e->ident;
	snprintf(out.name, sizeof(out.name), "%s", e->name);
	out.status = status;
	/* Tokens only for a peer that may have them. */
	if (!out.status && adxl__regs_hello(e, &out))
		return -ENOMEM;
	ret = adxl__hello_encode(&out, &b);
	free(out.regs);
	if (!ret)
		ret = adxl__frame_msg(&l->out, ADXL_MSG_HELLO_REPLY, b.data,
				      b.len);
	adxl__buf_free(&b);
	if (ret)
		return ret;
	if (out.status) {
		if (out.status != ADXL_HELLO_WRONG_NAME)
			adxl__warn("%s: refused a peer calling itself %s: %s",
				   e->name, name, why);
		/* The refusal goes out, then the link is closed. */
		l->close_when_sent = true;
		return 0;
	}
	snprintf(l->name, sizeof(l->name), "%s", name);
	/* Under notify_lock: adxl__served_links() counts from other threads. */
	pthread_mutex_lock(&e->notify_lock);
	l->hello_done = true;
	pthread_mutex_unlock(&e->notify_lock);
	return 0;
}

static int answer_hello(struct adxl_engine *e, struct adxl_link *l,
			const uint8_t *p, size_t len)
{
	struct adxl_hello in;
	char why[256] = "";
	uint32_t status;

	if (adxl__hello_decode(p, len, &in))
		return -EPROTO;
	free(in.regs);	/* a client's table: transfers are one-sided */

	/* Names are identities: the peer must use ours byte for byte. */
	if (strcmp(in.target, e->name))
		status = ADXL_HELLO_WRONG_NAME;
	else
		status = adxl__peer_allowed(e, l->fd, why, sizeof(why));
	adxl__trace("%s: link %llu: hello from %s, status %u", e->name,
		    (unsigned long long)l->id, in.name, status);
	/* This host: nothing more of this link until the client proves. */
	if (status == ADXL_HELLO_PROVE)
		return adxl__proof_challenge(e, l, in.name);
	return adxl__hello_answer(e, l, status, in.name, why);
}

/* An ack of @seq with @status, framed into l->out. */
static int notify_ack(struct adxl_link *l, uint32_t seq, uint32_t status)
{
	struct adxl_buf b = { 0 };
	int ret;

	ret = adxl__ack_encode(seq, status, &b);
	if (!ret)
		ret = adxl__frame_msg(&l->out, ADXL_MSG_NOTIFY_ACK, b.data,
				      b.len);
	adxl__buf_free(&b);
	return ret;
}

/*
 * A notify: NOTIFY (one step, of engines before) is queued at once;
 * NOTIFY_HOLD is held until its NOTIFY_COMMIT (notify.c).
 */
static int answer_notify(struct adxl_engine *e, struct adxl_link *l,
			 uint32_t type, const uint8_t *p, size_t len)
{
	const char *name, *msg;
	size_t name_len, msg_len;
	uint32_t seq, status;
	bool ok;

	if (!l->hello_done ||
	    adxl__notify_decode(p, len, &seq, &name, &name_len, &msg, &msg_len))
		return -EPROTO;
	if (type == ADXL_MSG_NOTIFY_HOLD)
		ok = adxl__notify_hold(e, l, seq, name, name_len, msg, msg_len,
				       &status);
	else
		ok = adxl__notify_queue(e, l, name, name_len, msg, msg_len,
					&status);
	if (!ok)
		status = ADXL_FAILED;
	adxl__trace("%s: link %llu (%s): notify %.*s%s, status %u", e->name,
		    (unsigned long long)l->id, l->name, (int)name_len, name,
		    type == ADXL_MSG_NOTIFY_HOLD ? " held" : "", status);
	return notify_ack(l, seq, status);
}

static int answer_commit(struct adxl_engine *e, struct adxl_link *l,
			 const uint8_t *p, size_t len)
{
	uint32_t seq, status;

	if (!l->hello_done || adxl__commit_decode(p, len, &seq))
		return -EPROTO;
	status = adxl__notify_commit(e, l, seq);
	adxl__trace("%s: link %llu (%s): notify %u committed, status %u",
		    e->name, (unsigned long long)l->id, l->name, seq, status);
	return notify_ack(l, seq, status);
}

/*
 * A WHO: a peer that lost its control connection to an engine at our
 * name asks whether we are the one it knew (peer.c).  Our identity, then
 * the link closes.
 */
static int answer_who(struct adxl_engine *e, struct adxl_link *l, size_t len)
{
	struct adxl_buf b = { 0 };
	int ret;

	if (len)
		return -EPROTO;
	adxl__ident_put(&b, &e->ident);
	ret = b.err ? -ENOMEM :
		      adxl__frame_msg(&l->out, ADXL_MSG_WHO_REPLY, b.data, b.len);
	adxl__buf_free(&b);
	if (!ret)
		l->close_when_sent = true;
	return ret;
}

/* A whole message of link @l: 0, 1 (an orderly BYE), or -errno. */
static int dispatch(struct adxl_engine *e, struct adxl_link *l,
		    uint32_t type, const uint8_t *p, size_t len)
{
	/*
	 * Nothing but a hello (or a WHO, which tells no more than a refused
	 * hello does) before the hello is answered (and proven).
	 */
	if (!l->hello_done && type != ADXL_MSG_HELLO &&
	    type != ADXL_MSG_BYE && type != ADXL_MSG_WHO)
		return -EPROTO;
	switch (type) {
	case ADXL_MSG_WHO:
		return l->hello_done ? -EPROTO : answer_who(e, l, len);
	case ADXL_MSG_HELLO:
		return l->hello_done ? -EPROTO : answer_hello(e, l, p, len);
	case ADXL_MSG_NOTIFY:
	case ADXL_MSG_NOTIFY_HOLD:
		return answer_notify(e, l, type, p, len);
	case ADXL_MSG_NOTIFY_COMMIT:
		return answer_commit(e, l, p, len);
	case ADXL_MSG_LINK_HELLO:
		return adxl__link_answer(e, l, p, len);
	case ADXL_MSG_QUERY:
		return l->hello_done ? adxl__query_answer(e, l, p, len) :
				       -EPROTO;
	case ADXL_MSG_BYE:
		return 1;
	default:
		return -EPROTO;
	}
}

/* Send what waits in l->out: 0 (all sent, or the socket is full), -errno. */
static int link_write(struct adxl_link *l)
{
	while (l->out_off < l->out.len) {
		ssize_t n = send(l->fd, l->out.data + l->out_off,
				 l->out.len - l->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -ECONNRESET;
		}
		l->out_off += (size_t)n;
	}
	adxl__buf_free(&l->out);
	l->out_off = 0;
	return 0;
}

/*
 * Send the answer that waits, as far as the socket takes it: 0, 1 once a
 * refusal is out (close the link), -errno.  An answer left over starts
 * the clock: the peer must take it within MSG_DEADLINE_MS.
 */
static int flush(struct adxl_link *l)
{
	int ret;

	if (!l->out.len)
		return 0;
	if (!l->busy_ms)
		l->busy_ms = adxl__now_ms();
	ret = link_write(l);
	if (ret || l->out.len)
		return ret;
	l->busy_ms = 0;
	return l->close_when_sent ? 1 : 0;
}

/* The header is in: check it, and make room for the payload. */
static int start_payload(struct adxl_link *l)
{
	uint32_t h[3];

	memcpy(h, l->hdr, sizeof(h));
	if (be32toh(h[0]) != ADXL_MSG_MAGIC || be32toh(h[2]) > IN_MAX)
		return -EPROTO;
	l->in_len = be32toh(h[2]);
	l->in_have = 0;
	/* One byte more: no malloc(0), and a NULL @in means "header". */
	l->in = malloc(l->in_len + 1);
	return l->in ? 0 : -ENOMEM;
}

/* The message is whole: serve it, start its answer, wait for the next. */
static int serve_message(struct adxl_engine *e, struct adxl_link *l)
{
	uint32_t h[3];
	int64_t took;
	int ret;

	memcpy(h, l->hdr, sizeof(h));
	took = adxl__now_ms();
	ret = dispatch(e, l, be32toh(h[1]), l->in, l->in_len);
	took = adxl__now_ms() - took;
	/* Every other link waits meanwhile: say so when that is long. */
	if (took > SLOW_SERVE_MS)
		adxl__warn("%s: serving message type %u of link %llu (%s) took %lld ms",
			   e->name, be32toh(h[1]), (unsigned long long)l->id,
			   l->name[0] ? l->name : "no hello yet",
			   (long long)took);
	free(l->in);
	l->in = NULL;
	l->in_len = l->in_have = l->hdr_have = 0;
	l->busy_ms = 0;
	return ret ? ret : flush(l);
}

/*
 * Read what link @l has for us, and serve every message that is whole:
 * 0 while the link lives, 1 to close it (a BYE, a refusal sent), -errno
 * to drop it.
 */
static int link_read(struct adxl_engine *e, struct adxl_link *l)
{
	for (;;) {
		uint8_t *dst;
		size_t want;
		ssize_t n;
		int ret;

		if (l->out.len)
			return 0;	/* the answer first */
		/*
		 * Challenged: what the client sent after its hello stays in
		 * the socket, unread, until the proof decides (proof.c).
		 */
		if (l->proving)
			return 0;
		if (l->in && l->in_have == l->in_len) {
			ret = serve_message(e, l);
			if (ret)
				return ret;
			continue;
		}
		if (!l->in) {
			dst = l->hdr + l->hdr_have;
			want = sizeof(l->hdr) - l->hdr_have;
		} else {
			dst = l->in + l->in_have;
			want = l->in_len - l->in_have;
		}
		n = recv(l->fd, dst, want, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			return -ECONNRESET;
		}
		/* A message has begun: it must be whole in time. */
		if (!l->busy_ms)
			l->busy_ms = adxl__now_ms();
		if (l->in) {
			l->in_have += (size_t)n;
			continue;
		}
		l->hdr_have += (size_t)n;
		if (l->hdr_have == sizeof(l->hdr)) {
			ret = start_payload(l);
			if (ret)
				return ret;
		}
	}
}

/* Why link @l is to be dropped now, or NULL; *wait_ms: until when not. */
static const char *link_expired(const struct adxl_link *l, int64_t now,
				int64_t hello_ms, int64_t *wait_ms)
{
	int64_t left;

	if (l->busy_ms) {
		left = l->busy_ms + MSG_DEADLINE_MS - now;
		if (left <= 0)
			return l->out.len ? "it does not read its answer" :
					    "it stalled in the middle of a message";
		if (*wait_ms < 0 || left < *wait_ms)
			*wait_ms = left;
	}
	if (!l->hello_done) {
		left = l->born_ms + hello_ms - now;
		if (left <= 0)
			return l->proving ? "its user not proven in time" :
					    "no hello in time";
		if (*wait_ms < 0 || left < *wait_ms)
			*wait_ms = left;
	}
	return NULL;
}

static void drop(struct adxl_engine *e, size_t i, int why)
{
	struct adxl_link *l = &e->links[i];

	if (why == 1) {
		link_close(e, i, true);
		return;
	}
	if (why == -EPROTO)
		adxl__warn("%s: dropping a link that does not speak the ADXL control protocol",
			   e->name);
	else if (why != -ECONNRESET)
		adxl__warn("%s: dropping a link: %s", e->name, strerror(-why));
	link_close(e, i, !l->hello_done);
}

static void *server_main(void *arg)
{
	struct adxl_engine *e = arg;
	int64_t hello_ms = e->hello_deadline_ms > 0 ? e->hello_deadline_ms :
						    HELLO_DEADLINE_MS;
	struct pollfd *pfd;
	size_t i, n, np;

	pfd = calloc(MAX_LINKS + 2 + 1 + ADXL_MAX_PROVERS, sizeof(*pfd));
	if (!pfd) {
		adxl__err("%s: listener: out of memory", e->name);
		return NULL;
	}
	for (;;) {
		int64_t now = adxl__now_ms(), wait_ms = -1;
		const char *why;
		int ret;

		/* Backwards: closing a link moves the last one into its slot. */
		for (i = e->n_links; i-- > 0;) {
			struct adxl_link *l = &e->links[i];

			why = link_expired(l, now, hello_ms, &wait_ms);
			/*
			 * What arrived while this thread was busy elsewhere
			 * counts: read it before judging.  A hello that came in
			 * time, unread because serving another link took long,
			 * is no reason to drop the link.  The deadlines do not
			 * move: a peer that trickles still runs out of time.
			 */
			if (why && !l->proving) {
				ret = flush(l);
				if (!ret)
					ret = link_read(e, l);
				if (ret) {
					drop(e, i, ret);
					continue;
				}
				why = link_expired(l, adxl__now_ms(), hello_ms,
						   &wait_ms);
			}
			if (why) {
				adxl__warn("%s: dropping a link: %s", e->name,
					   why);
				link_close(e, i, true);
			}
		}
		pfd[0] = (struct pollfd){ .fd = e->wake_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = e->listen_fd, .events = POLLIN };
		n = e->n_links;
		for (i = 0; i < n; i++) {
			const struct adxl_link *l = &e->links[i];

			pfd[i + 2] = (struct pollfd){
				.fd = l->fd,
				.events = l->out.len ? POLLOUT : POLLIN,
			};
			/*
			 * Challenged: not read, so not POLLIN (what it
			 * pipelined would wake us at once, forever); only
			 * whether the client went away.
			 */
			if (l->proving)
				pfd[i + 2].events = (short)(POLLRDHUP |
					(l->out.len ? POLLOUT : 0));
		}
		np = adxl__proof_pollfds(e, pfd + n + 2);
		if (poll(pfd, n + 2 + np, (int)wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		for (i = n; i-- > 0;) {
			struct adxl_link *l = &e->links[i];

			if (!pfd[i + 2].revents)
				continue;
			ret = flush(l);
			/* Once the answer is out, what the peer sent next. */
			if (!ret && !l->proving)
				ret = link_read(e, l);
			/* Gone before it proved: nothing it sent counts. */
			else if (!ret && (pfd[i + 2].revents &
					  (POLLRDHUP | POLLHUP | POLLERR)))
				ret = -ECONNRESET;
			if (ret)
				drop(e, i, ret);
		}
		adxl__proof_serve(e, pfd + n + 2, np, adxl__now_ms(),
				  &wait_ms);
		if (pfd[1].revents)
			do_accept(e);
	}
	free(pfd);
	return NULL;
}

adxl_status_t adxl__server_start(struct adxl_engine *e)
{
	int one = 1, err;

	e->links = calloc(MAX_LINKS, sizeof(*e->links));
	if (!e->links)
		return ADXL_FAILED;
	e->listen_fd = socket(e->addr.family,
			      SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (e->listen_fd < 0)
		goto err;
	setsockopt(e->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(e->listen_fd, (struct sockaddr *)&e->addr.sa, e->addr.sa_len) ||
	    listen(e->listen_fd, LISTEN_BACKLOG))
		goto err;
	e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->wake_fd < 0)
		goto err;
	/* Said why already: only the rest to undo. */
	if (adxl__proof_start(e))
		goto err_said;
	err = pthread_create(&e->server, NULL, server_main, e);
	if (err) {
		errno = err;
		goto err;
	}
	e->server_running = true;
	return ADXL_SUCCESS;

err:
	err = errno;
	adxl__err("Initialize: cannot listen on %s: %s", e->name, strerror(err));
err_said:
	adxl__proof_stop(e);
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	if (e->listen_fd >= 0)
		close(e->listen_fd);
	e->wake_fd = e->listen_fd = -1;
	free(e->links);
	e->links = NULL;
	return ADXL_FAILED;
}

void adxl__server_stop(struct adxl_engine *e)
{
	uint64_t one = 1;
	size_t i;

	if (!e->server_running)
		return;
	if (write(e->wake_fd, &one, sizeof(one)) != sizeof(one))
		adxl__warn("%s: cannot wake the listener", e->name);
	pthread_join(e->server, NULL);
	e->server_running = false;
	pthread_mutex_lock(&e->notify_lock);
	for (i = 0; i < e->n_links; i++) {
		adxl__transports_link_release(e, &e->links[i]);
		close(e->links[i].fd);
		free(e->links[i].in);
		adxl__buf_free(&e->links[i].out);
		adxl__notify_unhold(&e->links[i]);
	}
	e->n_links = 0;
	free(e->links);
	e->links = NULL;
	pthread_mutex_unlock(&e->notify_lock);
	/* The proof socket's abstract name goes with it. */
	adxl__proof_stop(e);
	close(e->listen_fd);
	close(e->wake_fd);
	e->listen_fd = e->wake_fd = -1;
}
