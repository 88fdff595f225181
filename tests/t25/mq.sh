# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# t25-coverage.sh, case mq (sourced by tests/t25-coverage.sh, with its
# helpers):
#   mq      r8169 path (64000/64), 4 queue pairs (mq=on,vectors=10 on the
#           device, queues=4 on a multi_queue tap, ethtool -L combined 4
#           in the guest): 64000/64 applied; four parallel IPv4 streams
#           leave from several tx queues, 0 bytes segmented in software;
#           an IPv6 stream with the same explicit limits, 0 bytes
#           segmented.  Then the run-time cases, during a background
#           stream, through QMP (qom-set host_gso_max, the way
#           management changes a running VM's limits; tests/harness/qmp.sh
#           waits for each reply): hostile values (size 0, size 1000,
#           segs 0; x-gso-limits-unchecked=on lets QEMU pass them) one at
#           a time, each answered by one driver warning, then 30 of them
#           flapping in one burst: the driver keeps 64000/64 throughout and
#           its warnings stay within net_ratelimit's burst of 10; (segs
#           above 65535 cannot be expressed: QEMU's 16-bit field refuses
#           them at qom-set).  Then a valid update to 32000/32 with 4
#           queue pairs: the guest follows, a stream after it stays within
#           32000 bytes / 32 MSS, 0 bytes segmented, and the background
#           stream arrives intact across all of it.  Last, a device reset
#           under traffic: while a stream runs the driver is unbound and
#           rebound (/sys/bus/virtio/drivers/virtio_net/unbind|bind: the
#           driver resets the device, then probes and negotiates again, as
#           after a guest reboot, while a TCP connection is open); the new
#           eth0 reads 32000/32 again (QEMU keeps management's value over a
#           reset) and the stream completes intact.

# --- mq ----------------------------------------------------------------------
VM=mq MQ_BYTES=$((4 << 20)) V6_BYTES=$((8 << 20)) RB_BYTES=$((64 << 20))
BG_BYTES=$((256 << 20)) RT_BYTES=$((8 << 20))
QOM=/machine/peripheral/net0   # topo_guest_nic_args: id=net0
topo_tier1 r8169
# QEMU opens a queues=4 tap with IFF_MULTI_QUEUE: recreate tap0 so.
ip -n "$HOST_NS" link del tap0
ip -n "$HOST_NS" tuntap add dev tap0 mode tap vnet_hdr multi_queue
ip -n "$HOST_NS" link set dev tap0 master br0 up
captures $VM 5201 5202 5203 5204 5205 5206 5207 5208
for p in 5201 5202 5203 5204; do receiver $VM $p $MQ_BYTES; done
receiver $VM 5205 $V6_BYTES -6
receiver $VM 5206 $RB_BYTES
receiver $VM 5207 $BG_BYTES
receiver $VM 5208 $RT_BYTES
cat > "$TEST_LOG_DIR/$VM.guest.sh" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck channels ethtool -L eth0 combined 4 || exit 1
echo "CHANNELS: \$(ethtool -l eth0 | sed -n '/Current/,\$p' | awk '/Combined/ { print \$2 }')"
gcheck ping ping_until $PEER_IP4 || exit 1
echo "LINK-BOOT: \$(gso-linkinfo eth0)"
for p in 5201 5202 5203 5204; do
	gso-stream send $PEER_IP4 \$p $MQ_BYTES --timeout 150 > /tmp/s\$p.log 2>&1 &
done
wait
for p in 5201 5202 5203 5204; do echo "SEND-\$p: \$(tail -n 1 /tmp/s\$p.log)"; done
# Per-queue packet counts moved to netdev-genl qstats; ethtool -S keeps
# each tx queue's kicks (txN_kicks): a queue that sent has kicked.
echo "TXQ: \$(ethtool -S eth0 | awk '/^ *tx[0-9]+_kicks:/ { printf "%s ", \$2 }')"
echo "SEND-5205: \$(gso-stream send -6 $PEER_IP6 5205 $V6_BYTES --timeout 150 2>&1 | tail -n 1)"
# Run-time changes (the host sends them over QMP) during a background
# stream; every change of the limits is printed.
watch_limits() {
	local last= cur i=0
	while [ \$i -lt 6000 ] && [ ! -f /tmp/stop ]; do
		cur=\$(gso_limits)
		[ "\$cur" != "\$last" ] && echo "GUEST-LIMITS: \$cur" && last=\$cur
		sleep 0.05
		i=\$((i + 1))
	done
}
watch_limits &
gso-stream send $PEER_IP4 5207 $BG_BYTES --timeout 250 > /tmp/s5207.log 2>&1 &
bg=\$!
echo "RT-READY"
i=0
while [ "\$(gso_limits)" != "32000 32 32000" ] && [ \$i -lt 1800 ]; do sleep 0.1; i=\$((i + 1)); done
echo "RT-FOLLOWED: \$(gso_limits), background stream \$(kill -0 \$bg 2>/dev/null && echo running || echo ended)"
echo "SEND-5208: \$(gso-stream send $PEER_IP4 5208 $RT_BYTES --timeout 150 2>&1 | tail -n 1)"
wait \$bg
echo "SEND-5207: \$(tail -n 1 /tmp/s5207.log)"
touch /tmp/stop
# A virtio reset under a live TCP connection: unbind the driver while the
# stream runs, bind it again, give the new eth0 its addresses back.
gso-stream send $PEER_IP4 5206 $RB_BYTES --timeout 200 > /tmp/s5206.log 2>&1 &
sender=\$!
tx0=\$(cat /sys/class/net/eth0/statistics/tx_bytes)
i=0
while [ "\$(cat /sys/class/net/eth0/statistics/tx_bytes)" -lt \$((tx0 + 2097152)) ] && [ \$i -lt 300 ]; do
	sleep 0.1; i=\$((i + 1))
done
dev=\$(basename "\$(readlink /sys/class/net/eth0/device)")
echo "UNBIND: \$dev after \$(( \$(cat /sys/class/net/eth0/statistics/tx_bytes) - tx0 )) bytes, stream \$(kill -0 \$sender 2>/dev/null && echo running || echo ended)"
echo "\$dev" > /sys/bus/virtio/drivers/virtio_net/unbind || exit 1
[ -e /sys/class/net/eth0 ] && echo "UNBIND-ERROR: eth0 still there"
echo "\$dev" > /sys/bus/virtio/drivers/virtio_net/bind || exit 1
i=0
while [ ! -e /sys/class/net/eth0 ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
echo "LINK-REBOUND: \$(gso-linkinfo eth0)"
gcheck relink net_up $GUEST_IP4 $GUEST_IP6 || exit 1
ethtool -L eth0 combined 4
wait \$sender
echo "SEND-5206: \$(tail -n 1 /tmp/s5206.log)"
echo "LINK-END: \$(gso-linkinfo eth0)"
GUEST
mapfile -t nic < <(topo_guest_nic_args \
	"mq=on,vectors=10,host_gso_max_size=64000,host_gso_max_segs=64,x-gso-limits-unchecked=on")
nic[1]=${nic[1]},queues=4
vm_start $VM "$HOST_NS" "$TEST_LOG_DIR/$VM.guest.sh" "${nic[@]}"
SOCK=$TEST_LOG_DIR/$VM.qmp.sock

# warnings_above N: more than N driver warnings so far (for slowwait).
# shellcheck disable=SC2317 # called through slowwait
warnings_above() { [ "$(warnings "$VM")" -gt "$1" ]; }
rt_ok=0
if vm_console_wait $VM '^RT-READY' 240; then
	rt_ok=1
	for v in "0 64" "1000 64" "64000 0"; do
		w=$(warnings $VM)
		# shellcheck disable=SC2086 # SIZE SEGS
		qmp_gso_set "$SOCK" $QOM $v > "$TEST_LOG_DIR/$VM.qmp-${v// /-}.log" ||
			check_err 1 "qom-set $v: $(cat "$TEST_LOG_DIR/$VM.qmp-${v// /-}.log")"
		slowwait 20 warnings_above "$w" ||
			check_err 1 "no driver warning for size/segs $v"
	done
	# Over range: the config field is 16 bits; QEMU refuses segs 70000.
	qmp_gso_set "$SOCK" $QOM 64000 70000 > "$TEST_LOG_DIR/$VM.qmp-over.log" &&
		check_err 1 "qom-set segs 70000 accepted: $(cat "$TEST_LOG_DIR/$VM.qmp-over.log")"
	# Flapping: 30 hostile values back to back in one QMP session.
	flap=()
	for _ in $(seq 10); do
		for v in '"size":0,"segs":64' '"size":1000,"segs":64' '"size":64000,"segs":0'; do
			flap+=("{\"execute\":\"qom-set\",\"arguments\":{\"path\":\"$QOM\",\"property\":\"host_gso_max\",\"value\":{$v}}}")
		done
	done
	w_flap=$(warnings $VM) t_flap=$(date +%s)
	qmp_cmds "$SOCK" "${flap[@]}" > "$TEST_LOG_DIR/$VM.qmp-flap.log" ||
		check_err 1 "the flapping qom-sets failed: $(grep -m1 error "$TEST_LOG_DIR/$VM.qmp-flap.log")"
	# The fence: a valid value the guest must follow (management lowers
	# the path and the device together); everything before it was read.
	nic_set_limits 32000 32
	qmp_gso_set "$SOCK" $QOM 32000 32 > "$TEST_LOG_DIR/$VM.qmp-32000.log" ||
		check_err 1 "qom-set 32000/32: $(cat "$TEST_LOG_DIR/$VM.qmp-32000.log")"
	vm_console_wait $VM '^RT-FOLLOWED' 120 || check_err 1 "the guest did not follow 32000/32"
	flap_warn=$(( $(warnings $VM) - w_flap )) flap_s=$(( $(date +%s) - t_flap ))
fi
finish $VM
boot=$(gval $VM LINK-BOOT)
check_eq "combined channels" "$(gval $VM CHANNELS)" 4
check_eq "tso_max_size" "$(link_field "$boot" tso_max_size)" 64000
check_eq "tso_max_segs" "$(link_field "$boot" tso_max_segs)" 64
log_test "coverage mq: 4 queue pairs in use, 64000/64 applied"

for p in 5201 5202 5203 5204; do
	stream_ok $VM $p $MQ_BYTES || check_err 1 "stream $p did not arrive intact"
done
read -r -a txq <<< "$(gval $VM TXQ)"
used=0
for n in "${txq[@]}"; do [ "$n" -gt 10 ] && used=$((used + 1)); done
[ "$used" -ge 2 ] || check_err 1 "the streams left from $used tx queue(s) (kicks per queue: ${txq[*]:-none})"
port_hist $VM 5201 5202 5203 5204
hist_crossed $VM-p5201 $((4 * MQ_BYTES)) || check_err 1 "the 4 streams are not whole in the captures"
check_eq "bytes segmented in software" "$(hist_q $VM-p5201 '.segmented_in_software.bytes')" 0
check_eq "tap bytes in frames over the limit" "$(hist_oversize_bytes $VM-p5201 64000)" 0
large_frames $VM-p5201
log_test "coverage mq: 4 streams over $used tx queues (kicks ${txq[*]}) intact, 0 bytes segmented"

stream_ok $VM 5205 $V6_BYTES || check_err 1 "the IPv6 stream did not arrive intact"
port_hist $VM 5205
hist_crossed $VM-p5205 "$V6_BYTES" || check_err 1 "the IPv6 stream is not whole in the captures"
check_eq "IPv6 bytes segmented in software" "$(hist_q $VM-p5205 '.segmented_in_software.bytes')" 0
check_eq "IPv6 tap bytes in frames over the limit" "$(hist_oversize_bytes $VM-p5205 64000 86)" 0
large_frames $VM-p5205
log_test "coverage mq: IPv6 stream at explicit 64000/64, 0 bytes segmented (max $(hist_q $VM-p5205 '.files[0].max_payload'))"

# Run-time: hostile values and flapping leave 64000/64 in place.
[ "$rt_ok" = 1 ] || check_err 1 "the guest never got to the run-time phase"
limits_seen=$(CON $VM | sed -n 's/^GUEST-LIMITS: //p' | paste -sd, -)
check_eq "limits the guest went through" "$limits_seen" "64000 64 64000,32000 32 32000"
check_eq "warnings at boot" "$(CON $VM | sed '/^RT-READY/q' | grep -E '^\[ *[0-9]+\.[0-9]+\]' |
	grep -ciE 'virtio_net.*gso|gso.*limit' || true)" 0
{ [ "${flap_warn:-0}" -ge 1 ] && [ "${flap_warn:-99}" -le 10 ]; } ||
	check_err 1 "flapping: ${flap_warn:-?} warnings in ${flap_s:-?} s for 30 hostile values (want 1..10: net_ratelimit)"
log_test "coverage run-time: size 0, 1000, segs 0, 30 flapping: 64000/64 kept, ${flap_warn:-?} warnings (ratelimited)"

case "$(gval $VM RT-FOLLOWED)" in
*"background stream running") ;;
*) check_err 1 "the background stream was not running through the changes: $(gval $VM RT-FOLLOWED)" ;;
esac
stream_ok $VM 5207 $BG_BYTES || check_err 1 "the background stream did not arrive intact"
stream_ok $VM 5208 $RT_BYTES || check_err 1 "the stream after 32000/32 did not arrive intact"
port_hist $VM 5208
hist_crossed $VM-p5208 "$RT_BYTES" || check_err 1 "the stream after 32000/32 is not whole in the captures"
mss=$(hist_q $VM-p5208 '.mss')
rt_max=$(hist_q $VM-p5208 '.files[0].max_payload')
check_eq "tap bytes in frames of 32000 bytes or more" "$(hist_oversize_bytes $VM-p5208 32000)" 0
{ [ "$rt_max" -le $((32 * mss)) ] && [ "$rt_max" -gt $((8 * mss)) ]; } ||
	check_err 1 "largest frame after 32000/32: $rt_max (want GSO frames within 32000 bytes, 32 x $mss)"
check_eq "bytes segmented after 32000/32" "$(hist_q $VM-p5208 '.segmented_in_software.bytes')" 0
log_test "coverage run-time: 4 queue pairs follow 32000/32 (max $rt_max), streams intact, 0 bytes segmented"

rebound=$(gval $VM LINK-REBOUND)
case "$(gval $VM UNBIND)" in
virtio*"stream running") ;;
*) check_err 1 "the driver was not unbound during the stream: '$(gval $VM UNBIND)'" ;;
esac
CON $VM | grep -q '^UNBIND-ERROR' && check_err 1 "$(gval $VM UNBIND-ERROR)"
check_eq "tso_max_size after the reset" "$(link_field "$rebound" tso_max_size)" 32000
check_eq "tso_max_segs after the reset" "$(link_field "$rebound" tso_max_segs)" 32
stream_ok $VM 5206 $RB_BYTES || check_err 1 "the stream across the reset did not arrive intact"
port_hist $VM 5206
hist_crossed $VM-p5206 "$RB_BYTES" || check_err 1 "the stream across the reset is not whole in the captures"
check_eq "tap bytes over the limit across the reset" "$(hist_oversize_bytes $VM-p5206 32000)" 0
check_eq "bytes segmented across the reset" "$(hist_q $VM-p5206 '.segmented_in_software.bytes')" 0
log_test "coverage mq: device reset mid-stream (unbind+bind, $(gval $VM UNBIND | sed 's/.*after \([0-9]*\) bytes.*/\1/') bytes in): 32000/32 re-read, stream intact"
defer_cleanup
