#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The tools' unit tests (tools/test/test-*.c, built by `make -C tools check`):
# one TEST line per test program and build, failing if it exits non-zero or
# prints a FAIL line.  Three builds: the plain one (tools/build/), and
# AddressSanitizer + UndefinedBehaviorSanitizer builds with gcc and with
# clang (tools/build-asan-gcc/, tools/build-asan-clang/), where an
# out-of-bounds access, a leak or a signed overflow ends the test with a
# non-zero status.  No root, no network: the library's pure parts only.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

TOOLS=$GSO_TOP/tools
LOG=$TEST_LOG_DIR/tools-unit
mkdir -p "$LOG"

make -s -C "$TOOLS" all >"$LOG/make.log" 2>&1 || {
	log_test "tools build" FAIL "see $LOG/make.log"; exit "$ksft_fail"; }

# --help on every program: the usage on stdout, exit status 0.
n=0
for prog in "$TOOLS"/build/gso-* "$TOOLS"/build/pcap-synth "$TOOLS"/build/doctor-taphold; do
	rc=0
	out=$("$prog" --help 2>/dev/null) || rc=$?
	check_eq "${prog##*/} --help exit status" "$rc" 0
	[[ $out == usage:* ]] || check_err 1 "${prog##*/} --help: no usage on stdout: ${out:0:60}"
	n=$((n + 1))
done
log_test "tools: --help prints the usage ($n programs)"

# A long option is spelled in full: no tool takes a prefix (getopt_long()'s
# "--hel" for --help); the others compare whole words, gso-limitsd refuses
# what getopt_long() would take (limitsd/options.c, spelled_in_full()).
n=0
for prog in "$TOOLS"/build/gso-*; do
	rc=0
	out=$("$prog" --hel 2>"$LOG/abbrev.err") || rc=$?
	[ "$rc" != 0 ] || check_err 1 "${prog##*/} --hel: exit status 0"
	[ -z "$out" ] || check_err 1 "${prog##*/} --hel: output on stdout: ${out:0:60}"
	grep -qF -- "'--hel'" "$LOG/abbrev.err" ||
		check_err 1 "${prog##*/} --hel: the message does not name it: $(head -1 "$LOG/abbrev.err")"
	n=$((n + 1))
done
log_test "tools: an abbreviated --help is refused ($n programs)"

mapfile -t sources < <(cd "$TOOLS/test" && ls test-*.c)
[ "${#sources[@]}" -gt 0 ] || { log_test "tools unit tests" FAIL "none found"; exit "$ksft_fail"; }

# build directory, then the make arguments that select it
builds=(
	"build"
	"build-asan-gcc BUILD=build-asan-gcc CC=gcc SANITIZE=1"
	"build-asan-clang BUILD=build-asan-clang CC=clang SANITIZE=1"
)
for spec in "${builds[@]}"; do
	read -r dir make_args <<<"$spec"
	for src in "${sources[@]}"; do
		name=${src%.c}
		log=$LOG/$dir-$name.log
		rc=0
		# shellcheck disable=SC2086 # make_args is a list of VAR=value words
		make -s -C "$TOOLS" $make_args "$dir/$name" >>"$LOG/make.log" 2>&1 || rc=$?
		check_eq "build of $dir/$name" "$rc" 0
		if [ "$rc" = 0 ]; then
			rc=0
			"$TOOLS/$dir/$name" >"$log" 2>&1 || rc=$?
			check_eq "exit code of $dir/$name" "$rc" 0
			! grep -q '^FAIL' "$log" || check_err 1 "$(grep '^FAIL' "$log" | head -3)"
		fi
		# A program that exits 0 having checked nothing proves nothing.
		nok=$(grep -c '^ok' "$log" 2>/dev/null) || nok=0
		[ "$rc" != 0 ] || [ "$nok" -gt 0 ] || check_err 1 "$dir/$name ran no check (no 'ok' line)"
		log_test "tools unit: $dir/$name ($nok checks)"
	done
done

tests_exit
