# acl_bench: aclrtAllocatorGetByStream cost (anywhere) and aclrtMalloc/
# aclrtFree latency per policy (on the module's devices); bench/run-acl.
BENCHES	+= acl_bench

$(OUT)/acl_bench: acl_bench.c bench_json.h $(wildcard $(TOP)/include/acl/*.h)
	@mkdir -p $(OUT)
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ acl_bench.c -L$(BUILD)/lib \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lascendcl
