# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# t35-runtime.sh, case S4 (sourced by tests/t35-runtime.sh, with its
# guest script and helpers):
#   S4     a port with a smaller limit joins the bridge (guest follows down),
#          leaves (back up); the tap moves to another bridge (e1000e limits).

# --- S4 ----------------------------------------------------------------------
VM=s4
topo_tier1 r8169
limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
# A second path: br1 with an e1000e-like port; both ports reach the wire
# peer through a switch bridge in the peer namespace, so the guest keeps
# its peer when the tap moves.
topo_second_path
ip -n "$PEER_NS" addr add "$PEER_IP6/64" dev swbr nodad
# A port that will join br0 with a smaller limit.
ip -n "$HOST_NS" link add small0 type veth peer name small0p
ip -n "$HOST_NS" link set small0 gso_max_size 32000 gso_max_segs 24 up

phase_capture_start "$VM.tap" tap0
phase_capture_start "$VM.nic" nic0
phase_capture_start "$VM.nic1" nic1
receivers
guest_script "" "" "65536 65535 65536" > "$TEST_LOG_DIR/$VM.guest.sh"
mapfile -t nic < <(topo_guest_nic_args "$LIMITSD_NIC_PROPS")
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
# Phase 3's path (nic1 at the default 65536) segments nothing whatever the
# guest does, so "0 segmented" there would hold vacuously.  What can fail:
# the guest uses the new bridge's limits, i.e. sends frames that the old
# path (64000 bytes) would have cut; and every byte crossed nic1.
if phase_hist_only 5203 nic1 tap "$PHASE_BYTES"; then
	p3max=$(hist_q "$VM-p5203" '.files[0].max_payload')
	[ $((p3max + 66)) -ge 64000 ] ||
		check_err 1 "phase 3: largest tap payload $p3max + 66 is below 64000: the guest did not use the e1000e bridge's 65536"
fi
log_test "S4: captures on the tap and each phase's egress: same bytes; phase 2 0 segmented, phase 3 frames over 64000 (max ${p3max:-?} + 66)"
limitsd_alive || check_err 1 "gso-limitsd exited: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "S4: gso-limitsd runs through all changes"
