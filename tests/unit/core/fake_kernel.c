// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake module.  Its checks follow the rules of uapi/linux/memreg.h, so
 * a library that sends a bad size, a nonzero reserved field or flag is
 * refused here as the module would refuse it; the tests also compare the
 * recorded bytes with the exact struct they expect.
 *
 * Two back ends share those checks: one table for the process behind a
 * mutex (the default), and one table per thread with no lock at all (see
 * fake.per_thread).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fake_kernel.h"

struct fake_kernel fake;

uint64_t fake_handle(size_t n)
{
	/* Increasing, so that it can double as the cursor; never 0. */
	return 0x5a000000ULL + 0x10ULL * (n + 1);
}

static int fail(int errnum)
{
	errno = errnum;
	return -1;
}

/* ---- what the module checks before it looks at its tables ---- */

static int all_zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	while (len--)
		if (*b++)
			return 0;
	return 1;
}

/* The size rules every command shares: first version up, no larger. */
static int check_size(__u32 size, size_t ver0, size_t known)
{
	if (size < ver0)
		return EINVAL;
	if (size > known)
		return E2BIG;	/* the library never has a bigger struct */
	return 0;
}

static int check_info(const struct memreg_info *k)
{
	int err = check_size(k->size, MEMREG_INFO_SIZE_VER0, sizeof(*k));

	if (err)
		return err;
	if (!all_zero(k->reserved, sizeof(k->reserved)))
		return EINVAL;
	return 0;
}

static int check_register(const struct memreg_register *r)
{
	int err = check_size(r->size, MEMREG_REGISTER_SIZE_VER0, sizeof(*r));

	if (err)
		return err;
	if (r->flags || !all_zero(r->reserved, sizeof(r->reserved)) ||
	    r->len == 0 || r->addr + r->len < r->addr ||
	    r->type > MEMREG_MEM_DEVICE || (r->access & ~MEMREG_ACCESS_ALL))
		return EINVAL;
	return 0;
}

static int check_unregister(const struct memreg_unregister *u)
{
	int err = check_size(u->size, MEMREG_UNREGISTER_SIZE_VER0, sizeof(*u));

	if (err)
		return err;
	if (u->flags || !all_zero(u->reserved, sizeof(u->reserved)))
		return EINVAL;
	return 0;
}

static int check_query(const struct memreg_query *q)
{
	int err = check_size(q->size, MEMREG_QUERY_SIZE_VER0, sizeof(*q));

	if (err)
		return err;
	if (q->flags || !all_zero(q->reserved, sizeof(q->reserved)) ||
	    q->entry_size != sizeof(struct memreg_region))
		return EINVAL;
	if (q->count && !q->regions)
		return EFAULT;
	return 0;
}

static int check(int cmd, const void *arg)
{
	switch (cmd) {
	case FAKE_INFO:
		return check_info(arg);
	case FAKE_REGISTER:
		return check_register(arg);
	case FAKE_UNREGISTER:
		return check_unregister(arg);
	default:
		return check_query(arg);
	}
}

static void fill_region(struct memreg_region *out, uint64_t handle,
			const struct memreg_register *r)
{
	memset(out, 0, sizeof(*out));
	out->handle = handle;
	out->addr = r->addr;
	out->len = r->len;
	out->type = r->type;
	out->access = r->access;
	out->pinned_pages = (r->len + 4095) / 4096;
}

/* ---- one table for the process, under fake.lock ---- */

static int do_info(struct memreg_info *k)
{
	__u32 size = k->size;

	*k = fake.info;
	k->size = size;
	k->regions = fake.live;
	return 0;
}

static int do_register(struct memreg_register *r)
{
	struct fake_region *fr;

	if (fake.nr_regions == fake.cap_regions) {
		size_t cap = fake.cap_regions ? 2 * fake.cap_regions : 64;
		void *p = realloc(fake.regions, cap * sizeof(*fake.regions));

		if (!p)
			return fail(ENOMEM);
		fake.regions = p;
		fake.cap_regions = cap;
	}
	fr = &fake.regions[fake.nr_regions];
	fill_region(&fr->r, fake_handle(fake.nr_regions), r);
	fr->live = 1;
	fake.nr_regions++;
	fake.live++;
	r->handle = fr->r.handle;
	return 0;
}

static int do_unregister(struct memreg_unregister *u)
{
	size_t i;

	for (i = 0; i < fake.nr_regions; i++) {
		if (fake.regions[i].r.handle == u->handle &&
		    fake.regions[i].live) {
			fake.regions[i].live = 0;
			fake.live--;
			return 0;
		}
	}
	return fail(ENOENT);
}

static int do_query(struct memreg_query *q)
{
	struct memreg_region *out = (struct memreg_region *)(uintptr_t)q->regions;
	unsigned int room = q->count, n = 0;
	size_t i;

	if (fake.query_batch && room > fake.query_batch)
		room = fake.query_batch;

	/* Live entries after the cursor, which is the last handle given. */
	for (i = 0; i < fake.nr_regions && n < room; i++) {
		const struct fake_region *fr = &fake.regions[i];

		if (!fr->live ||
		    (!fake.query_stuck && fr->r.handle <= q->cursor))
			continue;
		out[n++] = fr->r;
		q->cursor = fake.query_stuck ? fake_handle(0) : fr->r.handle;
	}
	if (fake.query_zero_cursor_at_end) {
		for (; i < fake.nr_regions; i++)
			if (fake.regions[i].live)
				break;
		if (i == fake.nr_regions)
			q->cursor = 0;
	}
	q->count = n + (fake.query_overflow ? 1 : 0);
	q->total = fake.live;
	return 0;
}

static int shared_ioctl(int cmd, unsigned long request, int fd, void *arg)
{
	struct fake_call *call;
	int ret, inject, err;

	pthread_mutex_lock(&fake.lock);
	fake.calls[cmd]++;
	call = &fake.last[cmd];
	call->request = request;
	call->fd = fd;
	memcpy(call->bytes, arg, _IOC_SIZE(request));
	if (cmd == FAKE_QUERY &&
	    fake.nr_queries < sizeof(fake.queries) / sizeof(fake.queries[0]))
		fake.queries[fake.nr_queries++] = *call;

	inject = fake.fail_errno[cmd];
	fake.fail_errno[cmd] = 0;
	err = inject ? inject : check(cmd, arg);
	if (err)
		ret = fail(err);
	else if (cmd == FAKE_INFO)
		ret = do_info(arg);
	else if (cmd == FAKE_REGISTER)
		ret = do_register(arg);
	else if (cmd == FAKE_UNREGISTER)
		ret = do_unregister(arg);
	else
		ret = do_query(arg);
	/* errno survives the unlock: pthread_mutex_unlock does not set it. */
	pthread_mutex_unlock(&fake.lock);
	return ret;
}

/* ---- one table per thread, no lock ---- */

#define TLS_MAX_LIVE	64

static __thread struct {
	uint64_t id;
	uint64_t seq;
	unsigned long calls[FAKE_NR_CMDS];
	unsigned int nr_live;
	struct memreg_region live[TLS_MAX_LIVE];
} tls;

void fake_thread_init(unsigned int id)
{
	memset(&tls, 0, sizeof(tls));
	tls.id = id;
}

unsigned long fake_thread_calls(enum fake_cmd cmd)
{
	return tls.calls[cmd];
}

uint64_t fake_thread_live(void)
{
	return tls.nr_live;
}

static int thread_ioctl(int cmd, void *arg)
{
	struct memreg_info *k = arg;
	struct memreg_register *r = arg;
	struct memreg_unregister *u = arg;
	struct memreg_query *q = arg;
	struct memreg_region *out;
	unsigned int i, n;
	__u32 size;
	int err;

	tls.calls[cmd]++;
	err = check(cmd, arg);
	if (err)
		return fail(err);

	switch (cmd) {
	case FAKE_INFO:
		/* fake.info is written before the threads start, then read. */
		size = k->size;
		*k = fake.info;
		k->size = size;
		k->regions = tls.nr_live;
		return 0;
	case FAKE_REGISTER:
		if (tls.nr_live == TLS_MAX_LIVE)
			return fail(EMFILE);
		r->handle = (tls.id + 1) << 40 | ++tls.seq;
		fill_region(&tls.live[tls.nr_live++], r->handle, r);
		return 0;
	case FAKE_UNREGISTER:
		for (i = 0; i < tls.nr_live; i++) {
			if (tls.live[i].handle == u->handle) {
				tls.live[i] = tls.live[--tls.nr_live];
				return 0;
			}
		}
		return fail(ENOENT);
	default:
		/* The cursor is an index into the thread's table. */
		out = (struct memreg_region *)(uintptr_t)q->regions;
		for (n = 0; n < q->count && q->cursor < tls.nr_live; n++)
			out[n] = tls.live[q->cursor++];
		q->count = n;
		q->total = tls.nr_live;
		return 0;
	}
}

/* ---- the hook ---- */

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	static const unsigned long requests[FAKE_NR_CMDS] = {
		[FAKE_INFO] = MEMREG_IOC_INFO,
		[FAKE_REGISTER] = MEMREG_IOC_REGISTER,
		[FAKE_UNREGISTER] = MEMREG_IOC_UNREGISTER,
		[FAKE_QUERY] = MEMREG_IOC_QUERY,
	};
	int cmd;

	for (cmd = 0; cmd < FAKE_NR_CMDS; cmd++)
		if (requests[cmd] == request)
			break;
	if (cmd == FAKE_NR_CMDS || fd < 0)
		return fail(fd < 0 ? EBADF : ENOTTY);

	if (fake.per_thread)
		return thread_ioctl(cmd, arg);
	return shared_ioctl(cmd, request, fd, arg);
}

void fake_kernel_setup(void)
{
	static const __u8 id[16] = { 0x6d, 0x65, 0x6d, 0x72, 0x65, 0x67, 0x21,
				     0x00, 0xff, 0x10, 0x20, 0x30, 0x40, 0x50,
				     0x60, 0x70 };

	memset(&fake, 0, sizeof(fake));
	pthread_mutex_init(&fake.lock, NULL);
	fake.info.abi_version = MEMREG_ABI_VERSION;
	fake.info.features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_DEVICE |
			     MEMREG_FEATURE_QUERY | MEMREG_FEATURE_NETLINK;
	fake.info.page_size = 4096;
	memcpy(fake.info.instance_id, id, sizeof(id));
	fake.info.max_regions = 256;
	fake.info.max_host_bytes = 20ULL << 30;
	fake.info.max_dev_bytes = 50ULL << 30;
	fake.info.memlock_limit = MEMREG_UNLIMITED;
	fake.info.host_bytes = 12345;
	fake.info.dev_bytes = 67890;
	memreg__test_ioctl = fake_ioctl;
}

void fake_kernel_teardown(void)
{
	memreg__test_ioctl = NULL;
	free(fake.regions);
	pthread_mutex_destroy(&fake.lock);
	memset(&fake, 0, sizeof(fake));
}
