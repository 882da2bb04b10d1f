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

#include "runtime.h"

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

/*
 * Read (or, @write, store) the value at t->dst if it is still device
 * memory; ACL_ERROR_RT_SYS_DMA if it was freed meanwhile.
 */
static aclError value_access(struct acl_task *t, bool write, uint64_t *cur)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint64_t *p = t->dst;

	pthread_mutex_lock(&rt->lock);
	if (!memreg__acl_devmem_find(p, sizeof(*p))) {
		pthread_mutex_unlock(&rt->lock);
		return ACL_ERROR_RT_SYS_DMA;
	}
	pthread_rwlock_rdlock(&rt->devmem_use);
	pthread_mutex_unlock(&rt->lock);
	if (write)
		__atomic_store_n(p, t->value64, __ATOMIC_RELEASE);
	else
		*cur = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	pthread_rwlock_unlock(&rt->devmem_use);
	return ACL_SUCCESS;
}

aclError memreg__acl_value_task(struct acl_stream *s, struct acl_task *t,
				bool drop)
{
	struct timespec ts;
	aclError err;
	uint64_t cur;

	if (drop)
		return ACL_SUCCESS;
	if (t->kind == ACL_TASK_VALUE_WRITE) {
		err = value_access(t, true, NULL);
		/* Wake the waits of every stream: one of them may be met. */
		pthread_mutex_lock(&memreg__acl_wait_lock);
		pthread_cond_broadcast(&memreg__acl_wait_cv);
		pthread_mutex_unlock(&memreg__acl_wait_lock);
		return err;
	}
	for (;;) {
		err = value_access(t, false, &cur);
		if (err || value_met(cur, t->value64, t->flag))
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

/* The address must be 8-byte aligned and inside one aclrtMalloc. */
static aclError value_queue(void *devAddr, uint64_t value, uint32_t flag,
			    aclrtStream stream, enum acl_task_kind kind)
{
	struct acl_stream *s;
	struct acl_task *t;
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
	t = calloc(1, sizeof(*t));
	if (!t)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	t->kind = kind;
	t->dst = devAddr;
	t->dst_dev = true;
	t->value64 = value;
	t->flag = flag;
	s = memreg__acl_stream_get(stream, &ret);
	if (!s) {
		free(t);
		return ret;
	}
	ret = memreg__acl_stream_enqueue(s, t);
	if (ret)
		free(t);
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
				   ACL_TASK_VALUE_WRITE));
}

aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag,
			aclrtStream stream)
{
	if (flag > ACL_STREAM_WAIT_VALUE_NOR)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flag %u is no ACL_STREAM_WAIT_VALUE_*",
					flag));
	return acl_ret(value_queue(devAddr, value, flag, stream,
				   ACL_TASK_VALUE_WAIT));
}
