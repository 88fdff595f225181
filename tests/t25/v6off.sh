# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# t25-coverage.sh, case v6off (sourced by tests/t25-coverage.sh, with its
# helpers):
#   v6off   the IPv6 control: r8169 path, feature off: the guest's 65160-
#           byte IPv6 frames are segmented in software on nic0 (as S1-off
#           for IPv4), so the mq boot's IPv6 "0 bytes" is not vacuous.

# --- v6off -------------------------------------------------------------------
topo_tier1 r8169
bulk_run v6off $((16 << 20)) 6 ""
bulk_hist v6off
check_eq "stream verified" "$BULK_OK" 1
check_eq "guest tso_max_size (feature off)" "$(link_field "$BULK_GUEST_LINK" tso_max_size)" 65536
over=$(hist_oversize_bytes v6off 64000 86)
sw=$(hist_q v6off '.segmented_in_software.bytes')
[ "$over" -gt 0 ] || check_err 1 "the guest sent no IPv6 frame over 64000 bytes: no control"
awk -v s="$sw" -v o="$over" 'BEGIN { exit !(s >= 0.9 * o && s > 0) }' ||
	check_err 1 "only $sw of the $over oversize IPv6 bytes were segmented in software"
log_test "coverage v6off: IPv6, feature off: $sw bytes segmented in software (the control)"
defer_cleanup
