#!/bin/sh
# libmemreg against the real module: the library's walk-through example
# (open, info, register, query, unregister) and its error sentences.
. "$(dirname "$0")/tap.sh"

out=$(example_register 1048576 2>&1)
expect "example_register: exit status" 0 "$?"
check "example_register: registered" contains "$out" '^registered 1048576 bytes'
check "example_register: listed" contains "$out" '^1 in all'
check "example_register: unregistered" contains "$out" '^unregistered 0x'
check "example_register: reports the kernel's ABI" \
	contains "$out" '^memreg ABI 1, page size 4096'
check "example_register: reports the limits" contains "$out" 'registrations *256'

if is_root; then
	skip "RLIMIT_MEMLOCK error sentence" "root has CAP_IPC_LOCK"
else
	out=$(ulimit -l 64; example_register 1048576 2>&1)
	expect "over RLIMIT_MEMLOCK: exit status" 1 "$?"
	check "over RLIMIT_MEMLOCK: the library says why" \
		contains "$out" 'register: locked memory limit RLIMIT_MEMLOCK'
fi
tap_done
