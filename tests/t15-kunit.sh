#!/usr/bin/env bash
# The guest driver's KUnit suite (virtio_net_gso_limits), built into the
# project kernel, runs at boot; this test boots the kernel once and turns
# the suite's KTAP output on the console into TEST lines.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
vm_init

SUITE=virtio_net_gso_limits
setup_ns KNS
script=$TEST_LOG_DIR/kunit.guest.sh
echo 'exit 0' > "$script"
rc=0
VM_APPEND="loglevel=7 kunit.filter_glob=$SUITE" vm_run kunit "$KNS" "$script" || rc=$?
con=$TEST_LOG_DIR/kunit.console.log
check_eq "guest exit code" "$rc" 0
log_test "kunit: the kernel boots with the suite built in"

# KTAP: "    # Subtest: virtio_net_gso_limits" ... "ok N case # SKIP" at one
# indent deeper, and "ok N virtio_net_gso_limits" closing the suite.
ktap=$(sed 's/^\[ *[0-9.]*\] //' "$con" | tr -d '\r' |
	awk -v s="$SUITE" '$0 ~ "# Subtest: " s "$" { on = 1 } on { print }
		on && $0 ~ "^ *(not )?ok [0-9]+ " s "$" { exit }')
if [ -z "$ktap" ]; then
	log_test "kunit: suite $SUITE ran" FAIL "no KTAP output for it on the console ($con)"
	tests_exit
fi
printf '%s\n' "$ktap" > "$TEST_LOG_DIR/kunit.ktap"
# Leaf results: parameterised cases print one line per parameter.
while IFS= read -r line; do
	name=$(sed -E 's/^ *(not )?ok [0-9]+ //; s/ # .*//' <<< "$line")
	case "$line" in
	*"# SKIP"*) log_test "kunit: $name" SKIP ;;
	*"not ok"*) log_test "kunit: $name" FAIL ;;
	*) log_test "kunit: $name" OK ;;
	esac
done < <(grep -E '^ +(not )?ok [0-9]+ ' <<< "$ktap" | grep -vE "ok [0-9]+ $SUITE$")
grep -qE "^ *ok [0-9]+ $SUITE$" <<< "$ktap" || check_err 1 "the suite did not end with ok"
log_test "kunit: suite $SUITE passed as a whole"
tests_exit
