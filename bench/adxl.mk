# bench/adxl_bench: make -f bench/adxl.mk BUILD=<abs build dir> (from the
# project root, after `make all`); bench/run-adxl does both and boots a VM.
TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BUILD	?= $(TOP)/build
CFLAGS	?= -O2 -g

$(BUILD)/bench/adxl_bench: $(TOP)/bench/adxl_bench.c $(TOP)/bench/bench_json.h $(TOP)/bench/copy_sse2.h \
		$(TOP)/include/adxl/adxl.h \
		$(BUILD)/lib/libcann_hixl.so
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror $(CFLAGS) -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ $< -L$(BUILD)/lib -lcann_hixl -pthread
