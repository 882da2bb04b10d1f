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
	for try in 1 2 3 4 5 6 7 8 9 10; do
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

# The kernel's pin counters, exact: nr_foll_pin_acquired and _released.
pins() {
	echo 1 >/proc/sys/vm/stat_refresh
	awk '$1 == "nr_foll_pin_acquired" { a = $2 }
	     $1 == "nr_foll_pin_released" { r = $2 }
	     END { print a, r }' /proc/vmstat
}

# Two driven processes: commands go in on a fifo, "done ..." comes back on
# another (their fd 3) when the command has finished and said its lines.
# start_proc NAME IN_FD ACK_FD
start_proc() {
	mkfifo $tmp/$1.in $tmp/$1.ack
	# the other process's fifos stay out of this one
	demo_app "$1" <$tmp/$1.in 3>$tmp/$1.ack 4>&- 5>&- 6>&- 7>&- &
	eval "${1}_pid=\$!"
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
field() { printf '%s\n' $answer | sed -n "s/^$1=//p"; }

vmpin_kb() { awk '/^VmPin:/ { print $2 }' "/proc/$1/status"; }

echo MEMREG-DEMO-BEGIN
t0=$(uptime_cs)
echo "memreg demo on Linux $(uname -r) in qemu: memreg.ko loaded, /dev/memreg is $(ls -l /dev/memreg | cut -c1-10)"
start_monitor || fail "memreg monitor did not start"
echo "monitor | \`memreg monitor\` runs in the background: its events appear here as they come"
set -- $(pins)
pins0=$1

step "app registers host memory: four 1 MiB ranges, each backed differently"
start_proc app 4 5
read -r answer <&5 || fail "app did not start"
app=$(field pid)
note "THP is 'always' here; app maps two 4 MiB buffers on 2 MiB boundaries"
note "and turns THP off for the second half of one (MADV_NOHUGEPAGE)."
note "The folios are what /proc/self/pagemap + /proc/kpageflags show:"
app thp
thp_folios=$(field folios)
mon_show "REG_ADDED pid $app " 4
show memreg region pid "$app"
note "Why four identical 1 MiB regions show PINNED $thp_folios: PINNED counts"
note "folios, not pages. A 2 MiB THP is one folio however many of its 512"
note "pages a region covers, a 4 KiB page is one: 1 MiB is 1 inside a THP,"
note "2 across two, 1 + 128 half in one, 256 without THP. So the three 1 MiB"
note "regions of an unaligned 3 MiB buffer read 168, 1, 90 (167 pages + 1 THP,"
note "inside it, 1 THP + 89 pages) or 256 x 3 if no aligned 2 MiB fits in it."
note "VmPin counts bytes: app's is $(vmpin_kb "$app") kB = 4 MiB whatever backs them."

step "app allocates 4 MiB on emulated NPU 0, maps it and registers it"
app dev 4194304
dev_bytes=$(field bytes)
mon_show "type device"
show memreg dev
note "Device memory is the module's own pages: a registration holds them"
note "without pinning (PINNED 0); app's VmPin is still $(vmpin_kb "$app") kB."

step "peer grants 1 MiB; app imports it, READs it and WRITEs it back"
start_proc peer 6 7
read -r answer <&7 || fail "peer did not start"
peer=$(field pid)
peer grant $tmp/token
app import $tmp/token
app xfer
xfer_bytes=$(field bytes)
peer check
mon_show "REG_ADDED pid $app .*len 1.0MiB"
show memreg proc
note "app: 1 import, 1 MiB read and 1 MiB written, copied by the kernel"
note "straight between the two processes' pinned pages (XFER READ/WRITE)."
echo "peer exits: its registration, grant and pins go with it"
peer exit
wait "$peer_pid"
exec 6>&- 7<&-
mon_show "PROC_GONE pid $peer "

step "a limit: the administrator caps app's host memory at 6 MiB"
show memreg limits set pid "$app" host 6M
app register 4194304
refused_errno=$(field errno)
mon_show "LIMIT_REFUSED pid $app "
show memreg stats
refused=$(memreg -j stats | sed -n 's/.*"refused_host_bytes":\([0-9]*\).*/\1/p')

step "app exits without unregistering: the module returns its pins"
app status
app_vmpin=$(vmpin_kb "$app")
set -- $(pins)
note "before: nr_foll_pin_acquired $1, nr_foll_pin_released $2: $(($1 - $2)) held"
app exit
wait "$app_pid"
exec 4>&- 5<&-
mon_show "PROC_GONE pid $app "
set -- $(pins)
pins_taken=$(($1 - pins0))
pins_held=$(($1 - $2))
note "after:  nr_foll_pin_acquired $1 == nr_foll_pin_released $2: $pins_held held"
show memreg region pid "$app"
show memreg region
note "(no rows: nothing is registered any more)"
show memreg dev

step "summary"
t1=$(uptime_cs)
kill "$mon_pid"
wait "$mon_pid" 2>/dev/null
events() { grep -c "^$1 pid \($app\|$peer\) " "$mon"; }
printf '  %-16s %s\n' \
	"host memory" "app 4 x 1 MiB + 1 MiB, peer 1 MiB: 6 MiB registered" \
	"PINNED" "$thp_folios for the four 1 MiB regions (folios: a THP counts once)" \
	"pinned pages" "$pins_taken 4 KiB pages pinned in all (app's VmPin $app_vmpin kB)" \
	"device memory" "$((dev_bytes >> 20)) MiB on NPU 0, registered and freed at exit" \
	"transfers" "$((xfer_bytes >> 20)) MiB copied between app and peer, data checked" \
	"refusals" "$refused: $refused_errno for 4 MiB over app's 6 MiB host limit" \
	"pins returned" "$pins_taken of $pins_taken; acquired == released, $pins_held held" \
	"monitor events" "$(events REG_ADDED) REG_ADDED, $(events REG_REMOVED) REG_REMOVED, $(events LIMIT_REFUSED) LIMIT_REFUSED, $(events PROC_GONE) PROC_GONE" \
	"time" "$(((t1 - t0) / 100)).$(((t1 - t0) % 100 / 10)) s in the VM"
[ "$pins_held" = 0 ] || fail "$pins_held pins still held"
