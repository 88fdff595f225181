#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Tier 2, the path rules this machine's kernel cannot build (FACTS.md: no
# bond, team, Geneve or Open vSwitch drivers), with traffic: one host VM
# boots the project's kernel (configs/kernel.config enables the four) and,
# for each rule, builds the topology, asks gso-probe for the tap's path
# limit, and writes GSO frames into the tap (tools/test/tap-blast, a
# virtio-net header as QEMU writes it) of the limit - 1 bytes and of the
# limit.  The egress device's tx counters show where the kernel segments:
# below the limit every frame leaves whole, at the limit none does (the
# project's kernel splits each into GSO packets within the limit, one
# without the split series into MSS segments), so the probe's number is
# the path's real bound (exclusive, as gso_max_size is).
#
#   bond:   tapb - brb - bnd0 (active-backup) - sb0 (active, 60000 set
#           after enslaving), sb1 (62000): rule 3 of lib/path_limits.c,
#           the bond itself still says 65536 (the kernel lowers a master's
#           tso_max_*, not a slave's gso_max_* set later).
#   team:   tapt - brt - team0 (roundrobin, set with teamnl) - st0 (60000):
#           team0 hands st0 whole frames (its own tx counter), st0 cuts.
#   geneve: tapg - brg - gnv0 (remote 192.0.2.2) - route - ulg (64000):
#           rule 5, 64000 - 50, each frame leaves ulg 50 bytes longer.
#   ovs:    tapo - Open vSwitch datapath ovs0 (flow in_port(tapo) ->
#           output(eo0), tools/test/ovs-dp) - eo0 (60000): rule 1.
#   ovsfw:  Proxmox's firewall on an OVS bridge (pve-common's PVE/Network.pm
#           create_firewall_bridge_ovs): tap100i0 - fwbr100i0 (a Linux
#           bridge) - fwln100o0, an OVS internal port of ovs0 (flow
#           in_port(fwln100o0) -> output(eo1)) - eo1 (58000): rule 2b of
#           lib/path_limits.c; gso-probe and gso-limitsd --once agree.
#
# Every egress veth's peer is in a second namespace of the host VM, up, so
# the egress has carrier.  The VM prints its findings (P64: lines, the
# probe's JSON); this script checks them.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"

LOG=$TEST_LOG_DIR/t64
mkdir -p "$LOG"
require_command jq "tier-2 path rules"
require_command teamnl "tier-2 path rules (libteam-utils)"
require_command ip "tier-2 path rules"

# The two helpers, built as tests/tools-paths.sh builds tap-blast.
build_helper() {
	cc -O2 -Wall -Wextra -Werror -std=c11 -D_GNU_SOURCE -I"$GSO_TOP/tools" -o "$LOG/$1" \
		"$GSO_TOP/tools/test/$1.c" "$GSO_TOP/tools/lib/fail.c" "${@:2}" \
		>"$LOG/$1.build.log" 2>&1
}
build_helper tap-blast || check_err $? "tap-blast does not build: $LOG/tap-blast.build.log"
build_helper ovs-dp -lmnl || check_err $? "ovs-dp does not build: $LOG/ovs-dp.build.log"
log_test "tier-2 paths: helpers build"

# What busybox lacks: iproute2's ip (bond, team, geneve, veth peers in a
# namespace, gso_max_size), teamnl (a team's mode is a generic netlink
# option), the helpers.
extra=$LOG/paths.cpio.gz
extra_initrd "$extra" \
	"$(command -v ip):/opt/p64/bin/ip" \
	"$(command -v teamnl):/opt/p64/bin/teamnl" \
	"$LOG/tap-blast:/opt/p64/bin/tap-blast" \
	"$LOG/ovs-dp:/opt/p64/bin/ovs-dp"

# tap-blast's frame: Ethernet 14 + IPv4 20 + TCP 20 + payload; MSS 1400
# (each segment, encapsulated, fits a 1500 MTU).
FRAME_HDRS=54
MSS=1400

script=$LOG/paths.guest.sh
{
	printf 'FRAME_HDRS=%s\nMSS=%s\n' "$FRAME_HDRS" "$MSS"
	cat <<'HOSTVM'
export PATH=/opt/p64/bin:$PATH
# busybox runs its own applets before PATH: iproute2's ip by its path.
ip() { /opt/p64/bin/ip "$@"; }
# ms, wait_for
. /etc/gso-guest.sh
say() { echo "P64: $*"; }
fail() { say "error: $*"; exit 1; }
# ip netns keeps its namespaces in /var/run/netns; the initramfs has /run.
[ -e /var/run ] || { mkdir -p /var && ln -s /run /var/run; }
# No IPv6: no router or neighbour solicitations among the counted packets.
for f in all default; do echo 1 > /proc/sys/net/ipv6/conf/$f/disable_ipv6; done
ip netns add wire || fail "namespace wire"
ip -n wire link set lo up
say "host $(uname -r) up at $(ms) ms"

# wire_veth NAME: a veth (down, so a bond can take it) whose peer, up, is in wire.
wire_veth() {
	ip link add name "$1" type veth peer name "w-$1" netns wire || fail "veth $1"
	ip -n wire link set dev "w-$1" up
}
tx() { cat "/sys/class/net/$1/statistics/tx_$2"; }
# limit_of TAP: gso-probe's gso_max_size for TAP (printing its JSON for the host).
limit_of() {
	gso-probe --json "$1" > /tmp/probe.json || fail "gso-probe $1"
	echo "P64-JSON-$2: $(cat /tmp/probe.json)" >&2
	sed -n 's/.*"incomplete":[^,]*,"gso_max_size":\([0-9]*\),.*/\1/p' /tmp/probe.json
}
# blast CASE WHAT TAP BRIDGE|- EGRESS LEN [MASTER]: frames of LEN bytes into
# TAP for 0.5 s; print the egress' (and MASTER's) tx counters' deltas.
blast() {
	local p0 b0 m0=0 out
	p0=$(tx "$5" packets)
	b0=$(tx "$5" bytes)
	[ -z "${7:-}" ] || m0=$(tx "$7" packets)
	[ "$4" = - ] || ip link set dev "$3" nomaster
	out=$(tap-blast "$3" "$4" 0.5 $(($6 - FRAME_HDRS)) "$MSS" 2>&1) || fail "tap-blast $3: $out"
	say "$1-$2 len=$6 frames=$(echo "$out" | sed -n 's/^tap-blast: frames=\([0-9]*\) .*/\1/p') packets=$(($(tx "$5" packets) - p0)) bytes=$(($(tx "$5" bytes) - b0)) master_packets=$([ -z "${7:-}" ] && echo - || echo $(($(tx "$7" packets) - m0)))"
}
# run CASE TAP BRIDGE|- EGRESS [MASTER]: the probe's limit, then frames of limit - 1 and limit.
run() {
	local limit
	limit=$(limit_of "$2" "$1")
	[ -n "$limit" ] || fail "$1: no limit from gso-probe"
	say "$1-limit $limit"
	blast "$1" under "$2" "$3" "$4" $((limit - 1)) "${5:-}"
	blast "$1" at "$2" "$3" "$4" "$limit" "${5:-}"
}

# --- bond: active-backup, the active slave's gso_max_size set after enslaving
# Not bond0: the built-in bonding driver made one at boot (max_bonds).
ip link add name bnd0 type bond mode active-backup || fail "bnd0"
wire_veth sb0
wire_veth sb1
ip link set dev sb0 master bnd0 && ip link set dev sb1 master bnd0 || fail "enslaving"
ip link set dev sb0 gso_max_size 60000
ip link set dev sb1 gso_max_size 62000
ip link add name brb type bridge
ip link set dev bnd0 master brb
ip link set dev sb0 up && ip link set dev sb1 up && ip link set dev bnd0 up && ip link set dev brb up
ip tuntap add dev tapb mode tap
ip link set dev tapb master brb
wait_for 10 grep -qx sb0 /sys/class/net/bnd0/bonding/active_slave || fail "sb0 not active"
say "bond-active $(cat /sys/class/net/bnd0/bonding/active_slave)"
say "bond-master-gso $(cat /sys/class/net/bnd0/gso_max_size 2>/dev/null || ip -d link show dev bnd0 | sed -n 's/.* gso_max_size \([0-9]*\) .*/\1/p' | head -n 1)"
run bond tapb brb sb0

# --- team: roundrobin (teamnl: the mode before any port), one port ----------
ip link add name team0 type team || fail "team0"
teamnl team0 setoption mode roundrobin || fail "team mode"
say "team-mode $(teamnl team0 getoption mode)"
wire_veth st0
ip link set dev st0 master team0 || fail "team port"
ip link set dev st0 gso_max_size 60000
ip link add name brt type bridge
ip link set dev team0 master brt
ip link set dev st0 up && ip link set dev team0 up && ip link set dev brt up
ip tuntap add dev tapt mode tap
ip link set dev tapt master brt
wait_for 10 sh -c '[ "$(cat /sys/class/net/team0/carrier)" = 1 ]' || fail "team0 has no carrier"
run team tapt brt st0 team0

# --- geneve: underlay by the route to the remote ----------------------------
wire_veth ulg
ip addr add 192.0.2.1/24 dev ulg
ip link set dev ulg up
ip neigh add 192.0.2.2 lladdr 02:00:00:00:99:99 dev ulg nud permanent
ip link add name gnv0 type geneve id 42 remote 192.0.2.2 || fail "gnv0"
# Lowered after the tunnel exists (it does not follow its underlay anyway).
ip link set dev ulg gso_max_size 64000
ip link add name brg type bridge
ip link set dev gnv0 master brg
ip link set dev gnv0 up && ip link set dev brg up
ip tuntap add dev tapg mode tap
ip link set dev tapg master brg
run geneve tapg brg ulg gnv0

# --- Open vSwitch kernel datapath: tapo -> eo0 --------------------------------
wire_veth eo0
ip link set dev eo0 gso_max_size 60000
ip link set dev eo0 up
ip tuntap add dev tapo mode tap
ovs-dp ovs0 tapo eo0 || fail "ovs datapath"
ip link set dev ovs0 up
say "ovs-master $(basename "$(readlink /sys/class/net/tapo/master)")"
run ovs tapo - eo0

# --- Proxmox's firewall on an OVS bridge: fwln100o0 into the datapath -------
wire_veth eo1
ip link set dev eo1 gso_max_size 58000
ip link set dev eo1 up
ovs-dp ovs0 internal:fwln100o0 eo1 3 4 || fail "ovs internal port"
ip link add name fwbr100i0 type bridge
ip link set dev fwln100o0 master fwbr100i0
ip link set dev fwln100o0 up && ip link set dev fwbr100i0 up
ip tuntap add dev tap100i0 mode tap
ip link set dev tap100i0 master fwbr100i0
say "ovsfw-fwln $(ip -d link show dev fwln100o0 | sed -n 's/^ *\(openvswitch\) .*/\1/p' | head -n 1) master $(basename "$(readlink /sys/class/net/fwln100o0/master)")"
say "ovsfw-daemon $(gso-limitsd --once --json 2>/dev/null | tr -d '\n' | sed -n 's/.*"ifname":"tap100i0"[^}]*"path":"\([a-z_]*\)","gso_max_size":\([0-9]*\),"gso_max_segs":\([0-9]*\),"size_from":"\([^"]*\)".*/\1 \2 \3 \4/p')"
run ovsfw tap100i0 fwbr100i0 eo1

say "done at $(ms) ms"
HOSTVM
} >"$script"

vm_init
setup_ns VMNS
start=$(date +%s)
rc=0
GSO_VM_TIMEOUT=240 VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" vm_start paths "$VMNS" "$script"
vm_wait paths || rc=$?
con=$TEST_LOG_DIR/paths.console.log
console() { tr -d '\r' <"$con"; }
# val KEY: the value of the host VM's "P64: KEY value" line.
val() { console | sed -n "s/^P64: $1 //p" | tail -n 1; }
check_eq "host VM exit code ($con)" "$rc" 0
[ -z "$(val error)" ] || check_err 1 "host VM: $(val error)"
log_test "tier-2 paths: the host VM built every topology ($(($(date +%s) - start)) s)"

# probe CASE: "status gso_max_size size_from size_rule egress" from the VM's gso-probe.
probe() {
	console | sed -n "s/^P64-JSON-$1: //p" | tail -n 1 |
		jq -r '.taps[0] | "\(.status) \(.gso_max_size) \(.size_from) \(.size_rule) \(.incomplete) " +
			([.egress[] | "\(.ifname):\(.rule):\(.overhead)"] | sort | join(","))'
}
# counts CASE WHAT: "FRAMES PACKETS BYTES MASTER_PACKETS" of one blast.
counts() {
	val "$1-$2" | sed -n 's/^len=[0-9]* frames=\([0-9]*\) packets=\(-*[0-9]*\) bytes=\(-*[0-9]*\) master_packets=\(.*\)$/\1 \2 \3 \4/p'
}
# The kernel's own packets on a new link (tests/tools-paths.sh): a few, small.
NOISE_PACKETS=4
NOISE_BYTES=200
# check_blast CASE LEN OVERHEAD: limit - 1 leaves EGRESS whole (LEN - 1 +
# OVERHEAD bytes each), the limit LEN does not.
check_blast() {
	local c=$1 len=$2 over=$3 f p b m segs
	read -r f p b m <<<"$(counts "$c" under)"
	if [ -z "${f:-}" ] || [ "$f" -lt 1 ]; then
		check_err 1 "$c: no frames written below the limit ($(val "$c-under"))"
		return
	fi
	if [ "$p" -lt "$f" ] || [ "$p" -gt $((f + NOISE_PACKETS)) ] ||
		[ "$b" -lt $((f * (len - 1 + over))) ] ||
		[ "$b" -gt $((f * (len - 1 + over) + (p - f) * NOISE_BYTES)) ]; then
		check_err 1 "$c: limit - 1: $f frames, $p packets of $b bytes out (want $f of $((len - 1 + over)))"
	fi
	# At the limit no frame leaves whole: the project's kernel (the split
	# series, kernel-split-patches/) cuts each into GSO packets within the
	# limit (2 here), a kernel without it into MSS segments (SEGS).
	read -r f p b m <<<"$(counts "$c" at)"
	segs=$(( (len - FRAME_HDRS + MSS - 1) / MSS ))
	if [ -z "${f:-}" ] || [ "$f" -lt 1 ] || [ "$p" -lt $((2 * f)) ] ||
		[ "$p" -gt $((f * segs + NOISE_PACKETS)) ]; then
		check_err 1 "$c: limit: $f frames, $p packets out (want 2 to $segs packets per frame)"
	fi
	CUT_PER_FRAME=$((p / f))
	COUNT_MASTER=$m COUNT_FRAMES=$f
}

check_eq "bond probe" "$(probe bond)" \
	"ok 60000 sb0 bond_slave null bnd0:bridge_port:0,sb0:bond_slave:0,sb1:bond_slave:0"
check_eq "bnd0's own gso_max_size" "$(val bond-master-gso)" 65536
log_test "bond: gso-probe reads the slaves (60000 on sb0), not the bond (65536)"
check_blast bond 60000 0
log_test "bond: the active slave sb0 sends limit - 1 whole, cuts the limit ($CUT_PER_FRAME per frame)"

check_eq "team mode" "$(val team-mode)" roundrobin
check_eq "team probe" "$(probe team)" "ok 60000 st0 team_slave null st0:team_slave:0,team0:bridge_port:0"
log_test "team: gso-probe reads the port (60000 on st0)"
check_blast team 60000 0
[ "${COUNT_MASTER:-x}" = "${COUNT_FRAMES:-y}" ] ||
	check_err 1 "team0 sent ${COUNT_MASTER:-?} packets for ${COUNT_FRAMES:-?} frames at the limit (want whole frames: the port segments)"
log_test "team: team0 hands st0 whole frames; st0 cuts the limit ($CUT_PER_FRAME per frame)"

check_eq "geneve probe" "$(probe geneve)" \
	"ok 63950 ulg geneve_underlay null gnv0:bridge_port:0,ulg:geneve_underlay:50"
log_test "geneve: gso-probe takes the underlay by the route, 64000 - 50"
check_blast geneve 63950 50
log_test "geneve: the underlay sends limit - 1 whole (+50 bytes), cuts the limit ($CUT_PER_FRAME per frame)"

check_eq "ovs master" "$(val ovs-master)" ovs0
check_eq "ovs probe" "$(probe ovs)" "ok 60000 eo0 ovs_port null eo0:ovs_port:0"
log_test "ovs: gso-probe takes the datapath's other port (60000 on eo0)"
check_blast ovs 60000 0
log_test "ovs: eo0 sends limit - 1 whole, cuts the limit ($CUT_PER_FRAME per frame)"

check_eq "ovsfw: fwln100o0" "$(val ovsfw-fwln)" "openvswitch master fwbr100i0"
check_eq "ovsfw probe" "$(probe ovsfw)" \
	"ok 58000 eo1 ovs_port null eo0:ovs_port:0,eo1:ovs_port:0,fwln100o0:bridge_port:0,tapo:ovs_port:0"
check_eq "ovsfw: gso-limitsd --once" "$(val ovsfw-daemon)" "ok 58000 65535 eo1"
log_test "ovs firewall: gso-probe and gso-limitsd follow fwln100o0 into the datapath (58000 on eo1)"
check_blast ovsfw 58000 0
log_test "ovs firewall: eo1 sends limit - 1 whole, cuts the limit ($CUT_PER_FRAME per frame)"

tests_exit
