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

#include "runtime.h"

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

/* Queue @t on @stream, the default stream for NULL. */
static aclError enqueue(aclrtStream stream, struct acl_task *t, bool stage)
{
	struct acl_stream *s;
	aclError ret;
	void *buf;

	s = memreg__acl_stream_get(stream, &ret);
	if (!s)
		return ret;
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
		buf = memreg__acl_stage_get(s, t->count, t);
		if (!buf) {
			ret = acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
				       "no work memory of %zu bytes to stage the copy",
				       t->count);
			goto out;
		}
		memcpy(buf, t->src, t->count);
		t->src = buf;
	}
	ret = memreg__acl_stream_enqueue(s, t);
	if (ret)
		memreg__acl_stage_put(t);
out:
	memreg__acl_stream_put(s);
	return ret;
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src,
			  size_t count, aclrtMemcpyKind kind, aclrtStream stream)
{
	bool dst_dev = false, src_dev = false;
	struct acl_task *t;
	aclError ret;

	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_copy(dst, destMax, src, count, kind, &dst_dev, &src_dev);
	if (ret)
		return acl_ret(ret);
	t = calloc(1, sizeof(*t));
	if (!t)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	t->kind = ACL_TASK_COPY;
	t->dst_dev = dst_dev;
	/* Staged: the worker copies from the stream's work memory. */
	t->src_dev = src_dev && kind != ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE;
	t->dst = dst;
	t->src = src;
	t->count = count;
	ret = enqueue(stream, t, kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE);
	if (ret)
		free(t);
	return acl_ret(ret);
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
	struct acl_task *t;
	aclError ret;

	if (!count)
		return acl_ret(ACL_SUCCESS);
	ret = check_set(devPtr, maxCount, count);
	if (ret)
		return acl_ret(ret);
	t = calloc(1, sizeof(*t));
	if (!t)
		return acl_ret(acl_fail(ACL_ERROR_BAD_ALLOC,
					"out of host memory"));
	t->kind = ACL_TASK_COPY;
	t->dst = devPtr;
	t->dst_dev = memreg__acl_is_devmem(devPtr, count);
	t->count = count;
	t->value = value;
	ret = enqueue(stream, t, false);
	if (ret)
		free(t);
	return acl_ret(ret);
}
