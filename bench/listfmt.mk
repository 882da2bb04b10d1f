# listfmt_bench: the tool's region printers alone, natively, no module: N
# hand-made REGION_GET messages through the real printer code, JSON and
# table, ns per row.  Built from the tool's own sources (sources.mk).
BENCHES	+= listfmt_bench

LISTFMT_TOOL	:= $(TOP)/tools/memreg
include $(LISTFMT_TOOL)/sources.mk
LISTFMT_SRCS	:= $(addprefix $(LISTFMT_TOOL)/,$(MEMREG_TOOL_LIB_SRCS))
LISTFMT_NL	:= $(shell pkg-config --cflags --libs libnl-genl-3.0)

$(OUT)/listfmt_bench: listfmt_bench.c bench_json.h $(LISTFMT_SRCS) \
		$(wildcard $(LISTFMT_TOOL)/*.h)
	@mkdir -p $(OUT)
	$(CC) -std=gnu11 -O2 -g -D_GNU_SOURCE -Wall -Wextra -Werror \
		-I$(TOP)/uapi -I$(LISTFMT_TOOL) -o $@ listfmt_bench.c \
		$(LISTFMT_SRCS) $(LISTFMT_NL)
