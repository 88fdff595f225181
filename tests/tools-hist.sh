#!/usr/bin/env bash
# gso-hist on captures with known contents.  pcap-synth writes header-only
# captures (as tcpdump -s 200 stores them) of seed 000's two cases and of
# edge cases, and every number gso-hist prints is checked: the table, the
# per-file summaries, the MSS guess, the bytes segmented in software, the
# JSON and the plot data.  Then a live capture: tcpdump -s 200 on a veth
# at gso_max_size 16000 during a gso-stream transfer must show GSO frames
# of at most that size carrying every byte sent.
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
"$SYNTH" "$LOG/on-tap.pcap" tcp4:62264:877 tcp4:2896:663 tcp4:59368:33 tcp4:1448:5
"$SYNTH" "$LOG/on-nic.pcap" tcp4:62264:877 tcp4:2896:663 tcp4:59368:33 tcp4:1448:5
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
"$SYNTH" "$LOG/big.pcap" tcp4:65160:3
rc=0
"$HIST" "$LOG/big.pcap" >/dev/null 2>"$LOG/nomss.err" || rc=$?
check_eq "exit code without a guessable MSS" "$rc" 1
grep -q 'give --mss N' "$LOG/nomss.err" || check_err 1 "no hint to give --mss"
rc=0
"$HIST" --mss 0 "$LOG/big.pcap" >/dev/null 2>"$LOG/usage.err" || rc=$?
check_eq "exit code for --mss 0" "$rc" 1
grep -q '^usage: gso-hist' "$LOG/usage.err" || check_err 1 "usage not printed"
log_test "gso-hist: missing file, unguessable MSS, bad option fail loudly"

# --- live: GSO frames captured with a 200-byte snap length.
if ! command -v tcpdump >/dev/null 2>&1; then
	log_test "gso-hist: live capture of GSO frames on a veth" SKIP "tcpdump not installed"
	tests_exit
fi
BYTES=$((4 << 20))
setup_ns SND RCV
ip link add veth-snd netns "$SND" type veth peer name veth-rcv netns "$RCV"
ip -n "$SND" addr add 192.0.2.1/24 dev veth-snd
ip -n "$RCV" addr add 192.0.2.2/24 dev veth-rcv
ip -n "$SND" link set dev veth-snd gso_max_size 16000 up
ip -n "$RCV" link set dev veth-rcv up
ip netns exec "$SND" tcpdump -i veth-snd -s 200 -w "$LOG/live.pcap" -U --immediate-mode \
	tcp and dst port 5201 >"$LOG/tcpdump.log" 2>&1 &
tcpdump_pid=$!
defer "kill $tcpdump_pid"
slowwait "$WAIT_TIMEOUT" grep -qs 'listening on' "$LOG/tcpdump.log" ||
	check_err 1 "tcpdump did not start"
ip netns exec "$RCV" "$BUILD/gso-stream" recv --expect "$BYTES" --timeout 30 5201 \
	>"$LOG/live.recv" 2>"$LOG/live.recv.err" &
recv_pid=$!
slowwait "$WAIT_TIMEOUT" grep -qs listening= "$LOG/live.recv.err" ||
	check_err 1 "receiver did not start"
rc=0
ip netns exec "$SND" "$BUILD/gso-stream" send 192.0.2.2 5201 "$BYTES" --timeout 30 \
	>"$LOG/live.send" 2>&1 || rc=$?
check_eq "sender exit" "$rc" 0
rc=0
wait "$recv_pid" || rc=$?
check_eq "receiver exit" "$rc" 0
kill -INT "$tcpdump_pid"
rc=0
wait "$tcpdump_pid" || rc=$?
json=$("$HIST" --json --mss 1448 "$LOG/live.pcap")
echo "$json" >"$LOG/live.out"
max=$(jget "$json" '.files[0].max_payload')
bytes=$(jget "$json" '.files[0].payload_bytes')
[ "$max" -gt 1448 ] || check_err 1 "no GSO frame captured (max payload $max)"
[ "$max" -le 16000 ] || check_err 1 "frame of $max bytes above gso_max_size 16000"
[ "$bytes" -ge "$BYTES" ] || check_err 1 "captured payload $bytes < $BYTES sent"
check_eq "malformed frames" "$(jget "$json" '.files[0].malformed_frames')" 0
log_test "gso-hist: live capture of GSO frames on a veth (max payload $max)"

tests_exit
