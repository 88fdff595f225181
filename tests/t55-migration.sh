#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 7 (S7), issue 15 item 1: live migration between host paths.
#
# One host namespace holds two paths: br0 (tap0, nic0 with r8169's
# 64000/64) and br1 (tap1, nic1 with e1000e's 65536/65535), plus spare
# taps for further destinations.  Both NIC ports reach the wire peer
# through a switch bridge in the peer namespace, so the guest keeps its
# peer whichever path it uses.
#
# Every stream that crosses a switchover provably does: its receiver is
# stopped (SIGSTOP) before the guest connects, so the guest's sender
# blocks with data queued in the guest; the receiver is let go only after
# the DESTINATION reports the migration "completed", with fewer bytes
# received than sent (ss); it then checks every byte (gso-stream: the
# seeded stream regenerated, content=ok).
#
#   chain  one guest, five migrations (no second boot):
#          1. 64000/64 -> 64000/64 (explicit properties on both QEMUs):
#             completed, the guest still has 64000/64, a stream crosses it;
#          2. 64000/64 -> 32000/32: completed, the destination's values win:
#             the guest ends with 32000/32, QEMU's trace shows the change
#             notified, a second stream crosses it;
#          3. -> a patched QEMU that does not offer the feature
#             (host_gso_limits=off): refused with QEMU's "does not offer"
#             error, the guest runs on;
#          4. -> the unpatched QEMU: the guest's machine type (pc, i.e.
#             pc-i440fx-11.0, where the feature is on by default) does not
#             exist there: named at its start ("unsupported machine type"),
#             and a stream into its own newest type (pc-i440fx-10.2) is
#             refused naming both machine types;
#          5. the source made hostile (x-gso-limits-unchecked, 1000 bytes
#             set at run time; the guest ignores it) -> refused with
#             "migrated GSO limits out of range: size 1000 segs 32";
#          then the guest, still on the source of 3-5 with 32000/32, sends
#          a third checked stream and exits 0.
#   m1     S7 as a user runs it: gso-limitsd in the host namespace sets
#          both QEMUs (the feature offered, no limit at start): r8169 path
#          -> e1000e path, the guest ends with 65536/65535, stream crosses.
#   m3     old machine types are unchanged: a guest on the patched QEMU
#          with machine type pc-i440fx-10.2 (the feature off through
#          hw_compat_10_2, nothing on the command line) migrates to the
#          unpatched QEMU as today, stream crosses.
# Migration with vhost=on runs in tier 2 (t61-vhost-qemu.sh): this
# machine has no /dev/vhost-net.
# One case alone: T55_CASES=m1 tests/run.sh tests/t55-migration.sh.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

CASES=$(skip_unless_full T55_CASES "chain m1 m3" "migration")
want() { [[ " $CASES " == *" $1 "* ]]; }
if want chain || want m3; then
	qemu_base=$("$GSO_TOP/scripts/build-qemu.sh" --unpatched)
fi
STREAM=$GSO_TOP/tools/build/gso-stream
# Well above what a held receiver and a blocked sender queue between them
# (tcp_rmem + tcp_wmem maxima, 6 + 4 MiB), so most of each stream moves
# after the switchover.
BYTES=$((32 << 20))
SMALL=$((4 << 20))

two_paths() {
	topo_tier1 r8169
	topo_second_path
	local t
	for t in 1 2 3 4 5; do
		ip -n "$HOST_NS" tuntap add dev "tap$t" mode tap vnet_hdr
		ip -n "$HOST_NS" link set "tap$t" master "$([ "$t" = 2 ] && echo br0 || echo br1)" up
	done
}

# --- receivers -----------------------------------------------------------
# recv_start PORT BYTES: a receiver on PORT in the peer namespace, listening
# when this returns; its log is $TEST_LOG_DIR/$CASE.recv-PORT.log.
declare -A RECV_PID
recv_start() {
	local port=$1
	ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect "$2" --timeout 280 "$port" \
		> "$TEST_LOG_DIR/$CASE.recv-$port.log" 2>&1 &
	RECV_PID[$port]=$!
	# A held receiver ignores SIGTERM until continued.
	defer "kill -CONT ${RECV_PID[$port]} 2>/dev/null; kill ${RECV_PID[$port]} 2>/dev/null"
	slowwait 10 grep -q 'listening=' "$TEST_LOG_DIR/$CASE.recv-$port.log" ||
		check_err 1 "receiver on $port did not listen"
}
recv_hold() { kill -STOP "${RECV_PID[$1]}"; }
recv_release() { kill -CONT "${RECV_PID[$1]}"; }

# peer_bytes PORT: bytes the peer's TCP has received on PORT's connection
# (0 before the connection exists).
peer_bytes() {
	local n
	n=$(ip netns exec "$PEER_NS" ss -tinH state established "( sport = :$1 )" |
		grep -o 'bytes_received:[0-9]*' | head -n 1 | cut -d: -f2)
	echo "${n:-0}"
}
# shellcheck disable=SC2317 # called through slowwait
peer_got_data() { [ "$(peer_bytes "$1")" -gt 0 ]; }

# recv_done PORT BYTES: the receiver ends with every byte, content checked.
recv_done() {
	local rc=0 log=$TEST_LOG_DIR/$CASE.recv-$1.log
	wait "${RECV_PID[$1]}" || rc=$?
	if [ "$rc" != 0 ] || ! grep -q "bytes=$2 .*content=ok" "$log"; then
		check_err 1 "stream to port $1: $(tail -n 1 "$log")"
	fi
}

# --- migration -----------------------------------------------------------
# mig_status NAME: the VM's migration status (outgoing on a source, the
# incoming one on a destination).
mig_status() {
	vm_qmp "$1" '{"execute":"query-migrate"}' 2>/dev/null |
		grep -o '"status": *"[a-z-]*"' | tail -n 1 | sed 's/.*"\([a-z-]*\)"$/\1/'
}
# shellcheck disable=SC2317 # called through slowwait
mig_done() {
	MIG_STATUS=$(mig_status "$1")
	case "$MIG_STATUS" in completed|failed|cancelled) return 0 ;; esac
	return 1
}
# shellcheck disable=SC2317
dst_completed() { [ "$(mig_status "$1")" = completed ]; }

# migrate SRC DST: QMP migrate, wait for the source's result (MIG_STATUS);
# on "completed" also for the destination's own "completed".
migrate() {
	local sock=$TEST_LOG_DIR/$2.mig.sock
	# The return path lets a destination that refuses the stream say so:
	# without it the source reports completed.
	local cap='{"execute":"migrate-set-capabilities","arguments":{"capabilities":[{"capability":"return-path","state":true}]}}'
	slowwait 30 test -S "$TEST_LOG_DIR/$2.qmp.sock" || check_err 1 "$2 has no QMP socket"
	vm_qmp "$2" "$cap" > "$TEST_LOG_DIR/$2.caps.log" 2>&1 ||
		check_err 1 "return-path on $2: $(cat "$TEST_LOG_DIR/$2.caps.log")"
	vm_qmp "$1" "$cap" "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"unix:$sock\"}}" \
		> "$TEST_LOG_DIR/$1.migrate-$2.log" 2>&1 ||
		check_err 1 "migrate on $1: $(cat "$TEST_LOG_DIR/$1.migrate-$2.log")"
	slowwait 90 mig_done "$1" || MIG_STATUS=timeout
	if [ "$MIG_STATUS" = completed ]; then
		slowwait 30 dst_completed "$2" || MIG_STATUS="source completed, destination $(mig_status "$2")"
	fi
}

# crossing SRC DST PORT: migrate SRC -> DST while PORT's stream is held
# mid-way; check it is still mid-way when DST reports completed, then let
# it go.  CROSS_BYTES: what the peer had received at the switchover.
crossing() {
	local src=$1 dst=$2 port=$3
	slowwait 60 peer_got_data "$port" || check_err 1 "the stream to $port did not start"
	migrate "$src" "$dst"
	check_eq "migration $src -> $dst (destination's status)" "$MIG_STATUS" completed
	CROSS_BYTES=$(peer_bytes "$port")
	if [ "$CROSS_BYTES" -le 0 ] || [ "$CROSS_BYTES" -ge "$BYTES" ]; then
		check_err 1 "at the switchover the peer had $CROSS_BYTES of $BYTES bytes: the stream did not cross it"
	fi
	recv_release "$port"
}

# guest_line NAME KEY: the value of the guest's "KEY: value" console line.
guest_line() {
	sed -n "s/^$2: //p" "$TEST_LOG_DIR/$1.console.log" | tr -d '\r' | tail -n 1
}

# refused SRC DST WANT-ERROR: the destination refuses the stream with an
# error naming WANT-ERROR, the source runs the guest on.
refused() {
	migrate "$1" "$2"
	check_eq "migration $1 -> $2 (source's status)" "$MIG_STATUS" failed
	local pidvar=VM_PID_${2//-/_}
	# The destination exits after a failed load.
	slowwait 30 sh -c "! kill -0 ${!pidvar} 2>/dev/null" || check_err 1 "$2 still runs after refusing"
	grep -qF "$3" "$TEST_LOG_DIR/$2.qemu.log" ||
		check_err 1 "$2 did not print '$3': $(grep -m2 -i 'error\|fail\|subsection' "$TEST_LOG_DIR/$2.qemu.log")"
	local st
	st=$(vm_qmp "$1" '{"execute":"query-status"}' 2>/dev/null | grep -o '"status": *"[a-z-]*"' | head -n 1)
	check_eq "$1 after the refusal" "${st//[ \"]/}" status:running
}

# start_vm NAME QEMU TAP PROPS [incoming]: a guest on TAP with virtio-net
# PROPS (under the patched QEMU, with its trace of the GSO limits); with "incoming", a destination
# waiting for a migration.
start_vm() {
	local name=$1 q=$2 tap=$3 props=$4 nic more=()
	# The unpatched QEMU has no such trace event.
	[ "$q" = "$GSO_QEMU" ] && more=(-trace virtio_net_gso_limits)
	[ "${5:-}" = incoming ] && more+=(-incoming "unix:$TEST_LOG_DIR/$name.mig.sock")
	mapfile -t nic < <(topo_guest_nic_args "$props" | sed "s/ifname=tap0/ifname=$tap/")
	VM_QEMU=$q vm_start "$name" "$HOST_NS" "$TEST_LOG_DIR/$CASE.guest.sh" "${nic[@]}" "${more[@]}"
}

# --- chain ---------------------------------------------------------------
if want chain; then
	CASE=chain
	two_paths
	recv_start 5201 $BYTES
	recv_start 5202 $BYTES
	recv_hold 5201
	recv_hold 5202
	cat > "$TEST_LOG_DIR/$CASE.guest.sh" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
echo "LIMITS-0: \$(gso_limits)"
gso-stream send $PEER_IP4 5201 $BYTES --timeout 250 || exit 1
echo "LIMITS-1: \$(gso_limits)"
gso-stream send $PEER_IP4 5202 $BYTES --timeout 250 || exit 1
i=0
while [ "\$(gso_limits)" = "64000 64 64000" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
echo "LIMITS-2: \$(gso_limits)"
# The third stream's receiver starts after the refused migrations: the
# sender retries its connection meanwhile (up to its timeout).
gso-stream send $PEER_IP4 5203 $SMALL --timeout 250 || exit 1
echo "LIMITS-3: \$(gso_limits)"
GUEST
	p64="host_gso_max_size=64000,host_gso_max_segs=64"
	p32="x-gso-limits-unchecked=on,host_gso_max_size=32000,host_gso_max_segs=32"
	start_vm chain-q0 "$GSO_QEMU" tap0 "$p64"
	start_vm chain-q1 "$GSO_QEMU" tap1 "$p64" incoming
	vm_console_wait chain-q0 '^LIMITS-0:' 150 || check_err 1 "the guest did not come up"
	check_eq "guest's limits on the source" "$(guest_line chain-q0 LIMITS-0)" "64000 64 64000"
	crossing chain-q0 chain-q1 5201
	recv_done 5201 $BYTES
	vm_qmp chain-q0 '{"execute":"quit"}' >/dev/null 2>&1 || true
	vm_console_wait chain-q1 '^LIMITS-1:' 60 || check_err 1 "the guest did not go on on chain-q1"
	check_eq "guest's limits after the switchover" "$(guest_line chain-q1 LIMITS-1)" "64000 64 64000"
	log_test "migration 64000/64 -> 64000/64: completed, guest keeps 64000/64, stream crossed ($CROSS_BYTES of $BYTES bytes before)"

	start_vm chain-q2 "$GSO_QEMU" tap2 "$p32" incoming
	crossing chain-q1 chain-q2 5202
	recv_done 5202 $BYTES
	vm_qmp chain-q1 '{"execute":"quit"}' >/dev/null 2>&1 || true
	vm_console_wait chain-q2 '^LIMITS-2:' 60 || check_err 1 "the guest did not go on on chain-q2"
	check_eq "guest's limits after 64000/64 -> 32000/32" "$(guest_line chain-q2 LIMITS-2)" "32000 32 32000"
	grep -q 'virtio_net_gso_limits .*size 32000 segs 32: config change notified' \
		"$TEST_LOG_DIR/chain-q2.qemu.log" ||
		check_err 1 "chain-q2's trace does not show 32000/32 notified: $(grep gso_limits "$TEST_LOG_DIR/chain-q2.qemu.log" | tail -n 3)"
	log_test "migration 64000/64 -> 32000/32: destination wins, guest notified, ends 32000/32, stream crossed ($CROSS_BYTES bytes before)"

	start_vm chain-q3 "$GSO_QEMU" tap3 "host_gso_limits=off" incoming
	refused chain-q2 chain-q3 "virtio-net: the guest uses VIRTIO_NET_F_GSO_LIMITS, which this device does not offer"
	log_test "migration to a device that does not offer the feature: refused (QEMU names it), guest runs on"

	# A user starts the destination with the source's machine type: the
	# unpatched QEMU does not have it.
	rc=0
	out=$("$qemu_base" -M pc-i440fx-11.0 -accel qtest -nodefaults -display none </dev/null 2>&1) || rc=$?
	check_eq "unpatched QEMU with -M pc-i440fx-11.0: exit status" "$rc" 1
	grep -q "unsupported machine type" <<<"$out" ||
		check_err 1 "the unpatched QEMU does not name the machine type: $out"
	start_vm chain-q4 "$qemu_base" tap4 "" incoming
	refused chain-q2 chain-q4 "Machine type received is 'pc-i440fx-11.0' and local is 'pc-i440fx-10.2'"
	log_test "migration of a pc-i440fx-11.0 guest to the unpatched QEMU: refused (machine type named), guest runs on"

	qmp_gso_set "$TEST_LOG_DIR/chain-q2.qmp.sock" /machine/peripheral/net0 1000 32 \
		> "$TEST_LOG_DIR/chain-q2.qom-set.log" 2>&1 ||
		check_err 1 "qom-set of 1000 bytes on the unchecked source: $(cat "$TEST_LOG_DIR/chain-q2.qom-set.log")"
	start_vm chain-q5 "$GSO_QEMU" tap5 "host_gso_max_size=32000,host_gso_max_segs=32" incoming
	refused chain-q2 chain-q5 "virtio-net: migrated GSO limits out of range: size 1000 segs 32"
	log_test "migration of out-of-range limits (1000 bytes): refused with the values named, guest runs on"

	recv_start 5203 $SMALL
	recv_done 5203 $SMALL
	rc=0
	vm_wait chain-q2 || rc=$?
	check_eq "guest exit code (on chain-q2)" "$rc" 0
	check_eq "guest's limits at the end (1000 bytes ignored)" "$(guest_line chain-q2 LIMITS-3)" "32000 32 32000"
	log_test "after three refused migrations: guest runs on with 32000/32, stream intact, exit 0"
	vm_wait chain-q0 >/dev/null || true  # quit after migrating: no exit code
	vm_wait chain-q1 >/dev/null || true
	defer_cleanup
fi

# migrate_with_stream SRC DST PORT: migrate SRC to DST while the held stream
# on PORT crosses the switchover, check every byte, end the source and wait
# for the guest to finish on DST with exit code 0.
migrate_with_stream() {
	local rc=0
	crossing "$1" "$2" "$3"
	recv_done "$3" $BYTES
	vm_qmp "$1" '{"execute":"quit"}' >/dev/null 2>&1 || true
	vm_wait "$2" || rc=$?
	check_eq "guest exit code (on the destination)" "$rc" 0
}

# --- m1: r8169 -> e1000e, the daemon sets both sides -----------------------
if want m1; then
	CASE=m1
	two_paths
	limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
	recv_start 5201 $BYTES
	recv_hold 5201
	cat > "$TEST_LOG_DIR/$CASE.guest.sh" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
i=0
while [ "\$(gso_limits)" != "64000 64 64000" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
echo "LIMITS-0: \$(gso_limits)"
gso-stream send $PEER_IP4 5201 $BYTES --timeout 250 || exit 1
i=0
while [ "\$(gso_limits)" = "64000 64 64000" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
echo "LIMITS-1: \$(gso_limits)"
GUEST
	start_vm m1-src "$GSO_QEMU" tap0 "$LIMITSD_NIC_PROPS"
	start_vm m1-dst "$GSO_QEMU" tap1 "$LIMITSD_NIC_PROPS" incoming
	vm_console_wait m1-src '^LIMITS-0:' 150 || check_err 1 "the guest did not come up"
	check_eq "guest's limits from the daemon (r8169 path)" "$(guest_line m1-src LIMITS-0)" "64000 64 64000"
	# The daemon gives the waiting destination its own path's limits.
	slowwait 30 limitsd_set_seen "$HOST_NS" 65536 65535 ||
		check_err 1 "gso-limitsd did not set the destination: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
	migrate_with_stream m1-src m1-dst 5201
	check_eq "limits after migration to the e1000e path" "$(guest_line m1-dst LIMITS-1)" "65536 65535 65536"
	log_test "S7: migration r8169 -> e1000e path, gso-limitsd on the host: guest adopts 65536/65535, stream crossed"
	vm_wait m1-src >/dev/null || true
	defer_cleanup
fi

# --- m3: feature off -> unpatched destination: as today ----------------------
if want m3; then
	CASE=m3
	two_paths
	recv_start 5201 $BYTES
	recv_hold 5201
	cat > "$TEST_LOG_DIR/$CASE.guest.sh" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
echo "LIMITS-0: \$(gso_limits)"
gso-stream send $PEER_IP4 5201 $BYTES --timeout 250 || exit 1
echo "LIMITS-1: \$(gso_limits)"
GUEST
	VM_MACHINE=pc-i440fx-10.2 start_vm m3-src "$GSO_QEMU" tap0 ""
	VM_MACHINE=pc-i440fx-10.2 start_vm m3-dst "$qemu_base" tap1 "" incoming
	vm_console_wait m3-src '^LIMITS-0:' 150 || check_err 1 "the guest did not come up"
	migrate_with_stream m3-src m3-dst 5201
	check_eq "limits (feature off) after migration" "$(guest_line m3-dst LIMITS-1)" "65536 65535 65536"
	log_test "S5: old machine type pc-i440fx-10.2 (feature off by hw_compat), patched -> unpatched QEMU: migrates as today, stream crossed"
	vm_wait m3-src >/dev/null || true
	defer_cleanup
fi

tests_exit
