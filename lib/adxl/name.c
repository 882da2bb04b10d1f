// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Engine names: "ip", "ip:port", "[ipv6]" or "[ipv6]:port", the forms of
 * the reference's ParseListenInfo.  The IP must be a literal address (no
 * host names: the name is also the peer's identity, compared byte for
 * byte).  A port of 0 is the same as none: the engine does not listen.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

static int parse_port(const char *s, int *port)
{
	char *end;
	long v;

	/* Digits only: strtol would also take signs and spaces. */
	if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

int adxl__parse_name(const char *name, struct adxl_name *out)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port_str = NULL;
	size_t n;

	if (!name || !out)
		return -1;
	memset(out, 0, sizeof(*out));

	if (name[0] == '[') {
		const char *close = strchr(name, ']');

		if (!close)
			return -1;
		n = (size_t)(close - name - 1);
		if (close[1] == ':')
			port_str = close + 2;
		else if (close[1])
			return -1;
		name++;
		out->family = AF_INET6;
	} else {
		const char *colon = strchr(name, ':');

		/* A bare IPv6 address must be bracketed: "::1" is refused. */
		if (colon && strchr(colon + 1, ':'))
			return -1;
		n = colon ? (size_t)(colon - name) : strlen(name);
		if (colon)
			port_str = colon + 1;
		out->family = AF_INET;
	}
	if (n == 0 || n >= sizeof(host))
		return -1;
	memcpy(host, name, n);
	host[n] = '\0';
	if (port_str && parse_port(port_str, &out->port))
		return -1;

	if (out->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&out->sa;

		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return -1;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)out->port);
		out->sa_len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->sa;

		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return -1;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)out->port);
		out->sa_len = sizeof(*sin6);
	}
	return 0;
}
