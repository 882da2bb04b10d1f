#!/bin/sh
# The memreg tool against what a process really registered: tables, JSON,
# the events group, permissions.
. "$(dirname "$0")/tap.sh"

h=/tmp/tool-hold.txt
start_hold $h -n 3 -s 8192 || { not_ok "memreg_hold"; tap_done; }
pid=$hold_pid

# JSON rows: one per registration, each with what was registered.  Handles
# are above 2^53, which jq rounds, so they are checked in the table below.
json=$(memreg -j region pid "$pid")
expect "region -j: 3 rows for the pid" 3 "$(echo "$json" | jq length)"
want=$(awk '$1 == "reg" { print $2, $6, $5 }' $h)
got=$(echo "$json" | jq -r '.[] | "\(.id) \(.addr) \(.len)"')
expect "region -j: ids, addresses and lengths" "$want" "$got"
expect "region -j: every row is host memory of memreg_hold, 2 pages" \
	"host memreg_hold 2 $pid" \
	"$(echo "$json" | jq -r '[.[] | "\(.type) \(.comm) \(.pinned_pages) \(.pid)"] | unique | .[]')"

# The table shows the exact handle (0x and 16 digits, leading zeros kept:
# memreg_hold prints none) and address in hex.
table=$(memreg region pid "$pid")
missing=
while read -r tag id handle addr len addr10; do
	[ "$tag" = reg ] || continue
	h16=${handle#0x}
	while [ ${#h16} -lt 16 ]; do h16=0$h16; done
	echo "$table" | grep -q "^$pid .* $id  *0x$h16  *host  *-  *$addr " ||
		missing="$missing $handle"
done <$h
expect "region table: each handle and address" "" "$missing"
expect "region table: every handle 0x and 16 digits" "" \
	"$(echo "$table" | awk 'NR > 1 && $4 !~ /^0x[0-9a-f]{16}$/')"

# The filter without its keyword, as "ip link show eth0".
# (AGE moves on between two listings: compared without it)
expect "region PID: the same as region pid PID" \
	"$(echo "$table" | awk '{ $NF = ""; print }')" \
	"$(memreg region "$pid" | awk '{ $NF = ""; print }')"
expect "proc PID: one row, the pid's" "$pid" \
	"$(memreg -j proc "$pid" | jq -r '.[].pid')"
expect "dev 0: one row, device 0" "0" "$(memreg -j dev 0 | jq -r '.[].device')"
out=$(memreg dev 99 2>&1)
rc=$?
expect "dev 99: no such device, exit 1" "1 memreg: no device 99" "$rc $out"

# Rows sorted by pid, then id, in JSON and in the table; a second holder
# started later, whatever ids the kernel gave it.
start_hold /tmp/tool-hold-sort.txt -n 2 -s 4096 && pid_s=$hold_pid
expect "region -j: rows sorted by pid, then id" "true" \
	"$(memreg -j region | jq '[.[] | [.pid, .id]] as $k | $k == ($k | sort)')"
check "region table: sorted by pid" sh -c \
	"memreg region | awk 'NR > 1 { print \$1 }' | sort -n -c"
expect "proc -j: rows sorted by pid" "true" \
	"$(memreg -j proc | jq '[.[] | .pid] as $k | $k == ($k | sort)')"
stop_hold "$pid_s"

proc=$(memreg -j proc pid "$pid")
expect "proc -j: counts and bytes" "1 3 24576 3 24576" \
	"$(echo "$proc" | jq -r '"\(length) \(.[0].regions) \(.[0].host_bytes) \(.[0].peak_regions) \(.[0].peak_host_bytes)"')"
expect "proc -j: uid and comm" "$(id -u) memreg_hold" \
	"$(echo "$proc" | jq -r '"\(.[0].uid) \(.[0].comm)"')"

check "stats -j: at least our registrations and bytes" \
	sh -c "memreg -j stats | jq -e '.regions >= 3 and .host_bytes >= 24576 and .procs >= 1 and (.instance_id | length) == 32'"
stop_hold "$pid"
# A pid that is no process: an error, the same for every command; a live
# process without a memreg context (init) is an empty table.
for cmd in "region pid" "proc pid" "heap pid" "limits show pid" region; do
	out=$(memreg -j $cmd "$pid" 2>/tmp/tool-err.txt)
	rc=$?
	expect "$cmd <exited pid>: exit 1, nothing on stdout, no such process" \
		"1  memreg: no memreg context for pid $pid: no such process" \
		"$rc $out $(cat /tmp/tool-err.txt)"
done
out=$(memreg -j region pid 1 2>&1)
rc=$?
expect "region pid 1 (no memreg context): [] and exit 0" "0 []" "$rc $out"

# Events: two registrations come and go, then the process.
mon=/tmp/tool-monitor.txt
start_monitor $mon || not_ok "monitor: subscribed"
start_hold /tmp/tool-hold2.txt -n 2 -s 4096 && pid2=$hold_pid
stop_hold "$pid2"
stop_monitor $mon "\"PROC_GONE\",\"pid\":$pid2,"
expect "monitor: REG_ADDED x2, REG_REMOVED x2, PROC_GONE for the pid" \
	"REG_ADDED REG_ADDED REG_REMOVED REG_REMOVED PROC_GONE" \
	"$(jq -r "select(.pid == $pid2) | .event" $mon | tr '\n' ' ' | sed 's/ $//')"
expect "monitor: events (some), none with an address or handle" "yes 0" \
	"$([ -s $mon ] && echo yes || echo no) $(jq -r 'select(.addr != null or .handle != null) | .event' $mon | wc -l)"

# dma-buf registrations: two ranges of memreg's own export of a device
# allocation, listed with their exporter and buffer, announced as events.
mon3=/tmp/tool-mon3.txt
start_monitor $mon3 || not_ok "monitor (dmabuf): subscribed"
if start_hold /tmp/tool-hold3.txt -n 2 -s 8192 -d; then
	pid3d=$hold_pid
	expect "region -j, dmabuf: type, exporter, buffer size, offsets, lengths" \
		"dmabuf memreg 16384 0 8192 false true
dmabuf memreg 16384 8192 8192 false true" \
		"$(memreg -j region pid "$pid3d" | jq -r 'sort_by(.addr) | .[] | "\(.type) \(.exporter) \(.dmabuf_size) \(.addr) \(.len) \(.revoked) \(.cpu_access)"')"
	expect "region table, dmabuf: TYPE dmabuf, the exporter in DEV" 2 \
		"$(memreg region pid "$pid3d" | grep -c ' dmabuf  *memreg ')"
	expect "proc -j, dmabuf: bytes counted as dma-buf bytes, not host" \
		"16384 0" \
		"$(memreg -j proc pid "$pid3d" | jq -r '.[0] | "\(.dmabuf_bytes) \(.host_bytes)"')"
	stop_hold "$pid3d"
	stop_monitor $mon3 "\"PROC_GONE\",\"pid\":$pid3d,"
	expect "monitor, dmabuf: REG_ADDED x2 of type dmabuf" "dmabuf dmabuf" \
		"$(jq -r "select(.pid == $pid3d and .event == \"REG_ADDED\") | .type" $mon3 | tr '\n' ' ' | sed 's/ $//')"
else
	not_ok "memreg_hold -d"
	stop_monitor $mon3 x
fi

# A host-wide default of 0 stops every process registering: refused (a
# usage error, before any capability check) unless --all says so.
max0=$(memreg -j stats | jq .max_regions)
for lim in "regions 0" "host 0" "dev 0" "regions 5 host 0"; do
	out=$(memreg limits set $lim 2>&1)
	rc=$?
	expect "limits set $lim: refused without --all, exit 2" 2 "$rc"
	check "limits set $lim: says to add --all" \
		contains "$out" "refuses every registration of every process on the host; add --all"
done
expect "limits set ... 0: default unchanged" "$max0" \
	"$(memreg -j stats | jq .max_regions)"

# Permissions.
if is_root; then
	check "limits set --all regions 0: accepted" \
		memreg limits set --all regions 0
	expect "limits set --all regions 0: the default is 0" 0 \
		"$(memreg -j stats | jq .max_regions)"
	memreg limits set regions "$max0" || not_ok "default restored"
	expect "default restored" "$max0" "$(memreg -j stats | jq .max_regions)"

	# a registration of another user: hidden from that user's view of
	# root's process, shown to root
	start_hold /tmp/tool-hold3.txt -n 1 -s 4096 && pid3=$hold_pid
	expect "another uid's process: no address or handle for a user" \
		"null null 4096" \
		"$(runas 1000 1000 memreg -j region pid "$pid3" | jq -r '.[0] | "\(.addr) \(.handle) \(.len)"')"
	check "CAP_SYS_ADMIN sees the address" \
		sh -c "memreg -j region pid $pid3 | jq -e '.[0].addr > 0'"
	stop_hold "$pid3"
else
	# a registration refused for RLIMIT_MEMLOCK: counted, announced, and
	# not in the peaks
	before=$(memreg -j stats | jq .refused_memlock)
	start_monitor /tmp/tool-mon2.txt || not_ok "monitor: subscribed"
	(ulimit -l 64 && start_hold /tmp/tool-hold4.txt -n 1 -s 4096 -x 1048576 &&
		echo "$hold_pid" >/tmp/tool-hold4.pid)
	pid4=$(cat /tmp/tool-hold4.pid)
	expect "over RLIMIT_MEMLOCK: ENOMEM" "extra ENOMEM" \
		"$(grep '^extra' /tmp/tool-hold4.txt)"
	expect "over RLIMIT_MEMLOCK: peaks are what was registered" "1 4096" \
		"$(memreg -j proc pid "$pid4" | jq -r '.[0] | "\(.peak_regions) \(.peak_host_bytes)"')"
	expect "over RLIMIT_MEMLOCK: refusal counted" $((before + 1)) \
		"$(memreg -j stats | jq .refused_memlock)"
	stop_hold "$pid4"
	stop_monitor /tmp/tool-mon2.txt "\"LIMIT_REFUSED\",\"pid\":$pid4,"
	expect "over RLIMIT_MEMLOCK: LIMIT_REFUSED event, reason memlock" \
		"memlock 1048576" \
		"$(jq -r "select(.event == \"LIMIT_REFUSED\" and .pid == $pid4) | \"\(.reason) \(.len)\"" /tmp/tool-mon2.txt)"

	out=$(memreg limits set regions 10 2>&1)
	rc=$?
	expect "limits set as a user: refused with exit 1" 1 "$rc"
	check "limits set as a user: says permission denied" \
		contains "$out" 'permission denied'
	expect "limits set as a user: defaults unchanged" 256 \
		"$(memreg -j stats | jq .max_regions)"
fi

tap_done
