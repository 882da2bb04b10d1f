#!/bin/sh
# make demo, inside the VM: two processes register memory, and the memreg
# tool shows them (tables, then JSON), live from the kernel over netlink.
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
