# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# The host daemon as a user runs it: gso-limitsd started inside the
# namespace that holds the taps, with no configuration.  It finds each
# tap's QEMU (the process holding it), that QEMU's -qmp socket (from its
# command line; the daemon uses it only because --qmp-socket lists the
# harness's sockets, vm.sh's NAME.qmp.sock, and only if that socket's
# server is the tap's holder) and the virtio-net device on the tap, computes the tap's
# host path limits (tools/lib/path_limits.c) and sets them with
# qom-set host_gso_max; it follows link events after that.
#
# The VMs it manages start with host_gso_max_segs=65535 (LIMITSD_NIC_PROPS):
# the feature offered, no limit until the daemon sets one.

# shellcheck disable=SC2034 # used by the tests that source this file
LIMITSD_NIC_PROPS=host_gso_max_segs=65535
LIMITSD=$GSO_TOP/tools/build/gso-limitsd

# limitsd_start NS: start the daemon inside NS; its log is
# $TEST_LOG_DIR/limitsd-NS.log.  Stopped at cleanup (and with NS).
limitsd_start() {
	local ns=$1 log=$TEST_LOG_DIR/limitsd-$1.log
	make -s -C "$GSO_TOP/tools" >&2 || return 1
	[ -x "$LIMITSD" ] || { echo "no $LIMITSD" >&2; return 1; }
	ip netns exec "$ns" "$LIMITSD" --control none --verbose \
		--qmp-socket "$TEST_LOG_DIR/*.qmp.sock" >"$log" 2>&1 &
	LIMITSD_PID=$!
	defer "kill $LIMITSD_PID 2>/dev/null"
	# Started: it runs and has said nothing fatal.
	kill -0 "$LIMITSD_PID" 2>/dev/null || { cat "$log" >&2; return 1; }
}

# limitsd_set_seen NS SIZE SEGS: the daemon's log says it set SIZE/SEGS.
limitsd_set_seen() {
	grep -q "set size $2 segs $3 " "$TEST_LOG_DIR/limitsd-$1.log"
}

# limitsd_alive: the daemon still runs (a test checks it at its end).
limitsd_alive() {
	kill -0 "$LIMITSD_PID" 2>/dev/null
}
