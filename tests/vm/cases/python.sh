#!/bin/sh
# The Python packages on the module, two processes each: hixl's example
# flow (hixl_pair.py: a server's device buffer read by a client in 16 KiB
# blocks, half of it written back) and a prefill/decode pair of
# llm_datadist (llm_pd.py: pull_blocks by BlocksCacheKey, a layer alone,
# pull_cache by id, push_blocks back), every byte checked.  python3 is
# the tree tests/vm/python-tree makes, which tests/check.mk's 6.12 leg
# adds to its VM (MEMREG_VM_PYTHON names it); without it this case skips.
# Library code, which does not change with the kernel: one kernel runs it.
. "$(dirname "$0")/tap.sh"
bin=$(cd "$(dirname "$0")" && pwd)
py=${MEMREG_VM_PYTHON:-}
if [ -z "$py" ] || [ ! -x "$py/bin/python3" ]; then
	skip "hixl and llm_datadist in two processes" \
		"no python3 in this VM (MEMREG_VM_PYTHON: tests/vm/python-tree's tree)"
	tap_done
fi
python=$py/bin/python3
# The packages, and npu_mem.py beside the programs; no .pyc written.
export PYTHONPATH="$py/site:$bin" PYTHONDONTWRITEBYTECODE=1
tmp=/tmp/python.$$
mkdir -p $tmp
secs() { awk -v t0="$1" '{ printf "%.1f", $1 - t0 }' /proc/uptime; }

t0=$(cut -d' ' -f1 /proc/uptime)
out=$("$python" -c 'import hixl, llm_datadist; print(hixl.Hixl.__name__, llm_datadist.LLMDataDist.__name__)' 2>&1)
expect "python3 imports hixl and llm_datadist ($(secs "$t0") s)" "Hixl LLMDataDist" "$out"

# pair TAG NAME FIRST SECOND READY: FIRST in the background until its
# output (in $tmp/TAG.1) has READY, then SECOND; one TAP line NAME for
# the two, with their seconds.
pair() {
	tag=$1 name=$2 first=$3 second=$4 ready=$5
	t0=$(cut -d' ' -f1 /proc/uptime)
	# shellcheck disable=SC2086 # the programs' arguments are words
	"$python" $first >$tmp/$tag.1 2>&1 &
	pid=$!
	if ! wait_for $tmp/$tag.1 "$ready" 600; then
		kill -9 $pid 2>/dev/null
		not_ok "$name: the first process never got ready"
		sed 's/^/#   /' $tmp/$tag.1 | tail -20
		return
	fi
	# shellcheck disable=SC2086
	"$python" $second >$tmp/$tag.2 2>&1
	rc2=$?
	wait $pid
	rc1=$?
	n=$(cat $tmp/$tag.1 $tmp/$tag.2 | grep -c '^pass')
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && ! grep -q '^FAIL' $tmp/$tag.1 $tmp/$tag.2; then
		ok "$name: $n checks passed ($(secs "$t0") s)"
		grep -h '^pass' $tmp/$tag.1 $tmp/$tag.2 | sed 's/^/#   /'
	else
		not_ok "$name: exits $rc1 and $rc2"
		for f in $tmp/$tag.1 $tmp/$tag.2; do
			tail -n 25 "$f" | sed 's/^/#   /'
		done
	fi
}

pair hixl "hixl: the example's server and client, 8 MiB of device memory" \
	"$bin/hixl_pair.py --role server --device 1 --local-engine 127.0.0.1:16101" \
	"$bin/hixl_pair.py --role client --device 0 --local-engine 127.0.0.1:16100 --remote-engine 127.0.0.1:16101" \
	'^ready'
rm -f $tmp/prompt.ready $tmp/decoder.done
pair llm "llm_datadist: a prompt and a decoder" \
	"$bin/llm_pd.py --role prompt --dir $tmp --port 26100" \
	"$bin/llm_pd.py --role decoder --dir $tmp --port 26100" \
	'^pass prompt: caches'
rm -rf $tmp
tap_done
