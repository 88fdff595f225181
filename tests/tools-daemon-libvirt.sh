#!/usr/bin/env bash
# gso-limitsd with real libvirt (Debian's libvirtd 11.3, tests/harness/
# libvirt.sh: its own network and mount namespace, no systemd) and domains
# whose emulator is the project's QEMU (scripts/build-qemu.sh, or GSO_QEMU).
# No guest kernel: qboot with nothing to boot is enough for QMP and the
# device (the guest's side is t35's).  The daemon runs in libvirtd's
# namespaces and reaches every domain through the real
# `virsh qemu-monitor-command`; it finds each tap's domain in libvirtd's
# status files (/run/libvirt/qemu/DOMAIN.xml), not in QEMU's command line.
#
#   br0: nic0 (veth, 64000/64)   br1: nic1 (48000/48)   nic2 (60000/60): macvtap lower
#   dom1  started before the daemon: <interface type='bridge'> on br0 and
#         <interface type='direct'> (macvtap, mode bridge) on nic2
#   dom2  started while the daemon runs (libvirt holds the tap before it
#         execs QEMU: the daemon must not give up on it), type='bridge' on br1,
#         then a second interface on br0 hot-plugged with attach-device
#
# The feature is offered through <qemu:commandline> -global (a QEMU that
# offers it by default needs nothing).  Each value is read back from QEMU
# through virsh.  Monitor commands taint the domain: the test shows the
# taints libvirt records (docs/daemon.md "libvirt").
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/libvirt.sh
. "$GSO_TOP/tests/harness/libvirt.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

FIRMWARE=${GSO_FIRMWARE:-/usr/share/qemu}
limitsd_tools_setup tools-daemon-libvirt \
	virsh "gso-limitsd with libvirt (scripts/setup-deps.sh)" \
	libvirtd "gso-limitsd with libvirt (scripts/setup-deps.sh)"
QEMU=${GSO_QEMU:-$("$GSO_TOP/scripts/build-qemu.sh" 2>"$LOG/build-qemu.log")} || {
	log_test "QEMU build" FAIL "see $LOG/build-qemu.log"; exit "$ksft_fail"; }
limitsd_qemu_interface "$QEMU"
if [ "$QEMU_GSO_IFACE" = v3 ]; then
	GLOBAL=()	# offered by default on the newest machine type
else
	GLOBAL=("<qemu:commandline><qemu:arg value='-global'/><qemu:arg value='virtio-net-pci.host_gso_max_segs=65535'/></qemu:commandline>")
fi

limitsd_tools_ns libvirt NS
n() { ip -n "$NS" "$@"; }
n link add br0 type bridge
n link add br1 type bridge
for spec in "nic0 64000 64 br0" "nic1 48000 48 br1" "nic2 60000 60 -"; do
	read -r nic size segs br <<<"$spec"
	n link add "$nic" type veth peer name "${nic}p"
	n link set dev "$nic" gso_max_size "$size" gso_max_segs "$segs" up
	n link set dev "${nic}p" up
	[ "$br" = - ] || n link set dev "$nic" master "$br"
done
n link set dev br0 up
n link set dev br1 up

libvirt_start "$NS" || { log_test "libvirtd starts" FAIL "see $TEST_LOG_DIR/libvirtd-$NS.log"; exit "$ksft_fail"; }

BRIDGE0="<interface type='bridge'><source bridge='br0'/><model type='virtio'/></interface>"
BRIDGE1="<interface type='bridge'><source bridge='br1'/><model type='virtio'/></interface>"
DIRECT2="<interface type='direct'><source dev='nic2' mode='bridge'/><model type='virtio'/></interface>"
domain() { # NAME NIC_XML...: created (transient), destroyed at exit
	local name=$1
	shift
	# <qemu:commandline> must follow <devices>: appended before </domain>.
	libvirt_domain_xml "$name" "$QEMU" "$FIRMWARE/qboot.rom" "$@" |
		sed "s|^</domain>|${GLOBAL[*]:-}</domain>|" >"$S/$name.xml"
	lvsh create "$S/$name.xml" >"$LOG/create-$name.log" 2>&1 || {
		cat "$LOG/create-$name.log" "$TEST_LOG_DIR/libvirtd-$NS.log"; return 1; }
	defer "lvsh destroy $name"
}
# limits DOMAIN ALIAS: the device's limits as QEMU reports them, "SIZE/SEGS"
limits() {
	local prop out
	for prop in host_gso_max host-gso-limits; do
		out=$(lvsh qemu-monitor-command "$1" \
			"{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"/machine/peripheral/$2\",\"property\":\"$prop\"}}" 2>/dev/null) || continue
		# virsh prints QEMU's error replies too (exit 0): only a return counts.
		jq -e '.return.size' >/dev/null 2>&1 <<<"$out" || continue
		jq -r '.return | "\(.size)/\(.segs)"' <<<"$out"
		return 0
	done
	echo "?"
}
limits_are() { [ "$(limits "$1" "$2")" = "$3" ]; }
wait_limits() { # DOMAIN ALIAS SIZE/SEGS WHAT
	slowwait 30 limits_are "$1" "$2" "$3" || check_err 1 "$4: $(limits "$1" "$2"), want $3"
}

domain dom1 "$BRIDGE0" "$DIRECT2" || { log_test "libvirt domain dom1 starts" FAIL; exit "$ksft_fail"; }
lvsh domiflist dom1 >"$LOG/dom1-iflist.txt"

lv "$LIMITSD" --control "$S/ctl" --settle 50 --rescan 2 --verbose >"$LOG/daemon.log" 2>&1 &
DAEMON=$!
defer "kill $DAEMON"
slowwait 10 test -S "$S/ctl" || { cat "$LOG/daemon.log"; exit "$ksft_fail"; }

wait_limits dom1 net0 64000/64 "dom1 type='bridge' (br0)"
log_test "libvirt: a domain running before the daemon, type='bridge', set via virsh"
wait_limits dom1 net1 60000/60 "dom1 type='direct' (macvtap on nic2)"
log_test "libvirt: type='direct' (macvtap) followed and set"

domain dom2 "$BRIDGE1" || { log_test "libvirt domain dom2 starts" FAIL; exit "$ksft_fail"; }
wait_limits dom2 net0 48000/48 "dom2 started while the daemon runs (br1)"
log_test "libvirt: a domain started while the daemon runs is set"

printf '%s\n' "$BRIDGE0" >"$S/hotplug.xml"
lvsh attach-device dom2 "$S/hotplug.xml" --live >"$LOG/attach.log" 2>&1 ||
	check_err 1 "attach-device: $(cat "$LOG/attach.log")"
wait_limits dom2 net1 64000/64 "dom2's hot-plugged interface (br0)"
log_test "libvirt: attach-device hot-plug is set"
# What the daemon read (lib/libvirt_status.c), kept: the fuzz seeds' model.
lv cat /run/libvirt/qemu/dom1.xml >"$LOG/status-dom1.xml" 2>&1 || true
lv cat /run/libvirt/qemu/dom2.xml >"$LOG/status-dom2.xml" 2>&1 || true

n link set dev nic0 gso_max_size 50000
wait_limits dom1 net0 50000/64 "dom1 after nic0 went to 50000"
wait_limits dom2 net1 50000/64 "dom2's hot-plugged NIC after nic0 went to 50000"
log_test "libvirt: a port's change reaches every domain behind it"

st=$(lv "$LIMITSD" status --control "$S/ctl")
echo "$st" >"$LOG/status.json"
for tap in $(jq -r '.namespaces[0].taps[].ifname' <<<"$st"); do
	check_eq "$tap: state" "$(jq -r --arg t "$tap" '.namespaces[0].taps[] | select(.ifname == $t) | .state' <<<"$st")" synced
	check_eq "$tap: manager" "$(jq -r --arg t "$tap" '.namespaces[0].taps[] | select(.ifname == $t) | .vmm.kind' <<<"$st")" libvirt
done
check_eq "taps in the status" "$(jq '.namespaces[0].taps | length' <<<"$st")" 4
log_test "libvirt: status lists every domain's tap as synced through libvirt"

# The taints libvirt records for these domains (docs/daemon.md lists them).
lv cat /var/log/libvirt/qemu/dom1.log >"$LOG/dom1-qemu.log" 2>/dev/null || true
grep -o "tainted: [a-z-]*" "$LOG/dom1-qemu.log" | sort -u >"$LOG/taints.txt" || true
grep -q "custom-monitor" "$LOG/taints.txt" || check_err 1 "no custom-monitor taint recorded: $(cat "$LOG/taints.txt")"
log_test "libvirt: the daemon's monitor commands taint the domain (custom-monitor)"

# A domain named with dom1's ID: virsh reads a domain argument as an ID
# first, so "virsh qemu-monitor-command <its name>" would be dom1's.  The
# daemon gives virsh the UUID from the status file: this domain's device is
# set, dom1's is left as it was.
DOM1_ID=$(lvsh domid dom1)
NUMUUID=$(cat /proc/sys/kernel/random/uuid)
libvirt_domain_xml "$DOM1_ID" "$QEMU" "$FIRMWARE/qboot.rom" "$BRIDGE1" |
	sed -e "s|^  <name>.*|&<uuid>$NUMUUID</uuid>|" -e "s|^</domain>|${GLOBAL[*]:-}</domain>|" \
	>"$S/numeric.xml"
if lvsh create "$S/numeric.xml" >"$LOG/create-numeric.log" 2>&1; then
	defer "lvsh destroy $NUMUUID"
	# (virsh domuuid takes an ID or a name only: the ID would be dom1's.)
	check_eq "virsh domname of the UUID" "$(lvsh domname "$NUMUUID")" "$DOM1_ID"
	check_eq "virsh domname $DOM1_ID (an ID first)" "$(lvsh domname "$DOM1_ID")" dom1
	# The daemon says it set the tap (it would, given the name, through dom1):
	slowwait 30 grep -q "set size 48000 segs 48 .* via virsh domain $DOM1_ID (uuid $NUMUUID)" \
		"$LOG/daemon.log" || check_err 1 "no 'set' line naming the domain and its UUID"
	check_eq "dom1 (ID $DOM1_ID) net0 untouched" "$(limits dom1 net0)" 50000/64
	wait_limits "$NUMUUID" net0 48000/48 "the domain named $DOM1_ID (br1)"
else
	check_err 1 "a domain named $DOM1_ID: $(cat "$LOG/create-numeric.log")"
fi
log_test "libvirt: a domain named $DOM1_ID (dom1's ID) is addressed by its UUID, not as dom1"

kill -0 "$DAEMON" || check_err 1 "the daemon exited"
log_test "gso-limitsd still runs"
tests_exit
