// SPDX-License-Identifier: GPL-2.0
/*
 * xfer_hold - a grant, an import and known transfers, held still for the
 * shell tests that read them back with the tool.
 *
 * A child registers 1 MiB with both access bits and grants it; this process
 * imports the token and moves 1 MiB in with one READ and 1 MiB out with two
 * WRITEs of 512 KiB, prints "ready OWNER_PID OWN_PID" and waits for
 * SIGTERM (then ends the child and exits 0).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "memtest.h"

#define LEN (1UL << 20)

struct offer {
	uint8_t token[16];
	uint64_t addr;
};

static int owner(int out)
{
	struct memreg_register r = {
		.size = sizeof(r), .len = LEN, .access = MEMREG_ACCESS_ALL,
	};
	struct memreg_grant g = { .size = sizeof(g) };
	struct offer o;
	int fd = memtest_open();
	char *p = memtest_map(MEMTEST_ANON, LEN);

	if (fd < 0 || !p)
		return 1;
	r.addr = (uintptr_t)p;
	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return 1;
	g.handle = r.handle;
	g.access = MEMREG_ACCESS_ALL;
	if (ioctl(fd, MEMREG_IOC_GRANT, &g))
		return 1;
	memcpy(o.token, g.token, 16);
	o.addr = r.addr;
	if (write(out, &o, sizeof(o)) != sizeof(o))
		return 1;
	pause();
	return 0;
}

int main(void)
{
	struct memreg_import im = { .size = sizeof(im) };
	struct memreg_xfer_desc d[3];
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)d, .desc_size = sizeof(d[0]),
	};
	struct offer o;
	sigset_t set;
	uint64_t lh;
	int pfd[2], fd, sig;
	pid_t pid;
	char *buf;

	if (pipe(pfd))
		return 1;
	pid = fork();
	if (pid == 0)
		_exit(owner(pfd[1]));
	if (read(pfd[0], &o, sizeof(o)) != sizeof(o))
		return 1;
	fd = memtest_open();
	buf = memtest_map(MEMTEST_ANON, LEN);
	if (fd < 0 || !buf || memtest_register(fd, buf, LEN, MEMREG_MEM_HOST, &lh))
		return 1;
	memcpy(im.token, o.token, 16);
	if (ioctl(fd, MEMREG_IOC_IMPORT, &im))
		return 1;
	d[0] = (struct memreg_xfer_desc){ MEMREG_XFER_READ, 0, lh,
		(uintptr_t)buf, im.handle, im.addr, LEN };
	d[1] = (struct memreg_xfer_desc){ MEMREG_XFER_WRITE, 0, lh,
		(uintptr_t)buf, im.handle, im.addr, LEN / 2 };
	d[2] = (struct memreg_xfer_desc){ MEMREG_XFER_WRITE, 0, lh,
		(uintptr_t)buf + LEN / 2, im.handle, im.addr + LEN / 2, LEN / 2 };
	t.count = 3;
	if (ioctl(fd, MEMREG_IOC_TRANSFER, &t) || t.done != 3)
		return 1;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d %d\n", (int)pid, (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}
