// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A listening engine's control port against a hostile client on raw
 * sockets: garbage, truncated, oversized and out-of-order messages,
 * half-sent messages held open, floods of connections that never say
 * hello, and a peer of another user.  After each, the engine still
 * serves a good peer at once (Connect, a notify), drops what it must,
 * and keeps nothing of the bad links.  Also the allow-list and the
 * socket-owner lookup of lib/adxl/trust.c, the same-host proof of
 * lib/adxl/proof.c (a wrong nonce, a proof for another connection,
 * messages pipelined behind a hello, a link that never proves) and the
 * per-uid caps on links waiting for a hello.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <grp.h>
#include <signal.h>

#include "adxl_int.h"
#include "fake_kernel.h"
#include "tests.h"

static char S[32], C[32];
static int s_port;
/* The server's hello deadline for the next setup(); 0: the default. */
static int64_t setup_hello_ms;

struct port {
	adxl_engine_t *s, *c;
	uint8_t *mem;
	adxl_mem_handle_t h;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static int setup(void **state)
{
	struct port *p = calloc(1, sizeof(*p));
	struct adxl_mem_desc d;
	int tries;

	if (fake_kernel_setup())
		return -1;
	fake_set_instance(0x42);
	srand((unsigned int)time(NULL) ^ (unsigned int)getpid() * 31);
	p->mem = calloc(1, 1 << 16);
	if (!p || !p->mem || adxl_engine_create(&p->s) ||
	    adxl_engine_create(&p->c))
		return -1;
	p->s->hello_deadline_ms = setup_hello_ms;
	for (tries = 0;; tries++) {
		s_port = 20000 + rand() % 40000;
		snprintf(S, sizeof(S), "127.0.0.1:%d", s_port);
		if (!adxl_initialize(p->s, S, NULL, 0))
			break;
		if (tries == 50)
			return -1;
	}
	snprintf(C, sizeof(C), "127.0.0.1");
	if (adxl_initialize(p->c, C, NULL, 0))
		return -1;
	d = (struct adxl_mem_desc){ (uintptr_t)p->mem, 1 << 16 };
	if (adxl_register_mem(p->s, &d, ADXL_MEM_HOST, &p->h))
		return -1;
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct port *p = *state;

	adxl_engine_destroy(p->c);
	adxl_engine_destroy(p->s);
	free(p->mem);
	free(p);
	fake_kernel_teardown();
	return 0;
}

static int raw_connect(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)s_port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static void raw_send(int fd, const void *p, size_t n)
{
	assert_int_equal(send(fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* A frame of @type around @payload, as a peer would send it. */
static void send_frame(int fd, uint32_t type, const void *payload, size_t n)
{
	struct adxl_buf b = { 0 };

	assert_int_equal(adxl__frame_msg(&b, type, payload, n), 0);
	raw_send(fd, b.data, b.len);
	adxl__buf_free(&b);
}

static void send_hello(int fd, const char *target)
{
	struct adxl_hello h = { .pid = (uint32_t)getpid() };
	struct adxl_buf b = { 0 };

	snprintf(h.name, sizeof(h.name), "raw-client");
	snprintf(h.target, sizeof(h.target), "%s", target);
	assert_int_equal(adxl__hello_encode(&h, &b), 0);
	send_frame(fd, ADXL_MSG_HELLO, b.data, b.len);
	adxl__buf_free(&b);
}

/* One message from @fd within 3 s: its type, the payload in *msg. */
static uint32_t recv_one(int fd, uint8_t **msg, size_t *len)
{
	uint32_t type = 0;

	assert_int_equal(adxl__recv_msg(fd, &type, msg, len,
					adxl__deadline(3000)), 0);
	return type;
}

/* The engine's challenge to a hello on @fd, decoded. */
static void recv_prove(int fd, struct adxl_prove *v)
{
	uint8_t *msg;
	size_t len;

	assert_int_equal(recv_one(fd, &msg, &len), ADXL_MSG_PROVE);
	assert_int_equal(adxl__prove_decode(msg, len, v), 0);
	free(msg);
}

/* The proof for challenge @v as the client library makes it. */
static adxl_status_t give_proof(int fd, const struct adxl_prove *v)
{
	struct adxl_buf b = { 0 };
	adxl_status_t st;
	bool closed = false;

	assert_int_equal(adxl__prove_encode(v, &b), 0);
	st = adxl__proof_give(fd, b.data, b.len, S, adxl__deadline(3000),
			      &closed);
	assert_false(closed);
	adxl__buf_free(&b);
	return st;
}

/* The hello's answer on @fd: its status; *n_regs the tokens it carried. */
static uint32_t recv_hello_reply(int fd, size_t *n_regs)
{
	struct adxl_hello in;
	uint8_t *msg;
	size_t len;

	assert_int_equal(recv_one(fd, &msg, &len), ADXL_MSG_HELLO_REPLY);
	assert_int_equal(adxl__hello_decode(msg, len, &in), 0);
	free(msg);
	free(in.regs);
	*n_regs = in.n_regs;
	return in.status;
}

/* A hello, challenged, proven: the link is served. */
static void send_hello_proven(int fd, const char *target)
{
	struct adxl_prove v;
	size_t n_regs;

	send_hello(fd, target);
	recv_prove(fd, &v);
	assert_int_equal(give_proof(fd, &v), ADXL_SUCCESS);
	assert_int_equal(recv_hello_reply(fd, &n_regs), ADXL_HELLO_OK);
	assert_int_equal(n_regs, 1);
}

/*
 * Wait up to @ms for the server to close @fd (EOF or reset), reading and
 * discarding what it sends first: true if it did.
 */
static bool closed_within(int fd, int ms)
{
	double end = now_ms() + ms;
	char buf[4096];

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int left = (int)(end - now_ms());
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return false;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return true;
	}
}

static size_t links(adxl_engine_t *e)
{
	size_t n;

	pthread_mutex_lock(&e->notify_lock);
	n = e->n_links;
	pthread_mutex_unlock(&e->notify_lock);
	return n;
}

/* The server's links drop to @want within @ms. */
static bool links_become(adxl_engine_t *e, size_t want, int ms)
{
	double end = now_ms() + ms;

	while (links(e) != want) {
		if (now_ms() > end)
			return false;
		usleep(10000);
	}
	return true;
}

static unsigned int notifies_seen;

static void count_notify(const char *name, size_t name_len, const char *msg,
			 size_t msg_len, void *arg)
{
	(void)name;
	(void)name_len;
	(void)msg;
	(void)msg_len;
	(void)arg;
	notifies_seen++;
}

/* The good peer: Connect, a notify the server receives, Disconnect. */
static double good_peer_ms(struct port *p)
{
	double t0 = now_ms(), t;

	assert_int_equal(adxl_connect(p->c, S, 3000), ADXL_SUCCESS);
	t = now_ms() - t0;
	assert_int_equal(adxl_send_notify(p->c, S, "n", 1, "m", 1, 3000),
			 ADXL_SUCCESS);
	notifies_seen = 0;
	assert_int_equal(adxl_get_notifies(p->s, count_notify, NULL),
			 ADXL_SUCCESS);
	assert_int_equal(notifies_seen, 1);
	assert_int_equal(adxl_disconnect(p->c, S, 1000), ADXL_SUCCESS);
	return t;
}

static void test_bad_messages_are_dropped(void **state)
{
	static const char http[] = "GET / HTTP/1.0\r\n\r\n";
	struct port *p = *state;
	uint32_t hdr[3];
	int fds0 = open_fds(), fd;

	/* Not our protocol at all. */
	fd = raw_connect();
	raw_send(fd, http, sizeof(http) - 1);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* Our magic, a length far over what a peer ever sends. */
	fd = raw_connect();
	hdr[0] = htonl(ADXL_MSG_MAGIC);
	hdr[1] = htonl(ADXL_MSG_HELLO);
	hdr[2] = htonl(ADXL_MSG_MAX_LEN);
	raw_send(fd, hdr, sizeof(hdr));
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* Out of order: a notify, a link hello, a reply before any hello. */
	fd = raw_connect();
	send_frame(fd, ADXL_MSG_NOTIFY, "\0\0\0\1\0\0\0\0\0\0\0\0", 12);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	/* transport 1 (UCX), its version 4, no info: good, but too early */
	send_frame(fd, ADXL_MSG_LINK_HELLO, "\0\0\0\1" "\0\0\0\4" "\0\0\0\0",
		   12);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	send_frame(fd, ADXL_MSG_HELLO_REPLY, NULL, 0);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* A hello whose strings lie about their length. */
	fd = raw_connect();
	send_frame(fd, ADXL_MSG_HELLO,
		   "\0\0\0\0\0\0\0\1" "0123456789abcdef" "\xff\xff\xff\xff", 28);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* A good hello, then the same hello again (replayed): dropped. */
	fd = raw_connect();
	send_hello_proven(fd, S);
	send_hello(fd, S);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/*
	 * After a good hello: a link hello of another version, of a
	 * transport there is none of, a truncated one.
	 */
	fd = raw_connect();
	send_hello_proven(fd, S);
	send_frame(fd, ADXL_MSG_LINK_HELLO, "\0\0\0\1" "\0\0\0\x63" "\0\0\0\0",
		   12);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	send_hello_proven(fd, S);
	send_frame(fd, ADXL_MSG_LINK_HELLO, "\0\0\0\x63" "\0\0\0\1" "\0\0\0\0",
		   12);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	send_hello_proven(fd, S);
	send_frame(fd, ADXL_MSG_LINK_HELLO, "\0\0\0\1\0\0", 6);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* A truncated header, and the client goes away. */
	fd = raw_connect();
	raw_send(fd, hdr, 5);
	close(fd);

	assert_true(good_peer_ms(p) < 1000);
	assert_true(links_become(p->s, 0, 2000));
	assert_int_equal(open_fds(), fds0);
}

/*
 * Eight peers that send a byte, eight that send a header and part of the
 * payload, eight that said hello and then sent half a notify: the good
 * peer is served at once, and the stalled ones are dropped after the
 * message deadline (5 s), not served first.
 */
static void test_stalled_peers_delay_nobody(void **state)
{
	struct port *p = *state;
	int fd[24], i;
	double ms;
	uint32_t hdr[3] = { htonl(ADXL_MSG_MAGIC), htonl(ADXL_MSG_NOTIFY),
			    htonl(100) };

	for (i = 0; i < 8; i++) {
		fd[i] = raw_connect();
		raw_send(fd[i], "A", 1);
		fd[8 + i] = raw_connect();
		raw_send(fd[8 + i], hdr, sizeof(hdr));
		raw_send(fd[8 + i], "0123456789", 10);
		fd[16 + i] = raw_connect();
		send_hello_proven(fd[16 + i], S);
		raw_send(fd[16 + i], hdr, sizeof(hdr));
	}
	assert_true(links_become(p->s, 24, 2000));
	ms = good_peer_ms(p);
	printf("# Connect with 24 stalled links open: %.1f ms\n", ms);
	assert_true(ms < 1000);
	/* Dropped by the message deadline, each. */
	for (i = 0; i < 24; i++)
		assert_true(closed_within(fd[i], 8000));
	for (i = 0; i < 24; i++)
		close(fd[i]);
	assert_true(links_become(p->s, 0, 2000));
}

/*
 * 300 connections that never say anything: at most 64 wait for a hello
 * at once (the oldest are closed to make room), and a good peer still
 * gets in at once.
 */
static void test_connection_flood(void **state)
{
	struct port *p = *state;
	int fd[300], i, closed = 0, fds0 = open_fds();
	double ms;

	for (i = 0; i < 300; i++)
		fd[i] = raw_connect();
	usleep(200000);
	ms = good_peer_ms(p);
	printf("# Connect after 300 silent connections: %.1f ms\n", ms);
	assert_true(ms < 1000);
	for (i = 0; i < 300; i++)
		closed += closed_within(fd[i], 50);
	printf("# closed by the engine: %d of 300\n", closed);
	assert_true(closed >= 300 - 64 - 1);
	assert_true(links(p->s) <= 64);
	for (i = 0; i < 300; i++)
		close(fd[i]);
	assert_true(links_become(p->s, 0, 2000));
	assert_int_equal(open_fds(), fds0);
}

/*
 * A process of another uid on this host says a proper hello: it is
 * refused and gets no token.  Needs root, to become another user.
 */
static void test_other_user_gets_no_tokens(void **state)
{
	struct port *p = *state;
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct adxl_prove v;
		size_t n_regs;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = raw_connect();
		send_hello(fd, S);
		/* Challenged, and it answers honestly as itself. */
		recv_prove(fd, &v);
		if (give_proof(fd, &v))
			_exit(11);
		if (recv_hello_reply(fd, &n_regs) != ADXL_HELLO_OTHER_USER)
			_exit(13);
		if (n_regs)
			_exit(14);	/* a token went out */
		/* And the link is closed after the refusal. */
		_exit(closed_within(fd, 2000) ? 0 : 15);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The same hello from our own uid gets the table. */
	assert_true(good_peer_ms(p) < 1000);
}

/* The proof of our own uid: served, with the table, and Connect works. */
static void test_proof_same_uid(void **state)
{
	struct port *p = *state;
	struct adxl_prove v;
	size_t n_regs;
	int fd = raw_connect();

	send_hello(fd, S);
	recv_prove(fd, &v);
	/* a random abstract name of the engine's */
	assert_memory_equal(v.name, "memreg-adxl/", 12);
	assert_string_equal(v.name, p->s->proof_name);
	assert_int_equal(give_proof(fd, &v), ADXL_SUCCESS);
	assert_int_equal(recv_hello_reply(fd, &n_regs), ADXL_HELLO_OK);
	assert_int_equal(n_regs, 1);
	close(fd);
	assert_true(good_peer_ms(p) < 1000);
	assert_true(links_become(p->s, 0, 2000));
}

/* Send proof @f for the engine of @v by hand: the engine's answer. */
static uint32_t send_proof(const struct adxl_prove *v,
			   const struct adxl_proof *f)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct adxl_buf b = { 0 };
	uint32_t status;
	uint8_t *msg;
	size_t len;
	int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(un.sun_path + 1, v->name, strlen(v->name));
	assert_int_equal(connect(u, (struct sockaddr *)&un,
				 (socklen_t)(offsetof(struct sockaddr_un,
						      sun_path) + 1 +
					     strlen(v->name))), 0);
	assert_int_equal(adxl__proof_encode(f, &b), 0);
	assert_int_equal(adxl__send_msg(u, ADXL_MSG_PROOF, b.data, b.len,
					adxl__deadline(3000)), 0);
	adxl__buf_free(&b);
	assert_int_equal(recv_one(u, &msg, &len), ADXL_MSG_PROOF_REPLY);
	assert_int_equal(len, 4);
	memcpy(&status, msg, 4);
	free(msg);
	close(u);
	return ntohl(status);
}

/* The proof a client of @fd makes for challenge @v. */
static void make_proof(int fd, const struct adxl_prove *v,
		       struct adxl_proof *f)
{
	struct sockaddr_in me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);

	memset(f, 0, sizeof(*f));
	memcpy(f->nonce, v->nonce, sizeof(f->nonce));
	assert_int_equal(getsockname(fd, (struct sockaddr *)&me, &ml), 0);
	assert_int_equal(getpeername(fd, (struct sockaddr *)&peer, &pl), 0);
	f->client_addr[10] = f->client_addr[11] = 0xff;
	memcpy(f->client_addr + 12, &me.sin_addr, 4);
	f->client_port = ntohs(me.sin_port);
	f->server_addr[10] = f->server_addr[11] = 0xff;
	memcpy(f->server_addr + 12, &peer.sin_addr, 4);
	f->server_port = ntohs(peer.sin_port);
}

/*
 * A wrong nonce proves nothing and spends nothing: the link stays
 * unanswered (the right nonce still works).  The right nonce for another
 * connection (a relayed challenge) refuses the link it belongs to.
 */
static void test_proof_wrong_nonce(void **state)
{
	struct port *p = *state;
	struct adxl_prove v;
	struct adxl_proof f;
	struct pollfd pfd;
	size_t n_regs;
	int fd = raw_connect();

	send_hello(fd, S);
	recv_prove(fd, &v);
	make_proof(fd, &v, &f);
	f.nonce[7] ^= 1;
	assert_int_equal(send_proof(&v, &f), ADXL_PROOF_UNKNOWN);
	/* nothing for the link: no answer to its hello */
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&pfd, 1, 300), 0);
	f.nonce[7] ^= 1;
	assert_int_equal(send_proof(&v, &f), ADXL_PROOF_OK);
	assert_int_equal(recv_hello_reply(fd, &n_regs), ADXL_HELLO_OK);
	assert_int_equal(n_regs, 1);
	/* spent: the same proof again is unknown */
	assert_int_equal(send_proof(&v, &f), ADXL_PROOF_UNKNOWN);
	close(fd);

	/* The right nonce, named for another connection. */
	fd = raw_connect();
	send_hello(fd, S);
	recv_prove(fd, &v);
	make_proof(fd, &v, &f);
	f.client_port ^= 1;
	assert_int_equal(send_proof(&v, &f), ADXL_PROOF_OTHER_LINK);
	assert_int_equal(recv_hello_reply(fd, &n_regs), ADXL_HELLO_OTHER_USER);
	assert_int_equal(n_regs, 0);
	assert_true(closed_within(fd, 2000));
	close(fd);
	assert_true(links_become(p->s, 0, 2000));
}

/* Notifies the server engine has queued now. */
static unsigned int notifies_now(struct port *p)
{
	notifies_seen = 0;
	assert_int_equal(adxl_get_notifies(p->s, count_notify, NULL),
			 ADXL_SUCCESS);
	return notifies_seen;
}

/* HELLO and NOTIFY as one write on a new connection. */
static int hello_and_notify(void)
{
	struct adxl_hello h = { .pid = (uint32_t)getpid() };
	struct adxl_buf b = { 0 }, all = { 0 };
	int fd = raw_connect();

	snprintf(h.name, sizeof(h.name), "raw-client");
	snprintf(h.target, sizeof(h.target), "%s", S);
	assert_int_equal(adxl__hello_encode(&h, &b), 0);
	assert_int_equal(adxl__frame_msg(&all, ADXL_MSG_HELLO, b.data, b.len),
			 0);
	adxl__buf_free(&b);
	assert_int_equal(adxl__notify_encode(1, "forged", 6, "m", 1, &b), 0);
	assert_int_equal(adxl__frame_msg(&all, ADXL_MSG_NOTIFY, b.data, b.len),
			 0);
	adxl__buf_free(&b);
	raw_send(fd, all.data, all.len);
	adxl__buf_free(&all);
	return fd;
}

/*
 * HELLO and NOTIFY in one write: the notify waits, unread, until the
 * proof; closing at once (the TIME_WAIT race of issue 26) delivers
 * nothing; a proof by our uid delivers it once, after the proof.
 */
static void test_pipelined_notify(void **state)
{
	struct port *p = *state;
	struct adxl_prove v;
	uint32_t seq, status;
	uint8_t *msg;
	size_t n_regs, len;
	int fd, i;

	for (i = 0; i < 50; i++)
		close(hello_and_notify());
	usleep(300000);
	assert_int_equal(notifies_now(p), 0);
	assert_true(links_become(p->s, 0, 2000));

	fd = hello_and_notify();
	recv_prove(fd, &v);
	usleep(200000);
	assert_int_equal(notifies_now(p), 0);
	assert_int_equal(give_proof(fd, &v), ADXL_SUCCESS);
	assert_int_equal(recv_hello_reply(fd, &n_regs), ADXL_HELLO_OK);
	/* and now the notify it sent before the proof: acknowledged */
	assert_int_equal(recv_one(fd, &msg, &len), ADXL_MSG_NOTIFY_ACK);
	assert_int_equal(adxl__ack_decode(msg, len, &seq, &status), 0);
	free(msg);
	assert_int_equal(status, 0);
	assert_int_equal(notifies_now(p), 1);
	close(fd);
	assert_true(links_become(p->s, 0, 2000));
}

/* The ack of a notify step on @fd: its status, for @seq. */
static uint32_t recv_ack(int fd, uint32_t seq)
{
	uint32_t got, status;
	uint8_t *msg;
	size_t len;

	assert_int_equal(recv_one(fd, &msg, &len), ADXL_MSG_NOTIFY_ACK);
	assert_int_equal(adxl__ack_decode(msg, len, &got, &status), 0);
	free(msg);
	assert_int_equal(got, seq);
	return status;
}

static void send_hold(int fd, uint32_t seq, const char *name)
{
	struct adxl_buf b = { 0 };

	assert_int_equal(adxl__notify_encode(seq, name, strlen(name), "m", 1,
					     &b), 0);
	send_frame(fd, ADXL_MSG_NOTIFY_HOLD, b.data, b.len);
	adxl__buf_free(&b);
}

static void send_commit(int fd, uint32_t seq)
{
	struct adxl_buf b = { 0 };

	assert_int_equal(adxl__commit_encode(seq, &b), 0);
	send_frame(fd, ADXL_MSG_NOTIFY_COMMIT, b.data, b.len);
	adxl__buf_free(&b);
}

/*
 * The two steps of a notify, from a raw client: a held notify is handed
 * out only by its commit; a new hold drops one not committed; a commit
 * of anything else is refused; a link that closes drops what it holds.
 */
static void test_held_notify_is_handed_out_only_when_committed(void **state)
{
	struct port *p = *state;
	int fd = raw_connect();

	send_hello_proven(fd, S);
	send_hold(fd, 1, "one");
	assert_int_equal(recv_ack(fd, 1), 0);
	usleep(100000);
	assert_int_equal(notifies_now(p), 0);
	/* the sender gave up on 1: it is gone, 2 is held */
	send_hold(fd, 2, "two");
	assert_int_equal(recv_ack(fd, 2), 0);
	send_commit(fd, 1);
	assert_int_equal(recv_ack(fd, 1), ADXL_FAILED);
	assert_int_equal(notifies_now(p), 0);
	send_commit(fd, 2);
	assert_int_equal(recv_ack(fd, 2), 0);
	assert_int_equal(notifies_now(p), 1);
	/* committed once only */
	send_commit(fd, 2);
	assert_int_equal(recv_ack(fd, 2), ADXL_FAILED);
	/* held, then the link closes: nothing */
	send_hold(fd, 3, "three");
	assert_int_equal(recv_ack(fd, 3), 0);
	close(fd);
	assert_true(links_become(p->s, 0, 2000));
	assert_int_equal(notifies_now(p), 0);
}

/*
 * The same as another uid, which answers the challenge as itself: the
 * link is refused and its notify dropped.  Needs root.
 */
static void test_pipelined_notify_other_uid(void **state)
{
	struct port *p = *state;
	pid_t pid;
	int status;

	if (geteuid() != 0) {
		skip();
		return;
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct adxl_prove v;
		size_t n_regs;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = hello_and_notify();
		recv_prove(fd, &v);
		if (give_proof(fd, &v))
			_exit(11);
		if (recv_hello_reply(fd, &n_regs) != ADXL_HELLO_OTHER_USER ||
		    n_regs)
			_exit(12);
		/* no ack: the link is closed after the refusal */
		_exit(closed_within(fd, 2000) ? 0 : 13);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(notifies_now(p), 0);
	assert_true(links_become(p->s, 0, 2000));
}

/* A link that is challenged and never proves: dropped at the deadline. */
static void test_unproven_link_dropped(void **state)
{
	struct port *p = *state;
	struct adxl_prove v;
	double t0 = now_ms(), t;
	int fd = hello_and_notify();

	recv_prove(fd, &v);
	assert_true(closed_within(fd, 5000));
	t = now_ms() - t0;
	printf("# an unproven link was dropped after %.0f ms (deadline %lld)\n",
	       t, (long long)setup_hello_ms);
	assert_true(t >= setup_hello_ms - 50);
	close(fd);
	assert_int_equal(notifies_now(p), 0);
	assert_true(links_become(p->s, 0, 2000));
}

static int setup_short_hello(void **state)
{
	setup_hello_ms = 1000;
	return setup(state);
}

static int teardown_short_hello(void **state)
{
	setup_hello_ms = 0;
	return teardown(state);
}

/* Waiting links of the server whose key is uid @uid. */
static size_t waiting_of(adxl_engine_t *e, uid_t uid)
{
	size_t i, n = 0;

	pthread_mutex_lock(&e->notify_lock);
	for (i = 0; i < e->n_links; i++)
		n += !e->links[i].hello_done &&
		     e->links[i].key.kind == ADXL_WAIT_UID &&
		     e->links[i].key.uid == uid;
	pthread_mutex_unlock(&e->notify_lock);
	return n;
}

/*
 * Another uid holds 300 idle connections, then opens 100 more while ten
 * idle connections of ours wait: theirs take that uid's 64 slots only
 * (each new one closes one of its own), ours stay, and each of ours is
 * then served.  With one pool for everyone, their 100 would have closed
 * our ten, the oldest.  Needs root.
 */
static void test_wait_caps_per_uid(void **state)
{
	struct port *p = *state;
	int i, to_child[2], from_child[2], mine[10], status;
	char c;
	pid_t pid;

	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(pipe(to_child), 0);
	assert_int_equal(pipe(from_child), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* left open until the test kills us */
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(10);
		for (i = 0; i < 300; i++)
			raw_connect();
		if (write(from_child[1], "r", 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(11);
		for (; i < 400; i++)
			raw_connect();
		if (write(from_child[1], "r", 1) != 1)
			_exit(12);
		pause();
		_exit(0);
	}
	assert_int_equal(read(from_child[0], &c, 1), 1);
	usleep(200000);
	for (i = 0; i < 10; i++)
		mine[i] = raw_connect();
	usleep(200000);
	assert_int_equal(waiting_of(p->s, 0), 10);
	assert_int_equal(write(to_child[1], "g", 1), 1);
	assert_int_equal(read(from_child[0], &c, 1), 1);
	usleep(300000);
	printf("# 400 idle connections of uid 65534: %zu of them wait; ours: %zu of 10\n",
	       waiting_of(p->s, 65534), waiting_of(p->s, 0));
	assert_true(waiting_of(p->s, 65534) <= 64);
	assert_int_equal(waiting_of(p->s, 0), 10);
	for (i = 0; i < 10; i++) {
		send_hello_proven(mine[i], S);
		close(mine[i]);
	}
	assert_true(good_peer_ms(p) < 1000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
	assert_true(links_become(p->s, 0, 3000));
}

static void test_allow_list(void **state)
{
	struct adxl_allow *a;
	uint8_t v4[4], v6[16];

	(void)state;
	assert_int_equal(adxl__allow_parse("10.0.0.0/8, fd00::/8,192.168.1.7",
					   &a), 0);
	inet_pton(AF_INET, "10.200.3.4", v4);
	assert_true(adxl__allow_match(a, AF_INET, v4));
	inet_pton(AF_INET, "11.0.0.1", v4);
	assert_false(adxl__allow_match(a, AF_INET, v4));
	inet_pton(AF_INET, "192.168.1.7", v4);
	assert_true(adxl__allow_match(a, AF_INET, v4));
	inet_pton(AF_INET, "192.168.1.8", v4);
	assert_false(adxl__allow_match(a, AF_INET, v4));
	inet_pton(AF_INET6, "fd12::1", v6);
	assert_true(adxl__allow_match(a, AF_INET6, v6));
	inet_pton(AF_INET6, "fe80::1", v6);
	assert_false(adxl__allow_match(a, AF_INET6, v6));
	/* An IPv4 peer of an IPv6 socket. */
	inet_pton(AF_INET6, "::ffff:10.1.1.1", v6);
	assert_true(adxl__allow_match(a, AF_INET6, v6));
	adxl__allow_free(a);

	assert_int_equal(adxl__allow_parse("10.0.0.1/31", &a), 0);
	inet_pton(AF_INET, "10.0.0.0", v4);
	assert_true(adxl__allow_match(a, AF_INET, v4));
	inet_pton(AF_INET, "10.0.0.2", v4);
	assert_false(adxl__allow_match(a, AF_INET, v4));
	adxl__allow_free(a);

	assert_int_equal(adxl__allow_parse("*", &a), 0);
	assert_true(adxl__allow_match(a, AF_INET, v4));
	adxl__allow_free(a);
	assert_false(adxl__allow_match(NULL, AF_INET, v4));

	assert_int_equal(adxl__allow_parse("", &a), -EINVAL);
	assert_int_equal(adxl__allow_parse(",", &a), -EINVAL);
	assert_int_equal(adxl__allow_parse("10.0.0.0/33", &a), -EINVAL);
	assert_int_equal(adxl__allow_parse("10.0.0.0/", &a), -EINVAL);
	assert_int_equal(adxl__allow_parse("host.example", &a), -EINVAL);
	assert_int_equal(adxl__allow_parse("10.0.0.1,nonsense", &a), -EINVAL);
}

/* The owner of the other end of a loopback connection is us. */
static void test_socket_owner(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int l, c, s;
	uid_t uid = (uid_t)-1;

	(void)state;
	l = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(l, 1), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&a, &alen), 0);
	c = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof(a)), 0);
	s = accept(l, NULL, NULL);
	assert_true(s >= 0);
	assert_int_equal(adxl__sock_peer_uid(s, &uid), 0);
	assert_int_equal(uid, geteuid());
	close(s);
	close(c);
	close(l);
}

int test_port_group(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_allow_list),
		cmocka_unit_test(test_socket_owner),
		cmocka_unit_test_setup_teardown(test_bad_messages_are_dropped,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_stalled_peers_delay_nobody,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_connection_flood, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_other_user_gets_no_tokens,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_proof_same_uid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_proof_wrong_nonce, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_notify, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_held_notify_is_handed_out_only_when_committed,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipelined_notify_other_uid,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unproven_link_dropped,
						setup_short_hello,
						teardown_short_hello),
		cmocka_unit_test_setup_teardown(test_wait_caps_per_uid, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("the ADXL control port against a hostile client",
					   tests, NULL, NULL);
}
