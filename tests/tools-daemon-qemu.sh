#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-limitsd against the project's real QEMU (scripts/build-qemu.sh, or
# GSO_QEMU), started the way Proxmox, libvirt and a user start it.  No guest
# kernel: each QEMU runs qboot with nothing to boot, which is enough for
# QMP and the virtio-net device (the guest's side is t35's, t61's).
#
#   vm100   Proxmox: -name vm100 -daemonize -pidfile, /S/100.qmp, tap100i0
#           created by QEMU and put into br0 by its ifup script (pve-bridge's
#           job), qemu-server's pid file checked; nothing on the command line
#           for the feature with QEMU's v3 interface (on by default for the
#           newest machine type), `-global virtio-net-pci.host_gso_max_segs=65535`
#           with the v2 one
#   plain   -qmp unix:... (listed with --qmp-socket), an anonymous device,
#           the feature offered
#   nofeat  plain, the device started without the feature
#   nicvm   plain, its NIC from -nic (no -netdev/-device to read), and a second
#           one hot-plugged over QMP (netdev_add + device_add): both found
#           through QEMU itself ("info network", qom-list)
#
# libvirt runs for real in tools-daemon-libvirt.sh.
#
# Checks: each offered device ends with the path's limits (read back with
# qom-get from QEMU itself), a port joining the bridge reaches them all, the
# device without the feature is reported in QEMU's words.
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

FIRMWARE=${GSO_FIRMWARE:-/usr/share/qemu}
limitsd_tools_setup tools-daemon-qemu
QEMU=${GSO_QEMU:-$("$GSO_TOP/scripts/build-qemu.sh" 2>"$LOG/build-qemu.log")} || {
	log_test "QEMU build" FAIL "see $LOG/build-qemu.log"; exit "$ksft_fail"; }
# QEMU's interface v3 (host_gso_max, the feature on by default for new
# machine types, host_gso_limits=off to leave it out) or v2 (host-gso-limits,
# offered only with host_gso_max_*): the daemon speaks both.
limitsd_qemu_interface "$QEMU"
if [ "$QEMU_GSO_IFACE" = v3 ]; then
	PROP=host_gso_max NOFEAT=,host_gso_limits=off OFFER=()
else
	PROP=host-gso-limits NOFEAT='' OFFER=(-global virtio-net-pci.host_gso_max_segs=65535)
fi

limitsd_tools_ns qemu HOST
h() { ip -n "$HOST" "$@"; }
h link add br0 type bridge
for spec in "nic0 64000 64" "nic1 60000 60"; do
	read -r nic size segs <<<"$spec"
	h link add "$nic" type veth peer name "${nic}p"
	h link set dev "$nic" gso_max_size "$size" gso_max_segs "$segs" up
	h link set dev "${nic}p" up
done
h link set dev nic0 master br0
h link set dev br0 up

# The tap script QEMU runs (qemu-server's pve-bridge, reduced to its effect).
# shellcheck disable=SC2016 # $1 is the script's own argument
printf '#!/bin/sh\nip link set dev "$1" master br0 up\n' >"$S/ifup"
chmod +x "$S/ifup"

QEMU_BASE=("$QEMU" -nodefaults -display none -machine pc -accel tcg -m 64
	-L "$FIRMWARE" -bios "$FIRMWARE/qboot.rom")
# qemu_bg NAME ARGS...: a QEMU in HOST, killed at exit (by pid file).
qemu_bg() {
	local name=$1
	shift
	ip netns exec "$HOST" "$@" -pidfile "$S/$name.pid" >"$LOG/$name.out" 2>&1 &
	slowwait 10 test -s "$S/$name.pid" || { cat "$LOG/$name.out"; return 1; }
	defer "kill \$(cat $S/$name.pid)"
}
qmp() { "$STANDIN" --client "$1" "$2"; }
qom_limits() { # SOCKET PATH: the device's limits as "SIZE/SEGS"
	qmp "$1" "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"$2\",\"property\":\"$PROP\"}}" |
		jq -r '.return | "\(.size)/\(.segs)"'
}

# Proxmox: QEMU daemonizes, creates tap100i0, runs the tap script.
ip netns exec "$HOST" "${QEMU_BASE[@]}" -name vm100,debug-threads=on -no-shutdown \
	-chardev "socket,id=qmp,path=$S/100.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-pidfile "$S/100.pid" -daemonize \
	"${OFFER[@]}" \
	-netdev "type=tap,id=net0,ifname=tap100i0,script=$S/ifup,downscript=no" \
	-device "virtio-net-pci,mac=BC:24:11:00:01:00,netdev=net0,bus=pci.0,addr=0x12,id=net0" \
	>"$LOG/vm100.out" 2>&1 || { cat "$LOG/vm100.out"; exit "$ksft_fail"; }
defer "kill \$(cat $S/100.pid)"
qemu_bg plain "${QEMU_BASE[@]}" -qmp "unix:$S/plain.qmp,server=on,wait=off" \
	-netdev "tap,id=hn0,ifname=tapplain,script=$S/ifup,downscript=no" \
	-device virtio-net-pci,netdev=hn0,host_gso_max_segs=65535
qemu_bg nofeat "${QEMU_BASE[@]}" -qmp "unix:$S/nofeat.qmp,server=on,wait=off" \
	-netdev "tap,id=hn0,ifname=tapnofeat,script=$S/ifup,downscript=no" \
	-device "virtio-net-pci,netdev=hn0,id=nic0$NOFEAT"

"$LIMITSD" --netns "$HOST" --control "$S/ctl" --proxmox-run-dir "$S" --qmp-socket "$S/*.qmp" \
	--settle 50 --verbose >"$LOG/daemon.log" 2>&1 &
defer "kill $!"

limits_are() { [ "$(qom_limits "$1" "$2")" = "$3" ]; }
check_all() { # SIZE/SEGS
	slowwait 20 limits_are "$S/100.qmp" /machine/peripheral/net0 "$1" ||
		check_err 1 "Proxmox VM: $(qom_limits "$S/100.qmp" /machine/peripheral/net0), want $1"
	slowwait 20 limits_are "$S/plain.qmp" "/machine/peripheral-anon/device[0]" "$1" ||
		check_err 1 "plain VM: $(qom_limits "$S/plain.qmp" "/machine/peripheral-anon/device[0]"), want $1"
}
check_all 64000/64
log_test "real QEMU (Proxmox, plain command lines): set to the path, read back"

# gso-doctor agrees with the daemon: a tap it set at run time (nothing on
# QEMU's command line) is info, not a warning; asked nothing, it warns.
doctor_tap() { # CONTROL: tap100i0's gso-path-limit finding as "SEVERITY FEATURE"
	ip netns exec "$HOST" "$GSO_TOP/tools/build/gso-doctor" --host --json --limitsd "$1" tap100i0 |
		jq -r '.findings[] | select(.id == "gso-path-limit") | "\(.severity) \(.evidence.gso_limits_feature)"'
}
h link set dev nic0 gso_max_size 64000 gso_max_segs 64 # the doctor flags a path below 65536
check_eq "gso-doctor, daemon asked" "$(doctor_tap "$S/ctl")" "info set_by_gso_limitsd"
check_eq "gso-doctor, daemon not asked (control)" "$(doctor_tap none | cut -d' ' -f1)" warning
log_test "gso-doctor agrees with the daemon's status"
# No guest runs: nothing negotiated, in the daemon's status and the doctor's evidence.
check_eq "status: tap100i0 negotiated" \
	"$("$LIMITSD" status --control "$S/ctl" | jq -r '.namespaces[0].taps[] | select(.ifname == "tap100i0") | .negotiated')" false
check_eq "gso-doctor: negotiated" "$(ip netns exec "$HOST" "$GSO_TOP/tools/build/gso-doctor" --host --json \
	--limitsd "$S/ctl" tap100i0 | jq -r '.findings[] | select(.id == "gso-path-limit") | .evidence.gso_limitsd_negotiated')" false
log_test "status and doctor: the guest has not negotiated the feature (x-query-virtio-status)"

h link set dev nic1 master br0
check_all 60000/60
log_test "real QEMU: a port joining the bridge reaches every VM"

slowwait 10 grep -q "tapnofeat: .*does not offer the GSO limits feature" "$LOG/daemon.log" ||
	check_err 1 "the device without the feature: no message with QEMU's words"
log_test "real QEMU: a device started without the feature is reported"

qemu_bg nicvm "${QEMU_BASE[@]}" "${OFFER[@]}" -qmp "unix:$S/nicvm.qmp,server=on,wait=off" \
	-nic "tap,ifname=tapnic,script=$S/ifup,downscript=no,model=virtio-net-pci"
qmp "$S/nicvm.qmp" "{\"execute\":\"netdev_add\",\"arguments\":{\"type\":\"tap\",\"id\":\"hp0\",\"ifname\":\"taphp\",\"script\":\"$S/ifup\",\"downscript\":\"no\"}}" >"$LOG/netdev_add.json"
qmp "$S/nicvm.qmp" '{"execute":"device_add","arguments":{"driver":"virtio-net-pci","netdev":"hp0","id":"hpnic"}}' >"$LOG/device_add.json"
device_of() { "$LIMITSD" status --control "$S/ctl" | jq -r --arg t "$1" '.namespaces[0].taps[] | select(.ifname == $t) | .vmm.device // ""'; }
known() { [ -n "$(device_of "$1")" ]; }
for tap in tapnic taphp; do
	slowwait 20 known "$tap" || check_err 1 "$tap: no device found: $(grep "$tap" "$LOG/daemon.log" | tail -1)"
	dev=$(device_of "$tap")
	[ -z "$dev" ] || slowwait 20 limits_are "$S/nicvm.qmp" "$dev" 60000/60 ||
		check_err 1 "$tap ($dev): $(qom_limits "$S/nicvm.qmp" "$dev"), want 60000/60"
done
log_test "real QEMU: -nic and a hot-plugged NIC, found through QMP, set"

tests_exit
