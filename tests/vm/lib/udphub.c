// SPDX-License-Identifier: GPL-2.0
/*
 * udphub - an Ethernet hub for qemu's UDP socket netdevs, on loopback.
 *
 *   udphub HUBPORT:VMPORT HUBPORT:VMPORT [HUBPORT:VMPORT...]
 *
 * qemu's "-netdev socket,udp=127.0.0.1:R,localaddr=127.0.0.1:L" sends each
 * frame as one datagram to R and takes what arrives on L: a cable between
 * two VMs.  For three or more VMs (tests/vm/pair -c), each VM's R is one of
 * our HUBPORTs and its L the VMPORT paired with it; every frame that comes
 * in on a HUBPORT goes out to every other VMPORT, as a hub repeats it on
 * every other port.  The guests' own stacks ignore what is not for them.
 * Multicast between qemu processes (-netdev socket,mcast=) would need a
 * multicast route on the host, which a fresh machine may not have.
 *
 * Runs until killed, or until its parent dies.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PORTS	8
#define MAX_FRAME	65536	/* qemu sends at most one frame per datagram */

struct hub_port {
	int fd;				/* bound to 127.0.0.1:HUBPORT */
	struct sockaddr_in vm;		/* 127.0.0.1:VMPORT */
};

static int parse_port(const char *s, char **end)
{
	long v = strtol(s, end, 10);

	return *end == s || v < 1 || v > 65535 ? -1 : (int)v;
}

int main(int argc, char **argv)
{
	static unsigned char frame[MAX_FRAME];
	struct hub_port port[MAX_PORTS];
	struct pollfd pfd[MAX_PORTS];
	int n = argc - 1, i, j;

	if (n < 2 || n > MAX_PORTS) {
		fprintf(stderr, "usage: udphub HUBPORT:VMPORT HUBPORT:VMPORT [...] (2 to %d)\n",
			MAX_PORTS);
		return 2;
	}
	/* Not left behind when the harness that started us is killed. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1;

	for (i = 0; i < n; i++) {
		struct sockaddr_in me = { .sin_family = AF_INET };
		char *end;
		int hub = parse_port(argv[i + 1], &end), vm;

		vm = *end == ':' ? parse_port(end + 1, &end) : -1;
		if (hub < 0 || vm < 0 || *end) {
			fprintf(stderr, "udphub: '%s' is not HUBPORT:VMPORT\n", argv[i + 1]);
			return 2;
		}
		port[i].fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (port[i].fd < 0) {
			perror("udphub: socket");
			return 1;
		}
		me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		me.sin_port = htons(hub);
		if (bind(port[i].fd, (struct sockaddr *)&me, sizeof(me))) {
			fprintf(stderr, "udphub: bind 127.0.0.1:%d: %s\n", hub, strerror(errno));
			return 1;
		}
		port[i].vm = me;
		port[i].vm.sin_port = htons(vm);
		pfd[i] = (struct pollfd){ .fd = port[i].fd, .events = POLLIN };
	}
	printf("udphub: %d ports\n", n);
	fflush(stdout);

	for (;;) {
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("udphub: poll");
			return 1;
		}
		for (i = 0; i < n; i++) {
			ssize_t len;

			/* recv also takes a pending ICMP error (POLLERR) */
			if (!(pfd[i].revents & (POLLIN | POLLERR)))
				continue;
			len = recv(port[i].fd, frame, sizeof(frame), MSG_DONTWAIT);
			if (len <= 0)
				continue;
			/*
			 * Out through the other ports' sockets.  A VM that is
			 * down (between boots) answers with ICMP unreachable,
			 * which a later recv on that socket reports as
			 * ECONNREFUSED: lost frames, as on a cable unplugged.
			 */
			for (j = 0; j < n; j++)
				if (j != i)
					sendto(port[j].fd, frame, len, MSG_DONTWAIT,
					       (struct sockaddr *)&port[j].vm,
					       sizeof(port[j].vm));
		}
	}
}
