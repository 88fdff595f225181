#!/usr/bin/env bash
# Run-time changes of the host path, followed the way a user runs it: the
# host daemon gso-limitsd runs in the host namespace (tests/harness/
# limitsd.sh), finds the guest's QEMU and its -qmp socket by itself and
# sets the tap's path limits with qom-set host-gso-limits; QEMU starts
# with the feature offered and no limit (host_gso_max_segs=65535).
#   daemon r8169 profile: the running guest comes to 64000/64.
#   S3     while a TCP stream runs, the egress limit drops to 48000/32 and
#          later rises to 64000/64: the guest follows both ways (measured
#          delay), the rise restores gso_max_size, streams after each
#          change leave 0 bytes segmented in software, content intact.
#   S4     a port with a smaller limit joins the bridge (guest follows down),
#          leaves (back up); the tap moves to another bridge (e1000e limits).
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

PHASE_BYTES=$((16 << 20))
BG_BYTES=$((256 << 20))
STREAM=$GSO_TOP/tools/build/gso-stream
DELAYS=$TEST_LOG_DIR/runtime-delays.txt
: > "$DELAYS"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The guest's side: a background stream across all changes, a watcher that
# prints every change of its limits, and one stream per phase; the next
# phase starts when the guest has seen the limits change.
guest_script() {
	cat <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
watch_limits() {
	local last= cur i=0
	while [ \$i -lt 6000 ]; do
		cur=\$(gso_limits)
		[ "\$cur" != "\$last" ] && echo "GUEST-LIMITS: \$cur" && last=\$cur
		[ -f /tmp/stop ] && return 0
		sleep 0.05
		i=\$((i + 1))
	done
}
wait_change() {
	local from=\$(gso_limits) i=0
	while [ "\$(gso_limits)" = "\$from" ] && [ \$i -lt 1200 ]; do sleep 0.05; i=\$((i + 1)); done
	sleep 0.2
}
watch_limits &
gso-stream send $PEER_IP4 5200 $BG_BYTES --timeout 250 > /tmp/bg.out 2>&1 &
bg=\$!
gso-stream send $PEER_IP4 5201 $PHASE_BYTES --timeout 100 || exit 1
echo PHASE1-DONE
wait_change
gso-stream send $PEER_IP4 5202 $PHASE_BYTES --timeout 100 || exit 1
echo PHASE2-DONE
wait_change
gso-stream send $PEER_IP4 5203 $PHASE_BYTES --timeout 100 || exit 1
echo PHASE3-DONE
wait \$bg; rc=\$?
cat /tmp/bg.out
touch /tmp/stop
sleep 0.2
exit \$rc
GUEST
}

# limits_seen_more_than N: the guest printed more than N GUEST-LIMITS lines
# (a function, so that slowwait counts again on every try).
# shellcheck disable=SC2317 # called through slowwait
limits_seen_more_than() {
	[ "$(grep -c 'GUEST-LIMITS:' "$TEST_LOG_DIR/$VM.console.log" || true)" -gt "$1" ]
}

# The phases' streams (ports 5202, 5203) are the ones phase_hist reads,
# not bulk.sh's BULK_PORT.
phase_capture_start() {
	BULK_PORT="5202 or dst port 5203" capture_start "$@"
}

# change_and_measure NAME CMD...: run CMD on the host, then wait for the
# guest to print limits other than its last ones; record the delay.
change_and_measure() {
	local name=$1 before t0 t1
	shift
	before=$(grep -c 'GUEST-LIMITS:' "$TEST_LOG_DIR/$VM.console.log" || true)
	t0=$(now_ms)
	"$@"
	if slowwait 30 limits_seen_more_than "$before"; then
		t1=$(now_ms)
		echo "$name $((t1 - t0)) ms" >> "$DELAYS"
		LAST_LIMITS=$(grep 'GUEST-LIMITS:' "$TEST_LOG_DIR/$VM.console.log" | tail -n 1 |
			sed 's/.*GUEST-LIMITS: //' | tr -d '\r')
		return 0
	fi
	echo "$name timeout" >> "$DELAYS"
	LAST_LIMITS=
	return 1
}

receivers() {
	local p b
	for p in 5200 5201 5202 5203; do
		b=$PHASE_BYTES
		[ $p = 5200 ] && b=$BG_BYTES
		ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $b --timeout 280 $p \
			> "$TEST_LOG_DIR/$VM.recv-$p.log" 2>&1 &
		defer "kill $! 2>/dev/null"
	done
}

receivers_ok() {
	local p
	for p in 5200 5201 5202 5203; do
		slowwait 60 grep -q 'status=' "$TEST_LOG_DIR/$VM.recv-$p.log" || return 1
		grep -q 'content=ok .*status=ok' "$TEST_LOG_DIR/$VM.recv-$p.log" || return 1
	done
}

# finish_vm CAPTURE...: wait for $VM's guest, stop its captures (tap, nic,
# ...), check its exit code and that every stream arrived intact.
finish_vm() {
	local rc=0
	vm_wait $VM || rc=$?
	# A capture that dropped packets would make every histogram check
	# below a statement about a sample: fail instead.
	for cap in "$@"; do
		capture_stop "$VM.$cap" || check_err 1 "the capture on $cap dropped packets"
	done
	check_eq "guest exit code" "$rc" 0
	receivers_ok ||
		check_err 1 "a stream did not arrive intact: $(cat "$TEST_LOG_DIR"/$VM.recv-*.log)"
}

# phase_hist PORT [EGRESS]: histograms of one phase's stream from the full
# captures of the tap and of the egress port (the capture named EGRESS,
# default nic), and the checks every phase must pass: the egress carried
# the same payload bytes as the tap, at least the whole stream, and none
# of it was segmented in software on the way.
phase_hist() {
	local p=$1 egress=${2:-nic} tap_bytes nic_bytes
	tcpdump -r "$TEST_LOG_DIR/$VM.tap.pcap" -w "$TEST_LOG_DIR/$VM-p$p.tap.pcap" \
		"tcp and dst port $p" 2>/dev/null
	tcpdump -r "$TEST_LOG_DIR/$VM.$egress.pcap" -w "$TEST_LOG_DIR/$VM-p$p.nic.pcap" \
		"tcp and dst port $p" 2>/dev/null
	bulk_hist "$VM-p$p" || { check_err 1 "port $p: gso-hist failed"; return; }
	tap_bytes=$(hist_q "$VM-p$p" '.files[0].payload_bytes')
	nic_bytes=$(hist_q "$VM-p$p" '.files[1].payload_bytes')
	check_eq "port $p: payload bytes on $egress equal those on the tap" "$nic_bytes" "$tap_bytes"
	[ "$tap_bytes" -ge "$PHASE_BYTES" ] ||
		check_err 1 "port $p: the tap capture has $tap_bytes of the stream's $PHASE_BYTES bytes"
	check_eq "port $p: bytes segmented in software" "$(hist_q "$VM-p$p" '.segmented_in_software.bytes')" 0
}

# --- S3 ----------------------------------------------------------------------
VM=s3
topo_tier1 r8169
limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
phase_capture_start "$VM.tap" tap0
phase_capture_start "$VM.nic" nic0
receivers
script=$TEST_LOG_DIR/$VM.guest.sh
guest_script > "$script"
mapfile -t nic < <(topo_guest_nic_args "$LIMITSD_NIC_PROPS")
vm_start $VM "$HOST_NS" "$script" "${nic[@]}"

vm_console_wait $VM 'GUEST-LIMITS: 64000 64 64000' 120 ||
	check_err 1 "the guest did not come to 64000/64: $(grep GUEST-LIMITS "$TEST_LOG_DIR/$VM.console.log" | head -n 3)"
limitsd_set_seen "$HOST_NS" 64000 64 ||
	check_err 1 "gso-limitsd's log has no 'set size 64000 segs 64': $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "daemon: gso-limitsd gives the running guest the r8169 path's 64000/64"

vm_console_wait $VM 'PHASE1-DONE' 120 || check_err 1 "phase 1 stream did not finish"
change_and_measure s3-drop nic_set_limits 48000 32 || check_err 1 "the guest did not follow the drop"
check_eq "limits after the drop" "$LAST_LIMITS" "48000 32 48000"
log_test "S3: egress drops to 48000/32 during a stream, the guest follows"

vm_console_wait $VM 'PHASE2-DONE' 120 || check_err 1 "phase 2 stream did not finish"
change_and_measure s3-rise nic_set_limits 64000 64 || check_err 1 "the guest did not follow the rise"
check_eq "limits after the rise (gso_max_size restored)" "$LAST_LIMITS" "64000 64 64000"
log_test "S3: egress rises back to 64000/64, gso_max_size restored"

finish_vm tap nic
log_test "S3: all four streams (one across both changes) arrive intact"

for p in 5202 5203; do
	phase_hist $p
done
max2=$(hist_q "$VM-p5202" '.files[0].max_payload')
mss=$(hist_q "$VM-p5202" '.mss')
{ [ "$max2" -le $((32 * mss)) ] && [ "$max2" -lt 48000 ]; } ||
	check_err 1 "after the drop the guest still sent $max2-byte frames (limit 48000/32, mss $mss)"
log_test "S3: after each change, no software segmentation (largest frame $max2 at 48000/32)"
limitsd_alive || check_err 1 "gso-limitsd exited: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "S3: gso-limitsd runs through all changes"
defer_cleanup

# --- S4 ----------------------------------------------------------------------
VM=s4
topo_tier1 r8169
limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
# A second path: br1 with an e1000e-like port; both ports reach the wire
# peer through a switch bridge in the peer namespace, so the guest keeps
# its peer when the tap moves.
ip -n "$PEER_NS" link add swbr type bridge stp_state 0 forward_delay 0
ip -n "$PEER_NS" addr flush dev wire0
ip -n "$PEER_NS" link set wire0 master swbr
ip -n "$HOST_NS" link add br1 type bridge stp_state 0 forward_delay 0
ip -n "$HOST_NS" link add nic1 type veth peer name wire1 netns "$PEER_NS"
ip -n "$HOST_NS" link set nic1 master br1 up
ip -n "$HOST_NS" link set br1 up
ip -n "$PEER_NS" link set wire1 master swbr up
ip -n "$PEER_NS" link set swbr up
ip -n "$PEER_NS" addr add "$PEER_IP4/24" dev swbr
ip -n "$PEER_NS" addr add "$PEER_IP6/64" dev swbr nodad
# A port that will join br0 with a smaller limit.
ip -n "$HOST_NS" link add small0 type veth peer name small0p
ip -n "$HOST_NS" link set small0 gso_max_size 32000 gso_max_segs 24 up

phase_capture_start "$VM.tap" tap0
phase_capture_start "$VM.nic" nic0
phase_capture_start "$VM.nic1" nic1
receivers
guest_script > "$TEST_LOG_DIR/$VM.guest.sh"
vm_start $VM "$HOST_NS" "$TEST_LOG_DIR/$VM.guest.sh" "${nic[@]}"
vm_console_wait $VM 'GUEST-LIMITS: 64000 64 64000' 120 || check_err 1 "no initial 64000/64"
vm_console_wait $VM 'PHASE1-DONE' 120 || check_err 1 "phase 1 stream did not finish"
change_and_measure s4-join ip -n "$HOST_NS" link set small0 master br0 ||
	check_err 1 "the guest did not follow the join"
check_eq "limits after a 32000/24 port joined" "$LAST_LIMITS" "32000 24 32000"
change_and_measure s4-leave ip -n "$HOST_NS" link set small0 nomaster ||
	check_err 1 "the guest did not follow the port leaving"
check_eq "limits after it left" "$LAST_LIMITS" "64000 64 64000"
log_test "S4: a 32000/24 port joins the bridge and leaves: the guest follows"

vm_console_wait $VM 'PHASE2-DONE' 120 || check_err 1 "phase 2 stream did not finish"
change_and_measure s4-move ip -n "$HOST_NS" link set tap0 master br1 ||
	check_err 1 "the guest did not follow the tap's move"
check_eq "limits after the tap moved to the e1000e bridge" "$LAST_LIMITS" "65536 65535 65536"
log_test "S4: the tap moves to another bridge: the guest takes its limits"

finish_vm tap nic nic1
log_test "S4: all streams arrive intact across the topology changes"
# Phase 2 (port 5202) runs while the 32000/24 port joins and leaves br0
# (the egress to the peer stays nic0); phase 3 (port 5203) after the tap
# moved to br1, whose egress is nic1.
phase_hist 5202 nic
phase_hist 5203 nic1
log_test "S4: captures on the tap and on each phase's egress: same bytes, 0 segmented in software"
limitsd_alive || check_err 1 "gso-limitsd exited: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "S4: gso-limitsd runs through all changes"

echo "propagation delays (host change -> guest sees it, polled every 50 ms, $GSO_ACCEL):"
sed 's/^/    /' "$DELAYS"
tests_exit
