#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The widened path rules of lib/path_limits.c on real devices, with
# traffic showing where the kernel segments: gso-probe's limit for a tap
# is the largest frame that crosses the path intact, plus one.
#   VXLAN:  tapv -> brv -> vxv (remote 192.0.2.2 dev ulv) -> ulv at 64000:
#           limit 64000 - 50 (rule 5 of path_limits.c: outer Ethernet 14 +
#           IPv4 20 + UDP 8 + VXLAN 8); a second VXLAN without `dev` finds
#           its underlay by the route to its remote; an IPv6 one counts 70.
#   routed: tapr (no master; 192.0.2.0/24 dev eg0 at 60000, default dev eg1
#           at 32 segments): the routes' devices (rule 6).
#   nexthop objects: tapr's routes through object 1 (eg0) and group 10
#           (eg0, eg1): the objects' devices; a running gso-limitsd
#           follows `ip nexthop replace` (a nexthop event, no route event).
#   policy rules: `to 192.0.2.0/24 lookup 100` (eg0), `fwmark 1 lookup
#           200` (eg2 at 50000): every table a rule may choose counts, a
#           main route the first rule hides does not; gso-limitsd follows
#           rule events.
#   wide:   300 taps on one bridge, the smallest uplink created last (the
#           walk once skipped every port after its 256th).
#   traffic on the daemon's own paths (issue 24): for a plain bridge, the
#           Proxmox firewall bridge (tap100i0 - fwbr100i0 - fwln100i0 =veth=
#           fwpr100p0 - vmbr0 - eno1 at 61000, pve-common's
#           PVE/Network.pm create_firewall_bridge_linux) and a macvtap
#           (libvirt type='direct', lower egm at 60000), gso-limitsd --once's
#           size limit L: frames of L - 1 leave the egress whole, of L + 1
#           are segmented at the MSS, so L is the path's real bound.
# Frames come from tools/test/tap-blast (a GSO frame with a virtio-net
# header written into the tap, as QEMU does); the egress device's
# tx_packets/tx_bytes show whether each frame left whole (one packet of
# the frame's length plus the encapsulation) or cut at the MSS.
# Bonds, teams, Geneve and Open vSwitch: this kernel has none (FACTS.md),
# tools/test/test-path.c covers them on made-up link tables and
# tests/t64-paths-tier2.sh with traffic in a host VM.  gso-limitsd
# (--once) must compute the same paths: it dumps the routes too.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

PROBE=$GSO_TOP/tools/build/gso-probe
LIMITSD=$GSO_TOP/tools/build/gso-limitsd
LOG=$TEST_LOG_DIR/tools-paths
BLAST=$LOG/tap-blast
mkdir -p "$LOG"
require_command jq "gso-probe paths"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }
# Built as scripts/bench-split.sh builds it (a test helper outside the tools' Makefile).
cc -O2 -Wall -Wextra -Werror -std=c11 -D_GNU_SOURCE -I"$GSO_TOP/tools" -o "$BLAST" \
	"$GSO_TOP/tools/test/tap-blast.c" "$GSO_TOP/tools/lib/fail.c" >"$LOG/blast-build.log" 2>&1 || {
	log_test "tap-blast build" FAIL "see $LOG/blast-build.log"; exit "$ksft_fail"; }

# tap-blast's frame: Ethernet 14 + IPv4 20 + TCP 20 + payload, 192.0.2.1 -> 192.0.2.2,
# to MAC 02:00:00:00:00:02.  MSS 1400: each segment, encapsulated, fits a 1500 MTU.
FRAME_HDRS=54
MSS=1400
BLAST_S=0.2
# The tap's MAC as the routed case needs it (the host must own the frame's destination).
GUEST_DST_MAC=02:00:00:00:00:02

setup_ns HOST WIRE V6 ROUTER
hip() { ip -n "$HOST" "$@"; }
# No IPv6 in HOST and ROUTER: no router or neighbour solicitations among the
# counted packets.  ROUTER forwards (the routed tap's host).
for ns in "$HOST" "$ROUTER"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1 net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
done
# wire_veth NAME [NS]: a veth in NS (default HOST) whose peer (up) is in WIRE.
wire_veth() {
	local ns=${2:-$HOST}
	ip -n "$ns" link add name "$1" type veth peer name "w-$1" netns "$WIRE"
	ip -n "$WIRE" link set dev "w-$1" up
	ip -n "$ns" link set dev "$1" up
}
# The namespace blast, tx and the probe helpers work in.
CUR=$HOST
tx() { ip netns exec "$CUR" cat "/sys/class/net/$1/statistics/tx_$2"; }

# blast TAP BRIDGE|- EGRESS LEN: write frames of LEN bytes (Ethernet included) into
# TAP for BLAST_S seconds; sets FRAMES, PACKETS and BYTES (the egress' counters' deltas).
blast() {
	local tap=$1 bridge=$2 egress=$3 len=$4 p0 b0 out
	# tap-blast puts the tap in the bridge itself (and waits until it forwards).
	[ "$bridge" = - ] || ip -n "$CUR" link set dev "$tap" nomaster
	p0=$(tx "$egress" packets)
	b0=$(tx "$egress" bytes)
	out=$(ip netns exec "$CUR" "$BLAST" "$tap" "$bridge" "$BLAST_S" \
		$((len - FRAME_HDRS)) "$MSS" 2>&1) || { echo "$out"; return 1; }
	FRAMES=$(sed -n 's/^tap-blast: frames=\([0-9]*\) .*/\1/p' <<<"$out")
	PACKETS=$(($(tx "$egress" packets) - p0))
	BYTES=$(($(tx "$egress" bytes) - b0))
	echo "$tap len $len: $out egress $egress packets $PACKETS bytes $BYTES" >>"$LOG/blast.log"
}

# The egress' counters also see the few packets the kernel sends on its
# own on a link that just came up (IPv6 router and neighbour
# solicitations, MLD reports: under 200 bytes each; one of 104 bytes was
# seen in a blast).  NOISE_PACKETS of them are allowed on top of the
# expected counts, and only that small: a frame segmented at the MSS, the
# thing these checks look for, adds 40 or more packets at once.
NOISE_PACKETS=4
NOISE_BYTES=200
# check_counts WHAT WANT_PACKETS [WANT_BYTES]
check_counts() {
	local extra_p=$((PACKETS - $2)) extra_b
	if [ "$extra_p" -lt 0 ] || [ "$extra_p" -gt "$NOISE_PACKETS" ]; then
		check_err 1 "$1: packets out: got $PACKETS, want $2 (+ at most $NOISE_PACKETS of the kernel's own)"
		return
	fi
	[ $# -ge 3 ] || return 0
	extra_b=$((BYTES - $3))
	if [ "$extra_b" -lt 0 ] || [ "$extra_b" -gt $((extra_p * NOISE_BYTES)) ]; then
		check_err 1 "$1: bytes out: got $BYTES, want $3 (+ under $NOISE_BYTES per extra packet, $extra_p extra packets)"
	fi
}

# check_whole WHAT LEN OVERHEAD: every frame left in one packet of LEN + OVERHEAD bytes.
check_whole() {
	check_counts "$1" "$FRAMES" $((FRAMES * ($2 + $3)))
}

# check_cut WHAT LEN: every frame was segmented at the MSS on the way.
check_cut() {
	local segs=$(( ($2 - FRAME_HDRS + MSS - 1) / MSS ))
	check_counts "$1" $((FRAMES * segs))
}

# tap_json NAME: gso-probe's object for one device.
tap_json() { ip netns exec "$CUR" "$PROBE" --json "$1" | jq -c '.taps[0]'; }
# daemon_fields NS TAP: gso-limitsd's path for TAP in NS (one --once pass; no VM holds it).
daemon_fields() {
	"$LIMITSD" --netns "$1" --once --json |
		jq -r --arg t "$2" '.namespaces[0].taps[] | select(.ifname == $t) |
			"\(.path) \(.gso_max_size) \(.gso_max_segs) \(.size_from) \(.size_rule) \(.segs_rule)"'
}
fields() {
	jq -r '"\(.status) \(.gso_max_size) \(.gso_max_segs) \(.size_from) \(.size_rule) \(.segs_rule)"' \
		<<<"$(tap_json "$1")"
}

# --- VXLAN ----------------------------------------------------------------
wire_veth ulv
hip addr add 192.0.2.1/24 dev ulv
hip neigh add 192.0.2.2 lladdr 02:00:00:00:99:99 dev ulv nud permanent
hip link add name vxv type vxlan id 42 remote 192.0.2.2 local 192.0.2.1 dev ulv dstport 4789
# Lowered after the VXLAN device exists: it keeps 65536 (netif_inherit_tso_max() runs at creation).
hip link set dev ulv gso_max_size 64000
hip link add name brv type bridge
hip link set dev vxv master brv
hip link set dev vxv up
hip link set dev brv up
hip tuntap add dev tapv mode tap
hip link set dev tapv master brv
# Underlay by route: no `dev`, the remote is reached by 192.0.2.0/24 dev ulv.
hip link add name brr type bridge
hip link add name vxr type vxlan id 43 remote 192.0.2.3 local 192.0.2.1 dstport 4790
hip link set dev vxr master brr
hip tuntap add dev tapvr mode tap
hip link set dev tapvr master brr
# IPv6 remote: 70 bytes of headers (probe only, in V6: HOST has no IPv6).
ip -n "$V6" link add name ul6 type veth peer name w-ul6
ip -n "$V6" link add name vx6 type vxlan id 44 remote 2001:db8::2 dev ul6 dstport 4791
ip -n "$V6" link set dev ul6 gso_max_size 64000
ip -n "$V6" link add name br6 type bridge
ip -n "$V6" link set dev vx6 master br6
ip -n "$V6" tuntap add dev tap6 mode tap
ip -n "$V6" link set dev tap6 master br6

check_eq "tapv" "$(fields tapv)" "ok 63950 65535 ulv vxlan_underlay null"
check_eq "tapv egress" "$(tap_json tapv | jq -r '[.egress[] | "\(.ifname):\(.rule):\(.overhead)"] | join(",")')" \
	"vxv:bridge_port:0,ulv:vxlan_underlay:50"
check_eq "tapv incomplete" "$(tap_json tapv | jq -r .incomplete)" null
log_test "gso-probe: VXLAN port, underlay by IFLA_VXLAN_LINK, 64000 - 50"
check_eq "tapvr" "$(fields tapvr)" "ok 63950 65535 ulv vxlan_underlay null"
log_test "gso-probe: VXLAN port, underlay by the route to its remote"
check_eq "tap6" "$(jq -r '.taps[0] | "\(.status) \(.gso_max_size) \(.size_from) \(.size_rule)"' \
	<<<"$(ip netns exec "$V6" "$PROBE" --json tap6)")" "ok 63930 ul6 vxlan_underlay"
log_test "gso-probe: VXLAN port over IPv6: 64000 - 70"
check_eq "daemon tapv" "$(daemon_fields "$HOST" tapv)" "ok 63950 65535 ulv vxlan_underlay null"
check_eq "daemon tapvr" "$(daemon_fields "$HOST" tapvr)" "ok 63950 65535 ulv vxlan_underlay null"
log_test "gso-limitsd: the same VXLAN paths and rule"

limit=$(tap_json tapv | jq -r .gso_max_size)
blast tapv brv ulv $((limit - 1))
check_whole "limit - 1" $((limit - 1)) 50
log_test "VXLAN: a frame of the probe's limit - 1 leaves the underlay whole (+50 bytes)"
blast tapv brv ulv "$limit"
check_cut "limit" "$limit"
log_test "VXLAN: a frame of the probe's limit is segmented at the MSS"

# --- routed tap (in ROUTER) ---------------------------------------------------
CUR=$ROUTER
rip() { ip -n "$ROUTER" "$@"; }
wire_veth eg0 "$ROUTER"
wire_veth eg1 "$ROUTER"
rip link set dev eg0 gso_max_size 60000
rip link set dev eg1 gso_max_segs 32
rip addr add 192.0.2.254/24 dev eg0
rip neigh add 192.0.2.2 lladdr 02:00:00:00:99:98 dev eg0 nud permanent
rip route add default dev eg1
rip tuntap add dev tapr mode tap
rip link set dev tapr address "$GUEST_DST_MAC" up
# The guest's own address routed back to its tap, as a routed setup does: not an egress.
rip route add 192.0.2.1/32 dev tapr

check_eq "tapr" "$(fields tapr)" "ok 60000 32 eg0 route route"
check_eq "tapr egress" "$(tap_json tapr | jq -r '[.egress[] | "\(.ifname):\(.rule)"] | sort | join(",")')" \
	"eg0:route,eg1:route"
log_test "gso-probe: routed tap, the routes' devices (not its own route)"
check_eq "daemon tapr" "$(daemon_fields "$ROUTER" tapr)" "ok 60000 32 eg0 route route"
log_test "gso-limitsd: the same routed path and rule"

# routed_boundary WHAT LABEL: gso-probe's limit for tapr is where eg0 starts
# to segment: a frame of the limit - 1 leaves whole (routing replaces the
# Ethernet header: no overhead), one of the limit is cut at the MSS.
routed_boundary() {
	local limit
	limit=$(tap_json tapr | jq -r .gso_max_size)
	blast tapr - eg0 $((limit - 1))
	check_whole "limit - 1" $((limit - 1)) 0
	log_test "$1: a frame of the probe's limit - 1 leaves $2 whole"
	blast tapr - eg0 "$limit"
	check_cut "limit" "$limit"
	log_test "$1: a frame of the probe's limit is segmented at the MSS"
}
routed_boundary routed eg0

# A running daemon follows route changes from route events alone (--rescan 0).
"$LIMITSD" --netns "$ROUTER" --control "$LOG/ctl" --rescan 0 --dry-run >"$LOG/daemon.log" 2>&1 &
daemon_pid=$!
defer kill "$daemon_pid"
# daemon_path TAP: "PATH SIZE SEGS" from the running daemon's status.
daemon_path() {
	"$LIMITSD" status --control "$LOG/ctl" 2>/dev/null |
		jq -r --arg t "$1" '.namespaces[0].taps[] | select(.ifname == $t) |
			"\(.path) \(.gso_max_size) \(.gso_max_segs)"'
}
# shellcheck disable=SC2317 # called through slowwait
daemon_path_is() { [ "$(daemon_path "$1")" = "$2" ]; }
slowwait 10 daemon_path_is tapr "ok 60000 32" ||
	check_err 1 "running daemon: tapr is '$(daemon_path tapr)', want 'ok 60000 32'"
rip route del 192.0.2.0/24 dev eg0
slowwait 10 daemon_path_is tapr "ok 65536 32" ||
	check_err 1 "running daemon after the subnet route left: tapr is '$(daemon_path tapr)'"
log_test "gso-limitsd: a running daemon follows a route change"

rip route del default dev eg1
check_eq "tapr without routes" "$(fields tapr)" "no_master null null null null null"
check_eq "daemon tapr without routes" "$(daemon_fields "$ROUTER" tapr)" "no_master null null null null null"
slowwait 10 daemon_path_is tapr "no_master null null" ||
	check_err 1 "running daemon without routes: tapr is '$(daemon_path tapr)'"
log_test "gso-probe, gso-limitsd: routed tap with no route out: no_master"

# --- routed tap through nexthop objects (in ROUTER) --------------------------
# 192.0.2.0/24 through object 1 (eg0, 60000), the default route through
# group 10 = {1, 2 (eg1, 32 segments)}: the objects' devices are the
# egress, as the routes' own were above.
rip nexthop add id 1 dev eg0
rip nexthop add id 2 dev eg1
rip nexthop add id 10 group 1/2
rip route add 192.0.2.0/24 nhid 1
rip route add default nhid 10
check_eq "tapr by nexthops" "$(fields tapr)" "ok 60000 32 eg0 route route"
check_eq "tapr by nexthops egress" \
	"$(tap_json tapr | jq -r '[.egress[] | "\(.ifname):\(.rule)"] | sort | join(",")')" \
	"eg0:route,eg1:route"
check_eq "tapr by nexthops incomplete" "$(tap_json tapr | jq -r .incomplete)" null
check_eq "daemon tapr by nexthops" "$(daemon_fields "$ROUTER" tapr)" "ok 60000 32 eg0 route route"
log_test "gso-probe, gso-limitsd: routed tap through nexthop objects and a group"
slowwait 10 daemon_path_is tapr "ok 60000 32" ||
	check_err 1 "running daemon, routes through nexthops: tapr is '$(daemon_path tapr)'"
# Only the object changes (no route event): the daemon hears the nexthop event.
rip nexthop replace id 1 dev eg1
slowwait 10 daemon_path_is tapr "ok 65536 32" ||
	check_err 1 "running daemon after nexthop 1 moved to eg1: tapr is '$(daemon_path tapr)'"
rip nexthop replace id 1 dev eg0
slowwait 10 daemon_path_is tapr "ok 60000 32" ||
	check_err 1 "running daemon after nexthop 1 came back to eg0: tapr is '$(daemon_path tapr)'"
log_test "gso-limitsd: a running daemon follows a nexthop object's change"

routed_boundary nexthop "eg0 (object 1)"

# --- routed tap, tables chosen by policy rules (in ROUTER) -------------------
# Rule 7 of path_limits.c: the rules are evaluated.  Main: the default
# route via eg1 (32 segments) and 192.0.2.128/25 via eg2 (50000); table
# 100: 192.0.2.0/24 via eg0 (60000); table 200: the default via eg2.
#   no rule:                      main only: 50000 (eg2), tables 100, 200 unused
#   to 192.0.2.0/24 lookup 100:   the guest's packets to the /24 leave by eg0:
#                                 60000, and main's /25 behind it is never
#                                 reached (traffic: limit - 1 whole on eg0)
#   fwmark 1 lookup 200:          may apply to any packet: 50000 (eg2)
#   l3mdev:                       a VRF's table; a tap with no master is in none
# The old code said only "policy rules present" (incomplete, 65536).
rip route del default nhid 10
rip route del 192.0.2.0/24 nhid 1
wire_veth eg2 "$ROUTER"
rip link set dev eg2 gso_max_size 50000
rip route add default dev eg1
rip route add 192.0.2.128/25 dev eg2
rip route add 192.0.2.0/24 dev eg0 table 100
# routed_egress TAP: gso-probe's egress devices and rules, sorted.
routed_egress() { tap_json "$1" | jq -r '[.egress[] | "\(.ifname):\(.rule)"] | sort | join(",")'; }
check_eq "tapr, no rule" "$(fields tapr)" "ok 50000 32 eg2 route route"
check_eq "tapr, no rule: egress" "$(routed_egress tapr)" "eg1:route,eg2:route"
log_test "gso-probe: routed tap, a table no rule looks up does not count"

rip rule add to 192.0.2.0/24 table 100 pref 1000
check_eq "tapr by rule" "$(fields tapr)" "ok 60000 32 eg0 route route"
check_eq "tapr by rule: egress" "$(routed_egress tapr)" "eg0:route,eg1:route"
check_eq "tapr by rule: incomplete" "$(tap_json tapr | jq -r .incomplete)" null
check_eq "daemon tapr by rule" "$(daemon_fields "$ROUTER" tapr)" "ok 60000 32 eg0 route route"
log_test "gso-probe, gso-limitsd: a rule's table counts, the main route it hides does not"
slowwait 10 daemon_path_is tapr "ok 60000 32" ||
	check_err 1 "running daemon after the rule: tapr is '$(daemon_path tapr)', want 'ok 60000 32'"
log_test "gso-limitsd: a running daemon follows a rule event"

routed_boundary rule "eg0 (table 100)"

# Table 200's route first: no rule looks it up yet, the path stays.
rip route add default dev eg2 table 200
check_eq "tapr, table 200 unused" "$(fields tapr)" "ok 60000 32 eg0 route route"
rip rule add fwmark 1 table 200 pref 900
check_eq "tapr by fwmark rule" "$(fields tapr)" "ok 50000 32 eg2 route route"
check_eq "tapr by fwmark rule: egress" "$(routed_egress tapr)" "eg0:route,eg1:route,eg2:route"
check_eq "tapr by fwmark rule: incomplete" "$(tap_json tapr | jq -r .incomplete)" null
log_test "gso-probe: a rule with an fwmark selector may apply: the minimum of the tables"
slowwait 10 daemon_path_is tapr "ok 50000 32" ||
	check_err 1 "running daemon after the fwmark rule: tapr is '$(daemon_path tapr)'"
# The rule's removal alone (a rule event, no route event) undoes it.
rip rule del pref 900
slowwait 10 daemon_path_is tapr "ok 60000 32" ||
	check_err 1 "running daemon after the fwmark rule left: tapr is '$(daemon_path tapr)'"
log_test "gso-limitsd: a running daemon follows the fwmark rule's events"

rip rule add l3mdev pref 800
check_eq "tapr with an l3mdev rule" "$(fields tapr)" "ok 60000 32 eg0 route route"
check_eq "tapr with an l3mdev rule: incomplete" "$(tap_json tapr | jq -r .incomplete)" null
log_test "gso-probe: an l3mdev (VRF) rule never matches a tap with no master"
rip rule del pref 800

rip rule del pref 1000
check_eq "tapr without the rules" "$(fields tapr)" "ok 50000 32 eg2 route route"
log_test "gso-probe: without the rules, main's routes again"

# --- the daemon's paths, checked with traffic (in HOST) -------------------------
CUR=$HOST
# traffic_check NAME TAP BRIDGE|- EGRESS WANT: gso-limitsd's path for TAP is WANT
# ("path size segs size_from size_rule segs_rule"); frames of its size - 1 leave
# EGRESS whole, frames of its size + 1 are segmented at the MSS.
traffic_check() {
	local name=$1 tap=$2 br=$3 egress=$4 want=$5 got limit
	got=$(daemon_fields "$HOST" "$tap")
	check_eq "$name: gso-limitsd's path" "$got" "$want"
	limit=$(cut -d' ' -f2 <<<"$got")
	[ "$limit" -gt 0 ] 2>/dev/null || { log_test "$name: traffic" FAIL "no limit"; return; }
	blast "$tap" "$br" "$egress" $((limit - 1))
	check_whole "$name: limit - 1" $((limit - 1)) 0
	blast "$tap" "$br" "$egress" $((limit + 1))
	check_cut "$name: limit + 1" $((limit + 1))
	log_test "$name: gso-limitsd's $limit is the path's: $((limit - 1)) leaves $egress whole, $((limit + 1)) is segmented"
}
# A bridge: tapb - brb - egb (62000).
wire_veth egb
hip link set dev egb gso_max_size 62000
hip link add name brb type bridge
hip link set dev egb master brb
hip link set dev brb up
hip tuntap add dev tapb mode tap
hip link set dev tapb master brb
traffic_check bridge tapb brb egb "ok 62000 65535 egb bridge_port null"
# Proxmox's firewall bridge for VM 100's net0 on vmbr0, as qemu-server's tap
# script builds it: tap100i0 in fwbr100i0, with the veth fwln100i0 whose peer
# fwpr100p0 is a port of vmbr0; vmbr0's uplink eno1 at 61000.
wire_veth eno1
hip link set dev eno1 gso_max_size 61000
hip link add name vmbr0 type bridge
hip link set dev eno1 master vmbr0
hip link add name fwbr100i0 type bridge
hip link add name fwln100i0 type veth peer name fwpr100p0
hip link set dev fwpr100p0 master vmbr0 up
hip link set dev fwln100i0 master fwbr100i0 up
hip link set dev vmbr0 up
hip link set dev fwbr100i0 up
hip tuntap add dev tap100i0 mode tap
hip link set dev tap100i0 master fwbr100i0
traffic_check "firewall bridge" tap100i0 fwbr100i0 eno1 "ok 61000 65535 eno1 bridge_port null"
# libvirt's type='direct': a macvtap (bridge mode) on egm (60000), written through /dev/tapN.
wire_veth egm
hip link set dev egm gso_max_size 60000
hip link add link egm name mvt0 type macvtap mode bridge
hip link set dev mvt0 up
traffic_check macvtap mvt0 - egm "ok 60000 65535 egm lower null"

# --- more than 256 ports ----------------------------------------------------
CUR=$HOST
hip link add name brw type bridge
{
	for i in $(seq 0 299); do
		echo "tuntap add dev tw$i mode tap"
		echo "link set dev tw$i master brw"
	done
} >"$LOG/wide.batch"
hip -batch "$LOG/wide.batch"
wire_veth uplink
hip link set dev uplink gso_max_size 62000 gso_max_segs 48 master brw
check_eq "tw0" "$(fields tw0)" "ok 62000 48 uplink bridge_port bridge_port"
check_eq "tw0 truncated" "$(tap_json tw0 | jq -r .truncated)" true
log_test "gso-probe: 300 taps on a bridge, the uplink created last counts"

tests_exit
