/*
 * What frameworks do with a CANN toolkit: dlopen() its libraries by path
 * under $ASCEND_HOME_PATH/lib64 and look the functions up by name, with
 * no header and no link-time dependency.  Prints "ok ..." or "FAIL ..."
 * per check and exits with the number of failures.
 *
 *   dlopen_check            the ACL runtime and mstx libraries
 *   dlopen_check mstx-only  libms_tools_ext.so alone, RTLD_LOCAL, and one
 *                           call (the check runs it under LD_DEBUG to see
 *                           where the mstx tool entry is found)
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failed;

static void check(int ok, const char *what, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok" : "FAIL", what, detail ? ": " : "",
	       detail ? detail : "");
	failed += !ok;
}

static void *open_lib(const char *home, const char *name)
{
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/lib64/%s", home, name);
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	check(h != NULL, path, h ? NULL : dlerror());
	return h;
}

/* Every name must resolve; returns how many did not. */
static int lookup(void *h, const char *lib, const char *const *names)
{
	char what[256];
	int missing = 0;

	for (; *names; names++) {
		if (!dlsym(h, *names)) {
			printf("#   %s: %s missing\n", lib, *names);
			missing++;
		}
	}
	snprintf(what, sizeof(what), "%s resolves every name", lib);
	check(!missing, what, NULL);
	return missing;
}

static const char *const acl_names[] = {
	"aclInit", "aclFinalize", "aclrtSetDevice", "aclrtResetDevice",
	"aclrtGetDeviceCount", "aclrtCreateContext", "aclrtDestroyContext",
	"aclrtCreateStream", "aclrtDestroyStream", "aclrtSynchronizeStream",
	"aclrtMalloc", "aclrtFree", "aclrtMallocHost", "aclrtFreeHost",
	"aclrtMemcpy", "aclrtMemcpyAsync", "aclrtMemset", "aclrtGetMemInfo",
	"aclrtAllocatorCreateDesc", "aclrtAllocatorDestroyDesc",
	"aclrtAllocatorSetObjToDesc", "aclrtAllocatorSetAllocFuncToDesc",
	"aclrtAllocatorSetFreeFuncToDesc",
	"aclrtAllocatorSetAllocAdviseFuncToDesc",
	"aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
	"aclrtAllocatorRegister", "aclrtAllocatorGetByStream",
	"aclrtAllocatorUnregister", NULL
};

/* What torch_npu resolves from libms_tools_ext.so, and mstxGetToolId. */
static const char *const mstx_names[] = {
	"mstxMarkA", "mstxRangeStartA", "mstxRangeEnd", "mstxDomainCreateA",
	"mstxDomainDestroy", "mstxDomainMarkA", "mstxDomainRangeStartA",
	"mstxDomainRangeEnd", "mstxMemHeapRegister", "mstxMemHeapUnregister",
	"mstxMemRegionsRegister", "mstxMemRegionsUnregister", "mstxGetToolId",
	NULL
};

typedef int (*init_fn)(const char *);
typedef int (*set_device_fn)(int32_t);
typedef int (*finalize_fn)(void);
typedef void (*tool_id_fn)(uint64_t *);
typedef void *(*domain_create_fn)(const char *);

int main(int argc, char **argv)
{
	const char *home = getenv("ASCEND_HOME_PATH");
	void *acl, *acl_rt, *mstx, *mstx_by_name;
	char detail[64];

	if (!home) {
		check(0, "ASCEND_HOME_PATH set", NULL);
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "mstx-only")) {
		tool_id_fn tool_id;
		uint64_t id = 1;

		mstx = open_lib(home, "libms_tools_ext.so");
		tool_id = mstx ? (tool_id_fn)dlsym(mstx, "mstxGetToolId") : NULL;
		check(tool_id != NULL, "mstxGetToolId by dlsym", NULL);
		if (tool_id)
			tool_id(&id);
		return failed;
	}
	acl = open_lib(home, "libascendcl.so");
	acl_rt = open_lib(home, "libacl_rt.so");
	mstx = open_lib(home, "libms_tools_ext.so");
	if (!acl || !acl_rt || !mstx)
		return failed;
	check(acl == acl_rt, "libascendcl.so and libacl_rt.so are one runtime", NULL);

	if (!lookup(acl, "libascendcl.so", acl_names)) {
		init_fn init = (init_fn)dlsym(acl, "aclInit");
		set_device_fn set_device = (set_device_fn)dlsym(acl, "aclrtSetDevice");
		finalize_fn finalize = (finalize_fn)dlsym(acl, "aclFinalize");
		int ret = init(NULL);

		snprintf(detail, sizeof(detail), "%d", ret);
		check(ret == 0, "aclInit by dlsym", detail);
		ret = set_device(0);
		snprintf(detail, sizeof(detail), "%d", ret);
		check(ret == 207004, "aclrtSetDevice by dlsym without the module: ACL_ERROR_RT_NO_DEVICE", detail);
		ret = finalize();
		snprintf(detail, sizeof(detail), "%d", ret);
		check(ret == 0, "aclFinalize by dlsym", detail);
	}

	if (!lookup(mstx, "libms_tools_ext.so", mstx_names)) {
		tool_id_fn tool_id = (tool_id_fn)dlsym(mstx, "mstxGetToolId");
		domain_create_fn create = (domain_create_fn)dlsym(mstx, "mstxDomainCreateA");
		uint64_t id = 1;
		void *domain = create("dlopen");

		tool_id(&id);
		snprintf(detail, sizeof(detail), "tool %llu, domain %p",
			 (unsigned long long)id, domain);
		check(id == 0 && !domain, "mstx by dlsym: no tool without the module", detail);
	}

	/* as ctypes.CDLL("libms_tools_ext.so") does: by name, LD_LIBRARY_PATH */
	mstx_by_name = dlopen("libms_tools_ext.so", RTLD_NOW | RTLD_LOCAL);
	check(mstx_by_name == mstx, "dlopen(\"libms_tools_ext.so\") finds the same library",
	      mstx_by_name ? NULL : dlerror());
	return failed;
}
