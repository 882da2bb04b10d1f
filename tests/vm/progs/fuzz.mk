# The structured fuzzer of tests/vm/cases/fuzz.sh: memreg_fuzz.c (options,
# processes, threads, the table of calls) and one file per concern.
PROGS	+= memreg_fuzz
# this file is included before the Makefile's first rule: keep "all" the default
.DEFAULT_GOAL := all
FUZZ_OBJS := $(addprefix $(OBJ)/,memreg_fuzz.o fuzz_ioctl.o fuzz_netlink.o fuzz_mm.o)

$(FUZZ_OBJS): fuzz.h

$(OUT)/memreg_fuzz: $(FUZZ_OBJS)
	@mkdir -p $(OUT)
	$(CC) -o $@ $^ -lpthread
