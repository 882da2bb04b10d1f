// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclrtIpcMemGetExportKey, aclrtIpcMemSetImportPid, aclrtIpcMemImportByKey,
 * aclrtIpcMemClose, aclrtDeviceGetBareTgid: device memory shared between
 * processes, over the module's dma-bufs and IPC names.
 *
 * Export: the range of the aclrtMalloc allocation becomes a dma-buf
 * (memreg_dev_export), the dma-buf gets a name (memreg_ipc_export) and
 * the name's token, in hex, is the key.  The name holds the buffer, so
 * the dma-buf fd is closed at once.  Import: the token becomes a dma-buf
 * fd of this process, mapped shared; the mapping joins the device memory
 * table, so copies and value writes take it as device memory.
 *
 * The kernel checks the importer's pid: a key that leaks is of no use to
 * a process the exporter did not name.  The memory stays the exporter's:
 * when it frees it, every import's mapping faults, whatever the names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "ipc.h"
#include "memory.h"
#include "runtime.h"
#include "../core/layers.h"

/* "memreg-ipc-" and 32 lowercase hex digits: 44 bytes with the NUL. */
#define KEY_PREFIX	"memreg-ipc-"
#define KEY_PREFIX_LEN	(sizeof(KEY_PREFIX) - 1)
#define KEY_CHARS	(KEY_PREFIX_LEN + 2 * MEMREG_IPC_TOKEN_LEN)
/* CANN's key buffers are 65 bytes; a shorter one is a program's bug. */
#define ACL_IPC_KEY_LEN	65

static void key_encode(const uint8_t *token, char *key)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	memcpy(key, KEY_PREFIX, KEY_PREFIX_LEN);
	for (i = 0; i < MEMREG_IPC_TOKEN_LEN; i++) {
		key[KEY_PREFIX_LEN + 2 * i] = hex[token[i] >> 4];
		key[KEY_PREFIX_LEN + 2 * i + 1] = hex[token[i] & 0xf];
	}
	key[KEY_CHARS] = '\0';
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* 0, or -1 if @key is not one that key_encode() could have written. */
static int key_decode(const char *key, uint8_t *token)
{
	size_t i;
	int hi, lo;

	if (strncmp(key, KEY_PREFIX, KEY_PREFIX_LEN) ||
	    strnlen(key, KEY_CHARS + 1) != KEY_CHARS)
		return -1;
	for (i = 0; i < MEMREG_IPC_TOKEN_LEN; i++) {
		hi = hex_digit(key[KEY_PREFIX_LEN + 2 * i]);
		lo = hex_digit(key[KEY_PREFIX_LEN + 2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -1;
		token[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

/*
 * The aclError of a failed memreg IPC call.  A key the module does not
 * know, or a pid that is not a process, is the caller's parameter; an
 * importer not on the list has no permission.  The rest as for any
 * device memory call.
 */
aclError memreg__acl_ipc_error(int err)
{
	aclError acl;

	switch (-err) {
	case MEMREG_E_NOENT:
	case MEMREG_E_NOPROC:
	case MEMREG_E_RANGE:
	case MEMREG_E_INVAL:
		acl = ACL_ERROR_RT_PARAM_INVALID;
		break;
	case MEMREG_E_PERM:
		acl = ACL_ERROR_RT_NO_PERMISSION;
		break;
	case MEMREG_E_TOO_MANY:
	case MEMREG_E_NOFD:
		acl = ACL_ERROR_RT_OVER_LIMIT;
		break;
	default:
		return memreg__acl_error(err);
	}
	return memreg__acl_fail(acl, "%s", memreg_strerror(err));
}

/* @key's token, or why it is not a key (recorded, as @arg). */
static aclError key_token(const char *arg, const char *key, uint8_t *token)
{
	if (!key)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", arg);
	if (key_decode(key, token))
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"%s \"%.*s\" is not a key of aclrtIpcMemGetExportKey",
				arg, ACL_IPC_KEY_LEN, key);
	return ACL_SUCCESS;
}

/* The import of @token in the table, or NULL; rt.lock held. */
static struct acl_devmem *find_import(const uint8_t *token)
{
	struct acl_devmem **all;
	size_t i, n;

	all = memreg__acl_devmem_all(&n);
	for (i = 0; i < n; i++)
		if (all[i]->imported &&
		    !memcmp(all[i]->token, token, MEMREG_IPC_TOKEN_LEN))
			return all[i];
	return NULL;
}

static aclError export_key(void *devPtr, size_t size, char *key, size_t len,
			   uint64_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;
	size_t offset;
	int fd, err;

	if (!devPtr || !key)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
				devPtr ? "key" : "devPtr");
	if (!size)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
	if (len < ACL_IPC_KEY_LEN)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"len %zu is less than ACL_IPC_KEY_LEN (%d)",
				len, ACL_IPC_KEY_LEN);
	if (flags & ~ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags 0x%llx: only ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
				(unsigned long long)flags);
	if (!memreg__acl_lock_context())
		return ACL_ERROR_RT_CONTEXT_NULL;
	m = memreg__acl_devmem_find(devPtr, size);
	if (!m || m->imported || m->vmm) {
		/*
		 * Only this process's aclrtMalloc allocations have a dma-buf
		 * to make here; VMM memory is shared by its physical handle
		 * (aclrtMemExportToShareableHandle).
		 */
		ret = memreg__acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				       "devPtr %p + size %zu is not inside one aclrtMalloc allocation",
				       devPtr, size);
		goto out;
	}
	/* A dma-buf starts on a page: the range is named from there. */
	offset = (size_t)((char *)devPtr - (char *)m->mem.addr);
	if (offset % (size_t)sysconf(_SC_PAGESIZE)) {
		ret = memreg__acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				       "devPtr %p is not on a page of its allocation",
				       devPtr);
		goto out;
	}
	err = memreg_dev_export(rt->mctx, &m->mem, offset, size, &fd);
	if (err) {
		ret = memreg__acl_ipc_error(err);
		goto out;
	}
	err = memreg_ipc_export(rt->mctx, fd, flags ? MEMREG_IPC_ANY_PID : 0,
				token);
	/* The name holds the dma-buf; without one it goes with the fd. */
	close(fd);
	if (err) {
		ret = memreg__acl_ipc_error(err);
		goto out;
	}
	key_encode(token, key);
out:
	pthread_mutex_unlock(&rt->lock);
	return ret;
}

aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key,
				 size_t len, uint64_t flags)
{
	return acl_ret(export_key(devPtr, size, key, len, flags));
}

aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	int err;

	aclError ret;

	if (!pid || !num)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, pid ?
					"num is 0" : "pid is NULL"));
	ret = key_token("key", key, token);
	if (ret)
		return acl_ret(ret);
	if (!memreg__acl_lock_context())
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	err = memreg_ipc_allow(memreg__acl_rt.mctx, token, pid, num);
	pthread_mutex_unlock(&memreg__acl_rt.lock);
	return acl_ret(err ? memreg__acl_ipc_error(err) : ACL_SUCCESS);
}

static aclError import_key(void **devPtr, const char *key, uint64_t flags)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_context *ctx;
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;
	size_t len;
	void *p;
	int fd, err;

	/*
	 * ENABLE_PEER_ACCESS is CANN's way to use memory of another device:
	 * every emulated device's memory is mapped here alike, so either
	 * flag gives the same mapping.
	 */
	if (!devPtr)
		return acl_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
	if (flags & ~ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
		return acl_fail(ACL_ERROR_INVALID_PARAM,
				"flags 0x%llx: only ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS",
				(unsigned long long)flags);
	ret = key_token("key", key, token);
	if (ret)
		return ret;
	m = calloc(1, sizeof(*m));
	if (!m)
		return acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
	ctx = memreg__acl_lock_context();
	if (!ctx) {
		free(m);
		return ACL_ERROR_RT_CONTEXT_NULL;
	}
	/* One mapping per key: aclrtIpcMemClose(key) must know which. */
	if (find_import(token)) {
		ret = memreg__acl_fail(ACL_ERROR_RT_PARAM_INVALID,
				       "%s is imported already", key);
		goto out;
	}
	err = memreg_ipc_import(rt->mctx, token, &fd, &len);
	if (err) {
		ret = memreg__acl_ipc_error(err);
		goto out;
	}
	p = memreg__dmabuf_mmap(fd, len);
	if (p == MAP_FAILED) {
		/* ENODEV: the exporter freed the memory; the name is left. */
		ret = memreg__acl_fail(errno == ENODEV ?
				       ACL_ERROR_RT_PARAM_INVALID :
				       ACL_ERROR_RT_MEMORY_ALLOCATION,
				       "mmap of %s: %s", key, strerror(errno));
		close(fd);
		goto out;
	}
	m->mem.addr = p;
	m->mem.len = len;
	m->mem.device = (uint32_t)ctx->device;
	m->imported = true;
	m->fd = fd;
	memcpy(m->token, token, MEMREG_IPC_TOKEN_LEN);
	if (memreg__acl_devmem_insert(m)) {
		munmap(p, len);
		close(fd);
		ret = acl_fail(ACL_ERROR_BAD_ALLOC, "out of host memory");
		goto out;
	}
	*devPtr = p;
	m = NULL;
out:
	pthread_mutex_unlock(&rt->lock);
	free(m);
	return ret;
}

aclError aclrtIpcMemImportByKey(void **devPtr, const char *key,
				uint64_t flags)
{
	return acl_ret(import_key(devPtr, key, flags));
}

/*
 * The importer's close unmaps its mapping; the exporter's forgets the
 * name (imports made before keep the memory).  A process that both
 * exported and imported a key closes its import first, its name with a
 * second call.
 */
aclError aclrtIpcMemClose(const char *key)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	uint8_t token[MEMREG_IPC_TOKEN_LEN];
	struct acl_devmem *m;
	aclError ret = ACL_SUCCESS;
	int err;

	ret = key_token("key", key, token);
	if (ret)
		return acl_ret(ret);
	if (!memreg__acl_lock_context())
		return acl_ret(ACL_ERROR_RT_CONTEXT_NULL);
	m = find_import(token);
	if (m) {
		/* A stream task may be copying to or from it: let it finish. */
		pthread_rwlock_wrlock(&rt->devmem_use);
		memreg__acl_devmem_remove(m);
		munmap(m->mem.addr, m->mem.len);
		pthread_rwlock_unlock(&rt->devmem_use);
		close(m->fd);
		free(m);
	} else {
		err = memreg_ipc_close(rt->mctx, token);
		if (err)
			ret = memreg__acl_ipc_error(err);
	}
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/*
 * The pid the module checks an importer by: its thread-group id in the
 * caller's pid namespace, which is what getpid() is.  (CANN's call gives
 * the host's pid from inside a container; the module's list is read in
 * the exporter's namespace, so both must share one.)
 */
aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
	if (!pid)
		return acl_ret(acl_fail(ACL_ERROR_INVALID_PARAM, "pid is NULL"));
	*pid = (int32_t)getpid();
	return acl_ret(ACL_SUCCESS);
}
