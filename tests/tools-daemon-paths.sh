#!/usr/bin/env bash
# gso-limitsd on paths that leave a bridge by routing, and on a tap whose
# path changes from known to unknown (issue 24 item 5), against QMP
# stand-ins (tools/test/qmp-standin.c):
#
#   natbr   a NAT/routed bridge (libvirt's virbr0, a Proxmox vmbr1 with
#           masquerading): 192.168.122.1/24 on the bridge, no other port;
#           the guests' gateway is the bridge's own address and their
#           traffic leaves by the host's default route, via nic0 (64000/64)
#   taplate a tap that appears without a master (routed for the moment:
#           the default route's 64000/64) and is then put into lonebr, a
#           bridge with no other port and no address: its path is unknown,
#           and the value set for the transient path must not stay
#
#   tapresc a VM whose guest has not negotiated the feature (the daemon asks
#           again on every periodic re-read) behind rsbr (rsnic 64000/64);
#           rsnic lowered to 50000, which this kernel announces with no
#           event: the re-read that finds it also asks about the guest
#
# Checks: the NAT bridge's VM is set to the routed path's limits; the late
# tap is set back to no limit (4294967295/65535) and shown no_path; the
# re-read's new value is set (it was once lost: the question about the
# guest took the conversation and the set was dropped).
# No traffic: the limits read back from the stand-ins' logs.
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

limitsd_tools_setup tools-daemon-paths
limitsd_tools_ns paths HOST
SETLOG=$LOG/qom-set.log
: >"$SETLOG"
h() { ip -n "$HOST" "$@"; }
h link set dev lo up
h link add nic0 type veth peer name nic0p
h link set dev nic0 gso_max_size 64000 gso_max_segs 64 up
h link set dev nic0p up
h addr add 10.1.0.1/24 dev nic0
h route add default via 10.1.0.2 dev nic0
h link add natbr type bridge
h addr add 192.168.122.1/24 dev natbr
h link set dev natbr up
h link add lonebr type bridge
h link set dev lonebr up

standin() { # NAME BRIDGE -- ARGS...
	local name=$1 bridge=$2
	shift 3
	start_ready "$LOG/$name.out" 'qmp-standin: ready' \
		ip netns exec "$HOST" env QMP_STANDIN_LOG="$SETLOG" ${bridge:+QMP_STANDIN_BRIDGE=$bridge} \
		"$STANDIN" "$@"
}

"$LIMITSD" --netns "$HOST" --qmp-socket "$S/*.qmp" --control "$S/ctl" --settle 50 --rescan 1 --verbose \
	>"$LOG/daemon.log" 2>&1 &
defer "kill $!"
slowwait 5 test -S "$S/ctl"
tap_field() { "$LIMITSD" status --control "$S/ctl" |
	jq -r --arg t "$1" ".namespaces[0].taps[] | select(.ifname == \$t) | $2"; }
last_set() { grep -- "tap=$1 " "$SETLOG" | tail -1 | sed -n 's/.*size=\([0-9]*\) segs=\([0-9]*\).*/\1\/\2/p'; }
last_set_is() { [ "$(last_set "$1")" = "$2" ]; }

standin nat natbr -- -qmp "unix:$S/nat.qmp,server=on,wait=off" \
	-netdev tap,id=n0,ifname=tapnat -device virtio-net-pci,netdev=n0,id=net0
slowwait 10 last_set_is tapnat 64000/64 ||
	check_err 1 "tapnat: $(tap_field tapnat '"\(.state) \(.path) \(.error // "")"'), last set '$(last_set tapnat)', want 64000/64"
check_eq "tapnat: size_rule" "$(tap_field tapnat .size_rule)" route
log_test "a NAT/routed bridge (its own address, no other port): the routed path's limits"

standin late "" -- -qmp "unix:$S/late.qmp,server=on,wait=off" \
	-netdev tap,id=n0,ifname=taplate -device virtio-net-pci,netdev=n0,id=net0
h link set dev taplate up
slowwait 10 last_set_is taplate 64000/64 || check_err 1 "taplate (no master yet): last set '$(last_set taplate)', want 64000/64"
h link set dev taplate master lonebr
slowwait 10 last_set_is taplate 4294967295/65535 ||
	check_err 1 "taplate in a bridge with no other port: last set '$(last_set taplate)', want 4294967295/65535 (no limit)"
check_eq "taplate: state" "$(tap_field taplate .state)" no_path
grep -q "taplate: set back to no limit" "$LOG/daemon.log" || check_err 1 "no log line for the reset"
log_test "a tap's transient value does not stay when its final path is unknown"

h link add rsbr type bridge
h link add rsnic type veth peer name rsnicp
h link set dev rsnic gso_max_size 64000 gso_max_segs 64 master rsbr up
h link set dev rsnicp up
h link set dev rsbr up
start_ready "$LOG/resc.out" 'qmp-standin: ready' \
	ip netns exec "$HOST" env QMP_STANDIN_LOG="$SETLOG" QMP_STANDIN_BRIDGE=rsbr QMP_STANDIN_NEGOTIATED=0 \
	"$STANDIN" -qmp "unix:$S/resc.qmp,server=on,wait=off" \
	-netdev tap,id=n0,ifname=tapresc -device virtio-net-pci,netdev=n0,id=net0
slowwait 10 last_set_is tapresc 64000/64 || check_err 1 "tapresc: last set '$(last_set tapresc)', want 64000/64"
slowwait 5 grep -q "x-query-virtio-status /machine/peripheral/net0" "$SETLOG" ||
	check_err 1 "tapresc: the daemon never asked whether the guest negotiated"
h link set dev rsnic gso_max_size 50000
slowwait 10 last_set_is tapresc 50000/64 ||
	check_err 1 "tapresc after rsnic went to 50000: $(tap_field tapresc '"\(.state) \(.gso_max_size)"'), last set '$(last_set tapresc)', want 50000/64"
log_test "a change found by a periodic re-read is set while the guest is asked about"

tests_exit
