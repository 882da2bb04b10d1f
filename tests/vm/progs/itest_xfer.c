// SPDX-License-Identifier: GPL-2.0
/*
 * itest_xfer - grants, imports and MEMREG_IOC_TRANSFER between processes,
 * with raw ioctls: the bytes arrive, every refusal has the errno the UAPI
 * header documents and says how many descriptors were done, and neither
 * revocation, unregistration, exit nor kill -9 on either side during a
 * transfer loses a pin or a page.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "memtest.h"

#define MiB (1ULL << 20)
#define PAGE 4096ULL

/* What an owner process tells its peer through a pipe. */
struct offer {
	uint8_t token[16];
	uint64_t addr;
	uint64_t len;
};

/* An owner: a child that registers memory, grants it and waits. */
struct owner {
	pid_t pid;
	int cmd;	/* write: a command byte to the child */
	int ans;	/* read: offers and answers */
	struct offer offer;
};

static long long pins_at_start;

static int setup(void **state)
{
	(void)state;
	pins_at_start = memtest_pins_held();
	return 0;
}

static void assert_no_leak(void)
{
	if (pins_at_start >= 0)
		assert_int_equal(memtest_pins_held(), pins_at_start);
	assert_int_equal(memtest_vmpin_kb(), 0);
}

static int grant(int fd, uint64_t handle, uint32_t access, uint8_t *token)
{
	struct memreg_grant g = {
		.size = sizeof(g), .access = access, .handle = handle,
	};

	if (ioctl(fd, MEMREG_IOC_GRANT, &g))
		return -errno;
	memcpy(token, g.token, 16);
	return 0;
}

static int import(int fd, const uint8_t *token, struct memreg_import *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	memcpy(out->token, token, 16);
	return ioctl(fd, MEMREG_IOC_IMPORT, out) ? -errno : 0;
}

static int revoke_token(int fd, const uint8_t *token)
{
	struct memreg_revoke r = { .size = sizeof(r) };

	memcpy(r.token, token, 16);
	return ioctl(fd, MEMREG_IOC_REVOKE, &r) ? -errno : 0;
}

static int transfer(int fd, struct memreg_xfer_desc *d, uint32_t n,
		    uint32_t *done)
{
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)d, .count = n,
		.desc_size = sizeof(*d),
	};
	int err = ioctl(fd, MEMREG_IOC_TRANSFER, &t) ? -errno : 0;

	if (done)
		*done = t.done;
	return err;
}

static struct memreg_xfer_desc desc(uint32_t op, uint64_t lh, const void *la,
				    uint64_t rh, uint64_t ra, uint64_t len)
{
	struct memreg_xfer_desc d = {
		.op = op, .local_handle = lh, .local_addr = (uintptr_t)la,
		.remote_handle = rh, .remote_addr = ra, .len = len,
	};

	return d;
}

/* the byte pattern of memtest.h, by seed */
#define fill memtest_fill
#define same memtest_same

enum { CMD_CHECK = 'c', CMD_UNREGISTER = 'u', CMD_REVOKE = 'r',
       CMD_EXIT = 'x', CMD_GRANT_RO = 'g' };

/*
 * The child: @len bytes of host memory (device memory if @device), filled
 * with seed 1, registered with both access bits and granted; then obeys
 * commands: check (answers 1 if the memory holds seed 2), unregister,
 * revoke, grant read-only (a second offer), exit.
 */
static void owner_main(int cmd, int ans, uint64_t len, int device)
{
	struct memreg_register r = {
		.size = sizeof(r), .len = len, .access = MEMREG_ACCESS_ALL,
		.type = device ? MEMREG_MEM_DEVICE : MEMREG_MEM_HOST,
	};
	struct offer o = { .len = len };
	int fd = memtest_open();
	char *p, c, ok;

	if (device) {
		struct memreg_dev_alloc a = {
			.size = sizeof(a), .device = 1, .len = len,
			.policy = MEMREG_DEV_HUGE_FIRST,
		};

		if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
			_exit(10);
		p = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, a.mmap_offset);
	} else {
		p = memtest_map(MEMTEST_ANON, len);
	}
	if (!p || p == MAP_FAILED)
		_exit(11);
	fill(p, len, 1);
	r.addr = (uintptr_t)p;
	if (ioctl(fd, MEMREG_IOC_REGISTER, &r) ||
	    grant(fd, r.handle, MEMREG_ACCESS_ALL, o.token))
		_exit(12);
	o.addr = r.addr;
	if (write(ans, &o, sizeof(o)) != sizeof(o))
		_exit(13);
	while (read(cmd, &c, 1) == 1) {
		switch (c) {
		case CMD_CHECK:
			ok = same(p, len, 2);
			break;
		case CMD_UNREGISTER:
			ok = !memtest_unregister(fd, r.handle);
			break;
		case CMD_REVOKE:
			ok = !revoke_token(fd, o.token);
			break;
		case CMD_GRANT_RO:
			ok = !grant(fd, r.handle, MEMREG_ACCESS_REMOTE_READ,
				    o.token);
			if (write(ans, &o, sizeof(o)) != sizeof(o))
				_exit(14);
			break;
		case CMD_EXIT:
		default:
			_exit(0);
		}
		if (write(ans, &ok, 1) != 1)
			_exit(15);
	}
	_exit(0);
}

static void owner_start(struct owner *ow, uint64_t len, int device)
{
	int c[2], a[2];

	assert_int_equal(pipe(c), 0);
	assert_int_equal(pipe(a), 0);
	ow->pid = fork();
	assert_true(ow->pid >= 0);
	if (ow->pid == 0) {
		close(c[1]);
		close(a[0]);
		owner_main(c[0], a[1], len, device);
	}
	close(c[0]);
	close(a[1]);
	ow->cmd = c[1];
	ow->ans = a[0];
	assert_int_equal(read(ow->ans, &ow->offer, sizeof(ow->offer)),
			 sizeof(ow->offer));
}

static int owner_do(struct owner *ow, char cmd)
{
	char ok = 0;

	assert_int_equal(write(ow->cmd, &cmd, 1), 1);
	if (cmd == CMD_GRANT_RO)
		assert_int_equal(read(ow->ans, &ow->offer, sizeof(ow->offer)),
				 sizeof(ow->offer));
	assert_int_equal(read(ow->ans, &ok, 1), 1);
	return ok;
}

static void owner_stop(struct owner *ow, int kill9)
{
	int st;

	if (kill9)
		kill(ow->pid, SIGKILL);
	else
		assert_int_equal(write(ow->cmd, "x", 1), 1);
	assert_int_equal(waitpid(ow->pid, &st, 0), ow->pid);
	close(ow->cmd);
	close(ow->ans);
}

/* A registration of our own with both access bits. */
static char *local_mem(int fd, uint64_t len, uint64_t *handle)
{
	char *p = memtest_map(MEMTEST_ANON, len);

	assert_non_null(p);
	assert_int_equal(memtest_register(fd, p, len, MEMREG_MEM_HOST, handle),
			 0);
	return p;
}

static void check_read_write(uint64_t len, int device)
{
	struct memreg_import im;
	struct memreg_xfer_desc d;
	struct owner ow;
	uint64_t lh;
	uint32_t done;
	int fd = memtest_open();
	char *buf = local_mem(fd, len, &lh);

	owner_start(&ow, len, device);
	assert_int_equal(import(fd, ow.offer.token, &im), 0);
	assert_int_equal(im.addr, ow.offer.addr);
	assert_int_equal(im.len, len);
	assert_int_equal(im.type, device ? MEMREG_MEM_DEVICE : MEMREG_MEM_HOST);
	assert_int_equal(im.access, MEMREG_ACCESS_ALL);
	assert_int_equal(im.pid, ow.pid);

	/* READ: the peer's bytes arrive here */
	d = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, len);
	assert_int_equal(transfer(fd, &d, 1, &done), 0);
	assert_int_equal(done, 1);
	assert_true(same(buf, len, 1));
	/* WRITE: ours arrive there */
	fill(buf, len, 2);
	d.op = MEMREG_XFER_WRITE;
	assert_int_equal(transfer(fd, &d, 1, &done), 0);
	assert_int_equal(owner_do(&ow, CMD_CHECK), 1);

	owner_stop(&ow, 0);
	assert_int_equal(memtest_unregister(fd, lh), 0);
	close(fd);
	memtest_unmap(buf, len);
	assert_no_leak();
}

/* A registration of host memory that may be granted (both access bits). */
static uint64_t register_all(int fd, void *p, uint64_t len)
{
	struct memreg_register r = {
		.size = sizeof(r), .addr = (uintptr_t)p, .len = len,
		.access = MEMREG_ACCESS_ALL, .type = MEMREG_MEM_HOST,
	};

	assert_int_equal(ioctl(fd, MEMREG_IOC_REGISTER, &r), 0);
	return r.handle;
}

/*
 * Copy @len bytes both ways between @a and @b, two registrations of our
 * own (@a granted and imported by ourselves): whole, then in pieces that
 * cross every 2 MiB boundary of @a, byte-checked each time.
 */
static void check_both_ways(int fd, char *a, char *b, uint64_t len)
{
	uint64_t ha, hb, off, piece = 12345;
	struct memreg_import im;
	struct memreg_xfer_desc d;
	uint8_t token[16] = { 0 };
	uint32_t done;

	ha = register_all(fd, a, len);
	hb = register_all(fd, b, len);
	assert_int_equal(grant(fd, ha, MEMREG_ACCESS_ALL, token), 0);
	assert_int_equal(import(fd, token, &im), 0);

	fill(a, len, 21);
	memset(b, 0, len);
	d = desc(MEMREG_XFER_READ, hb, b, im.handle, (uintptr_t)a, len);
	assert_int_equal(transfer(fd, &d, 1, &done), 0);
	assert_true(same(b, len, 21));

	/* in pieces of an odd size, so that every one starts unaligned */
	fill(b, len, 22);
	for (off = 0; off < len; off += piece) {
		uint64_t n = len - off < piece ? len - off : piece;

		d = desc(MEMREG_XFER_WRITE, hb, b + off, im.handle,
			 (uintptr_t)a + off, n);
		assert_int_equal(transfer(fd, &d, 1, &done), 0);
	}
	assert_true(same(a, len, 22));

	assert_int_equal(revoke_token(fd, token), 0);
	{
		struct memreg_unimport u = {
			.size = sizeof(u), .handle = im.handle,
		};

		assert_int_equal(ioctl(fd, MEMREG_IOC_UNIMPORT, &u), 0);
	}
	assert_int_equal(memtest_unregister(fd, hb), 0);
	assert_int_equal(memtest_unregister(fd, ha), 0);
}

/*
 * Huge pages are kept as runs of pages of one folio, small ones as an
 * array of pages, and a registration of both switches from one to the
 * other while it is pinned: bytes land in the right place in each case.
 */
static void test_huge_pages(void **state)
{
	const uint64_t hp = 2 * MiB;
	/* more than one batch of 512 pages, unaligned at both ends */
	const uint64_t off = 3 * PAGE + 7, len = hp + 5000;
	long long before = memtest_pins_acquired();
	char *huge = memtest_map(MEMTEST_HUGETLB, 2 * hp);
	char *small = memtest_map(MEMTEST_ANON, len);
	char *mixed;
	int fd = memtest_open();

	(void)state;
	if (!huge) {
		print_message("# no huge page free for this test\n");
		memtest_unmap(small, len);
		close(fd);
		skip();
	}
	check_both_ways(fd, huge + off, small, len);
	/*
	 * one pin per hugetlbfs page (the range has parts of two), one per
	 * 4 KiB page of the other (514)
	 */
	if (before >= 0)
		assert_int_equal(memtest_pins_acquired() - before, 2 + 514);

	memtest_unmap(huge, 2 * hp);
	memtest_unmap(small, len);

	/*
	 * 2 MiB of hugetlb followed by 64 KiB of 4 KiB pages, one range: a
	 * huge page mapped over the 2 MiB-aligned start of an anonymous
	 * mapping.  (Not the other way round: unmapping part of a hugetlb
	 * mapping WARNs in hugetlb_split() on Debian's 6.1.192 source.)
	 */
	mixed = mmap(NULL, 3 * hp, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mixed != MAP_FAILED);
	/* 2 MiB-aligned, with 4 KiB pages before it and after it */
	huge = (char *)(((uintptr_t)mixed + 16 * PAGE + hp - 1) & ~(hp - 1));
	assert_ptr_equal(mmap(huge, hp, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			      MAP_FIXED, -1, 0), huge);
	memset(huge, 0xa5, hp + 16 * PAGE);
	small = memtest_map(MEMTEST_ANON, hp + 16 * PAGE);
	check_both_ways(fd, huge, small, hp + 16 * PAGE);

	/* and 4 KiB pages first, then the huge page: a 2 MiB-unaligned start */
	memset(huge - 16 * PAGE, 0xa5, 16 * PAGE);
	check_both_ways(fd, huge - 16 * PAGE, small, hp + 16 * PAGE);

	memtest_unmap(small, hp + 16 * PAGE);
	munmap(mixed, 3 * hp);
	close(fd);
	assert_no_leak();
}

static void test_host_small(void **state)
{
	(void)state;
	check_read_write(3 * PAGE + 123, 0);
}

static void test_host_large(void **state)
{
	(void)state;
	check_read_write(memtest_pin_room(16 * MiB), 0);
}

static void test_device(void **state)
{
	(void)state;
	check_read_write(6 * MiB, 1);
}

/* 4096 descriptors of odd sizes at odd offsets, in one call. */
static void test_batch(void **state)
{
	const uint32_t n = 4096;
	const uint64_t len = 8 * MiB;
	struct memreg_xfer_desc *d = calloc(n, sizeof(*d));
	struct memreg_import im;
	struct owner ow;
	uint64_t lh, off = 0;
	uint32_t done;
	int fd = memtest_open();
	char *buf = local_mem(fd, len, &lh);

	(void)state;
	owner_start(&ow, len, 0);
	assert_int_equal(import(fd, ow.offer.token, &im), 0);
	memset(buf, 0, len);
	/* descriptor i copies [off, off + sz) to the mirrored place here */
	for (uint32_t i = 0; i < n; i++) {
		uint64_t sz = 1 + (i * 2654435761u) % 2040;

		d[i] = desc(MEMREG_XFER_READ, lh, buf + (len - off - sz),
			    im.handle, im.addr + off, sz);
		off += sz;
	}
	assert_int_equal(transfer(fd, d, n, &done), 0);
	assert_int_equal(done, n);
	{
		/* build what should have arrived and compare */
		char *want = malloc(len), *src = malloc(len);

		fill(src, len, 1);
		memset(want, 0, len);
		off = 0;
		for (uint32_t i = 0; i < n; i++) {
			memcpy(want + (len - off - d[i].len), src + off,
			       d[i].len);
			off += d[i].len;
		}
		assert_memory_equal(buf, want, len);
		free(want);
		free(src);
	}
	owner_stop(&ow, 0);
	close(fd);
	memtest_unmap(buf, len);
	free(d);
	assert_no_leak();
}

static void test_refusals(void **state)
{
	uint8_t bogus[16] = { 1, 2, 3 }, tok[16] = { 0 };
	struct memreg_import im, ro;
	struct memreg_xfer_desc d[3];
	struct owner ow;
	uint64_t lh, h2;
	uint32_t done;
	int fd = memtest_open();
	char *buf = local_mem(fd, 4 * PAGE, &lh);
	char *ronly = memtest_map(MEMTEST_ANON, PAGE);

	(void)state;
	owner_start(&ow, 4 * PAGE, 0);

	/* no such token */
	assert_int_equal(import(fd, bogus, &im), -ENOENT);
	/* the right id with a wrong random part */
	memcpy(bogus, ow.offer.token, 16);
	bogus[15] ^= 1;
	assert_int_equal(import(fd, bogus, &im), -ENOENT);

	/* grants: unknown handle, no access, more than registered */
	assert_int_equal(grant(fd, lh ^ (1ULL << 40), MEMREG_ACCESS_ALL, tok),
			 -ENOENT);
	assert_int_equal(grant(fd, lh, 0, tok), -EINVAL);
	assert_int_equal(memtest_register(fd, ronly, PAGE, MEMREG_MEM_HOST, &h2),
			 0);	/* registered with access 0 */
	assert_int_equal(grant(fd, h2, MEMREG_ACCESS_REMOTE_READ, tok), -EACCES);
	/* at most 64 live grants of one registration */
	{
		struct memreg_register r = {
			.size = sizeof(r), .addr = (uintptr_t)buf, .len = PAGE,
			.access = MEMREG_ACCESS_ALL,
		};
		uint8_t many[64][16];
		int i;

		assert_int_equal(ioctl(fd, MEMREG_IOC_REGISTER, &r), 0);
		for (i = 0; i < 64; i++)
			assert_int_equal(grant(fd, r.handle,
					       MEMREG_ACCESS_REMOTE_READ,
					       many[i]), 0);
		assert_int_equal(grant(fd, r.handle, MEMREG_ACCESS_REMOTE_READ,
				       tok), -EMFILE);
		for (i = 0; i < 64; i++)
			assert_int_equal(revoke_token(fd, many[i]), 0);
		assert_int_equal(revoke_token(fd, many[0]), -ENOENT);
		assert_int_equal(grant(fd, r.handle, MEMREG_ACCESS_REMOTE_READ,
				       tok), 0);
		/* unregistering revokes: the token is dead */
		assert_int_equal(memtest_unregister(fd, r.handle), 0);
		assert_int_equal(import(fd, tok, &im), -ENOENT);
	}
	/* a token of the peer is not ours to revoke */
	assert_int_equal(revoke_token(fd, ow.offer.token), -ENOENT);

	assert_int_equal(import(fd, ow.offer.token, &im), 0);
	/* the second descriptor leaves the peer's registration */
	d[0] = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, PAGE);
	d[1] = desc(MEMREG_XFER_READ, lh, buf, im.handle,
		    im.addr + 3 * PAGE + 1, PAGE);
	d[2] = d[0];
	assert_int_equal(transfer(fd, d, 3, &done), -ERANGE);
	assert_int_equal(done, 1);
	/* ... or ours */
	d[1] = desc(MEMREG_XFER_READ, lh, buf + 4 * PAGE - 1, im.handle,
		    im.addr, 2);
	assert_int_equal(transfer(fd, d, 3, &done), -ERANGE);
	assert_int_equal(done, 1);
	/* unknown handles, bad op, empty descriptor */
	d[1] = desc(MEMREG_XFER_READ, lh + 1, buf, im.handle, im.addr, 1);
	assert_int_equal(transfer(fd, d, 2, &done), -ENOENT);
	d[1] = desc(MEMREG_XFER_READ, lh, buf, im.handle + 1, im.addr, 1);
	assert_int_equal(transfer(fd, d, 2, &done), -ENOENT);
	d[1] = desc(7, lh, buf, im.handle, im.addr, 1);
	assert_int_equal(transfer(fd, d, 2, &done), -EINVAL);
	d[1] = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, 0);
	assert_int_equal(transfer(fd, d, 2, &done), -EINVAL);
	assert_int_equal(done, 1);
	assert_int_equal(transfer(fd, NULL, 1, &done), -EFAULT);
	assert_int_equal(transfer(fd, d, 0, &done), -EINVAL);

	/* a read-only grant refuses WRITE */
	assert_int_equal(owner_do(&ow, CMD_GRANT_RO), 1);
	assert_int_equal(import(fd, ow.offer.token, &ro), 0);
	assert_int_equal(ro.access, MEMREG_ACCESS_REMOTE_READ);
	d[0] = desc(MEMREG_XFER_READ, lh, buf, ro.handle, ro.addr, PAGE);
	assert_int_equal(transfer(fd, d, 1, &done), 0);
	d[0].op = MEMREG_XFER_WRITE;
	assert_int_equal(transfer(fd, d, 1, &done), -EACCES);
	assert_int_equal(done, 0);

	/* revoked (the second grant): useless at once, for import too */
	assert_int_equal(owner_do(&ow, CMD_REVOKE), 1);
	d[0].op = MEMREG_XFER_READ;
	assert_int_equal(transfer(fd, d, 1, &done), -EKEYREVOKED);
	assert_int_equal(import(fd, ow.offer.token, &ro), -ENOENT);
	/* the first grant still works; unregistering kills it */
	d[0] = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, PAGE);
	assert_int_equal(transfer(fd, d, 1, &done), 0);
	assert_int_equal(owner_do(&ow, CMD_UNREGISTER), 1);
	assert_int_equal(transfer(fd, d, 1, &done), -EKEYREVOKED);

	/* unimported: the handle is gone */
	{
		struct memreg_unimport u = {
			.size = sizeof(u), .handle = im.handle,
		};

		assert_int_equal(ioctl(fd, MEMREG_IOC_UNIMPORT, &u), 0);
		assert_int_equal(ioctl(fd, MEMREG_IOC_UNIMPORT, &u), -1);
		assert_int_equal(errno, ENOENT);
		assert_int_equal(transfer(fd, d, 1, &done), -ENOENT);
	}
	owner_stop(&ow, 0);
	close(fd);
	memtest_unmap(buf, 4 * PAGE);
	memtest_unmap(ronly, PAGE);
	assert_no_leak();
}

/*
 * The owner exits: its tokens and imports die with it, and say so
 * (EOWNERDEAD, not the EKEYREVOKED of a revocation).  Each life of an
 * owner has its own incarnation: one started again at the same addresses
 * is never reached through the first one's import.
 */
static void test_owner_exit(void **state)
{
	struct memreg_import im, im2;
	struct memreg_xfer_desc d;
	struct memreg_info info;
	struct owner ow;
	uint8_t token[16];
	uint64_t lh;
	int fd = memtest_open();
	char *buf = local_mem(fd, PAGE, &lh);

	(void)state;
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_true(info.features & MEMREG_FEATURE_INCARNATION);
	assert_true(info.incarnation != 0);
	assert_true(info.start_time != 0);
	owner_start(&ow, PAGE, 0);
	memcpy(token, ow.offer.token, 16);
	assert_int_equal(import(fd, token, &im), 0);
	assert_true(im.incarnation != 0);
	assert_true(im.incarnation != info.incarnation);
	owner_stop(&ow, 1);
	d = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, PAGE);
	assert_int_equal(transfer(fd, &d, 1, NULL), -EOWNERDEAD);
	assert_int_equal(import(fd, token, &im2), -ENOENT);

	/* the owner again: another life, and the old import still refused */
	owner_start(&ow, PAGE, 0);
	assert_int_equal(import(fd, ow.offer.token, &im2), 0);
	assert_true(im2.incarnation > im.incarnation);
	assert_int_equal(transfer(fd, &d, 1, NULL), -EOWNERDEAD);
	d = desc(MEMREG_XFER_READ, lh, buf, im2.handle, im2.addr, PAGE);
	assert_int_equal(transfer(fd, &d, 1, NULL), 0);
	/* an orderly exit is an end of its life too */
	owner_stop(&ow, 0);
	assert_int_equal(transfer(fd, &d, 1, NULL), -EOWNERDEAD);
	close(fd);
	memtest_unmap(buf, PAGE);
	assert_no_leak();
}

struct pump {
	int fd;
	struct memreg_xfer_desc d;
	int err;		/* the error that ended the loop */
	unsigned long rounds;
};

static void *pump_main(void *arg)
{
	struct pump *p = arg;

	do {
		p->err = transfer(p->fd, &p->d, 1, NULL);
		p->rounds++;
	} while (!p->err);
	return NULL;
}

/*
 * The owner's memory goes while a peer copies 32 MiB reads from it in a
 * loop (@kill: the owner is killed with -9, else it unregisters): the
 * copier's next transfer says EOWNERDEAD (killed) or EKEYREVOKED
 * (unregistered), and no pin is left behind.
 */
static void check_owner_goes_mid_transfer(int kill)
{
	const uint64_t len = memtest_pin_room(32 * MiB);
	struct memreg_import im;
	struct owner ow;
	struct pump p;
	pthread_t t;
	uint64_t lh;
	int fd = memtest_open();
	char *buf = local_mem(fd, len, &lh);

	owner_start(&ow, len, 0);
	assert_int_equal(import(fd, ow.offer.token, &im), 0);
	p = (struct pump){ .fd = fd };
	p.d = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, len);
	assert_int_equal(pthread_create(&t, NULL, pump_main, &p), 0);
	usleep(200 * 1000);
	if (kill)
		owner_stop(&ow, 1);
	else
		assert_int_equal(owner_do(&ow, CMD_UNREGISTER), 1);
	pthread_join(t, NULL);
	print_message("# %lu transfers of %llu MiB before the owner's memory went\n",
		      p.rounds, (unsigned long long)(len >> 20));
	assert_int_equal(p.err, kill ? -EOWNERDEAD : -EKEYREVOKED);
	if (!kill)
		owner_stop(&ow, 0);
	assert_int_equal(memtest_unregister(fd, lh), 0);
	close(fd);
	memtest_unmap(buf, len);
	assert_no_leak();
}

static void test_kill_owner_mid_transfer(void **state)
{
	(void)state;
	check_owner_goes_mid_transfer(1);
}

/* kill -9 of the copying process: the owner loses nothing. */
static void test_kill_copier_mid_transfer(void **state)
{
	const uint64_t len = memtest_pin_room(32 * MiB);
	struct owner ow;
	int go[2], st;
	pid_t pid;
	char c;

	(void)state;
	owner_start(&ow, len, 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		struct memreg_import im;
		struct pump p;
		uint64_t lh;
		int fd = memtest_open();
		char *buf = memtest_map(MEMTEST_ANON, len);

		if (memtest_register(fd, buf, len, MEMREG_MEM_HOST, &lh) ||
		    import(fd, ow.offer.token, &im))
			_exit(1);
		p = (struct pump){ .fd = fd };
		p.d = desc(MEMREG_XFER_WRITE, lh, buf, im.handle, im.addr, len);
		if (write(go[1], "g", 1) != 1)
			_exit(1);
		pump_main(&p);
		_exit(2);
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	usleep(200 * 1000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	/* the owner's registration is whole and can go */
	assert_int_equal(owner_do(&ow, CMD_UNREGISTER), 1);
	owner_stop(&ow, 0);
	close(go[0]);
	close(go[1]);
	assert_no_leak();
}

static void test_unregister_mid_transfer(void **state)
{
	(void)state;
	check_owner_goes_mid_transfer(0);
}

/* Eight processes, each reading and writing every other's memory. */
static void test_eight_processes(void **state)
{
	enum { N = 8 };
	const uint64_t len = MiB;
	struct owner ow[N];
	int fd = memtest_open();
	uint64_t lh;
	char *buf = local_mem(fd, len, &lh);

	(void)state;
	for (int i = 0; i < N; i++)
		owner_start(&ow[i], len, i & 1);
	for (int i = 0; i < N; i++) {
		struct memreg_import im;
		struct memreg_xfer_desc d[2];

		assert_int_equal(import(fd, ow[i].offer.token, &im), 0);
		d[0] = desc(MEMREG_XFER_READ, lh, buf, im.handle, im.addr, len);
		assert_int_equal(transfer(fd, d, 1, NULL), 0);
		assert_true(same(buf, len, 1));
		fill(buf, len, 2);
		d[0].op = MEMREG_XFER_WRITE;
		assert_int_equal(transfer(fd, d, 1, NULL), 0);
		assert_int_equal(owner_do(&ow[i], CMD_CHECK), 1);
	}
	for (int i = 0; i < N; i++)
		owner_stop(&ow[i], i % 3 == 0);
	close(fd);
	memtest_unmap(buf, len);
	assert_no_leak();
}

#define T(f) cmocka_unit_test_setup(f, setup)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_host_small),
		T(test_huge_pages),
		T(test_host_large),
		T(test_device),
		T(test_batch),
		T(test_refusals),
		T(test_owner_exit),
		T(test_kill_owner_mid_transfer),
		T(test_kill_copier_mid_transfer),
		T(test_unregister_mid_transfer),
		T(test_eight_processes),
	};

	return cmocka_run_group_tests_name("memreg transfers", tests, NULL,
					   NULL);
}
