# The structured fuzzer of tests/vm/cases/fuzz.sh: memreg_fuzz.c (options,
# processes, threads, the table of calls) and one file per concern.
PROGS	+= memreg_fuzz
memreg_fuzz_OBJS	:= fuzz_ioctl.o fuzz_netlink.o fuzz_mm.o fuzz_dmabuf.o
