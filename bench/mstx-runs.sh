#!/bin/sh
# mstx_bench's single measurements (-1), repeated, as "BENCH {...}" lines
# for scripts/bench (bench/bench_json.h has the format):
#   bench/mstx-runs.sh WHERE RUNS ITERATIONS
# For each way of using regions (pair, window), RUNS rounds of: no tool,
# memreg attached (MSTX_INJECTION_PATH=libmemreg.so; only where
# /dev/memreg exists) and mstx_bench_stub (the library with a stub
# kernel).  Alternating within a round, so that a slow spell of the
# machine hits all three.  WHERE names the place in the report (native,
# vm).  mstx_bench and mstx_bench_stub are found in PATH.
set -u
where=$1 runs=$2 n=$3
lib=
for d in $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' '); do
	[ -e "$d/libmemreg.so" ] && lib=$d/libmemreg.so && break
done
[ -n "$lib" ] || lib=libmemreg.so
attach=0
[ -r /dev/memreg ] && [ -w /dev/memreg ] && attach=1

# ns per call of one -1 run ("ns_per_call NS tool ID"); "null" if none
one() {
	v=$("$@" | awk '/^ns_per_call/ { print $2 }')
	echo "${v:-null}"
}

for mode in pair window; do
	none= with= stub=
	if [ $attach = 1 ]; then
		tool=$(MSTX_INJECTION_PATH=$lib mstx_bench -1 -n 1000 -m $mode |
			awk '/^ns_per_call/ { print $4 }')
		if [ -z "$tool" ] || [ "$tool" = 0 ]; then
			echo "mstx-runs: libmemreg ($lib) did not attach as the tool" >&2
			exit 1
		fi
	fi
	i=0
	while [ $i -lt "$runs" ]; do
		none="$none${none:+,}$(one mstx_bench -1 -n "$n" -m $mode)"
		if [ $attach = 1 ]; then
			with="$with${with:+,}$(one env MSTX_INJECTION_PATH="$lib" mstx_bench -1 -n "$n" -m $mode)"
		fi
		stub="$stub${stub:+,}$(one mstx_bench_stub -1 -n "$n" -m $mode)"
		i=$((i + 1))
	done
	echo "BENCH {\"bench\":\"mstx\",\"where\":\"$where\",\"mode\":\"$mode\",\"calls\":$((2 * n)),\"none_ns\":[$none],\"memreg_ns\":[$with],\"stub_ns\":[$stub]}"
done
