#!/usr/bin/env bash
# The tools' unit tests (tools/test/test-*.c, built by `make -C tools check`):
# one TEST line per test program, failing if it exits non-zero or prints a
# FAIL line.  No root, no network: the library's pure parts only.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

TOOLS=$GSO_TOP/tools
LOG=$TEST_LOG_DIR/tools-unit
mkdir -p "$LOG"

make -s -C "$TOOLS" all >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

mapfile -t sources < <(cd "$TOOLS/test" && ls test-*.c)
[ "${#sources[@]}" -gt 0 ] || { log_test "tools unit tests" SKIP "none found"; exit "$ksft_skip"; }

for src in "${sources[@]}"; do
	name=${src%.c}
	rc=0
	make -s -C "$TOOLS" "build/$name" >>"$LOG/make.log" 2>&1 || rc=$?
	check_eq "build of $name" "$rc" 0
	if [ "$rc" = 0 ]; then
		rc=0
		"$TOOLS/build/$name" >"$LOG/$name.log" 2>&1 || rc=$?
		check_eq "exit code of $name" "$rc" 0
		! grep -q '^FAIL' "$LOG/$name.log" ||
			check_err 1 "$(grep '^FAIL' "$LOG/$name.log" | head -3)"
	fi
	log_test "tools unit: $name ($(grep -c '^ok' "$LOG/$name.log" 2>/dev/null || echo 0) checks)"
done

tests_exit
