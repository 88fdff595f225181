#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Coverage of paths the scenario tests do not take (issue 15, item 6),
# in three boots of the tier-1 harness, each with captures on tap0 and
# nic0 and content-checked streams (gso-stream), one file per case
# (tests/t25/CASE.sh, run in this order, with the helpers below):
#   bigtcp  e1000e path, host_gso_max_size=70000 (a BIG TCP path's value)
#   mq      r8169 path, 4 queue pairs; then run-time cases through QMP
#           (hostile values, flapping, 32000/32) and a device reset
#   v6off   the IPv6 control: r8169 path, feature off
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
# shellcheck source=tests/harness/qmp.sh
. "$GSO_TOP/tests/harness/qmp.sh"
vm_init

STREAM=$GSO_TOP/tools/build/gso-stream
CON() { tr -d '\r' < "$TEST_LOG_DIR/$1.console.log" 2>/dev/null || true; }
# gval VM KEY: the value of the guest's last "KEY: value" line.
gval() { CON "$1" | sed -n "s/^$2: //p" | tail -n 1; }
# Kernel log lines (not our own lines) about the GSO limits: warnings.
warnings() {
	CON "$1" | grep -E '^\[ *[0-9]+\.[0-9]+\]' | grep -ciE 'virtio_net.*gso|gso.*limit' || true
}

# receiver VM PORT BYTES [-6]: a gso-stream receiver in the peer namespace.
receiver() {
	local addr=$PEER_IP4
	[ "${4:-}" = -6 ] && addr=$PEER_IP6
	# shellcheck disable=SC2086 # $4: the optional -6
	ip netns exec "$PEER_NS" "$STREAM" recv ${4:-} -l "$addr" --expect "$3" --timeout 280 "$2" \
		> "$TEST_LOG_DIR/$1.recv-$2.log" 2>&1 &
	defer "kill $! 2>/dev/null"
}
# stream_ok VM PORT BYTES: the receiver got BYTES intact and its checksum
# equals the one the guest printed for that port ("SEND-PORT: ...").
stream_ok() {
	local log=$TEST_LOG_DIR/$1.recv-$2.log send_sum recv_sum
	slowwait 60 grep -q 'status=' "$log" || { echo "    port $2: receiver did not finish"; return 1; }
	send_sum=$(gval "$1" "SEND-$2" | sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p')
	recv_sum=$(sed -n 's/.*role=recv.*checksum=\([0-9a-f]*\).*/\1/p' "$log")
	if grep -q "bytes=$3 .*content=ok .*status=ok" "$log" && [ -n "$send_sum" ] &&
		[ "$send_sum" = "$recv_sum" ]; then
		return 0
	fi
	printf '    port %s: %s / guest: %s\n' "$2" "$(tail -n 1 "$log")" "$(gval "$1" "SEND-$2")"
	return 1
}
# port_hist VM PORTS...: histograms of the given ports' streams, cut from
# VM's full captures; the result is named VM-pPORT1.
port_hist() {
	local vm=$1 f filter
	shift
	filter="tcp and (dst port $1"
	for p in "${@:2}"; do filter="$filter or dst port $p"; done
	filter="$filter)"
	for f in tap nic; do
		tcpdump -r "$TEST_LOG_DIR/$vm.$f.pcap" -w "$TEST_LOG_DIR/$vm-p$1.$f.pcap" "$filter" 2>/dev/null
	done
	# gso-hist refuses an empty capture: a failed check, and a histogram
	# of nothing for the checks that follow (each of them fails on it).
	if ! bulk_hist "$vm-p$1" 2> "$TEST_LOG_DIR/$vm-p$1.hist.err"; then
		check_err 1 "gso-hist on the captures of port $1: $(cat "$TEST_LOG_DIR/$vm-p$1.hist.err")"
		echo '{"mss":0,"files":[{"payload_bytes":0,"max_payload":0},{"payload_bytes":0}],"histogram":[],"segmented_in_software":{"bytes":null}}' \
			> "$TEST_LOG_DIR/$vm-p$1.hist.json"
	fi
}
# large_frames NAME: the tap's largest payload is above 32 MSS (so that a
# "0 bytes segmented" is about large GSO frames).
large_frames() {
	local mss max
	mss=$(hist_q "$1" '.mss') max=$(hist_q "$1" '.files[0].max_payload')
	[ "$max" -gt $((32 * mss)) ] ||
		check_err 1 "$1: largest tap payload $max is not above 32 MSS ($((32 * mss)))"
}
# captures VM PORTS...: tcpdump on tap0 and nic0 for these ports.
captures() {
	local vm=$1 ports
	shift
	ports=$(printf ' or dst port %s' "$@")
	ports=${ports# or dst port }
	BULK_PORT="$ports" capture_start "$vm.tap" tap0
	BULK_PORT="$ports" capture_start "$vm.nic" nic0
}
# finish VM: the guest's exit code, captures stopped (no drops).
finish() {
	local rc=0
	vm_wait "$1" || rc=$?
	capture_stop "$1.tap" || check_err 1 "the tap capture dropped packets"
	capture_stop "$1.nic" || check_err 1 "the nic capture dropped packets"
	check_eq "guest exit code" "$rc" 0
}

# The cases, in order; each ends with its cleanup (defer_cleanup).
# shellcheck source=tests/t25/bigtcp.sh
. "$GSO_TOP/tests/t25/bigtcp.sh"
# shellcheck source=tests/t25/mq.sh
. "$GSO_TOP/tests/t25/mq.sh"
# shellcheck source=tests/t25/v6off.sh
. "$GSO_TOP/tests/t25/v6off.sh"

tests_exit
