#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-hist on captures with known contents.  pcap-synth writes header-only
# captures (as tcpdump -s 200 stores them) of seed 000's two cases and of
# edge cases, and every number gso-hist prints is checked: the table, the
# per-file summaries, the MSS guess, the bytes segmented in software, the
# JSON and the plot data.  Then live captures (tcpdump -s 200) of seed 000
# reproduced with veths and a bridge, during verified gso-stream transfers:
# with the egress port at gso_max_size 16000 most bytes are segmented in
# software; at the default none are, and both ports' histograms are equal.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

BUILD=$GSO_TOP/tools/build
HIST=$BUILD/gso-hist
SYNTH=$BUILD/pcap-synth
LOG=$TEST_LOG_DIR/tools-hist
mkdir -p "$LOG"
require_command jq "gso-hist"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

# jget JSON FILTER
jget() { jq -r "$2" <<<"$1"; }

# --- seed 000, feature off: 65160-byte frames on the tap, 1448 on the NIC.
# tap: 100 x 65160 (45 segments each), 50 x 2896, 10 x 1448, 30 ACKs, 3 UDP
# nic: 100 x 45 + 10 = 4510 x 1448, 50 x 2896, 30 ACKs
"$SYNTH" "$LOG/off-tap.pcap" tcp4:65160:100 tcp4:2896:50 tcp4:1448:10 tcp4:0:30 udp4:100:3
"$SYNTH" "$LOG/off-nic.pcap" tcp4:1448:4510 tcp4:2896:50 tcp4:0:30
text=$("$HIST" "$LOG/off-tap.pcap" "$LOG/off-nic.pcap")
json=$("$HIST" --json "$LOG/off-tap.pcap" "$LOG/off-nic.pcap")
printf '%s\n%s\n' "$text" "$json" >"$LOG/off.out"
check_eq "table" "$(sed -n 1,4p <<<"$text")" "payload size | tap count | nic count
1448 bytes | 10 | 4510
2896 bytes | 50 | 50
65160 bytes | 100 | 0"
check_eq "text: software segmentation" "$(grep '^bytes segmented' <<<"$text")" \
	"bytes segmented in software: 6516000 share 0.9761"
check_eq "text: mss" "$(grep '^mss' <<<"$text")" "mss 1448 (auto)"
check_eq "JSON: mss" "$(jget "$json" '"\(.mss) \(.mss_source)"')" "1448 auto"
check_eq "JSON: tap summary" \
	"$(jget "$json" '.files[0] | "\(.label) \(.frames) \(.payload_bytes) \(.max_payload) \(.mss_frame_bytes) \(.large_frame_bytes) \(.zero_payload_frames) \(.other_frames) \(.malformed_frames)"')" \
	"tap 160 6675280 65160 14480 6660800 30 3 0"
check_eq "JSON: nic summary" \
	"$(jget "$json" '.files[1] | "\(.label) \(.frames) \(.payload_bytes) \(.max_payload) \(.mss_frame_bytes) \(.large_frame_bytes) \(.zero_payload_frames) \(.other_frames)"')" \
	"nic 4560 6675280 2896 6530480 144800 30 0"
check_eq "JSON: large frame shares" \
	"$(jget "$json" '[.files[].large_frame_share] | map(tostring) | join(" ")')" "0.997831 0.021692"
check_eq "JSON: software segmentation" \
	"$(jget "$json" '.segmented_in_software | "\(.bytes) \(.share)"')" "6516000 0.976139"
check_eq "JSON: histogram" \
	"$(jget "$json" '[.histogram[] | "\(.payload_size):\(.counts | join("/"))"] | join(" ")')" \
	"1448:10/4510 2896:50/50 65160:100/0"
log_test "gso-hist: seed 000 without the fix (65160 on tap, 1448 on nic)"

# --- seed 000 with the workaround: both histograms the same.
# No 1448-byte frame at all, and many 376-byte tails (65536 = 45 x 1448 + 376):
# the MSS must still be guessed as 1448.
"$SYNTH" "$LOG/on-tap.pcap" tcp4:62264:877 tcp4:2896:663 tcp4:59368:33 tcp4:376:245
"$SYNTH" "$LOG/on-nic.pcap" tcp4:62264:877 tcp4:2896:663 tcp4:59368:33 tcp4:376:245
text=$("$HIST" "$LOG/on-tap.pcap" "$LOG/on-nic.pcap")
echo "$text" >"$LOG/on.out"
check_eq "first rows" "$(sed -n 2,3p <<<"$text")" "62264 bytes | 877 | 877
2896 bytes | 663 | 663"
check_eq "software segmentation" "$(grep '^bytes segmented' <<<"$text")" \
	"bytes segmented in software: 0 share 0.0000"
check_eq "mss" "$(grep '^mss' <<<"$text")" "mss 1448 (auto)"
log_test "gso-hist: seed 000 with the fix (identical histograms, nothing segmented)"

# --- IPv6, given MSS, labels, plot data, --top.
"$SYNTH" "$LOG/v6-tap.pcap" tcp6:62832:10 tcp6:0:5
"$SYNTH" "$LOG/v6-nic.pcap" tcp6:1428:440
json=$("$HIST" --json --mss 1428 --plot-data "$LOG/v6.dat" \
	guest="$LOG/v6-tap.pcap" wire="$LOG/v6-nic.pcap")
echo "$json" >"$LOG/v6.out"
check_eq "labels" "$(jget "$json" '[.files[].label] | join(" ")')" "guest wire"
check_eq "mss" "$(jget "$json" '"\(.mss) \(.mss_source)"')" "1428 given"
check_eq "software segmentation" \
	"$(jget "$json" '.segmented_in_software | "\(.bytes) \(.share)"')" "628320 1"
check_eq "plot data" "$(cat "$LOG/v6.dat")" "# gso-hist: TCP payload size histogram, mss 1428
# payload_size guest wire
1428 0 440
62832 10 0"
text=$("$HIST" --top 1 --mss 1428 "$LOG/v6-tap.pcap" "$LOG/v6-nic.pcap")
check_eq "--top 1" "$(sed -n 2,3p <<<"$text")" "1428 bytes | 0 | 440
(1 more sizes; --top 0 shows all)"
log_test "gso-hist: IPv6, --mss, labels, --plot-data, --top"

# --- more MSS-sized bytes on the tap than on the egress: floored at 0.
"$SYNTH" "$LOG/floor-tap.pcap" tcp4:1448:100
"$SYNTH" "$LOG/floor-nic.pcap" tcp4:2896:50
json=$("$HIST" --json "$LOG/floor-tap.pcap" "$LOG/floor-nic.pcap")
check_eq "software segmentation" \
	"$(jget "$json" '.segmented_in_software | "\(.bytes) \(.share)"')" "0 0"
# One file: no tap/egress pair, so no software segmentation figure.
json=$("$HIST" --json "$LOG/floor-tap.pcap")
check_eq "one file" "$(jget "$json" '"\(.files[0].label) \(.segmented_in_software)"')" \
	"floor-tap.pcap null"
log_test "gso-hist: segmented bytes floored at 0; null for one file"

rc=0
"$HIST" "$LOG/nosuch.pcap" >/dev/null 2>"$LOG/nofile.err" || rc=$?
check_eq "exit code for a missing file" "$rc" 1
"$SYNTH" "$LOG/big.pcap" tcp4:100:3
rc=0
"$HIST" "$LOG/big.pcap" >/dev/null 2>"$LOG/nomss.err" || rc=$?
check_eq "exit code without a guessable MSS" "$rc" 1
grep -q 'give --mss N' "$LOG/nomss.err" || check_err 1 "no hint to give --mss"
rc=0
"$HIST" --mss 0 "$LOG/big.pcap" >/dev/null 2>"$LOG/usage.err" || rc=$?
check_eq "exit code for --mss 0" "$rc" 1
grep -q '^usage: gso-hist' "$LOG/usage.err" || check_err 1 "usage not printed"
log_test "gso-hist: missing file, unguessable MSS, bad option fail loudly"

# --- an empty capture (only ACKs, or nothing) is an error, not "0 bytes
# segmented": on either side of a pair, and alone.
"$SYNTH" "$LOG/acks.pcap" tcp4:0:30
"$SYNTH" "$LOG/none.pcap" udp4:100:3
for pair in "off-tap.pcap acks.pcap" "acks.pcap off-nic.pcap" "off-tap.pcap none.pcap" "none.pcap"; do
	rc=0
	read -r -a files <<<"$pair"
	"$HIST" --json "${files[@]/#/$LOG/}" >"$LOG/empty.out" 2>"$LOG/empty.err" || rc=$?
	check_eq "exit code for an empty capture in '$pair'" "$rc" 1
	grep -q 'no TCP frame with a payload' "$LOG/empty.err" ||
		check_err 1 "'$pair': no message naming the empty capture: $(cat "$LOG/empty.err")"
	[ -s "$LOG/empty.out" ] && check_err 1 "'$pair': a histogram printed for an empty capture"
done
log_test "gso-hist: an empty capture is an error, never 0 bytes segmented"

# --- live: seed 000 with veths.  SND -> in0 [bridge br0 in BR] out0 -> RCV.
# tcpdump -s 200 captures the bridge's ingress port (the "tap") and egress
# port (the "nic").  With out0 at gso_max_size 16000 the sender's 65160-byte
# GSO frames are segmented in software on out0; at the default they pass.
if ! command -v tcpdump >/dev/null 2>&1; then
	log_test "gso-hist: live software segmentation on a bridge" FAIL \
		"tcpdump not installed (scripts/setup-deps.sh installs it)"
	tests_exit
fi
BYTES=$((8 << 20))
setup_ns SND BR RCV
ip -n "$BR" link add name br0 type bridge
ip -n "$BR" link add name in0 type veth peer name snd0 netns "$SND"
ip -n "$BR" link add name out0 type veth peer name rcv0 netns "$RCV"
ip -n "$BR" link set dev in0 master br0 up
ip -n "$BR" link set dev out0 master br0 up
ip -n "$BR" link set dev br0 up
ip -n "$SND" addr add 192.0.2.1/24 dev snd0
ip -n "$RCV" addr add 192.0.2.2/24 dev rcv0
ip -n "$SND" link set dev snd0 up
ip -n "$RCV" link set dev rcv0 up

# capture_start NAME IFACE: tcpdump in BR until capture_stop; waits until it listens.
CAPTURE_PIDS=()
capture_start() {
	ip netns exec "$BR" tcpdump -i "$2" -s 200 -U --immediate-mode -w "$LOG/$1.pcap" \
		tcp and dst port 5201 >"$LOG/$1.tcpdump" 2>&1 &
	CAPTURE_PIDS+=($!)
	defer "kill $!"
	slowwait "$WAIT_TIMEOUT" grep -qs 'listening on' "$LOG/$1.tcpdump" ||
		check_err 1 "tcpdump on $2 did not start"
}
capture_stop() {
	local pid
	for pid in "${CAPTURE_PIDS[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
		wait "$pid" || true
	done
	CAPTURE_PIDS=()
}

# live_run NAME OUT0_GSO_MAX_SIZE: one verified transfer, captured on in0 and
# out0; leaves gso-hist's JSON in LIVE.
live_run() {
	local name=$1 rc recv_pid
	ip -n "$BR" link set dev out0 gso_max_size "$2"
	capture_start "$name-tap" in0
	capture_start "$name-nic" out0
	ip netns exec "$RCV" "$BUILD/gso-stream" recv --expect "$BYTES" --timeout 30 5201 \
		>"$LOG/$name.recv" 2>"$LOG/$name.recv.err" &
	recv_pid=$!
	slowwait "$WAIT_TIMEOUT" grep -qs listening= "$LOG/$name.recv.err" ||
		check_err 1 "receiver did not start"
	rc=0
	ip netns exec "$SND" "$BUILD/gso-stream" send 192.0.2.2 5201 "$BYTES" --timeout 30 \
		>"$LOG/$name.send" 2>&1 || rc=$?
	check_eq "sender exit" "$rc" 0
	rc=0
	wait "$recv_pid" || rc=$?
	check_eq "receiver exit (content verified)" "$rc" 0
	capture_stop
	"$HIST" "$LOG/$name-tap.pcap" "$LOG/$name-nic.pcap" >"$LOG/$name.hist"
	LIVE=$("$HIST" --json "$LOG/$name-tap.pcap" "$LOG/$name-nic.pcap")
	echo "$LIVE" >"$LOG/$name.json"
}

# share_pct: the software-segmented share in whole percent.
share_pct() { jget "$LIVE" '.segmented_in_software.share * 100 | floor'; }

live_run limited 16000
check_eq "mss" "$(jget "$LIVE" .mss)" 1448
check_eq "malformed frames" "$(jget "$LIVE" '[.files[].malformed_frames] | add')" 0
for i in 0 1; do
	[ "$(jget "$LIVE" ".files[$i].payload_bytes")" -ge "$BYTES" ] ||
		check_err 1 "file $i: captured payload below the $BYTES bytes sent"
done
[ "$(jget "$LIVE" '.files[0].max_payload')" -gt 16000 ] ||
	check_err 1 "no GSO frame above 16000 bytes captured on the ingress port"
[ "$(jget "$LIVE" '.files[1].max_payload')" -lt 16000 ] ||
	check_err 1 "a frame of 16000 bytes or more left out0 (gso_max_size 16000)"
[ "$(share_pct)" -ge 80 ] ||
	check_err 1 "only $(share_pct)% segmented in software, expected >= 80%"
log_test "gso-hist: live, egress at gso_max_size 16000: $(share_pct)% segmented in software"

live_run default 65536
[ "$(jget "$LIVE" '.files[0].max_payload')" -gt 16000 ] ||
	check_err 1 "no GSO frame above 16000 bytes captured on the ingress port"
[ "$(share_pct)" -le 5 ] ||
	check_err 1 "$(share_pct)% segmented in software with default limits, expected <= 5%"
check_eq "same histograms" "$(jget "$LIVE" '[.histogram[] | select(.counts[0] != .counts[1])] | length')" 0
log_test "gso-hist: live, egress at default limits: histograms identical, nothing segmented"

tests_exit
