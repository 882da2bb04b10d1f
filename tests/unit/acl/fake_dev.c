// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake's rules follow uapi/linux/memreg.h: sizes and reserved fields
 * checked, HUGE_FIRST at most 1 MiB gets 4 KiB pages, HUGE_ONLY rounds to
 * 2 MiB chunks or fails with ENOMEM, a full device is ENOSPC, an unknown
 * device ENXIO, an unknown handle ENOENT.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "fake_dev.h"

struct fake_dev_state fake_dev;

struct fake_alloc {
	uint64_t handle;
	uint32_t device;
	uint64_t len;
	int huge;
	int live;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int memfd = -1;
static uint64_t next_offset;
static struct fake_alloc allocs[4096];
static unsigned int nr_allocs;

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

static int do_alloc(struct memreg_dev_alloc *a)
{
	uint64_t unit = 4096, len;
	int huge = 0;

	if (a->size != sizeof(*a) || a->flags || a->reserved0 ||
	    !all_zero(a->reserved, sizeof(a->reserved)) || !a->len ||
	    a->policy > MEMREG_DEV_NORMAL_ONLY)
		return EINVAL;
	if (a->device >= FAKE_DEVICES)
		return ENXIO;
	fake_dev.last_alloc = *a;
	if (a->policy == MEMREG_DEV_HUGE_ONLY ||
	    (a->policy == MEMREG_DEV_HUGE_FIRST && a->len > MEMREG_DEV_HUGE_MIN)) {
		if (!fake_dev.no_huge) {
			unit = MEMREG_DEV_HUGE_SIZE;
			huge = 1;
		} else if (a->policy == MEMREG_DEV_HUGE_ONLY) {
			return ENOMEM;
		}
	}
	len = (a->len + unit - 1) / unit * unit;
	if (fake_dev.used[a->device] + len > FAKE_CAPACITY)
		return ENOSPC;
	if (nr_allocs == sizeof(allocs) / sizeof(allocs[0]))
		return ENOMEM;
	if (ftruncate(memfd, (off_t)(next_offset + len)))
		return ENOMEM;

	allocs[nr_allocs] = (struct fake_alloc){
		.handle = 0xd000 + nr_allocs, .device = a->device,
		.len = len, .huge = huge, .live = 1,
	};
	a->handle = allocs[nr_allocs].handle;
	a->mmap_offset = next_offset;
	a->alloc_len = len;
	a->huge = huge;
	nr_allocs++;
	next_offset += len;
	fake_dev.used[a->device] += len;
	if (huge)
		fake_dev.huge[a->device] += len;
	fake_dev.allocs++;
	fake_dev.live++;
	return 0;
}

static int do_free(struct memreg_dev_free *f)
{
	struct fake_alloc *fa;
	int err;

	if (f->size != sizeof(*f) || f->flags ||
	    !all_zero(f->reserved, sizeof(f->reserved)))
		return EINVAL;
	if (f->handle < 0xd000 || f->handle >= 0xd000 + nr_allocs)
		return ENOENT;
	fa = &allocs[f->handle - 0xd000];
	if (!fa->live)
		return ENOENT;
	if (fake_dev.free_errno) {
		err = fake_dev.free_errno;
		fake_dev.free_errno = 0;
		return err;
	}
	fa->live = 0;
	fake_dev.used[fa->device] -= fa->len;
	if (fa->huge)
		fake_dev.huge[fa->device] -= fa->len;
	fake_dev.frees++;
	fake_dev.live--;
	return 0;
}

static int do_info(struct memreg_dev_info *d)
{
	if (d->size != sizeof(*d) || !all_zero(d->reserved, sizeof(d->reserved)))
		return EINVAL;
	if (d->device >= FAKE_DEVICES)
		return ENXIO;
	d->capacity = FAKE_CAPACITY;
	d->used = fake_dev.used[d->device];
	d->huge_bytes = fake_dev.huge[d->device];
	d->normal_bytes = d->used - d->huge_bytes;
	d->proc_bytes = d->used;
	fake_dev.infos++;
	return 0;
}

static int dispatch(unsigned long request, void *arg)
{
	struct memreg_info *info;
	struct memreg_register *r;

	switch (request) {
	case MEMREG_IOC_INFO:
		info = arg;
		memset((char *)info + sizeof(info->size), 0,
		       sizeof(*info) - sizeof(info->size));
		info->abi_version = MEMREG_ABI_VERSION;
		info->features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_DEVICE;
		info->page_size = 4096;
		info->devices = FAKE_DEVICES;
		info->dev_capacity = FAKE_CAPACITY;
		return 0;
	case MEMREG_IOC_DEV_ALLOC:
		return do_alloc(arg);
	case MEMREG_IOC_DEV_FREE:
		return do_free(arg);
	case MEMREG_IOC_DEV_INFO:
		return do_info(arg);
	case MEMREG_IOC_REGISTER:
		r = arg;
		if (r->type != MEMREG_MEM_HOST)
			return ENXIO;
		r->handle = 0xe000 + fake_dev.registers++;
		fake_dev.host_registered += r->len;
		return 0;
	case MEMREG_IOC_UNREGISTER:
		fake_dev.unregisters++;
		return 0;
	default:
		return ENOTTY;
	}
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	int err;

	(void)fd;
	pthread_mutex_lock(&lock);
	err = dispatch(request, arg);
	pthread_mutex_unlock(&lock);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

int fake_dev_setup(void)
{
	char path[64];

	memset(&fake_dev, 0, sizeof(fake_dev));
	memset(allocs, 0, sizeof(allocs));
	nr_allocs = 0;
	next_offset = 0;
	memfd = memfd_create("fake-memreg", MFD_CLOEXEC);
	if (memfd < 0)
		return -1;
	/* The library opens the path itself: the memfd's /proc name. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	if (setenv("MEMREG_DEVICE", path, 1))
		return -1;
	memreg__test_ioctl = fake_ioctl;
	return 0;
}

void fake_dev_teardown(void)
{
	memreg__test_ioctl = NULL;
	if (memfd >= 0)
		close(memfd);
	memfd = -1;
}
