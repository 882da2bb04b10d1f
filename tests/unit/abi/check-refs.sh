#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What a program compiled against CANN's declarations asks the libraries
# for: the C++ symbols of ge::, adxl::, hixl:: and llm_datadist:: an
# object or program leaves undefined (nm -u, demangled).  Each FILE's are
# all in some LIST of symbols/ (so that the lists, which the libraries
# are checked against, cannot miss a method of cann_decls.h), and the
# files of one NAME, built with _GLIBCXX_USE_CXX11_ABI=0 and =1, ask for
# the same mangled names: no signature depends on the string ABI.
# Usage: check-refs.sh NAME ABI0_FILE ABI1_FILE LIST...
set -u
name=$1 f0=$2 f1=$3
shift 3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

refs() {
	nm -u "$1" | awk '{ sub(/@.*/, "", $2); print $2 }' |
		grep -E '^_ZNK?(2ge|4adxl|4hixl|12llm_datadist)[0-9]' | sort -u
}
refs "$f0" >"$tmp/0" && refs "$f1" >"$tmp/1"
if [ -s "$tmp/0" ] && cmp -s "$tmp/0" "$tmp/1"; then
	echo "ok - refs: $name: the builds with _GLIBCXX_USE_CXX11_ABI=0 and =1 ask for the same $(wc -l <"$tmp/0") C++ symbols"
else
	echo "not ok - refs: $name: the two string ABIs ask for different symbols (< =0, > =1):"
	diff "$tmp/0" "$tmp/1" | sed -n 's/^[<>]/#   &/p'
	status=1
fi
cat "$@" | grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' | sort -u >"$tmp/listed"
c++filt <"$tmp/0" | sort -u >"$tmp/asked"
unlisted=$(comm -23 "$tmp/asked" "$tmp/listed")
if [ -z "$unlisted" ]; then
	echo "ok - refs: $name: all $(wc -l <"$tmp/asked") are in the lists of symbols/"
else
	echo "not ok - refs: $name asks for symbols no list of symbols/ names:"
	echo "$unlisted" | sed 's/^/#   /'
	status=1
fi
exit $status
