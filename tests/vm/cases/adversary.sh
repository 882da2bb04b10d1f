#!/bin/sh
# A hostile unprivileged user against /dev/memreg (mode 0666): each attempt
# to hold more than its limits allow, or to act through a file that is not
# its own, is refused, and what it leaves behind is checked from outside
# with the tool.  As root the scenarios run as uid 1000 (runas), so that
# RLIMIT_MEMLOCK applies (root has CAP_IPC_LOCK).
. "$(dirname "$0")/tap.sh"

if is_root; then
	as_user="runas 1000 1000"
else
	as_user=
fi
mb=$((1 << 20))

# registrations the module holds for processes of pid $1
pid_regions() { memreg -j region pid "$1" | jq 'length'; }
total() { memreg -j stats | jq ".$1"; }

# scenario NAME ARGS...: run itest_adversary ARGS in the background as the
# user, with an 8 MiB RLIMIT_MEMLOCK, until it says ready; pid in $adv_pid.
scenario() {
	adv_file=/tmp/adv-$1.ready
	rm -f "$adv_file"
	shift
	(ulimit -l 8192 && exec $as_user itest_adversary "$@") >"/tmp/adv.out" 2>&1 &
	adv_pid=$!
	if ! wait_for "$adv_file" '^ready' 1200; then
		not_ok "itest_adversary $*: never ready"
		sed 's/^/#   /' /tmp/adv.out
		kill -9 "$adv_pid" 2>/dev/null
		return 1
	fi
	return 0
}

# finish: stop the scenario, show its own TAP lines, check its exit
finish() {
	kill "$adv_pid"
	wait "$adv_pid"
	rc=$?
	grep -E '^(not )?ok' /tmp/adv.out
	grep -vE '^(not )?ok' /tmp/adv.out | sed 's/^/#   /'
	# its own "not ok" lines count through the suite; a crash does not
	[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "itest_adversary exited $rc"
}

host0=$(total host_bytes)
dev0=$(memreg -j dev | jq '[.[] | .used_bytes] | add')

# 1. RLIMIT_MEMLOCK across exec(): keep every fd, register 8 MiB (the
# whole limit) in each of 20 images.  Each exec() ends the old address
# space, and with it what its files pinned: one image's worth is left.
if scenario exec exec-chain 20 8M /tmp/adv-exec.ready; then
	expect "20 exec()s keeping the fd, 8 MiB pinned in each: 1 registration left" \
		1 "$(pid_regions "$adv_pid")"
	expect "... and 8 MiB pinned, not 160 MiB" $((8 * mb)) \
		"$(( $(total host_bytes) - host0 ))"
	finish
	expect "... and nothing once it exits" "$host0" "$(total host_bytes)"
fi

# 2. The same through files passed over a socket by helpers that exit.
if scenario pass pass-fds 20 8M /tmp/adv-pass.ready; then
	expect "20 helpers pinned 8 MiB each, passed their fds and exited: nothing pinned" \
		"$host0" "$(total host_bytes)"
	finish
fi

# 3. Device memory across exec(): each image allocates 16 MiB of device 0.
if scenario dev dev-chain 10 16M /tmp/adv-dev.ready; then
	expect "10 exec()s keeping the fd, 16 MiB of device memory in each: 16 MiB used" \
		$((16 * mb)) "$(( $(memreg -j dev | jq '[.[] | .used_bytes] | add') - dev0 ))"
	finish
	expect "... and none once it exits" "$dev0" "$(memreg -j dev | jq '[.[] | .used_bytes] | add')"
fi

# 4. Another process's registration (root's, when we run as root): its
# handle, guessed handles and grant tokens, its address and handle in the
# listing, the limits.
start_hold /tmp/adv-hold.txt -n 1 -s 4096 || not_ok "memreg_hold"
victim=$(awk '$1 == "reg" { print $3; exit }' /tmp/adv-hold.txt)
$as_user itest_adversary steal "$victim" 20000 >/tmp/adv.out 2>&1
rc=$?
grep -E '^(not )?ok' /tmp/adv.out
[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "steal exited $rc"
if is_root; then
	seen=$(runas 1000 1000 memreg -j region pid "$hold_pid")
	expect "uid 1000 lists root's registration without handle or address" \
		"1 false false" "$(echo "$seen" | jq -r '"\(length) \(.[0] | has("handle")) \(.[0] | has("addr"))"')"
	out=$(runas 1000 1000 memreg limits set regions 100000 2>&1)
	expect "uid 1000 cannot change the limits: exit 1" 1 "$?"
	check "... and is told why" contains "$out" 'not permitted\|CAP_NET_ADMIN'
	expect "... and the default stays" 256 "$(memreg -j stats | jq .max_regions)"
fi
stop_hold "$hold_pid"

# 5. RLIMIT_MEMLOCK through many files and fork(); a range registered
# again shares its pages and takes nothing more.
(ulimit -l 8192 && exec $as_user itest_adversary memlock 8 8M) >/tmp/adv.out 2>&1
rc=$?
grep -E '^(not )?ok' /tmp/adv.out
[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "memlock exited $rc"

# 6. mstx heaps through 8 files of one process: the limit is per process.
$as_user itest_adversary mstx-files 8 >/tmp/adv.out 2>&1
rc=$?
grep -E '^(not )?ok' /tmp/adv.out
[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "mstx-files exited $rc"

# 7. Read-only files map device memory read-only (and never privately).
$as_user itest_adversary rdonly-mmap >/tmp/adv.out 2>&1
rc=$?
grep -E '^(not )?ok' /tmp/adv.out
[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "rdonly-mmap exited $rc"

# 9. A registration whose page array is above INT_MAX bytes (1 TiB + 4 KiB),
# with the host byte limit raised as an administrator may: ENOMEM, without
# the kvmalloc() WARNING that memreg_fuzz found.  As root (CAP_IPC_LOCK:
# no memlock limit) and as uid 1000 (RLIMIT_MEMLOCK refuses it first).
if is_root; then
	host_lim=$(memreg -j stats | jq -r .max_host_bytes)
	memreg limits set host unlimited
	for who in root "uid 1000"; do
		pre=
		[ "$who" = root ] || pre="runas 1000 1000"
		$pre itest_adversary huge-range >/tmp/adv.out 2>&1
		rc=$?
		grep -E '^(not )?ok' /tmp/adv.out | sed "s/\$/ (as $who)/"
		[ $rc = 0 ] || grep -q '^not ok' /tmp/adv.out || not_ok "huge-range exited $rc"
	done
	memreg limits set host "$host_lim"
	expect "... and nothing registered" "$host0" "$(total host_bytes)"
fi

tap_done
