#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-doctor inside the harness's guest (tier 1, r8169 profile), and on
# the host next to the running QEMU:
#
#   VM "single": the default virtio-net (one queue pair, rx ring 256) with
#     2 vCPUs; the guest turns GRO off.  In the guest, guest-queues,
#     guest-rings (info), guest-offloads-off and guest-rps-unset fire;
#     guest-rx-dropped and guest-softnet-skew stay silent; guest-gso-limits
#     reports the feature QEMU offers by default (v3, new machine types)
#     with no limit set (info); the doctor picks guest mode by itself and
#     exits 1.  On the
#     host, next to the real QEMU: gso-path-limit (64000/64) and
#     single-queue-tap (1 queue, -smp 2) fire.
#   VM "multi": `mq=on,vectors=6,rx_queue_size=1024` on virtio-net-pci and
#     `queues=2` on a multi_queue tap (plus host_gso_max_size=64000 and
#     host_gso_max_segs=64 when this QEMU has the properties).  With eth0
#     down every queue/ring/offload/RPS check is silent and the doctor
#     exits 0; guest-gso-limits (info) reports the negotiated 64000/64,
#     and fails the run when the project's own kernel and QEMU do not
#     negotiate the feature; with eth0 up, a second tap in the
#     bridge floods frames of an unclaimed EtherType to the guest, and
#     guest-rx-dropped fires.  On the host, single-queue-tap stays silent.
#
# The guest writes each doctor run to a virtio-serial port ("gso.doctor"),
# one line "TAG RC JSON", so console messages cannot interleave with it.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/topo.sh
. "$GSO_TOP/tests/harness/topo.sh"

DOCTOR=$GSO_TOP/tools/build/gso-doctor
TAPHOLD=$GSO_TOP/tools/build/doctor-taphold
require_command jq "doctor guest"
vm_init
make -s -C "$GSO_TOP/tools" >/dev/null

# doctor_port NAME: QEMU arguments for the guest's "gso.doctor" port.
doctor_port() {
	printf '%s\n' -chardev "file,id=doctor,path=$TEST_LOG_DIR/$1.doctor" \
		-device "virtserialport,bus=vser0.0,chardev=doctor,name=gso.doctor"
}
# run_json NAME TAG: the JSON of one guest run; run_rc NAME TAG: its exit code.
run_line() { grep -a "^$2 " "$TEST_LOG_DIR/$1.doctor" 2>/dev/null | head -n 1 | tr -d '\r'; }
run_rc() { run_line "$1" "$2" | cut -d' ' -f2; }
run_json() { run_line "$1" "$2" | cut -d' ' -f3-; }
sev() {
	local f
	f=$(jq -c --arg id "$2" '.findings[] | select(.id == $id)' <<<"$1" | head -n 1)
	if [ -n "$f" ]; then jq -r .severity <<<"$f"; else echo none; fi
}
# The guest's side: find the port, run the doctor, write "TAG RC JSON".
guest_prelude() {
	cat <<'GUEST'
. /etc/gso-guest.sh
port=
for d in /sys/class/virtio-ports/*; do
	[ "$(cat "$d/name" 2>/dev/null)" = gso.doctor ] && port=/dev/${d##*/}
done
[ -n "$port" ] || { echo "guest: no gso.doctor port"; exit 1; }
doctor() {
	tag=$1
	shift
	out=$(gso-doctor "$@")
	rc=$?
	echo "$tag $rc $out" > "$port"
	echo "guest: doctor $tag exit $rc"
}
GUEST
}

# --- VM "single" ----------------------------------------------------------
topo_tier1 r8169
SINGLE_HOST=$HOST_NS
script=$TEST_LOG_DIR/doctor-single.guest.sh
{
	guest_prelude
	cat <<'GUEST'
ip link set dev eth0 up
ethtool -K eth0 gro off
doctor auto --json --sample-ms 1000
doctor guest --json --guest --sample-ms 1000 eth0
# The text form too, for docs/doctor.md ("text: " lines).
gso-doctor --guest --sample-ms 1000 eth0 | sed 's/^/text: /' > "$port"
echo "guest: doctor runs done"
# Keep QEMU up while the host runs its doctor next to it (the host waits
# for the line above; this bounds how long it may take).
sleep 5
GUEST
} >"$script"
mapfile -t nic < <(topo_guest_nic_args "")
mapfile -t port < <(doctor_port doctor-single)
vm_start doctor-single "$SINGLE_HOST" "$script" "${nic[@]}" "${port[@]}"
host_single=
if vm_console_wait doctor-single 'guest: doctor runs done' "$GSO_VM_TIMEOUT" 2>/dev/null; then
	host_single=$(ip netns exec "$SINGLE_HOST" "$DOCTOR" --json --host || true)
	ip netns exec "$SINGLE_HOST" "$DOCTOR" --host >"$TEST_LOG_DIR/doctor-single.host.txt" || true
fi
rc=0
vm_wait doctor-single || rc=$?
sed -n 's/^text: //p' "$TEST_LOG_DIR/doctor-single.doctor" | tr -d '\r' >"$TEST_LOG_DIR/doctor-single.guest.txt"
check_eq "guest exit code" "$rc" 0
log_test "doctor guest: VM with one queue pair boots and runs the doctor ($GSO_ACCEL)"

auto=$(run_json doctor-single auto)
auto=${auto:-'{"mode":"missing"}'}
check_eq "auto mode" "$(jq -r .mode <<<"$auto")" guest
check_eq "auto exit" "$(run_rc doctor-single auto)" 1
log_test "doctor guest: guest mode chosen by itself, exit 1 with findings"

single=$(run_json doctor-single guest)
single=${single:-'{"findings":[]}'}
echo "$single" >"$TEST_LOG_DIR/doctor-single.guest.json"
check_eq "guest-queues" "$(sev "$single" guest-queues)" warning
check_eq "guest-queues max" "$(jq -r '.findings[] | select(.id == "guest-queues") | .evidence.max_combined' <<<"$single")" 1
log_test "doctor guest: guest-queues fires: 1 queue pair, 2 vCPUs"
check_eq "guest-rings" "$(sev "$single" guest-rings)" info
log_test "doctor guest: guest-rings fires (info): rx ring maximum 256"
check_eq "guest-offloads-off" "$(sev "$single" guest-offloads-off)" warning
log_test "doctor guest: guest-offloads-off fires: GRO turned off"
check_eq "guest-rps-unset" "$(sev "$single" guest-rps-unset)" warning
log_test "doctor guest: guest-rps-unset fires: one rx queue, no RPS"
check_eq "guest-rx-dropped" "$(sev "$single" guest-rx-dropped)" none
check_eq "guest-softnet-skew" "$(sev "$single" guest-softnet-skew)" none
log_test "doctor guest: rx-dropped, softnet-skew silent on an idle default guest"
# A default device on the project's QEMU (a machine type with the feature
# on by default, no limit set): negotiated, reported as "no limit", at
# info level, with the device's 64 KiB defaults as evidence.
check_eq "guest-gso-limits" "$(sev "$single" guest-gso-limits)" info
check_eq "guest-gso-limits feature" "$(jq -r '.findings[] | select(.id == "guest-gso-limits") | .evidence.gso_limits_feature' <<<"$single")" negotiated
check_eq "guest-gso-limits tso_max_size" "$(jq -r '.findings[] | select(.id == "guest-gso-limits") | .evidence.tso_max_size' <<<"$single")" 65536
log_test "doctor guest: guest-gso-limits on a default device: negotiated, no limit (info)"

if [ -n "$host_single" ]; then
	echo "$host_single" >"$TEST_LOG_DIR/doctor-single.host.json"
	check_eq "host gso-path-limit" "$(sev "$host_single" gso-path-limit)" warning
	check_eq "host single-queue-tap" "$(sev "$host_single" single-queue-tap)" warning
	check_eq "host vcpus" "$(jq -r '.findings[] | select(.id == "single-queue-tap") | .evidence.vcpus' <<<"$host_single")" 2
	log_test "doctor guest: host side next to QEMU: gso-path-limit and single-queue-tap fire"
else
	log_test "doctor guest: host side next to QEMU" FAIL "the guest never finished its doctor runs"
fi

# --- VM "multi" ---------------------------------------------------------------
topo_tier1 r8169
MULTI_HOST=$HOST_NS
# QEMU opens a queues=2 tap with IFF_MULTI_QUEUE: recreate tap0 so.
ip -n "$MULTI_HOST" link del tap0
ip -n "$MULTI_HOST" tuntap add dev tap0 mode tap vnet_hdr multi_queue
ip -n "$MULTI_HOST" link set dev tap0 master br0 up
# A second "VM" in the bridge: floods frames nobody handles to the guest.
ip -n "$MULTI_HOST" tuntap add dev tap1 mode tap vnet_hdr
ip -n "$MULTI_HOST" link set dev tap1 master br0 up
ip netns exec "$MULTI_HOST" "$TAPHOLD" --drip-ms 20 tap1 1 0 >"$TEST_LOG_DIR/doctor-multi.taphold" 2>&1 &
defer "kill $!"

# The project's own QEMU has the properties: a QEMU without them is a
# failure of this run (it reports it below), not a reason to skip.
extra=mq=on,vectors=6,rx_queue_size=1024
have_limits=0
if "$GSO_QEMU" -device virtio-net-pci,help 2>/dev/null | grep -q host_gso_max_size; then
	have_limits=1
fi
extra=$extra,host_gso_max_size=64000,host_gso_max_segs=64
script=$TEST_LOG_DIR/doctor-multi.guest.sh
{
	guest_prelude
	cat <<'GUEST'
doctor down --json --guest --sample-ms 500 eth0
ip link set dev eth0 up
i=0
while [ "$(cat /sys/class/net/eth0/operstate)" != up ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
doctor up --json --guest --sample-ms 2000 eth0
echo "guest: doctor runs done"
sleep 5
GUEST
} >"$script"
mapfile -t nic < <(topo_guest_nic_args "$extra")
nic[1]=${nic[1]},queues=2
mapfile -t port < <(doctor_port doctor-multi)
vm_start doctor-multi "$MULTI_HOST" "$script" "${nic[@]}" "${port[@]}"
host_multi=
if vm_console_wait doctor-multi 'guest: doctor runs done' "$GSO_VM_TIMEOUT" 2>/dev/null; then
	host_multi=$(ip netns exec "$MULTI_HOST" "$DOCTOR" --json --host tap0 || true)
fi
rc=0
vm_wait doctor-multi || rc=$?
check_eq "guest exit code" "$rc" 0
log_test "doctor guest: VM with 2 queue pairs boots and runs the doctor"

down=$(run_json doctor-multi down)
down=${down:-'{"findings":[{"id":"missing","severity":"error"}]}'}
echo "$down" >"$TEST_LOG_DIR/doctor-multi.down.json"
for id in guest-queues guest-rings guest-offloads-off guest-rps-unset guest-rx-dropped guest-softnet-skew; do
	check_eq "$id" "$(sev "$down" "$id")" none
done
check_eq "exit code" "$(run_rc doctor-multi down)" 0
log_test "doctor guest: multi-queue, full rings, offloads on: silent, exit 0"

# The project's kernel and QEMU negotiate the feature: anything else is
# a failure of the series, so this check fails rather than skips.
feature=$(jq -r '.findings[] | select(.id == "guest-gso-limits") | .evidence.gso_limits_feature' <<<"$down")
[ "$have_limits" = 1 ] ||
	check_err 1 "$GSO_QEMU has no host_gso_max_size property"
check_eq "gso_limits_feature (the project's kernel and QEMU)" "${feature:-no finding}" negotiated
check_eq "guest-gso-limits" "$(sev "$down" guest-gso-limits)" info
check_eq "tso_max_size" "$(jq -r '.findings[] | select(.id == "guest-gso-limits") | .evidence.tso_max_size' <<<"$down")" 64000
check_eq "tso_max_segs" "$(jq -r '.findings[] | select(.id == "guest-gso-limits") | .evidence.tso_max_segs' <<<"$down")" 64
log_test "doctor guest: guest-gso-limits reports the negotiated 64000/64"

up=$(run_json doctor-multi up)
up=${up:-'{"findings":[]}'}
echo "$up" >"$TEST_LOG_DIR/doctor-multi.up.json"
check_eq "guest-rx-dropped" "$(sev "$up" guest-rx-dropped)" warning
log_test "doctor guest: guest-rx-dropped fires: frames nobody handles arrive"

if [ -n "$host_multi" ]; then
	check_eq "host single-queue-tap" "$(sev "$host_multi" single-queue-tap)" none
	log_test "doctor guest: host side: single-queue-tap silent with queues=2"
else
	log_test "doctor guest: host side: single-queue-tap silent with queues=2" FAIL \
		"the guest never finished its doctor runs"
fi

tests_exit
