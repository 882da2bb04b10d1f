#!/bin/sh
# A peer that restarts at the same name and addresses (issue 31,
# "incarnations"): an ADXL server is killed with SIGKILL and started
# again at the same port, with its buffer mapped at the same address
# (MAP_FIXED) and other bytes in it.  The client's 1,000 transfers with
# what it learnt before (WRITEs and READs in turn) are each refused:
# NOT_CONNECTED, adxl_peer_state() RESTARTED, no byte back; the new
# server's buffer is byte-identical afterwards; a fresh Connect reads it.
# Over the module (EOWNERDEAD from the revoked grant); over UCX and RDMA
# (the control connection, checked before each transfer) across two VMs:
# adxl_pair.sh restart (pair-6.12, rdma-6.1).  restart.sh 29310 ucx runs
# the UCX one in one VM, by hand.  Then the module's own word: an import of
# a grant whose owner exited says EOWNERDEAD, of one unregistered
# EKEYREVOKED (itest_xfer).  About 10 s on 6.12 (host load 2).
. "$(dirname "$0")/tap.sh"
tmp=/tmp/restart.$$
mkdir -p $tmp
size=$((1 << 20))
at=0x7e0000000000

# restart PORT [TRANSPORT]
restart() {
	port=$1 topt=${2:+-T $2}
	what="restart at 127.0.0.1:$port${2:+, Transport=$2}"
	rm -f $tmp/go $tmp/s1.out $tmp/s2.out $tmp/c.out
	# shellcheck disable=SC2086 # $topt: none or two words
	adxl_restart serve -l 127.0.0.1:$port -A $at -s $size -S 7 $topt \
		>$tmp/s1.out 2>$tmp/s1.err &
	s1=$!
	wait_for $tmp/s1.out '^ready' 600 || not_ok "$what: first server ready"
	# shellcheck disable=SC2086
	adxl_restart client -l 127.0.0.1:$((port + 1)) -c 127.0.0.1:$port \
		-A $at -s $size -S 7 -N 8 -W $tmp/go -n 1000 $topt \
		>$tmp/c.out 2>$tmp/c.err &
	c=$!
	if ! wait_for $tmp/c.out '^connected' 1200; then
		not_ok "$what: the client did not connect"
		sed 's/^/#   /' $tmp/c.out $tmp/c.err | tail -8
		kill -9 $s1 $c 2>/dev/null
		wait 2>/dev/null
		return
	fi
	kill -9 $s1
	wait $s1 2>/dev/null
	# shellcheck disable=SC2086
	adxl_restart serve -l 127.0.0.1:$port -A $at -s $size -S 8 $topt \
		>$tmp/s2.out 2>$tmp/s2.err &
	s2=$!
	wait_for $tmp/s2.out '^ready' 600 || not_ok "$what: second server ready"
	touch $tmp/go
	wait $c
	rc=$?
	kill -TERM $s2
	wait $s2
	rc2=$?
	if [ $rc = 0 ] && [ $rc2 = 0 ]; then
		ok "$what: $(sed -n 's/^pass client: all //p' $tmp/c.out)"
		ok "$what: a fresh Connect reads the new server; its buffer intact"
	else
		not_ok "$what: client exit $rc, new server exit $rc2"
		grep -h '^fail' $tmp/c.out $tmp/s2.out | sed 's/^/#   /'
		sed 's/^/#   /' $tmp/c.err | tail -5
	fi
}

if [ $# -gt 0 ]; then
	restart "$@"
else
	restart 29300
fi

# Nothing left pinned by either side.
check "no registration left" test "$(memreg -j region | jq length)" = 0
rm -rf $tmp
tap_done
