#!/bin/sh
# not in the suite: a leg of its own (scripts/check, or the script named below)
# Device memory in a VM with less RAM than the devices' capacity (run by
# make check with --mem 512 and the default 2 x 1 GiB devices): filling
# the devices ends with ENOMEM at the module's RAM reserve, and nobody is
# killed, as root, as an unprivileged user, and under a memory cgroup
# limit (where the kernel has memory cgroups).
. "$(dirname "$0")/tap.sh"

mb=$((1 << 20))
kb() { awk -v k="$1" '$1 == k ":" { print $2 }' /proc/meminfo; }
oom_kills() { dmesg | grep -c -i 'oom-kill\|out of memory'; }
dev_used() { memreg -j dev | jq '[.[] | .used_bytes] | add'; }

ram=$(awk '/^MemTotal/ { print $2 * 1024 }' /proc/meminfo)
cap=$(memreg -j dev | jq '[.[] | .capacity] | add')
reserve=$(memreg -j dev | jq '.[0].ram_reserve')
echo "# RAM $((ram / mb)) MiB, devices $((cap / mb)) MiB in all, reserve $((reserve / mb)) MiB"
if [ "$cap" -le "$ram" ]; then
	skip "devices larger than RAM" "the devices ($((cap / mb)) MiB) fit in RAM ($((ram / mb)) MiB): run with --mem 512"
	tap_done
fi
expect "memreg dev shows the reserve: an eighth of RAM, at least 64 MiB" \
	"$(( ram / 8 > 64 * mb ? ram / 8 : 64 * mb ))" "$reserve"

# fill AS-WHOM NAME: fill every device as root or as the user
fill() {
	if [ "$1" = user ]; then
		runas 1000 1000 itest_adversary fill-dev 16M >/tmp/fill.out 2>&1
	else
		itest_adversary fill-dev 16M >/tmp/fill.out 2>&1
	fi
	rc=$?
	grep -E '^(not )?ok|^#' /tmp/fill.out
	expect "$2: the filler ends on its own (no signal)" 0 "$rc"
	check "$2: refused with ENOMEM, at the RAM reserve" grep -q '^filled .* ENOMEM' /tmp/fill.out
	expect "$2: no OOM kill" 0 "$(oom_kills)"
	expect "$2: all device memory back after exit" 0 "$(dev_used)"
	avail=$(memreg -j dev | jq '.[0].ram_available')
	[ "$avail" -gt "$reserve" ] && ok "$2: MemAvailable back above the reserve ($((avail / mb)) MiB)" ||
		not_ok "$2: MemAvailable $((avail / mb)) MiB after exit"
}

# the same through the ACL runtime: aclrtMalloc's answer, as a CANN
# program sees it
acl_fill 16 >/tmp/acl-fill.out 2>&1
rc=$?
grep '^#' /tmp/acl-fill.out
expect "ACL: aclrtMalloc until refused ends with ACL_ERROR_RT_MEMORY_ALLOCATION (207001), no kill" \
	"0 207001" "$rc $(sed -n 's/^filled [0-9]* MiB \(-*[0-9]*\)$/\1/p' /tmp/acl-fill.out)"
expect "ACL: no OOM kill" 0 "$(oom_kills)"
expect "ACL: all device memory back after exit" 0 "$(dev_used)"

# The holder pays: uid 1000 holds device memory up to the reserve, mapped
# nowhere (in no RSS), then a process that did nothing wrong runs the
# system out of memory.  memreg's OOM notifier must kill the holder,
# not it.
oom_holder_pays() {
	killed0=$(dmesg | grep -c 'Killed process')
	runas 1000 1000 memreg_audit dev-hold >/tmp/hold.out 2>&1 &
	holder=$!
	wait_for /tmp/hold.out '^# held' 600 ||
		{ not_ok "OOM: the holder took no device memory"; cat /tmp/hold.out; return; }
	grep '^#' /tmp/hold.out
	# more than is available, less than that and what the holder has:
	# it fits only if the holder's memory comes back (on the debug
	# kernel, with KASAN's shadow, 256 MiB did not fit even then)
	held=$(sed -n 's/^# held \([0-9]*\) MiB.*/\1/p' /tmp/hold.out)
	hog=$(( $(kb MemAvailable) / 1024 + held / 2 ))
	echo "# the holder has $held MiB of device memory; the innocent process takes $hog MiB"
	runas 1000 1000 memreg_audit hog "$hog" >/tmp/hog.out 2>&1
	rc=$?
	grep -E '^(not )?ok|^#' /tmp/hog.out | sed 's/^\(not \)*ok - /# /'
	expect "OOM: the innocent process ($hog MiB) finishes" 0 "$rc"
	# killed by now, or it never will be: do not wait for it forever
	n=0
	while kill -0 "$holder" 2>/dev/null && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if kill -0 "$holder" 2>/dev/null; then
		kill -9 "$holder"
		wait "$holder"
		not_ok "OOM: the holder of unmapped device memory is the one killed: it lived on"
	else
		wait "$holder"
		expect "OOM: the holder of unmapped device memory is the one killed (SIGKILL)" 137 "$?"
	fi
	check "OOM: memreg says why" sh -c "dmesg | grep 'memreg: out of memory: killing process $holder'"
	dmesg | grep 'memreg: out of memory' | sed 's/^/# /'
	expect "OOM: the kernel's OOM killer killed nobody" "$killed0" "$(dmesg | grep -c 'Killed process')"
	expect "OOM: all device memory back" 0 "$(dev_used)"
}

if is_root; then
	fill root "root"
	fill user "uid 1000"
	# A memory cgroup of 128 MiB: its limit refuses first (device pages
	# are charged to the allocating task's cgroup), and its OOM killer
	# does not run either.
	if grep -qw memory /proc/cgroups 2>/dev/null &&
	   mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null; then
		echo +memory >/sys/fs/cgroup/cgroup.subtree_control
		mkdir /sys/fs/cgroup/filler
		echo $((128 * mb)) >/sys/fs/cgroup/filler/memory.max
		sh -c 'echo $$ >/sys/fs/cgroup/filler/cgroup.procs &&
			exec runas 1000 1000 itest_adversary fill-dev 16M' >/tmp/fill.out 2>&1
		rc=$?
		grep -E '^(not )?ok|^#' /tmp/fill.out
		expect "memory cgroup of 128 MiB: the filler ends on its own" 0 "$rc"
		took=$(sed -n 's/^filled \([0-9]*\) ENOMEM$/\1/p' /tmp/fill.out)
		[ -n "$took" ] && [ "$took" -le 128 ] &&
			ok "memory cgroup of 128 MiB: ENOMEM after $took MiB" ||
			not_ok "memory cgroup of 128 MiB: $(tail -n 1 /tmp/fill.out)"
		expect "memory cgroup: no OOM kill in it" 0 \
			"$(awk '$1 == "oom_kill" { print $2 }' /sys/fs/cgroup/filler/memory.events)"
		expect "memory cgroup: no OOM kill anywhere" 0 "$(oom_kills)"
		rmdir /sys/fs/cgroup/filler
		umount /sys/fs/cgroup
	else
		skip "memory cgroup limit" "the kernel has no memory cgroups"
	fi
	oom_holder_pays
else
	fill user "uid $(id -u)"
fi
tap_done
