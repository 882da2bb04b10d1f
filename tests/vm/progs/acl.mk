# ACL runtime test programs, linked against the shipped libascendcl.so and
# libmemreg.so, whose C API they also call (found in the guest through
# LD_LIBRARY_PATH=/memreg/build/lib).
#   itest_acl  cmocka: the runtime against the emulated devices
#   itest_aclipc  cmocka: aclrtIpcMem* between two processes
#   itest_aclvmm  cmocka: VMM calls, shareable handles between two processes
#   acl_hold   device memory left to process exit and kill -9
#   cg_probe   charges a cgroup, prints headroom and aclrtGetMemInfo
PROGS	+= itest_acl itest_aclipc itest_aclvmm acl_hold cg_probe
itest_acl_LIBS	:= $(ACL) $(MEMREG) -lcmocka
itest_aclipc_LIBS := $(ACL) $(MEMREG) -lcmocka
itest_aclvmm_LIBS := $(ACL) $(MEMREG) -lcmocka
acl_hold_LIBS	:= $(ACL) $(MEMREG)
cg_probe_LIBS	:= $(ACL) $(MEMREG)
