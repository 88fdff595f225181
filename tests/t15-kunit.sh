#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel series' KUnit suites, built into the project kernel, run at
# boot: virtio_net_gso_limits (the driver's checks of the values a device
# reports), netif_change_tso_max (sequences of device limit changes and
# user settings end at the table's values; on registered devices, one
# event per device and one route generation bump per change),
# vdpa_net_config (the vDPA core reads a net device's config space only
# as far as the device implements it: a 24-byte device as pds, octeon_ep
# and eni, a 12-byte one, a full one) and net_core (net/core/net_test.c:
# skb_segment() and kernel-split-patches/' skb_gso_split() on frag
# layouts, heads, frag_list, BIG TCP).  This test boots the kernel once,
# with panic_on_warn=1, and turns each suite's KTAP output on the console
# into TEST lines.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
vm_init

SUITES=(virtio_net_gso_limits netif_change_tso_max vdpa_net_config net_core)
setup_ns KNS
script=$TEST_LOG_DIR/kunit.guest.sh
echo 'exit 0' > "$script"
rc=0
# No filter: the kernel builds in no suites but the series' own.
VM_APPEND="loglevel=7 panic_on_warn=1" vm_run kunit "$KNS" "$script" || rc=$?
con=$TEST_LOG_DIR/kunit.console.log
check_eq "guest exit code" "$rc" 0
log_test "kunit: the kernel boots with the suites built in"

for suite in "${SUITES[@]}"; do
	# KTAP: "    # Subtest: SUITE" ... "ok N case # SKIP" at one indent
	# deeper, and "ok N SUITE" closing the suite.
	ktap=$(sed 's/^\[ *[0-9.]*\] //' "$con" | tr -d '\r' |
		awk -v s="$suite" '$0 ~ "# Subtest: " s "$" { on = 1 } on { print }
			on && $0 ~ "^ *(not )?ok [0-9]+ " s "$" { exit }')
	if [ -z "$ktap" ]; then
		log_test "kunit: suite $suite ran" FAIL "no KTAP output for it on the console ($con)"
		continue
	fi
	printf '%s\n' "$ktap" > "$TEST_LOG_DIR/kunit-$suite.ktap"
	# Leaf results: parameterised cases print one line per parameter.
	while IFS= read -r line; do
		name=$(sed -E 's/^ *(not )?ok [0-9]+ //; s/ # .*//' <<< "$line")
		case "$line" in
		# The series' cases need nothing the kernel may lack: a case
		# that skips did not run, and that is a failure here.
		*"# SKIP"*) log_test "kunit: $suite: $name" FAIL "skipped:${line##*# SKIP}" ;;
		*"not ok"*) log_test "kunit: $suite: $name" FAIL ;;
		*) log_test "kunit: $suite: $name" OK ;;
		esac
	done < <(grep -E '^ +(not )?ok [0-9]+ ' <<< "$ktap" | grep -vE "ok [0-9]+ $suite$")
	grep -qE "^ *ok [0-9]+ $suite$" <<< "$ktap" || check_err 1 "the suite did not end with ok"
	log_test "kunit: suite $suite passed as a whole"
done
tests_exit
