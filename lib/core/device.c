// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The device: opening /dev/memreg, MEMREG_IOC_INFO, closing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

#define MEMREG_DEFAULT_PATH	"/dev/" MEMREG_DEVICE_NAME

static const char *device_path(void)
{
	/*
	 * secure_getenv: a set-user-ID program must not be pointed at a file
	 * of the caller's choosing.
	 */
	const char *path = secure_getenv("MEMREG_DEVICE");

	return path && *path ? path : MEMREG_DEFAULT_PATH;
}

int memreg__query_info(int fd, struct memreg_lib_info *info)
{
	struct memreg_info k;

	/* Zero first: reserved fields and padding must reach the kernel as 0. */
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	if (memreg__ioctl(fd, MEMREG_IOC_INFO, &k))
		return memreg__fail(MEMREG_OP_INFO);

	memset(info, 0, sizeof(*info));
	info->abi_version = k.abi_version;
	info->page_size = k.page_size;
	info->features = k.features;
	memcpy(info->instance_id, k.instance_id, sizeof(info->instance_id));
	info->max_regions = k.max_regions;
	info->max_host_bytes = k.max_host_bytes;
	info->max_dev_bytes = k.max_dev_bytes;
	info->memlock_limit = k.memlock_limit;
	info->regions = k.regions;
	info->host_bytes = k.host_bytes;
	info->dev_bytes = k.dev_bytes;
	info->devices = k.devices;
	info->dev_capacity = k.dev_capacity;
	info->incarnation = k.incarnation;
	info->start_time = k.start_time;
	return 0;
}

int memreg_open(struct memreg_ctx **out)
{
	struct memreg_ctx *ctx;
	int ret, saved;

	if (!out)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	*out = NULL;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return memreg__refuse(MEMREG_E_NOMEM, ENOMEM);

	ctx->fd = open(device_path(), O_RDWR | O_CLOEXEC);
	if (ctx->fd < 0) {
		ret = memreg__fail(MEMREG_OP_OPEN);
		goto err_free;
	}
	pthread_mutex_init(&ctx->pool_lock, NULL);
	ctx->copy_threads = memreg__copy_threads_default();

	/*
	 * INFO first: it proves the node is memreg (anything else answers
	 * ENOTTY) and that the module speaks our ABI, before the caller
	 * trusts the descriptor with a registration.
	 */
	ret = memreg__query_info(ctx->fd, &ctx->info);
	if (ret)
		goto err_close;
	if (ctx->info.abi_version != MEMREG_ABI_VERSION) {
		ret = memreg__refuse(MEMREG_E_ABI, EPROTO);
		goto err_close;
	}

	*out = ctx;
	return 0;

err_close:
	/* The caller gets the errno of the failure, not of the cleanup. */
	saved = errno;
	pthread_mutex_destroy(&ctx->pool_lock);
	close(ctx->fd);
	errno = saved;
err_free:
	saved = errno;
	free(ctx);
	errno = saved;
	return ret;
}

void memreg_close(struct memreg_ctx *ctx)
{
	int saved = errno;

	if (!ctx)
		return;
	/*
	 * Closing the last reference to the file ends its registrations in
	 * the module; nothing to undo here first.  close() is not retried on
	 * EINTR: Linux has released the descriptor either way.
	 */
	memreg__copy_pool_close(ctx);
	close(ctx->fd);
	free(ctx);
	errno = saved;
}

int memreg_info(struct memreg_ctx *ctx, struct memreg_lib_info *info)
{
	if (!ctx || !info)
		return memreg__refuse(MEMREG_E_INVAL, EINVAL);
	return memreg__query_info(ctx->fd, info);
}
