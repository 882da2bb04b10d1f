#!/bin/sh
# Per-process and default limits set over netlink, as an administrator
# would with the tool, and the refusals the kernel counts and announces.
. "$(dirname "$0")/tap.sh"

if ! is_root; then
	skip "limits set over netlink" "needs CAP_NET_ADMIN"
	tap_done
fi

before=$(memreg -j stats)
start_hold /tmp/lim-hold.txt -n 2 -s 4096 || not_ok "memreg_hold"
pid=$hold_pid
check "limits set pid: accepted" memreg limits set pid "$pid" regions 2 host 1M
expect "proc shows the per-process limits" "2 1048576 53687091200" \
	"$(memreg -j proc pid "$pid" | jq -r '.[0] | "\(.max_regions) \(.max_host_bytes) \(.max_dev_bytes)"')"
expect "other processes keep the defaults" 256 "$(memreg -j stats | jq .max_regions)"
stop_hold "$pid"

out=$(memreg limits set pid 999999 regions 1 2>&1)
expect "limits set for a pid without memreg: exit 1" 1 "$?"
check "... and says so" contains "$out" 'no memreg context'

out=$(memreg limits set 2>&1)
expect "limits set with no limit: usage error" 2 "$?"

# itest_limits sets its own limits through the tool and checks the errnos
start_monitor /tmp/lim-mon.txt || not_ok "monitor: subscribed"
check "per-process limits: EMFILE, EDQUOT and ENOSPC (device memory allocated)" itest_limits
stop_monitor /tmp/lim-mon.txt '"PROC_GONE".*"comm":"itest_limits"'
expect "LIMIT_REFUSED events with their reasons" "regions host_bytes dev_bytes" \
	"$(jq -r 'select(.event == "LIMIT_REFUSED" and .comm == "itest_limits") | .reason' /tmp/lim-mon.txt | tr '\n' ' ' | sed 's/ $//')"

after=$(memreg -j stats)
expect "refusals counted by reason (regions, host bytes, device bytes)" "1 1 1" \
	"$(( $(echo "$after" | jq .refused_regions) - $(echo "$before" | jq .refused_regions) )) $(( $(echo "$after" | jq .refused_host_bytes) - $(echo "$before" | jq .refused_host_bytes) )) $(( $(echo "$after" | jq .refused_dev_bytes) - $(echo "$before" | jq .refused_dev_bytes) ))"

check "defaults: set" memreg limits set regions 300 host 2G dev 3G
expect "defaults: stats shows them" "300 2147483648 3221225472" \
	"$(memreg -j stats | jq -r '"\(.max_regions) \(.max_host_bytes) \(.max_dev_bytes)"')"
expect "defaults: the module parameter follows" 300 \
	"$(cat /sys/module/memreg/parameters/max_regions)"
memreg limits set regions 256 host 20G dev 50G
tap_done
