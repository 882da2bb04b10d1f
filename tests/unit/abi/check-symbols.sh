#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The CANN libraries export what their lists say (issue 30): for each
# LIST (symbols/<library>.txt: one symbol a line, demangled as c++filt
# prints it, no version; blank lines and # comments ignored), the
# library of that name in LIBDIR defines every symbol listed (nm -D
# --defined-only, any version), and none of its exported signatures
# names libstdc++'s C++11 string ABI ([abi:cxx11], std::__cxx11::), which
# a program built with the other _GLIBCXX_USE_CXX11_ABI could not call.
# One TAP line per check; the missing symbols are named.
# Usage: check-symbols.sh LIBDIR LIST...
set -u
libdir=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

for list in "$@"; do
	lib=$(basename "$list" .txt)
	so=$libdir/$lib
	if ! nm -D --defined-only "$so" >"$tmp/nm" 2>&1; then
		echo "not ok - symbols: $lib: nm -D $so failed: $(head -1 "$tmp/nm")"
		status=1
		continue
	fi
	awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | c++filt |
		sort -u >"$tmp/have"
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$list" | sort -u >"$tmp/want"
	missing=$(comm -23 "$tmp/want" "$tmp/have")
	if [ -z "$missing" ]; then
		echo "ok - symbols: $lib exports all $(wc -l <"$tmp/want") symbols of $(basename "$list")"
	else
		echo "not ok - symbols: $lib lacks $(echo "$missing" | wc -l) of the $(wc -l <"$tmp/want") symbols of $(basename "$list"):"
		echo "$missing" | sed 's/^/#   /'
		status=1
	fi
	tagged=$(grep -e '\[abi:cxx11\]' -e 'std::__cxx11::' "$tmp/have")
	if [ -z "$tagged" ]; then
		echo "ok - symbols: no symbol $lib exports names the C++11 string ABI"
	else
		echo "not ok - symbols: $lib exports symbols of the C++11 string ABI only:"
		echo "$tagged" | sed 's/^/#   /'
		status=1
	fi
done
exit $status
