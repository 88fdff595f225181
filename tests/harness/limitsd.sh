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

# --- tests/tools-daemon*.sh: the daemon in namespaces, no VM ---------------
# These tests run gso-limitsd against QMP stand-ins (tools/test/qmp-standin.c)
# or a QEMU started by the test; they share their start.

# limitsd_tools_setup NAME [COMMAND WHY]...: the start every tools-daemon
# test shares.  Sets LIMITSD (GSO_LIMITSD: another build of the daemon),
# STANDIN (the QMP stand-in) and LOG=$TEST_LOG_DIR/NAME; requires jq (and
# each COMMAND, WHY naming the check that needs it); builds the tools.  A
# missing command or a failed build: a FAIL line and the script exits.
# shellcheck disable=SC2154 # ksft_fail: tests/lib.sh
limitsd_tools_setup() {
	# shellcheck disable=SC2034 # used by the tests that call this
	LIMITSD=${GSO_LIMITSD:-$GSO_TOP/tools/build/gso-limitsd}
	# shellcheck disable=SC2034
	STANDIN=$GSO_TOP/tools/build/qmp-standin
	LOG=$TEST_LOG_DIR/$1
	shift
	mkdir -p "$LOG"
	require_command jq "gso-limitsd"
	while [ $# -ge 2 ]; do
		require_command "$1" "$2"
		shift 2
	done
	make -s -C "$GSO_TOP/tools" >"$LOG/make.log" 2>&1 || {
		log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }
}

# limitsd_tools_ns NAME VAR...: the test's namespaces (setup_ns VAR...) and
# S, a short private directory (/tmp/gso-limitsd-NAME.XXXXXX: a unix
# socket's path must fit in 108 bytes) for the QMP sockets, pid files and
# control socket; removed at exit.
limitsd_tools_ns() {
	local name=$1
	shift
	setup_ns "$@"
	S=$(mktemp -d "/tmp/gso-limitsd-$name.XXXXXX")
	defer rm -rf "$S"
}

# limitsd_standin_virsh: $S/virsh, a stand-in for the daemon's only use of
# virsh, `virsh qemu-monitor-command --pretty -- UUID JSON`.  The domain is
# the one whose stand-in status file $S/libvirt/NAME.xml holds
# <uuid>UUID</uuid>, reached at $S/NAME.sock through $STANDIN --client.
# Other arguments fail, a domain given by name or ID included (the real
# virsh takes "7" as ID 7, whatever domain is named 7); a command with an
# "id" is refused as libvirt does (libvirt adds its own).
limitsd_standin_virsh() {
	cat >"$S/virsh" <<EOF
#!/bin/bash
set -euo pipefail
[ \$# = 5 ] && [ "\$1" = qemu-monitor-command ] && [ "\$2" = --pretty ] && [ "\$3" = -- ] ||
	{ echo "virsh stand-in: not 'qemu-monitor-command --pretty -- UUID JSON': \$*" >&2; exit 1; }
[[ "\$4" =~ ^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}\$ ]] ||
	{ echo "error: failed to get domain '\$4' (the stand-in takes UUIDs only)" >&2; exit 1; }
file=\$(grep -l "<uuid>\$4</uuid>" "$S"/libvirt/*.xml) ||
	{ echo "error: failed to get domain '\$4'" >&2; exit 1; }
case "\$5" in *'"id"'*)
	echo "error: internal error: Unable to append command 'id' string" >&2; exit 1;;
esac
exec "$STANDIN" --client "$S/\$(basename "\$file" .xml).sock" "\$5"
EOF
	chmod +x "$S/virsh"
}

# limitsd_qemu_interface QEMU: which run-time GSO limits interface QEMU's
# virtio-net-pci has, in QEMU_GSO_IFACE: v3 (host_gso_max and the
# host_gso_limits feature, on by default for new machine types) or v2
# (host-gso-limits, offered only with host_gso_max_*); the daemon speaks
# both.  A QEMU with neither: a FAIL line and the script exits.
# shellcheck disable=SC2154 # ksft_fail: tests/lib.sh
limitsd_qemu_interface() {
	local props
	props=$("$1" -device virtio-net-pci,help 2>/dev/null)
	if grep -q 'host_gso_max=' <<<"$props" && grep -q 'host_gso_limits=' <<<"$props"; then
		QEMU_GSO_IFACE=v3
	elif grep -q 'host-gso-limits' <<<"$props"; then
		QEMU_GSO_IFACE=v2
	else
		log_test "QEMU has the run-time GSO limits property" FAIL "$1: qemu-patches/ without it"
		exit "$ksft_fail"
	fi
}
