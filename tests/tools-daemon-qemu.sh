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
#   m110    plain, -machine pc-i440fx-11.0, a device with no GSO argument
#   m102    the same on pc-i440fx-10.2 (hw_compat_10_2)
#
# libvirt runs for real in tools-daemon-libvirt.sh.
#
# Checks: each offered device ends with the path's limits (read back with
# qom-get from QEMU itself), a port joining the bridge reaches them all, the
# device without the feature is reported in QEMU's words; gso-doctor knows
# that a device with no GSO argument offers the feature on machine type 11.0
# and not on 10.2 (QEMU's x-query-virtio-status says which, and the daemon
# agrees); gso-doctor reads host_gso_limits from a command line as QEMU
# sets it (the unit test's command lines, test-doctor-machine --qemu-cases,
# each run on QEMU and read back with qom-get).
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
# A hot-plug is netdev_add, then device_add: the daemon finds the bridged
# tap before its device exists (held here until it has said so), and must
# try again rather than give up on it.
slowwait 20 grep -q "taphp.*no virtio-net device with netdev hp0" "$LOG/daemon.log" ||
	check_err 1 "taphp: the daemon did not look for hp0's device before device_add"
qmp "$S/nicvm.qmp" '{"execute":"device_add","arguments":{"driver":"virtio-net-pci","netdev":"hp0","id":"hpnic"}}' >"$LOG/device_add.json"
device_of() { "$LIMITSD" status --control "$S/ctl" | jq -r --arg t "$1" '.namespaces[0].taps[] | select(.ifname == $t) | .vmm.device // ""'; }
known() { [ -n "$(device_of "$1")" ]; }
for tap in tapnic taphp; do
	slowwait 20 known "$tap" || check_err 1 "$tap: no device found: $(grep "$tap" "$LOG/daemon.log" | tail -1)"
	dev=$(device_of "$tap")
	[ -z "$dev" ] || slowwait 20 limits_are "$S/nicvm.qmp" "$dev" 60000/60 ||
		check_err 1 "$tap ($dev): $(qom_limits "$S/nicvm.qmp" "$dev"), want 60000/60"
done
log_test "real QEMU: -nic and a hot-plugged NIC (device_add after the daemon first looked), found through QMP, set"

# v3: host_gso_limits on by default from machine type 11.0, off in hw_compat_10_2.
if [ "$QEMU_GSO_IFACE" = v3 ]; then
	for mt in 110:pc-i440fx-11.0 102:pc-i440fx-10.2; do
		qemu_bg "m${mt%%:*}" "$QEMU" -nodefaults -display none -machine "${mt#*:}" -accel tcg -m 64 \
			-L "$FIRMWARE" -bios "$FIRMWARE/qboot.rom" \
			-qmp "unix:$S/m${mt%%:*}.qmp,server=on,wait=off" \
			-netdev "tap,id=hn0,ifname=tapm${mt%%:*},script=$S/ifup,downscript=no" \
			-device virtio-net-pci,netdev=hn0,id=nic0
	done
	offered() { # NAME: whether QEMU itself says the device offers the feature
		qmp "$S/$1.qmp" '{"execute":"x-query-virtio-status","arguments":{"path":"/machine/peripheral/nic0/virtio-backend"}}' |
			jq -r '[.return."host-features"."dev-features"[] | select(startswith("VIRTIO_NET_F_GSO_LIMITS"))] | length'
	}
	check_eq "QEMU: pc-i440fx-11.0's device offers VIRTIO_NET_F_GSO_LIMITS" "$(offered m110)" 1
	check_eq "QEMU: pc-i440fx-10.2's device does not" "$(offered m102)" 0
	doctor_json() { # TAP CONTROL: the tap's gso-path-limit finding
		ip netns exec "$HOST" "$GSO_TOP/tools/build/gso-doctor" --host --json --limitsd "$2" "$1" |
			jq -c '.findings[] | select(.id == "gso-path-limit")'
	}
	f=$(doctor_json tapm110 none || true) # exit status 1: it warns
	check_eq "doctor, 11.0: feature" "$(jq -r .evidence.gso_limits_feature <<<"$f")" offered_no_limit
	check_eq "doctor, 11.0: machine" "$(jq -r .evidence.machine <<<"$f")" pc-i440fx-11.0
	check_eq "doctor, 11.0: QEMU has the series" "$(jq -r .evidence.qemu_gso_series <<<"$f")" yes
	jq -r '.fix[]' <<<"$f" | grep -q "offers VIRTIO_NET_F_GSO_LIMITS with no limit .*gso-limitsd" ||
		check_err 1 "doctor, 11.0: no run-time fix: $(jq -c .fix <<<"$f")"
	f=$(doctor_json tapm102 none || true) # exit status 1: it warns
	check_eq "doctor, 10.2: feature" "$(jq -r .evidence.gso_limits_feature <<<"$f")" not_offered_machine_type
	jq -r '.fix[]' <<<"$f" | grep -q "host_gso_limits=on,host_gso_max_size=60000,host_gso_max_segs=60" ||
		check_err 1 "doctor, 10.2: the fix does not turn host_gso_limits on: $(jq -c .fix <<<"$f")"
	log_test "gso-doctor: a device with no arguments offers the feature on machine type 11.0, not on 10.2"

	# The daemon: sets the 11.0 device, reports the 10.2 one; the doctor agrees with both.
	slowwait 20 limits_are "$S/m110.qmp" /machine/peripheral/nic0 60000/60 ||
		check_err 1 "m110: $(qom_limits "$S/m110.qmp" /machine/peripheral/nic0), want 60000/60"
	slowwait 10 grep -q "tapm102: .*does not offer the GSO limits feature" "$LOG/daemon.log" ||
		check_err 1 "the daemon does not report m102's device"
	check_eq "doctor with the daemon, 11.0" \
		"$(doctor_json tapm110 "$S/ctl" | jq -r '"\(.severity) \(.evidence.gso_limits_feature)"')" \
		"info set_by_gso_limitsd"
	check_eq "doctor with the daemon, 10.2" \
		"$(doctor_json tapm102 "$S/ctl" | jq -r '"\(.severity) \(.evidence.gso_limits_feature) \(.evidence.gso_limitsd_state)"')" \
		"warning not_offered_machine_type unsupported"
	log_test "gso-doctor and the daemon agree on both machine types"

	# libvirt passes the tap to QEMU by descriptor (-netdev tap,fd=N): the
	# command line has no tap name, and the doctor finds the device through
	# the descriptor numbers QEMU holds the tap by.  The tap is opened here
	# and handed to the real QEMU as libvirt does (python3: TUNSETIFF, then
	# exec with the descriptor inherited).  On 11.0, whose default is on,
	# host_gso_limits=off must read as off: a doctor that does not find
	# the device reads the machine's default.
	ip netns exec "$HOST" ip tuntap add dev tapfd mode tap vnet_hdr
	h link set dev tapfd master br0 up
	ip netns exec "$HOST" python3 - "$S/mfd.pid" "$QEMU" -nodefaults -display none \
		-machine pc-i440fx-11.0 -accel tcg -m 64 -L "$FIRMWARE" -bios "$FIRMWARE/qboot.rom" \
		-netdev tap,id=hn0,fd=@FD@ -device virtio-net-pci,netdev=hn0,id=nic0,host_gso_limits=off \
		>"$LOG/mfd.out" 2>&1 <<-'EOF' &
	import fcntl, os, struct, sys
	fd = os.open("/dev/net/tun", os.O_RDWR)
	# IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, as libvirt opens a tap
	fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", b"tapfd", 0x0002 | 0x1000 | 0x4000))
	os.set_inheritable(fd, True)
	argv = [a.replace("@FD@", str(fd)) for a in sys.argv[2:]]
	os.execv(argv[0], argv + ["-pidfile", sys.argv[1]])
	EOF
	if slowwait 10 test -s "$S/mfd.pid"; then
		defer "kill \$(cat $S/mfd.pid)"
		grep -q -- "fd=[0-9]" "/proc/$(cat "$S/mfd.pid")/cmdline" ||
			check_err 1 "QEMU's command line has no fd= for its tap"
		f=$(doctor_json tapfd none || true)
		check_eq "doctor, tap passed by descriptor, host_gso_limits=off on 11.0" \
			"$(jq -r .evidence.gso_limits_feature <<<"$f")" not_offered_host_gso_limits_off
	else
		check_err 1 "QEMU with a tap passed by descriptor did not start: $(tail -n 3 "$LOG/mfd.out")"
	fi
	log_test "gso-doctor finds the device of a tap passed by descriptor (-netdev tap,fd=N, as libvirt)"
fi


# --- gso-doctor's reading of host_gso_limits against QEMU's ----------------------
# Each command line of test-doctor-machine that QEMU starts with: QEMU's own
# value (qom-get on the backend, -S: nothing runs) must be what the doctor
# reads (qemu_net_bool_prop(), lib/qemu_net_prop.c): set on (1) on
# pc-i440fx-10.2, whose default is off; set off (0) on 11.0, whose default
# is on; not given (-1): each machine's default.  In a namespace of its own: the daemon does not see
# these taps.
if [ "$QEMU_GSO_IFACE" = v3 ]; then
	make -s -C "$GSO_TOP/tools" build/test-doctor-machine >>"$LOG/make.log" 2>&1 ||
		check_err 1 "test-doctor-machine build: see $LOG/make.log"
	setup_ns CMDNS
	qemu_prop() { # MACHINE ARGS...: host_gso_limits of device net0, true/false
		local m=$1
		shift
		printf '%s\n' '{"execute":"qmp_capabilities"}' \
			'{"execute":"qom-get","arguments":{"path":"/machine/peripheral/net0/virtio-backend","property":"host_gso_limits"}}' \
			'{"execute":"quit"}' |
			timeout 30 ip netns exec "$CMDNS" "$QEMU" -nodefaults -display none -S \
				-machine "$m" -accel tcg -m 64 -L "$FIRMWARE" -bios "$FIRMWARE/qboot.rom" \
				-qmp stdio "$@" 2>>"$LOG/props-qemu.log" |
			jq -r 'select(has("return")) | .return | select(type == "boolean")'
	}
	n=0
	while IFS='|' read -r want why rest; do
		IFS='|' read -r -a argv <<<"$rest"
		case $want in
		-1) got="$(qemu_prop pc-i440fx-10.2 "${argv[@]}") $(qemu_prop pc-i440fx-11.0 "${argv[@]}")"
		    exp="false true" ;;
		0) got=$(qemu_prop pc-i440fx-11.0 "${argv[@]}") exp=false ;;
		*) got=$(qemu_prop pc-i440fx-10.2 "${argv[@]}") exp=true ;;
		esac
		check_eq "QEMU, $why (doctor: $want)" "$got" "$exp"
		n=$((n + 1))
	done < <("$GSO_TOP/tools/build/test-doctor-machine" --qemu-cases)
	[ "$n" -ge 20 ] || check_err 1 "only $n command lines from test-doctor-machine --qemu-cases"
	log_test "gso-doctor reads host_gso_limits as QEMU sets it ($n command lines)"
fi

tests_exit
