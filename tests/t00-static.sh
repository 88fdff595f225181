#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Static checks: every shell script is shellcheck clean, the project's C
# builds with -Wall -Wextra -Werror, the kernel config fragment is sane.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

mapfile -t scripts < <( { git ls-files '*.sh' .ci/run tests/guest/init 2>/dev/null;
	ls scripts/*.sh tests/*.sh tests/harness/*.sh; } | sort -u)
out=$(shellcheck -x -e SC1091 -s bash "${scripts[@]}" 2>&1) ||
	check_err $? "shellcheck:
$out"
log_test "static: shellcheck clean (${#scripts[@]} scripts)"

out=$(make -s -C tools 2>&1) ||
	check_err $? "make -C tools failed:
$out"
log_test "static: tools build with -Wall -Wextra -Werror"

dup=$(grep -E '^CONFIG_' configs/kernel.config | cut -d= -f1 | sort | uniq -d)
[ -z "$dup" ] ||
	check_err 1 "options set twice in configs/kernel.config: $dup"
log_test "static: kernel config fragment has no duplicate options"

tests_exit
