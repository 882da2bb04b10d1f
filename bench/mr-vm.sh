#!/bin/sh
# In the VM (bench/run-mr, or a step of bench/vm-bench.sh): an rxe device
# on the NIC, the per-process limit of memreg raised, then mr_bench ARGS
# (once per N of MR_ROWS="N ..." if set, with -n N).
# busybox sh.
dev=rxe0
if ! rdma link show $dev >/dev/null 2>&1; then
	modprobe rdma_rxe 2>/dev/null
	# the VM's NIC if it has one (bench/run-mr), else loopback
	rdma link add $dev type rxe netdev "${MEMREG_VM_NET_IF:-lo}" || exit 1
fi
n=0
until ibv_devinfo -d $dev 2>/dev/null | grep -q 'state:.*PORT_ACTIVE'; do
	n=$((n + 1))
	[ $n -gt 100 ] && { echo "mr-vm: $dev port never active"; exit 1; }
	sleep 0.1
done
echo "mr-vm: $(uname -r), $(ibv_devinfo -v -d $dev 2>/dev/null | grep -E 'max_mr:|max_mr_size')"
memreg limits set regions 4096 || exit 1
# MR_ROWS="10000 100000": one mr_bench -n N per N, in this boot
st=0
if [ -n "${MR_ROWS:-}" ]; then
	for n in $MR_ROWS; do
		mr_bench -d $dev -n "$n" "$@" || st=1
	done
else
	mr_bench -d $dev "$@" || st=1
fi
memreg limits set regions 256
exit $st
