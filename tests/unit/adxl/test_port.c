// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A listening engine's control port against a hostile client on raw
 * sockets: garbage, truncated, oversized and out-of-order messages,
 * half-sent messages held open, floods of connections that never say
 * hello, and a peer of another user.  After each, the engine still
 * serves a good peer at once (Connect, a notify), drops what it must,
 * and keeps nothing of the bad links.  Also the allow-list and the
 * socket-owner lookup of lib/adxl/trust.c.
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
#include <sys/wait.h>

#include "adxl_int.h"
#include "fake_kernel.h"
#include "tests.h"

static char S[32], C[32];
static int s_port;

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

	/* Out of order: a notify, a UCX hello, a reply before any hello. */
	fd = raw_connect();
	send_frame(fd, ADXL_MSG_NOTIFY, "\0\0\0\1\0\0\0\0\0\0\0\0", 12);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	send_frame(fd, ADXL_MSG_UCX_HELLO, "\0\0\0\3", 4);
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
	send_hello(fd, S);
	send_hello(fd, S);
	assert_true(closed_within(fd, 2000));
	close(fd);

	/* After a good hello: a UCX hello of another version, a truncated one. */
	fd = raw_connect();
	send_hello(fd, S);
	send_frame(fd, ADXL_MSG_UCX_HELLO, "\0\0\0\x63", 4);
	assert_true(closed_within(fd, 2000));
	close(fd);
	fd = raw_connect();
	send_hello(fd, S);
	send_frame(fd, ADXL_MSG_UCX_HELLO, "\0\0", 2);
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
		send_hello(fd[16 + i], S);
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
		struct adxl_hello in;
		uint8_t *msg;
		uint32_t type;
		size_t len;
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(10);
		fd = raw_connect();
		send_hello(fd, S);
		if (adxl__recv_msg(fd, &type, &msg, &len, adxl__deadline(3000)))
			_exit(11);
		if (type != ADXL_MSG_HELLO_REPLY ||
		    adxl__hello_decode(msg, len, &in))
			_exit(12);
		if (in.status != ADXL_HELLO_OTHER_USER)
			_exit(13);
		if (in.n_regs)
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
	};

	return cmocka_run_group_tests_name("the ADXL control port against a hostile client",
					   tests, NULL, NULL);
}
