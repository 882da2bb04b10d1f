#!/bin/sh
# not in the suite: sourced by rdma_pair.sh and rdma_fanin.sh
# rxe_up: an rxe device ($dev, default rxe0) on the VM's link
# ($MEMREG_VM_NET_IF), its port active, and in $gid the index of the GID
# that is the VM's IPv4 address (RoCE v2).  Says ok or not ok; 1 if not.
dev=${dev:-rxe0}

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
