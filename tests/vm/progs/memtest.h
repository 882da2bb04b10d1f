/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the VM test programs: raw /dev/memreg ioctls (the tests
 * check the kernel's answers, so they do not go through libmemreg), memory
 * of every kind the tests register, and the kernel's pin counters.
 */
#ifndef MEMTEST_H
#define MEMTEST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/memreg.h>

enum memtest_kind {
	MEMTEST_ANON,		/* private anonymous, 4 KiB pages */
	MEMTEST_THP,		/* anonymous, 2 MiB aligned, MADV_HUGEPAGE */
	MEMTEST_HUGETLB,	/* MAP_HUGETLB, 2 MiB pages */
	MEMTEST_SHM,		/* memfd, MAP_SHARED */
};

#define MEMTEST_HPAGE	(2UL << 20)

int memtest_open(void);
int memtest_register(int fd, void *addr, uint64_t len, uint32_t type,
		     uint64_t *handle);	/* 0 or -errno */
int memtest_unregister(int fd, uint64_t handle);	/* 0 or -errno */
int memtest_info(int fd, struct memreg_info *info);	/* 0 or -errno */
/*
 * The biggest registration a test makes: @want, or what RLIMIT_MEMLOCK
 * lets an unprivileged process pin, in whole MiB, less a MiB for the
 * small ones.
 */
uint64_t memtest_pin_room(uint64_t want);
/*
 * Fill @len bytes with the pattern of @seed (changing in every byte and
 * every page), and check for it: 1 if all of them hold it.
 */
void memtest_fill(char *p, uint64_t len, unsigned int seed);
int memtest_same(const char *p, uint64_t len, unsigned int seed);

/* A dma-buf of @len bytes of device 0 (memreg's export): fd or -errno. */
int memtest_dmabuf(int fd, uint64_t len);
/* One descriptor, @op between own @lh at @la and remote @rh at @ra: 0 or -errno. */
int memtest_transfer(int fd, uint32_t op, uint64_t lh, const void *la,
		     uint64_t rh, uint64_t ra, uint64_t len);
int memtest_register_dmabuf(int fd, int dfd, uint64_t off, uint64_t len,
			    uint64_t *handle);	/* 0 or -errno */

/* Map @len bytes of @kind, touched; NULL if the kind is unavailable. */
void *memtest_map(enum memtest_kind kind, size_t len);
void memtest_unmap(void *p, size_t len);
const char *memtest_kind_name(enum memtest_kind kind);
int memtest_kind_parse(const char *s, enum memtest_kind *kind);

/* /proc/vmstat and /proc/self/status readings. */
long long memtest_vmstat(const char *name);
long long memtest_vmpin_kb(void);

/*
 * System-wide pin counters, exact (per-cpu deltas folded through
 * /proc/sys/vm/stat_refresh, which needs root); -1 when they cannot be
 * read exactly.
 */
long long memtest_pins_acquired(void);
long long memtest_pins_held(void);	/* acquired - released */

#endif
