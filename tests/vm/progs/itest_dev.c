// SPDX-License-Identifier: GPL-2.0
/*
 * itest_dev - integration tests of the emulated device memory of memreg.ko
 * (MEMREG_IOC_DEV_ALLOC/FREE/INFO, mmap of /dev/memreg, DEVICE
 * registrations), run in a VM as root and as an unprivileged user.
 *
 * What a user checks: the memory maps and keeps its bytes, the device's
 * counters move by what was allocated and come back when it is freed and
 * unmapped (also after exit and kill -9), every refusal has the errno the
 * UAPI header documents, and device registrations pin nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "memtest.h"

#define MiB (1ULL << 20)
#define PAGE 4096ULL

struct devmem {
	uint64_t handle;
	uint64_t len;		/* alloc_len */
	uint32_t huge;
	uint64_t off;		/* mmap offset */
	char *map;		/* NULL if not mapped */
};

static int dev_alloc(int fd, uint32_t dev, uint32_t policy, uint64_t len,
		     struct devmem *m)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .device = dev, .policy = policy, .len = len,
	};
	void *p;

	memset(m, 0, sizeof(*m));
	if (ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a))
		return -errno;
	m->handle = a.handle;
	m->len = a.alloc_len;
	m->huge = a.huge;
	m->off = a.mmap_offset;
	p = mmap(NULL, a.alloc_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	m->map = p;
	return 0;
}

static int dev_free(int fd, uint64_t handle)
{
	struct memreg_dev_free f = { .size = sizeof(f), .handle = handle };

	return ioctl(fd, MEMREG_IOC_DEV_FREE, &f) ? -errno : 0;
}

/* Free the handle and unmap: the pages go back to the device. */
static void dev_release(int fd, struct devmem *m)
{
	assert_int_equal(dev_free(fd, m->handle), 0);
	assert_int_equal(munmap(m->map, m->len), 0);
	m->map = NULL;
}

static int dev_info(int fd, uint32_t dev, struct memreg_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->device = dev;
	return ioctl(fd, MEMREG_IOC_DEV_INFO, info) ? -errno : 0;
}

static uint64_t dev_used(uint32_t dev)
{
	struct memreg_dev_info info;
	int fd = memtest_open();

	assert_true(fd >= 0);
	assert_int_equal(dev_info(fd, dev, &info), 0);
	close(fd);
	return info.used;
}

static void fill(char *p, uint64_t len, unsigned int seed)
{
	for (uint64_t i = 0; i < len; i += 512)
		p[i] = (char)(seed + i / 512);
}

static int same(const char *p, uint64_t len, unsigned int seed)
{
	for (uint64_t i = 0; i < len; i += 512)
		if (p[i] != (char)(seed + i / 512))
			return 0;
	return 1;
}

static uint64_t used_at_start[2];

static int setup(void **state)
{
	(void)state;
	used_at_start[0] = dev_used(0);
	used_at_start[1] = dev_used(1);
	return 0;
}

/* Every test gives back what it took (checked after it closed its files). */
static int teardown(void **state)
{
	(void)state;
	if (dev_used(0) != used_at_start[0] || dev_used(1) != used_at_start[1]) {
		print_error("device memory left allocated: %llu/%llu bytes\n",
			    (unsigned long long)dev_used(0),
			    (unsigned long long)dev_used(1));
		return -1;
	}
	return 0;
}

static void test_info(void **state)
{
	struct memreg_info info;
	struct memreg_dev_info di;
	int fd = memtest_open();

	(void)state;
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_true(info.features & MEMREG_FEATURE_DEVICE);
	/* the module's default: two devices */
	assert_int_equal(info.devices, 2);
	assert_true(info.dev_capacity >= 64 * MiB);
	assert_int_equal(dev_info(fd, 0, &di), 0);
	assert_int_equal(di.capacity, info.dev_capacity);
	assert_true(di.used == di.huge_bytes + di.normal_bytes);
	assert_int_equal(di.proc_bytes, 0);
	assert_int_equal(dev_info(fd, 2, &di), -ENXIO);
	close(fd);
}

/* Normal pages: mapped, zeroed, counted, and kept across mappings. */
static void test_alloc_map_free(void **state)
{
	struct memreg_dev_info di;
	struct devmem m;
	int fd = memtest_open();
	uint64_t before = dev_used(1);
	char *again;

	(void)state;
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_NORMAL_ONLY, 3 * PAGE + 1,
				   &m), 0);
	assert_int_equal(m.len, 4 * PAGE);
	assert_int_equal(m.huge, 0);
	for (uint64_t i = 0; i < m.len; i++)
		if (m.map[i])
			fail_msg("device memory not zeroed at %llu",
				 (unsigned long long)i);
	fill(m.map, m.len, 7);

	assert_int_equal(dev_info(fd, 1, &di), 0);
	assert_int_equal(di.used, before + 4 * PAGE);
	assert_int_equal(di.proc_bytes, 4 * PAGE);

	/* unmapped and mapped again: the same memory */
	assert_int_equal(munmap(m.map, m.len), 0);
	again = mmap(NULL, m.len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     m.off);
	assert_true(again != MAP_FAILED);
	assert_true(same(again, m.len, 7));
	m.map = again;

	/* freed but still mapped: the pages stay until the unmap */
	assert_int_equal(dev_free(fd, m.handle), 0);
	assert_int_equal(dev_used(1), before + 4 * PAGE);
	assert_true(same(m.map, m.len, 7));
	assert_int_equal(dev_free(fd, m.handle), -ENOENT);
	assert_int_equal(munmap(m.map, m.len), 0);
	assert_int_equal(dev_used(1), before);
	close(fd);
}

static void test_policies(void **state)
{
	struct memreg_dev_info di, after;
	struct devmem small, big, only, normal;
	int fd = memtest_open();

	(void)state;
	assert_int_equal(dev_info(fd, 0, &di), 0);
	/* HUGE_FIRST up to 1 MiB: normal pages */
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_HUGE_FIRST, MiB, &small), 0);
	assert_int_equal(small.huge, 0);
	assert_int_equal(small.len, MiB);
	/* above: 2 MiB chunks while the memory is there (a fresh guest) */
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_HUGE_FIRST, 3 * MiB, &big), 0);
	assert_int_equal(big.huge, 1);
	assert_int_equal(big.len, 4 * MiB);
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_HUGE_ONLY, 100, &only), 0);
	assert_int_equal(only.huge, 1);
	assert_int_equal(only.len, 2 * MiB);
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, 5 * MiB,
				   &normal), 0);
	assert_int_equal(normal.huge, 0);
	assert_int_equal(normal.len, 5 * MiB);

	fill(big.map, big.len, 1);
	fill(only.map, only.len, 2);
	assert_true(same(big.map, big.len, 1));
	assert_true(same(only.map, only.len, 2));

	assert_int_equal(dev_info(fd, 0, &after), 0);
	assert_int_equal(after.huge_bytes - di.huge_bytes, 6 * MiB);
	assert_int_equal(after.normal_bytes - di.normal_bytes, 6 * MiB);
	assert_int_equal(after.proc_bytes, 12 * MiB);

	dev_release(fd, &small);
	dev_release(fd, &big);
	dev_release(fd, &only);
	dev_release(fd, &normal);
	close(fd);
}

static void test_bad_input(void **state)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .len = PAGE,
	};
	struct memreg_info info;
	int fd = memtest_open();
	void *p;

	(void)state;
	assert_int_equal(memtest_info(fd, &info), 0);
	a.len = 0;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, EINVAL);
	a.len = PAGE;
	a.policy = 3;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, EINVAL);
	a.policy = 0;
	a.flags = 1;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, EINVAL);
	a.flags = 0;
	a.device = 2;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, ENXIO);
	a.device = 0;
	a.len = info.dev_capacity + 1;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, ENOSPC);
	a.len = ~0ULL;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), -1);
	assert_int_equal(errno, ENOSPC);

	assert_int_equal(dev_free(fd, 12345), -ENOENT);

	/* mmap of nothing allocated, and of a made-up offset */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p == MAP_FAILED);
	assert_int_equal(errno, ENXIO);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 77ULL << 40);
	assert_true(p == MAP_FAILED);
	assert_int_equal(errno, ENXIO);
	close(fd);
}

static void test_mmap_checks(void **state)
{
	struct memreg_dev_alloc a = {
		.size = sizeof(a), .len = 2 * PAGE,
		.policy = MEMREG_DEV_NORMAL_ONLY,
	};
	int fd = memtest_open();
	char *p;

	(void)state;
	assert_int_equal(ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a), 0);
	/* private (copy-on-write) device memory makes no sense */
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, a.mmap_offset);
	assert_true(p == MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	/* past the end */
	p = mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, fd, a.mmap_offset);
	assert_true(p == MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	/* the second page alone is fine, and is the second page */
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 a.mmap_offset);
	assert_true(p != MAP_FAILED);
	p[PAGE] = 42;
	{
		char *second = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
				    a.mmap_offset + PAGE);

		assert_true(second != MAP_FAILED);
		assert_int_equal(second[0], 42);
		munmap(second, PAGE);
	}
	/* the mapping cannot grow */
	assert_true(mremap(p, 2 * PAGE, 4 * PAGE, MREMAP_MAYMOVE) == MAP_FAILED);
	/* once freed it cannot be mapped again */
	assert_int_equal(dev_free(fd, a.handle), 0);
	assert_true(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
			 a.mmap_offset) == MAP_FAILED);
	assert_int_equal(errno, ENXIO);
	munmap(p, 2 * PAGE);
	close(fd);
}

/* Fill a device, see ENOSPC, free one piece, allocate again. */
static void test_capacity(void **state)
{
	struct memreg_info info;
	struct devmem *m;
	uint64_t chunk, n = 0, max;
	int fd = memtest_open(), err;

	(void)state;
	assert_int_equal(memtest_info(fd, &info), 0);
	if (info.dev_capacity > 512 * MiB) {
		print_message("# device capacity %llu MiB: too big to fill here\n",
			      (unsigned long long)(info.dev_capacity >> 20));
		skip();
	}
	chunk = info.dev_capacity / 16;
	max = info.dev_capacity / chunk + 2;
	m = calloc(max, sizeof(*m));
	for (;;) {
		assert_true(n < max);
		err = dev_alloc(fd, 1, MEMREG_DEV_NORMAL_ONLY, chunk, &m[n]);
		if (err)
			break;
		n++;
	}
	assert_int_equal(err, -ENOSPC);
	assert_true(n >= 15);	/* others may hold a little of device 1 */
	assert_int_equal(dev_used(1) + chunk > info.dev_capacity, 1);
	/* device 0 is another device: untouched */
	{
		struct devmem other;

		assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, chunk,
					   &other), 0);
		dev_release(fd, &other);
	}
	dev_release(fd, &m[n - 1]);
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_NORMAL_ONLY, chunk,
				   &m[n - 1]), 0);
	for (uint64_t i = 0; i < n; i++)
		dev_release(fd, &m[i]);
	free(m);
	close(fd);
}

/* HUGE_FIRST falls back to 4 KiB pages when 2 MiB rounding does not fit. */
static void test_huge_first_fits_normal(void **state)
{
	struct memreg_dev_info di;
	struct devmem fill_, m;
	int fd = memtest_open();
	uint64_t free_;

	(void)state;
	assert_int_equal(dev_info(fd, 1, &di), 0);
	free_ = di.capacity - di.used;
	assert_true(free_ > 4 * MiB);
	/* leave exactly 3 MiB free */
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_NORMAL_ONLY, free_ - 3 * MiB,
				   &fill_), 0);
	/* 3 MiB - 4 KiB: two 2 MiB chunks would not fit, pages do */
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_HUGE_FIRST, 3 * MiB - PAGE,
				   &m), 0);
	assert_int_equal(m.huge, 0);
	assert_int_equal(m.len, 3 * MiB - PAGE);
	dev_release(fd, &m);
	/* HUGE_ONLY has no such way out */
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_HUGE_ONLY, 3 * MiB - PAGE,
				   &m), -ENOSPC);
	dev_release(fd, &fill_);
	close(fd);
}

/* A read-only device mapping cannot be registered for peers to write. */
static void test_register_readonly_mapping(void **state)
{
	struct devmem m;
	uint64_t h;
	char *ro;
	int fd = memtest_open();

	(void)state;
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, PAGE, &m), 0);
	ro = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, m.off);
	assert_true(ro != MAP_FAILED);
	assert_int_equal(memtest_register(fd, ro, PAGE, MEMREG_MEM_DEVICE, &h),
			 -EACCES);
	munmap(ro, PAGE);
	dev_release(fd, &m);
	close(fd);
}

/* Register a 2-page MAP_SHARED mapping of a new file in @dir: 0 or -errno. */
static int register_file_in(const char *dir, long *fs_type)
{
	char path[128];
	struct statfs sf;
	uint64_t h;
	char *p;
	int fd = memtest_open(), f, err;

	snprintf(path, sizeof(path), "%s/itest_dev.XXXXXX", dir);
	f = mkstemp(path);
	assert_true(f >= 0);
	unlink(path);
	assert_int_equal(ftruncate(f, 2 * PAGE), 0);
	assert_int_equal(fstatfs(f, &sf), 0);
	*fs_type = sf.f_type;
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
	assert_true(p != MAP_FAILED);
	p[0] = 1;
	err = memtest_register(fd, p, 2 * PAGE, MEMREG_MEM_HOST, &h);
	if (!err)
		assert_int_equal(memtest_unregister(fd, h), 0);
	munmap(p, 2 * PAGE);
	close(f);
	close(fd);
	return err;
}

/*
 * Host memory that is a shared mapping of a regular file cannot be pinned
 * for long (module copies would bypass the filesystem): EFAULT on every
 * kernel.  shmem (tmpfs, memfd) is fine.
 */
static void test_register_file_mapping(void **state)
{
	const char *dir = "/tmp/itest_dev_ramfs";
	long type;

	(void)state;
	/* /tmp in the guest is tmpfs: shmem */
	assert_int_equal(register_file_in("/tmp", &type), 0);
	assert_int_equal(type, 0x01021994);
	if (geteuid() != 0) {
		print_message("# root only: mounts a ramfs for a non-shmem file\n");
		skip();
	}
	mkdir(dir, 0700);
	assert_int_equal(mount("none", dir, "ramfs", 0, NULL), 0);
	assert_int_equal(register_file_in(dir, &type), -EFAULT);
	assert_int_equal(umount(dir), 0);
	rmdir(dir);
}

static void test_register_device(void **state)
{
	struct memreg_region r[2];
	struct memreg_query q = {
		.size = sizeof(q), .regions = (uintptr_t)r, .count = 2,
		.entry_size = sizeof(r[0]),
	};
	long long pins = memtest_pins_acquired();
	struct memreg_info info;
	struct devmem m;
	uint64_t h, h2;
	int fd = memtest_open();
	char *anon = memtest_map(MEMTEST_ANON, 4 * PAGE);

	(void)state;
	assert_int_equal(dev_alloc(fd, 1, MEMREG_DEV_HUGE_ONLY, 2 * MiB, &m), 0);
	assert_int_equal(memtest_register(fd, m.map + 100, MiB,
					  MEMREG_MEM_DEVICE, &h), 0);
	/* a device registration takes a reference, no pin */
	if (pins >= 0)
		assert_int_equal(memtest_pins_acquired(), pins);
	assert_int_equal(memtest_vmpin_kb(), 0);
	assert_int_equal(memtest_info(fd, &info), 0);
	assert_int_equal(info.dev_bytes, MiB);
	assert_int_equal(info.host_bytes, 0);
	assert_int_equal(ioctl(fd, MEMREG_IOC_QUERY, &q), 0);
	assert_int_equal(q.count, 1);
	assert_int_equal(r[0].type, MEMREG_MEM_DEVICE);
	assert_int_equal(r[0].device, 1);
	assert_int_equal(r[0].pinned_pages, 0);

	/* not device memory, or not all of it */
	assert_int_equal(memtest_register(fd, anon, PAGE, MEMREG_MEM_DEVICE,
					  &h2), -ENXIO);
	assert_int_equal(memtest_register(fd, m.map + MiB, 2 * MiB,
					  MEMREG_MEM_DEVICE, &h2), -ENXIO);
	/* device memory is not host memory to pin */
	assert_int_equal(memtest_register(fd, m.map, PAGE, MEMREG_MEM_HOST,
					  &h2), -EFAULT);

	/* registered: the free is refused, nothing is lost */
	assert_int_equal(dev_free(fd, m.handle), -EBUSY);
	assert_int_equal(memtest_unregister(fd, h), 0);
	assert_int_equal(dev_free(fd, m.handle), 0);
	/* freed, still mapped: no new registration */
	assert_int_equal(memtest_register(fd, m.map, PAGE, MEMREG_MEM_DEVICE,
					  &h2), -ENXIO);
	assert_int_equal(munmap(m.map, m.len), 0);
	memtest_unmap(anon, 4 * PAGE);
	close(fd);
}

/* A registration keeps the pages after the unmap, until it goes. */
static void test_registration_outlives_mapping(void **state)
{
	struct devmem m;
	uint64_t h, before = dev_used(0);
	int fd = memtest_open();

	(void)state;
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, 8 * PAGE, &m),
			 0);
	assert_int_equal(memtest_register(fd, m.map, 8 * PAGE,
					  MEMREG_MEM_DEVICE, &h), 0);
	assert_int_equal(munmap(m.map, m.len), 0);
	assert_int_equal(dev_used(0), before + 8 * PAGE);
	assert_int_equal(memtest_unregister(fd, h), 0);
	assert_int_equal(dev_free(fd, m.handle), 0);
	assert_int_equal(dev_used(0), before);
	close(fd);
}

static void test_dev_bytes_limit(void **state)
{
	const char *param = "/sys/module/memreg/parameters/max_dev_bytes";
	char old[32] = "";
	struct devmem m, more;
	uint64_t h = 0;
	int fd, err[4];
	FILE *f;

	(void)state;
	if (geteuid() != 0) {
		print_message("# root only: lowers the module's default limit\n");
		skip();
	}
	f = fopen(param, "r");
	assert_non_null(f);
	assert_non_null(fgets(old, sizeof(old), f));
	fclose(f);
	f = fopen(param, "w");
	fprintf(f, "%llu\n", 3 * MiB);
	fclose(f);

	/*
	 * The limit bounds what the process allocates and, counted apart,
	 * what it registers: 3 MiB allocated, then 1 MiB more is refused;
	 * 3 MiB registered, then the same 3 MiB registered again is too.
	 */
	fd = memtest_open();
	err[0] = dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, 3 * MiB, &m);
	err[1] = dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, MiB, &more);
	err[2] = err[0] ? err[0] : memtest_register(fd, m.map, 3 * MiB,
						    MEMREG_MEM_DEVICE, &h);
	err[3] = err[0] ? err[0] : memtest_register(fd, m.map, 3 * MiB,
						    MEMREG_MEM_DEVICE, NULL);
	/* the default back before any assertion can end the test */
	f = fopen(param, "w");
	fputs(old, f);
	fclose(f);
	assert_int_equal(err[0], 0);
	assert_int_equal(err[1], -ENOSPC);
	assert_int_equal(err[2], 0);
	assert_int_equal(err[3], -ENOSPC);
	assert_int_equal(memtest_unregister(fd, h), 0);
	dev_release(fd, &m);
	close(fd);
}

/* A process's device memory goes with it, however it ends. */
static void check_child_releases(int how)
{
	uint64_t before = dev_used(0);
	int pfd[2], go[2], st;
	pid_t pid;
	char c;

	assert_int_equal(pipe(pfd), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		struct devmem m;
		uint64_t h;
		int fd = memtest_open();

		if (dev_alloc(fd, 0, MEMREG_DEV_HUGE_FIRST, 8 * MiB, &m) ||
		    memtest_register(fd, m.map, MiB, MEMREG_MEM_DEVICE, &h))
			_exit(1);
		/* a second mapping, and the fd closed: all must still go */
		if (mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
			 m.off) == MAP_FAILED)
			_exit(1);
		fill(m.map, m.len, 3);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		/* exit when told to (how 0), or wait for the SIGKILL */
		if (read(go[0], &c, 1) == 1 && how == 0)
			_exit(0);
		pause();
		_exit(0);
	}
	assert_int_equal(read(pfd[0], &c, 1), 1);
	assert_int_equal(dev_used(0), before + 8 * MiB);
	if (how)
		kill(pid, SIGKILL);
	else
		assert_int_equal(write(go[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (how)
		assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	else
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(dev_used(0), before);
	close(pfd[0]);
	close(pfd[1]);
	close(go[0]);
	close(go[1]);
}

static void test_exit_releases(void **state)
{
	(void)state;
	check_child_releases(0);
}

static void test_kill9_releases(void **state)
{
	(void)state;
	check_child_releases(1);
}

/* A fork()ed child neither inherits the mapping nor may use the file. */
static void test_fork(void **state)
{
	struct devmem m;
	int fd = memtest_open(), st;
	pid_t pid;

	(void)state;
	assert_int_equal(dev_alloc(fd, 0, MEMREG_DEV_NORMAL_ONLY, PAGE, &m), 0);
	pid = fork();
	if (pid == 0) {
		struct memreg_dev_alloc a = {
			.size = sizeof(a), .len = PAGE,
		};

		/* the mapping is not there: touching it faults */
		if (!mprotect(m.map, PAGE, PROT_READ))
			_exit(2);
		if (!ioctl(fd, MEMREG_IOC_DEV_ALLOC, &a) || errno != EPERM)
			_exit(3);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	dev_release(fd, &m);
	close(fd);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_info),
		T(test_alloc_map_free),
		T(test_policies),
		T(test_bad_input),
		T(test_mmap_checks),
		T(test_capacity),
		T(test_huge_first_fits_normal),
		T(test_register_readonly_mapping),
		T(test_register_file_mapping),
		T(test_register_device),
		T(test_registration_outlives_mapping),
		T(test_dev_bytes_limit),
		T(test_exit_releases),
		T(test_kill9_releases),
		T(test_fork),
	};

	return cmocka_run_group_tests_name("memreg device memory", tests,
					   NULL, NULL);
}
