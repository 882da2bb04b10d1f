#!/bin/sh
# 10,000 registrations over 8 processes (1,200 on the debug kernel, still
# several dump messages), listed completely by the tool (several netlink
# dump messages, resumed by cursor) while another process keeps
# registering and unregistering.
. "$(dirname "$0")/tap.sh"

per=1250
is_debug_kernel && per=150
total=$((8 * per))
if ! is_root; then
	skip "$total registrations listed while changing" "needs root to raise max_regions"
	tap_done
fi

memreg limits set regions 2000 || not_ok "raise the default registration limit"
pids=
for i in 1 2 3 4 5 6 7 8; do
	start_hold /tmp/list-$i.txt -n $per -s 4096 || not_ok "holder $i"
	pids="$pids $hold_pid"
done
memreg_hold -c -n 1 -s 4096 >/tmp/list-churn.txt 2>/tmp/list-churn.err &
churn=$!
sleep 0.5

awk '$1 == "reg" { print $2 }' /tmp/list-[1-8].txt | sort -n >/tmp/list-want
expect "holders registered $total" $total "$(wc -l </tmp/list-want)"

# and processes that come and go (killed mid-life) while the dumps run
rm -f /tmp/list-stop
(while [ ! -e /tmp/list-stop ]; do
	memreg_hold -n 3 -s 4096 >/dev/null &
	p=$!
	sleep 0.05
	kill -9 $p
	wait $p 2>/dev/null
done) &
procs=$!

filter=$(echo "$pids" | sed 's/^ //; s/ /,/g')
for round in 1 2 3; do
	memreg -j region >/tmp/list-got.json || not_ok "region -j exit status"
	jq -r ".[] | select(.pid as \$p | [$filter] | index(\$p)) | .id" \
		/tmp/list-got.json | sort -n >/tmp/list-got
	if cmp -s /tmp/list-want /tmp/list-got; then
		ok "round $round: every registration listed exactly once"
	else
		not_ok "round $round: listing differs"
		echo "#   want $(wc -l </tmp/list-want) got $(wc -l </tmp/list-got) unique $(uniq /tmp/list-got | wc -l)"
	fi
done
start=$(date +%s)
memreg region >/tmp/list-table.txt
expect "table: $total rows of the holders" $total \
	"$(awk -v p=" $pids " 'index(p, " " $1 " ")' /tmp/list-table.txt | wc -l)"
echo "# table of $(wc -l </tmp/list-table.txt) lines in $(( $(date +%s) - start )) s"

for round in 1 2 3; do
	memreg -j proc >/tmp/list-procs.json || not_ok "proc -j exit status"
	expect "proc -j round $round: the 8 holders with $per each" \
		"$per $per $per $per $per $per $per $per" \
		"$(jq -r ".[] | select(.pid as \$p | [$filter] | index(\$p)) | .regions" /tmp/list-procs.json | tr '\n' ' ' | sed 's/ $//')"
done
touch /tmp/list-stop
wait "$procs"
kill "$churn"
wait "$churn"
expect "churn process kept working" 0 "$?"
cat /tmp/list-churn.err | sed 's/^/# /'
for p in $pids; do
	stop_hold "$p"
done
memreg limits set regions 256
expect "everything gone after the holders exit" 0 \
	"$(memreg -j stats | jq .regions)"
tap_done
