// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtMemcpy, aclrtMemcpyAsync, aclrtMemset, aclrtMemsetAsync.
 *
 * Device memory is mapped into the process, so every direction is a CPU
 * copy; what the kind changes is which side must be device memory.  The
 * checks come in CANN's order: a count of 0 succeeds before anything is
 * looked at; then NULL pointers and the kind (0..5; the reserved INNER_
 * and INTER_DEVICE_TO_DEVICE are refused as CANN's aclrtMemcpy refuses
 * them) are the ACL layer's ACL_ERROR_INVALID_PARAM; then destMax and the
 * device ranges are the runtime's ACL_ERROR_RT_PARAM_INVALID.
 *
 * While a model is captured (model.c), the synchronous aclrtMemcpy and
 * aclrtMemset are CANN's "unsafe" calls: the capture modes say which
 * threads may still make them.  An asynchronous copy captured into a
 * model, or queued on a persistent stream for a model being built,
 * reads its source when the model runs.
 */
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>

#include "errors.h"
#include "memory.h"
#include "model.h"
#include "runtime.h"
#include "staging.h"
#include "stream.h"
#include "task.h"
#include "task_print.h"

/*
 * The task of aclrtMemcpyAsync (memcpy_ops),
 * and of aclrtMemsetAsync (memset_ops).
 */
struct copy_task {
	struct acl_task task;
	/* Which sides must still be device memory when it runs. */
	bool dst_dev, src_dev;
	void *dst;
	const void *src;	/* NULL: fill dst with value */
	size_t count;
	int value;
	/* The staged bytes of ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, if any. */
	struct acl_stage stage;
};
ACL_KIND_BEGINS_WITH_TASK(struct copy_task);

static struct copy_task *copy_task(const struct acl_task *t)
{
	return acl_task_data(t, struct copy_task);
}

/*
 * A copy or fill.  Device memory freed since the task was queued (the
 * program did not synchronize before aclrtFree) is unmapped: the copy
 * fails as a DMA to a bad address fails on a device, instead of
 * faulting the process.
 */
static aclError copy_run(struct acl_stream *s, struct acl_task *t)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct copy_task *c = copy_task(t);
	bool dev = c->dst_dev || c->src_dev;
	aclError err = ACL_SUCCESS;

	(void)s;
	if (dev) {
		pthread_mutex_lock(&rt->lock);
		if ((c->dst_dev &&
		     !memreg__acl_devmem_covers(c->dst, c->count)) ||
		    (c->src_dev &&
		     !memreg__acl_devmem_covers(c->src, c->count)))
			err = ACL_ERROR_RT_SYS_DMA;
		else
			pthread_rwlock_rdlock(&rt->devmem_use);
		pthread_mutex_unlock(&rt->lock);
		if (err)
			goto out;
	}
	if (c->src)
		memmove(c->dst, c->src, c->count);
	else
		memset(c->dst, c->value, c->count);
	if (dev)
		pthread_rwlock_unlock(&rt->devmem_use);
out:
	memreg__acl_stage_put(&c->stage);
	return err;
}

static void copy_release(struct acl_task *t)
{
	memreg__acl_stage_put(&copy_task(t)->stage);
}

static void copy_drop(struct acl_stream *s, struct acl_task *t)
{
	(void)s;
	copy_release(t);
}

static struct acl_task *copy_clone(const struct acl_task *t,
				   struct acl_stream *s)
{
	const struct copy_task *tc = copy_task(t);
	struct copy_task *c = malloc(sizeof(*c));
	void *buf;

	if (!c)
		return NULL;
	*c = *tc;
	memset(&c->stage, 0, sizeof(c->stage));
	/*
	 * A copy staged before its stream began capturing (another thread
	 * began while it was queued): the template holds the bytes; the run
	 * gets its own copy of them, not a pointer into the model.
	 */
	if (memreg__acl_staged(&tc->stage)) {
		buf = memreg__acl_stage_get(s, tc->count, &c->stage);
		if (!buf) {
			free(c);
			return NULL;
		}
		memcpy(buf, tc->src, tc->count);
		c->src = buf;
	}
	return &c->task;
}

static void copy_print(const struct acl_task_printer *p,
		       const struct acl_task *t)
{
	const struct copy_task *c = copy_task(t);

	memreg__acl_print_ptr(p, "dst", c->dst);
	if (c->src)
		memreg__acl_print_ptr(p, "src", c->src);
	else
		memreg__acl_print_i64(p, "value", c->value);
	memreg__acl_print_u64(p, "size", c->count);
	if (p->verbose) {
		memreg__acl_print_bool(p, "dst_device", c->dst_dev);
		memreg__acl_print_bool(p, "src_device", c->src_dev);
	}
}

static const struct acl_task_ops memcpy_ops = {
	.name = "MEMCPY",
	.run = copy_run,
	.drop = copy_drop,
	.release = copy_release,
	.clone = copy_clone,
	.print = copy_print,
};

static const struct acl_task_ops memset_ops = {
	.name = "MEMSET",
	.run = copy_run,
	.drop = copy_drop,
	.release = copy_release,
	.clone = copy_clone,
	.print = copy_print,
};

/*
 * The checks after count 0, shared by both copies; *t_dst_dev and
 * *t_src_dev (if not NULL) get which sides are device memory.
 */
static const char *const kind_names[] = {
	"ACL_MEMCPY_HOST_TO_HOST",
	"ACL_MEMCPY_HOST_TO_DEVICE",
	"ACL_MEMCPY_DEVICE_TO_HOST",
	"ACL_MEMCPY_DEVICE_TO_DEVICE",
	"ACL_MEMCPY_DEFAULT",
	"ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE",
	"ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
	"ACL_MEMCPY_INTER_DEVICE_TO_DEVICE",
};

static aclError check_copy(void *dst, size_t destMax, const void *src,
			   size_t count, aclrtMemcpyKind kind,
			   bool *t_dst_dev, bool *t_src_dev)
{
	unsigned int k = (unsigned int)kind;
	bool dst_dev, src_dev;

	if (!dst || !src)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				dst ? "src" : "dst");
	if (k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE ||
	    k == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"kind %u (%s) is reserved: use ACL_MEMCPY_DEVICE_TO_DEVICE",
				k, kind_names[k]);
	if (k > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"kind %d is not an aclrtMemcpyKind (0..%d)",
				(int)kind, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE);
	if (destMax < count)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"count %zu is larger than destMax %zu",
				count, destMax);

	switch (kind) {
	case ACL_MEMCPY_HOST_TO_DEVICE:
	case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE:
		dst_dev = true;
		src_dev = false;
		break;
	case ACL_MEMCPY_DEVICE_TO_HOST:
		dst_dev = false;
		src_dev = true;
		break;
	case ACL_MEMCPY_DEVICE_TO_DEVICE:
		dst_dev = true;
		src_dev = true;
		break;
	case ACL_MEMCPY_DEFAULT:
		/* The addresses say what they are. */
		if (t_dst_dev) {
			*t_dst_dev = memreg__acl_is_devmem(dst, count);
			*t_src_dev = memreg__acl_is_devmem(src, count);
		}
		return ACL_SUCCESS;
	default:
		return ACL_SUCCESS;
	}
	/*
	 * The host side is not checked: any memory of the process will do.
	 * The device side is the commonest mistake (a kind that does not
	 * match the pointers, or a count past the allocation): say which.
	 */
	if (dst_dev && !memreg__acl_is_devmem(dst, count)) {
		memreg__acl_explain_range(ACL_ERROR_RT_PARAM_INVALID, "dst",
					  dst, count, kind_names[k]);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	if (src_dev && !memreg__acl_is_devmem(src, count)) {
		memreg__acl_explain_range(ACL_ERROR_RT_PARAM_INVALID, "src",
					  src, count, kind_names[k]);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	if (t_dst_dev) {
		*t_dst_dev = dst_dev;
		*t_src_dev = src_dev;
	}
	return ACL_SUCCESS;
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
		     aclrtMemcpyKind kind)
{
	aclError ret;

	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_copy(dst, destMax, src, count, kind, NULL, NULL);
	if (!ret)
		ret = memreg__acl_capture_mode_check("aclrtMemcpy");
	if (ret)
		return acl_ret(ret);
	/* Synchronous, and without waiting for any stream (as in CANN). */
	memmove(dst, src, count);
	return acl_ret(ACL_SUCCESS);
}

/*
 * Queue @c on @stream, the default stream for NULL; released if it
 * could not be.
 */
static aclError enqueue(aclrtStream stream, struct copy_task *c, bool stage)
{
	struct acl_stream *s;
	aclError ret;
	void *buf;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s) {
		free(c);
		return ret;
	}
	/*
	 * A copy kept in a model (captured, or on a persistent stream)
	 * copies from the caller's buffer each time the model runs, as on a
	 * device: the bytes of the moment of the capture are not what a
	 * model is for.
	 */
	if (stage && !memreg__acl_stream_keeps_tasks(s)) {
		/*
		 * The caller may free its buffer when this returns: its bytes
		 * go to work memory of the stream now, and the worker copies
		 * them from there to the device in turn.
		 */
		buf = memreg__acl_stage_get(s, c->count, &c->stage);
		if (!buf) {
			ret = acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
				       "no work memory of %zu bytes to stage the copy",
				       c->count);
			memreg__acl_task_release(&c->task);
			goto out;
		}
		memcpy(buf, c->src, c->count);
		c->src = buf;
	}
	ret = memreg__acl_stream_enqueue(s, &c->task);
	if (ret)
		memreg__acl_task_release(&c->task);
out:
	memreg__acl_stream_put(s);
	return ret;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
			  size_t count, aclrtMemcpyKind kind, aclrtStream stream)
{
	bool dst_dev = false, src_dev = false;
	struct copy_task *c;
	aclError ret;

	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_copy(dst, destMax, src, count, kind, &dst_dev, &src_dev);
	if (ret)
		return acl_ret(ret);
	c = calloc(1, sizeof(*c));
	if (!c)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	c->task.ops = &memcpy_ops;
	c->dst_dev = dst_dev;
	/* Staged: the worker copies from the stream's work memory. */
	c->src_dev = src_dev && kind != ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
	c->dst = dst;
	c->src = src;
	c->count = count;
	return acl_ret(enqueue(stream, c,
			       kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
}

static aclError check_set(void *devPtr, size_t maxCount, size_t count)
{
	if (!devPtr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
	if (maxCount < count)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"count %zu is larger than maxCount %zu",
				count, maxCount);
	return ACL_SUCCESS;
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value,
		     size_t count)
{
	aclError ret;

	/* As for the copies: nothing to do is success, whatever the rest. */
	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_set(devPtr, maxCount, count);
	if (!ret)
		ret = memreg__acl_capture_mode_check("aclrtMemset");
	if (ret)
		return acl_ret(ret);
	memset(devPtr, value, count);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value,
			  size_t count, aclrtStream stream)
{
	struct copy_task *c;
	aclError ret;

	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_set(devPtr, maxCount, count);
	if (ret)
		return acl_ret(ret);
	c = calloc(1, sizeof(*c));
	if (!c)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	c->task.ops = &memset_ops;
	c->dst = devPtr;
	c->dst_dev = memreg__acl_is_devmem(devPtr, count);
	c->count = count;
	c->value = value;
	return acl_ret(enqueue(stream, c, false));
}

/* CANN's most copies in one batch (its driver's). */
#define ACL_EMU_BATCH_MAX	4096U

/* An attribute's location type as CANN compares it: NUMA host is host. */
static aclrtMemLocationType batch_loc(aclrtMemLocationType t)
{
	if (t == ACL_MEM_LOCATION_TYPE_HOST_NUMA ||
	    t == ACL_MEM_LOCATION_TYPE_UNREGISTERED)
		return ACL_MEM_LOCATION_TYPE_HOST;
	return t;
}

/*
 * Does the side @what of copy @i at @p (@len bytes) match the location
 * @want its attributes give?  rt.lock held.
 */
static aclError batch_side(size_t i, const char *what, const void *p,
			   size_t len, const aclrtMemLocation *want)
{
	aclrtPtrAttributes a;
	aclrtMemLocationType have, wt = batch_loc(want->type);

	memreg__acl_ptr_attributes(p, &a);
	have = batch_loc(a.location.type);
	if (have != wt || (have == ACL_MEM_LOCATION_TYPE_DEVICE &&
			   a.location.id != want->id)) {
		if (have == ACL_MEM_LOCATION_TYPE_DEVICE)
			return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"copy %zu: %s %p is memory of device %u, its attributes say type %d id %u",
					i, what, p, a.location.id,
					(int)want->type, want->id);
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"copy %zu: %s %p is host memory, its attributes say type %d id %u",
				i, what, p, (int)want->type, want->id);
	}
	if (have == ACL_MEM_LOCATION_TYPE_DEVICE &&
	    !memreg__acl_devmem_covers(p, len))
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"copy %zu: %s %p + %zu runs past its device allocation",
				i, what, p, len);
	return ACL_SUCCESS;
}

/*
 * CANN's checks, in its order: the ACL layer's (NULL arrays, no copies:
 * ACL_ERROR_INVALID_PARAM; every size 0 succeeds at once; a size over
 * its destMax, attributes with reserved bytes set), then the runtime's
 * (the attribute ranges: ACL_ERROR_RT_PARAM_INVALID), then each copy's
 * sides against its attributes, host to device or device to host only.
 * A copy that fails its check sets *failIndex and nothing is copied;
 * any other refusal leaves it SIZE_MAX.
 */
static aclError check_batch(void **dsts, size_t *destMaxs, void **srcs,
			    size_t *sizes, size_t n, aclrtMemcpyBatchAttr *attrs,
			    size_t *idx, size_t nattrs, size_t *failIndex,
			    bool *nothing)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	const aclrtMemcpyBatchAttr *at;
	aclError err = ACL_SUCCESS;
	size_t i, k, b;

	*nothing = false;
	if (failIndex)
		*failIndex = SIZE_MAX;
	if (!sizes)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "sizes is NULL");
	if (!n)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "numBatches is 0");
	for (i = 0; i < n && !sizes[i]; i++)
		;
	if (i == n) {
		*nothing = true;
		return ACL_SUCCESS;
	}
	if (!dsts || !destMaxs || !srcs || !attrs || !idx)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				!dsts ? "dsts" : !destMaxs ? "destMaxs" :
				!srcs ? "srcs" : !attrs ? "attrs" :
				"attrsIndexes");
	for (i = 0; i < n; i++)
		if (destMaxs[i] < sizes[i])
			return acl_fail(ACL_ERROR_INVALID_PARAM,
					"copy %zu: size %zu is larger than destMax %zu",
					i, sizes[i], destMaxs[i]);
	for (k = 0; k < nattrs; k++)
		for (b = 0; b < sizeof(attrs[k].rsv); b++)
			if (attrs[k].rsv[b])
				return acl_fail(ACL_ERROR_INVALID_PARAM,
						"attrs[%zu].rsv[%zu] is %u: the reserved bytes must be 0",
						k, b, attrs[k].rsv[b]);
	if (!nattrs || nattrs > n)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"numAttrs %zu: 1 to numBatches (%zu)", nattrs, n);
	if (n > ACL_EMU_BATCH_MAX)
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"numBatches %zu: at most %u", n, ACL_EMU_BATCH_MAX);
	if (idx[0])
		return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				"attrsIndexes[0] is %zu: the first attributes start at copy 0",
				idx[0]);
	for (k = 1; k < nattrs; k++)
		if (idx[k] <= idx[k - 1] || idx[k] >= n)
			return acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"attrsIndexes[%zu] is %zu: each entry above the one before and below numBatches (%zu)",
					k, idx[k], n);

	pthread_mutex_lock(&rt->lock);
	for (i = 0, k = 0; i < n && !err; i++) {
		if (k + 1 < nattrs && i >= idx[k + 1])
			k++;
		at = &attrs[k];
		/* A copy of 0 bytes among others is nothing to check. */
		if (!sizes[i])
			continue;
		if (!dsts[i] || !srcs[i])
			err = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				       "copy %zu: %s is NULL", i,
				       dsts[i] ? "src" : "dst");
		if (!err)
			err = batch_side(i, "dst", dsts[i], sizes[i],
					 &at->dstLoc);
		if (!err)
			err = batch_side(i, "src", srcs[i], sizes[i],
					 &at->srcLoc);
		if (!err && batch_loc(at->dstLoc.type) ==
			    batch_loc(at->srcLoc.type))
			err = acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				       "copy %zu: both sides are %s memory: a batch copies host to device or device to host only",
				       i, batch_loc(at->dstLoc.type) ==
				       ACL_MEM_LOCATION_TYPE_DEVICE ?
				       "device" : "host");
		if (err && failIndex)
			*failIndex = i;
	}
	pthread_mutex_unlock(&rt->lock);
	return err;
}

/*
 * Synchronous, as aclrtMemcpy: no stream is waited for.  Device memory
 * is held against aclrtFree while the copies run.
 */
aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs,
			  size_t *sizes, size_t numBatches,
			  aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
			  size_t numAttrs, size_t *failIndex)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	bool nothing;
	aclError err;
	size_t i;

	err = check_batch(dsts, destMaxs, srcs, sizes, numBatches, attrs,
			  attrsIndexes, numAttrs, failIndex, &nothing);
	if (err || nothing)
		return acl_ret(err);
	err = memreg__acl_capture_mode_check("aclrtMemcpyBatch");
	if (err)
		return acl_ret(err);
	pthread_rwlock_rdlock(&rt->devmem_use);
	for (i = 0; i < numBatches; i++)
		if (sizes[i])
			memmove(dsts[i], srcs[i], sizes[i]);
	pthread_rwlock_unlock(&rt->devmem_use);
	return acl_ret(ACL_SUCCESS);
}

/*
 * One copy task per copy, queued in order on @stream; a copy that cannot
 * be queued sets *failIndex, and those before it stay queued (CANN's
 * tasks too are on the stream once launched).
 */
aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs,
			       size_t *sizes, size_t numBatches,
			       aclrtMemcpyBatchAttr *attrs,
			       size_t *attrsIndexes, size_t numAttrs,
			       size_t *failIndex, aclrtStream stream)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct copy_task *c;
	bool nothing;
	aclError err;
	size_t i;

	err = check_batch(dsts, destMaxs, srcs, sizes, numBatches, attrs,
			  attrsIndexes, numAttrs, failIndex, &nothing);
	if (err || nothing)
		return acl_ret(err);
	for (i = 0; i < numBatches && !err; i++) {
		if (!sizes[i])
			continue;
		c = calloc(1, sizeof(*c));
		if (!c) {
			err = acl_fail(ACL_ERROR_BAD_ALLOC,
				       "out of host memory");
		} else {
			c->task.ops = &memcpy_ops;
			pthread_mutex_lock(&rt->lock);
			c->dst_dev = memreg__acl_devmem_covers(dsts[i],
							       sizes[i]);
			c->src_dev = memreg__acl_devmem_covers(srcs[i],
							       sizes[i]);
			pthread_mutex_unlock(&rt->lock);
			c->dst = dsts[i];
			c->src = srcs[i];
			c->count = sizes[i];
			err = enqueue(stream, c, false);
		}
		if (err && failIndex)
			*failIndex = i;
	}
	return acl_ret(err);
}
