// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Loading a transport plugin (adxl-ucx.so, adxl-rdma.so): the file named
 * by an environment variable if set; else memreg/FILE beside the
 * libmemreg that runs (the build tree or LIBDIR alike); else in the LIBDIR
 * this library was built for (a static libmemreg).  Its one exported
 * function returns its table of operations, whose first member is the
 * ABI it was built for.  A plugin is never closed: UCX's libraries do not
 * support being unloaded, and libibverbs keeps its providers loaded too.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adxl_int.h"

static void *try_open(const char *path, char *err, size_t errlen)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h && !err[0])
		snprintf(err, errlen, "%s", dlerror());
	return h;
}

const void *adxl__plugin_load(const char *env_var, const char *file,
			      const char *dir, const char *sym,
			      unsigned int abi, char *err, size_t errlen)
{
	const void *(*get)(void);
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
			 * The file itself, not the name it was loaded by: the
			 * CANN tree's lib64/libascendcl.so and friends are
			 * links to it, and memreg/ sits beside the real one.
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
	get = (const void *(*)(void))dlsym(h, sym);
	if (!get || !get() || *(const unsigned int *)get() != abi) {
		snprintf(err, errlen, "%s is not a plugin of this libmemreg (ABI %u)",
			 file, abi);
		dlclose(h);
		return NULL;
	}
	return get();
}
