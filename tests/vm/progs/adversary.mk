# The hostile-user programs of tests/vm/cases/adversary.sh.
#   itest_adversary  the scenarios (exec chains, passed fds, stolen handles)
#   acl_fill         aclrtMalloc until refused (cases/devmem_pressure.sh)
PROGS	+= itest_adversary acl_fill
itest_adversary_OBJS	:= memtest.o
acl_fill_LIBS		:= $(MEMREG)
