# mr_bench: `memreg -j region` against `rdma -j res show mr` over the
# same number of objects (an rxe device's MRs), in one VM boot; needs
# the module, rdma_rxe and libibverbs (bench/run-mr).  Built where
# libibverbs-dev is installed.
ifeq ($(shell pkg-config --exists libibverbs && echo yes),yes)
BENCHES	+= mr_bench

$(OUT)/mr_bench: mr_bench.c bench_json.h bench_holders.h $(TOP)/include/memreg/memreg.h \
		$(TOP)/uapi/linux/memreg.h
	@mkdir -p $(OUT)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ mr_bench.c -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lmemreg \
		$(shell pkg-config --libs libibverbs)
endif
