#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Smoke test of the harness (tier 1): the patched guest boots under the
# patched QEMU, its virtio-net link comes up behind tap0/br0/nic0, it
# reaches the wire peer over IPv4 and IPv6, and a TCP stream of 8 MiB
# crosses with byte count and content checksum verified on both ends.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/topo.sh
. "$GSO_TOP/tests/harness/topo.sh"

BYTES=$((8 << 20))
PORT=5201
vm_init

topo_tier1 e1000e
STREAM=$GSO_TOP/tools/build/gso-stream
ip netns exec "$PEER_NS" "$STREAM" recv -l "$PEER_IP4" --expect $BYTES --timeout 200 $PORT \
	> "$TEST_LOG_DIR/smoke.recv.log" 2>&1 &
recv_pid=$!
defer "kill $recv_pid"

script=$TEST_LOG_DIR/smoke.guest.sh
cat > "$script" <<GUEST
. /etc/gso-guest.sh
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
gcheck ping4 ping_until $PEER_IP4 || exit 1
gcheck ping6 ping_until $PEER_IP6 || exit 1
gso-stream send $PEER_IP4 $PORT $BYTES || exit 1
GUEST
mapfile -t nic < <(topo_guest_nic_args "")
rc=0
vm_run smoke "$HOST_NS" "$script" "${nic[@]}" || rc=$?
con=$TEST_LOG_DIR/smoke.console.log

grep -q 'guest: booted' "$con" ||
	check_err $? "no boot message on the console ($con)"
log_test "smoke: guest boots ($GSO_ACCEL)"

for c in link_up ping4 ping6; do
	grep -q "GUEST-CHECK: $c ok" "$con" ||
		check_err $? "guest check $c did not pass"
	log_test "smoke: $c"
done

wait $recv_pid ||
	check_err $? "receiver failed: $(cat "$TEST_LOG_DIR/smoke.recv.log")"
check_eq "guest exit code" "$rc" 0
recv_line=$(grep -o 'role=recv.*' "$TEST_LOG_DIR/smoke.recv.log" || true)
send_line=$(grep -o 'role=send.*' "$con" | tr -d '\r' || true)
recv_sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<< "$recv_line")
send_sum=$(sed -n 's/.*checksum=\([0-9a-f]*\).*/\1/p' <<< "$send_line")
check_eq "receiver byte count" "$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' <<< "$recv_line")" $BYTES
check_eq "content" "$(sed -n 's/.*content=\([a-z]*\).*/\1/p' <<< "$recv_line")" ok
{ [ -n "$send_sum" ] && [ "$send_sum" = "$recv_sum" ]; } ||
	check_err 1 "checksums differ: sender '$send_sum' receiver '$recv_sum'"
log_test "smoke: 8 MiB TCP stream, byte count and content verified"

tests_exit
