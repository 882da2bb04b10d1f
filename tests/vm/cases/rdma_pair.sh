#!/bin/sh
# not in the suite: a leg of its own (scripts/check, or the script named below)
# Soft-RoCE between the two VMs of tests/vm/pair: the guest side of
# tests/vm/rdma-pair.  Each VM puts an rxe device on its virtio-net link
# (rdma_rxe, `rdma link add`), checks that verbs see an active port, and
# the two run perftest's ib_read_bw, ib_write_bw and ib_read_lat across the
# link (a serves, b connects), on the GID of the link's IPv4 address
# (RoCE v2).  Not over RDMA CM (-R): perftest 4.5's ib_read_lat crashes in
# librdmacm there.
#
#   rdma_pair.sh check     both VMs: rxe up, ibv_devinfo, perftest
. "$(dirname "$0")/tap.sh"
peer=$MEMREG_VM_PEER_ADDR
dev=rxe0

# rxe_up: an rxe device on our link, and its port active
rxe_up() {
	if ! out=$(rdma link add $dev type rxe netdev "$MEMREG_VM_NET_IF" 2>&1); then
		not_ok "VM $MEMREG_VM_PAIR: rdma link add $dev on $MEMREG_VM_NET_IF"
		printf '%s\n' "$out" | sed 's/^/#   /'
		return 1
	fi
	n=0
	until ibv_devinfo -d $dev 2>/dev/null | grep -q 'state:.*PORT_ACTIVE'; do
		n=$((n + 1))
		if [ $n -gt 100 ]; then
			not_ok "VM $MEMREG_VM_PAIR: $dev port never active"
			ibv_devinfo -d $dev 2>&1 | sed 's/^/#   /'
			return 1
		fi
		sleep 0.1
	done
	ok "VM $MEMREG_VM_PAIR: $dev on $MEMREG_VM_NET_IF, port active (ibv_devinfo)"
	# the GID that is our IPv4 address, ::ffff:a.b.c.d
	hex=$(echo "${MEMREG_VM_NET_ADDR%/*}" | awk -F. '{ printf "%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	gid=
	for g in /sys/class/infiniband/$dev/ports/1/gids/*; do
		case "$(cat "$g" 2>/dev/null)" in
		*ffff:$hex) gid=${g##*/}; break ;;
		esac
	done
	if [ -z "$gid" ]; then
		not_ok "VM $MEMREG_VM_PAIR: no GID of $MEMREG_VM_NET_ADDR on $dev"
		return 1
	fi
}

# run_perf NAME ARGS...: a serves NAME once, b connects (retrying until
# a listens); b reports the figure.
run_perf() {
	name=$1
	shift
	if [ "$MEMREG_VM_PAIR" = a ]; then
		if ! "$name" -d $dev -x "$gid" "$@" >/tmp/$name.out 2>&1; then
			not_ok "VM a: $name server"
			tail -n 20 /tmp/$name.out | sed 's/^/#   /'
		fi
		return
	fi
	n=0
	until "$name" -d $dev -x "$gid" "$@" "$peer" >/tmp/$name.out 2>&1; do
		n=$((n + 1))
		if [ $n -gt 60 ]; then
			not_ok "VM b: $name to $peer"
			tail -n 20 /tmp/$name.out | sed 's/^/#   /'
			return
		fi
		sleep 1
	done
	# the result line: size, iterations, then the figures
	line=$(awk '$1 ~ /^[0-9]+$/ && NF >= 4 { l = $0 } END { print l }' /tmp/$name.out)
	if [ -n "$line" ]; then
		ok "VM b: $name $* across the VMs: $(echo $line)"
	else
		not_ok "VM b: $name printed no result"
		tail -n 20 /tmp/$name.out | sed 's/^/#   /'
	fi
}

check() {
	rxe_up || return
	# one size at a time, the server restarted for each; 1 MiB messages
	run_perf ib_write_bw -s 1048576 -n 50 -F
	run_perf ib_read_bw -s "${RDMA_READ_SIZE:-65536}" -n 50 -F
	run_perf ib_read_lat -s 4096 -n 200 -F
	# UCX sees the device: its verbs transports.  (ucx_perftest's
	# ucp_put_bw and ucp_get over rc_verbs on rxe did not finish in 600 s
	# under TCG; UD wireup also aborts after its 30 s default timeout.)
	tls=$(UCX_NET_DEVICES=$dev:1 ucx_info -d 2>/dev/null | sed -n 's/^# *Transport: *//p' | sort -u | tr '\n' ' ')
	if echo "$tls" | grep -q 'rc_verbs\|ud_verbs'; then
		ok "VM $MEMREG_VM_PAIR: UCX transports on $dev: $tls"
	else
		not_ok "VM $MEMREG_VM_PAIR: UCX has no verbs transport on $dev ('$tls')"
	fi
	rdma link delete $dev 2>/dev/null
}

case "$1" in
check) "$1" ;;
*) echo "rdma_pair.sh: unknown step $1" >&2; exit 2 ;;
esac
tap_done
