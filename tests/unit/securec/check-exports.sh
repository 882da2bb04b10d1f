#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# libc_sec.so as a CANN toolkit's: SONAME libc_sec.so, no dependency on
# libmemreg (a program may load it without ours), and its dynamic symbols
# exactly the functions of lib/securec/libc_sec.map, unversioned, each
# declared in <securec.h>.  One TAP line.
# Usage: check-exports.sh LIBC_SEC_SO VERSION_SCRIPT SECUREC_H
so=$1 map=$2 hdr=$3
want=$(grep -E '^[[:space:]]*[a-z_]+;[[:space:]]*$' "$map" | tr -d ' \t;' | sort)
got=$(nm -D --defined-only "$so" | awk '$2 == "T" || $2 == "D" || $2 == "B" { print $3 }' | sort)
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
why=
[ "$want" = "$got" ] || why="$why exports differ from $(basename "$map"): $(echo $got);"
echo "$got" | grep -q @ && why="$why versioned symbols;"
[ "$soname" = libc_sec.so ] || why="$why SONAME '$soname';"
readelf -d "$so" | grep -q 'NEEDED.*libmemreg' && why="$why needs libmemreg;"
for f in $got; do
	grep -q "[ *]$f(" "$hdr" || why="$why $f not declared in $(basename "$hdr");"
done
if [ -z "$why" ]; then
	echo "ok - securec exports: libc_sec.so (SONAME libc_sec.so) exports the $(echo "$got" | wc -l) functions of <securec.h>, unversioned"
else
	echo "not ok - securec exports:$why"
	exit 1
fi
