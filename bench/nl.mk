# nl_bench: `memreg -j region` over 100,000 registrations of 32 processes,
# against an empty listing and a cat of the same bytes; needs the module
# (VM: scripts/bench, or tests/vm/run -- nl_bench after raising the limit).
BENCHES	+= nl_bench

$(OUT)/nl_bench: nl_bench.c bench_json.h bench_holders.h $(TOP)/include/memreg/memreg.h
	@mkdir -p $(OUT)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ nl_bench.c -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lmemreg
