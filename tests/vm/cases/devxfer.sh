#!/bin/sh
# The tool on device memory and transfers: `memreg dev` and the device
# column against what a process allocated through the ACL runtime, and the
# grant, import and transfer counters against what xfer_hold moved.
. "$(dirname "$0")/tap.sh"
TAP_SUITE=devxfer

before0=$(memreg -j dev | jq '.[] | select(.device == 0) | .used_bytes')
acl_hold wait 4 >/tmp/devx-acl.txt &
acl=$!
wait_for /tmp/devx-acl.txt '^ready' 300 || not_ok "acl_hold: ready"

json=$(memreg -j dev)
expect "dev -j: two devices" "0 1" "$(echo "$json" | jq -r '[.[].device] | join(" ")')"
# aclrtMalloc(4 MiB) is 4 MiB + 32 of padding: three 2 MiB chunks
expect "dev -j: the holder's usage on each device" "6291456 6291456" \
	"$(echo "$json" | jq -r "[.[].usage[]? | select(.pid == $acl) | .dev_alloc_bytes] | join(\" \")")"
expect "dev -j: used grew by it on device 0" "$((before0 + 6291456))" \
	"$(echo "$json" | jq '.[] | select(.device == 0) | .used_bytes')"
expect "dev -j: used is huge + normal" "true true" \
	"$(echo "$json" | jq -r '[.[] | .used_bytes == .huge_bytes + .normal_bytes] | join(" ")')"
table=$(memreg dev)
check "dev: the table names the holder" contains "$table" "^1 .* $acl/acl_hold 6.0MiB"
expect "dev dev 1: one row" 1 "$(memreg dev dev 1 | grep -c '^1 ')"
memreg dev dev 9 >/dev/null 2>/tmp/devx-err.txt
expect "dev dev 9: exit status" 1 "$?"
check "dev dev 9: says why" contains "$(cat /tmp/devx-err.txt)" 'no device 9'
expect "proc -j: per-device usage of the holder" "0:6291456 1:6291456" \
	"$(memreg -j proc pid "$acl" | jq -r '[.[0].dev_usage[] | "\(.device):\(.dev_alloc_bytes)"] | join(" ")')"
kill -9 "$acl"
wait "$acl" 2>/dev/null
expect "dev -j: the holder is gone after kill -9" "" \
	"$(memreg -j dev | jq -r ".[].usage[]? | select(.pid == $acl) | .pid")"
expect "dev -j: device 0 back to where it was" "$before0" \
	"$(memreg -j dev | jq '.[] | select(.device == 0) | .used_bytes')"

xfer_hold >/tmp/devx-x.txt &
x=$!
if wait_for /tmp/devx-x.txt '^ready' 300; then
	set -- $(cat /tmp/devx-x.txt)
	owner=$2 self=$3
	expect "region -j: the owner's registration has 1 grant, 1 import" "1 1" \
		"$(memreg -j region pid "$owner" | jq -r '.[0] | "\(.grants) \(.imports)"')"
	expect "proc -j: the importer's import and transfers" "1 3 1048576 1048576" \
		"$(memreg -j proc pid "$self" | jq -r '.[0] | "\(.imports) \(.xfer_descs) \(.xfer_read_bytes) \(.xfer_write_bytes)"')"
	check "proc: the table shows read/written" \
		contains "$(memreg proc pid "$self")" "^$self .* 1 *1.0MiB/1.0MiB"
else
	not_ok "xfer_hold: ready"
fi
stop_hold "$x"
expect "region -j: nothing left of the owner" "0" \
	"$(memreg -j region | jq "[.[] | select(.pid == ${owner:-0})] | length")"
tap_done
