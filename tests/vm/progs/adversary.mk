# The hostile-user programs of tests/vm/cases/adversary.sh.
#   acl_fill   aclrtMalloc until refused (tests/vm/cases/devmem_pressure.sh)
PROGS	+= itest_adversary acl_fill
# this file is included before the Makefile's first rule: keep "all" the default
.DEFAULT_GOAL := all

$(OUT)/itest_adversary: $(OBJ)/itest_adversary.o $(OBJ)/memtest.o
	@mkdir -p $(OUT)
	$(CC) -o $@ $^

$(OBJ)/acl_fill.o: acl_fill.c $(wildcard $(TOP)/include/acl/*.h)
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) -I$(TOP)/include -c -o $@ $<

$(OUT)/acl_fill: $(OBJ)/acl_fill.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $< -L$(BUILD)/lib -lmemreg
