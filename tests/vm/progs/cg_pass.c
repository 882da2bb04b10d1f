// SPDX-License-Identifier: GPL-2.0
/*
 * cg_pass - memory handed from a process of one cgroup to a process of
 * another, for tests/vm/cases/cgroup.sh: who is charged.  Run as root in
 * cgroup A; the child it forks is moved to cgroup directory BDIR.
 *
 *   cg_pass fd BDIR BYTES      a /dev/memreg fd passed (SCM_RIGHTS): the
 *                              child's REGISTER on it, then on its own
 *   cg_pass export BDIR BYTES  BYTES of device 0 exported, the handle
 *                              freed keeping the export, the dma-buf
 *                              passed; the child registers it (DMABUF)
 *   cg_pass ipc BDIR BYTES     the same through an IPC name the child is
 *                              allowed to import
 *   cg_pass exec ROUNDS BYTES  BYTES of host memory registered on an fd
 *                              kept across exec, ROUNDS times: each new
 *                              image tries the inherited fd, then its own
 *
 * One line a step ("passed EPERM", "own OK", ...: OK or the errno's
 * name), then "ready" once the child holds what it got, holding
 * everything until SIGTERM (which the child gets too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/memreg.h>

#include "memtest.h"

static void say(const char *what, int err)
{
	printf("%s %s\n", what, err ? strerrorname_np(-err) : "OK");
	fflush(stdout);
}

/* Until SIGTERM; @sock >= 0: a child, which tells its parent it holds. */
static void hold(int sock)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (sock >= 0) {
		if (write(sock, "", 1) != 1)
			exit(1);
	} else {
		printf("ready\n");
		fflush(stdout);
	}
	sigwait(&set, &sig);
}

/* @len bytes of @fd on the socket, with @pass as SCM_RIGHTS if >= 0. */
static int send_msg(int sock, int pass, const void *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (pass >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
	}
	return sendmsg(sock, &m, 0) < 0 ? -errno : 0;
}

/* A message into @buf; the fd it carried, or -1. */
static int recv_msg(int sock, void *buf, size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd = -1;

	if (recvmsg(sock, &m, 0) <= 0)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static void *anon(uint64_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		printf("Bail out! no memory\n");
		exit(1);
	}
	return p;
}

/* Move process @pid to cgroup directory @dir (we are root). */
static int enter(const char *dir, pid_t pid)
{
	char path[512];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%d\n", pid);
	err = fclose(f) ? -errno : 0;
	return err;
}

/*
 * BYTES of device 0, exported, the handle freed keeping the export (the
 * allocation lives on in the dma-buf, charged where it was made): the
 * dma-buf's fd, or -errno.
 */
static int dev_exported(int fd, uint64_t len)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = len,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};
	struct memreg_dev_export e = {
		.size = sizeof(e), .flags = MEMREG_EXPORT_CLOEXEC, .len = len,
	};
	struct memreg_dev_free f = {
		.size = sizeof(f), .flags = MEMREG_DEV_FREE_KEEP_EXPORTS,
	};

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	e.handle = f.handle = a.handle;
	if (ioctl(fd, MEMREG_IOC_DEV_EXPORT, &e) ||
	    ioctl(fd, MEMREG_IOC_DEV_FREE, &f))
		return -errno;
	return e.fd;
}

static int child_fd(int sock, uint64_t len)
{
	int passed = recv_msg(sock, &(char){0}, 1), own;
	void *p = anon(len);

	say("passed", memtest_register(passed, p, len, MEMREG_MEM_HOST, NULL));
	own = memtest_open();
	say("own", memtest_register(own, p, len, MEMREG_MEM_HOST, NULL));
	hold(sock);
	return 0;
}

static int child_dmabuf(int sock, int ipc, uint64_t len)
{
	struct memreg_ipc_import im = {
		.size = sizeof(im), .flags = MEMREG_EXPORT_CLOEXEC,
	};
	int own = memtest_open(), dfd;

	dfd = recv_msg(sock, im.token, sizeof(im.token));
	if (ipc) {
		dfd = ioctl(own, MEMREG_IOC_IPC_IMPORT, &im) ? -errno : im.fd;
		say("import", dfd < 0 ? dfd : 0);
	}
	say("dmabuf", dfd < 0 ? dfd :
	    memtest_register_dmabuf(own, dfd, 0, len, NULL));
	hold(sock);
	return 0;
}

/* fd, export, ipc: the parent's side. */
static int pass(const char *mode, const char *bdir, uint64_t len)
{
	struct memreg_ipc_export x = { .size = sizeof(x) };
	struct memreg_ipc_allow al = { .size = sizeof(al), .count = 1 };
	int sv[2], fd = memtest_open(), dfd = -1, err = 0, st;
	int32_t cpid;
	pid_t pid;

	if (fd < 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return 1;
	pid = fork();
	if (!pid) {
		close(sv[0]);
		if (!strcmp(mode, "fd"))
			return child_fd(sv[1], len);
		return child_dmabuf(sv[1], !strcmp(mode, "ipc"), len);
	}
	close(sv[1]);
	say("moved", enter(bdir, pid));
	if (!strcmp(mode, "fd")) {
		err = send_msg(sv[0], fd, "", 1);
	} else {
		dfd = dev_exported(fd, len);
		say("export", dfd < 0 ? dfd : 0);
		if (dfd >= 0 && !strcmp(mode, "ipc")) {
			/* the name keeps the dma-buf; our fd goes */
			x.fd = dfd;
			cpid = pid;
			al.pids = (uintptr_t)&cpid;
			if (ioctl(fd, MEMREG_IOC_IPC_EXPORT, &x))
				err = -errno;
			memcpy(al.token, x.token, sizeof(al.token));
			if (!err && ioctl(fd, MEMREG_IOC_IPC_ALLOW, &al))
				err = -errno;
			say("name", err);
			close(dfd);
			dfd = -1;
			err = send_msg(sv[0], -1, x.token, sizeof(x.token));
		} else {
			err = send_msg(sv[0], dfd, x.token, sizeof(x.token));
			close(dfd);
		}
	}
	if (err)
		say("send", err);
	/* "ready" once the child holds what it got */
	if (read(sv[0], &(char){0}, 1) != 1)
		say("child", -EIO);
	hold(-1);
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	return 0;
}

/* exec: ROUNDS images, each charging BYTES; the fd lives across them. */
static int rounds(char *self, long n, uint64_t len, int inherited)
{
	char a1[24], a2[24], a3[24];
	void *p = anon(len);
	int own;

	if (inherited >= 0)
		say("inherited", memtest_register(inherited, p, len,
						  MEMREG_MEM_HOST, NULL));
	own = memtest_open();
	/* not O_CLOEXEC (memtest_open's own flags): kept across exec */
	fcntl(own, F_SETFD, 0);
	say("own", memtest_register(own, p, len, MEMREG_MEM_HOST, NULL));
	if (n <= 1) {
		hold(-1);
		return 0;
	}
	snprintf(a1, sizeof(a1), "%ld", n - 1);
	snprintf(a2, sizeof(a2), "%llu", (unsigned long long)len);
	snprintf(a3, sizeof(a3), "%d", own);
	execl(self, self, "exec", a1, a2, a3, (char *)NULL);
	say("exec", -errno);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && (!strcmp(argv[1], "fd") ||
			  !strcmp(argv[1], "export") ||
			  !strcmp(argv[1], "ipc")))
		return pass(argv[1], argv[2], strtoull(argv[3], NULL, 0));
	if (argc >= 4 && !strcmp(argv[1], "exec"))
		return rounds("/proc/self/exe", atol(argv[2]),
			      strtoull(argv[3], NULL, 0),
			      argc > 4 ? atoi(argv[4]) : -1);
	fprintf(stderr, "usage: cg_pass fd|export|ipc BDIR BYTES | exec ROUNDS BYTES\n");
	return 2;
}
