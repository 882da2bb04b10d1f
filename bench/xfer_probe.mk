# bench/xfer_probe: one process's transfers against an SSE2 copy, size by
# size (issue 32); needs only the UAPI header.
BENCHES	+= xfer_probe

$(OUT)/xfer_probe: $(TOP)/bench/xfer_probe.c $(TOP)/bench/copy_sse2.h $(TOP)/uapi/linux/memreg.h
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -I$(TOP)/uapi -o $@ $<
