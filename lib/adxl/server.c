// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The listening side: one thread per listening engine polls the listening
 * socket and the links peers opened to it.  It answers hellos with this
 * engine's registration table as it is at that moment (registrations made
 * later are not visible to that peer, as in the reference), and UCX
 * hellos with the UCX worker and keys (ucx_link.c), queues notifies, and
 * forgets a link at BYE or EOF.
 *
 * Peers only ever send a message and wait for its answer, so a message
 * that has started arriving is read to its end with a short deadline; a
 * peer that stalls mid-message is dropped rather than let it hold up the
 * others.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/eventfd.h>

#include "adxl_int.h"

#define MSG_DEADLINE_MS	5000
#define MAX_LINKS	4096

static void link_close(struct adxl_engine *e, size_t i, bool orderly)
{
	struct adxl_link *l = &e->links[i];

	if (!orderly && l->hello_done)
		adxl__warn("%s: peer %s closed its control connection without Disconnect (exited?)",
			   e->name, l->name);
	close(l->fd);
	adxl__notify_link_gone(e, l->id);
	/* GetNotifies resets the links' counters under notify_lock. */
	pthread_mutex_lock(&e->notify_lock);
	e->links[i] = e->links[--e->n_links];
	pthread_mutex_unlock(&e->notify_lock);
}

static void do_accept(struct adxl_engine *e)
{
	struct adxl_link *l;
	int fd, one = 1;

	fd = accept4(e->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
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
	e->n_links++;
	pthread_mutex_unlock(&e->notify_lock);
}

static int answer_hello(struct adxl_engine *e, struct adxl_link *l,
			const uint8_t *p, size_t len)
{
	struct adxl_hello in, out;
	struct adxl_buf b = { 0 };
	int ret;

	if (adxl__hello_decode(p, len, &in))
		return -EPROTO;
	free(in.regs);	/* a client's table: transfers are one-sided */

	memset(&out, 0, sizeof(out));
	out.pid = (uint32_t)getpid();
	memcpy(out.instance_id, e->instance_id, sizeof(out.instance_id));
	snprintf(out.name, sizeof(out.name), "%s", e->name);
	/* Names are identities: the peer must use ours byte for byte. */
	if (strcmp(in.target, e->name))
		out.status = ADXL_HELLO_WRONG_NAME;
	else if (adxl__regs_hello(e, &out))
		return -ENOMEM;
	ret = adxl__hello_encode(&out, &b);
	free(out.regs);
	if (!ret)
		ret = adxl__send_msg(l->fd, ADXL_MSG_HELLO_REPLY, b.data, b.len,
				     adxl__deadline(MSG_DEADLINE_MS));
	adxl__buf_free(&b);
	if (ret || out.status)
		return ret ? ret : -EPERM;
	snprintf(l->name, sizeof(l->name), "%s", in.name);
	l->hello_done = true;
	return 0;
}

static int answer_notify(struct adxl_engine *e, struct adxl_link *l,
			 const uint8_t *p, size_t len)
{
	const char *name, *msg;
	size_t name_len, msg_len;
	struct adxl_buf b = { 0 };
	uint32_t seq, status;
	int ret;

	if (!l->hello_done ||
	    adxl__notify_decode(p, len, &seq, &name, &name_len, &msg, &msg_len))
		return -EPROTO;
	if (!adxl__notify_queue(e, l, name, name_len, msg, msg_len, &status))
		status = ADXL_FAILED;
	ret = adxl__ack_encode(seq, status, &b);
	if (!ret)
		ret = adxl__send_msg(l->fd, ADXL_MSG_NOTIFY_ACK, b.data, b.len,
				     adxl__deadline(MSG_DEADLINE_MS));
	adxl__buf_free(&b);
	return ret;
}

/* One message from link @i; false if the link is gone. */
static bool serve_link(struct adxl_engine *e, size_t i)
{
	struct adxl_link *l = &e->links[i];
	uint8_t *p;
	uint32_t type;
	size_t len;
	int ret;

	ret = adxl__recv_msg(l->fd, &type, &p, &len,
			     adxl__deadline(MSG_DEADLINE_MS));
	if (ret) {
		if (!l->hello_done && ret != -ECONNRESET)
			adxl__warn("%s: a new link failed before its hello: %s",
				   e->name, strerror(-ret));
		link_close(e, i, false);
		return false;
	}
	switch (type) {
	case ADXL_MSG_HELLO:
		ret = l->hello_done ? -EPROTO : answer_hello(e, l, p, len);
		break;
	case ADXL_MSG_NOTIFY:
		ret = answer_notify(e, l, p, len);
		break;
	case ADXL_MSG_UCX_HELLO:
		ret = l->hello_done ? adxl__ucx_answer(e, l->fd, p, len) :
				      -EPROTO;
		break;
	case ADXL_MSG_BYE:
		free(p);
		link_close(e, i, true);
		return false;
	default:
		ret = -EPROTO;
	}
	free(p);
	if (ret) {
		if (ret == -EPROTO)
			adxl__warn("%s: dropping a link that does not speak the ADXL control protocol",
				   e->name);
		else if (ret != -EPERM)
			adxl__warn("%s: dropping a link: %s", e->name,
				   strerror(-ret));
		link_close(e, i, true);
		return false;
	}
	return true;
}

static void *server_main(void *arg)
{
	struct adxl_engine *e = arg;
	struct pollfd *pfd;
	size_t i, n;

	pfd = calloc(MAX_LINKS + 2, sizeof(*pfd));
	if (!pfd) {
		adxl__err("%s: listener: out of memory", e->name);
		return NULL;
	}
	for (;;) {
		pfd[0] = (struct pollfd){ .fd = e->wake_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = e->listen_fd, .events = POLLIN };
		n = e->n_links;
		for (i = 0; i < n; i++)
			pfd[i + 2] = (struct pollfd){ .fd = e->links[i].fd,
						      .events = POLLIN };
		if (poll(pfd, n + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		/* Backwards: closing a link moves the last one into its slot. */
		for (i = n; i-- > 0;)
			if (pfd[i + 2].revents)
				serve_link(e, i);
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
	    listen(e->listen_fd, 512))
		goto err;
	e->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->wake_fd < 0)
		goto err;
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
	for (i = 0; i < e->n_links; i++)
		close(e->links[i].fd);
	e->n_links = 0;
	free(e->links);
	e->links = NULL;
	pthread_mutex_unlock(&e->notify_lock);
	close(e->listen_fd);
	close(e->wake_fd);
	e->listen_fd = e->wake_fd = -1;
}
