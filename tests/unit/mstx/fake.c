// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fake module for the mstx tests (see fake.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"
#include "fake.h"

struct fake_mstx fake;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

/* Live regions by (heap, addr): a small open-addressing set. */
#define SET_SIZE	(1u << 16)
static struct { uint32_t heap; uint64_t addr; int used; } set[SET_SIZE];

static unsigned int set_slot(uint32_t heap, uint64_t addr, int *found)
{
	unsigned int i = (unsigned int)((addr >> 6) * 2654435761u + heap) &
			 (SET_SIZE - 1);

	for (;; i = (i + 1) & (SET_SIZE - 1)) {
		if (!set[i].used) {
			*found = 0;
			return i;
		}
		if (set[i].used > 0 && set[i].heap == heap &&
		    set[i].addr == addr) {
			*found = 1;
			return i;
		}
	}
}

/* Live heap ids, by their low bits: the tests use few. */
static unsigned char heap_live[1u << 16];

static void apply_region(uint16_t code, const struct memreg_mstx_op *op)
{
	unsigned int i;
	int found;

	if (code == MEMREG_MSTX_REGION_ADD) {
		i = set_slot(op->heap, op->addr, &found);
		if (!found) {
			set[i].used = 1;
			set[i].heap = op->heap;
			set[i].addr = op->addr;
			fake.live++;
		}
	} else if (code == MEMREG_MSTX_REGION_DEL) {
		i = set_slot(op->heap, op->addr, &found);
		if (found) {
			/* a tombstone keeps the probe chains intact */
			set[i].used = -1;
			fake.live--;
		} else {
			fake.early_dels++;
		}
	}
}

static void apply(const struct memreg_mstx_op *op)
{
	if (fake.nops < FAKE_MAX_OPS)
		fake.ops[fake.nops] = *op;
	if (op->op == MEMREG_MSTX_HEAP_ADD && op->domain)
		strncpy(fake.domains[fake.nops % 64],
			(const char *)(uintptr_t)op->domain, 63);
	fake.nops++;
	switch (op->op) {
	case MEMREG_MSTX_HEAP_ADD:
		heap_live[op->heap & 0xffff] = 1;
		break;
	case MEMREG_MSTX_HEAP_DEL:
		heap_live[op->heap & 0xffff] = 0;
		break;
	case MEMREG_MSTX_REGION_ADD_DEL:
		fake.add_dels++;
		apply_region(MEMREG_MSTX_REGION_ADD, op);
		apply_region(MEMREG_MSTX_REGION_DEL, op);
		break;
	default:
		apply_region(op->op, op);
	}
}

/* What the module refuses before applying an operation. */
static int check(const struct memreg_mstx_op *op)
{
	if (op->op == MEMREG_MSTX_REGION_ADD_DEL && op->heap &&
	    !heap_live[op->heap & 0xffff])
		return ENOENT;
	return 0;
}

static int fake_mstx_call(struct memreg_mstx *m)
{
	const struct memreg_mstx_op *ops = (const void *)(uintptr_t)m->ops;
	uint32_t i;

	if (m->size != sizeof(*m) || m->op_size != sizeof(*ops) ||
	    m->count > MEMREG_MSTX_BATCH_MAX || m->flags || m->reserved0) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&fake_lock);
	fake.calls++;
	for (i = 0; i < m->count; i++) {
		if (fake.fail_errno && i == fake.fail_at) {
			m->done = i;
			errno = fake.fail_errno;
			fake.fail_errno = 0;
			pthread_mutex_unlock(&fake_lock);
			return -1;
		}
		if (check(&ops[i])) {
			m->done = i;
			errno = check(&ops[i]);
			pthread_mutex_unlock(&fake_lock);
			return -1;
		}
		apply(&ops[i]);
	}
	m->done = m->count;
	pthread_mutex_unlock(&fake_lock);
	return 0;
}

static int fake_ioctl(int fd, unsigned long request, void *arg)
{
	(void)fd;
	if (request == MEMREG_IOC_INFO) {
		struct memreg_info *info = arg;

		info->abi_version = MEMREG_ABI_VERSION;
		info->features = MEMREG_FEATURE_HOST | MEMREG_FEATURE_MSTX;
		info->page_size = 4096;
		return 0;
	}
	if (request == MEMREG_IOC_MSTX)
		return fake_mstx_call(arg);
	errno = ENOTTY;
	return -1;
}

void fake_setup(void)
{
	fake.ops = calloc(FAKE_MAX_OPS, sizeof(*fake.ops));
	if (!fake.ops)
		abort();
	setenv("MEMREG_DEVICE", "/dev/null", 1);
	memreg__test_ioctl = fake_ioctl;
}

void fake_reset(void)
{
	pthread_mutex_lock(&fake_lock);
	fake.calls = 0;
	fake.nops = 0;
	fake.early_dels = 0;
	fake.live = 0;
	fake.add_dels = 0;
	memset(set, 0, sizeof(set));
	pthread_mutex_unlock(&fake_lock);
}

struct memreg_mstx_op fake_op(unsigned long i)
{
	struct memreg_mstx_op op;

	pthread_mutex_lock(&fake_lock);
	op = fake.ops[i];
	pthread_mutex_unlock(&fake_lock);
	return op;
}

unsigned long fake_nops(void)
{
	unsigned long n;

	pthread_mutex_lock(&fake_lock);
	n = fake.nops;
	pthread_mutex_unlock(&fake_lock);
	return n;
}

unsigned long fake_calls(void)
{
	unsigned long n;

	pthread_mutex_lock(&fake_lock);
	n = fake.calls;
	pthread_mutex_unlock(&fake_lock);
	return n;
}
