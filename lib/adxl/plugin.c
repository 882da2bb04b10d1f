// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading a transport plugin (plugin.h), the one way every plugin
 * transport is found: the file named by its environment variable if set;
 * else memreg/FILE beside the libmemreg that runs (the build tree or
 * LIBDIR alike); else in the LIBDIR this library was built for (a static
 * libmemreg).  Its entry symbol names the ABI it was built for, and the
 * table it returns names the transport it carries: a file of another ABI
 * or another transport is refused.  A plugin is loaded once per process
 * and never closed: the libraries plugins run on (libucs, libibverbs)
 * do not support being unloaded, or keep what they load loaded.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"
#include "plugin.h"

/* The plugins tried so far, by file: loaded, or why not. */
static struct loaded {
	const char *file;
	const struct adxl_plugin *plugin;
	char err[512];
} loaded[ADXL_TRANSPORT_MAX];
static pthread_mutex_t loaded_lock = PTHREAD_MUTEX_INITIALIZER;

static void *try_open(const char *path, char *err, size_t errlen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h && !err[0])
		snprintf(err, errlen, "%s", dlerror());
	return h;
}

static const struct adxl_plugin *load(const char *env_var, const char *file,
				      const char *dir, const char *transport,
				      char *err, size_t errlen)
{
	const struct adxl_plugin *(*entry)(void);
	const struct adxl_plugin *plugin;
	const char *env = getenv(env_var);
	char path[PATH_MAX], real[PATH_MAX];
	void *h = NULL;
	Dl_info info;

	err[0] = '\0';
	if (env && *env) {
		h = try_open(env, err, errlen);
	} else {
		if (dladdr((void *)adxl_initialize, &info) && info.dli_fname) {
			/*
			 * The file itself, not the name it was loaded by (a
			 * link, maybe): in the build tree memreg/ sits beside
			 * libcann_hixl.so.  An installed face lives in the
			 * CANN tree and finds the plugins in @dir below.
			 */
			const char *lib = realpath(info.dli_fname, real) ?
					  real : info.dli_fname;
			const char *slash = strrchr(lib, '/');

			/* never relative to the current directory */
			if (lib[0] == '/') {
				snprintf(path, sizeof(path), "%.*smemreg/%s",
					 (int)(slash - lib + 1), lib, file);
				h = try_open(path, err, errlen);
			}
		}
		if (!h) {
			snprintf(path, sizeof(path), "%s/%s", dir, file);
			h = try_open(path, err, errlen);
		}
	}
	if (!h)
		return NULL;
	*(void **)&entry = dlsym(h, ADXL_PLUGIN_ENTRY);
	plugin = entry ? entry() : NULL;
	if (!plugin || !plugin->transport ||
	    strcmp(plugin->transport, transport)) {
		snprintf(err, errlen, "%s is not a %s plugin of this libmemreg (%s)",
			 file, transport, ADXL_PLUGIN_ENTRY);
		dlclose(h);
		return NULL;
	}
	return plugin;
}

const struct adxl_plugin *adxl__plugin_load(const char *env_var,
					    const char *file, const char *dir,
					    const char *transport, char *err,
					    size_t errlen)
{
	const struct adxl_plugin *plugin = NULL;
	size_t i;

	pthread_mutex_lock(&loaded_lock);
	for (i = 0; i < ADXL_TRANSPORT_MAX && loaded[i].file; i++)
		if (!strcmp(loaded[i].file, file))
			break;
	if (i == ADXL_TRANSPORT_MAX) {
		snprintf(err, errlen, "too many plugins");
	} else {
		if (!loaded[i].file) {
			loaded[i].file = file;
			loaded[i].plugin = load(env_var, file, dir, transport,
						loaded[i].err,
						sizeof(loaded[i].err));
		}
		plugin = loaded[i].plugin;
		snprintf(err, errlen, "%s", loaded[i].err);
	}
	pthread_mutex_unlock(&loaded_lock);
	return plugin;
}
