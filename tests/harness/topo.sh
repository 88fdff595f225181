# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Tier-1 topology, all inside namespaces this file creates:
#
#   guest eth0 ~ tap0 (vnet_hdr) ─┐ br0 ┌─ nic0 (veth: the "physical NIC",
#                                  └─────┘   limits set by a NIC profile)
#   [HOST_NS]                                  │
#                                            wire0 [PEER_NS]: the wire peer
#
# Addresses are from the documentation ranges (192.0.2.0/24, 2001:db8::/64)
# and exist only inside these namespaces.
#
# NIC profiles (the egress port's limits):
#   r8169          64000 bytes / 64 segments (RTL_GSO_MAX_SIZE_V2 / _SEGS_V2)
#   e1000e         the e1000e driver's defaults: it sets no tso_max_*, so
#                  65536 / 65535, the same as a veth's
#   custom:SIZE/SEGS
# The limits are applied as the port's gso_max_size/gso_max_segs: a veth's
# tso_max_* cannot be lowered from userspace, and gso_max_* is what the
# forwarding path checks (netif_skb_features()).

# shellcheck disable=SC2034 # used by the tests that source this file
GUEST_IP4=192.0.2.2
PEER_IP4=192.0.2.1
# shellcheck disable=SC2034
GUEST_IP6=2001:db8::2
PEER_IP6=2001:db8::1
GUEST_MAC=52:54:00:12:34:56

# nic_profile_limits PROFILE: print "SIZE SEGS", or fail on a bad profile.
nic_profile_limits() {
	local p=$1 size segs
	case "$p" in
	r8169)  echo "64000 64" ;;
	e1000e) echo "65536 65535" ;;
	custom:*/*)
		size=${p#custom:}; size=${size%/*}; segs=${p##*/}
		case "$size$segs" in *[!0-9]*|"") echo "bad profile '$p': SIZE and SEGS are numbers" >&2; return 1 ;; esac
		if [ "$size" -lt 1280 ] || [ "$size" -gt 65536 ] || [ "$segs" -lt 1 ] || [ "$segs" -gt 65535 ]; then
			echo "bad profile '$p': SIZE 1280..65536, SEGS 1..65535" >&2; return 1
		fi
		echo "$size $segs" ;;
	*) echo "unknown NIC profile '$p' (r8169, e1000e, custom:SIZE/SEGS)" >&2; return 1 ;;
	esac
}

# nic_set_limits SIZE SEGS: change the egress port's limits (also at run time).
# A bare gso_max_size/gso_max_segs change sends no RTM_NEWLINK and raises no
# NETDEV_CHANGE on kernels without "rtnetlink: announce changes of a
# device's GSO limits" (kernel-patches/), such as the tier-1 host's own;
# an alias change in the same request makes do_setlink() notify, as a
# driver reload or a bond failover would on a real host.
nic_set_limits() {
	ip -n "$HOST_NS" link set dev nic0 gso_max_size "$1" gso_max_segs "$2" alias "limits $1/$2"
}

# topo_tier1 PROFILE [MTU]: build the topology; sets HOST_NS, PEER_NS.
topo_tier1() {
	local profile=$1 mtu=${2:-1500} limits
	limits=$(nic_profile_limits "$profile") || return 1
	setup_ns HOST_NS PEER_NS || return 1

	ip -n "$HOST_NS" link add br0 type bridge stp_state 0 forward_delay 0 || return 1
	ip -n "$HOST_NS" tuntap add dev tap0 mode tap vnet_hdr || return 1
	ip -n "$HOST_NS" link add nic0 type veth peer name wire0 netns "$PEER_NS" || return 1
	# shellcheck disable=SC2086
	nic_set_limits $limits || return 1
	local dev
	for dev in tap0 nic0; do
		ip -n "$HOST_NS" link set dev "$dev" mtu "$mtu" master br0 up || return 1
	done
	ip -n "$HOST_NS" link set dev br0 mtu "$mtu" up
	ip -n "$PEER_NS" link set dev wire0 mtu "$mtu" up
	ip -n "$PEER_NS" addr add "$PEER_IP4/24" dev wire0
	ip -n "$PEER_NS" addr add "$PEER_IP6/64" dev wire0 nodad
	# Nothing in the host namespace has an address: it only bridges.
	# shellcheck disable=SC2034 # read by tests
	TOPO_PROFILE=$profile TOPO_MTU=$mtu
}

# topo_second_path: after topo_tier1, a second egress path: bridge br1 with
# port nic1, and the wire peer's ends of both paths (wire0, wire1) on a
# switch bridge swbr that now carries the peer's IPv4 address, so a guest
# keeps its peer when its tap moves between br0 and br1.
topo_second_path() {
	ip -n "$PEER_NS" link add swbr type bridge stp_state 0 forward_delay 0
	ip -n "$PEER_NS" addr flush dev wire0
	ip -n "$PEER_NS" link set wire0 master swbr
	ip -n "$HOST_NS" link add br1 type bridge stp_state 0 forward_delay 0
	ip -n "$HOST_NS" link add nic1 type veth peer name wire1 netns "$PEER_NS"
	ip -n "$HOST_NS" link set nic1 master br1 up
	ip -n "$HOST_NS" link set br1 up
	ip -n "$PEER_NS" link set wire1 master swbr up
	ip -n "$PEER_NS" link set swbr up
	ip -n "$PEER_NS" addr add "$PEER_IP4/24" dev swbr
}

# The QEMU arguments that attach a virtio-net device to tap0.
# topo_guest_nic_args [EXTRA DEVICE PROPERTIES]
topo_guest_nic_args() {
	local extra=${1:+,$1}
	printf '%s\n' -netdev "tap,id=n0,ifname=tap0,script=no,downscript=no,vhost=off" \
		-device "virtio-net-pci,id=net0,netdev=n0,mac=$GUEST_MAC$extra"
}
