# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# t35-runtime.sh, case S3 (sourced by tests/t35-runtime.sh, with its
# guest script and helpers):
#   S3     while a TCP stream runs, the egress limit drops to 48000/32 and
#          later rises to 64000/64: the guest follows both ways (measured
#          delay), the rise restores gso_max_size, streams after each
#          change leave 0 bytes segmented in software, content intact.
#          IPv6 (issue 15 item 6): an IPv6 stream is under way when the
#          limit drops (its receiver held until the guest has followed), and
#          finishes within 48000/32 (86 bytes of headers, not 66); the
#          control, the guest's second NIC with the feature off behind a
#          48000/32 port, has its IPv6 frames segmented on the host.

# --- S3 ----------------------------------------------------------------------
VM=s3
topo_tier1 r8169
limitsd_start "$HOST_NS" || check_err 1 "gso-limitsd did not start"
# The IPv6 control path: brc = { tapc (the guest's second NIC, the feature
# off), cnic0 (a veth at 48000/32, the limits the main path drops to) }
# -> cwire0 in the peer namespace.
ip -n "$HOST_NS" link add brc type bridge stp_state 0 forward_delay 0
ip -n "$HOST_NS" tuntap add dev tapc mode tap vnet_hdr
ip -n "$HOST_NS" link add cnic0 type veth peer name cwire0 netns "$PEER_NS"
ip -n "$HOST_NS" link set dev cnic0 gso_max_size 48000 gso_max_segs 32
for dev in tapc cnic0; do
	ip -n "$HOST_NS" link set dev "$dev" master brc up
done
ip -n "$HOST_NS" link set dev brc up
ip -n "$PEER_NS" link set dev cwire0 up
ip -n "$PEER_NS" addr add "$CTRL_PEER_IP6/64" dev cwire0 nodad
phase_capture_start "$VM.tap" tap0
phase_capture_start "$VM.nic" nic0
BULK_PORT=$V6_CTRL_PORT capture_start "$VM.tapc" tapc
BULK_PORT=$V6_CTRL_PORT capture_start "$VM.cnic" cnic0
receivers
receiver_v6 "$V6_CTRL_PORT" "$CTRL_PEER_IP6" "$PHASE_BYTES" ||
	check_err 1 "the control's IPv6 receiver did not listen"
# Held from the start: the guest's IPv6 stream connects and fills the
# receiver's window, then waits until the guest has followed the drop.
receiver_v6 "$V6_HELD_PORT" "$PEER_IP6" "$V6_BYTES" ||
	check_err 1 "the held IPv6 receiver did not listen"
V6_RECV_PID=$RECV_PID
kill -STOP "$V6_RECV_PID"
script=$TEST_LOG_DIR/$VM.guest.sh
guest_script v6 "48000 32 48000" "64000 64 64000" > "$script"
mapfile -t nic < <(topo_guest_nic_args "$LIMITSD_NIC_PROPS")
vm_start $VM "$HOST_NS" "$script" "${nic[@]}" \
	-netdev "tap,id=n1,ifname=tapc,script=no,downscript=no,vhost=off" \
	-device "virtio-net-pci,id=net1,netdev=n1,mac=$CTRL_MAC,host_gso_limits=off"

vm_console_wait $VM 'GUEST-LIMITS: 64000 64 64000' 120 ||
	check_err 1 "the guest did not come to 64000/64: $(grep GUEST-LIMITS "$TEST_LOG_DIR/$VM.console.log" | head -n 3)"
limitsd_set_seen "$HOST_NS" 64000 64 ||
	check_err 1 "gso-limitsd's log has no 'set size 64000 segs 64': $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "daemon: gso-limitsd gives the running guest the r8169 path's 64000/64"

vm_console_wait $VM 'PHASE1-DONE' 120 || check_err 1 "phase 1 stream did not finish"
# The IPv6 stream is under way: the held receiver has bytes queued.
v6_held=$(recvq "$V6_HELD_PORT")
change_and_measure s3-drop nic_set_limits 48000 32 || check_err 1 "the guest did not follow the drop"
check_eq "limits after the drop" "$LAST_LIMITS" "48000 32 48000"
log_test "S3: egress drops to 48000/32 during a stream, the guest follows"
# The guest has followed: let the IPv6 stream go on.
v6_release=$(date +%s.%N)
kill -CONT "$V6_RECV_PID"

vm_console_wait $VM 'PHASE2-DONE' 120 || check_err 1 "phase 2 stream did not finish"
change_and_measure s3-rise nic_set_limits 64000 64 || check_err 1 "the guest did not follow the rise"
check_eq "limits after the rise (gso_max_size restored)" "$LAST_LIMITS" "64000 64 64000"
log_test "S3: egress rises back to 64000/64, gso_max_size restored"

finish_vm tap nic tapc cnic
log_test "S3: all streams (one across both changes, IPv6 across the drop) arrive intact"

for p in 5202 5203; do
	phase_hist $p
done
max2=$(hist_q "$VM-p5202" '.files[0].max_payload')
mss=$(hist_q "$VM-p5202" '.mss')
{ [ "$max2" -le $((32 * mss)) ] && [ "$max2" -lt 48000 ]; } ||
	check_err 1 "after the drop the guest still sent $max2-byte frames (limit 48000/32, mss $mss)"
log_test "S3: after each change, no software segmentation (largest frame $max2 at 48000/32)"

# IPv6 across the drop: the whole stream on the tap and on nic0, 0 bytes
# segmented in software; what it sent after the receiver was let go (the
# guest had followed) within 48000 bytes with 86 bytes of headers and 32
# segments, and in GSO frames (over 16 segments), not cut in the guest.
check_eq "IPv6 control NIC's limits (feature off)" \
	"$(sed -n 's/.*GUEST-CTRL-LIMITS: //p' "$TEST_LOG_DIR/$VM.console.log" | tr -d '\r')" "65536 65535 65536"
[ "${v6_held:-0}" -gt 0 ] ||
	check_err 1 "IPv6: the held receiver had no bytes queued at the drop: the stream did not cross it"
phase_hist "$V6_HELD_PORT" nic tap "$V6_BYTES"
read -r v6max v6after v6hdr < <(max_payload_after "$TEST_LOG_DIR/$VM-p$V6_HELD_PORT.tap.pcap" \
	"$V6_HELD_PORT" "$v6_release")
# The stream's MSS and header bytes, measured (the MSS from the capture's
# frame sizes, gso-hist's guess; the headers from the largest frame), so a
# different MSS or header length cannot make the bounds below vacuous.
v6mss=$(hist_q "$VM-p$V6_HELD_PORT" '.mss')
{ [ "${v6mss:-0}" -ge 536 ] && [ "$v6mss" -le 1440 ]; } ||
	check_err 1 "IPv6: no plausible MSS measured for the held stream ('$v6mss')"
{ [ "${v6hdr:-0}" -ge 74 ] && [ "$v6hdr" -le 134 ]; } ||
	check_err 1 "IPv6: the largest frame's headers measured as '$v6hdr' bytes (Ethernet + IPv6 + TCP: 74-134)"
v6mss=${v6mss:-1} v6hdr=${v6hdr:-0}
{ [ "$v6max" -le $((32 * v6mss)) ] && [ $((v6max + v6hdr)) -lt 48000 ]; } ||
	check_err 1 "IPv6: after the drop the guest sent a $v6max-byte payload (limit 48000/32, mss $v6mss, $v6hdr bytes of headers)"
[ "$v6max" -gt $((16 * v6mss)) ] ||
	check_err 1 "IPv6: after the drop the largest payload is $v6max: no GSO frames, nothing shown"
[ "$v6after" -ge $((V6_BYTES / 2)) ] ||
	check_err 1 "IPv6: only $v6after of $V6_BYTES bytes were sent after the drop"
log_test "S3: IPv6 stream across the drop ($v6_held bytes held): $v6after bytes after it within 48000/32 (largest $v6max + $v6hdr, mss $v6mss), 0 bytes segmented on the host"

# The control: the same IPv6 traffic from the feature-off NIC behind a
# 48000/32 port is segmented on the host (so the checks above can fail).
phase_hist_only "$V6_CTRL_PORT" cnic tapc "$PHASE_BYTES"
cmax=$(hist_q "$VM-p$V6_CTRL_PORT" '.files[0].max_payload')
cseg=$(hist_q "$VM-p$V6_CTRL_PORT" '.segmented_in_software.bytes')
[ $((cmax + v6hdr)) -ge 48000 ] ||
	check_err 1 "IPv6 control: the feature-off NIC's largest payload $cmax fits 48000 bytes: no control"
[ "$cseg" -gt 0 ] 2>/dev/null ||
	check_err 1 "IPv6 control: ${cseg:-no} bytes segmented on the host: the check cannot fail"
log_test "S3: IPv6 control, feature-off NIC behind 48000/32: $cseg bytes segmented on the host (largest $cmax + $v6hdr)"
limitsd_alive || check_err 1 "gso-limitsd exited: $(tail -n 5 "$TEST_LOG_DIR/limitsd-$HOST_NS.log")"
log_test "S3: gso-limitsd runs through all changes"
defer_cleanup
