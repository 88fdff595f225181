#!/usr/bin/env bash
# Run the project's tests and print one closing line:
#   N passed, N failed, N skipped
#
#   tests/run.sh [TEST...]      (default: every test in ALL_TESTS)
#
# Each test is a script speaking the protocol of tests/lib.sh: one
# "TEST: name [ OK ]|[FAIL]|[SKIP]" line per check, exit 0/1/4.  A script
# that fails without reporting a failed check counts as one failure, so a
# crash can never pass.  The root network namespace is fingerprinted
# before and after the run: any difference is a failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# Cheap tests first, so a broken tree fails fast.
ALL_TESTS=(
	tests/t00-static.sh
	tests/t01-series.sh
	tests/tools-*.sh
	tests/qemu-qtest.sh
	tests/t10-smoke.sh
	tests/t15-kunit.sh
	tests/t20-negotiation.sh
	tests/t30-scenarios.sh
	tests/t35-runtime.sh
	tests/t40-doctor-guest.sh
	tests/t50-compat.sh
	tests/t55-migration.sh
	tests/t60-vhost-selftest.sh
	tests/t61-vhost-qemu.sh
)

if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=()
	for t in "${ALL_TESTS[@]}"; do
		[ -e "$t" ] && tests+=("$t")
	done
fi

export TEST_LOG_DIR=${TEST_LOG_DIR:-$GSO_CACHE/logs/run-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$TEST_LOG_DIR"
echo "logs: $TEST_LOG_DIR"

# The fingerprint comes from tests/lib.sh, in a subshell so that its
# EXIT trap stays out of the runner.
fingerprint() { bash -c '. tests/lib.sh; root_ns_fingerprint' 2>/dev/null; }
before=$(fingerprint)

passed=0 failed=0 skipped=0
run_start=$(date +%s)
for t in "${tests[@]}"; do
	name=${t##*/}
	echo "=== $name"
	start=$(date +%s)
	out=$TEST_LOG_DIR/${name%.sh}.out
	bash "$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^TEST: .*\[ OK \]' "$out")
	f=$(grep -c '^TEST: .*\[FAIL\]' "$out")
	s=$(grep -c '^TEST: .*\[SKIP\]' "$out")
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		echo "TEST: $name exited with status $rc without reporting a failure [FAIL]"
		f=$((f + 1))
	fi
	if [ "$rc" -eq 4 ] && [ "$p$f$s" = 000 ]; then
		s=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "=== $name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start )) s)"
done

after=$(fingerprint)
if [ "$before" = "$after" ]; then
	echo "TEST: root network namespace unchanged by the run [ OK ]"
	passed=$((passed + 1))
else
	echo "TEST: root network namespace unchanged by the run [FAIL]"
	diff <(echo "$before") <(echo "$after") | head -n 20
	failed=$((failed + 1))
fi
echo "total time $(( $(date +%s) - run_start )) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
