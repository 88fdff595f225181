#!/usr/bin/env bash
# gso-limitsd acts only for the VMs the management layer says own a tap
# (docs/daemon.md "Whom the daemon trusts"): a process holding a tap writes
# its own command line, and the daemon runs as root.
#
# Victims (QMP stand-ins, tools/test/qmp-standin.c, started as root the way
# Proxmox, libvirt and a user start QEMU), all behind br0 (nic0 64000/64):
#   vm100   Proxmox: tap100i0, /S/100.qmp, /S/100.pid (qemu-server's record)
#   dom1    libvirt: vnet0, listed in a stand-in of libvirtd's status file
#           /S/libvirt/dom1.xml with its pid
#   plain   -qmp unix:/S/plain.qmp (listed with --qmp-socket), anonymous device
# Impostors: unprivileged processes (nobody) holding a tap each, behind br2
# (nic2 20000/20).  /dev/net/tun is root-only here, so the tap is opened as
# root and the process drops to nobody keeping the descriptor (FACTS.md),
# as any service handed a tap could:
#   evil100  -id 100                           (claims Proxmox VM 100)
#   evilqmp  -qmp unix:/S/plain.qmp, netdev hn0 (claims the plain VM's socket)
#   evildom  -name guest=dom1                  (claims libvirt domain dom1)
#
# A command line that lies (issue 24, "devices from QEMU, not from argv"):
#   liar    a managed QEMU (its -qmp socket listed) whose /proc/PID/cmdline
#           was rewritten after start (a stand-in injecting the fault,
#           QMP_STANDIN_ARGV_LIE): it gives tapL's netdev to tapM and the
#           other way round, and names device zz0 for tapG where QEMU has dg0.
#           tapL, tapG in br0 (64000/64), tapM in br2 (20000/20).
#
# Checks: no victim is ever set to the impostors' 20000/20; each impostor's
# tap is reported "untrusted" with the reason; the victims stay synced at
# 64000/64; --once exits non-zero while a tap is untrusted; each of the
# liar's devices gets its own tap's limits (QEMU's "info network" and
# qom-get netdev, not the command line), the lie logged as not believed.
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

limitsd_tools_setup tools-daemon-trust setpriv "the unprivileged impostor"
limitsd_tools_ns trust HOST
# The impostors' own sockets and binary: somewhere nobody can reach.
mkdir -m 0777 "$S/nobody"
cp "$STANDIN" "$S/nobody/qmp-standin"
chmod 0755 "$S" "$S/nobody/qmp-standin"
SETLOG=$LOG/qom-set.log
: >"$SETLOG"

h() { ip -n "$HOST" "$@"; }
for spec in "br0 nic0 64000 64" "br2 nic2 20000 20"; do
	read -r br nic size segs <<<"$spec"
	h link add "$br" type bridge
	h link add "$nic" type veth peer name "${nic}p"
	h link set dev "$nic" gso_max_size "$size" gso_max_segs "$segs" master "$br" up
	h link set dev "${nic}p" up
	h link set dev "$br" up
done

declare -A VM_PID
vm() { # NAME BRIDGE [ENV=VALUE...] -- ARGS...: a stand-in (or an impostor) in HOST
	local name=$1 bridge=$2 envs=() rc=0
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	start_ready "$LOG/vm-$name.out" 'qmp-standin: ready' \
		ip netns exec "$HOST" env QMP_STANDIN_BRIDGE="$bridge" "${envs[@]}" "$@" || rc=$?
	VM_PID[$name]=$READY_PID
	return "$rc"
}
# impostor NAME ARGS...: tap NAME made and opened as root in br2, then the
# process becomes nobody with the descriptor (23) and the given command line.
impostor() {
	local name=$1
	shift
	vm "$name" "" QMP_STANDIN_TAPFD_23="$name" QMP_STANDIN_SOCKET="$S/nobody/$name.qmp" -- \
		"$STANDIN" --tap-fd 23 "$name" br2 \
		setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$S/nobody/qmp-standin" "$@"
	[ "$(stat -c %U "/proc/${VM_PID[$name]}")" = nobody ] || {
		echo "$name does not run as nobody"; return 1; }
}

vm vm100 br0 QMP_STANDIN_LOG="$SETLOG" -- "$STANDIN" -id 100 -name vm100 \
	-chardev "socket,id=qmp,path=$S/100.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-pidfile "$S/100.pid" -netdev type=tap,id=net0,ifname=tap100i0 \
	-device virtio-net-pci,netdev=net0,id=net0
vm plain br0 QMP_STANDIN_LOG="$SETLOG" -- "$STANDIN" -qmp "unix:$S/plain.qmp,server=on,wait=off" \
	-netdev tap,id=hn0,ifname=tapplain -device virtio-net-pci,netdev=hn0
vm dom1 br0 QMP_STANDIN_LOG="$SETLOG" QMP_STANDIN_TAPFD_31=vnet0 QMP_STANDIN_SOCKET="$S/dom1.sock" -- \
	"$STANDIN" -name guest=dom1,debug-threads=on \
	-netdev '{"type":"tap","fd":"31","id":"hostnet0"}' \
	-device '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0"}'
mkdir -p "$S/libvirt"
cat >"$S/libvirt/dom1.xml" <<EOF
<!-- stand-in for libvirtd's /run/libvirt/qemu/dom1.xml (tools-daemon-libvirt.sh runs the real one) -->
<domstatus state='running' reason='booted' pid='${VM_PID[dom1]}'>
  <domain type='qemu' id='1'>
    <name>dom1</name>
    <uuid>00000000-0000-4000-8000-000000000001</uuid>
    <devices>
      <interface type='bridge'><target dev='vnet0'/><alias name='net0'/></interface>
    </devices>
  </domain>
</domstatus>
EOF
limitsd_standin_virsh

impostor evil100 -id 100 -netdev '{"type":"tap","fd":"23","id":"net0"}' \
	-device virtio-net-pci,netdev=net0,id=net0
impostor evilqmp -qmp "unix:$S/plain.qmp,server=on,wait=off" \
	-netdev '{"type":"tap","fd":"23","id":"hn0"}' -device virtio-net-pci,netdev=hn0
impostor evildom -name guest=dom1,debug-threads=on \
	-netdev '{"type":"tap","fd":"23","id":"hostnet0"}' \
	-device '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0"}'

DAEMON_ARGS=(--netns "$HOST" --proxmox-run-dir "$S" --libvirt-run-dir "$S/libvirt"
	--qmp-socket "$S/*.qmp" --virsh "$S/virsh" --qmp-timeout 1500)
"$LIMITSD" "${DAEMON_ARGS[@]}" --control "$S/ctl" --settle 50 --verbose >"$LOG/daemon.log" 2>&1 &
defer "kill $!"
slowwait 5 test -S "$S/ctl" || { cat "$LOG/daemon.log"; exit "$ksft_fail"; }

status() { "$LIMITSD" status --control "$S/ctl"; }
tap_field() { status | jq -r --arg t "$1" ".namespaces[0].taps[] | select(.ifname == \$t) | $2"; }
state_is() { [ "$(tap_field "$1" .state)" = "$2" ]; }

for t in tap100i0 tapplain vnet0; do
	slowwait 10 state_is "$t" synced || check_err 1 "$t: $(tap_field "$t" .state), want synced"
done
for t in evil100 evilqmp evildom; do
	slowwait 10 state_is "$t" untrusted ||
		check_err 1 "impostor $t: $(tap_field "$t" .state) ($(tap_field "$t" '.error // ""')), want untrusted"
done
sleep 1 # what must NOT happen has no event to wait for: a second for the daemon to do it
check_eq "victims set to the impostors' path (20000/20)" "$(grep -c 'size=20000' "$SETLOG" || true)" 0
log_test "unprivileged impostors (-id, -qmp unix:, -name guest=) never steer a VM"

grep -q "evil100: not acted on: .*/100.pid names pid ${VM_PID[vm100]}, not the holder ${VM_PID[evil100]}" "$LOG/daemon.log" ||
	check_err 1 "evil100: no message naming qemu-server's pid file"
grep -q "evilqmp: not acted on: $S/plain.qmp is served by pid ${VM_PID[plain]}, not by the tap's holder ${VM_PID[evilqmp]}" "$LOG/daemon.log" ||
	check_err 1 "evilqmp: no message naming the socket's real server"
grep -q "evildom: not acted on: pid ${VM_PID[evildom]} says it is libvirt domain dom1" "$LOG/daemon.log" ||
	check_err 1 "evildom: no message naming libvirt's records"
for t in tap100i0 tapplain vnet0; do
	check_eq "$t's limits" "$(tap_field "$t" '.set | "\(.size)/\(.segs)"')" 64000/64
done
log_test "impostors reported with the reason, the victims stay synced at their path"

# libvirt's start order: libvirtd creates the tap, bridges it, forks, and the
# child (still libvirtd's command line) holds the tap until it execs QEMU,
# which keeps the pid and start time; libvirtd writes the domain's status
# file after that.  Played by a shell that holds the tap for 1.5 s under a
# neutral command line, then execs the stand-in; the status file comes last.
mkfifo "$S/wait"
QEMU_CMD="$STANDIN -name guest=dom2,debug-threads=on -netdev {\"type\":\"tap\",\"fd\":\"23\",\"id\":\"hostnet0\"} -device {\"driver\":\"virtio-net-pci\",\"netdev\":\"hostnet0\",\"id\":\"net0\"}"
# shellcheck disable=SC2016 # the inner shell expands its own variables
vm dom2 "" QMP_STANDIN_LOG="$SETLOG" QMP_STANDIN_TAPFD_23=vnet2 QMP_STANDIN_SOCKET="$S/dom2.sock" \
	QEMU_CMD="$QEMU_CMD" -- "$STANDIN" --tap-fd 23 vnet2 br0 \
	bash -c 'read -rt 1.5 <>"$0" || true; exec $QEMU_CMD' "$S/wait"
sed -e "s/dom1/dom2/g; s/vnet0/vnet2/; s/pid='[0-9]*'/pid='${VM_PID[dom2]}'/; s/0001</0002</" \
	"$S/libvirt/dom1.xml" >"$S/libvirt/dom2.xml"
slowwait 15 state_is vnet2 synced ||
	check_err 1 "vnet2: $(tap_field vnet2 .state) ($(tap_field vnet2 '.error // ""')), want synced"
grep -q "size=64000 segs=64 tap=vnet2" "$SETLOG" || check_err 1 "dom2 was not set"
log_test "libvirt's start order (tap held before exec, records after): set, not given up"

# The liar: QEMU's word on its devices against its command line's.
vm liar "" QMP_STANDIN_LOG="$SETLOG" \
	QMP_STANDIN_ARGV_LIE="ifname=tapL=ifname=tapM,ifname=tapM=ifname=tapL,id=dg0=id=zz0" -- \
	"$STANDIN" -qmp "unix:$S/liar.qmp,server=on,wait=off" \
	-netdev tap,id=hl0,ifname=tapL -device virtio-net-pci,netdev=hl0,id=dl0 \
	-netdev tap,id=hl1,ifname=tapM -device virtio-net-pci,netdev=hl1,id=dl1 \
	-netdev tap,id=hg0,ifname=tapG -device virtio-net-pci,netdev=hg0,id=dg0
tr '\0' ' ' <"/proc/${VM_PID[liar]}/cmdline" >"$LOG/liar-cmdline.txt"
grep -q "id=hl0,ifname=tapM .*id=hl1,ifname=tapL .*id=zz0" "$LOG/liar-cmdline.txt" ||
	check_err 1 "the stand-in's command line was not rewritten: $(cat "$LOG/liar-cmdline.txt")"
for spec in "tapL br0" "tapM br2" "tapG br0"; do
	read -r tap br <<<"$spec"
	h link set dev "$tap" master "$br" up
done
for spec in "tapL 64000/64" "tapM 20000/20" "tapG 64000/64"; do
	read -r tap want <<<"$spec"
	slowwait 10 state_is "$tap" synced ||
		check_err 1 "$tap: $(tap_field "$tap" .state) ($(tap_field "$tap" '.error // ""')), want synced"
	check_eq "$tap's limits" "$(tap_field "$tap" '.set | "\(.size)/\(.segs)"')" "$want"
done
check_eq "tapL's device" "$(tap_field tapL .vmm.device)" /machine/peripheral/dl0
check_eq "tapM's device" "$(tap_field tapM .vmm.device)" /machine/peripheral/dl1
check_eq "tapG's device" "$(tap_field tapG .vmm.device)" /machine/peripheral/dg0
# Each device only ever told its own tap's path (the stand-in logs the tap it holds).
check_eq "qom-set lines of a device told another tap's path" \
	"$(grep -cE 'qom-set /machine/peripheral/(dl0 .*size=20000|dl1 .*size=64000|zz0)' "$SETLOG" || true)" 0
grep -q "tapM: pid ${VM_PID[liar]}'s command line names device /machine/peripheral/dl0 for it, but QEMU says that device is on another netdev; not believed" "$LOG/daemon.log" ||
	check_err 1 "no log line saying tapM's command line is not believed"
grep -q "tapG: pid ${VM_PID[liar]}'s command line names device /machine/peripheral/zz0 for it, but QEMU says there is no such device; not believed" "$LOG/daemon.log" ||
	check_err 1 "no log line saying tapG's device zz0 is not believed"
log_test "a command line that lies about its devices is not believed: QEMU names each tap's device"

rc=0
"$LIMITSD" "${DAEMON_ARGS[@]}" --once --json >"$LOG/once.json" 2>"$LOG/once.log" || rc=$?
check_eq "--once exit status with untrusted taps" "$rc" 1
check_eq "--once --json: untrusted taps" \
	"$(jq '[.namespaces[0].taps[] | select(.state == "untrusted")] | length' "$LOG/once.json" 2>/dev/null)" 3
log_test "--once: untrusted taps make it fail, listed in its JSON"

tests_exit
