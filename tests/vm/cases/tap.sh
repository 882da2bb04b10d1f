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
			return 1
		fi
		sleep 0.1
	done
}

stop_hold() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

tap_done() { exit "$tap_failed"; }
