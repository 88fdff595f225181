#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-limitsd in a private namespace, against QMP stand-ins (tools/test/
# qmp-standin.c) started with the command lines Proxmox, libvirt and a
# plain user give QEMU.  The stand-ins hold their taps like QEMU (the daemon
# finds them through /proc) and log every qom-set they are told.
#
#   br0: nic0 (veth, 64000 bytes / 64 segments)   br1: nic1 (32000 / 40)
#   vm100   Proxmox: -id 100, /S/100.qmp, tap100i0 in br0, device id net0
#   plain   -qmp unix:/S/plain.qmp, tapplain in br0, anonymous device
#   dom1    libvirt: -name guest=dom1, tap vnet0 passed as fd=31, in br1;
#           reached through a stand-in `virsh qemu-monitor-command`
#   vm101   property on the virtio-backend child (fallback path)
#   vm102   device without the feature (patched QEMU's refusal): logged once,
#           not retried; vm105: a QEMU without the series (no such property);
#           vm106: NIC and tap on a legacy -net hub (QMP_STANDIN_HUB=1)
#   vm103   hung QEMU (accepts, never answers): must not delay the others
#
# Checks: start -> each set to its bridge's limits; port limit change ->
# br0's VMs set again and br1's not touched; a tap moving bridge; --dry-run
# sets nothing; the daemon restarted re-syncs all; a QEMU restarted is
# re-synced; status over the control socket; bad input gives a clear
# message.  The daemon must leave every link as it found it.
# shellcheck disable=SC2317 # helpers run through slowwait look unreachable
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/limitsd.sh
. "$GSO_TOP/tests/harness/limitsd.sh"

limitsd_tools_setup tools-daemon
limitsd_tools_ns test HOST OTHER
SETLOG=$LOG/qom-set.log
: >"$SETLOG"

h() { ip -n "$HOST" "$@"; }
h link add br0 type bridge
h link add br1 type bridge
h link add nic0 type veth peer name nic0p
h link add nic1 type veth peer name nic1p
h link set dev nic0 gso_max_size 64000 gso_max_segs 64 master br0
h link set dev nic1 gso_max_size 32000 gso_max_segs 40 master br1
# This kernel sends no RTM_NEWLINK when gso_max_size changes (do_setlink()
# marks it "modified", not "notify"; the kernel series adds the event): the
# daemon's periodic re-read (--rescan, 3 s here) finds such a change.  A port
# joining or leaving a bridge is announced and must be followed at once.
for dev in br0 br1 nic0 nic0p nic1 nic1p; do h link set dev "$dev" up; done

# A second watched namespace (--netns twice): br9 with nic9 at 48000/48.
ip -n "$OTHER" link add br9 type bridge
ip -n "$OTHER" link add nic9 type veth peer name nic9p
ip -n "$OTHER" link set dev nic9 gso_max_size 48000 gso_max_segs 48 master br9
for dev in br9 nic9 nic9p; do ip -n "$OTHER" link set dev "$dev" up; done

# The stand-in virsh: `virsh qemu-monitor-command --pretty -- UUID JSON`.
limitsd_standin_virsh

# vm NAME BRIDGE [ENV=VALUE...] -- QEMU-ARGS...: a stand-in in HOST; pid in VM_PID[NAME].
declare -A VM_PID
vm() {
	local name=$1 bridge=$2 envs=() rc=0
	shift 2
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	start_ready "$LOG/vm-$name.out" 'qmp-standin: ready' \
		ip netns exec "${VM_NS:-$HOST}" env QMP_STANDIN_LOG="$SETLOG" QMP_STANDIN_BRIDGE="$bridge" \
		QMP_STANDIN_EVENTS=1 "${envs[@]}" "$STANDIN" "$@" || rc=$?
	VM_PID[$name]=$READY_PID
	return "$rc"
}
proxmox_args() { # VMID: QEMU's arguments as qemu-server writes them (trimmed)
	echo "-id $1 -name vm$1,debug-threads=on -no-shutdown" \
		"-chardev socket,id=qmp,path=$S/$1.qmp,server=on,wait=off" \
		"-mon chardev=qmp,mode=control" \
		"-chardev socket,id=qmp-event,path=$S/qmeventd.sock,reconnect-ms=5000" \
		"-mon chardev=qmp-event,mode=control -pidfile $S/$1.pid" \
		"-netdev type=tap,id=net0,ifname=tap$1i0,script=/var/lib/qemu-server/pve-bridge,downscript=/var/lib/qemu-server/pve-bridgedown,vhost=on" \
		"-device virtio-net-pci,mac=BC:24:11:00:00:$1,netdev=net0,bus=pci.0,addr=0x12,id=net0,rx_queue_size=1024,bootindex=102"
}
start_vm100() {
	# shellcheck disable=SC2046 # word splitting of the argument list is the point
	vm vm100 br0 -- $(proxmox_args 100)
}

# sets FILTER: the number of qom-set lines logged for FILTER ("path size=N segs=M" text).
sets() { grep -c -- "qom-set .*$1" "$SETLOG" || true; }
sets_at_least() { [ "$(sets "$1")" -ge "$2" ]; }
# wait_sets FILTER N [TIMEOUT_S]: until at least N such lines are logged.
wait_sets() { slowwait "${3:-10}" sets_at_least "$1" "$2"; }

DAEMON_PID=
start_daemon() {
	"$LIMITSD" --netns "$HOST" --netns "$OTHER" --control "$S/ctl" --proxmox-run-dir "$S" \
		--libvirt-run-dir "$S/libvirt" --qmp-socket "$S/*.qmp" \
		--virsh "$S/virsh" --settle 50 --qmp-timeout 1500 --rescan 3 --verbose \
		>>"$LOG/daemon.log" 2>&1 &
	DAEMON_PID=$!
	defer "kill $DAEMON_PID"
	slowwait 5 test -S "$S/ctl"
}
stop_daemon() {
	kill "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null || true
}
status() { "$LIMITSD" status --control "$S/ctl"; }
tap_state() { status | jq -r --arg t "$1" '.namespaces[0].taps[] | select(.ifname == $t) | .state'; }


# --- the VMs, the hung one first: it must not hold up the rest -------------------
vm vm103 br0 QMP_STANDIN_STUCK=1 -- -id 103 -pidfile "$S/103.pid" -chardev "socket,id=qmp,path=$S/103.qmp,server=on,wait=off" \
	-mon chardev=qmp,mode=control -netdev type=tap,id=net0,ifname=tap103i0 \
	-device virtio-net-pci,netdev=net0,id=net0
start_vm100
vm plain br0 -- -machine q35 -qmp "unix:$S/plain.qmp,server=on,wait=off" \
	-netdev tap,id=hn0,ifname=tapplain,script=no,downscript=no \
	-device virtio-net-pci,netdev=hn0,mac=52:54:00:12:34:56
vm dom1 br1 QMP_STANDIN_TAPFD_31=vnet0 QMP_STANDIN_SOCKET="$S/dom1.sock" -- \
	-name guest=dom1,debug-threads=on \
	-chardev socket,id=charmonitor,fd=30,server=on,wait=off \
	-mon chardev=charmonitor,id=monitor,mode=control \
	-netdev '{"type":"tap","fd":"31","vhost":true,"vhostfd":"33","id":"hostnet0"}' \
	-device '{"driver":"virtio-net-pci","netdev":"hostnet0","id":"net0","mac":"52:54:00:00:00:01","bus":"pci.1","addr":"0x0"}'
# libvirtd's status file for dom1 (a stand-in for libvirt's records, reduced
# to what the daemon reads: the QEMU's pid, each interface's tap and alias).
mkdir -p "$S/libvirt"
cat >"$S/libvirt/dom1.xml" <<EOF
<!-- stand-in for /run/libvirt/qemu/dom1.xml -->
<domstatus state='running' reason='booted' pid='${VM_PID[dom1]}'>
  <domain type='qemu' id='1'>
    <name>dom1</name>
    <uuid>00000000-0000-4000-8000-000000000001</uuid>
    <devices>
      <interface type='bridge'>
        <source bridge='br1'/>
        <target dev='vnet0'/>
        <model type='virtio'/>
        <alias name='net0'/>
      </interface>
    </devices>
  </domain>
</domstatus>
EOF
vm vm101 br1 QMP_STANDIN_PROP=backend -- -id 101 -pidfile "$S/101.pid" \
	-chardev "socket,id=qmp,path=$S/101.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap101i0 -device virtio-net-pci,netdev=net0,id=net0
vm vm102 br1 QMP_STANDIN_PROP=off -- -id 102 -pidfile "$S/102.pid" \
	-chardev "socket,id=qmp,path=$S/102.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap102i0 -device virtio-net-pci,netdev=net0,id=net0

vm vm105 br1 QMP_STANDIN_PROP=none -- -id 105 -pidfile "$S/105.pid" \
	-chardev "socket,id=qmp,path=$S/105.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap105i0 -device virtio-net-pci,netdev=net0,id=net0
# A NIC and its tap on QEMU's hub (-net nic -net tap; the stand-in keeps its
# -netdev command line and answers as such a QEMU does, QMP_STANDIN_HUB).
vm vm106 br1 QMP_STANDIN_HUB=1 -- -id 106 -pidfile "$S/106.pid" \
	-chardev "socket,id=qmp,path=$S/106.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap106i0 -device virtio-net-pci,netdev=net0,id=net0

# A QEMU in another namespace whose tap was moved into HOST's br0 (t61's host
# VM does this): the tap is found by the namespace it is in, not its holder's.
VM_NS=$OTHER vm moved "" -- -qmp "unix:$S/moved.qmp,server=on,wait=off" \
	-netdev tap,id=n0,ifname=tapmoved -device virtio-net-pci,netdev=n0,id=nic0
ip -n "$OTHER" link set dev tapmoved netns "$HOST"
h link set dev tapmoved master br0 up
VM_NS=$OTHER vm other br9 -- -qmp "unix:$S/other.qmp,server=on,wait=off" \
	-netdev tap,id=n0,ifname=tapother -device virtio-net-pci,netdev=n0,id=nic0

# --- --dry-run: prints, sets nothing (run inside the namespace: the default) ---------
out=$(ip netns exec "$HOST" "$LIMITSD" --once --dry-run --proxmox-run-dir "$S" \
	--libvirt-run-dir "$S/libvirt" --qmp-socket "$S/*.qmp" --virsh "$S/virsh" 2>&1) ||
	check_err $? "--once --dry-run failed: $out"
grep -q "would set tap100i0: size 64000 segs 64 (path limit from nic0) via $S/100.qmp, device /machine/peripheral/net0" <<<"$out" ||
	check_err 1 "no 'would set' line for tap100i0: $out"
grep -q "would set vnet0: size 32000 segs 40 .* via virsh domain dom1 (uuid 00000000-0000-4000-8000-000000000001), device /machine/peripheral/net0" <<<"$out" ||
	check_err 1 "no 'would set' line for the libvirt guest: $out"
check_eq "qom-set lines after --dry-run" "$(sets .)" 0
log_test "--dry-run prints what it would set and sets nothing"

# --- start: every VM set to its path ---------------------------------------------
start=$(date +%s%N)
start_daemon
wait_sets "/machine/peripheral/net0 host-gso-limits size=64000 segs=64 tap=tap100i0" 1 ||
	check_err 1 "vm100 (Proxmox) not set to 64000/64"
wait_sets "anon/device\[0\] host-gso-limits size=64000 segs=64 tap=tapplain" 1 ||
	check_err 1 "plain -qmp VM (anonymous device) not set"
wait_sets "peripheral/net0 host-gso-limits size=32000 segs=40 tap=vnet0" 1 ||
	check_err 1 "libvirt guest not set through virsh"
wait_sets "net0/virtio-backend host-gso-limits size=32000 segs=40 tap=tap101i0" 1 ||
	check_err 1 "vm101 not set on its virtio-backend child"
synced_ms=$(( ($(date +%s%N) - start) / 1000000 ))
log_test "start: Proxmox, plain -qmp, libvirt (virsh) VMs set to their paths"
wait_sets "peripheral/nic0 host-gso-limits size=48000 segs=48 tap=tapother" 1 ||
	check_err 1 "the VM in the second --netns not set"
log_test "two --netns watched: the second namespace's VM set too"
wait_sets "peripheral/nic0 host-gso-limits size=64000 segs=64 tap=tapmoved" 1 ||
	check_err 1 "the tap moved out of its QEMU's namespace not set"
log_test "a tap moved out of its QEMU's namespace: found and set"

# The hung QEMU costs its own 1.5 s timeout, not the others' time: the
# others' first sets come before that timeout (stand-in wall-clock stamps).
first_t() { grep -- "$1" "$SETLOG" | head -1 | sed -n 's/.* t=\([0-9.]*\)$/\1/p'; }
hung_t=$(first_t "^${VM_PID[vm103]} connect")
late=0
for tap in tap100i0 tapplain vnet0 tap101i0; do
	t=$(first_t "host-gso-limits size=.* tap=$tap ")
	awk -v t="$t" -v h="$hung_t" 'BEGIN { exit !(t < h + 1.5) }' || late=$((late + 1))
done
check_eq "VMs set only after the hung QEMU's timeout" "$late" 0
hung_error() { status | jq -e '.namespaces[0].taps[] | select(.ifname == "tap103i0") | .error // "" | test("no answer in 1.5 s")' >/dev/null; }
slowwait 5 hung_error || check_err 1 "hung QEMU: no timeout message in the status"
check_eq "daemon log lines about the hung QEMU" "$(grep -c 'tap103i0: .*no answer' "$LOG/daemon.log")" 1
log_test "a hung QMP socket does not delay the other VMs (${synced_ms} ms)"

state_is() { [ "$(tap_state "$1")" = "$2" ]; }
slowwait 5 state_is tap102i0 unsupported || check_err 1 "vm102 state: $(tap_state tap102i0)"
grep -q "tap102i0: .*does not offer the GSO limits feature (start the device with host_gso_max_segs=65535" "$LOG/daemon.log" ||
	check_err 1 "no clear message for the device without the feature"
slowwait 5 state_is tap105i0 unsupported || check_err 1 "vm105 state: $(tap_state tap105i0)"
grep -q "tap105i0: .*has no host-gso-limits property (a QEMU without the GSO limits series)" "$LOG/daemon.log" ||
	check_err 1 "no clear message for a QEMU without the series"
slowwait 5 state_is tap106i0 unsupported || check_err 1 "vm106 state: $(tap_state tap106i0)"
grep -q "tap106i0: .*legacy -net hub: not supported, use -netdev: QEMU has the tap on hub port hub0port1" "$LOG/daemon.log" ||
	check_err 1 "no clear message for a tap on a legacy -net hub"
check_eq "qom-set lines for the tap on a hub" "$(sets tap=tap106i0)" 0
log_test "devices without the feature, QEMU without the series, a legacy -net hub: reported"

# --- status over the control socket --------------------------------------------
st=$(status)
check_eq "status: vm100 state" "$(jq -r '.namespaces[0].taps[] | select(.ifname=="tap100i0") | .state' <<<"$st")" synced
check_eq "status: vm100 vmm kind" "$(jq -r '.namespaces[0].taps[] | select(.ifname=="tap100i0") | .vmm.kind' <<<"$st")" proxmox
check_eq "status: dom1 vmm kind" "$(jq -r '.namespaces[0].taps[] | select(.ifname=="vnet0") | .vmm.kind' <<<"$st")" libvirt
check_eq "status: plain device" "$(jq -r '.namespaces[0].taps[] | select(.ifname=="tapplain") | .vmm.device' <<<"$st")" "/machine/peripheral-anon/device[0]"
check_eq "status: vm100 set" "$(jq -c '.namespaces[0].taps[] | select(.ifname=="tap100i0") | .set' <<<"$st")" '{"size":64000,"segs":64}'
log_test "gso-limitsd status: JSON per tap over the control socket"

# --- a port joins br0: its VMs follow at once, br1's are not touched ----------------
br1_before=$(( $(sets tap=vnet0) + $(sets tap=tap101i0) ))
h link add nic2 type veth peer name nic2p
h link set dev nic2 gso_max_size 50000 gso_max_segs 50
h link set dev nic2 master br0
wait_sets "size=50000 segs=50 tap=tap100i0" 1 2 || check_err 1 "vm100 did not follow nic2 joining br0 within 2 s"
wait_sets "size=50000 segs=50 tap=tapplain" 1 2 || check_err 1 "plain VM did not follow nic2 joining br0 within 2 s"
log_test "a port joins the bridge: VMs behind it set at once"
h link del nic2
wait_sets "size=64000 segs=64 tap=tap100i0" 2 2 || check_err 1 "vm100 did not go back to 64000 when nic2 left"
log_test "the port leaves: VMs set back"

# --- a port's limit changes: br0's VMs follow, br1's are not touched --------------
h link set dev nic0 gso_max_size 60000
wait_sets "size=60000 segs=64 tap=tap100i0" 1 || check_err 1 "vm100 did not follow nic0 to 60000"
wait_sets "size=60000 segs=64 tap=tapplain" 1 || check_err 1 "plain VM did not follow nic0 to 60000"
sleep 0.5 # what must NOT happen has no event to wait for: give it the time it would take
check_eq "qom-set on br1's VMs after br0's port changes" \
	"$(( $(sets tap=vnet0) + $(sets tap=tap101i0) ))" "$br1_before"
log_test "port limit change (found by --rescan): VMs behind it set, others untouched"

# --- a tap moves to another bridge -----------------------------------------------
h link set dev tapplain master br1
wait_sets "size=32000 segs=40 tap=tapplain" 1 || check_err 1 "tapplain did not follow its move to br1"
log_test "tap moved to another bridge: set to the new path"

# --- the feature-less device is not asked again and again ------------------------
# An ask is one refusal for vm102 and two for vm105 (the proxy, then its
# virtio-backend child).
refusals=$(grep -c "qom-set .*refused" "$SETLOG" || true)
h link set dev nic1 gso_max_segs 41
wait_sets "size=32000 segs=41 tap=vnet0" 1 || check_err 1 "dom1 did not follow nic1"
sleep 0.3
after=$(grep -c "qom-set .*refused" "$SETLOG" || true)
# A new value is offered once more (3 refusals), never in a loop.
[ "$after" -le $((refusals + 3)) ] || check_err 1 "the feature-less device refused $((after - refusals)) more times"
check_eq "daemon log lines about vm102" "$(grep -c 'tap102i0: .*does not offer' "$LOG/daemon.log")" 1
check_eq "daemon log lines about vm106" "$(grep -c 'tap106i0: .*legacy -net hub' "$LOG/daemon.log")" 1
log_test "device without the feature, a tap on a hub: logged once, no retry loop"

# --- the daemon restarts: every VM set again -----------------------------------
stop_daemon
n100=$(sets tap=tap100i0) ndom=$(sets tap=vnet0)
start_daemon
wait_sets "tap=tap100i0" $((n100 + 1)) || check_err 1 "vm100 not re-synced after the daemon's restart"
wait_sets "tap=vnet0" $((ndom + 1)) || check_err 1 "dom1 not re-synced after the daemon's restart"
log_test "daemon restart: every VM set again"

# --- a QEMU restarts: its new instance is set -----------------------------------
n100=$(sets tap=tap100i0)
kill "${VM_PID[vm100]}"
wait "${VM_PID[vm100]}" 2>/dev/null || true
start_vm100
wait_sets "tap=tap100i0" $((n100 + 1)) || check_err 1 "restarted vm100 not set"
log_test "QEMU restart: the new instance is set"

# --- bad input -------------------------------------------------------------------
out=$("$LIMITSD" --netns no-such-netns-$$ --once 2>&1) && check_err 1 "unknown netns accepted"
grep -q "no-such-netns-$$: No such file or directory" <<<"$out" || check_err 1 "unclear message: $out"
out=$("$LIMITSD" status --control "$S/none" 2>&1) && check_err 1 "status without a daemon succeeded"
grep -q "is gso-limitsd running" <<<"$out" || check_err 1 "unclear status message: $out"
vm vm104 br0 QMP_STANDIN_SOCKET="$S/elsewhere.qmp" -- -id 104 -pidfile "$S/104.pid" \
	-chardev "socket,id=qmp,path=$S/104.qmp,server=on,wait=off" -mon chardev=qmp,mode=control \
	-netdev type=tap,id=net0,ifname=tap104i0 -device virtio-net-pci,netdev=net0,id=net0
missing_error() { status | jq -e '.namespaces[0].taps[] | select(.ifname=="tap104i0") | .error // "" | test("connect .*/104.qmp: No such file")' >/dev/null; }
slowwait 5 missing_error || check_err 1 "missing socket: no clear message"
log_test "bad input: unknown netns, no daemon, missing QMP socket"

# --- read-only: a pass that sets every VM changes no link -----------------------
link_state() {
	ip -n "$HOST" -d -j link show |
		jq -c '.[] | {ifname, flags, mtu, master, operstate, gso_max_size, gso_max_segs}'
}
before=$(link_state)
"$LIMITSD" --netns "$HOST" --once --proxmox-run-dir "$S" --libvirt-run-dir "$S/libvirt" \
	--qmp-socket "$S/*.qmp" --virsh "$S/virsh" --qmp-timeout 500 \
	>>"$LOG/once.log" 2>&1 || true # vm103/vm102/vm104/vm106 fail on purpose
check_eq "links after a --once pass" "$(diff <(echo "$before") <(link_state) | head -5)" ""
log_test "the daemon changes no link"

tests_exit
