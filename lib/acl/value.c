// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtValueWrite and aclrtValueWait: stream tasks on a 64-bit value in
 * device memory.  A write stores the value; a wait holds its stream
 * until the value meets the condition, so that one stream (or another
 * process writing that memory) orders another without events.
 *
 * The conditions, as CUDA's cuStreamWaitValue64 (CANN documents only
 * the names): GEQ (int64_t)(*addr - value) >= 0, wrapping; EQ *addr ==
 * value; AND (*addr & value) != 0; NOR ~(*addr | value) != 0.
 *
 * A wait is woken by every value write of the process (the wait lock's
 * condition) and looks again every millisecond for writers it cannot
 * see: copies, transfers, other processes.
 */
#include <errno.h>
#include <stdlib.h>

#include <acl/acl.h>

#include "errors.h"
#include "memory.h"
#include "runtime.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"
#include "wait.h"

#define VALUE_POLL_MS	1

static bool value_met(uint64_t cur, uint64_t value, uint32_t flag)
{
	switch (flag) {
	case ACL_STREAM_WAIT_VALUE_GEQ:
		return (int64_t)(cur - value) >= 0;
	case ACL_STREAM_WAIT_VALUE_EQ:
		return cur == value;
	case ACL_STREAM_WAIT_VALUE_AND:
		return (cur & value) != 0;
	case ACL_STREAM_WAIT_VALUE_NOR:
		return ~(cur | value) != 0;
	}
	return false;
}

/* The task of aclrtValueWrite (value_write_ops) and aclrtValueWait. */
struct value_task {
	struct acl_task task;
	uint64_t *addr;		/* device memory of aclrtMalloc */
	uint64_t value;
	uint32_t flag;		/* a wait's condition */
};
ACL_KIND_BEGINS_WITH_TASK(struct value_task);

static struct value_task *value_task(const struct acl_task *t)
{
	return acl_task_data(t, struct value_task);
}

/*
 * Read (or, @write, store) the value at vt->addr if it is still device
 * memory; ACL_ERROR_RT_SYS_DMA if it was freed meanwhile.
 */
static aclError value_access(struct value_task *vt, bool write, uint64_t *cur)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint64_t *p = vt->addr;

	pthread_mutex_lock(&rt->lock);
	if (!memreg__acl_devmem_find(p, sizeof(*p))) {
		pthread_mutex_unlock(&rt->lock);
		return ACL_ERROR_RT_SYS_DMA;
	}
	pthread_rwlock_rdlock(&rt->devmem_use);
	pthread_mutex_unlock(&rt->lock);
	if (write)
		__atomic_store_n(p, vt->value, __ATOMIC_RELEASE);
	else
		*cur = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	pthread_rwlock_unlock(&rt->devmem_use);
	return ACL_SUCCESS;
}

static aclError value_write_run(struct acl_stream *s, struct acl_task *t)
{
	aclError err = value_access(value_task(t), true, NULL);

	(void)s;
	/* Wake the waits of every stream: one of them may be met. */
	pthread_mutex_lock(&memreg__acl_wait_lock);
	pthread_cond_broadcast(&memreg__acl_wait_cv);
	pthread_mutex_unlock(&memreg__acl_wait_lock);
	return err;
}

static aclError value_wait_run(struct acl_stream *s, struct acl_task *t)
{
	struct value_task *vt = value_task(t);
	struct timespec ts;
	aclError err;
	uint64_t cur;

	for (;;) {
		err = value_access(vt, false, &cur);
		if (err || value_met(cur, vt->value, vt->flag))
			return err;
		/* Destroyed by force: the wait ends, the stream goes. */
		if (memreg__acl_stream_forced(s))
			return ACL_SUCCESS;
		memreg__acl_deadline(&ts, VALUE_POLL_MS);
		pthread_mutex_lock(&memreg__acl_wait_lock);
		pthread_cond_timedwait(&memreg__acl_wait_cv,
				       &memreg__acl_wait_lock, &ts);
		pthread_mutex_unlock(&memreg__acl_wait_lock);
	}
}

static struct acl_task *value_clone(const struct acl_task *t,
				    struct acl_stream *s)
{
	struct value_task *c = malloc(sizeof(*c));

	(void)s;
	if (c)
		*c = *value_task(t);
	return c ? &c->task : NULL;
}

static void value_write_print(const struct acl_task_printer *p,
			      const struct acl_task *t)
{
	const struct value_task *vt = value_task(t);

	memreg__acl_print_ptr(p, "addr", vt->addr);
	memreg__acl_print_u64(p, "value", vt->value);
}

static void value_wait_print(const struct acl_task_printer *p,
			     const struct acl_task *t)
{
	value_write_print(p, t);
	memreg__acl_print_u64(p, "flag", value_task(t)->flag);
}

/* They hold nothing: dropped or released, there is nothing to give back. */
static const struct acl_task_ops value_write_ops = {
	.name = "VALUE_WRITE",
	.run = value_write_run,
	.clone = value_clone,
	.print = value_write_print,
};

static const struct acl_task_ops value_wait_ops = {
	.name = "VALUE_WAIT",
	.run = value_wait_run,
	.clone = value_clone,
	.print = value_wait_print,
};

/* The address must be 8-byte aligned and inside one aclrtMalloc. */
static aclError value_queue(void *devAddr, uint64_t value, uint32_t flag,
			    aclrtStream stream, const struct acl_task_ops *ops)
{
	struct value_task *vt;
	struct acl_stream *s;
	aclError ret;
	bool dev;

	if (!devAddr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
	if ((uintptr_t)devAddr % sizeof(uint64_t))
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"devAddr %p is not an 8-byte aligned address",
				devAddr);
	pthread_mutex_lock(&memreg__acl_rt.lock);
	dev = memreg__acl_devmem_find(devAddr, sizeof(uint64_t)) != NULL;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	if (!dev)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"devAddr %p is not device memory of aclrtMalloc",
				devAddr);
	vt = calloc(1, sizeof(*vt));
	if (!vt)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	vt->task.ops = ops;
	vt->addr = devAddr;
	vt->value = value;
	vt->flag = flag;
	s = memreg__acl_stream_get(stream, &ret);
	if (!s) {
		free(vt);
		return ret;
	}
	ret = memreg__acl_stream_enqueue(s, &vt->task);
	if (ret)
		memreg__acl_task_release(&vt->task);
	memreg__acl_stream_put(s);
	return ret;
}

aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag,
			 aclrtStream stream)
{
	/* Reserved, must be 0. */
	if (flag)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u: reserved, must be 0", flag));
	return acl_ret(value_queue(devAddr, value, flag, stream,
				   &value_write_ops));
}

aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
			aclrtStream stream)
{
	if (flag > ACL_STREAM_WAIT_VALUE_NOR)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u is no ACL_STREAM_WAIT_VALUE_*",
					flag));
	return acl_ret(value_queue(devAddr, value, flag, stream,
				   &value_wait_ops));
}
