#!/bin/sh
# The amplification audit (docs/security.md): every creating call driven
# to its limit by an unprivileged user, in a small memory cgroup where the
# kernel has them, with what the kernel spent per object measured against
# the bound of its row (memreg_audit), and nothing left once every process
# of the user has exited.
. "$(dirname "$0")/tap.sh"

kb() { awk -v k="$1" '$1 == k ":" { print $2 }' /proc/meminfo; }
# MemFree with the per-cpu free lists (free, but not in MemFree), after
# the caches are dropped and the lists drained where we may (root)
free_kb() {
	if is_root; then
		echo 3 >/proc/sys/vm/drop_caches
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
	fi
	echo $(( $(kb MemFree) + $(awk '$1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo) ))
}
files() { cut -f1 /proc/sys/fs/file-nr; }
param() { cat "/sys/module/memreg/parameters/$1"; }

names_max=$(param max_ipc_names)
rate=$(param ipc_import_fail_rate)
free0=$(free_kb)
files0=$(files)

# as uid 1000 in a memory cgroup of 384 MiB when we are root and can make
# one; as whoever we are otherwise
cg=
if is_root && grep -qw memory /proc/cgroups 2>/dev/null; then
	mkdir -p /sys/fs/cgroup
	grep -q ' /sys/fs/cgroup cgroup2 ' /proc/mounts ||
		mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
	if echo +memory >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null &&
	   mkdir -p /sys/fs/cgroup/audit; then
		echo $((384 << 20)) >/sys/fs/cgroup/audit/memory.max
		cg=/sys/fs/cgroup/audit
	fi
fi
# (AS_CG: in that cgroup instead)
as_user() {
	place=${AS_CG:-$cg}
	if [ -n "$place" ]; then
		sh -c 'echo $$ >'"$place"'/cgroup.procs && exec runas 1000 1000 "$@"' sh "$@"
	elif is_root; then
		runas 1000 1000 "$@"
	else
		"$@"
	fi
}
echo "# rows run as $(is_root && echo 'uid 1000' || id -u)${cg:+, in a 384 MiB memory cgroup}"

# row ROW [ARG]: one row as the user.  The counters are the whole
# machine's: an allocation elsewhere in the VM inside a row's window (a
# THP, a per-cpu list refilled) lowers MemFree too, and once in a fresh-ci
# run it put 4.4 MB on 1024 grants (4412 B a grant, 96 B in every other
# run); on the debug kernel, objects freed before the row wait in KASAN's
# quarantine and leave it inside the window (ipc-allow once read 8936 B of
# SUnreclaim a name, against 4504 B of MemFree).  A row whose only
# failures are bounds runs once more, and the second run's lines count:
# an amplification fails both times.
row() {
	as_user memreg_audit "$@" >/tmp/audit-row.out 2>&1
	if grep -q '^not ok' /tmp/audit-row.out &&
	   ! grep '^not ok' /tmp/audit-row.out | grep -qv ' over the bound '; then
		sed 's/^/# first run: /' /tmp/audit-row.out
		echo "# $1: over a bound, and nothing else: measured again"
		as_user memreg_audit "$@" >/tmp/audit-row.out 2>&1
	fi
	cat /tmp/audit-row.out
}

row dmabuf-reg
row host-reg
row host-child
row reg-export
row dev-reg
row grant-import
row mstx
row ipc-names "$names_max"
row ipc-allow
as_user memreg_audit ipc-guess "$rate"
memreg_audit ipc-oracle

# The per-cgroup records (kernel/memreg_cgroup.c): what one user buys by
# charging in many cgroups.  A user makes cgroups and moves itself only
# in a subtree delegated to it (the directory and its cgroup.procs
# chowned to it), as many live as cgroup.max.descendants there says; the
# row also removes charged cgroups, which stay, dying, while charged.
if is_root; then
	if [ ! -e /sys/fs/cgroup/cgroup.procs ]; then
		mkdir -p /sys/fs/cgroup
		mount -t cgroup2 none /sys/fs/cgroup 2>/dev/null
	fi
	deleg=${cg:-/sys/fs/cgroup}/audit-deleg
	if [ -e /sys/fs/cgroup/cgroup.procs ] && mkdir -p "$deleg" &&
	   echo 64 >"$deleg/cgroup.max.descendants" &&
	   chown 1000:1000 "$deleg" "$deleg/cgroup.procs" \
		"$deleg/cgroup.threads" "$deleg/cgroup.subtree_control"; then
		AS_CG=$deleg
		row cg-records "$deleg" 64
		AS_CG=
		rmdir "$deleg"/* "$deleg" 2>/dev/null
	else
		skip "cg-records" "no cgroup2 to delegate"
	fi
fi

# The user's limit on files, whatever its processes: three of them, each
# at most max_ipc_names, hold no more than max_user_files together.
if is_root; then
	old=$(param max_user_files)
	echo 1500 >/sys/module/memreg/parameters/max_user_files
	for i in 1 2 3; do
		as_user memreg_audit ipc-names-hold "$names_max" >/tmp/audit-hold.$i 2>&1 &
	done
	wait
	total=$(cat /tmp/audit-hold.1 /tmp/audit-hold.2 /tmp/audit-hold.3 |
		sed -n 's/^# held \([0-9]*\) names.*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	[ "$total" -le 1500 ] && [ "$total" -ge 1400 ] &&
		ok "max_user_files 1500: three processes of one user held $total names together" ||
		{ not_ok "max_user_files 1500: three processes of one user held $total names"; cat /tmp/audit-hold.*; }
	echo "$old" >/sys/module/memreg/parameters/max_user_files
fi

# Device memory outliving its allocator: per-process limit 32 MiB, the
# user's 128 MiB (the devices, 256 MiB each in the suite, have room for more)
if is_root; then
	old_dev=$(param max_dev_bytes)
	old_user=$(param max_user_dev_bytes)
	echo $((32 << 20)) >/sys/module/memreg/parameters/max_dev_bytes
	echo $((128 << 20)) >/sys/module/memreg/parameters/max_user_dev_bytes
	as_user memreg_audit dev-outlive 32 128
	echo "$old_dev" >/sys/module/memreg/parameters/max_dev_bytes
	echo "$old_user" >/sys/module/memreg/parameters/max_user_dev_bytes
fi

# Everything goes with its owner: after every process of the user exited
sleep 1
expect "after exit: no registrations left" 0 "$(memreg -j stats | jq .regions)"
expect "after exit: no device memory left" 0 "$(memreg -j dev | jq '[.[] | .used_bytes] | add')"
df=$(( $(files) - files0 ))
# (file-nr is a per-cpu sum: a few dozen either way)
[ "$df" -le 256 ] && ok "after exit: file-nr back ($df more than before)" ||
	not_ok "after exit: $df files more than before the audit"
dm=$(( free0 - $(free_kb) ))
# KASAN (the debug kernel) keeps freed slab objects back in its quarantine,
# up to 1/32 of RAM, which no drop_caches drains: 5-7 MB there once the
# dma-buf rows ran, against 1.9 MB on 6.1
left=4096
case $(uname -r) in *debug*) left=$((left + $(kb MemTotal) / 32)) ;; esac
[ "$dm" -le "$left" ] && ok "after exit: MemFree back (${dm} kB less than before, bound $left)" ||
	not_ok "after exit: MemFree ${dm} kB less than before the audit, over $left"
if [ -n "$cg" ]; then
	rmdir "$cg" 2>/dev/null
fi
tap_done
