# The hostile-user programs of tests/vm/cases/adversary.sh.
#   itest_adversary  the scenarios (exec chains, passed fds, stolen handles,
#                    ADXL: the hello race, a handed-over socket, idle crowds)
#   acl_fill         aclrtMalloc until refused (cases/devmem_pressure.sh)
PROGS	+= itest_adversary acl_fill
itest_adversary_OBJS	:= memtest.o adxl_testlib.o
itest_adversary_LIBS	:= $(HIXL) $(MEMREG)
acl_fill_LIBS		:= $(ACL)
