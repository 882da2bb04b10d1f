# xfer_bench: one memreg_transfer() on one thread against several threads
# of the caller; needs the module, so it runs in the VM (scripts/bench, or
# tests/vm/run -- xfer_bench).
BENCHES	+= xfer_bench

$(OUT)/xfer_bench: xfer_bench.c bench_json.h copy_sse2.h $(TOP)/include/memreg/memreg.h \
		$(TOP)/include/memreg/transfer.h
	@mkdir -p $(OUT)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ xfer_bench.c -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lmemreg -pthread
