# mstx_bench: per-call cost of mstxMemRegionsRegister/Unregister.
#   mstx_bench       the plain header; attaches libmemreg through
#                    MSTX_INJECTION_PATH (VM), or runs with no tool (host)
#   mstx_bench_stub  libmemreg's objects built in, with a kernel stub:
#                    the library's share of the cost, anywhere
BENCHES	+= mstx_bench mstx_bench_stub

MSTX_BENCH_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -I$(TOP)/include \
	-I$(TOP)/uapi
MSTX_STUB_SRCS := $(sort $(wildcard $(TOP)/lib/core/*.c $(TOP)/lib/mstx/*.c)) \
	mstx_stub.c

$(OUT)/mstx_bench: mstx_bench.c $(wildcard $(TOP)/include/mstx/*.h $(TOP)/include/mstx/*/*.h)
	@mkdir -p $(OUT)
	$(CC) $(MSTX_BENCH_CFLAGS) -o $@ mstx_bench.c -ldl

# -rdynamic: the header finds InitInjectionMstx in the program itself
$(OUT)/mstx_bench_stub: mstx_bench.c $(MSTX_STUB_SRCS)
	@mkdir -p $(OUT)
	$(CC) $(MSTX_BENCH_CFLAGS) -D_GNU_SOURCE -DMEMREG_TESTING \
		-I$(TOP)/lib/core -I$(TOP)/lib/mstx -rdynamic -pthread -o $@ \
		mstx_bench.c $(MSTX_STUB_SRCS) -ldl
