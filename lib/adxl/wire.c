// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The control protocol's transport: framed messages on a TCP socket.
 *
 * A frame is a 12-byte header (magic, type, payload length; big-endian,
 * so engines on hosts of either byte order understand each other) and the
 * payload.  Sockets are non-blocking; every wait is a poll() bounded by
 * the caller's deadline, which is how Connect, Disconnect and SendNotify
 * honour their timeouts.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "adxl_int.h"

static void buf_grow(struct adxl_buf *b, size_t more)
{
	size_t cap;
	uint8_t *p;

	if (b->err || b->len + more <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->err = true;
		return;
	}
	b->data = p;
	b->cap = cap;
}

void adxl__buf_bytes(struct adxl_buf *b, const void *p, size_t n)
{
	buf_grow(b, n);
	if (b->err || !n)
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void adxl__buf_u32(struct adxl_buf *b, uint32_t v)
{
	v = htobe32(v);
	adxl__buf_bytes(b, &v, sizeof(v));
}

void adxl__buf_u64(struct adxl_buf *b, uint64_t v)
{
	v = htobe64(v);
	adxl__buf_bytes(b, &v, sizeof(v));
}

void adxl__buf_free(struct adxl_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

const uint8_t *adxl__rd_bytes(struct adxl_rd *r, size_t n)
{
	const uint8_t *p;

	if (r->err || n > r->len - r->off) {
		r->err = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	return p;
}

uint32_t adxl__rd_u32(struct adxl_rd *r)
{
	const uint8_t *p = adxl__rd_bytes(r, 4);
	uint32_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 4);
	return be32toh(v);
}

uint64_t adxl__rd_u64(struct adxl_rd *r)
{
	const uint8_t *p = adxl__rd_bytes(r, 8);
	uint64_t v;

	if (!p)
		return 0;
	memcpy(&v, p, 8);
	return be64toh(v);
}

int64_t adxl__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Counted from the next millisecond: a timeout of 1 ms is at least 1 ms,
 * never cut short by the clock's milliseconds.
 */
int64_t adxl__deadline(int32_t timeout_ms)
{
	struct timespec ts;

	if (timeout_ms < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + (ts.tv_nsec + 999999) / 1000000 +
	       timeout_ms;
}

/* Wait for @events until @deadline: 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int left, n;

	for (;;) {
		if (deadline < 0) {
			left = -1;
		} else {
			int64_t d = deadline - adxl__now_ms();

			if (d <= 0)
				return -ETIMEDOUT;
			left = d > 60000 ? 60000 : (int)d;
		}
		n = poll(&pfd, 1, left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const uint8_t *p, size_t len, int64_t deadline)
{
	while (len) {
		/* MSG_NOSIGNAL: a dead peer is an error, not SIGPIPE. */
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int ret;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return errno == ECONNRESET ? -ECONNRESET : -EPIPE;
		ret = wait_fd(fd, POLLOUT, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

static int recv_all(int fd, uint8_t *p, size_t len, int64_t deadline)
{
	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
		int ret;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -ECONNRESET;
		ret = wait_fd(fd, POLLIN, deadline);
		if (ret)
			return ret;
	}
	return 0;
}

int adxl__send_msg(int fd, uint32_t type, const void *payload, size_t len,
		   int64_t deadline)
{
	uint32_t hdr[3];
	int ret;

	if (len > ADXL_MSG_MAX_LEN)
		return -EPROTO;
	hdr[0] = htobe32(ADXL_MSG_MAGIC);
	hdr[1] = htobe32(type);
	hdr[2] = htobe32((uint32_t)len);
	ret = send_all(fd, (const uint8_t *)hdr, sizeof(hdr), deadline);
	if (!ret && len)
		ret = send_all(fd, payload, len, deadline);
	return ret;
}

int adxl__frame_msg(struct adxl_buf *b, uint32_t type, const void *payload,
		    size_t len)
{
	if (len > ADXL_MSG_MAX_LEN)
		return -EPROTO;
	adxl__buf_u32(b, ADXL_MSG_MAGIC);
	adxl__buf_u32(b, type);
	adxl__buf_u32(b, (uint32_t)len);
	adxl__buf_bytes(b, payload, len);
	return b->err ? -ENOMEM : 0;
}

int adxl__recv_msg(int fd, uint32_t *type, uint8_t **payload, size_t *len,
		   int64_t deadline)
{
	uint32_t hdr[3];
	uint8_t *p;
	size_t n;
	int ret;

	*payload = NULL;
	*len = 0;
	ret = recv_all(fd, (uint8_t *)hdr, sizeof(hdr), deadline);
	if (ret)
		return ret;
	if (be32toh(hdr[0]) != ADXL_MSG_MAGIC)
		return -EPROTO;
	n = be32toh(hdr[2]);
	if (n > ADXL_MSG_MAX_LEN)
		return -EPROTO;
	/* One byte more, so that a payload of 0 bytes is not malloc(0). */
	p = malloc(n + 1);
	if (!p)
		return -ENOMEM;
	ret = recv_all(fd, p, n, deadline);
	if (ret) {
		free(p);
		return ret;
	}
	*type = be32toh(hdr[1]);
	*payload = p;
	*len = n;
	return 0;
}

bool adxl__sock_dead(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;

	if (poll(&pfd, 1, 0) <= 0)
		return false;
	/*
	 * The peer's FIN, even behind bytes nobody read yet (a late ack or
	 * answer a timed-out call left): engines never half-close, so a
	 * closed read side is a peer gone.
	 */
	if (pfd.revents & (POLLERR | POLLHUP | POLLNVAL | POLLRDHUP))
		return true;
	/* Readable: either a message we have not asked for yet, or EOF. */
	return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}
