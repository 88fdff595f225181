#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# gso-stream between two private network namespaces over a veth pair:
# IPv4 and IPv6 transfers verify byte count, content and checksum on both
# ends; a wrong seed, a short stream, a missing sender and a bad command
# line each fail with the documented status.  Also checks that the binary
# is static, as the busybox guest needs.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

STREAM=$GSO_TOP/tools/build/gso-stream
PORT=5201
BYTES=$((8 << 20))
LOG=$TEST_LOG_DIR/tools-stream
mkdir -p "$LOG"

make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit $ksft_fail; }

setup_ns SND RCV
ip link add veth-snd netns "$SND" type veth peer name veth-rcv netns "$RCV"
ip -n "$SND" addr add 192.0.2.1/24 dev veth-snd
ip -n "$RCV" addr add 192.0.2.2/24 dev veth-rcv
ip -n "$SND" addr add 2001:db8::1/64 dev veth-snd nodad
ip -n "$RCV" addr add 2001:db8::2/64 dev veth-rcv nodad
ip -n "$SND" link set veth-snd up
ip -n "$RCV" link set veth-rcv up

# value KEY LINE: the value of KEY=... in a gso-stream result line.
value() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# transfer NAME RECV_ARGS -- SEND_ARGS: run one receiver and one sender;
# leaves the result lines in RECV_LINE/SEND_LINE, exit codes in *_RC.
transfer() {
	local name=$1 recv_pid recv_args=() send_args=()
	shift
	while [ "$1" != -- ]; do recv_args+=("$1"); shift; done
	shift
	send_args=("$@")
	ip netns exec "$RCV" "$STREAM" recv "${recv_args[@]}" \
		>"$LOG/$name.recv" 2>"$LOG/$name.recv.err" &
	recv_pid=$!
	if ! slowwait "$WAIT_TIMEOUT" grep -qs listening= "$LOG/$name.recv.err"; then
		kill "$recv_pid" 2>/dev/null || true
	fi
	SEND_RC=0
	ip netns exec "$SND" "$STREAM" send "${send_args[@]}" \
		>"$LOG/$name.send" 2>"$LOG/$name.send.err" || SEND_RC=$?
	RECV_RC=0
	wait "$recv_pid" || RECV_RC=$?
	SEND_LINE=$(cat "$LOG/$name.send")
	RECV_LINE=$(cat "$LOG/$name.recv")
}

# A good transfer: both exit 0, status=ok, equal counts and checksums.
check_good_transfer() {
	check_eq "sender exit" "$SEND_RC" 0
	check_eq "receiver exit" "$RECV_RC" 0
	check_eq "sender status" "$(value status "$SEND_LINE")" ok
	check_eq "receiver status" "$(value status "$RECV_LINE")" ok
	check_eq "receiver content" "$(value content "$RECV_LINE")" ok
	check_eq "bytes sent" "$(value bytes "$SEND_LINE")" "$BYTES"
	check_eq "bytes received" "$(value bytes "$RECV_LINE")" "$BYTES"
	check_eq "checksums" "$(value checksum "$RECV_LINE")" "$(value checksum "$SEND_LINE")"
}

transfer ipv4 -l 192.0.2.2 --expect "$BYTES" --seed 11 --timeout 30 "$PORT" -- \
	192.0.2.2 "$PORT" "$BYTES" --seed 11 --timeout 30
check_good_transfer
log_test "gso-stream IPv4: $BYTES bytes, content and checksum match"

transfer ipv6 -6 -l 2001:db8::2 --expect "$BYTES" --seed 12 --timeout 30 "$PORT" -- \
	-6 2001:db8::2 "$PORT" "$BYTES" --seed 12 --timeout 30
check_good_transfer
log_test "gso-stream IPv6: $BYTES bytes, content and checksum match"

# The same seed must give the same stream: the checksum is reproducible.
first_sum=$(value checksum "$RECV_LINE")
transfer ipv6-again -6 --expect "$BYTES" --seed 12 --timeout 30 "$PORT" -- \
	-6 2001:db8::2 "$PORT" "$BYTES" --seed 12 --timeout 30
check_good_transfer
check_eq "checksum of a repeated seed" "$(value checksum "$RECV_LINE")" "$first_sum"
log_test "gso-stream: same seed, same checksum (wildcard listen)"

transfer wrong-seed --expect 1000000 --seed 1 --timeout 30 "$PORT" -- \
	192.0.2.2 "$PORT" 1000000 --seed 2 --timeout 30
check_eq "receiver exit" "$RECV_RC" 1
check_eq "receiver status" "$(value status "$RECV_LINE")" mismatch
check_eq "receiver content" "$(value content "$RECV_LINE")" mismatch
check_eq "first mismatch" "$(value first_mismatch "$RECV_LINE")" 0
log_test "gso-stream: a different stream is reported as content=mismatch"

transfer short --expect 1000001 --timeout 30 "$PORT" -- \
	192.0.2.2 "$PORT" 1000000 --timeout 30
check_eq "receiver exit" "$RECV_RC" 1
check_eq "receiver status" "$(value status "$RECV_LINE")" short
check_eq "receiver content" "$(value content "$RECV_LINE")" ok
log_test "gso-stream: fewer bytes than --expect is status=short"

RECV_RC=0
start=$(date +%s)
ip netns exec "$RCV" "$STREAM" recv --timeout 1 "$PORT" >"$LOG/timeout.recv" \
	2>"$LOG/timeout.recv.err" || RECV_RC=$?
check_eq "receiver exit" "$RECV_RC" 1
check_eq "receiver status" "$(value status "$(cat "$LOG/timeout.recv")")" timeout
# The claim is that --timeout ends the wait, not how fast under load: a
# bound far above 1 s (a receiver that ignored it would wait forever).
[ $(( $(date +%s) - start )) -le 30 ] || check_err 1 "a 1 s timeout took more than 30 s"
log_test "gso-stream: no sender ends in status=timeout within --timeout"

rc=0
"$STREAM" send 192.0.2.2 "$PORT" >/dev/null 2>"$LOG/usage.err" || rc=$?
check_eq "exit code of a usage error" "$rc" 1
grep -q '^usage: gso-stream send' "$LOG/usage.err" ||
	check_err 1 "usage error does not print the expected format"
rc=0
"$STREAM" send 2001:db8::2 "$PORT" 10 >/dev/null 2>"$LOG/usage6.err" || rc=$?
check_eq "exit code of an IPv6 host without -6" "$rc" 1
grep -q 'use -6 for IPv6' "$LOG/usage6.err" ||
	check_err 1 "IPv6 host without -6 does not point to -6"
log_test "gso-stream: usage errors state the expected format"

# ldd says "not a dynamic executable" and fails for a static binary.
if ldd "$STREAM" >/dev/null 2>&1; then
	check_err 1 "$STREAM is dynamically linked"
fi
log_test "gso-stream is statically linked"

tests_exit
