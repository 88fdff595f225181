#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The brief's acceptance scenarios through the tier-1 harness, each with
# captures on the tap and on the egress port and a content-checked stream:
#   S1  r8169 profile, feature off then on in the same run: off reproduces
#       seed 000 (egress dominated by MSS frames, bytes segmented in
#       software), on leaves 0 bytes segmented and identical histograms.
#   S2  e1000e profile: nothing changes, nothing is segmented.
#   S9  IPv6; and a path whose segment limit binds before its size limit
#       (custom:65536/16): the guest honours the segment limit, checked at
#       the tap (this machine's kernel does not enforce an egress port's
#       gso_max_segs on tap traffic, FACTS.md).  Where the host does
#       enforce it (tier 2, the project's kernel as host, with a feature-off
#       control that is segmented in software) is t61-vhost-qemu.sh.
# S8 (hostile values) is in t20-negotiation.sh.
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

# T30_SCENARIOS: which parts to run (default, make check: S1 S2 S9); each
# one left out is reported as a SKIP line.
SCENARIOS=" $(skip_unless_full T30_SCENARIOS "S1 S2 S9" "t30 scenario") "
want() { [[ $SCENARIOS == *" $1 "* ]]; }

BYTES=$((16 << 20))
ON_R8169="host_gso_max_size=64000,host_gso_max_segs=64"

# check_large_gso NAME: the tap carried real GSO frames, so that "0 bytes
# segmented in software" is a statement about large frames: the largest
# payload is above 32 MSS, and frames above 32 MSS carry at least a tenth
# of the tap's payload bytes (under a loaded TCG host the share swings:
# 34 % was seen in S2-on, 93 % in S1-on, 98 % in S2-off).  A guest that
# sent only small frames, e.g. with TSO off, would pass every other check
# of S1-on and S2 vacuously.
check_large_gso() {
	local mss max total large
	mss=$(hist_q "$1" '.mss')
	max=$(hist_q "$1" '.files[0].max_payload')
	total=$(hist_q "$1" '.files[0].payload_bytes')
	large=$(hist_q "$1" ".mss as \$m | [.histogram[] | select(.payload_size > 32 * \$m) |
		.payload_size * .counts[0]] | add // 0")
	LARGE_MAX=$max
	[ "$max" -gt $((32 * mss)) ] ||
		check_err 1 "largest tap payload $max is not above 32 MSS ($((32 * mss))): no large GSO frames"
	[ $((10 * large)) -ge "$total" ] ||
		check_err 1 "frames above 32 MSS carry $large of $total tap payload bytes (want at least a tenth)"
}

# S1 -----------------------------------------------------------------------
if want S1; then
	topo_tier1 r8169
	bulk_run s1-off $BYTES 4 ""
	bulk_hist s1-off
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_size (feature off)" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
	over=$(hist_oversize_bytes s1-off 64000)
	sw=$(hist_q s1-off '.segmented_in_software.bytes')
	share=$(hist_mss_frame_share s1-off 1)
	[ "$over" -gt 0 ] ||
		check_err 1 "the guest sent no frame over the 64000-byte limit: nothing to reproduce"
	awk -v s="$sw" -v o="$over" 'BEGIN { exit !(s >= 0.9 * o) }' ||
		check_err 1 "only $sw of the $over oversize bytes were segmented in software"
	# README and docs/results.md quote the tier-1 demo's 99.1 %
	# (DEMO_EGRESS=nsim make demo; seed 000:
	# 19101 of 20000 = 95.5 %): this is the check behind that figure,
	# with its tolerance, at least 90 % of the NIC's frames one MSS.
	share_pct=$(awk -v s="$share" 'BEGIN { printf "%.1f", s * 100 }')
	awk -v s="$share" 'BEGIN { exit !(s >= 0.9) }' ||
		check_err 1 "only $share_pct % of NIC frames carry one MSS (want >= 90 %, seed 000: 95.5 %)"
	log_test "S1 r8169, feature off: seed 000 reproduced ($sw bytes segmented in software, $share_pct % of NIC frames one MSS, want >= 90 %)"

	bulk_run s1-on $BYTES 4 "$ON_R8169"
	bulk_hist s1-on
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 64000
	check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 64
	check_eq "bytes segmented in software" "$(hist_q s1-on '.segmented_in_software.bytes')" 0
	check_eq "tap bytes in frames over the limit" "$(hist_oversize_bytes s1-on 64000)" 0
	hist_identical s1-on ||
		check_err $? "tap and egress histograms differ"
	check_eq "egress payload bytes equal tap payload bytes" \
		"$(hist_q s1-on '.files[1].payload_bytes')" "$(hist_q s1-on '.files[0].payload_bytes')"
	check_large_gso s1-on
	log_test "S1 r8169, feature on: 64000/64 applied, large frames (max $LARGE_MAX), 0 bytes segmented in software"
	defer_cleanup
fi

# S2 -----------------------------------------------------------------------
if want S2; then
	topo_tier1 e1000e
	for mode in off on; do
		props=""
		[ $mode = on ] && props="host_gso_max_size=65536,host_gso_max_segs=65535"
		bulk_run "s2-$mode" $BYTES 4 "$props"
		bulk_hist "s2-$mode"
		check_eq "stream verified" "$BULK_OK" 1
		check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
		check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 65535
		check_eq "bytes segmented in software" "$(hist_q "s2-$mode" '.segmented_in_software.bytes')" 0
		hist_identical "s2-$mode" ||
			check_err $? "tap and egress histograms differ"
		check_large_gso "s2-$mode"
		log_test "S2 e1000e, feature $mode: defaults kept, large frames (max $LARGE_MAX), nothing segmented"
	done
	defer_cleanup
fi

# S9 -----------------------------------------------------------------------
if want S9; then
	topo_tier1 r8169
	bulk_run s9-v6 $BYTES 6 "$ON_R8169"
	bulk_hist s9-v6
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "bytes segmented in software" "$(hist_q s9-v6 '.segmented_in_software.bytes')" 0
	check_eq "tap bytes in frames over the limit" "$(hist_oversize_bytes s9-v6 64000 86)" 0
	hist_identical s9-v6 ||
		check_err $? "tap and egress histograms differ"
	[ "$(hist_q s9-v6 '.files[0].max_payload')" -gt 30000 ] ||
		check_err 1 "IPv6: no large GSO frames on the tap"
	log_test "S9 IPv6 over r8169, feature on: large frames, 0 bytes segmented"
	defer_cleanup

	topo_tier1 custom:65536/16
	bulk_run s9-segs $BYTES 4 "host_gso_max_segs=16"
	bulk_hist s9-segs
	check_eq "stream verified" "$BULK_OK" 1
	check_eq "guest tso_max_segs" "$(link_field "$BULK_GUEST_LINK" tso_max_segs)" 16
	check_eq "guest tso_max_size" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
	mss=$(hist_q s9-segs '.mss')
	tap_max=$(hist_q s9-segs '.files[0].max_payload')
	{ [ "$tap_max" -le $((16 * mss)) ] && [ "$tap_max" -gt $((8 * mss)) ]; } ||
		check_err 1 "largest tap frame $tap_max bytes: want at most 16 segments of $mss (and GSO in use)"
	# No "0 bytes segmented" here: this machine's kernel never enforces
	# the egress port's gso_max_segs on tap traffic (FACTS.md), so the
	# figure would be 0 with the feature off as well.  The host side of
	# the segment limit, with a feature-off control that is cut, is t61.
	log_test "S9 segment limit binds first (16 segs): guest frames <= 16 x MSS ($tap_max)"
	defer_cleanup
fi

tests_exit
