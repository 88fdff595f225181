#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run-time changes of the host path, followed the way a user runs it: the
# host daemon gso-limitsd runs in the host namespace (tests/harness/
# limitsd.sh), finds the guest's QEMU and its -qmp socket by itself and
# sets the tap's path limits with qom-set host_gso_max; QEMU starts
# with the feature offered and no limit (host_gso_max_segs=65535).
#   daemon r8169 profile: the running guest comes to 64000/64.
#   S3     a drop to 48000/32 and a rise back during a stream, IPv4 and
#          IPv6, with a feature-off control NIC (tests/t35/s3.sh)
#   S4     ports join and leave the bridge, the tap moves (tests/t35/s4.sh)
# Each case in a file of its own, sourced in this order, with the guest
# script and the helpers below.
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
# at or after time T, the payload bytes sent then, and the header bytes
# (Ethernet, IP, TCP with its options) of the frame that carried the
# largest payload: its frame length less its payload, as captured.
max_payload_after() {
	tcpdump -tt -n -e -r "$1" "tcp and dst port $2" 2>/dev/null |
		awk -v t="$3" '$1 >= t { f = -1; n = -1
				for (i = 2; i < NF; i++) if ($i == "length" || $i == "length:") {
					v = $(i + 1) + 0; if (f < 0) f = v; else n = v }
				if (n < 0) next
				b += n; if (n > m) { m = n; h = f - n } }
			END { printf "%d %d %d\n", m, b, h }'
}

# recvq PORT: bytes the wire peer's socket on PORT has received and not
# read (Recv-Q); 0 when there is no such connection.
recvq() {
	ip netns exec "$PEER_NS" ss -tnH state established "( sport = :$1 )" |
		awk '{ q += $1 } END { print q + 0 }'
}

# The cases, in order.
# shellcheck source=tests/t35/s3.sh
. "$GSO_TOP/tests/t35/s3.sh"
# shellcheck source=tests/t35/s4.sh
. "$GSO_TOP/tests/t35/s4.sh"

echo "propagation delays (host change -> guest sees it, polled every 50 ms, $GSO_ACCEL):"
sed 's/^/    /' "$DELAYS"
tests_exit
