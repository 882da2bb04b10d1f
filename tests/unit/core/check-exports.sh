#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dynamic symbols of libmemreg.so are exactly the global ones of the
# version script (every node: the core's and each API layer's), each
# declared in a public header, none internal.
# Usage: check-exports.sh LIBMEMREG_SO VERSION_SCRIPT HEADER...
set -eu
so=$1 map=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Symbols are listed by name, one per line ("name;"); "local: *;" is not one.
grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;[[:space:]]*$' "$map" |
	tr -d ' \t;' | sort >"$tmp/want"
nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' |
	sed 's/@.*//' | sort >"$tmp/got"

status=0
if ! cmp -s "$tmp/want" "$tmp/got"; then
	echo "FAIL exports differ from $map (- script, + library):"
	diff "$tmp/want" "$tmp/got" | sed -n 's/^[<>]/  &/p'
	status=1
fi
for sym in $(cat "$tmp/got"); do
	case $sym in
	memreg__*) echo "FAIL internal symbol exported: $sym"; status=1 ;;
	esac
	cat "$@" | grep -q "[ *]$sym(" ||
		{ echo "FAIL $sym not declared in a public header"; status=1; }
done
[ $status = 0 ] && echo "ok exports: $(wc -l <"$tmp/got") symbols, all in the version script and headers"
exit $status
