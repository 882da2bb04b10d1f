#!/bin/sh
# Every in-VM benchmark in one boot, run by scripts/bench as root:
#   tests/vm/run --kernel K --mem 6144 --add bench/vm-bench.sh \
#	--add bench/mstx-runs.sh --add build/bench/adxl_bench -- \
#	bench/vm-bench.sh [quick]
# Figures go to the console as "BENCH {...}" lines (bench/bench_json.h),
# progress as "bench: ..." lines; scripts/bench collects both.  busybox sh.
# A failing benchmark is reported and the others still run; the exit
# status says whether all of them ran.
quick=${1:-}
failed=

say() { echo "bench: $*"; }

# One BENCH line from the shell: bench name, then "key" value pairs whose
# values are already JSON.
bench_line() {
	name=$1
	shift
	line="BENCH {\"bench\":\"$name\""
	while [ $# -ge 2 ]; do
		line="$line,\"$1\":$2"
		shift 2
	done
	echo "$line}"
}

step() {
	what=$1
	shift
	say "$what: $*"
	t0=$(date +%s)
	"$@"
	st=$?
	if [ $st != 0 ]; then
		say "$what FAILED (status $st)"
		failed="$failed $what"
	fi
	say "$what took $(($(date +%s) - t0)) s"
}

if [ "$quick" = quick ]; then
	xfer_args="-n 3 -t 0.2"
	reg_args="-r 3 -M 67108864"
	nl_args="-n 10000 -r 3"
	adxl_args="-t 0.2 -n 3"
	acl_args="-r 3 10"
	mstx_runs=3 mstx_n=200000
else
	xfer_args="-n 5 -t 0.3"
	reg_args="-r 5 -R 3"
	nl_args="-n 100000 -r 5"
	adxl_args="-t 0.45 -n 3"
	acl_args="-r 5 20"
	mstx_runs=5 mstx_n=500000
fi

mem_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)
bench_line vm_info kernel "\"$MEMREG_VM_KERNEL\"" release "\"$(uname -r)\"" \
	cpus "$(grep -c ^processor /proc/cpuinfo)" mem_kb "$mem_kb" \
	thp "\"$(cat /sys/kernel/mm/transparent_hugepage/enabled)\"" \
	quick "\"$quick\""

# --- registration: hugetlbfs first, while memory is not yet fragmented;
# the pool is reserved for this part only and given back after it.
run_reg_hugetlb() {
	old=$(cat /proc/sys/vm/nr_hugepages)
	# 4 GiB of 2 MiB pages, and what the harness keeps for itself
	echo $((2048 + old)) >/proc/sys/vm/nr_hugepages
	say "hugetlb pool: $(cat /proc/sys/vm/nr_hugepages) pages"
	# shellcheck disable=SC2086 # options are words on purpose
	# -n 0: the slices (2 GiB of 4 KiB pages) run with anon and thp; with
	# 4 GiB held as huge pages in this 6 GiB VM they met the OOM killer
	reg_bench -J $reg_args -n 0 -b hugetlb
	st=$?
	echo "$old" >/proc/sys/vm/nr_hugepages
	return $st
}

# --- netlink: 100,000 registrations of 32 processes need more than the
# default 256 registrations per process.
run_nl() {
	memreg limits set regions 4096 || return 1
	# shellcheck disable=SC2086
	nl_bench -J $nl_args
	st=$?
	memreg limits set regions 256
	return $st
}

# --- copy threads: one memreg_transfer on one thread and on two, in a
# cgroup of its own so that its cpu.stat shows whose CPU time the helper
# threads spent.
run_xfer() {
	cg=/sys/fs/cgroup
	[ -e $cg/cgroup.procs ] || mount -t cgroup2 none $cg 2>/dev/null
	if mkdir -p $cg/xfer_bench 2>/dev/null; then
		# shellcheck disable=SC2086
		sh -c 'echo $$ >'"$cg"'/xfer_bench/cgroup.procs &&
			exec xfer_bench -J -w 2 '"$xfer_args"
		st=$?
		rmdir $cg/xfer_bench 2>/dev/null
	else
		# shellcheck disable=SC2086
		xfer_bench -J -w 2 $xfer_args
		st=$?
	fi
	return $st
}

# shellcheck disable=SC2086
step acl acl_bench -J $acl_args
step mstx bench/mstx-runs.sh vm $mstx_runs $mstx_n
# shellcheck disable=SC2086
step adxl /memreg/build/bench/adxl_bench -J $adxl_args
step xfer run_xfer
step netlink run_nl
step reg-hugetlb run_reg_hugetlb
# shellcheck disable=SC2086
step reg-anon-thp reg_bench -J $reg_args -b anon,thp

# --- listing against rdma (issue 32): memreg -j region against rdma -j res
# show mr over as many rxe MRs (bench/mr_bench.c).  Only in a VM that has
# them: tests/vm/run --kmod crc32_generic --kmod rdma_rxe --add /usr/bin/rdma
# --add /usr/bin/ibv_devinfo --add /usr/lib/x86_64-linux-gnu/libibverbs
# --add /etc/libibverbs.d --add bench/mr-vm.sh (rxe goes on lo without a NIC).
run_mr() {
	if [ ! -d /sys/module/rdma_rxe ] || ! command -v rdma >/dev/null ||
	   ! command -v mr_bench >/dev/null || [ ! -f bench/mr-vm.sh ]; then
		say "mr: no rdma_rxe, rdma, mr_bench or bench/mr-vm.sh here: skipped"
		return 0
	fi
	if [ "$quick" = quick ]; then
		sh bench/mr-vm.sh -J -n 10000 -r 3
	else
		sh bench/mr-vm.sh -J -n 100000 -r 3
	fi
}
step mr run_mr

if [ -n "$failed" ]; then
	say "failed:$failed"
	exit 1
fi
say "all done"
