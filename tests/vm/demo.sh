#!/bin/sh
# not in the suite: make demo runs it (scripts/demo)
# make demo, inside the VM: two processes register memory, and the memreg
# tool shows them (tables, then JSON), live from the kernel over netlink;
# then device memory through the ACL runtime, and a grant, an import and
# single-copy transfers between two processes.
. "$(dirname "$0")/tap.sh"

show() {
	echo
	echo "\$ $*"
	"$@"
}

echo
echo "memreg demo on $(uname -r): memreg.ko loaded, /dev/memreg is $(ls -l /dev/memreg | cut -c1-10)"
start_hold /tmp/demo-a.txt -n 3 -s 1048576 -k anon || exit 1
a=$hold_pid
start_hold /tmp/demo-b.txt -n 2 -s 4194304 -k hugetlb || exit 1
b=$hold_pid
echo "process $a registered 3 x 1 MiB of anonymous memory"
echo "process $b registered 2 x 4 MiB of hugetlbfs memory (2 MiB pages)"

show memreg stats
show memreg proc
show memreg region
show memreg -p region pid "$b"
echo
echo "VmPin of $a: $(grep VmPin /proc/$a/status | tr -s ' \t' ' ' | cut -d' ' -f2-)"
echo "VmPin of $b: $(grep VmPin /proc/$b/status | tr -s ' \t' ' ' | cut -d' ' -f2-)"

echo
echo "kill -9 $a, exit $b: the kernel drops their registrations"
kill -9 "$a"
stop_hold "$b"
wait "$a" 2>/dev/null
show memreg stats

echo
echo "device memory: a process takes 4 MiB with aclrtMalloc on each emulated NPU"
acl_hold wait 4 >/tmp/demo-acl.txt &
acl=$!
wait_for /tmp/demo-acl.txt '^ready' 300 || exit 1
show memreg dev
echo "(aclrtMalloc adds 32 bytes of padding, as CANN does: 4 MiB + 32 is three 2 MiB chunks)"
kill -9 "$acl"
wait "$acl" 2>/dev/null
echo "kill -9 $acl: its device memory goes back"
show memreg dev

echo
echo "transfers: a process grants 1 MiB, a peer imports it, reads 1 MiB and writes 1 MiB"
xfer_hold >/tmp/demo-x.txt &
x=$!
wait_for /tmp/demo-x.txt '^ready' 300 || exit 1
set -- $(cat /tmp/demo-x.txt)
show memreg region pid "$2"
show memreg proc pid "$3"
stop_hold "$x"
show memreg stats
