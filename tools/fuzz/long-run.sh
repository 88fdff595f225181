#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One long fuzzing run of every harness, for the figures in docs/fuzzing.md:
#
#   tools/fuzz/long-run.sh [SECONDS_PER_HARNESS] [OUT_DIR]   (default 40 s, a temp dir)
#
# Builds `make -C tools fuzz`, then runs each tools/build-fuzz/fuzz-* for the
# given time from a scratch copy of its committed corpus (the corpus in git
# is not touched), one harness after the other (one core), and prints one
# Markdown table row per harness: runs, runs per second, edges covered
# (libFuzzer's cov:), features (ft:), corpus size at the end, functions of
# tools/ reached (-print_coverage) and findings.  A finding's input is left
# in OUT_DIR as crash-*/leak-*/timeout-*: add it to the corpus as a
# regression once fixed.
set -euo pipefail
tools=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-40}
out=${2:-$(mktemp -d)}
mkdir -p "$out"

make -s -C "$tools" fuzz >"$out/make.log" 2>&1

echo "| harness | runs | runs/s | edges (cov) | features (ft) | corpus | tools/ functions reached | findings |"
echo "|---|---|---|---|---|---|---|---|"
for bin in "$tools"/build-fuzz/fuzz-*; do
	h=${bin##*/}
	mkdir -p "$out/$h"
	cp "$tools/fuzz/corpus/$h"/* "$out/$h/"
	log=$out/$h.log
	rc=0
	"$bin" -max_total_time="$seconds" -print_final_stats=1 -print_coverage=1 -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$out/$h-" "$out/$h" >"$log" 2>&1 || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	last=$(grep -E '^#[0-9]+' "$log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	corpus=$(find "$out/$h" -type f | wc -l)
	# -print_coverage: "COVERED_FUNC: hits: N edges: A/B NAME FILE:LINE" per function.
	covered=$(grep -c "^COVERED_FUNC: .* $tools/\(lib\|fuzz\)/" "$log" || true)
	uncovered=$(grep -c "^UNCOVERED_FUNC: .* $tools/\(lib\|fuzz\)/" "$log" || true)
	findings=$(find "$out" -maxdepth 1 -name "$h-*" | wc -l)
	[ "$rc" = 0 ] || findings="$findings (exit $rc)"
	echo "| $h | $runs | $rate | $cov | $ft | $corpus | $covered of $((covered + uncovered)) | $findings |"
done
echo "logs and corpora: $out"
