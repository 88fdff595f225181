#!/usr/bin/env bash
# gso-limitsd against the project's real QEMU (scripts/build-qemu.sh, or
# GSO_QEMU), started the way Proxmox, libvirt and a user start it.  No guest
# kernel: each QEMU runs qboot with nothing to boot, which is enough for
# QMP and the virtio-net device (the guest's side is t35's, t61's).
#
#   vm100   Proxmox: -name vm100 -daemonize -pidfile, /S/100.qmp, tap100i0
#           created by QEMU and put into br0 by its ifup script (pve-bridge's
#           job), the feature offered with `-global
#           virtio-net-pci.host_gso_max_segs=65535` (docs/daemon.md: `qm set
#           --args`)
#   dom1    libvirt: the tap created and bridged first, passed as -netdev
#           '{"type":"tap","fd":"N"}' (qmp-standin --tap-fd plays libvirtd),
#           JSON -device with an id, -name guest=dom1, reached through a
#           stand-in `virsh qemu-monitor-command` on the monitor socket
#   plain   -qmp unix:..., an anonymous device, the feature offered
#   nofeat  plain, the device started without the feature (host_gso_limits=off)
#
# Checks: each offered device ends with the path's limits (read back with
# qom-get from QEMU itself), a port joining the bridge reaches them all, the
# device without the feature is reported in QEMU's words.
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

LIMITSD=$GSO_TOP/tools/build/gso-limitsd
STANDIN=$GSO_TOP/tools/build/qmp-standin
LOG=$TEST_LOG_DIR/tools-daemon-qemu
FIRMWARE=${GSO_FIRMWARE:-/usr/share/qemu}
mkdir -p "$LOG"
require_command jq "gso-limitsd with QEMU"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }
QEMU=${GSO_QEMU:-$("$GSO_TOP/scripts/build-qemu.sh" 2>"$LOG/build-qemu.log")} || {
	log_test "QEMU build" FAIL "see $LOG/build-qemu.log"; exit "$ksft_fail"; }
if ! "$QEMU" -device virtio-net-pci,help 2>/dev/null | grep -q host_gso_max; then
	log_test "QEMU has the run-time host_gso_max property" FAIL "$QEMU: qemu-patches/ without it"
	exit "$ksft_fail"
fi

setup_ns HOST
S=$(mktemp -d /tmp/gso-limitsd-qemu.XXXXXX)
defer rm -rf "$S"
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
cat >"$S/virsh" <<EOF
#!/bin/bash
set -euo pipefail
[ "\$1" = qemu-monitor-command ] || exit 1
dom=\$2
shift 2
[ "\$1" = --pretty ] && shift
exec "$STANDIN" --client "$S/\$dom.monitor" "\$1"
EOF
chmod +x "$S/virsh"

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
qom_limits() { # SOCKET PATH: the device's host_gso_max as "SIZE/SEGS"
	qmp "$1" "{\"execute\":\"qom-get\",\"arguments\":{\"path\":\"$2\",\"property\":\"host_gso_max\"}}" |
		jq -r '.return | "\(.size)/\(.segs)"'
}

# Proxmox: QEMU daemonizes, creates tap100i0, runs the tap script.
ip netns exec "$HOST" "${QEMU_BASE[@]}" -name vm100,debug-threads=on -no-shutdown \
	-chardev "socket,id=qmp,path=$S/100.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-pidfile "$S/vm100.pid" -daemonize \
	-global virtio-net-pci.host_gso_max_segs=65535 \
	-netdev "type=tap,id=net0,ifname=tap100i0,script=$S/ifup,downscript=no" \
	-device "virtio-net-pci,mac=BC:24:11:00:01:00,netdev=net0,bus=pci.0,addr=0x12,id=net0" \
	>"$LOG/vm100.out" 2>&1 || { cat "$LOG/vm100.out"; exit "$ksft_fail"; }
defer "kill \$(cat $S/vm100.pid)"
# libvirt: libvirtd creates and bridges the tap, QEMU gets descriptor 23.
qemu_bg dom1 "$STANDIN" --tap-fd 23 vnet0 br0 "${QEMU_BASE[@]}" \
	-name guest=dom1,debug-threads=on \
	-chardev "socket,id=charmonitor,path=$S/dom1.monitor,server=on,wait=off" \
	-mon chardev=charmonitor,id=monitor,mode=control \
	-netdev '{"type":"tap","fd":"23","id":"hostnet0"}' \
	-device '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0","mac":"52:54:00:00:00:01","host_gso_max_segs":65535}'
qemu_bg plain "${QEMU_BASE[@]}" -qmp "unix:$S/plain.qmp,server=on,wait=off" \
	-netdev "tap,id=hn0,ifname=tapplain,script=$S/ifup,downscript=no" \
	-device virtio-net-pci,netdev=hn0,host_gso_max_segs=65535
qemu_bg nofeat "${QEMU_BASE[@]}" -qmp "unix:$S/nofeat.qmp,server=on,wait=off" \
	-netdev "tap,id=hn0,ifname=tapnofeat,script=$S/ifup,downscript=no" \
	-device virtio-net-pci,netdev=hn0,id=nic0,host_gso_limits=off

"$LIMITSD" --netns "$HOST" --control "$S/ctl" --proxmox-run-dir "$S" --virsh "$S/virsh" \
	--settle 50 --verbose >"$LOG/daemon.log" 2>&1 &
defer "kill $!"

limits_are() { [ "$(qom_limits "$1" "$2")" = "$3" ]; }
check_all() { # SIZE/SEGS
	slowwait 20 limits_are "$S/100.qmp" /machine/peripheral/net0 "$1" ||
		check_err 1 "Proxmox VM: $(qom_limits "$S/100.qmp" /machine/peripheral/net0), want $1"
	slowwait 20 limits_are "$S/dom1.monitor" /machine/peripheral/net0 "$1" ||
		check_err 1 "libvirt VM: $(qom_limits "$S/dom1.monitor" /machine/peripheral/net0), want $1"
	slowwait 20 limits_are "$S/plain.qmp" "/machine/peripheral-anon/device[0]" "$1" ||
		check_err 1 "plain VM: $(qom_limits "$S/plain.qmp" "/machine/peripheral-anon/device[0]"), want $1"
}
check_all 64000/64
log_test "real QEMU (Proxmox, libvirt, plain command lines): set to the path, read back"

h link set dev nic1 master br0
check_all 60000/60
log_test "real QEMU: a port joining the bridge reaches every VM"

slowwait 10 grep -q "tapnofeat: .*does not offer the GSO limits feature.*VIRTIO_NET_F_GSO_LIMITS" "$LOG/daemon.log" ||
	check_err 1 "the device without the feature: no message with QEMU's words"
log_test "real QEMU: a device started without the feature is reported"

tests_exit
