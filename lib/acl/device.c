// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Devices and contexts.  The devices are the memreg module's emulated
 * NPUs; the module is opened by the first aclrtSetDevice (with or without
 * aclInit, as in CANN).
 *
 * As in CANN, the current context belongs to the thread: aclrtSetDevice
 * makes the device's default context current in the calling thread only.
 * A thread remembers its context by pointer and id, and every use checks
 * that a context with both is still alive, so a context destroyed
 * elsewhere (aclrtResetDevice, aclFinalize) is never used after its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "ptrmap.h"
#include "runtime.h"
#include "stream.h"

static __thread struct acl_context *cur_ctx;
static __thread uint64_t cur_ctx_id;

struct acl_context *memreg__acl_lock_context(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx = cur_ctx;

	/*
	 * Why there is none, for the caller that returns
	 * ACL_ERROR_RT_CONTEXT_NULL (a caller that goes on without one
	 * leaves the thread's error as it was: see errors.c).
	 */
	if (!ctx) {
		acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
			 "no current context in this thread: aclrtSetDevice or aclrtSetCurrentContext was not called, or the device was reset since");
		return NULL;
	}
	pthread_mutex_lock(&rt->lock);
	if (memreg__ptrmap_get(&rt->contexts, ctx) == ctx &&
	    ctx->id == cur_ctx_id)
		return ctx;
	pthread_mutex_unlock(&rt->lock);
	acl_fail(ACL_ERROR_RT_CONTEXT_NULL,
		 "this thread's current context was destroyed (aclrtResetDevice, aclrtDestroyContext or aclFinalize)");
	return NULL;
}

static void set_current(struct acl_context *ctx)
{
	cur_ctx = ctx;
	cur_ctx_id = ctx ? ctx->id : 0;
}

/* Open the module and learn its devices; rt.lock held. */
static aclError open_module(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct memreg_lib_info info;
	int err;

	if (rt->mctx)
		return ACL_SUCCESS;
	err = memreg_open(&rt->mctx);
	if (err)
		return memreg__acl_error(err);
	err = memreg_info(rt->mctx, &info);
	if (err || !(info.features & MEMREG_FEATURE_DEVICE) || !info.devices) {
		memreg_close(rt->mctx);
		rt->mctx = NULL;
		return err ? memreg__acl_error(err) :
			acl_fail(ACL_ERROR_RT_NO_DEVICE,
				 "the memreg module has no emulated devices");
	}
	rt->devices = calloc(info.devices, sizeof(*rt->devices));
	if (!rt->devices) {
		memreg_close(rt->mctx);
		rt->mctx = NULL;
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	}
	rt->nr_devices = info.devices;
	rt->dev_capacity = info.dev_capacity;
	return ACL_SUCCESS;
}

static struct acl_context *context_new(int32_t device, bool is_default)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx = calloc(1, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->id = ++rt->next_ctx_id;
	ctx->device = device;
	ctx->is_default = is_default;
	if (memreg__ptrmap_put(&rt->contexts, ctx, ctx)) {
		free(ctx);
		return NULL;
	}
	return ctx;
}

void memreg__acl_context_destroy(struct acl_context *ctx, bool force)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_stream **streams;
	size_t i, n;

	/* Out of the table first: no new stream can be made on it. */
	memreg__ptrmap_del(&rt->contexts, ctx);
	streams = memreg__acl_streams_ref(ctx, -1, &n);
	for (i = 0; i < n; i++) {
		/* Drops rt.lock while the worker finishes; see stream.c. */
		memreg__acl_stream_destroy(streams[i], force);
		memreg__acl_stream_put(streams[i]);
	}
	free(streams);
	if (ctx->is_default && rt->devices)
		rt->devices[ctx->device].default_ctx = NULL;
	if (cur_ctx == ctx)
		set_current(NULL);
	free(ctx);
}

void memreg__acl_devices_release(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;
	uint32_t i;

	while (memreg__ptrmap_values(&rt->contexts, (void **)&ctx, 1))
		memreg__acl_context_destroy(ctx, false);
	for (i = 0; i < rt->nr_devices; i++) {
		rt->devices[i].refs = 0;
		rt->devices[i].peers = 0;
	}
	memreg__ptrmap_clear(&rt->contexts);
	set_current(NULL);
}

/* rt.lock held: ACL_SUCCESS if @deviceId names a device of the module. */
static aclError check_device(int32_t deviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	/* As CANN's runtime: no aclInit needed (hixl's examples make none). */
	ret = open_module();
	if (ret)
		return ret;
	if (deviceId < 0 || (uint32_t)deviceId >= rt->nr_devices)
		return acl_fail(ACL_ERROR_RT_INVALID_DEVICEID,
				"device %d does not exist: the memreg module has %u (its devices= parameter)",
				deviceId, rt->nr_devices);
	return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t deviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_device *dev;
	aclError ret;

	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	if (ret)
		goto out;
	dev = &rt->devices[deviceId];
	if (!dev->default_ctx) {
		dev->default_ctx = context_new(deviceId, true);
		if (!dev->default_ctx) {
			ret = acl_fail(ACL_ERROR_BAD_ALLOC,
				       "out of host memory");
			goto out;
		}
	}
	dev->refs++;
	set_current(dev->default_ctx);
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

aclError aclrtResetDevice(int32_t deviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_device *dev;
	aclError ret;

	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	if (ret)
		goto out;
	dev = &rt->devices[deviceId];
	/* A device that is not set has nothing to reset: not an error. */
	if (!dev->refs)
		goto out;
	/* Like aclrtSetDevice, counted: the last reset releases. */
	if (--dev->refs == 0) {
		dev->peers = 0;
		if (dev->default_ctx)
			memreg__acl_context_destroy(dev->default_ctx, false);
	}
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/*
 * Whatever the count: every context on the device (the default one and
 * those aclrtCreateContext made), and their streams without waiting for
 * their queues.  Memory stays, as for aclrtResetDevice.
 */
aclError aclrtResetDeviceForce(int32_t deviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context **all;
	size_t i, n;
	aclError ret;

	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	if (ret)
		goto out;
	rt->devices[deviceId].refs = 0;
	rt->devices[deviceId].peers = 0;
	n = memreg__ptrmap_values(&rt->contexts, NULL, 0);
	all = n ? calloc(n, sizeof(*all)) : NULL;
	if (n && !all) {
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	n = memreg__ptrmap_values(&rt->contexts, (void **)all, n);
	for (i = 0; i < n; i++) {
		/*
		 * rt.lock is dropped while a stream's worker finishes: a
		 * context may have gone meanwhile.
		 */
		if (memreg__ptrmap_get(&rt->contexts, all[i]) != all[i] ||
		    all[i]->device != deviceId)
			continue;
		memreg__acl_context_destroy(all[i], true);
	}
	free(all);
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/*
 * An emulated device has no hardware faults (no ECC, no AI core, no
 * link): its summary is always ACL_RT_NO_ERROR, with nothing to repair.
 */
aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	if (!errorInfo)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "errorInfo is NULL"));
	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	memset(errorInfo, 0, sizeof(*errorInfo));
	errorInfo->errorType = ACL_RT_NO_ERROR;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetDevice(int32_t *deviceId)
{
	struct acl_context *ctx;

	if (!deviceId)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "deviceId is NULL"));
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	*deviceId = ctx->device;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetDeviceCount(uint32_t *count)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	if (!count)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "count is NULL"));
	pthread_mutex_lock(&rt->lock);
	ret = open_module();
	if (!ret)
		*count = rt->nr_devices;
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
	if (!runMode)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "runMode is NULL"));
	/* The program runs on the host; the devices are emulated beside it. */
	*runMode = ACL_HOST;
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;
	aclError ret;

	if (!context)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "context is NULL"));
	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	if (ret)
		goto out;
	ctx = context_new(deviceId, false);
	if (!ctx) {
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	/* As in CANN, the new context becomes the thread's current one. */
	set_current(ctx);
	*context = ctx;
out:
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

aclError aclrtDestroyContext(aclrtContext context)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;
	aclError ret = ACL_SUCCESS;

	if (!context)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "context is NULL"));
	pthread_mutex_lock(&rt->lock);
	ctx = memreg__ptrmap_get(&rt->contexts, context);
	/* The default context belongs to aclrtSetDevice/aclrtResetDevice. */
	if (!ctx)
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "context %p is unknown or already destroyed",
			       context);
	else if (ctx->is_default)
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "context %p is device %d's default context: aclrtResetDevice ends it",
			       context, ctx->device);
	else
		memreg__acl_context_destroy(ctx, false);
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

aclError aclrtSetCurrentContext(aclrtContext context)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;

	if (!context)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "context is NULL"));
	pthread_mutex_lock(&rt->lock);
	ctx = memreg__ptrmap_get(&rt->contexts, context);
	if (ctx)
		set_current(ctx);
	pthread_mutex_unlock(&rt->lock);
	if (!ctx)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"context %p is unknown or already destroyed",
					context));
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtGetCurrentContext(aclrtContext *context)
{
	struct acl_context *ctx;

	if (!context)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "context is NULL"));
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	*context = ctx;
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtSynchronizeDevice(void)
{
	struct acl_stream **streams;
	struct acl_context *ctx;
	aclError ret = ACL_SUCCESS, err;
	bool captured = false;
	int32_t device;
	size_t i, n;

	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	device = ctx->device;
	/* References, so that the waits can run without rt.lock. */
	streams = memreg__acl_streams_ref(NULL, device, &n);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	/* As CANN: a stream being captured refuses it before any wait. */
	for (i = 0; i < n && !captured; i++)
		captured = memreg__acl_stream_capturing(streams[i]);
	if (captured)
		ret = acl_fail(ACL_ERROR_RT_STREAM_CAPTURED,
			       "a stream of device %d is being captured into a model",
			       device);
	for (i = 0; i < n; i++) {
		err = captured ? ACL_SUCCESS : memreg__acl_stream_sync(streams[i]);
		if (err && !ret)
			ret = err;
		memreg__acl_stream_put(streams[i]);
	}
	free(streams);
	return acl_ret(ret);
}

/*
 * Peer access.  The emulated devices are memory of one host, so every
 * device reaches every other: CanAccessPeer says 1 for any two different
 * devices.  Enabling is recorded per device of the calling thread's
 * context (cleared by its last reset); copies between devices do not
 * depend on it (a D2D copy across devices works as within one).
 */
aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId,
				  int32_t peerDeviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	if (!canAccessPeer)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "canAccessPeer is NULL"));
	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	if (!ret)
		ret = check_device(peerDeviceId);
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	if (deviceId == peerDeviceId)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"deviceId and peerDeviceId are both %d",
					deviceId));
	*canAccessPeer = 1;
	return acl_ret(ACL_SUCCESS);
}

/* The calling thread's device and @peer, checked; rt.lock held on success. */
static aclError lock_peer(int32_t peer, int32_t *self)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	struct acl_context *ctx;
	aclError ret;

	ctx = memreg__acl_lock_context();
	if (!ctx)
		return ACL_ERROR_RT_CONTEXT_NULL;
	ret = check_device(peer);
	if (!ret && peer == ctx->device)
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "peer device %d is the current device", peer);
	if (ret) {
		pthread_mutex_unlock(&rt->lock);
		return ret;
	}
	*self = ctx->device;
	return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	int32_t self;
	aclError ret;

	if (flags)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"flags %u: reserved, must be 0", flags));
	ret = lock_peer(peerDeviceId, &self);
	if (ret)
		return acl_ret(ret);
	rt->devices[self].peers |= 1U << peerDeviceId;
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ACL_SUCCESS);
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	int32_t self;
	aclError ret;
	uint32_t bit;

	ret = lock_peer(peerDeviceId, &self);
	if (ret)
		return acl_ret(ret);
	bit = 1U << peerDeviceId;
	if (!(rt->devices[self].peers & bit))
		ret = acl_fail(ACL_ERROR_INVALID_PARAM,
			       "peer access from device %d to %d is not enabled",
			       self, peerDeviceId);
	rt->devices[self].peers &= ~bit;
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/*
 * Cores of the thread's device, for aclrtGetResInCurrentThread: those of
 * the SoC aclrtGetSocName names (Ascend910B1: 24 AI cores, each one cube
 * and two vector units).  Nothing runs on them here.
 */
#define EMU_CUBE_CORES		24
#define EMU_VECTOR_CORES	48

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
	struct acl_context *ctx;

	if (!value)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "value is NULL"));
	if (type != ACL_RT_DEV_RES_CUBE_CORE && type != ACL_RT_DEV_RES_VECTOR_CORE)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"type %d is no aclrtDevResLimitType", (int)type));
	ctx = memreg__acl_lock_context();
	if (!ctx)
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	*value = type == ACL_RT_DEV_RES_CUBE_CORE ? EMU_CUBE_CORES :
						     EMU_VECTOR_CORES;
	return acl_ret(ACL_SUCCESS);
}

/*
 * The two features CANN asks devices about: updating a model's tasks
 * from the device's task scheduler, and memory-queue events across
 * devices.  Both belong to models and queues memreg does not have.
 * Any other type is refused as CANN's runtime refuses it.
 */
aclError aclrtGetDeviceCapability(int32_t deviceId,
				  aclrtDevFeatureType devFeatureType,
				  int32_t *value)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	if (!value)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "value is NULL"));
	if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
	    devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
		return acl_ret(acl_fail(ACL_ERROR_RT_PARAM_INVALID,
					"devFeatureType %d is no aclrtDevFeatureType",
					(int)devFeatureType));
	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	*value = ACL_DEV_FEATURE_NOT_SUPPORT;
	return acl_ret(ACL_SUCCESS);
}

/*
 * Nothing runs on an emulated device's cores: 0 % for the cube, vector
 * and AI CPU units.  Memory: -1, "cannot be told", as CANN answers
 * today.  As in CANN, a device it cannot ask about is not an error:
 * every field is -1.
 */
#define UTIL_UNKNOWN	(-1)

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId,
				       aclrtUtilizationInfo *utilizationInfo)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	int32_t busy;
	aclError ret;

	if (!utilizationInfo)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"utilizationInfo is NULL"));
	if (utilizationInfo->utilizationExtend)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"utilizationExtend is reserved, must be NULL"));
	/* Not check_device(): a success must not leave a last error. */
	pthread_mutex_lock(&rt->lock);
	ret = open_module();
	busy = !ret && deviceId >= 0 && (uint32_t)deviceId < rt->nr_devices ?
	       0 : UTIL_UNKNOWN;
	pthread_mutex_unlock(&rt->lock);
	utilizationInfo->cubeUtilization = busy;
	utilizationInfo->vectorUtilization = busy;
	utilizationInfo->aicpuUtilization = busy;
	utilizationInfo->memoryUtilization = UTIL_UNKNOWN;
	return acl_ret(ACL_SUCCESS);
}

/*
 * Uncorrectable memory errors: the memory is the host's RAM, whose
 * errors the kernel handles; an emulated device never has one to
 * report.
 */
aclError aclrtGetMemUceInfo(int32_t deviceId, aclrtMemUceInfo *memUceInfoArray,
			    size_t arraySize, size_t *retSize)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	(void)arraySize;	/* never smaller than the 0 errors there are */
	if (!memUceInfoArray || !retSize)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
					retSize ? "memUceInfoArray" :
						  "retSize"));
	pthread_mutex_lock(&rt->lock);
	ret = check_device(deviceId);
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	*retSize = 0;
	return acl_ret(ACL_SUCCESS);
}

/*
 * aclGetDeviceCapability: the Ascend910B1's figures (CANN's platform
 * configuration for it: 24 AI cores, 48 vector cores, 192 MiB of L2),
 * the SoC the emulated devices present themselves as.  Like CANN, it
 * checks the id against the number of devices, with
 * ACL_ERROR_INVALID_PARAM.
 */
#define EMU_L2_SIZE		201326592

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo,
				int64_t *value)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint32_t n = 0;
	aclError ret;

	if (!value)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "value is NULL"));
	pthread_mutex_lock(&rt->lock);
	ret = open_module();
	if (!ret)
		n = rt->nr_devices;
	pthread_mutex_unlock(&rt->lock);
	if (ret)
		return acl_ret(ret);
	if (deviceId >= n)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"device %u does not exist: the memreg module has %u",
					deviceId, n));
	switch (deviceInfo) {
	case ACL_DEVICE_INFO_AI_CORE_NUM:
		*value = EMU_CUBE_CORES;
		break;
	case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
		*value = EMU_VECTOR_CORES;
		break;
	case ACL_DEVICE_INFO_L2_SIZE:
		*value = EMU_L2_SIZE;
		break;
	default:
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM,
					"deviceInfo %d is no aclDeviceInfo",
					(int)deviceInfo));
	}
	return acl_ret(ACL_SUCCESS);
}

/*
 * The emulated devices are not a subset of a machine's chips picked by
 * ASCEND_RT_VISIBLE_DEVICES: user, logical and physical ids are the same, so
 * both directions check the id and give it back.  The invalid id is
 * CANN's device error, as every call naming a device gives.
 */
static aclError same_dev_id(int32_t in, int32_t *out, const char *outname)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;

	if (!out)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", outname);
	pthread_mutex_lock(&rt->lock);
	ret = check_device(in);
	pthread_mutex_unlock(&rt->lock);
	if (!ret)
		*out = in;
	return ret;
}

aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId,
				      int32_t *const phyDevId)
{
	return acl_ret(same_dev_id(logicDevId, phyDevId, "phyDevId"));
}

aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId,
				      int32_t *const logicDevId)
{
	return acl_ret(same_dev_id(phyDevId, logicDevId, "logicDevId"));
}

aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid,
				       int32_t *const logicDevId)
{
	return acl_ret(same_dev_id(userDevid, logicDevId, "logicDevId"));
}

aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId,
				       int32_t *const userDevid)
{
	return acl_ret(same_dev_id(logicDevId, userDevid, "userDevid"));
}
