#!/bin/sh
# not in the suite: a leg of its own (scripts/check, or the script named below)
# memreg_fuzz against /dev/memreg and the netlink family for
# MEMREG_FUZZ_SECONDS (default 45, make check's run): as root and, at the same time, as uid
# 1000 (runas) when run as root, so that the unprivileged paths
# (RLIMIT_MEMLOCK, no CAP_NET_ADMIN, another uid's listing) race the
# privileged ones.  Then nothing may be left: no registration, no device
# memory, no pinned page, no VmPin.  KASAN, lockdep and kmemleak reports
# fail the run in the harness.  As root, where cgroup v2 is, the workers
# move between two cgroups with changing limits (below).
#
# MEMREG_FUZZ_SEED=N replays a seed (both runs get it; the user's run
# draws the same calls as root's then, under other rights).
# MEMREG_FUZZ_ARGS adds options (--procs, --threads).
. "$(dirname "$0")/tap.sh"

secs=${MEMREG_FUZZ_SECONDS:-45}
seed_arg=
[ -n "${MEMREG_FUZZ_SEED:-}" ] && seed_arg="--seed $MEMREG_FUZZ_SEED"
stat_of() { memreg -j stats | jq -r ".$1"; }

# Seeds that found kernel bugs, replayed briefly first (regressions):
# "SEED SECONDS" per line.  Bugs that take minutes to find are kept as
# focused tests instead:
#   seed 269400164873698 (debug kernel, after 320 s): a REGISTER of 1 TiB
#   with the host limit raised WARNed in kvmalloc() -- now
#   `itest_adversary huge-range` in adversary.sh.
regressions=""

# The fuzzer changes the global limits now and then (as root): put them back.
lim_regions=$(stat_of max_regions)
lim_host=$(stat_of max_host_bytes)
lim_dev=$(stat_of max_dev_bytes)
dev0=$(memreg -j dev | jq '[.[] | .used_bytes] | add')
# The OOM killer's kills so far: it must kill nothing during the run (a
# worker it killed would fail the run with nothing to say why, and its
# children would hold their device memory until the end).
oom_kills() { dmesg | grep -c 'Out of memory: Killed process'; }
oom0=$(oom_kills)

# run_fuzz WHO OUT ARGS...: memreg_fuzz ARGS as WHO ("user": uid 1000
# when we are root; else as we are), its output into OUT.
run_fuzz() {
	who=$1 out=$2
	shift 2
	if [ "$who" = user ] && is_root; then
		runas 1000 1000 memreg_fuzz "$@" >"$out" 2>&1
	else
		memreg_fuzz "$@" >"$out" 2>&1
	fi
}

# report WHO OUT STATUS: its table, and its TAP line labelled with WHO.
report() {
	grep -vE '^(not )?ok' "$2"
	if grep -qE '^(not )?ok - fuzz:' "$2"; then
		grep -E '^(not )?ok - fuzz:' "$2" | sed -E "s/^((not )?ok - fuzz:)/\1 $1,/"
		grep -q '^not ok' "$2" && tap_failed=$((tap_failed + 1))
	else
		not_ok "$1: memreg_fuzz exited $3 without a result"
	fi
}

# (a here-document, not a pipe: the loop must count in this shell)
while read -r rseed rsecs; do
	[ -n "$rseed" ] || continue
	run_fuzz self /tmp/fuzz-regression.out --seed "$rseed" --seconds "$rsecs"
	report "regression seed $rseed" /tmp/fuzz-regression.out $?
done <<EOF
$regressions
EOF

# As root, where the kernel has cgroup v2: both fuzzers start in cgroup
# fz1, and a mover shuffles a third of the processes of fz1 and fz2 to
# the other one each round and sets random limits on both every other
# round (a round is 0.2 s and the mover's own time: 2-3 s on the debug
# kernel), so that charges are made, refused and freed across
# migrations and limit changes (kernel/memreg_cgroup.c).
fzcg=
if is_root; then
	if [ ! -e /sys/fs/cgroup/cgroup.procs ]; then
		mkdir -p /sys/fs/cgroup
		mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
	fi
	cg_records0=$(stat_of cgroups)
	[ -e /sys/fs/cgroup/cgroup.procs ] &&
		mkdir -p /sys/fs/cgroup/fz1 /sys/fs/cgroup/fz2 &&
		fzcg=/sys/fs/cgroup
fi
in_fz1() {
	if [ -n "$fzcg" ]; then
		sh -c 'echo $$ >'"$fzcg"'/fz1/cgroup.procs && exec "$@"' sh "$@"
	else
		"$@"
	fi
}
cgc() {
	memreg -j limits show cgroup "/$1" | jq -r \
		'"\(.host_bytes) \(.dev_bytes) \(.dev_alloc_bytes) \(.dmabuf_bytes)"'
}
# The charges while the fuzzers run: fz1 and fz2 frozen (cgroup.freeze:
# every task out of its system calls, or back out of them), their charges
# and the module's totals read twice 0.2 s apart; if nothing moved between
# the two (a task killed just before the freeze may still be exiting),
# fz1 + fz2 must be the root node's charge for each kind (nothing else
# registers meanwhile), and the root's host and device charges the
# module's totals.  Counted in /tmp/fuzz-snap.txt: checks, unsettled
# snapshots, and the first mismatch.
snap_read() {
	echo "$(cgc fz1) $(cgc fz2) $(cgc '') $(memreg -j stats |
		jq -r '"\(.host_bytes) \(.dev_bytes)"')"
}
snapshot() {
	echo 1 >"$fzcg/fz1/cgroup.freeze"
	echo 1 >"$fzcg/fz2/cgroup.freeze"
	n=0
	until grep -q '^frozen 1' "$fzcg/fz1/cgroup.events" &&
	      grep -q '^frozen 1' "$fzcg/fz2/cgroup.events"; do
		n=$((n + 1))
		[ $n -gt 50 ] && break
		sleep 0.1
	done
	if [ $n -le 50 ]; then
		s1=$(snap_read)
		sleep 0.2
		s2=$(snap_read)
	fi
	echo 0 >"$fzcg/fz1/cgroup.freeze"
	echo 0 >"$fzcg/fz2/cgroup.freeze"
	if [ $n -gt 50 ] || [ "$s1" != "$s2" ] ||
	   ! echo "$s2" | grep -Eq '^[0-9]+( [0-9]+){13}$'; then
		unsettled=$((unsettled + 1))
		return
	fi
	# shellcheck disable=SC2086 # 14 numbers
	set -- $s2
	snaps=$((snaps + 1))
	# one with charges at least: not a check of nothing
	[ "$9${10}${11}${12}" = 0000 ] || charged=$((charged + 1))
	if [ $(($1 + $5)) != "$9" ] || [ $(($2 + $6)) != "${10}" ] ||
	   [ $(($3 + $7)) != "${11}" ] || [ $(($4 + $8)) != "${12}" ] ||
	   [ "$9" != "${13}" ] || [ "${10}" != "${14}" ]; then
		mismatches=$((mismatches + 1))
		[ -n "$first_bad" ] || first_bad="fz1 $1 $2 $3 $4, fz2 $5 $6 $7 $8, root $9 ${10} ${11} ${12}, module ${13} ${14}"
	fi
}
mover() {
	i=0 moves=0 sets=0 snaps=0 unsettled=0 mismatches=0 first_bad='' charged=0
	# killed between a freeze and its thaw: the fuzzers must not stay frozen
	trap 'echo 0 >"$fzcg/fz1/cgroup.freeze"; echo 0 >"$fzcg/fz2/cgroup.freeze"; exit' TERM
	while :; do
		for from in fz1 fz2; do
			to=fz2
			[ $from = fz2 ] && to=fz1
			for pid in $(cat "$fzcg/$from/cgroup.procs"); do
				[ $((pid % 3)) = $((i % 3)) ] &&
					echo "$pid" >"$fzcg/$to/cgroup.procs" 2>/dev/null &&
					moves=$((moves + 1))
			done
		done
		i=$((i + 1))
		if [ $((i % 2)) = 0 ]; then
			for c in fz1 fz2; do
				# sizes 0-255 MiB, or none (one in four)
				n=$(( $(od -An -N2 -tu2 /dev/urandom) % 256 ))
				if [ $((n % 4)) = 0 ]; then
					memreg limits set cgroup "/$c" host unlimited \
						dev unlimited dmabuf unlimited
				else
					memreg limits set cgroup "/$c" host "${n}M" \
						dev "$((255 - n))M" dmabuf "$((n / 2))M"
				fi >/dev/null 2>&1 && sets=$((sets + 1))
			done
		fi
		# every other round: the charges, frozen
		if [ $i -ge 3 ] && [ $((i % 2)) = 1 ]; then
			snapshot
			echo "$snaps $charged $unsettled $mismatches $first_bad" \
				>/tmp/fuzz-snap.txt
		fi
		echo "$moves $sets" >/tmp/fuzz-mover.txt
		sleep 0.2
	done
}

if is_root; then
	# shellcheck disable=SC2086
	in_fz1 runas 1000 1000 memreg_fuzz --seconds "$secs" $seed_arg \
		${MEMREG_FUZZ_ARGS:-} >/tmp/fuzz-user.out 2>&1 &
	user_pid=$!
	mover_pid=
	if [ -n "$fzcg" ]; then
		echo "0 0 0 0" >/tmp/fuzz-snap.txt
		mover &
		mover_pid=$!
	fi
fi
# shellcheck disable=SC2086
in_fz1 memreg_fuzz --seconds "$secs" $seed_arg ${MEMREG_FUZZ_ARGS:-} \
	>/tmp/fuzz-root.out 2>&1
root_rc=$?
if is_root; then
	wait "$user_pid"
	user_rc=$?
	[ -z "$mover_pid" ] || { kill "$mover_pid"; wait "$mover_pid"; } 2>/dev/null
	report "as root" /tmp/fuzz-root.out "$root_rc"
	report "as uid 1000" /tmp/fuzz-user.out "$user_rc"
	memreg limits set regions "$lim_regions" host "$lim_host" dev "$lim_dev" ||
		not_ok "putting the limits back"
else
	report "as uid $(id -u)" /tmp/fuzz-root.out "$root_rc"
fi

# What is left once every fuzzer process is gone.
oom=$(($(oom_kills) - oom0))
[ "$oom" = 0 ] || dmesg | grep -E 'invoked oom-killer|Out of memory:|Mem-Info' | sed 's/^/# /'
expect "the OOM killer killed nothing" 0 "$oom"
expect "no registration left" 0 "$(stat_of regions)"
expect "no host bytes registered" 0 "$(stat_of host_bytes)"
expect "device memory back to what it was" "$dev0" \
	"$(memreg -j dev | jq '[.[] | .used_bytes] | add')"
if is_root; then
	echo 1 >/proc/sys/vm/stat_refresh
	acq=$(awk '$1 == "nr_foll_pin_acquired" { print $2 }' /proc/vmstat)
	rel=$(awk '$1 == "nr_foll_pin_released" { print $2 }' /proc/vmstat)
	expect "every pin released (nr_foll_pin_acquired == released)" "$acq" "$rel"
else
	skip "every pin released" "stat_refresh needs root"
fi
pinned=$(grep -H '^VmPin:' /proc/[0-9]*/status 2>/dev/null | awk '$2 != 0')
expect "no process has VmPin" "" "$pinned"

# The cgroups' charges: every fuzzer process is gone, so fz1 and fz2 hold
# nothing, whatever moved where, and the root node (the sum of every
# leaf) holds what the module's totals say.
if [ -n "$fzcg" ]; then
	read -r moves sets </tmp/fuzz-mover.txt
	read -r snaps charged unsettled mismatches first_bad </tmp/fuzz-snap.txt
	if [ "${charged:-0}" -gt 0 ] && [ "$mismatches" = 0 ]; then
		ok "cgroups: $snaps snapshots mid-run (frozen; $charged with charges): fz1 + fz2 = the root node = the module's totals ($unsettled unsettled, skipped)"
	else
		not_ok "cgroups: $snaps snapshots mid-run ($charged with charges), $mismatches mismatched, $unsettled unsettled"
		[ -z "$first_bad" ] || echo "#   first: $first_bad"
	fi
	refused=$(( $(memreg -j limits show cgroup /fz1 | jq .refused) +
		    $(memreg -j limits show cgroup /fz2 | jq .refused) ))
	[ "$moves" -gt 0 ] && [ "$sets" -gt 0 ] &&
		ok "cgroups: $moves moves between fz1 and fz2, $sets limits set, $refused charges refused by them" ||
		not_ok "cgroups: $moves moves, $sets limits set"
	expect "cgroups fz1, fz2: nothing charged after the moves" \
		"0 0 0 0 0 0 0 0" "$(cgc fz1) $(cgc fz2)"
	expect "the root node's host charge is the module's total" \
		"$(stat_of host_bytes)" "$(cgc '' | cut -d' ' -f1)"
	rmdir "$fzcg/fz1" "$fzcg/fz2" ||
		not_ok "cgroups fz1, fz2 removed"
	memreg limits set cgroup / host unlimited ||
		not_ok "the limited records swept"
	expect "the per-cgroup records are those of before the run" \
		"$cg_records0" "$(stat_of cgroups)"
fi

tap_done
