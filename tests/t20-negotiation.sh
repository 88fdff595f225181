#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 3, through the harness: the patched guest on the patched QEMU
# applies the limits the device offers (explicit properties), keeps
# today's values when none are offered, takes values at or above its own
# maximum as that maximum without a warning, ignores the limits without a
# host TSO/USO feature, and survives hostile values with one warning while
# traffic keeps flowing (content-checked).
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

BYTES=$((4 << 20))
# Kernel log lines (not our own GUEST-* lines) that mention the limits.
warnings() {
	grep -E '^\[ *[0-9]+\.[0-9]+\]' "$TEST_LOG_DIR/$1.console.log" |
		grep -ciE 'virtio_net.*gso|gso.*limit' || true
}

# case NAME PROPS WANT_TSO_SIZE WANT_TSO_SEGS WANT_WARNINGS
run_case() {
	local name=$1 props=$2 size=$3 segs=$4 nwarn=$5
	topo_tier1 e1000e
	bulk_run "neg-$name" $BYTES 4 "$props"
	check_eq "tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" "$size"
	check_eq "tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" "$segs"
	check_eq "gso_max_size follows" "$(link_field "$BULK_GUEST_LINK" gso_max_size)" "$size"
	check_eq "gso_max_segs follows" "$(link_field "$BULK_GUEST_LINK" gso_max_segs)" "$segs"
	check_eq "driver warnings" "$(warnings "neg-$name")" "$nwarn"
	[ "$BULK_OK" = 1 ] ||
		check_err 1 "the 4 MiB stream was not verified on both ends"
	log_test "negotiation: $name ($props) -> $size/$segs, $nwarn warning(s), traffic ok"
	defer_cleanup
}

run_case explicit "host_gso_max_size=64000,host_gso_max_segs=64" 64000 64 0
run_case none "" 65536 65535 0
run_case size-only "host_gso_max_size=48000" 48000 65535 0
run_case hostile-size0 "x-gso-limits-unchecked=on,host_gso_max_size=0,host_gso_max_segs=64" 65536 65535 1
run_case hostile-tiny "x-gso-limits-unchecked=on,host_gso_max_size=100,host_gso_max_segs=64" 65536 65535 1
# Issue 12 item 1: gso_max_size is an exclusive bound; a value at or above
# the driver's own maximum (65536), such as 0xffffffff ("no size limit") or
# a BIG TCP path's, is that maximum, without a warning.
run_case above-driver-max "x-gso-limits-unchecked=on,host_gso_max_size=70000,host_gso_max_segs=64" 65536 64 0
run_case no-size-limit "x-gso-limits-unchecked=on,host_gso_max_size=4294967295,host_gso_max_segs=64" 65536 64 0
# Issue 12 item 7: the limits mean something only with a host TSO/USO
# feature; without one the driver does not accept the feature.
run_case no-host-tso "x-gso-limits-unchecked=on,host_tso4=off,host_tso6=off,host_uso=off,host_gso_max_size=64000,host_gso_max_segs=64" 65536 65535 0
run_case hostile-segs0 "x-gso-limits-unchecked=on,host_gso_max_size=64000,host_gso_max_segs=0" 65536 65535 1

tests_exit
