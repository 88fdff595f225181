#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-doctor on real topologies in private namespaces.  Every check has a
# test where it fires and one where it stays silent; the doctor must
# change nothing (ip -d link, ethtool -k/-l of every device compared
# before and after).
#
#   BAD    (host mode, every pitfall of seeds 000 and 003):
#     br-seed:  tap0 (held, 1 queue, 1 vCPU) + nic0 at r8169's 64000/64
#     br-cfg:   tap5 (held by a "VMM" with host_gso_max_size=64000) + nic5 at 64000/64
#     fwbr100i0: tap100i0 (multi_queue, 1 queue, 4 vCPU threads) + fwln100i0 = fwpr100i0 in vmbr0
#     vmbr0:    fwpr100i0, enp0 (TSO off), gsooff0 (GSO off), vx0 (vxlan uplink, GRO off,
#               over ul0 at BIG TCP limits: its headers fit),
#               vgro0 (veth, GRO off as veth has by default: not a finding)
#     vmbr1:    tap101i0 (multi_queue, 1 queue, vCPUs not visible)
#     tap102i0: alone, single queue, held by a process with "-smp 4"
#     tap103i0: alone, multi_queue, 2 queues for 4 vCPU threads (info)
#     tap2:     alone, single queue, 4 vCPU threads (CLEAN has an unheld tap2)
#   ROUTED (host mode): tapr, routed: 192.0.2.0/24 dev eg0 (60000), default via nexthop
#          object 7 (eg1), 192.0.2.1/32 dev tapr: the finding lists the routes followed
#   NF     (host mode): a fwbr hop with bridge netfilter turned off in the namespace
#   CLEAN  (host mode, nothing to report):
#     br0: tap0 (multi_queue, 4 queues, 4 vCPUs) + nic0 (defaults) + vx0 (GRO on, over
#          ul0 at BIG TCP limits)
#     tap1 (held, 1 queue, 1 vCPU), tap2 (nobody holds it)
#   GUEST  (guest mode on stand-ins: veths and taps play the virtio_net device):
#     gbad (1 of 2 rx queues, GRO off, no RPS, gso_max_size 64000), ggood (2 queues, GRO on),
#     gdrop (a tap receiving frames nobody handles: rx_dropped rises), gquiet (a quiet tap)
#   softnet_stat from fixtures (GSO_DOCTOR_SOFTNET_STAT): this machine's own
#   backlog cannot be made to overflow on one CPU on purpose.
# guest-rings needs a device with ring parameters (virtio_net): its tests
# are in tests/t40-doctor-guest.sh (VM).  No vlan/bond here: a vxlan port
# plays the NIC uplink.  No nft/iptables binaries here: "fwbr hop with
# rules" (silent) is not built; the no-hop topology is the silent case.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

DOCTOR=$GSO_TOP/tools/build/gso-doctor
TAPHOLD=$GSO_TOP/tools/build/doctor-taphold
LOG=$TEST_LOG_DIR/tools-doctor
mkdir -p "$LOG"
require_command jq "gso-doctor"
require_command ethtool "gso-doctor"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

setup_ns BAD NF CLEAN GUEST WIRE EMPTY ROUTED
ncpu=$(nproc)

# wire_veth NS NAME: a veth in NS whose peer is in WIRE (the path walk stops there).
WIRE_N=0
wire_veth() {
	WIRE_N=$((WIRE_N + 1))
	ip -n "$1" link add name "$2" type veth peer name "wire$WIRE_N" netns "$WIRE"
}
# taphold NS ARGS...: a VMM stand-in holding a tap; killed at exit.
taphold() {
	local ns=$1 out
	shift
	out=$(mktemp "$LOG/taphold.XXXXXX")
	start_ready "$out" 'doctor-taphold: ready' ip netns exec "$ns" "$TAPHOLD" "$@"
}
# doctor NS ARGS...: run the doctor in NS; balanced softnet fixture unless overridden.
doctor() {
	local ns=$1
	shift
	ip netns exec "$ns" env GSO_DOCTOR_SOFTNET_STAT="${SOFTNET:-$LOG/softnet-even}" \
		"$DOCTOR" "$@"
}
# ns_state NS: what the doctor must not change.
ns_state() {
	local ns=$1 dev
	ip -n "$ns" -d link show
	for dev in $(ip -n "$ns" -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }'); do
		echo "== $dev"
		ip netns exec "$ns" ethtool -k "$dev" 2>&1 || true
		ip netns exec "$ns" ethtool -l "$dev" 2>&1 || true
		ip netns exec "$ns" cat "/sys/class/net/$dev/queues/rx-0/rps_cpus" 2>&1 || true
	done
}

# softnet_stat fixtures: 13 hex columns per CPU (processed dropped squeeze ... cpu).
softnet_line() { printf '%08x %08x %08x 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 00000000 %08x\n' "$@"; }
{ softnet_line 1000 0 0 0; softnet_line 2000 0 0 1; } >"$LOG/softnet-even"
{ softnet_line 90000 12400 50 0; softnet_line 3000 10 0 1; softnet_line 2000 0 0 2; } >"$LOG/softnet-skewed"
{ softnet_line 50000 600 9 0; softnet_line 48000 590 8 1; } >"$LOG/softnet-spread"

# --- BAD ------------------------------------------------------------------
b() { ip -n "$BAD" "$@"; }
b link add br-seed type bridge
b tuntap add dev tap0 mode tap vnet_hdr
wire_veth "$BAD" nic0
b link set dev nic0 gso_max_size 64000 gso_max_segs 64
b link set dev tap0 master br-seed
b link set dev nic0 master br-seed
taphold "$BAD" tap0 1 1

b link add br-cfg type bridge
b tuntap add dev tap5 mode tap vnet_hdr
wire_veth "$BAD" nic5
b link set dev nic5 gso_max_size 64000 gso_max_segs 64
b link set dev tap5 master br-cfg
b link set dev nic5 master br-cfg
# A second NIC of the same "VM" comes first, with a value above the path:
# only the -device bound to tap5's -netdev may count.
taphold "$BAD" tap5 1 1 -- -netdev tap,id=n1,ifname=tap5b \
	-device virtio-net-pci,netdev=n1,host_gso_max_size=70000 \
	-netdev tap,id=n0,ifname=tap5 \
	-device virtio-net-pci,netdev=n0,host_gso_max_size=64000,host_gso_max_segs=64

b link add fwbr100i0 type bridge
b link add vmbr0 type bridge
b link add vmbr1 type bridge
b tuntap add dev tap100i0 mode tap vnet_hdr multi_queue
b link add fwln100i0 type veth peer name fwpr100i0
b link set dev tap100i0 master fwbr100i0
b link set dev fwln100i0 master fwbr100i0
b link set dev fwpr100i0 master vmbr0
taphold "$BAD" --multi-queue tap100i0 1 4
for port in enp0 gsooff0 vgro0; do wire_veth "$BAD" "$port"; b link set dev "$port" master vmbr0; done
# The vxlan's underlay at BIG TCP limits: its 50 bytes of headers then fit (gso-probe's
# rule 5), so the path stays at the defaults.
wire_veth "$BAD" ul0
b link set dev ul0 gso_max_size 131072 gso_ipv4_max_size 131072
b link add vx0 type vxlan id 42 dstport 4789 local 192.0.2.10 dev ul0
b link set dev vx0 master vmbr0
ip netns exec "$BAD" ethtool -K enp0 tso off
ip netns exec "$BAD" ethtool -K gsooff0 gso off
ip netns exec "$BAD" ethtool -K vx0 gro off

b tuntap add dev tap101i0 mode tap vnet_hdr multi_queue
b link set dev tap101i0 master vmbr1
taphold "$BAD" --multi-queue tap101i0 1 0
b tuntap add dev tap102i0 mode tap vnet_hdr
taphold "$BAD" tap102i0 1 0 -- -name vm102 -smp 4,sockets=1,cores=4
b tuntap add dev tap103i0 mode tap vnet_hdr multi_queue
taphold "$BAD" tap103i0 2 4
# A tap2 here (held, 4 vCPUs) and one in CLEAN (nobody holds it): tap
# names are per namespace, the doctor must not mix up their holders.
b tuntap add dev tap2 mode tap vnet_hdr
taphold "$BAD" tap2 1 4

# --- NF: a firewall hop whose bridge netfilter is off ------------------------
ip -n "$NF" link add fwbr200i0 type bridge
ip -n "$NF" link add vmbr0 type bridge
ip -n "$NF" tuntap add dev tap200i0 mode tap vnet_hdr
ip -n "$NF" link add fwln200i0 type veth peer name fwpr200i0
ip -n "$NF" link set dev tap200i0 master fwbr200i0
ip -n "$NF" link set dev fwln200i0 master fwbr200i0
ip -n "$NF" link set dev fwpr200i0 master vmbr0
nf_sysctl=1
ip netns exec "$NF" sysctl -qw net.bridge.bridge-nf-call-iptables=0 \
	net.bridge.bridge-nf-call-ip6tables=0 2>"$LOG/nf-sysctl.err" || nf_sysctl=0

# --- CLEAN ------------------------------------------------------------------
c() { ip -n "$CLEAN" "$@"; }
c link add br0 type bridge
c tuntap add dev tap0 mode tap vnet_hdr multi_queue
wire_veth "$CLEAN" nic0
wire_veth "$CLEAN" ul0
c link set dev ul0 gso_max_size 131072 gso_ipv4_max_size 131072
c link add vx0 type vxlan id 43 dstport 4789 local 192.0.2.11 dev ul0
for port in tap0 nic0 vx0; do c link set dev "$port" master br0; done
taphold "$CLEAN" tap0 4 4
c tuntap add dev tap1 mode tap vnet_hdr
taphold "$CLEAN" tap1 1 1
c tuntap add dev tap2 mode tap vnet_hdr

# --- GUEST stand-ins ------------------------------------------------------------
g() { ip -n "$GUEST" "$@"; }
wire_veth "$GUEST" gbad
wire_veth "$GUEST" ggood
g link set dev gbad gso_max_size 64000 gso_max_segs 64
ip netns exec "$GUEST" ethtool -K ggood gro on
have_channels=1
ip netns exec "$GUEST" ethtool -L ggood rx 2 tx 2 2>"$LOG/channels.err" || have_channels=0
g tuntap add dev gdrop mode tap vnet_hdr
g tuntap add dev gquiet mode tap vnet_hdr
g link set dev gdrop up
g link set dev gquiet up
taphold "$GUEST" --drip-ms 20 gdrop 1 0
taphold "$GUEST" gquiet 1 0

for ns in BAD NF CLEAN GUEST; do ns_state "${!ns}" >"$LOG/state-$ns.before"; done

# --- runs -----------------------------------------------------------------------
rc_of() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }
# ROUTED: tapr has no master; the host routes its packets: 192.0.2.0/24 out
# of eg0 (60000), the default route through nexthop object 7 (eg1), the
# guest's own /32 back to tapr (not an egress).
# (A nexthop object needs its device's carrier: the peers are up.)
wire_veth "$ROUTED" eg0
ip -n "$WIRE" link set dev "wire$WIRE_N" up
wire_veth "$ROUTED" eg1
ip -n "$WIRE" link set dev "wire$WIRE_N" up
ip -n "$ROUTED" link set dev eg0 gso_max_size 60000 up
ip -n "$ROUTED" link set dev eg1 up
ip -n "$ROUTED" addr add 192.0.2.254/24 dev eg0
ip -n "$ROUTED" nexthop add id 7 dev eg1
ip -n "$ROUTED" route add default nhid 7
ip -n "$ROUTED" tuntap add dev tapr mode tap
ip -n "$ROUTED" link set dev tapr up
ip -n "$ROUTED" route add 192.0.2.1/32 dev tapr

bad_json=$(doctor "$BAD" --json) || true
echo "$bad_json" >"$LOG/bad.json"
doctor "$BAD" >"$LOG/bad.txt" || true
clean_json=$(doctor "$CLEAN" --json) || true
echo "$clean_json" >"$LOG/clean.json"
nf_json=$(doctor "$NF" --json) || true
echo "$nf_json" >"$LOG/nf.json"
guest_json=$(doctor "$GUEST" --json --guest --sample-ms 500 gbad ggood gdrop gquiet) || true
echo "$guest_json" >"$LOG/guest.json"

# finding JSON ID IFNAME: the finding object(s), compact.
finding() { jq -c --arg id "$2" --arg dev "$3" '.findings[] | select(.id == $id and .ifname == $dev)' <<<"$1"; }
# sev JSON ID IFNAME: its severity, or "none".
sev() { local f; f=$(finding "$@"); if [ -n "$f" ]; then jq -r .severity <<<"$f"; else echo none; fi; }
ev() { finding "$1" "$2" "$3" | jq -r --arg k "$4" '.evidence[$k]'; }
fixes() { finding "$1" "$2" "$3" | jq -r '.fix[]'; }
count_id() { jq --arg id "$2" '[.findings[] | select(.id == $id)] | length' <<<"$1"; }

# gso-path-limit
check_eq "tap0 severity" "$(sev "$bad_json" gso-path-limit tap0)" warning
check_eq "tap0 limits" "$(ev "$bad_json" gso-path-limit tap0 gso_max_size)/$(ev "$bad_json" gso-path-limit tap0 gso_max_segs)" 64000/64
check_eq "tap0 size_from" "$(ev "$bad_json" gso-path-limit tap0 size_from)" nic0
check_eq "tap0 feature" "$(ev "$bad_json" gso-path-limit tap0 gso_limits_feature)" not_configured
fixes "$bad_json" gso-path-limit tap0 | grep -qxF \
	"in the guest (any kernel): ip link set dev <guest-if> gso_max_size 64000 gso_ipv4_max_size 64000" ||
	check_err 1 "tap0: seed 000's guest command missing"
grep -q '^warning: gso-path-limit tap0: ' "$LOG/bad.txt" || check_err 1 "text output lacks the tap0 finding"
log_test "gso-doctor: gso-path-limit fires on a 64000/64 path with the guest command"

check_eq "tap5 severity" "$(sev "$bad_json" gso-path-limit tap5)" info
check_eq "tap5 feature" "$(ev "$bad_json" gso-path-limit tap5 gso_limits_feature)" configured
check_eq "tap5 property" "$(ev "$bad_json" gso-path-limit tap5 host_gso_max_size)" 64000
log_test "gso-doctor: gso-path-limit is info when the VMM offers the limits (tap's own -device)"

check_eq "clean gso-path-limit findings" "$(count_id "$clean_json" gso-path-limit)" 0
check_eq "tap100i0 (path at defaults)" "$(sev "$bad_json" gso-path-limit tap100i0)" none
log_test "gso-doctor: gso-path-limit silent on default-limit paths"

routed_json=$(doctor "$ROUTED" --json) || true
echo "$routed_json" >"$LOG/routed.json"
check_eq "tapr severity" "$(sev "$routed_json" gso-path-limit tapr)" warning
check_eq "tapr limit" "$(ev "$routed_json" gso-path-limit tapr gso_max_size) $(ev "$routed_json" gso-path-limit tapr size_from)" \
	"60000 eg0"
check_eq "tapr routes" "$(ev "$routed_json" gso-path-limit tapr routes | sed 's/; /\n/g' | sort | paste -sd '|')" \
	"192.0.2.0/24 dev eg0|default nhid 7 dev eg1"
log_test "gso-doctor: a routed tap's finding lists the routes it followed (not the tap's own)"

# gro-off
check_eq "vx0 gro-off" "$(sev "$bad_json" gro-off vx0)" warning
check_eq "vx0 evidence" "$(ev "$bad_json" gro-off vx0 generic-receive-offload)" off
fixes "$bad_json" gro-off vx0 | grep -qxF "ethtool -K vx0 gro on" || check_err 1 "vx0: fix missing"
log_test "gso-doctor: gro-off fires on a bridge port with GRO off"
check_eq "vgro0 (veth default)" "$(sev "$bad_json" gro-off vgro0)" none
check_eq "clean gro-off findings" "$(count_id "$clean_json" gro-off)" 0
log_test "gso-doctor: gro-off silent with GRO on, and on veth ports"

# tso-off
check_eq "enp0 tso-off" "$(sev "$bad_json" tso-off enp0)" warning
check_eq "enp0 evidence" "$(ev "$bad_json" tso-off enp0 tcp-segmentation-offload)" off
fixes "$bad_json" tso-off enp0 | grep -qxF "ethtool -K enp0 tso on" || check_err 1 "enp0: fix missing"
check_eq "gsooff0 tso-off" "$(sev "$bad_json" tso-off gsooff0)" warning
check_eq "gsooff0 evidence" "$(ev "$bad_json" tso-off gsooff0 generic-segmentation-offload)" off
fixes "$bad_json" tso-off gsooff0 | grep -qxF "ethtool -K gsooff0 gso on" || check_err 1 "gsooff0: fix missing"
log_test "gso-doctor: tso-off fires on ports with TSO or GSO off"
check_eq "fwpr100i0" "$(sev "$bad_json" tso-off fwpr100i0)" none
check_eq "clean tso-off findings" "$(count_id "$clean_json" tso-off)" 0
log_test "gso-doctor: tso-off silent with TSO and GSO on"

# single-queue-tap
check_eq "tap100i0" "$(sev "$bad_json" single-queue-tap tap100i0)" warning
check_eq "tap100i0 evidence" "$(ev "$bad_json" single-queue-tap tap100i0 numqueues) $(ev "$bad_json" single-queue-tap tap100i0 vcpus) $(ev "$bad_json" single-queue-tap tap100i0 vcpus_from)" "1 4 threads"
fixes "$bad_json" single-queue-tap tap100i0 | grep -qF "qm set 100 --net0 virtio=<MAC>,bridge=vmbr0,queues=4" ||
	check_err 1 "tap100i0: Proxmox fix missing"
log_test "gso-doctor: single-queue-tap fires: 1 queue, VM with 4 vCPU threads"
check_eq "tap101i0" "$(sev "$bad_json" single-queue-tap tap101i0)" warning
check_eq "tap101i0 evidence" "$(ev "$bad_json" single-queue-tap tap101i0 multi_queue) $(ev "$bad_json" single-queue-tap tap101i0 vcpus)" "true 0"
log_test "gso-doctor: single-queue-tap fires: multi_queue tap left with 1 queue"
check_eq "tap102i0" "$(sev "$bad_json" single-queue-tap tap102i0)" warning
check_eq "tap102i0 evidence" "$(ev "$bad_json" single-queue-tap tap102i0 vcpus) $(ev "$bad_json" single-queue-tap tap102i0 vcpus_from)" "4 smp"
log_test "gso-doctor: single-queue-tap fires: 1 queue, -smp 4 on the command line"
check_eq "tap103i0" "$(sev "$bad_json" single-queue-tap tap103i0)" info
check_eq "tap103i0 numqueues" "$(ev "$bad_json" single-queue-tap tap103i0 numqueues)" 2
check_eq "BAD tap2" "$(sev "$bad_json" single-queue-tap tap2)" warning
check_eq "tap0 (1 vCPU)" "$(sev "$bad_json" single-queue-tap tap0)" none
check_eq "clean single-queue-tap findings" "$(count_id "$clean_json" single-queue-tap)" 0
log_test "gso-doctor: single-queue-tap silent: 4 queues/4 vCPUs, 1/1, tap not held (same name held elsewhere)"

# fwbr-hop
check_eq "tap100i0 hop" "$(sev "$bad_json" fwbr-hop tap100i0)" warning
check_eq "tap100i0 hop evidence" "$(ev "$bad_json" fwbr-hop tap100i0 hop) $(ev "$bad_json" fwbr-hop tap100i0 vm_bridge) $(ev "$bad_json" fwbr-hop tap100i0 rules_for_tap)" "fwln100i0 vmbr0 0"
fixes "$bad_json" fwbr-hop tap100i0 | grep -qF "qm set 100 --net0 virtio=<MAC>,bridge=vmbr0,firewall=0" ||
	check_err 1 "tap100i0: firewall=0 fix missing"
log_test "gso-doctor: fwbr-hop fires: firewall bridge with no rule for the tap"
if [ "$nf_sysctl" = 1 ]; then
	check_eq "tap200i0 hop" "$(sev "$nf_json" fwbr-hop tap200i0)" warning
	check_eq "tap200i0 nf" "$(ev "$nf_json" fwbr-hop tap200i0 bridge-nf-call-iptables)" false
	log_test "gso-doctor: fwbr-hop fires: bridge netfilter off"
else
	# tests/run.sh loads br_netfilter; without it this check cannot run,
	# and that is a failure of the set-up, not an optional feature.
	log_test "gso-doctor: fwbr-hop fires: bridge netfilter off" FAIL \
		"cannot set the bridge-nf sysctls in a namespace (br_netfilter?): $(cat "$LOG/nf-sysctl.err")"
fi
if command -v setpriv >/dev/null; then
	unpriv_json=$(ip netns exec "$BAD" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$DOCTOR" --json tap100i0) || true
	check_eq "unprivileged" "$(sev "$unpriv_json" fwbr-hop tap100i0)" info
	check_eq "unprivileged error" "$(finding "$unpriv_json" fwbr-hop tap100i0 | jq -r .evidence.rules_error)" \
		"Operation not permitted"
	log_test "gso-doctor: fwbr-hop is info when the rules cannot be read (no CAP_NET_ADMIN)"
else
	log_test "gso-doctor: fwbr-hop is info when the rules cannot be read" FAIL \
		"no setpriv (util-linux, installed by scripts/setup-deps.sh)"
fi
check_eq "tap0 (no hop)" "$(sev "$bad_json" fwbr-hop tap0)" none
check_eq "tap101i0 (vmbr1, no hop)" "$(sev "$bad_json" fwbr-hop tap101i0)" none
check_eq "clean fwbr-hop findings" "$(count_id "$clean_json" fwbr-hop)" 0
log_test "gso-doctor: fwbr-hop silent without a hop"

# clean topology as a whole, exit codes, modes
check_eq "clean findings" "$(jq '.findings | length' <<<"$clean_json")" 0
check_eq "clean mode" "$(jq -r .mode <<<"$clean_json")" host
check_eq "clean exit" "$(rc_of doctor "$CLEAN")" 0
check_eq "bad exit" "$(rc_of doctor "$BAD")" 1
check_eq "bad status key" "$(jq .status <<<"$bad_json")" 1
check_eq "bad checks" "$(jq -c .checks <<<"$bad_json")" \
	'["gso-path-limit","gro-off","tso-off","single-queue-tap","fwbr-hop"]'
log_test "gso-doctor: clean topology: no finding, exit 0; findings: exit 1"

# guest checks on stand-ins
if [ "$ncpu" -ge 2 ] && [ "$have_channels" = 1 ]; then
	check_eq "gbad guest-queues" "$(sev "$guest_json" guest-queues gbad)" warning
	check_eq "gbad evidence" "$(ev "$guest_json" guest-queues gbad rx)/$(ev "$guest_json" guest-queues gbad max_rx)" "1/2"
	fixes "$guest_json" guest-queues gbad | grep -qxF "ethtool -L gbad rx 2" || check_err 1 "gbad: fix missing"
	log_test "gso-doctor: guest-queues fires: 1 of 2 queues in use (veth stand-in)"
	check_eq "ggood guest-queues" "$(sev "$guest_json" guest-queues ggood)" none
	log_test "gso-doctor: guest-queues silent: every queue in use"
else
	log_test "gso-doctor: guest-queues on veth stand-ins" SKIP "needs 2 CPUs and veth channels"
fi
check_eq "gbad offloads" "$(sev "$guest_json" guest-offloads-off gbad)" warning
check_eq "gbad off" "$(ev "$guest_json" guest-offloads-off gbad off)" rx-gro
fixes "$guest_json" guest-offloads-off gbad | grep -qxF "ethtool -K gbad gro on" || check_err 1 "gbad: gro fix missing"
log_test "gso-doctor: guest-offloads-off fires: GRO off"
check_eq "ggood offloads" "$(sev "$guest_json" guest-offloads-off ggood)" none
log_test "gso-doctor: guest-offloads-off silent: offloads on"
if [ "$ncpu" -ge 2 ]; then
	check_eq "gbad rps" "$(sev "$guest_json" guest-rps-unset gbad)" warning
	fixes "$guest_json" guest-rps-unset gbad | grep -qxF \
		"echo $(printf '%x' $(( (1 << (ncpu > 32 ? 32 : ncpu)) - 1 ))) > /sys/class/net/gbad/queues/rx-0/rps_cpus" ||
		[ "$ncpu" -gt 32 ] || check_err 1 "gbad: rps fix missing"
	log_test "gso-doctor: guest-rps-unset fires: one rx queue, no RPS"
	ip netns exec "$GUEST" sh -c 'echo 1 > /sys/class/net/gquiet/queues/rx-0/rps_cpus'
	rps_json=$(doctor "$GUEST" --json --guest --sample-ms 0 gquiet) || true
	ip netns exec "$GUEST" sh -c 'echo 0 > /sys/class/net/gquiet/queues/rx-0/rps_cpus'
	check_eq "gquiet rps set" "$(sev "$rps_json" guest-rps-unset gquiet)" none
	check_eq "ggood (2 rx queues)" "$(sev "$guest_json" guest-rps-unset ggood)" none
	log_test "gso-doctor: guest-rps-unset silent: RPS set, or several rx queues"
else
	log_test "gso-doctor: guest-rps-unset" SKIP "one CPU: RPS cannot help"
fi
check_eq "gdrop" "$(sev "$guest_json" guest-rx-dropped gdrop)" warning
[ "$(ev "$guest_json" guest-rx-dropped gdrop delta)" -gt 0 ] || check_err 1 "gdrop: no delta"
check_eq "gdrop sample" "$(ev "$guest_json" guest-rx-dropped gdrop sample_ms)" 500
log_test "gso-doctor: guest-rx-dropped fires: rx_dropped rising during the sample"
check_eq "gquiet" "$(sev "$guest_json" guest-rx-dropped gquiet)" none
check_eq "ggood" "$(sev "$guest_json" guest-rx-dropped ggood)" none
log_test "gso-doctor: guest-rx-dropped silent: no drops during the sample"
check_eq "gbad gso" "$(sev "$guest_json" guest-gso-limits gbad)" info
check_eq "gbad gso evidence" "$(ev "$guest_json" guest-gso-limits gbad gso_max_size)/$(ev "$guest_json" guest-gso-limits gbad gso_max_segs)" 64000/64
log_test "gso-doctor: guest-gso-limits reports a lowered limit (info)"
check_eq "ggood gso" "$(sev "$guest_json" guest-gso-limits ggood)" none
log_test "gso-doctor: guest-gso-limits silent at the defaults without the feature"
check_eq "guest-rings on stand-ins" "$(count_id "$guest_json" guest-rings)" 0
log_test "gso-doctor: guest-rings silent on devices without ring parameters"

skew_json=$(SOFTNET=$LOG/softnet-skewed doctor "$GUEST" --json --guest --sample-ms 0 ggood) || true
check_eq "skew" "$(jq -r '.findings[] | select(.id == "guest-softnet-skew") | "\(.severity) \(.evidence.max_cpu) \(.evidence.dropped)"' <<<"$skew_json")" \
	"warning 0 12410"
log_test "gso-doctor: guest-softnet-skew fires: drops on one CPU"
for f in even spread; do
	j=$(SOFTNET=$LOG/softnet-$f doctor "$GUEST" --json --guest --sample-ms 0 ggood) || true
	check_eq "softnet $f" "$(count_id "$j" guest-softnet-skew)" 0
done
log_test "gso-doctor: guest-softnet-skew silent: no drops, or drops spread evenly"

# errors and modes
check_eq "usage exit" "$(rc_of doctor "$CLEAN" --frob)" 2
check_eq "host+guest exit" "$(rc_of doctor "$CLEAN" --host --guest)" 2
check_eq "bad sample exit" "$(rc_of doctor "$CLEAN" --sample-ms 20000)" 2
check_eq "missing device exit" "$(rc_of doctor "$CLEAN" nosuchdev)" 2
doctor "$CLEAN" nosuchdev >"$LOG/enodev.out" 2>&1 || true
grep -q 'nosuchdev: No such device' "$LOG/enodev.out" || check_err 1 "no 'No such device'"
doctor "$CLEAN" --frob >"$LOG/usage.out" 2>&1 || true
grep -q '^usage: gso-doctor' "$LOG/usage.out" || check_err 1 "usage not printed"
log_test "gso-doctor: usage and system errors exit 2"
empty_json=$(doctor "$EMPTY" --json) || true
check_eq "empty mode" "$(jq -r .mode <<<"$empty_json")/$(jq -r '.findings | length' <<<"$empty_json")" none/0
check_eq "empty exit" "$(rc_of doctor "$EMPTY")" 0
check_eq "forced guest mode" "$(doctor "$BAD" --json --guest --sample-ms 0 | jq -r .mode)" guest
log_test "gso-doctor: mode: host with taps, none without taps or virtio_net"

for ns in BAD NF CLEAN GUEST; do
	ns_state "${!ns}" >"$LOG/state-$ns.after"
	diff -u "$LOG/state-$ns.before" "$LOG/state-$ns.after" >"$LOG/state-$ns.diff" ||
		check_err 1 "$ns changed: $(head -c 400 "$LOG/state-$ns.diff")"
done
log_test "gso-doctor: read-only (ip -d link, ethtool -k/-l, rps_cpus unchanged)"

tests_exit
