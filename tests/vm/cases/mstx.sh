#!/bin/sh
# mstx: programs built against include/mstx report heaps and regions to
# libmemreg, which batches them to the module; `memreg heap` and the
# events show what the module made of them.
. "$(dirname "$0")/tap.sh"

lib=${LD_LIBRARY_PATH%%:*}/libmemreg.so

# start_bg FILE CMD...: run CMD in the background until it prints
# "ready"; its pid is in $bg_pid.
start_bg() {
	bg_file=$1
	shift
	"$@" >"$bg_file" 2>&1 &
	bg_pid=$!
	bg_n=0
	until grep -q '^ready' "$bg_file" 2>/dev/null; do
		bg_n=$((bg_n + 1))
		if [ $bg_n -gt 3000 ] || ! kill -0 "$bg_pid" 2>/dev/null; then
			echo "# $* did not get ready:"
			sed 's/^/#   /' "$bg_file"
			kill -9 "$bg_pid" 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
}

# --- the plain headers: no tool, then a tool by MSTX_INJECTION_PATH
expect "plain headers, no tool: every call is a no-op" notool "$(mstx_plain)"
expect "plain headers, MSTX_INJECTION_PATH=libmemreg.so: attached" \
	"tool 0x6d72" "$(MSTX_INJECTION_PATH=$lib mstx_plain)"
expect "plain headers, bad MSTX_INJECTION_PATH: no tool" notool \
	"$(MSTX_INJECTION_PATH=/nonexistent.so mstx_plain)"

# --- 1,000,000 calls over 16 heaps from 4 threads (200,000 on the debug
# kernel: the same batches, a fifth as many)
calls=1000000
is_debug_kernel && calls=200000
s=/tmp/mstx-stress.txt
if start_bg $s mstx_stress -t 4 -H 16 -n $calls; then
	pid=$bg_pid
	grep '^calls' $s | sed 's/^/# /'
	# the library flushes every 40 ms: 150 ms is enough, and the bound
	sleep 0.15
	json=$(memreg -j heap pid "$pid")
	expect "stress: the program made $calls calls" $calls \
		"$(awk '$1 == "calls" { print $2 }' $s)"
	expect "stress: 16 heaps, no region outside them" 16 \
		"$(echo "$json" | jq length)"
	want=$(awk '$1 == "heap" { print $2, $3, $4 }' $s | sort)
	got=$(echo "$json" | jq -r '.[] | "\(.addr) \(.regions) \(.region_bytes)"' | sort)
	expect "stress: live regions and bytes per heap = the program's count" \
		"$want" "$got"
	expect "stress: no violation" 0 \
		"$(echo "$json" | jq '[.[] | .out_of_heap + .unknown + .duplicate + .dropped + .refused] | add')"
	expect "stress: peaks at least the live figures, domain and devices" \
		"true" "$(echo "$json" | jq '[.[] | .peak_regions >= .regions and .peak_bytes >= .region_bytes and .domain == "mstx_stress" and .device < 2] | all')"
	check "stress: table shows the 16 heaps" \
		sh -c "memreg heap pid $pid | grep -c ' mstx_stress ' | grep -qx 16"
	stop_hold "$pid"
	expect "stress: exit clears every heap" 0 \
		"$(memreg -j heap | jq "[.[] | select(.pid == $pid)] | length")"
else
	not_ok "stress: mstx_stress ran"
fi

# --- unregisters right after registers: folded pairs, as the calls lead
f=/tmp/mstx-fold.txt
if start_bg $f mstx_fold; then
	pid=$bg_pid
	sleep 0.15
	json=$(memreg -j heap pid "$pid")
	for name in pairs live dup oob peak; do
		row=$(awk -v n=$name '$1 == "heap" && $2 == n { print $3 }' $f)
		expect "fold: $name: regions bytes peaks out_of_heap unknown duplicate" \
			"$(awk -v n=$name '$1 == "heap" && $2 == n { print $4, $5, $6, $7, $8, $9, $10 }' $f)" \
			"$(echo "$json" | jq -r ".[] | select(.addr == $row) | \"\(.regions) \(.region_bytes) \(.peak_regions) \(.peak_bytes) \(.out_of_heap) \(.unknown) \(.duplicate)\"")"
	done
	expect "fold: outside every heap: nothing live, nothing counted" \
		"" "$(echo "$json" | jq -r '.[] | select(.heap == 0) | "\(.regions) \(.unknown)"')"
	stop_hold "$pid"
else
	not_ok "fold: mstx_fold ran"
fi

# --- a caller written like torch_npu, attached by MSTX_INJECTION_PATH
mon=/tmp/mstx-monitor.txt
start_monitor $mon || not_ok "monitor: subscribed"
t=/tmp/mstx-torch.txt
if start_bg $t env MSTX_INJECTION_PATH="$lib" mstx_torch; then
	pid=$bg_pid
	expect "torch: no write through an untrusted output array" \
		"canary intact" "$(grep '^canary' $t)"
	expect "torch: handles for a well-formed batch" "handles ok" \
		"$(grep '^handles' $t)"
	sleep 0.15
	json=$(memreg -j heap pid "$pid")
	pool=$(awk '$1 == "heap1" { print $2 }' $t)
	expect "torch: the pool holds 3 regions, 8704 bytes, 1 unknown, 1 duplicate" \
		"3 8704 1 1 0" \
		"$(echo "$json" | jq -r ".[] | select(.addr == $pool) | \"\(.regions) \(.region_bytes) \(.unknown) \(.duplicate) \(.out_of_heap)\"")"
	expect "torch: outside every heap: 1 region kept, counted; 4 dropped with their heap" \
		"1 4096 1 4" \
		"$(echo "$json" | jq -r '.[] | select(.heap == 0) | "\(.regions) \(.region_bytes) \(.out_of_heap) \(.dropped)"')"
	expect "torch: the unregistered heap is gone" 2 "$(echo "$json" | jq length)"
	check "torch: table names the none row" \
		sh -c "memreg heap pid $pid | grep -q '^$pid .* none '"
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	stop_monitor $mon "\"PROC_GONE\",\"pid\":$pid,"
	expect "torch: kill -9 clears every heap" 0 \
		"$(memreg -j heap | jq "[.[] | select(.pid == $pid)] | length")"
	ev=$(jq -r "select(.event == \"HEAP\" and .pid == $pid) | \"\(.kind) \(.count // 0)\"" $mon | sort | tr '\n' ',')
	expect "torch: events: heaps added/removed, each violation with its count" \
		"added 0,added 0,dropped 4,duplicate 1,out_of_heap 1,removed 0,unknown 1," "$ev"
	expect "torch: events carry no address" 0 \
		"$(jq -r 'select(.event == "HEAP" and .addr != null)' $mon | wc -l)"
else
	not_ok "torch: mstx_torch ran"
	kill "$monitor_pid" 2>/dev/null
fi

tap_done
