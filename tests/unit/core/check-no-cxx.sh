#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# libmemreg is a library of C (issue 29): it needs no libstdc++ and
# exports and imports no C++ symbol, and a C program of <memreg/memreg.h>
# alone loads no libstdc++ (ldd, the libraries it would load).  One TAP
# line.
# Usage: check-no-cxx.sh LIBMEMREG_SO PROGRAM...
so=$1
shift
why=
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
*stdc++* | *libgcc_s*) why="$why $(basename "$so") needs $needed;" ;;
esac
cxx=$(nm -D "$so" | awk '{ print $NF }' | grep -c '^_Z')
[ "$cxx" = 0 ] || why="$why $(basename "$so") has $cxx C++ symbols;"
for p in "$@"; do
	deps=$(ldd "$p" 2>&1) || { why="$why ldd $p failed;"; continue; }
	echo "$deps" | grep -q 'libmemreg.so.1 => ' ||
		why="$why $(basename "$p") does not load libmemreg.so.1;"
	echo "$deps" | grep -q 'libstdc++' &&
		why="$why $(basename "$p") loads $(echo "$deps" | grep 'libstdc++' | awk '{ print $1 }');"
done
if [ -z "$why" ]; then
	echo "ok - no C++: $(basename "$so") needs ${needed% } and no C++ symbol; ldd of $(for p in "$@"; do basename "$p"; done | tr '\n' ' ')shows no libstdc++"
else
	echo "not ok - no C++:$why"
	exit 1
fi
