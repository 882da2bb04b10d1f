#!/bin/sh
# not in the suite: tests/vm/rdma-pair --fanin (after its steps with --only)
# Fan-in over soft-RoCE between the three VMs of tests/vm/pair -c, joined
# by a hub: b and c each serve 4 MiB of host memory with a pattern of
# their own; a's one engine (adxl_fanin) connects to both, reads both at
# the same time over RDMA, checks every byte, then writes each a pattern
# that the server checks.
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/rxe.sh"
me=$MEMREG_VM_NET_ADDR
port=29300
size=$((4 << 20))
tmp=/tmp/rdma_fanin
mkdir -p $tmp
export MEMREG_ADXL_VERBOSE=1

rxe_up || tap_done
case "$MEMREG_VM_PAIR" in
a)
	export MEMREG_ADXL_ALLOW_PEERS="$MEMREG_VM_ADDR_B,$MEMREG_VM_ADDR_C"
	adxl_fanin -T rdma -l "$me:$port" -s $size -r 8 -b 64 \
		"$MEMREG_VM_ADDR_B:$port=71" "$MEMREG_VM_ADDR_C:$port=72" \
		>$tmp/fanin.out 2>$tmp/fanin.err &
	echo $! >$tmp/fanin.pid
	judge fanin "VM a: one engine reads from b and c at once over RDMA"
	grep '^pass' $tmp/fanin.out | sed 's/^pass /#   /'
	n=$(grep -c 'over RDMA, ' $tmp/fanin.err)
	if [ "$n" -ge 2 ]; then
		ok "VM a: Connect chose RDMA for both peers: $(sed -n 's/.*over RDMA, //p' $tmp/fanin.err | head -1)"
	else
		not_ok "VM a: Connect chose RDMA for $n of 2 peers"
		tail -5 $tmp/fanin.err | sed 's/^/#   /'
	fi
	;;
b|c)
	if [ "$MEMREG_VM_PAIR" = b ]; then seed=71; else seed=72; fi
	export MEMREG_ADXL_ALLOW_PEERS="$MEMREG_VM_ADDR_A"
	# c may wait for a while a and b run rdma_pair.sh's steps first
	# (tests/vm/rdma-pair --only ... --fanin, make check's rdma-6.1)
	adxl_peer -T rdma -l "$me:$port" -k host -s $size -S $seed -n -w 1 \
		-c "$MEMREG_VM_ADDR_A:$port" -a notify -P 0 -C 600000 \
		>$tmp/serve.out 2>$tmp/serve.err &
	echo $! >$tmp/serve.pid
	judge serve "VM $MEMREG_VM_PAIR: served a's reads over RDMA, and holds what a wrote"
	;;
esac
left=$(memreg -j stats | jq '.regions')
expect "VM $MEMREG_VM_PAIR: no registration left" 0 "$left"
rdma link delete $dev 2>/dev/null
rm -rf $tmp
tap_done
