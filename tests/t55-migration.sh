#!/usr/bin/env bash
# Issue 7 (S7): live migration between host paths.
#
# One host namespace holds two paths: br0 (tap0, nic0 with r8169's
# 64000/64) and br1 (tap1, nic1 with e1000e's 65536/65535).  Both NIC
# ports reach the wire peer through a switch bridge in the peer namespace,
# so the guest keeps its peer whichever path it uses.
#   1. The host daemon gso-limitsd runs in the host namespace, as a user
#      runs it, and gives each QEMU its tap's path limits (both start with
#      the feature offered and no limit).  A guest on tap0 (64000/64) runs
#      a TCP stream and is migrated (QMP migrate, unix socket) to a QEMU on
#      tap1, to which the daemon gave 65536/65535 while it waited for the
#      stream: the destination's values win, the guest is told and ends
#      with the e1000e path's limits, the stream intact.
#   2. A guest that negotiated the feature cannot go to an unpatched QEMU:
#      the destination refuses the stream, the source keeps running the
#      guest, its stream intact.
#   3. A guest on a patched QEMU without the feature migrates to the
#      unpatched QEMU as today.
#   4. A stream whose subsection carries invalid values (the source device
#      made hostile with x-gso-limits-unchecked and set to 1000 bytes at
#      run time, after the guest negotiated 64000/64) is refused by the
#      destination with a clear error; the source keeps the guest.
# One case alone: T55_CASES=m1 tests/run.sh tests/t55-migration.sh.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

# T55_CASES: the cases to run (default all); the unpatched QEMU is built
# only for the cases that need it (m2, m3).
CASES=${T55_CASES:-m1 m2 m3 m4}
want() { [[ " $CASES " == *" $1 "* ]]; }
if want m2 || want m3; then
	qemu_base=$("$GSO_TOP/scripts/build-qemu.sh" --unpatched)
fi
STREAM=$GSO_TOP/tools/build/gso-stream
BYTES=$((96 << 20))

two_paths() {
	topo_tier1 r8169
	ip -n "$PEER_NS" link add swbr type bridge stp_state 0 forward_delay 0
	ip -n "$PEER_NS" addr flush dev wire0
	ip -n "$PEER_NS" link set wire0 master swbr
	ip -n "$HOST_NS" link add br1 type bridge stp_state 0 forward_delay 0
	ip -n "$HOST_NS" tuntap add dev tap1 mode tap vnet_hdr
	ip -n "$HOST_NS" link add nic1 type veth peer name wire1 netns "$PEER_NS"
	ip -n "$HOST_NS" link set tap1 master br1 up
	ip -n "$HOST_NS" link set nic1 master br1 up
	ip -n "$HOST_NS" link set br1 up
	ip -n "$PEER_NS" link set wire1 master swbr up
	ip -n "$PEER_NS" link set swbr up
	ip -n "$PEER_NS" addr add "$PEER_IP4/24" dev swbr
}

# guest_script START UNTIL: wait (up to 60 s) for the limits START (if
# not empty), stream, then wait (up to 20 s) for limits other than UNTIL.
guest_script() {
	cat <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
i=0
while [ -n "$1" ] && [ "\$(gso_limits)" != "$1" ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
echo "GUEST-LIMITS: \$(gso_limits)"
echo STREAM-START
gso-stream send $PEER_IP4 5201 $BYTES --timeout 250 || exit 1
i=0
while [ "\$(gso_limits)" = "$2" ] && [ \$i -lt 200 ]; do sleep 0.1; i=\$((i + 1)); done
echo "GUEST-LIMITS-END: \$(gso_limits)"
GUEST
}

# mig_done NAME-SRC: the source's migration has ended (MIG_STATUS set).
# shellcheck disable=SC2317 # called through slowwait
mig_done() {
	MIG_STATUS=$(vm_qmp "$1" '{"execute":"query-migrate"}' 2>/dev/null |
		grep -o '"status": *"[a-z-]*"' | tail -n 1 | sed 's/.*"\([a-z-]*\)"$/\1/')
	case "$MIG_STATUS" in completed|failed|cancelled) return 0 ;; esac
	return 1
}

# migrate NAME-SRC NAME-DST: QMP migrate and wait for the result.
migrate() {
	local sock=$TEST_LOG_DIR/$2.mig.sock
	# The return path lets a destination that refuses the stream (an
	# unknown subsection) say so: without it the source reports completed.
	local cap='{"execute":"migrate-set-capabilities","arguments":{"capabilities":[{"capability":"return-path","state":true}]}}'
	slowwait 30 test -S "$TEST_LOG_DIR/$2.qmp.sock" || check_err 1 "$2 has no QMP socket"
	vm_qmp "$2" "$cap" > "$TEST_LOG_DIR/$2.caps.log" 2>&1 ||
		check_err 1 "return-path on $2: $(cat "$TEST_LOG_DIR/$2.caps.log")"
	vm_qmp "$1" "$cap" "{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"unix:$sock\"}}" \
		> "$TEST_LOG_DIR/$1.migrate.log" 2>&1 ||
		check_err 1 "migrate on $1: $(cat "$TEST_LOG_DIR/$1.migrate.log")"
	slowwait 60 mig_done "$1" || MIG_STATUS=timeout
}

start_receiver() {
	ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $BYTES --timeout 280 5201 \
		> "$TEST_LOG_DIR/$1.recv.log" 2>&1 &
	RECV_PID=$!
	defer "kill $RECV_PID 2>/dev/null"
}

# start_case NAME SRC-QEMU SRC-PROPS DST-QEMU DST-PROPS DST-TAP START UNTIL [daemon]:
# the two paths, the receiver, the source VM streaming and the destination
# waiting for it; with "daemon", gso-limitsd runs in the host namespace.
start_case() {
	local name=$1 src_q=$2 src_props=$3 dst_q=$4 dst_props=$5 dst_tap=$6 start=$7 until=$8
	two_paths
	if [ "${9:-}" = daemon ]; then
		limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
	fi
	start_receiver "$name"
	guest_script "$start" "$until" > "$TEST_LOG_DIR/$name.guest.sh"
	local src_nic dst_nic
	mapfile -t src_nic < <(topo_guest_nic_args "$src_props")
	mapfile -t dst_nic < <(topo_guest_nic_args "$dst_props" | sed "s/ifname=tap0/ifname=$dst_tap/")
	VM_QEMU=$src_q vm_start "$name-src" "$HOST_NS" "$TEST_LOG_DIR/$name.guest.sh" "${src_nic[@]}"
	VM_QEMU=$dst_q vm_start "$name-dst" "$HOST_NS" "$TEST_LOG_DIR/$name.guest.sh" "${dst_nic[@]}" \
		-incoming "unix:$TEST_LOG_DIR/$name-dst.mig.sock"
	vm_console_wait "$name-src" STREAM-START 150 || check_err 1 "the guest did not start its stream"
}

# --- 1. r8169 -> e1000e, the daemon sets both sides ----------------------------
if want m1; then
	start_case m1 "$GSO_QEMU" "$LIMITSD_NIC_PROPS" "$GSO_QEMU" "$LIMITSD_NIC_PROPS" tap1 \
		"64000 64 64000" "64000 64 64000" daemon
	grep -q 'GUEST-LIMITS: 64000 64 64000' "$TEST_LOG_DIR/m1-src.console.log" ||
		check_err 1 "the guest did not get the r8169 path's limits from the daemon"
	# The daemon gives the waiting destination its own path's limits.
	slowwait 30 limitsd_set_seen "$HOST_NS" 65536 65535 ||
		check_err 1 "gso-limitsd did not set the destination: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
	migrate m1-src m1-dst
	check_eq "migration status" "$MIG_STATUS" completed
	vm_qmp m1-src '{"execute":"quit"}' >/dev/null 2>&1 || true
	rc=0
	vm_wait m1-dst || rc=$?
	check_eq "guest exit code (on the destination)" "$rc" 0
	wait "$RECV_PID" || check_err 1 "stream: $(cat "$TEST_LOG_DIR/m1.recv.log")"
	end=$(sed -n 's/.*GUEST-LIMITS-END: //p' "$TEST_LOG_DIR/m1-dst.console.log" | tr -d '\r')
	check_eq "limits after migration to the e1000e path" "$end" "65536 65535 65536"
	log_test "S7: migration r8169 -> e1000e path, gso-limitsd on the host: guest adopts 65536/65535, stream intact"
	vm_wait m1-src >/dev/null || true  # quit after migrating: no exit code
	defer_cleanup
fi

# --- 2. negotiated feature -> unpatched destination: refused, source goes on --
if want m2; then
	start_case m2 "$GSO_QEMU" "host_gso_max_size=64000,host_gso_max_segs=64" "$qemu_base" "" tap1 \
		"64000 64 64000" "64000 64 64000"
	migrate m2-src m2-dst
	[ "$MIG_STATUS" = failed ] || check_err 1 "migration to the unpatched QEMU: status $MIG_STATUS, want failed"
	vm_qmp m2-src '{"execute":"cont"}' >/dev/null 2>&1 || true
	rc=0
	vm_wait m2-src || rc=$?
	check_eq "guest exit code (still on the source)" "$rc" 0
	wait "$RECV_PID" || check_err 1 "stream: $(cat "$TEST_LOG_DIR/m2.recv.log")"
	grep -o 'error.*' "$TEST_LOG_DIR/m2-dst.qemu.log" | head -n 2 | sed 's/^/    destination: /'
	log_test "S5: feature negotiated, unpatched destination: refused, guest runs on"
	vm_qmp m2-dst '{"execute":"quit"}' >/dev/null 2>&1 || true
	defer_cleanup
fi

# --- 3. feature off -> unpatched destination: as today --------------------------
if want m3; then
	start_case m3 "$GSO_QEMU" "" "$qemu_base" "" tap1 "" "65536 65535 65536"
	migrate m3-src m3-dst
	check_eq "migration status" "$MIG_STATUS" completed
	vm_qmp m3-src '{"execute":"quit"}' >/dev/null 2>&1 || true
	rc=0
	vm_wait m3-dst || rc=$?
	check_eq "guest exit code (on the destination)" "$rc" 0
	wait "$RECV_PID" || check_err 1 "stream: $(cat "$TEST_LOG_DIR/m3.recv.log")"
	log_test "S5: feature off, patched -> unpatched QEMU: migrates as today"
	defer_cleanup
fi

# --- 4. invalid values in the stream: refused by the destination ------------
if want m4; then
	# The guest negotiates 64000/64, then the hostile source device offers 1000
	# bytes at run time: the guest keeps its limits and the feature, so the
	# subsection carries 1000; the destination must not take it.
	start_case m4 "$GSO_QEMU" "x-gso-limits-unchecked=on,host_gso_max_size=64000,host_gso_max_segs=64" \
		"$GSO_QEMU" "host_gso_max_size=64000,host_gso_max_segs=64" tap1 "64000 64 64000" "64000 64 64000"
	vm_qmp m4-src '{"execute":"qom-set","arguments":{"path":"/machine/peripheral/net0","property":"host-gso-limits","value":{"size":1000,"segs":64}}}' \
		> "$TEST_LOG_DIR/m4-src.qom-set.log" 2>&1 ||
		check_err 1 "qom-set of 1000 bytes on the unchecked source: $(cat "$TEST_LOG_DIR/m4-src.qom-set.log")"
	migrate m4-src m4-dst
	[ "$MIG_STATUS" = failed ] || check_err 1 "hostile stream: status $MIG_STATUS, want failed"
	grep -q 'migrated GSO limits out of range: size 1000 segs 64' "$TEST_LOG_DIR/m4-dst.qemu.log" ||
		check_err 1 "the destination did not name the bad values: $(tail -n 3 "$TEST_LOG_DIR/m4-dst.qemu.log")"
	rc=0
	vm_wait m4-src || rc=$?
	check_eq "guest exit code (still on the source)" "$rc" 0
	wait "$RECV_PID" || check_err 1 "stream: $(cat "$TEST_LOG_DIR/m4.recv.log")"
	log_test "S7: invalid limits in the migration stream are refused, guest runs on"
	vm_qmp m4-dst '{"execute":"quit"}' >/dev/null 2>&1 || true
	defer_cleanup
fi

tests_exit
