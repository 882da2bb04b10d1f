# The tool's sources, for its own Makefile and for the unit tests, which
# link everything except main() into the test program.
MEMREG_TOOL_LIB_SRCS := args.c attrs.c comm.c dispatch.c fmt.c json.c obuf.c \
	limits.c listing.c monitor.c nl.c nlerr.c out.c proc.c region.c \
	stats.c heap.c dev.c cgroup.c headroom.c
MEMREG_TOOL_MAIN_SRC := memreg.c
