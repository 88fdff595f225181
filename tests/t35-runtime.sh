#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run-time changes of the host path, followed the way a user runs it: the
# host daemon gso-limitsd runs in the host namespace (tests/harness/
# limitsd.sh), finds the guest's QEMU and its -qmp socket by itself and
# sets the tap's path limits with qom-set host_gso_max; QEMU starts
# with the feature offered and no limit (host_gso_max_segs=65535).
#   daemon r8169 profile: the running guest comes to 64000/64.
#   S3     while a TCP stream runs, the egress limit drops to 48000/32 and
#          later rises to 64000/64: the guest follows both ways (measured
#          delay), the rise restores gso_max_size, streams after each
#          change leave 0 bytes segmented in software, content intact.
#          IPv6 (issue 15 item 6): an IPv6 stream is under way when the
#          limit drops (its receiver held until the guest has followed), and
#          finishes within 48000/32 (86 bytes of headers, not 66); the
#          control, the guest's second NIC with the feature off behind a
#          48000/32 port, has its IPv6 frames segmented on the host.
#   S4     a port with a smaller limit joins the bridge (guest follows down),
#          leaves (back up); the tap moves to another bridge (e1000e limits).
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

PHASE_BYTES=$((16 << 20))
BG_BYTES=$((256 << 20))
V6_BYTES=$((32 << 20))
# S3's IPv6 streams: 5210 held across the drop (main NIC), 5211 from the
# control NIC (the feature off) on its own path, 2001:db8:1::/64.
V6_HELD_PORT=5210 V6_CTRL_PORT=5211
CTRL_GUEST_IP6=2001:db8:1::2 CTRL_PEER_IP6=2001:db8:1::1
CTRL_MAC=52:54:00:12:34:57
# IPv6 on a 1500-byte MTU with timestamps: 1428-byte segments, 86 bytes of
# Ethernet, IPv6 and TCP headers per frame.
V6_MSS=1428 V6_HDR=86
STREAM=$GSO_TOP/tools/build/gso-stream
DELAYS=$TEST_LOG_DIR/runtime-delays.txt
: > "$DELAYS"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# The guest's side: a background stream across all changes, a watcher that
# prints every change of its limits, and one stream per phase; the next
# phase starts when the guest has seen the limits change.
# guest_script [v6 [PHASE2 [PHASE3]]]: v6 adds S3's IPv6 streams: one
# started at once (its receiver is held until after the drop) and waited
# for before phase 2 ends, and the control NIC's (eth1, the feature off)
# after phase 2's.  PHASE2, PHASE3: the limits ("SIZE SEGS GSO_MAX_SIZE")
# that phase starts at; empty: at the next change.  A change the host made
# during the phase before may reach the guest only after that phase's
# stream ended: "the next change" would then start the phase too early.
guest_script() {
	local v6=${1:-} want2=${2:-} want3=${3:-}
	cat <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $PEER_IP4 || exit 1
v6=$v6
if [ -n "\$v6" ]; then
	echo 0 > /proc/sys/net/ipv6/conf/eth1/accept_dad
	ip -6 addr add $CTRL_GUEST_IP6/64 dev eth1 && ip link set dev eth1 up || exit 1
	echo "GUEST-CTRL-LIMITS: \$(GUEST_IF=eth1; gso_limits)"
	gcheck ping6 ping_until $PEER_IP6 || exit 1
	gcheck ping6-ctrl ping_until $CTRL_PEER_IP6 || exit 1
fi
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
# wait_change [LIMITS]: until the limits are LIMITS, or (none given) differ
# from now (60 s at most).
wait_change() {
	local want=\$1 from=\$(gso_limits) i=0
	while [ \$i -lt 1200 ]; do
		cur=\$(gso_limits)
		if [ -n "\$want" ]; then [ "\$cur" = "\$want" ] && break
		else [ "\$cur" != "\$from" ] && break; fi
		sleep 0.05
		i=\$((i + 1))
	done
	sleep 0.2
}
watch_limits &
gso-stream send $PEER_IP4 5200 $BG_BYTES --timeout 250 > /tmp/bg.out 2>&1 &
bg=\$!
if [ -n "\$v6" ]; then
	gso-stream send -6 $PEER_IP6 $V6_HELD_PORT $V6_BYTES --timeout 200 > /tmp/v6.out 2>&1 &
	v6pid=\$!
fi
gso-stream send $PEER_IP4 5201 $PHASE_BYTES --timeout 100 || exit 1
echo PHASE1-DONE
wait_change "$want2"
gso-stream send $PEER_IP4 5202 $PHASE_BYTES --timeout 100 || exit 1
if [ -n "\$v6" ]; then
	wait \$v6pid || { cat /tmp/v6.out; exit 1; }
	cat /tmp/v6.out
	gso-stream send -6 $CTRL_PEER_IP6 $V6_CTRL_PORT $PHASE_BYTES --timeout 100 || exit 1
fi
echo PHASE2-DONE
wait_change "$want3"
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

# The phases' streams (ports 5202, 5203, and S3's held IPv6 one) are the
# ones phase_hist reads, not bulk.sh's BULK_PORT.
phase_capture_start() {
	BULK_PORT="5202 or dst port 5203 or dst port $V6_HELD_PORT" capture_start "$@"
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

# RECV_PORTS: the ports whose receivers receivers_ok checks.
receivers() {
	local p b
	RECV_PORTS="5200 5201 5202 5203"
	for p in 5200 5201 5202 5203; do
		b=$PHASE_BYTES
		[ $p = 5200 ] && b=$BG_BYTES
		ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $b --timeout 280 $p \
			> "$TEST_LOG_DIR/$VM.recv-$p.log" 2>&1 &
		defer "kill $! 2>/dev/null"
	done
}

# receiver_v6 PORT ADDR BYTES: an IPv6 receiver; its PID in RECV_PID.
receiver_v6() {
	ip netns exec "$PEER_NS" "$STREAM" recv -6 -l "$2" --expect "$3" --timeout 280 "$1" \
		> "$TEST_LOG_DIR/$VM.recv-$1.log" 2>&1 &
	RECV_PID=$!
	defer "kill -CONT $RECV_PID 2>/dev/null; kill $RECV_PID 2>/dev/null"
	RECV_PORTS="$RECV_PORTS $1"
	slowwait 10 grep -qs 'listening=' "$TEST_LOG_DIR/$VM.recv-$1.log"
}

receivers_ok() {
	local p
	for p in $RECV_PORTS; do
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

# phase_hist PORT [EGRESS [TAP [BYTES]]]: histograms of one phase's stream
# from the full captures of the tap and of the egress port (the captures
# named TAP, default tap, and EGRESS, default nic), and the checks every
# phase must pass: the egress carried the same payload bytes as the tap, at
# least the whole stream (BYTES, default PHASE_BYTES), and none of it was
# segmented in software on the way.
phase_hist() {
	local p=$1 egress=${2:-nic} tap=${3:-tap} bytes=${4:-$PHASE_BYTES}
	phase_hist_only "$p" "$egress" "$tap" "$bytes" || return 0
	check_eq "port $p: bytes segmented in software" "$(hist_q "$VM-p$p" '.segmented_in_software.bytes')" 0
}

# phase_hist_only PORT EGRESS TAP BYTES: phase_hist without the check of
# software segmentation (the feature-off control has some).
phase_hist_only() {
	local p=$1 egress=$2 tap=$3 bytes=$4 tap_bytes nic_bytes
	tcpdump -r "$TEST_LOG_DIR/$VM.$tap.pcap" -w "$TEST_LOG_DIR/$VM-p$p.tap.pcap" \
		"tcp and dst port $p" 2>/dev/null
	tcpdump -r "$TEST_LOG_DIR/$VM.$egress.pcap" -w "$TEST_LOG_DIR/$VM-p$p.nic.pcap" \
		"tcp and dst port $p" 2>/dev/null
	bulk_hist "$VM-p$p" || { check_err 1 "port $p: gso-hist failed"; return 1; }
	tap_bytes=$(hist_q "$VM-p$p" '.files[0].payload_bytes')
	nic_bytes=$(hist_q "$VM-p$p" '.files[1].payload_bytes')
	check_eq "port $p: payload bytes on $egress equal those on $tap" "$nic_bytes" "$tap_bytes"
	[ "$tap_bytes" -ge "$bytes" ] ||
		check_err 1 "port $p: the $tap capture has $tap_bytes of the stream's $bytes bytes"
}

# max_payload_after PCAP PORT T: the largest TCP payload to PORT in PCAP
# captured at or after T (seconds since the epoch, this machine's clock,
# which tcpdump's timestamps use too), and how many payload bytes that
# part carried: "MAX BYTES".
max_payload_after() {
	tcpdump -tt -n -r "$1" "tcp and dst port $2" 2>/dev/null |
		awk -v t="$3" '$1 >= t { for (i = 2; i < NF; i++) if ($i == "length") {
				n = $(i + 1) + 0; b += n; if (n > m) m = n } }
			END { printf "%d %d\n", m, b }'
}

# recvq PORT: bytes the wire peer's socket on PORT has received and not
# read (Recv-Q); 0 when there is no such connection.
recvq() {
	ip netns exec "$PEER_NS" ss -tnH state established "( sport = :$1 )" |
		awk '{ q += $1 } END { print q + 0 }'
}

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
receiver_v6 $V6_CTRL_PORT "$CTRL_PEER_IP6" "$PHASE_BYTES" ||
	check_err 1 "the control's IPv6 receiver did not listen"
# Held from the start: the guest's IPv6 stream connects and fills the
# receiver's window, then waits until the guest has followed the drop.
receiver_v6 $V6_HELD_PORT "$PEER_IP6" "$V6_BYTES" ||
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
v6_held=$(recvq $V6_HELD_PORT)
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
phase_hist $V6_HELD_PORT nic tap "$V6_BYTES"
read -r v6max v6after < <(max_payload_after "$TEST_LOG_DIR/$VM-p$V6_HELD_PORT.tap.pcap" \
	$V6_HELD_PORT "$v6_release")
{ [ "$v6max" -le $((32 * V6_MSS)) ] && [ $((v6max + V6_HDR)) -lt 48000 ]; } ||
	check_err 1 "IPv6: after the drop the guest sent a $v6max-byte payload (limit 48000/32, mss $V6_MSS, $V6_HDR bytes of headers)"
[ "$v6max" -gt $((16 * V6_MSS)) ] ||
	check_err 1 "IPv6: after the drop the largest payload is $v6max: no GSO frames, nothing shown"
[ "$v6after" -ge $((V6_BYTES / 2)) ] ||
	check_err 1 "IPv6: only $v6after of $V6_BYTES bytes were sent after the drop"
log_test "S3: IPv6 stream across the drop ($v6_held bytes held): $v6after bytes after it within 48000/32 (largest $v6max + $V6_HDR), 0 bytes segmented on the host"

# The control: the same IPv6 traffic from the feature-off NIC behind a
# 48000/32 port is segmented on the host (so the checks above can fail).
phase_hist_only $V6_CTRL_PORT cnic tapc "$PHASE_BYTES"
cmax=$(hist_q "$VM-p$V6_CTRL_PORT" '.files[0].max_payload')
cseg=$(hist_q "$VM-p$V6_CTRL_PORT" '.segmented_in_software.bytes')
[ $((cmax + V6_HDR)) -ge 48000 ] ||
	check_err 1 "IPv6 control: the feature-off NIC's largest payload $cmax fits 48000 bytes: no control"
[ "$cseg" -gt 0 ] 2>/dev/null ||
	check_err 1 "IPv6 control: ${cseg:-no} bytes segmented on the host: the check cannot fail"
log_test "S3: IPv6 control, feature-off NIC behind 48000/32: $cseg bytes segmented on the host (largest $cmax + $V6_HDR)"
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
guest_script "" "" "65536 65535 65536" > "$TEST_LOG_DIR/$VM.guest.sh"
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

echo "propagation delays (host change -> guest sees it, polled every 50 ms, $GSO_ACCEL):"
sed 's/^/    /' "$DELAYS"
tests_exit
