#!/bin/sh
# Register once, pin once, charge once: slices of a registered pool share
# its pages (itest_share).  As root the default registration limit is
# raised for the run so that 1000 slices live at once; as uid 1000 the
# program makes as many as the default limit leaves room for.
. "$(dirname "$0")/tap.sh"

if is_root; then
	old=$(memreg -j stats | jq .max_regions)
	check "default registration limit raised for 1000 slices" \
		memreg limits set regions 1100
fi
check "slices share the pool's pages: no pin, no byte, copies, teardown" itest_share
if is_root; then
	check "default registration limit back to $old" \
		memreg limits set regions "$old"
fi
tap_done
