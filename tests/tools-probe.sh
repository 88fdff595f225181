#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-probe on real topologies in a private namespace (HOST), with the
# veth peers that play the wire in a second one (WIRE):
#   br-seed:  tap0 + nic0 at r8169's 64000/64 (seed 000)
#   br-mix:   tap1 + p1 at gso_max_size 48000 + p2 at gso_max_segs 32
#   fwbr0:    tap2 -> fwln0=fwpr0 -> vmbr0 + enp0 at 64000/64 (Proxmox firewall hop)
#   mvt0:     macvtap on lower0 at 50000/40
#   tap3:     alone (no master)
#   br-plain: tap4 + a default veth (e1000e profile: nothing to do)
# This kernel has no vlan, bond or team: tools/test/test-path.c covers those.
# veth's tso_max_size cannot be lowered here, so limits are set with
# gso_max_size/gso_max_segs.  The probe must also be read-only.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

PROBE=$GSO_TOP/tools/build/gso-probe
LOG=$TEST_LOG_DIR/tools-probe
mkdir -p "$LOG"
require_command jq "gso-probe"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

setup_ns HOST WIRE
hip() { ip -n "$HOST" "$@"; }
probe() { ip netns exec "$HOST" "$PROBE" "$@"; }
# wire_veth NAME: a veth in HOST whose peer is in WIRE (the walk stops there).
wire_veth() { hip link add name "$1" type veth peer name "w-$1" netns "$WIRE"; }
bridge() { hip link add name "$1" type bridge; }
tap() { hip tuntap add dev "$1" mode tap; }

bridge br-seed; tap tap0; wire_veth nic0
hip link set dev nic0 gso_max_size 64000 gso_max_segs 64
hip link set dev tap0 master br-seed
hip link set dev nic0 master br-seed

bridge br-mix; tap tap1; wire_veth p1; wire_veth p2
hip link set dev p1 gso_max_size 48000
hip link set dev p2 gso_max_segs 32
for port in tap1 p1 p2; do hip link set dev "$port" master br-mix; done

bridge fwbr0; bridge vmbr0; tap tap2; wire_veth enp0
hip link add name fwln0 type veth peer name fwpr0
hip link set dev enp0 gso_max_size 64000 gso_max_segs 64
hip link set dev tap2 master fwbr0
hip link set dev fwln0 master fwbr0
hip link set dev fwpr0 master vmbr0
hip link set dev enp0 master vmbr0

wire_veth lower0
hip link set dev lower0 gso_max_size 50000 gso_max_segs 40
# tests/run.sh loads macvtap where it is a module: a macvtap that cannot be made is a failure.
macvtap_err=""
hip link add link lower0 name mvt0 type macvtap 2>"$LOG/macvtap.err" ||
	macvtap_err="no macvtap: $(cat "$LOG/macvtap.err")"

tap tap3

bridge br-plain; tap tap4; wire_veth plain0
hip link set dev tap4 master br-plain
hip link set dev plain0 master br-plain

before=$(hip -d link show)
all=$(probe --json)
probe >"$LOG/all.txt"
echo "$all" >"$LOG/all.json"

# tap_json NAME: the probe's JSON object for one tap.
tap_json() { jq -c --arg t "$1" '.taps[] | select(.ifname == $t)' <<<"$all"; }
# fields NAME: status size segs size_from segs_from exceeded
fields() {
	jq -r '"\(.status) \(.gso_max_size) \(.gso_max_segs) \(.size_from) \(.segs_from) \(.exceeded)"' \
		<<<"$(tap_json "$1")"
}

check_eq "tap0" "$(fields tap0)" "ok 64000 64 nic0 nic0 true"
check_eq "tap0 guest command" "$(tap_json tap0 | jq -r .guest_command)" \
	"ip link set dev <guest-if> gso_max_size 64000 gso_ipv4_max_size 64000"
check_eq "tap0 segs command" "$(tap_json tap0 | jq -r .guest_segs_command)" \
	"ip link set dev <guest-if> gso_max_segs 64"
grep -qxF '  guest command: ip link set dev <guest-if> gso_max_size 64000 gso_ipv4_max_size 64000' \
	"$LOG/all.txt" || check_err 1 "text output lacks the guest command"
log_test "gso-probe: seed 000 topology gives 64000/64 and the guest command"

check_eq "tap1" "$(fields tap1)" "ok 48000 32 p1 p2 true"
check_eq "tap1 egress" "$(tap_json tap1 | jq -r '[.egress[].ifname] | join(",")')" "p1,p2"
log_test "gso-probe: bridge ports of different limits give the minimum of each"

check_eq "tap2" "$(fields tap2)" "ok 64000 64 enp0 enp0 true"
check_eq "tap2 egress" "$(tap_json tap2 | jq -r '[.egress[].ifname] | join(",")')" "fwln0,enp0"
log_test "gso-probe: firewall bridge hop (fwbr -> veth -> vmbr0) is followed"

if [ -z "$macvtap_err" ]; then
	check_eq "mvt0" "$(fields mvt0)" "ok 50000 40 lower0 lower0 true"
	log_test "gso-probe: macvtap takes its lower device's limits"
else
	log_test "gso-probe: macvtap takes its lower device's limits" FAIL "$macvtap_err"
fi

check_eq "tap3" "$(fields tap3)" "no_master null null null null false"
check_eq "tap3 command" "$(tap_json tap3 | jq -r .guest_command)" null
log_test "gso-probe: a tap alone has no path and no command"

check_eq "tap4" "$(fields tap4)" "ok 65536 65535 null null false"
check_eq "tap4 command" "$(tap_json tap4 | jq -r .guest_command)" null
log_test "gso-probe: default limits (e1000e profile): nothing to do"

want=6
[ -z "$macvtap_err" ] || want=5
check_eq "taps listed" "$(jq '.taps | length' <<<"$all")" "$want"
check_eq "no non-tap listed" \
	"$(jq -r '[.taps[].ifname | select(startswith("tap") or . == "mvt0" | not)] | length' <<<"$all")" 0
log_test "gso-probe: without IFACE, every tap and macvtap is listed"

check_eq "link state after probing" "$(hip -d link show)" "$before"
log_test "gso-probe: read-only (ip -d link unchanged)"

# A run-time change is seen on the next probe.
hip link set dev nic0 gso_max_size 48000 gso_max_segs 32
check_eq "tap0 after change" "$(probe --json tap0 | jq -r '.taps[0] | "\(.gso_max_size) \(.gso_max_segs)"')" \
	"48000 32"
hip link set dev nic0 gso_max_size 65536 gso_max_segs 65535
check_eq "tap0 after raise" "$(probe --json tap0 | jq -r '.taps[0] | "\(.gso_max_size) \(.exceeded)"')" \
	"65536 false"
log_test "gso-probe: follows a lowered and a raised egress limit"

# IFACE may be any device; a missing one is an error.
check_eq "named veth" "$(probe --json fwln0 | jq -r '.taps[0] | "\(.ifname) \(.status) \(.gso_max_size)"')" \
	"fwln0 ok 65536"
rc=0
probe nosuchdev >/dev/null 2>"$LOG/enodev.err" || rc=$?
check_eq "exit code for a missing device" "$rc" 1
grep -q 'nosuchdev: No such device' "$LOG/enodev.err" || check_err 1 "no 'No such device'"
rc=0
probe --frob >/dev/null 2>"$LOG/usage.err" || rc=$?
check_eq "exit code for a bad option" "$rc" 1
grep -q '^usage: gso-probe \[--json\] \[IFACE\]' "$LOG/usage.err" || check_err 1 "usage not printed"
log_test "gso-probe: named device, missing device and usage errors"

tests_exit
