// SPDX-License-Identifier: GPL-2.0
/*
 * memreg_hold - register memory and hold it, for the shell tests that look
 * at registrations from outside (the tool, netlink, /proc).
 *
 *   memreg_hold [-n COUNT] [-s BYTES] [-k anon|thp|hugetlb|shm] [-c]
 *               [-x BYTES] [-d]
 *
 * Registers COUNT regions of BYTES each, prints one line per registration
 * ("reg ID HANDLE ADDR LEN ADDR_DECIMAL", handle and addr in hex), then
 * "ready PID",
 * and holds them until SIGTERM/SIGINT (exit 0) or until killed.  With -c
 * it also keeps registering and unregistering one more region in a loop
 * (churn), so listings run while registrations change, at most 2,000
 * cycles a second.  With -x it then
 * tries to register BYTES more and prints "extra OK" or "extra <errno
 * name>" (to see a refusal from outside).  With -d the regions are
 * ranges of a dma-buf instead, memreg's own export of a device
 * allocation, registered as DMABUF (ADDR is then the offset).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "memtest.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	enum memtest_kind kind = MEMTEST_ANON;
	unsigned long count = 1, churns = 0;
	unsigned long long size = 4096, extra = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	int opt, fd, churn = 0, dmabuf = 0, dfd = -1, err;
	uint64_t handle;
	char *buf;

	while ((opt = getopt(argc, argv, "n:s:k:cx:d")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			size = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			if (memtest_kind_parse(optarg, &kind)) {
				fprintf(stderr, "unknown kind %s\n", optarg);
				return 2;
			}
			break;
		case 'c':
			churn = 1;
			break;
		case 'x':
			extra = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			dmabuf = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-s BYTES] "
				"[-k anon|thp|hugetlb|shm] [-c] [-x BYTES]\n",
				argv[0]);
			return 2;
		}
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = memtest_open();
	if (fd < 0) {
		perror("open /dev/memreg");
		return 1;
	}
	if (dmabuf) {
		dfd = memtest_dmabuf(fd, count * size);
		if (dfd < 0) {
			fprintf(stderr, "dma-buf: %s\n", strerror(-dfd));
			return 1;
		}
		for (unsigned long i = 0; i < count; i++) {
			err = memtest_register_dmabuf(fd, dfd, i * size, size,
						      &handle);
			if (err) {
				fprintf(stderr, "register %lu: %s\n", i,
					strerror(-err));
				return 1;
			}
			printf("reg %u 0x%llx 0x%llx %llu %llu\n",
			       (unsigned)handle, (unsigned long long)handle,
			       i * size, size, i * size);
		}
		printf("ready %d\n", getpid());
		fflush(stdout);
		while (!stop)
			pause();
		return 0;
	}
	buf = memtest_map(kind, count * size + (churn ? size : 0));
	if (!buf) {
		fprintf(stderr, "cannot map %s memory\n",
			memtest_kind_name(kind));
		return 1;
	}
	for (unsigned long i = 0; i < count; i++) {
		char *p = buf + i * size;

		err = memtest_register(fd, p, size, MEMREG_MEM_HOST, &handle);
		if (err) {
			fprintf(stderr, "register %lu: %s\n", i, strerror(-err));
			return 1;
		}
		printf("reg %u 0x%llx 0x%llx %llu %llu\n", (unsigned)handle,
		       (unsigned long long)handle,
		       (unsigned long long)(uintptr_t)p, size,
		       (unsigned long long)(uintptr_t)p);
	}
	if (extra) {
		char *more = memtest_map(MEMTEST_ANON, extra);

		err = more ? memtest_register(fd, more, extra, MEMREG_MEM_HOST,
					      NULL) : -ENOMEM;
		printf("extra %s\n", err ? strerrorname_np(-err) : "OK");
	}
	printf("ready %d\n", getpid());
	fflush(stdout);

	while (!stop) {
		if (!churn) {
			pause();
			continue;
		}
		err = memtest_register(fd, buf + count * size, size,
				       MEMREG_MEM_HOST, &handle);
		if (!err)
			err = memtest_unregister(fd, handle);
		if (err) {
			fprintf(stderr, "churn: %s\n", strerror(-err));
			return 1;
		}
		churns++;
		/*
		 * Paced: each cycle frees an xarray node (the id is new, alone
		 * in its leaf) after an RCU grace period.  Unpaced, 34,000
		 * cycles a second outran grace periods that took seconds
		 * under TCG, and 724 MB of nodes waiting for them OOM-killed
		 * the holders (6.12, 2026-11-27).  At 2,000 a second, a second's
		 * lag of grace periods holds 1.2 MB.
		 */
		usleep(500);
	}
	if (churn)
		fprintf(stderr, "memreg_hold: %lu churn cycles\n", churns);
	return 0;
}
