#!/bin/sh
# not in the suite: a leg of its own (scripts/check, or the script named below)
# ADXL across two hosts: the guest side of tests/vm/adxl-pair, run in both
# VMs of tests/vm/pair (a = 10.9.0.1, b = 10.9.0.2), each with its own
# kernel and memreg.ko, so engines reach each other over UCX (TCP).
#
#   adxl_pair.sh exchange       both VMs: host and device memory, both ways
#   adxl_pair.sh victim         a: serve, power off while b reads
#   adxl_pair.sh survivor       b: read until a vanishes, then Connect again
#   adxl_pair.sh back           a, booted again: exchange with b
#   adxl_pair.sh restart        a: serve, die, serve again; b: stale
#                               transfers refused, then Connect again
#
# ADXL_PAIR_TRANSPORT=rdma: the engines' Transport (adxl_peer -T), for the
# power loss over soft-RoCE (rdma_pair.sh victim|survivor|back).
. "$(dirname "$0")/tap.sh"
me=$MEMREG_VM_NET_ADDR
peer=$MEMREG_VM_PEER_ADDR
size=$((4 << 20))
tmp=/tmp/adxl_pair
mkdir -p $tmp
# An engine serves other hosts only if they are on its allow-list
# (docs/adxl.md, "Who may connect"): here, the other VM.
export MEMREG_ADXL_ALLOW_PEERS=$peer

# peer_run NAME ARGS...: adxl_peer in the background, output in $tmp/NAME.*
peer_run() {
	name=$1
	shift
	adxl_peer ${ADXL_PAIR_TRANSPORT:+-T "$ADXL_PAIR_TRANSPORT"} "$@" \
		>$tmp/$name.out 2>$tmp/$name.err &
	echo $! >$tmp/$name.pid
}

# The power loss's engines trace their Connects and their port
# (MEMREG_ADXL_VERBOSE=2) onto the console, "engine NAME: ..." in the VM's
# log: a VM the harness stops after the other failed judges nothing.
trace_engine() {
	tail -f $tmp/$1.err 2>/dev/null | sed "s/^/engine $1: /" &
}

# Engines on port 29000 hold host memory in a and device memory in b, on
# 29001 the other way round; each reads and writes its peer's buffer in
# batches of 1 to 4096 descriptors and checks every byte, and checks what
# its peer wrote into it.  Seeds: a 11/12, b 21/22.
exchange() {
	# An engine whose allow-list names some other host refuses this
	# VM's Connect, and hands out nothing.
	(
		export MEMREG_ADXL_ALLOW_PEERS=10.9.0.99
		peer_run r -l "$me:29050" -s 65536 -S 5
	)
	adxl_peer -l "$me" -s 65536 -S 6 -c "$peer:29050" -r -C 120000 \
		>$tmp/r-client.out 2>$tmp/r-client.err
	if grep -q '^pass .* refused us.*allow-list' $tmp/r-client.out; then
		ok "VM $MEMREG_VM_PAIR: the other VM's engine refuses us: not on its allow-list"
	else
		not_ok "VM $MEMREG_VM_PAIR: Connect to an engine that does not allow us"
		cat $tmp/r-client.out $tmp/r-client.err | tail -5 | sed 's/^/#   /'
	fi
	if [ "$MEMREG_VM_PAIR" = a ]; then
		k0=host k1=dev s0=11 s1=12 p0=22 p1=21
	else
		k0=dev k1=host s0=21 s1=22 p0=12 p1=11
	fi
	peer_run e0 -l "$me:29000" -k $k0 -s $size -S $s0 -c "$peer:29001" \
		-a notify -P $p0 -w 1 -C 120000 -b 1,16,4096
	peer_run e1 -l "$me:29001" -k $k1 -s $size -S $s1 -c "$peer:29000" \
		-a notify -P $p1 -w 1 -C 120000 -b 1,16,4096
	judge e0 "VM $MEMREG_VM_PAIR: $k0 memory with the other VM's $k1 memory over UCX"
	judge e1 "VM $MEMREG_VM_PAIR: $k1 memory with the other VM's $k0 memory over UCX"
	# The refusing engine served until now: the other VM has tried it.
	rpid=$(cat $tmp/r.pid)
	kill "$rpid"
	while kill -0 "$rpid" 2>/dev/null; do sleep 1; done
	if grep -q 'refused a peer' $tmp/r.err; then
		ok "VM $MEMREG_VM_PAIR: our engine refused the other VM, and said why"
	else
		not_ok "VM $MEMREG_VM_PAIR: our refusing engine logged no refusal"
		tail -5 $tmp/r.err | sed 's/^/#   /'
	fi
	left=$(memreg -j stats | jq '.regions')
	expect "VM $MEMREG_VM_PAIR: no registration left" 0 "$left"
}

# a's first boot: exchange addresses, then read b's memory in a loop while
# serving b's reads of ours; when both loop, the harness cuts the power
# (kills qemu: no sync, no TCP reset to b).  b loses a server and a client
# at once.  Not sysrq o: with b's packets arriving all the time, a
# one-CPU guest could spin in virtio-net's softirq poll and never run the
# poweroff work (a soft lockup until the run's timeout, seen on 6.1).
victim() {
	export MEMREG_ADXL_VERBOSE=2
	peer_run v -l "$me:29100" -k dev -s $size -S 31 -c "$peer:29100" \
		-a notify -P 32 -L -C 120000
	trace_engine v
	if wait_for $tmp/v.out '^peer looping' 3000 &&
	   wait_for $tmp/v.out '^looping' 3000; then
		sleep 1
		echo "adxl_pair: cutting the power while b reads"
		echo MEMREG-VM-PULL-PLUG
		sleep 60
	fi
	not_ok "VM a: b never said it was reading"
	cat $tmp/v.out $tmp/v.err | tail -n 10 | sed 's/^/#   /'
}

# b: read a's device memory in a loop with a 5 s timeout, serving a's
# reads of ours, until a's host vanishes; then Connect again until a is
# back and run the exchange.
survivor() {
	export MEMREG_ADXL_VERBOSE=2
	peer_run s -l "$me:29100" -k host -s $size -S 32 -c "$peer:29100" \
		-a notify -P 31 -L -R 600 -t 5000 -w 1 -C 120000 -b 1,4096
	trace_engine s
	wait "$(cat $tmp/s.pid)"
	rc=$?
	err=$(grep '^error' $tmp/s.out)
	took=$(sed -n 's/.*the failing call took \([0-9]*\) ms.*/\1/p' $tmp/s.out)
	if contains "$err" '^error \(TIMEOUT\|FAILED\)'; then
		ok "VM b: a's host lost power mid-transfer${ADXL_PAIR_TRANSPORT:+ (over $ADXL_PAIR_TRANSPORT)}: ${err#error }"
	else
		not_ok "VM b: a's host lost power mid-transfer: '$err'"
	fi
	# The timeout, and no more than a little over it: never a hang.
	if [ -n "$took" ] && [ "$took" -le 8000 ]; then
		ok "VM b: the failing transfer returned after $took ms (timeout 5000 ms)"
	else
		not_ok "VM b: the failing transfer took '$took' ms (timeout 5000 ms)"
	fi
	# b was serving a's reads too when a vanished: the same process
	# Connects again (UCX 1.13's get/put used to abort it here).
	if grep -q '^pass connected to .* again' $tmp/s.out; then
		ok "VM b: survived losing the client it served; Connect works again once a is back"
	else
		not_ok "VM b: no Connect after a came back"
	fi
	passes=$(grep -c '^pass' $tmp/s.out)
	if [ $rc = 0 ] && ! grep -q '^fail' $tmp/s.out; then
		ok "VM b: transfers with the new a: $passes checks passed"
	else
		not_ok "VM b: exit $rc"
		grep -h '^fail' $tmp/s.out | head -10 | sed 's/^/#   /'
		tail -n 10 $tmp/s.err | sed 's/^/#   /'
	fi
	left=$(memreg -j stats | jq '.regions')
	expect "VM b: no registration left" 0 "$left"
}

# a's second boot: the exchange with b, which connected to us again.
back() {
	export UCX_LOG_LEVEL=debug UCX_LOG_PRINT_ENABLE=n MEMREG_ADXL_VERBOSE=2
	peer_run n -l "$me:29100" -k dev -s $size -S 31 -c "$peer:29100" \
		-a notify -P 32 -w 1 -C 120000 -b 1,4096
	trace_engine n
	judge n "VM a (booted again): device memory with b's host memory"
}

# A peer restarts at the same name and addresses (tests/vm/progs/
# adxl_restart.c): a's server is killed with SIGKILL once b has read its
# buffer, and started again at the same port with its buffer mapped at
# the same address and other bytes in it.  b's 1,000 transfers with what
# it learnt before are each refused as RESTARTED, a's new buffer is
# byte-identical after them, and b's fresh Connect reads it.
restart() {
	over=${ADXL_PAIR_TRANSPORT:-ucx}
	topt="-T $over"
	at=0x7e0000000000
	if [ "$MEMREG_VM_PAIR" = a ]; then
		# shellcheck disable=SC2086 # $topt: two words
		adxl_restart serve -l "$me:29400" -A $at -s $size -S 41 $topt \
			>$tmp/rs1.out 2>$tmp/rs1.err &
		rs1=$!
		if ! wait_for $tmp/rs1.out '^peer connected' 3000; then
			not_ok "VM a: restart over $over: b never connected"
			tail -5 $tmp/rs1.err | sed 's/^/#   /'
			kill -9 $rs1
			return
		fi
		kill -9 $rs1
		wait $rs1 2>/dev/null
		# shellcheck disable=SC2086
		adxl_restart serve -l "$me:29400" -A $at -s $size -S 42 $topt \
			>$tmp/rs2.out 2>$tmp/rs2.err &
		rs2=$!
		# until b said "done" (it has judged), or the case's patience
		n=0
		while kill -0 $rs2 2>/dev/null && [ $n -lt 1500 ]; do
			sleep 0.2
			n=$((n + 1))
		done
		kill -9 $rs2 2>/dev/null
		wait $rs2
		rc=$?
		if [ $rc = 0 ] && grep -q '^pass serve.*intact' $tmp/rs2.out; then
			ok "VM a: restart over $over: the new server's buffer is byte-identical after b's stale transfers"
		else
			not_ok "VM a: restart over $over: new server exit $rc"
			grep -h '^fail' $tmp/rs2.out | sed 's/^/#   /'
			tail -5 $tmp/rs2.err | sed 's/^/#   /'
		fi
	else
		# shellcheck disable=SC2086
		adxl_restart client -l "$me:29401" -c "$peer:29400" -A $at \
			-s $size -S 41 -N 42 -n 1000 $topt \
			>$tmp/rc.out 2>$tmp/rc.err
		rc=$?
		if [ $rc = 0 ]; then
			ok "VM b: restart over $over: $(sed -n 's/^pass client: all //p' $tmp/rc.out)"
			ok "VM b: restart over $over: a fresh Connect reads the new server"
		else
			not_ok "VM b: restart over $over: client exit $rc"
			grep -h '^fail' $tmp/rc.out | sed 's/^/#   /'
			tail -5 $tmp/rc.err | sed 's/^/#   /'
		fi
	fi
}

for step in "$@"; do
	case "$step" in
	exchange|victim|survivor|back|restart) "$step" ;;
	*) echo "adxl_pair.sh: unknown step $step" >&2; exit 2 ;;
	esac
done
rm -rf $tmp
tap_done
