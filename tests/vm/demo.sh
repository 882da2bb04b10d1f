#!/bin/sh
# not in the suite: make demo runs it (scripts/demo)
# make demo, inside the VM.  `memreg monitor` runs in the background and its
# events are shown as they arrive ("monitor |"), while demo_app (progs/
# demo_app.c), driven one command at a time, registers host memory,
# registers device memory, copies to and from a second process, is refused
# by a limit and exits; memreg snapshots come between the steps and a
# summary at the end.  scripts/demo shows only what this prints, from the
# line MEMREG-DEMO-BEGIN on.
. "$(dirname "$0")/tap.sh"

tmp=/tmp/demo
mkdir -p $tmp
mon=$tmp/monitor.txt
steps=6
step_n=0

uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

fail() {
	echo "demo: FAILED: $*"
	[ -n "${mon_pid:-}" ] && kill "$mon_pid" 2>/dev/null
	exit 1
}

# step TEXT: the one line that says what comes next, after a pause for
# whoever watches (DEMO_PAUSE seconds, from scripts/demo) to read the last.
step() {
	step_n=$((step_n + 1))
	[ $step_n = 1 ] || sleep "${DEMO_PAUSE:-0}"
	echo
	echo "[$step_n/$steps] $*"
}

# show CMD...: a snapshot with the tool, as a user would type it.
show() {
	echo "\$ $*"
	"$@" 2>&1
}

note() { echo "        $*"; }

# mon_show PATTERN [COUNT]: the monitor's lines not shown yet, once COUNT
# lines (1) match PATTERN (events come over netlink a moment after the call
# that caused them).  The handle, the address and the age are left out:
# the tables show them.
mon_seen=0
mon_show() {
	mon_try=0
	until [ "$(grep -c -- "$1" "$mon")" -ge "${2:-1}" ]; do
		mon_try=$((mon_try + 1))
		if [ $mon_try -gt 50 ]; then
			echo "demo: no event matching '$1' after 5 s"
			break
		fi
		sleep 0.1
	done
	mon_n=$(wc -l <"$mon")
	[ "$mon_n" -gt "$mon_seen" ] || return 0
	sed -n "$((mon_seen + 1)),${mon_n}p" "$mon" |
		sed -e 's/ handle [^ ]*//' -e 's/ addr [^ ]*//' \
		    -e 's/ age [^ ]*//' -e 's/^/monitor | /'
	mon_seen=$mon_n
}

# A canary registration's events prove that the monitor is subscribed
# (the subscription races with the first event); they are not shown.
start_monitor() {
	memreg monitor >"$mon" 2>&1 &
	mon_pid=$!
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		memreg_hold -n 1 -s 4096 >$tmp/canary.txt &
		canary=$!
		wait_for $tmp/canary.txt '^ready' 50
		stop_hold "$canary"
		if wait_for "$mon" "^PROC_GONE pid $canary " 20; then
			mon_seen=$(wc -l <"$mon")
			return 0
		fi
	done
	return 1
}

# The kernel's pin counters, exact (the per-cpu deltas folded in first):
# nr_foll_pin_acquired in $acq, nr_foll_pin_released in $rel.
pins() {
	echo 1 >/proc/sys/vm/stat_refresh
	acq=$(awk '$1 == "nr_foll_pin_acquired" { print $2 }' /proc/vmstat)
	rel=$(awk '$1 == "nr_foll_pin_released" { print $2 }' /proc/vmstat)
}

# Two driven processes: commands go in on a fifo, "done ..." comes back on
# another (their fd 3) when the command has finished and said its lines.
# start_proc NAME IN_FD ACK_FD: its pid in $proc_pid.
start_proc() {
	mkfifo "$tmp/$1.in" "$tmp/$1.ack"
	# the other process's fifos stay out of this one
	demo_app "$1" <"$tmp/$1.in" 3>"$tmp/$1.ack" 4>&- 5>&- 6>&- 7>&- &
	proc_pid=$!
	eval "exec $2>$tmp/$1.in $3<$tmp/$1.ack"
}

# ask NAME IN_FD ACK_FD COMMAND: its answer in $answer.
ask() {
	echo "$4" >&"$2" || fail "$1 is gone"
	read -r answer <&"$3" || fail "$1 did not answer '$4'"
	case $answer in
	*error*) fail "$1: $4" ;;
	esac
}
app() { ask app 4 5 "$*"; }
peer() { ask peer 6 7 "$*"; }

# field KEY: KEY=VALUE of the last answer.
field() { printf '%s\n' "$answer" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

vmpin_kb() { awk '/^VmPin:/ { print $2 }' "/proc/$1/status"; }

echo MEMREG-DEMO-BEGIN
t0=$(uptime_cs)
echo "memreg demo on Linux $(uname -r) in qemu: memreg.ko loaded, /dev/memreg ready"
start_monitor || fail "memreg monitor did not start"
echo "monitor | \`memreg monitor\` runs in the background: its events appear here as they come"
pins
acquired0=$acq
released0=$rel

step "app registers host memory: seven 1 MiB ranges, each backed differently"
start_proc app 4 5
app_pid=$proc_pid
read -r answer <&5 || fail "app did not start"
app=$(field pid)
note "THP is 'always' here. app maps two 4 MiB buffers on 2 MiB boundaries,"
note "one with THP off for its second half (MADV_NOHUGEPAGE), and a 3 MiB one"
note "off a boundary; the folios are what /proc/self/pagemap and"
note "/proc/kpageflags show under each range:"
app thp
thp_folios=$(field folios)
mon_show "REG_ADDED pid $app " 7
show memreg region pid "$app"
note "Why identical 1 MiB regions show PINNED $thp_folios:"
note "PINNED counts folios, not pages. A 2 MiB THP is one folio however many"
note "of its 512 pages a region covers; a 4 KiB page is one. A buffer off a"
note "2 MiB boundary gets a THP only for the aligned 2 MiB inside it: 167"
note "pages + 1 THP, inside the THP, 1 THP + 89 pages (256 each if no aligned"
note "2 MiB fits in it).  VmPin counts bytes whatever backs them: app's is"
note "$(vmpin_kb "$app") kB, 7 MiB."

step "app allocates 4 MiB on emulated NPU 0, maps it and registers it"
app dev 4194304
dev_bytes=$(field bytes)
mon_show "type device"
show memreg dev
note "Device memory is the module's own pages: a registration holds them"
note "without pinning (PINNED 0); app's VmPin is still $(vmpin_kb "$app") kB."

step "peer grants 1 MiB; app imports it, READs it and WRITEs it back"
start_proc peer 6 7
peer_pid=$proc_pid
read -r answer <&7 || fail "peer did not start"
peer=$(field pid)
peer grant $tmp/token
app import $tmp/token
app xfer
xfer_bytes=$(field bytes)
peer check
# app's fifth host registration is the one it copies through
mon_show "REG_ADDED pid $app .*type host" 8
show memreg region pid "$peer"
show memreg proc
peak=$(memreg -j stats)
note "peer's region: 1 grant, imported once.  app: 1 import, 1 MiB read and"
note "1 MiB written (XFER READ/WRITE), copied by the kernel straight between"
note "the two processes' pinned pages."
echo "peer exits: its registration, grant and pins go with it"
peer exit
wait "$peer_pid"
exec 6>&- 7<&-
mon_show "PROC_GONE pid $peer "

step "a limit: the administrator caps app's host memory at 10 MiB"
show memreg limits set pid "$app" host 10M
app register 4194304
refused_errno=$(field errno)
[ "$refused_errno" = EDQUOT ] || fail "4 MiB over the limit: $refused_errno, not EDQUOT"
mon_show "LIMIT_REFUSED pid $app "
echo "\$ memreg stats | grep refused"
memreg stats | grep refused
refused=$(memreg -j stats | sed -n 's/.*"refused_host_bytes":\([0-9]*\).*/\1/p')

step "app exits without unregistering: the module returns its pins"
app status
app_vmpin=$(vmpin_kb "$app")
pins
note "before: nr_foll_pin_acquired $acq, _released $rel: $((acq - rel)) held (app's VmPin / 4 KiB)"
app exit
wait "$app_pid"
exec 4>&- 5<&-
mon_show "PROC_GONE pid $app "
pins
pins_taken=$((acq - acquired0))
pins_returned=$((rel - released0))
pins_held=$((acq - rel))
pins_op="=="
[ "$pins_held" = 0 ] || pins_op="!="
note "after:  nr_foll_pin_acquired $acq $pins_op nr_foll_pin_released $rel: $pins_held held"
show memreg region pid "$app"
show memreg region
note "(no rows: nothing is registered any more)"
show memreg dev

step "summary"
t1=$(uptime_cs)
kill "$mon_pid"
wait "$mon_pid" 2>/dev/null
events() { grep -c "^$1 pid \($app\|$peer\) " "$mon"; }
json() { printf '%s\n' "$peak" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
printf '  %-16s %s\n' \
	"registered" "$(json regions) regions at the peak: $(($(json host_bytes) >> 20)) MiB host, $(($(json dev_bytes) >> 20)) MiB device" \
	"PINNED" "$thp_folios for 7 x 1 MiB (folios: a THP counts once)" \
	"pinned pages" "$pins_taken pins of 4 KiB pages taken (app's VmPin $app_vmpin kB at exit)" \
	"device memory" "$((dev_bytes >> 20)) MiB on NPU 0, registered and freed at exit" \
	"transfers" "$((xfer_bytes >> 20)) MiB copied between app and peer, data checked" \
	"refusals" "$refused: $refused_errno for 4 MiB over app's 10 MiB host limit" \
	"pins returned" "$pins_returned of $pins_taken: nr_foll_pin_acquired $pins_op _released" \
	"monitor events" "$(events REG_ADDED) REG_ADDED, $(events REG_REMOVED) REG_REMOVED, $(events LIMIT_REFUSED) LIMIT_REFUSED, $(events PROC_GONE) PROC_GONE" \
	"time" "$(((t1 - t0) / 100)).$(((t1 - t0) % 100 / 10)) s in the VM, with ${DEMO_PAUSE:-0} s pauses between steps"
[ "$pins_held" = 0 ] || fail "$pins_held pins still held"
