#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dynamic symbols of libmemreg.so are exactly the global ones of the
# version script (every node: the core's and each API layer's), each
# declared in a public header, none internal; C++ symbols (LlmDataDist's
# methods) each match a pattern of an extern "C++" block of the script,
# whose class a public header declares; and every memreg_* symbol of
# the version script has its man page, docs/man/<symbol>.3 (a page of its
# own or a .so link to the page it shares), which scripts/install installs.
# Usage: check-exports.sh LIBMEMREG_SO VERSION_SCRIPT HEADER...
# MEMREG_MAN_DIR: the pages to check instead of the tree's docs/man.
set -eu
so=$1 map=$2
man=${MEMREG_MAN_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/docs/man}
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Symbols are listed by name, one per line ("name;"); "local: *;" is not one.
grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;[[:space:]]*$' "$map" |
	tr -d ' \t;' | sort >"$tmp/want"
nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' |
	sed 's/@.*//' | sort >"$tmp/all"
grep -v '^_Z' "$tmp/all" >"$tmp/got" || true
# extern "C++" patterns: "ns::Class::*;" lines
grep -E '^[[:space:]]*[A-Za-z_][A-Za-z0-9_:]*::\*;[[:space:]]*$' "$map" |
	tr -d ' \t;' >"$tmp/cxx_patterns" || true

status=0
for sym in $(grep '^_Z' "$tmp/all"); do
	dem=$(echo "$sym" | c++filt)
	matched=
	while read -r pat; do
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $dem in $pat*) matched=$pat ;; esac
	done <"$tmp/cxx_patterns"
	if [ -z "$matched" ]; then
		echo "FAIL C++ symbol in no extern \"C++\" pattern of $map: $dem"
		status=1
		continue
	fi
	cls=${matched%::\*}
	cls=${cls##*::}
	cat "$@" | grep -Eq "class( [^ ]*\))? $cls\b" ||
		{ echo "FAIL $dem: class $cls not declared in a public header"; status=1; }
done

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
[ $status = 0 ] && echo "ok exports: $(wc -l <"$tmp/got") C symbols and $(grep -c '^_Z' "$tmp/all") C++ ones, all in the version script and headers"

# The man pages: one per memreg_* symbol of the script, and a link page's
# target (".so man3/<page>.3") present too.
man_status=0 pages=0
for sym in $(grep -E '^memreg_' "$tmp/want"); do
	page=$man/$sym.3
	if [ ! -f "$page" ]; then
		echo "not ok - man page: $sym has no docs/man/$sym.3"
		man_status=1
		continue
	fi
	pages=$((pages + 1))
	target=$(sed -n '1s|^\.so man3/||p' "$page")
	if [ -n "$target" ] && [ ! -f "$man/$target" ]; then
		echo "not ok - man page: docs/man/$sym.3 links to man3/$target, which is missing"
		man_status=1
	fi
done
if [ $man_status = 0 ]; then
	echo "ok - man pages: all $pages memreg_* symbols of the version script have docs/man/<symbol>.3"
else
	status=1
fi
exit $status
