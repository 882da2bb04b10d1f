# not in the suite: sourced by the cases
# Sourced by the VM test scripts: TAP-style results the host counts
# ("ok - NAME", "not ok - NAME", "ok - NAME # SKIP why").
TAP_SUITE=${TAP_SUITE:-$(basename "$0" .sh)}
tap_failed=0

ok() { echo "ok - $TAP_SUITE: $*"; }
not_ok() { echo "not ok - $TAP_SUITE: $*"; tap_failed=$((tap_failed + 1)); }
skip() { echo "ok - $TAP_SUITE: $1 # SKIP $2"; }

# check NAME COMMAND...: pass if COMMAND succeeds; show its output if not.
# (Its variables have a prefix of their own: the callers' $out and $name
# are expanded into the arguments before it runs, and must survive it.)
check() {
	tap_name=$1
	shift
	if tap_out=$("$@" 2>&1); then
		ok "$tap_name"
	else
		not_ok "$tap_name"
		printf '%s\n' "$tap_out" | sed 's/^/#   /'
	fi
}

# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   want: $2"
		echo "#   got:  $3"
	fi
}

is_root() { [ "$(id -u)" = 0 ]; }

# The debug kernel (KASAN, lockdep, kmemleak) under TCG runs everything
# several times slower: cases that repeat one kernel path many times do
# fewer repetitions there, and say so.
is_debug_kernel() { case $(uname -r) in *debug*) true ;; *) false ;; esac; }

# contains TEXT PATTERN: TEXT has a line matching the grep PATTERN.
contains() { printf '%s\n' "$1" | grep -q -- "$2"; }

# wait_for FILE PATTERN [TENTHS]: until FILE has a line matching PATTERN.
wait_for() {
	wait_n=0
	until grep -q -- "$2" "$1" 2>/dev/null; do
		wait_n=$((wait_n + 1))
		[ $wait_n -gt "${3:-100}" ] && return 1
		sleep 0.1
	done
}

# judge NAME WHAT: one TAP line from the exit and checks of an adxl_peer
# started in the background with its pid in $tmp/NAME.pid, its output in
# $tmp/NAME.out and $tmp/NAME.err (the two-VM cases).
judge() {
	wait "$(cat $tmp/$1.pid)"
	rc=$?
	passes=$(grep -c '^pass' $tmp/$1.out)
	if [ $rc = 0 ] && ! grep -q '^fail' $tmp/$1.out; then
		ok "$2: $passes checks passed"
	else
		not_ok "$2: exit $rc"
		grep -h '^fail' $tmp/$1.out | head -10 | sed 's/^/#   /'
		tail -n 40 $tmp/$1.err | sed 's/^/#   /'
	fi
}

# start_monitor FILE: `memreg -j monitor` into FILE, subscribed for sure
# (a canary registration's event has arrived) when this returns; its pid
# is in $monitor_pid.
start_monitor() {
	memreg -j monitor >"$1" &
	monitor_pid=$!
	mon_try=0
	while :; do
		memreg_hold -n 1 -s 4096 >/tmp/canary.txt &
		canary=$!
		wait_for /tmp/canary.txt '^ready' 50
		stop_hold "$canary"
		wait_for "$1" "\"pid\":$canary," 20 && return 0
		mon_try=$((mon_try + 1))
		[ $mon_try -lt 20 ] || return 1
	done
}

# stop_monitor PATTERN: once the monitor has printed PATTERN (the last
# event the caller expects), stop it.
stop_monitor() {
	wait_for "$1" "$2" 100
	kill "$monitor_pid"
	wait "$monitor_pid" 2>/dev/null
}

# start_hold FILE ARGS...: run memreg_hold in the background, wait until it
# has registered everything; its pid is in $hold_pid.
start_hold() {
	hold_file=$1
	shift
	memreg_hold "$@" >"$hold_file" &
	hold_pid=$!
	hold_n=0
	until grep -q '^ready' "$hold_file" 2>/dev/null; do
		hold_n=$((hold_n + 1))
		if [ $hold_n -gt 600 ] || ! kill -0 "$hold_pid" 2>/dev/null; then
			echo "# memreg_hold $* did not get ready"
			kill -9 "$hold_pid" 2>/dev/null
			return 1
		fi
		sleep 0.1
	done
}

# stop_hold PID: SIGTERM, and wait until it is gone (also when it is not
# our child, e.g. started in a subshell).
stop_hold() {
	[ -n "$1" ] || return 0
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	while kill -0 "$1" 2>/dev/null; do
		sleep 0.05
	done
}

tap_done() { exit "$tap_failed"; }
