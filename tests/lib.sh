# shellcheck shell=bash
# Test helpers, after the kernel's tools/testing/selftests/net/lib.sh:
# named result codes, one "TEST: name [ OK ]" line per check, cleanup
# registered right after the step it undoes, namespaces with unique
# names, and bounded waits instead of sleeps.
#
# Test scripts run with set -euo pipefail, so a check is written
#   cmd || check_err $? "why"
# and a failing command outside a check ends the script (the runner then
# counts it as a failure).
#
# Protocol with tests/run.sh: a test script prints one line per check,
#   TEST: <name>  [ OK ] | [FAIL] | [SKIP]
# and exits 0 when all its checks passed or skipped, 1 otherwise, 4 when
# it skipped as a whole.  The runner counts the lines.

# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

ksft_pass=0
ksft_fail=1
ksft_skip=4
: "${WAIT_TIMEOUT:=20}"
RET=0
TESTS_FAILED=0
TEST_LOG_DIR=${TEST_LOG_DIR:-$GSO_CACHE/logs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$TEST_LOG_DIR"

# log_test NAME [OK|FAIL|SKIP] [REASON]
log_test() {
	local name=$1 res=${2:-} why=${3:-}
	if [ -z "$res" ]; then
		if [ "$RET" -eq 0 ]; then res=OK; else res=FAIL; fi
	fi
	case "$res" in
	OK)   printf 'TEST: %-60s [ OK ]\n' "$name" ;;
	SKIP) printf 'TEST: %-60s [SKIP]%s\n' "$name" "${why:+ $why}" ;;
	*)    printf 'TEST: %-60s [FAIL]%s\n' "$name" "${why:+ $why}"
	      TESTS_FAILED=$((TESTS_FAILED + 1)) ;;
	esac
	RET=0
}

# check_err RC MSG: record a failure (and print why) when RC is non-zero.
check_err() {
	if [ "$1" -ne 0 ] && [ "$RET" -eq 0 ]; then
		RET=$1
		printf '    %s\n' "$2"
	fi
}

# check_eq WHAT GOT WANT
check_eq() {
	if [ "$2" != "$3" ]; then
		check_err 1 "$1: got '$2', want '$3'"
	fi
}

tests_exit() {
	if [ "$TESTS_FAILED" -gt 0 ]; then exit $ksft_fail; fi
	exit $ksft_pass
}

# --- cleanup stack (defer) ------------------------------------------------
DEFER_CMDS=()
defer() { DEFER_CMDS+=("$*"); }
defer_cleanup() {
	local i
	for ((i = ${#DEFER_CMDS[@]} - 1; i >= 0; i--)); do
		eval "${DEFER_CMDS[$i]}" >/dev/null 2>&1 || true
	done
	DEFER_CMDS=()
}
trap defer_cleanup EXIT

# --- namespaces -----------------------------------------------------------
# setup_ns VAR...: create one namespace per VAR, with a unique name stored
# in VAR; each is deleted (and only its own processes killed) at exit.
NS_LIST=()
setup_ns() {
	local var ns
	for var in "$@"; do
		ns="gso-${var,,}-$(mktemp -u XXXXXX)"
		ip netns add "$ns" || return 1
		defer cleanup_ns "$ns"
		ip -n "$ns" link set lo up
		NS_LIST+=("$ns")
		printf -v "$var" '%s' "$ns"
	done
}
cleanup_ns() {
	local ns=$1 i
	for i in 1 2 3 4 5; do
		[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		sleep 0.2
	done
	ip netns del "$ns" 2>/dev/null
}

# --- bounded waits ----------------------------------------------------------
# slowwait TIMEOUT_S CMD...: retry CMD every 0.1 s until it succeeds.
slowwait() {
	local timeout=$1 end
	shift
	end=$(( $(date +%s%N) / 1000000 + timeout * 1000 ))
	while ! "$@"; do
		[ $(( $(date +%s%N) / 1000000 )) -lt "$end" ] || return 1
		sleep 0.1
	done
}

require_command() {
	command -v "$1" >/dev/null 2>&1 || { log_test "$2" SKIP "$1 not installed"; exit $ksft_skip; }
}

# Root-namespace fingerprint: tests compare it before and after to prove
# they left the machine's own interfaces alone.
root_ns_fingerprint() {
	{ ip -d link show; ip addr show; } 2>/dev/null |
		sed -E 's/(RX|TX):.*//; /^ +[0-9]+ +[0-9]+ /d' |
		grep -v -E 'valid_lft|^\s*$'
}
