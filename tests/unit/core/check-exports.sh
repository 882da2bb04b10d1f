#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The dynamic symbols of one of memreg's libraries (libmemreg.so or a CANN
# face: libascendcl.so, libcann_hixl.so, libllm_datadist.so) are exactly
# the global ones of its version script, each under the version of the
# node that lists it; each declared in a public header, none internal,
# but for a private node's (MEMREG_PRIVATE_*, ADXL_PRIVATE_*: what one
# library of memreg uses of another, no API); C++ symbols (LlmDataDist's
# methods) each match a pattern of an extern "C++" block of the script,
# whose class a public header declares; and every memreg_* symbol of the
# version script has its man page, docs/man/<symbol>.3 (a page of its own
# or a .so link to the page it shares), which scripts/install installs.
# The libraries with CANN's names carry no symbol versions, as CANN's
# (lib/Makefile says why): theirs are checked by name, and any version
# there fails.
# Usage: check-exports.sh SO VERSION_SCRIPT HEADER...
# MEMREG_MAN_DIR: the pages to check instead of the tree's docs/man.
set -eu
so=$1 map=$2
man=${MEMREG_MAN_DIR:-$(cd "$(dirname "$0")/../../.." && pwd)/docs/man}
lib=$(basename "$so")
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The script's symbols with their node, "name NODE" (a C++ pattern
# "ns::Class::* NODE"), in the order they come.  Comments are dropped;
# "local: *;" is not a symbol.
sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' "$map" | awk '
	/^[[:space:]]*[A-Za-z_][A-Za-z0-9_.]*[[:space:]]*\{/ { node = $1; sub(/\{.*/, "", node) }
	/^[[:space:]]*[A-Za-z_][A-Za-z0-9_:]*(::\*)?;[[:space:]]*$/ {
		s = $1; sub(/;.*/, "", s); print s, node
	}' >"$tmp/nodes"
grep -v '::' "$tmp/nodes" | sort >"$tmp/want_ver" || true
cut -d' ' -f1 "$tmp/want_ver" >"$tmp/want"
grep '::' "$tmp/nodes" >"$tmp/cxx_patterns" || true
grep -E ' [A-Z_]+_PRIVATE_[^ ]*$' "$tmp/want_ver" | cut -d' ' -f1 >"$tmp/private" || true

# The library's: "name VERSION" (name@@VERSION or name@VERSION).
nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' |
	sed 's/@@*/ /' | sort >"$tmp/all_ver"
unversioned=0
case $lib in
libascendcl.so | libcann_hixl.so | libllm_datadist.so | libmetadef.so)
	unversioned=1
	if grep -q ' ' "$tmp/all_ver"; then
		echo "FAIL $lib: symbols with versions, where CANN's have none:"
		grep ' ' "$tmp/all_ver" | head -n 5 | sed 's/^/  /'
		status_v=1
	fi
	# By name: the script's nodes are the record, not the library's.
	sed 's/ .*//' "$tmp/want_ver" | sort >"$tmp/want_names"
	sed 's/ .*//' "$tmp/all_ver" | sort >"$tmp/all_ver.n"
	mv "$tmp/want_names" "$tmp/want_ver"
	mv "$tmp/all_ver.n" "$tmp/all_ver"
	;;
esac
cut -d' ' -f1 "$tmp/all_ver" >"$tmp/all"
grep -v '^_Z' "$tmp/all_ver" >"$tmp/got_ver" || true
cut -d' ' -f1 "$tmp/got_ver" >"$tmp/got"

status=${status_v:-0}
for sym in $(grep '^_Z' "$tmp/all"); do
	dem=$(echo "$sym" | c++filt)
	ver=$(grep "^$sym " "$tmp/all_ver" | cut -d' ' -f2)
	matched= node=
	while read -r pat pnode; do
		# shellcheck disable=SC2254 # the pattern is a glob on purpose
		case $dem in ${pat%\*}*) matched=$pat node=$pnode ;; esac
	done <"$tmp/cxx_patterns"
	if [ -z "$matched" ]; then
		echo "FAIL $lib: C++ symbol in no extern \"C++\" pattern of $map: $dem"
		status=1
		continue
	fi
	[ "$unversioned" = 1 ] || [ "$ver" = "$node" ] ||
		{ echo "FAIL $lib: $dem has version '$ver', its node is $node"; status=1; }
	cls=${matched%::\*}
	cls=${cls##*::}
	cat "$@" | grep -Eq "class( [^ ]*)? $cls\b" ||
		{ echo "FAIL $lib: $dem: class $cls not declared in a public header"; status=1; }
done

if ! cmp -s "$tmp/want_ver" "$tmp/got_ver"; then
	echo "FAIL $lib: exports (name version) differ from $map (- script, + library):"
	diff "$tmp/want_ver" "$tmp/got_ver" | sed -n 's/^[<>]/  &/p'
	status=1
fi
for sym in $(cat "$tmp/got"); do
	grep -qx "$sym" "$tmp/private" && continue
	case $sym in
	memreg__* | adxl__*) echo "FAIL $lib: internal symbol exported: $sym"; status=1 ;;
	esac
	cat "$@" | grep -q "[ *]$sym(" ||
		{ echo "FAIL $lib: $sym not declared in a public header"; status=1; }
done
how="each under its node of the version script"
[ "$unversioned" = 1 ] && how="those of the version script, unversioned as CANN's"
[ $status = 0 ] && echo "ok exports: $lib: $(($(wc -l <"$tmp/got") - $(wc -l <"$tmp/private"))) C symbols, $(wc -l <"$tmp/private") private and $(grep -c '^_Z' "$tmp/all") C++ ones, $how; the public ones in headers"

# The man pages: one per memreg_* symbol of the script, and a link page's
# target (".so man3/<page>.3") present too.
grep -qE '^memreg_[^_]' "$tmp/want" || exit $status
man_status=0 pages=0
for sym in $(grep -E '^memreg_[^_]' "$tmp/want"); do
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
