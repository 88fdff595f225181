#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The tools' libFuzzer harnesses (tools/fuzz/fuzz-*.c, `make -C tools fuzz`,
# clang with ASan + UBSan): for each harness, every input of its committed
# corpus (tools/fuzz/corpus/<harness>/: hand-made seeds and the inputs of
# every crash found, kept as regressions) must run clean, then a short
# fuzzing run from that corpus must find nothing.  The run's new inputs
# go to a scratch directory: the committed corpus changes only by hand.
# FUZZ_SECONDS (default 6) bounds each run: fourteen harnesses, about two
# minutes.
# docs/fuzzing.md has a long run's figures and how to reproduce a crash.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

TOOLS=$GSO_TOP/tools
LOG=$TEST_LOG_DIR/tools-fuzz
FUZZ_SECONDS=${FUZZ_SECONDS:-6}
mkdir -p "$LOG"
require_command clang "the fuzz harnesses"

make -s -C "$TOOLS" fuzz >"$LOG/make.log" 2>&1 || {
	log_test "fuzz harnesses build (clang, -Werror)" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }
log_test "fuzz harnesses build (clang, -Werror)"

mapfile -t harnesses < <(find "$TOOLS/fuzz" -maxdepth 1 -name 'fuzz-*.c' -printf '%f\n' |
	sed 's/\.c$//' | sort)
[ "${#harnesses[@]}" -gt 0 ] || { log_test "fuzz harnesses" FAIL "none found"; exit "$ksft_fail"; }

scratch=$(mktemp -d)
defer "rm -rf '$scratch'"
for h in "${harnesses[@]}"; do
	bin=$TOOLS/build-fuzz/$h
	corpus=$TOOLS/fuzz/corpus/$h
	if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
		log_test "fuzz: $h" FAIL "no committed corpus in $corpus"
		continue
	fi
	# libFuzzer writes crash-*, leak-*, timeout-* to the artifact prefix.
	common=(-artifact_prefix="$LOG/$h-" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
	rc=0
	"$bin" "${common[@]}" -runs=0 "$corpus" >"$LOG/$h.replay.log" 2>&1 || rc=$?
	check_eq "$h on its committed corpus ($LOG/$h.replay.log)" "$rc" 0
	mkdir "$scratch/$h"
	rc=0
	"$bin" "${common[@]}" -max_total_time="$FUZZ_SECONDS" "$scratch/$h" "$corpus" \
		>"$LOG/$h.run.log" 2>&1 || rc=$?
	check_eq "$h fuzzed for ${FUZZ_SECONDS} s ($LOG/$h.run.log)" "$rc" 0
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG/$h.run.log")
	found=$(find "$LOG" -maxdepth 1 -name "$h-*" | head -3 | tr '\n' ' ')
	[ -z "$found" ] || check_err 1 "$h: findings: $found"
	log_test "fuzz: $h (${runs:-?} runs, corpus $(find "$corpus" -type f | wc -l))"
done

tests_exit
