# reg_bench: register/deregister 4 KiB .. 4 GiB with memreg against
# io_uring_register_buffers and mlock (liburing-dev); needs the module, so
# it runs in the VM (scripts/bench, or tests/vm/run -- reg_bench).
BENCHES	+= reg_bench

$(OUT)/reg_bench: reg_bench.c bench_json.h $(TOP)/include/memreg/memreg.h
	@mkdir -p $(OUT)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ reg_bench.c -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lmemreg -luring
