// SPDX-License-Identifier: GPL-2.0
/*
 * demo_app - the program that make demo (tests/vm/demo.sh) drives step by
 * step: it reads one command a line on stdin, does it against /dev/memreg,
 * says what happened on stdout (each line prefixed with its name) and
 * answers "done KEY=VALUE..." on fd 3, so that the script can take
 * snapshots with the memreg tool between the steps, and knows the figures
 * for its summary.
 *
 *   demo_app NAME        (comm becomes NAME, the prefix of its lines)
 *
 * Commands:
 *   thp           seven 1 MiB host registrations of differently backed
 *                 memory (inside one THP, across two, half THP and half
 *                 4 KiB pages, no THP, and the three of a 3 MiB buffer
 *                 off a 2 MiB boundary), each with its folios as
 *                 /proc/self/pagemap sees them
 *   dev BYTES     allocate BYTES on emulated device 0, map it, register it
 *   grant FILE    register 1 MiB with remote access, grant it, write the
 *                 token and address to FILE
 *   import FILE   import the token in FILE
 *   xfer          READ the imported 1 MiB into a registration of our own
 *                 and WRITE 1 MiB of ours back, one TRANSFER each
 *   check         whether our granted 1 MiB holds what the peer wrote
 *   register BYTES  try to register BYTES more of host memory
 *   status        VmPin and what the module says we hold
 *   exit          exit without unregistering: the module cleans up
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "memtest.h"

#define MiB		(1UL << 20)
#define XFER_LEN	MiB
#define OWNER_SEED	7	/* what the granting process fills in */
#define READER_SEED	9	/* what the importing process writes back */

/* /proc/kpageflags bits (include/uapi/linux/kernel-page-flags.h) */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16

static const char *name;
static int fd;
static FILE *ack;

/* the registration a peer may use, and the one we copy through */
static char *xbuf;
static uint64_t xhandle;
static struct memreg_import im;

static void say(const char *fmt, ...)
{
	va_list ap;

	printf("%-8s| ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void done(const char *fmt, ...)
{
	va_list ap;

	fputs("done", ack);
	if (fmt) {
		fputc(' ', ack);
		va_start(ap, fmt);
		vfprintf(ack, fmt, ap);
		va_end(ap);
	}
	fputc('\n', ack);
	fflush(ack);
}

static const char *err_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "?";
}

/*
 * The folios under [p, p + len), counted from userspace the way the module
 * counts what it pinned, so that the two can be compared: small pages, and
 * huge folios (a compound page starts one at its head, at the range's
 * first page, or where the frames stop following each other).  Needs root
 * for the frame numbers; -1 if they cannot be read.
 */
static int count_folios(const char *p, size_t len, long *small, long *huge)
{
	uint64_t ent, flags, pfn, prev = 0;
	int pm, kf, ret = -1;
	size_t i;

	*small = *huge = 0;
	pm = open("/proc/self/pagemap", O_RDONLY);
	kf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kf < 0)
		goto out;
	for (i = 0; i < len / 4096; i++) {
		off_t at = ((uintptr_t)p / 4096 + i) * sizeof(ent);
		bool compound;

		if (pread(pm, &ent, sizeof(ent), at) != sizeof(ent))
			goto out;
		pfn = ent & ((1ULL << 55) - 1);
		if (!(ent >> 63) || !pfn)
			goto out;
		if (pread(kf, &flags, sizeof(flags), pfn * sizeof(flags)) !=
		    sizeof(flags))
			goto out;
		compound = flags & (1ULL << KPF_COMPOUND_HEAD |
				    1ULL << KPF_COMPOUND_TAIL);
		if (!compound)
			(*small)++;
		else if (!i || pfn != prev + 1 ||
			 (flags & (1ULL << KPF_COMPOUND_HEAD)))
			(*huge)++;
		prev = pfn;
	}
	ret = 0;
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return ret;
}

/* Register one labelled 1 MiB range and say what backs it. */
static int reg_labelled(char *p, const char *label, char *counts, size_t n)
{
	uint64_t h;
	long small, huge;
	int err;

	err = memtest_register(fd, p, MiB, MEMREG_MEM_HOST, &h);
	if (err) {
		say("register %s: %s", label, strerror(-err));
		return err;
	}
	if (count_folios(p, MiB, &small, &huge)) {
		say("id %-2u %-26s (pagemap unreadable)", (unsigned int)h, label);
		snprintf(counts + strlen(counts), n - strlen(counts), "%s?",
			 *counts ? "," : "");
		return 0;
	}
	say("id %-2u %-26s %3ld x 4 KiB + %ld huge folio%s = %ld",
	    (unsigned int)h, label, small, huge, huge == 1 ? " " : "s",
	    small + huge);
	snprintf(counts + strlen(counts), n - strlen(counts), "%s%ld",
		 *counts ? "," : "", small + huge);
	return 0;
}

/*
 * 3 MiB of anonymous memory that starts @before pages ahead of a 2 MiB
 * boundary, as mmap() may place any buffer: one aligned 2 MiB window lies
 * inside it, which THP ("always") backs with a huge page, and the pages on
 * either side of it stay 4 KiB pages.  Carved out of a PROT_NONE
 * reservation so that the place is ours to choose: 8 MiB hold @before
 * pages (under 2 MiB), the alignment and the 3 MiB.
 */
static char *map_unaligned(unsigned long before)
{
	char *raw, *p;
	uintptr_t edge;

	raw = mmap(NULL, 8 * MiB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	if (raw == MAP_FAILED)
		return NULL;
	/* the first boundary with room for @before pages ahead of it */
	edge = ((uintptr_t)raw + before * 4096 + 2 * MiB - 1) & ~(2 * MiB - 1);
	p = (char *)edge - before * 4096;
	if (mmap(p, 3 * MiB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return NULL;
	memset(p, 0x3c, 3 * MiB);
	return p;
}

/*
 * Identical 1 MiB registrations whose PINNED column differs: the module
 * counts folios, and a THP is one folio however much of it a registration
 * covers.  Two 4 MiB buffers on 2 MiB boundaries, a (whose second half is
 * MADV_NOHUGEPAGE) and b (all THP), and then the three 1 MiB of a 3 MiB
 * buffer 167 pages before a boundary, which read 168, 1 and 90 when
 * memreg_hold's buffer once landed there (issue 28).
 */
static void cmd_thp(void)
{
	/* (MEMTEST_THP: 2 MiB-aligned, MADV_HUGEPAGE, touched) */
	char *a = memtest_map(MEMTEST_THP, 4 * MiB);
	char *b = memtest_map(MEMTEST_THP, 4 * MiB);
	char *c = map_unaligned(167);
	char counts[64] = "";

	if (!a || !b || !c) {
		say("cannot map the buffers");
		done("error");
		return;
	}
	/* fresh memory for a's second half: small pages only from here on */
	munmap(a + 2 * MiB, 2 * MiB);
	if (mmap(a + 2 * MiB, 2 * MiB, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
	    madvise(a + 2 * MiB, 2 * MiB, MADV_NOHUGEPAGE)) {
		say("cannot set up the no-THP half: %s", strerror(errno));
		done("error");
		return;
	}
	memset(a + 2 * MiB, 0x5a, 2 * MiB);
	if (reg_labelled(a, "inside one THP", counts, sizeof(counts)) ||
	    reg_labelled(b + MiB + MiB / 2, "across two THPs", counts,
			 sizeof(counts)) ||
	    reg_labelled(a + MiB + MiB / 2, "half THP, half 4 KiB", counts,
			 sizeof(counts)) ||
	    reg_labelled(a + 3 * MiB, "no THP (MADV_NOHUGEPAGE)", counts,
			 sizeof(counts))) {
		done("error");
		return;
	}
	say("a 3 MiB buffer placed 167 pages before a 2 MiB boundary:");
	if (reg_labelled(c, "its 1st MiB", counts, sizeof(counts)) ||
	    reg_labelled(c + MiB, "its 2nd MiB", counts, sizeof(counts)) ||
	    reg_labelled(c + 2 * MiB, "its 3rd MiB", counts, sizeof(counts))) {
		done("error");
		return;
	}
	/* the folios of each, as pagemap saw them: PINNED should agree */
	done("bytes=%lu folios=%s", 7 * MiB, counts);
}

static void cmd_dev(unsigned long long len)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = len,
		.policy = MEMREG_DEV_HUGE_FIRST,
	};
	uint64_t h;
	void *p;
	int err;

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a)) {
		say("DEV_ALLOC %llu bytes: %s", len, strerror(errno));
		done("error");
		return;
	}
	p = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	if (p == MAP_FAILED) {
		say("mmap of the device memory: %s", strerror(errno));
		done("error");
		return;
	}
	err = memtest_register(fd, p, len, MEMREG_MEM_DEVICE, &h);
	if (err) {
		say("register device memory: %s", strerror(-err));
		done("error");
		return;
	}
	say("device 0: %llu MiB allocated in %s, mapped, registered as id %u",
	    (unsigned long long)a.alloc_len >> 20,
	    a.huge ? "2 MiB chunks" : "4 KiB pages", (unsigned int)h);
	done("bytes=%llu", (unsigned long long)a.alloc_len);
}

/* 1 MiB of our own, registered: where copies go from and to. */
static int own_xbuf(unsigned int access, unsigned int seed)
{
	struct memreg_register r = {
		.size = sizeof(r), .len = XFER_LEN, .access = access,
	};

	xbuf = memtest_map(MEMTEST_ANON, XFER_LEN);
	if (!xbuf)
		return -ENOMEM;
	memtest_fill(xbuf, XFER_LEN, seed);
	r.addr = (uintptr_t)xbuf;
	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	xhandle = r.handle;
	return 0;
}

static void cmd_grant(const char *file)
{
	struct memreg_grant g = {
		.size = sizeof(g), .access = MEMREG_ACCESS_ALL,
	};
	FILE *f;
	int err, i;

	err = own_xbuf(MEMREG_ACCESS_ALL, OWNER_SEED);
	if (err) {
		say("register 1 MiB: %s", strerror(-err));
		done("error");
		return;
	}
	g.handle = xhandle;
	if (ioctl(fd, MEMREG_IOC_GRANT, &g)) {
		say("grant: %s", strerror(errno));
		done("error");
		return;
	}
	f = fopen(file, "w");
	if (!f) {
		done("error");
		return;
	}
	for (i = 0; i < 16; i++)
		fprintf(f, "%02x", g.token[i]);
	fprintf(f, "\n");
	fclose(f);
	say("registered 1 MiB (id %u), granted it read+write; token in %s",
	    (unsigned int)xhandle, file);
	done(NULL);
}

static void cmd_import(const char *file)
{
	char hex[64];
	FILE *f = fopen(file, "r");
	unsigned int byte;
	int i;

	if (!f || !fgets(hex, sizeof(hex), f)) {
		say("no token in %s", file);
		done("error");
		return;
	}
	fclose(f);
	im = (struct memreg_import){ .size = sizeof(im) };
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
			done("error");
			return;
		}
		im.token[i] = byte;
	}
	if (ioctl(fd, MEMREG_IOC_IMPORT, &im)) {
		say("import: %s", strerror(errno));
		done("error");
		return;
	}
	say("imported the token: %llu MiB of pid %u, remote handle 0x%llx",
	    (unsigned long long)im.len >> 20, im.pid,
	    (unsigned long long)im.handle);
	done("peer=%u", im.pid);
}

static int transfer(uint32_t op)
{
	struct memreg_xfer_desc d = {
		op, 0, xhandle, (uintptr_t)xbuf, im.handle, im.addr, XFER_LEN,
	};
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)&d,
		.desc_size = sizeof(d), .count = 1,
	};

	return ioctl(fd, MEMREG_IOC_TRANSFER, &t) || t.done != 1 ? -errno : 0;
}

static void cmd_xfer(void)
{
	int err;

	err = own_xbuf(0, 0);
	if (!err)
		err = transfer(MEMREG_XFER_READ);
	if (err) {
		say("READ: %s", strerror(-err));
		done("error");
		return;
	}
	if (!memtest_same(xbuf, XFER_LEN, OWNER_SEED)) {
		say("READ 1 MiB from pid %u: the data is not what it holds",
		    im.pid);
		done("error");
		return;
	}
	say("READ 1 MiB of pid %u into my registration: its bytes, one copy",
	    im.pid);
	memtest_fill(xbuf, XFER_LEN, READER_SEED);
	err = transfer(MEMREG_XFER_WRITE);
	if (err) {
		say("WRITE: %s", strerror(-err));
		done("error");
		return;
	}
	say("WROTE 1 MiB of mine into pid %u's registration", im.pid);
	done("bytes=%lu", 2 * XFER_LEN);
}

static void cmd_check(void)
{
	int same = memtest_same(xbuf, XFER_LEN, READER_SEED);

	say("my granted 1 MiB now holds %s", same ?
	    "the bytes the WRITE brought" :
	    "something else: the WRITE did not arrive");
	done("same=%d", same);
}

static void cmd_register(unsigned long long len)
{
	struct memreg_info info;
	char *p = memtest_map(MEMTEST_ANON, len);
	int err;

	if (!p) {
		done("error");
		return;
	}
	err = memtest_register(fd, p, len, MEMREG_MEM_HOST, NULL);
	if (!err) {
		say("registered %llu MiB more", len >> 20);
		done("errno=0");
		return;
	}
	memtest_info(fd, &info);
	say("register %llu MiB more: refused, %s (%s)", len >> 20,
	    err_name(-err), strerror(-err));
	say("  I hold %llu MiB of host memory, my limit is %llu MiB",
	    (unsigned long long)info.host_bytes >> 20,
	    (unsigned long long)info.max_host_bytes >> 20);
	memtest_unmap(p, len);
	done("errno=%s", err_name(-err));
}

static void cmd_status(void)
{
	struct memreg_info info;
	long long kb = memtest_vmpin_kb();

	memtest_info(fd, &info);
	say("I hold %llu registrations, %llu KiB of host memory; VmPin %lld kB",
	    (unsigned long long)info.regions,
	    (unsigned long long)info.host_bytes >> 10, kb);
	done("vmpin_kb=%lld regions=%llu", kb,
	     (unsigned long long)info.regions);
}

int main(int argc, char **argv)
{
	char line[256], arg[200];
	unsigned long long n;

	name = argc > 1 ? argv[1] : "demo_app";
	prctl(PR_SET_NAME, name);
	/* each line as it is said: the console shows them in order */
	setvbuf(stdout, NULL, _IOLBF, 0);
	ack = fdopen(3, "w");
	if (!ack) {
		fprintf(stderr, "demo_app: no fd 3 to answer on\n");
		return 2;
	}
	fd = memtest_open();
	if (fd < 0) {
		perror("open /dev/memreg");
		return 1;
	}
	say("pid %d, /dev/memreg open", getpid());
	done("pid=%d", getpid());

	while (fgets(line, sizeof(line), stdin)) {
		/* exit with everything still registered: the module's to undo */
		if (!strncmp(line, "exit", 4))
			break;
		if (!strncmp(line, "thp", 3)) {
			cmd_thp();
		} else if (sscanf(line, "dev %llu", &n) == 1) {
			cmd_dev(n);
		} else if (sscanf(line, "grant %199s", arg) == 1) {
			cmd_grant(arg);
		} else if (sscanf(line, "import %199s", arg) == 1) {
			cmd_import(arg);
		} else if (!strncmp(line, "xfer", 4)) {
			cmd_xfer();
		} else if (!strncmp(line, "check", 5)) {
			cmd_check();
		} else if (sscanf(line, "register %llu", &n) == 1) {
			cmd_register(n);
		} else if (!strncmp(line, "status", 6)) {
			cmd_status();
		} else {
			say("unknown command: %s", line);
			done("error");
		}
	}
	say("exiting without unregistering anything");
	done(NULL);
	return 0;
}
