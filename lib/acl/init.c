// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * aclInit, aclFinalize, aclFinalizeReference: the process-wide reference
 * count, and the tear-down of everything the runtime holds.
 *
 * CANN parses a JSON configuration here (dump, profiling, error-report
 * switches).  None of it applies to memreg, so the file is only read:
 * it must be readable, and a repeated aclInit must name the same content.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <acl/acl.h>
#include <memreg/memreg.h>

#include "device.h"
#include "errors.h"
#include "event.h"
#include "hostmem.h"
#include "label.h"
#include "memory.h"
#include "model.h"
#include "ptrmap.h"
#include "runtime.h"
#include "staging.h"
#include "vmm.h"

struct acl_runtime memreg__acl_rt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.contexts = PTRMAP_INIT,
	.streams = PTRMAP_INIT,
	.hostmem = PTRMAP_INIT,
	.events = PTRMAP_INIT,
	.devmem_use = PTHREAD_RWLOCK_INITIALIZER,
};

#define CONFIG_MAX	(1U << 20)	/* CANN's configurations are small */

/* The file's bytes in *buf (NULL, 0 for no file); 0 or -1. */
static int read_config(const char *path, char **buf, size_t *len)
{
	FILE *f;
	char *p;
	size_t n;

	*buf = NULL;
	*len = 0;
	if (!path || !*path)
		return 0;
	f = fopen(path, "re");
	if (!f) {
		acl_fail(ACL_ERROR_INVALID_PARAM, "configPath %s: %s", path,
			 strerror(errno));
		return -1;
	}
	p = malloc(CONFIG_MAX);
	if (!p) {
		acl_fail(ACL_ERROR_INVALID_PARAM,
			 "no memory to read configPath %s", path);
		fclose(f);
		return -1;
	}
	n = fread(p, 1, CONFIG_MAX, f);
	/* Larger than any real configuration, or unreadable: refuse it. */
	if (ferror(f) || !feof(f)) {
		acl_fail(ACL_ERROR_INVALID_PARAM, ferror(f) ?
			 "configPath %s cannot be read" :
			 "configPath %s is larger than 1 MiB", path);
		fclose(f);
		free(p);
		return -1;
	}
	fclose(f);
	*buf = p;
	*len = n;
	return 0;
}

aclError aclInit(const char *configPath)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret;
	char *cfg;
	size_t len;

	/* Outside the lock: a slow file must not hold up the runtime. */
	if (read_config(configPath, &cfg, &len))
		return acl_ret(ACL_ERROR_INVALID_PARAM);

	pthread_mutex_lock(&rt->lock);
	if (rt->init_refs) {
		/* Callers treat the repeat code as success; it still counts. */
		if (len != rt->config_len ||
		    (len && memcmp(cfg, rt->config, len))) {
			ret = acl_fail(ACL_ERROR_INVALID_PARAM,
				       "already initialized with another configuration (configPath %s)",
				       configPath && *configPath ? configPath :
				       "none");
		} else {
			rt->init_refs++;
			ret = acl_fail(ACL_ERROR_REPEAT_INITIALIZE,
				       "already initialized (%u references now)",
				       rt->init_refs);
		}
		free(cfg);
	} else {
		rt->init_refs = 1;
		rt->was_initialized = true;
		rt->config = cfg;
		rt->config_len = len;
		ret = ACL_SUCCESS;
	}
	pthread_mutex_unlock(&rt->lock);
	return acl_ret(ret);
}

/* Everything aclInit and the calls after it set up; rt.lock held. */
static void finalize_locked(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;

	memreg__acl_devices_release();
	memreg__acl_models_release();
	memreg__acl_labels_release();
	memreg__acl_events_release();
	memreg__acl_vmm_release();
	memreg__acl_memory_release();
	memreg__acl_hostmem_release();
	memreg_close(rt->mctx);
	rt->mctx = NULL;
	free(rt->devices);
	rt->devices = NULL;
	rt->nr_devices = 0;
	free(rt->config);
	rt->config = NULL;
	rt->config_len = 0;
	rt->init_refs = 0;
}

aclError aclFinalize(void)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret = ACL_SUCCESS;

	pthread_mutex_lock(&rt->lock);
	if (rt->init_refs)
		finalize_locked();
	else if (rt->was_initialized)
		ret = acl_fail(ACL_ERROR_REPEAT_FINALIZE, "already finalized");
	else
		ret = acl_fail(ACL_ERROR_UNINITIALIZE,
			       "aclInit was never called");
	pthread_mutex_unlock(&rt->lock);
	/*
	 * Outside rt.lock: nothing in the pool refers to the runtime.  The
	 * allocator registrations are not the runtime's to drop: as in
	 * CANN, they outlive aclFinalize (those of streams ended with them).
	 */
	if (ret == ACL_SUCCESS)
		memreg__acl_stage_drain();
	return acl_ret(ret);
}

aclError aclFinalizeReference(uint64_t *refCount)
{
	struct acl_runtime *rt = &memreg__acl_rt;
	aclError ret = ACL_SUCCESS;
	bool last = false;

	pthread_mutex_lock(&rt->lock);
	if (rt->init_refs > 1) {
		rt->init_refs--;
	} else if (rt->init_refs == 1) {
		finalize_locked();
		last = true;
	} else {
		ret = rt->was_initialized ?
			acl_fail(ACL_ERROR_REPEAT_FINALIZE,
				 "already finalized") :
			acl_fail(ACL_ERROR_UNINITIALIZE,
				 "aclInit was never called");
	}
	if (refCount && ret == ACL_SUCCESS)
		*refCount = rt->init_refs;
	pthread_mutex_unlock(&rt->lock);
	if (last)
		memreg__acl_stage_drain();
	return acl_ret(ret);
}
