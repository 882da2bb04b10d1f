# ACL runtime test programs, linked against the shipped libmemreg.so
# (found in the guest through LD_LIBRARY_PATH=/memreg/build/lib).
#   itest_acl  cmocka: the runtime against the emulated devices
#   itest_aclipc  cmocka: aclrtIpcMem* between two processes
#   itest_aclvmm  cmocka: VMM calls, shareable handles between two processes
#   acl_hold   device memory left to process exit and kill -9
PROGS	+= itest_acl itest_aclipc itest_aclvmm acl_hold
itest_acl_LIBS	:= $(MEMREG) -lcmocka
itest_aclipc_LIBS := $(MEMREG) -lcmocka
itest_aclvmm_LIBS := $(MEMREG) -lcmocka
acl_hold_LIBS	:= $(MEMREG)
