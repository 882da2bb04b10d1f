# bench/pair_bench: make -f bench/pair.mk BUILD=<abs build dir> (from the
# project root, after `make all`); bench/run-pair does both and boots two VMs.
TOP	:= $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
BUILD	?= $(TOP)/build
CFLAGS	?= -O2 -g

$(BUILD)/bench/pair_bench: $(TOP)/bench/pair_bench.c $(TOP)/bench/bench_json.h \
		$(TOP)/include/adxl/adxl.h \
		$(BUILD)/lib/libcann_hixl.so
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -Wall -Wextra -Werror $(CFLAGS) -I$(TOP)/include \
		-I$(TOP)/uapi -o $@ $< -L$(BUILD)/lib -lcann_hixl -pthread
