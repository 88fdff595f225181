# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# shellcheck disable=SC2034 # BULK_* are results read by the sourcing test
# One bulk-TCP run from the guest to the wire peer through the tier-1
# topology, with captures on the tap and on the egress port ("the NIC"):
# the measurement behind seed 000's tables, reused by the scenario tests
# and by `make demo`.  Source after tests/lib.sh, harness/vm.sh, topo.sh.

BULK_PORT=5201

# capture_start NAME DEV: tcpdump of the guest's TCP data (headers only:
# sizes come from the IP headers) on DEV in the host namespace.
capture_start() {
	local name=$1 dev=$2 pcap=$TEST_LOG_DIR/$1.pcap
	ip netns exec "$HOST_NS" tcpdump -i "$dev" -n -s 200 -B 32768 --immediate-mode -w "$pcap" \
		"tcp and dst port $BULK_PORT" > "$TEST_LOG_DIR/$name.tcpdump.log" 2>&1 &
	eval "CAP_PID_${name//[^a-zA-Z0-9_]/_}=$!"
	defer "kill $! 2>/dev/null"
	slowwait 10 grep -qs 'listening on' "$TEST_LOG_DIR/$name.tcpdump.log"
}

# capture_stop NAME: stop tcpdump, let it flush; fail if it dropped packets.
capture_stop() {
	local var="CAP_PID_${1//[^a-zA-Z0-9_]/_}"
	kill -INT "${!var}" 2>/dev/null
	wait "${!var}" 2>/dev/null
	if grep -qE '^[1-9][0-9]* packets dropped by kernel' "$TEST_LOG_DIR/$1.tcpdump.log"; then
		printf '    capture %s: %s\n' "$1" "$(grep 'dropped by kernel' "$TEST_LOG_DIR/$1.tcpdump.log")"
		return 1
	fi
}

# bulk_run NAME BYTES FAMILY [VIRTIO-NET DEVICE PROPERTIES]
# FAMILY is 4 or 6.  Boots a guest on the existing topology, sends BYTES
# to the wire peer with gso-stream, captures on tap0 and nic0.  Results:
#   $TEST_LOG_DIR/NAME.{console.log,recv.log,tap.pcap,nic.pcap}
#   BULK_GUEST_LINK: the guest's "gso_max_size ... tso_max_segs ..." line
#   BULK_OK: 1 when the guest and the receiver both verified the stream
# BULK_WAIT_LIMITS="SIZE SEGS": the guest waits (up to 60 s) until its
# tso_max_size/tso_max_segs are those before it sends, for limits that
# management sets at run time (tests/harness/limitsd.sh).
bulk_run() {
	local name=$1 bytes=$2 family=$3 props=${4:-} peer guest6=""
	if [ "$family" = 6 ]; then peer=$PEER_IP6 guest6=-6; else peer=$PEER_IP4; fi
	BULK_OK=0 BULK_GUEST_LINK=

	capture_start "$name.tap" tap0 || return 1
	capture_start "$name.nic" nic0 || return 1
	ip netns exec "$PEER_NS" "$GSO_TOP/tools/build/gso-stream" recv $guest6 -l "$peer" \
		--expect "$bytes" --timeout 250 $BULK_PORT > "$TEST_LOG_DIR/$name.recv.log" 2>&1 &
	local recv_pid=$!
	defer "kill $recv_pid 2>/dev/null"

	local script=$TEST_LOG_DIR/$name.guest.sh
	cat > "$script" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping ping_until $peer || exit 1
i=0
while [ -n "${BULK_WAIT_LIMITS:-}" ] && [ "\$(gso_limits | cut -d' ' -f1-2)" != "${BULK_WAIT_LIMITS:-}" ] &&
	[ \$i -lt 600 ]; do sleep 0.1; i=\$((i + 1)); done
echo "GUEST-LINK: \$(gso-linkinfo \$GUEST_IF)"
gso-stream send $guest6 $peer $BULK_PORT $bytes --timeout 200 || exit 1
echo "GUEST-LINK-AFTER: \$(gso-linkinfo \$GUEST_IF)"
GUEST
	local nic rc=0
	mapfile -t nic < <(topo_guest_nic_args "$props")
	vm_run "$name" "$HOST_NS" "$script" "${nic[@]}" || rc=$?
	local recv_rc=0
	wait $recv_pid || recv_rc=$?
	capture_stop "$name.tap" || rc=1
	capture_stop "$name.nic" || rc=1

	BULK_GUEST_LINK=$(sed -n 's/^GUEST-LINK: //p' "$TEST_LOG_DIR/$name.console.log" | tr -d '\r')
	local send_sum recv_sum
	send_sum=$(grep -o 'role=send.*' "$TEST_LOG_DIR/$name.console.log" |
		sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p')
	recv_sum=$(sed -n 's/.*role=recv.*checksum=\([0-9a-f]*\).*/\1/p' "$TEST_LOG_DIR/$name.recv.log")
	if [ "$rc" = 0 ] && [ "$recv_rc" = 0 ] && [ -n "$send_sum" ] && [ "$send_sum" = "$recv_sum" ] &&
	   grep -q "bytes=$bytes .*content=ok" "$TEST_LOG_DIR/$name.recv.log"; then
		BULK_OK=1
	else
		printf '    bulk %s: guest rc %s, receiver rc %s, checksums %s/%s\n' \
			"$name" "$rc" "$recv_rc" "${send_sum:-none}" "${recv_sum:-none}"
	fi
}

# link_field LINE KEY: the value after KEY in an iproute2-style line.
link_field() {
	sed -n "s/.*\\b$2 \\([0-9]*\\).*/\\1/p" <<< "$1"
}

# bulk_hist NAME: gso-hist over NAME's tap and nic captures; the JSON goes
# to $TEST_LOG_DIR/NAME.hist.json, the table to NAME.hist.txt.
bulk_hist() {
	local d=$TEST_LOG_DIR
	"$GSO_TOP/tools/build/gso-hist" --json "tap=$d/$1.tap.pcap" "nic=$d/$1.nic.pcap" \
		> "$d/$1.hist.json" || return 1
	"$GSO_TOP/tools/build/gso-hist" --top 8 --plot-data "$d/$1.plot.dat" \
		"tap=$d/$1.tap.pcap" "nic=$d/$1.nic.pcap" > "$d/$1.hist.txt"
}

# hist_crossed NAME BYTES: both captures of NAME carry at least BYTES
# payload bytes (the stream's size: more with retransmissions), so that
# what the histograms say is about the stream.  gso-hist refuses an empty
# capture; this also catches one that saw only part of the stream.
hist_crossed() {
	local tap nic
	tap=$(hist_q "$1" '.files[0].payload_bytes // 0' 2>/dev/null) || tap=0
	nic=$(hist_q "$1" '.files[1].payload_bytes // 0' 2>/dev/null) || nic=0
	[ "$tap" -ge "$2" ] && [ "$nic" -ge "$2" ] && return 0
	echo "    $1: payload bytes captured on the tap $tap, on the egress $nic: want at least $2 on each"
	return 1
}

# hist_q NAME JQ-FILTER: a value from NAME's histogram JSON.
hist_q() {
	jq -r "$2" "$TEST_LOG_DIR/$1.hist.json"
}

# hist_identical NAME: the tap and nic histograms are equal, size by size.
hist_identical() {
	[ "$(hist_q "$1" '[.histogram[] | select(.counts[0] != .counts[1])] | length')" = 0 ]
}

# hist_oversize_bytes NAME LIMIT [HDR]: payload bytes the tap carried in
# frames the egress port's gso_max_size makes Linux segment in software:
# netif_skb_features() segments when skb->len (Ethernet header on) is at
# least the limit.  HDR: Ethernet + IP + TCP header bytes (66 for IPv4
# with timestamps, 86 for IPv6).
hist_oversize_bytes() {
	hist_q "$1" "[.histogram[] | select(.payload_size + ${3:-66} >= $2) |
		.payload_size * .counts[0]] | add // 0"
}

# hist_mss_frame_share NAME FILE-INDEX: share of a file's frames that carry
# at most one MSS (seed 000: 19101 of 20000 on the NIC).
hist_mss_frame_share() {
	hist_q "$1" ".mss as \$m | ([.histogram[] | select(.payload_size <= \$m) |
		.counts[$2]] | add // 0) / .files[$2].frames"
}
