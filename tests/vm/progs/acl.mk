# ACL runtime test programs, linked against the shipped libmemreg.so
# (found in the guest through LD_LIBRARY_PATH=/memreg/build/lib).
#   itest_acl  cmocka: the runtime against the emulated devices
#   acl_hold   device memory left to process exit and kill -9
PROGS	+= itest_acl acl_hold
# Included before the Makefile's first rule: keep "all" the default.
.DEFAULT_GOAL := all
ACL_CFLAGS := -I$(TOP)/include -pthread

$(OBJ)/itest_acl.o $(OBJ)/acl_hold.o: $(OBJ)/%.o: %.c \
		$(wildcard $(TOP)/include/acl/*.h) $(TOP)/include/memreg/memreg.h
	@mkdir -p $(OBJ)
	$(CC) $(CFLAGS) $(ACL_CFLAGS) -c -o $@ $<

$(OUT)/itest_acl: $(OBJ)/itest_acl.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $< -pthread -L$(BUILD)/lib -lmemreg -lcmocka

$(OUT)/acl_hold: $(OBJ)/acl_hold.o $(BUILD)/lib/libmemreg.so
	@mkdir -p $(OUT)
	$(CC) -o $@ $< -L$(BUILD)/lib -lmemreg
