#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Static analysis of the tools' C (every tracked tools/**/*.c): Debian's
# cppcheck and clang-tidy must report nothing.  A finding that is wrong is
# silenced where it stands, with a comment saying why (cppcheck-suppress,
# NOLINT); what is left out for the whole tree is listed here, with why:
#
# cppcheck --enable=warning,style,performance,portability, except
#   variableScope       kernel style declares locals at the top of a block
#   missingIncludeSystem  cppcheck is not given the system headers
# clang-tidy: clang-analyzer-*, bugprone-*, cert-err34-c,
#   misc-redundant-expression, except
#   ...insecureAPI.DeprecatedOrUnsafeBufferHandling  asks for C11 Annex K
#                       (snprintf_s), which glibc does not have
#   clang-analyzer-valist.Uninitialized  clang 14 reports a va_list
#                       va_start()ed on the line before (doctor/report.c)
#   bugprone-easily-swappable-parameters  (a, b) of one type is normal C
#   bugprone-suspicious-string-compare  `!strcmp(a, b)` is the project's
#                       (and the kernel's) idiom for equality
#   bugprone-narrowing-conversions, -implicit-widening-of-multiplication-
#                       result  gcc -Wall -Wextra already covers the
#                       conversions that matter; these flag every u32 into
#                       an int and every size computed in int
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

TOOLS=$GSO_TOP/tools
LOG=$TEST_LOG_DIR/tools-analysis
mkdir -p "$LOG"
require_command cppcheck "tools static analysis"
require_command clang-tidy "tools static analysis"

mapfile -t sources < <(cd "$TOOLS" && git ls-files '*.c')
[ "${#sources[@]}" -gt 0 ] || { log_test "tools static analysis" FAIL "no C files"; exit "$ksft_fail"; }

rc=0
(cd "$TOOLS" && cppcheck --quiet --std=c11 -D_GNU_SOURCE -I. --inline-suppr \
	--enable=warning,style,performance,portability \
	--suppress=variableScope --suppress=missingIncludeSystem \
	--template='{file}:{line}: {severity}: {message} [{id}]' \
	"${sources[@]}") >"$LOG/cppcheck.log" 2>&1 || rc=$?
check_eq "cppcheck exit status ($LOG/cppcheck.log)" "$rc" 0
findings=$(grep -c ': \(error\|warning\|style\|performance\|portability\): ' "$LOG/cppcheck.log" || true)
check_eq "cppcheck findings ($LOG/cppcheck.log)" "$findings" 0
log_test "analysis: cppcheck $(cppcheck --version | cut -d' ' -f2), ${#sources[@]} files"

checks='-*,clang-analyzer-*,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling'
checks+=',-clang-analyzer-valist.Uninitialized,bugprone-*,-bugprone-easily-swappable-parameters'
checks+=',-bugprone-suspicious-string-compare,-bugprone-narrowing-conversions'
checks+=',-bugprone-implicit-widening-of-multiplication-result,cert-err34-c,misc-redundant-expression'
rc=0
# Two files per clang-tidy, two at a time: the machine's two cores.  The
# inner shell expands $0 (the checks) and $@ (the files), not this one.
# shellcheck disable=SC2016
(cd "$TOOLS" && printf '%s\n' "${sources[@]}" |
	xargs -P2 -n2 sh -c 'clang-tidy --quiet --checks="$0" "$@" -- -std=c11 -D_GNU_SOURCE -I.' \
		"$checks") >"$LOG/clang-tidy.log" 2>&1 || rc=$?
check_eq "clang-tidy exit status ($LOG/clang-tidy.log)" "$rc" 0
findings=$(grep -c ': \(warning\|error\): ' "$LOG/clang-tidy.log" || true)
check_eq "clang-tidy findings ($LOG/clang-tidy.log)" "$findings" 0
log_test "analysis: clang-tidy $(clang-tidy --version | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1), ${#sources[@]} files"

tests_exit
