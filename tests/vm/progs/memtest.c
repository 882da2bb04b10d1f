// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the VM test programs; see memtest.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include "memtest.h"

int memtest_open(void)
{
	return open("/dev/memreg", O_RDWR | O_CLOEXEC);
}

int memtest_register(int fd, void *addr, uint64_t len, uint32_t type,
		     uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r),
		.type = type,
		.addr = (uintptr_t)addr,
		.len = len,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	if (handle)
		*handle = r.handle;
	return 0;
}

int memtest_unregister(int fd, uint64_t handle)
{
	struct memreg_unregister u = { .size = sizeof(u), .handle = handle };

	return ioctl(fd, MEMREG_IOC_UNREGISTER, &u) ? -errno : 0;
}

int memtest_info(int fd, struct memreg_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, MEMREG_IOC_INFO, info) ? -errno : 0;
}

uint64_t memtest_pin_room(uint64_t want)
{
	const uint64_t mib = 1ULL << 20;
	struct rlimit rl;
	uint64_t room;

	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return want;
	room = (rl.rlim_cur & ~(mib - 1)) - mib;
	return room < want ? room : want;
}

void memtest_fill(char *p, uint64_t len, unsigned int seed)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = (char)(seed * 31 + i * 7 + (i >> 12));
}

int memtest_same(const char *p, uint64_t len, unsigned int seed)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i] != (char)(seed * 31 + i * 7 + (i >> 12)))
			return 0;
	return 1;
}

int memtest_dmabuf(int fd, uint64_t len)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = 0, .len = len,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};
	struct memreg_dev_export e = {
		.size = sizeof(e), .flags = MEMREG_EXPORT_CLOEXEC, .len = len,
	};

	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	e.handle = a.handle;
	return ioctl(fd, MEMREG_IOC_DEV_EXPORT, &e) ? -errno : e.fd;
}

int memtest_transfer(int fd, uint32_t op, uint64_t lh, const void *la,
		     uint64_t rh, uint64_t ra, uint64_t len)
{
	struct memreg_xfer_desc d = {
		.op = op, .local_handle = lh, .local_addr = (uintptr_t)la,
		.remote_handle = rh, .remote_addr = ra, .len = len,
	};
	struct memreg_transfer t = {
		.size = sizeof(t), .descs = (uintptr_t)&d, .count = 1,
		.desc_size = sizeof(d),
	};

	return ioctl(fd, MEMREG_IOC_TRANSFER, &t) ? -errno : 0;
}

int memtest_register_dmabuf(int fd, int dfd, uint64_t off, uint64_t len,
			    uint64_t *handle)
{
	struct memreg_register r = {
		.size = sizeof(r), .type = MEMREG_MEM_DMABUF, .addr = off,
		.len = len, .fd = dfd,
	};

	if (ioctl(fd, MEMREG_IOC_REGISTER, &r))
		return -errno;
	if (handle)
		*handle = r.handle;
	return 0;
}

static const char *const memtest_kind_names[] = {
	[MEMTEST_ANON] = "anon",
	[MEMTEST_THP] = "thp",
	[MEMTEST_HUGETLB] = "hugetlb",
	[MEMTEST_SHM] = "shm",
};

const char *memtest_kind_name(enum memtest_kind kind)
{
	return memtest_kind_names[kind];
}

int memtest_kind_parse(const char *s, enum memtest_kind *kind)
{
	for (size_t i = 0; i < sizeof(memtest_kind_names) /
			       sizeof(memtest_kind_names[0]); i++) {
		if (!strcmp(s, memtest_kind_names[i])) {
			*kind = i;
			return 0;
		}
	}
	return -1;
}

void *memtest_map(enum memtest_kind kind, size_t len)
{
	void *p = MAP_FAILED, *raw;
	int fd;

	switch (kind) {
	case MEMTEST_ANON:
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		break;
	case MEMTEST_THP:
		/* over-map, then trim to a 2 MiB boundary THP can use */
		raw = mmap(NULL, len + MEMTEST_HPAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (raw == MAP_FAILED)
			return NULL;
		p = (void *)(((uintptr_t)raw + MEMTEST_HPAGE - 1) &
			     ~(MEMTEST_HPAGE - 1));
		if (p != raw)
			munmap(raw, (char *)p - (char *)raw);
		munmap((char *)p + len,
		       (char *)raw + len + MEMTEST_HPAGE - ((char *)p + len));
		if (madvise(p, len, MADV_HUGEPAGE)) {
			munmap(p, len);
			return NULL;
		}
		break;
	case MEMTEST_HUGETLB:
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
		break;
	case MEMTEST_SHM:
		fd = memfd_create("memtest", MFD_CLOEXEC);
		if (fd < 0)
			return NULL;
		if (ftruncate(fd, len) == 0)
			p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
		close(fd);
		break;
	}
	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0xa5, len);
	return p;
}

void memtest_unmap(void *p, size_t len)
{
	munmap(p, len);
}

long long memtest_vmstat(const char *name)
{
	char key[128];
	long long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", key, &v) == 2) {
		if (!strcmp(key, name)) {
			found = v;
			break;
		}
	}
	fclose(f);
	return found;
}

long long memtest_vmpin_kb(void)
{
	char line[256];
	long long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %lld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int memtest_refresh_vmstat(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, "1", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

long long memtest_pins_acquired(void)
{
	if (memtest_refresh_vmstat())
		return -1;
	return memtest_vmstat("nr_foll_pin_acquired");
}

long long memtest_pins_held(void)
{
	if (memtest_refresh_vmstat())
		return -1;
	return memtest_vmstat("nr_foll_pin_acquired") -
	       memtest_vmstat("nr_foll_pin_released");
}
