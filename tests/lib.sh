# SPDX-License-Identifier: GPL-2.0-only
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
# shellcheck disable=SC2034 # a test that skips as a whole exits with it
ksft_skip=4
: "${WAIT_TIMEOUT:=20}"
RET=0
TESTS_FAILED=0
TEST_LOG_DIR=${TEST_LOG_DIR:-$GSO_CACHE/logs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$TEST_LOG_DIR"

# log_test NAME [OK|FAIL|SKIP] [REASON]
# While LOG_REPLAY is set (log_replay), a passing check is reported as
# SKIP: it was read from an earlier run's logs, and proves nothing of this
# one.
log_test() {
	local name=$1 res=${2:-} why=${3:-}
	if [ -z "$res" ]; then
		if [ "$RET" -eq 0 ]; then res=OK; else res=FAIL; fi
	fi
	if [ "$res" = OK ] && [ -n "${LOG_REPLAY:-}" ]; then
		res=SKIP why="passes on the logs of $LOG_REPLAY, not on this run"
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
# checkpatch_excused TREE PATCH REPORT: REPORT (TREE's checkpatch.pl on
# PATCH) without its one excused finding, printed: checkpatch asks about
# MAINTAINERS for every added file, and a new file under a directory an
# entry already covers (the net core series' selftest: "F:
# tools/testing/selftests/net/"; the guest series' vDPA KUnit file and
# netdevsim selftest) needs no MAINTAINERS change upstream.  The question
# is dropped only when get_maintainer.pl finds a maintainer for each added
# file.  Returns 0 when it was dropped, 1 when REPORT is printed as it is.
checkpatch_excused() {
	local tree=$1 p=$2 report=$3 f m
	if ! grep -q 'MAINTAINERS need updating' <<< "$report"; then
		printf '%s\n' "$report"
		return 1
	fi
	while IFS= read -r f; do
		m=$(cd "$tree" && scripts/get_maintainer.pl --no-git --no-git-fallback \
			--no-rolestats --no-l --no-r -f "$f" 2>/dev/null)
		if [ -z "$m" ]; then
			printf '%s\n' "$report"
			return 1
		fi
	done < <(awk '/^diff --git/ { f = $4 } /^new file mode/ { print substr(f, 3) }' "$p")
	grep -v -e 'MAINTAINERS need updating' -e '^new file mode' \
		-e '^#[0-9]*: $' -e '^total: ' -e 'added, moved or deleted file' \
		-e '^  [a-z]' -e '^$' <<< "$report" || true
}

# tree_args "$@": the one option of a test that builds QEMU, --tree DIR (a
# prepared tree to build and test instead of the default), turned into
# build_args for scripts/build-qemu.sh; anything else is a usage error.
tree_args() {
	# shellcheck disable=SC2034 # read by the calling test
	build_args=()
	case "${1:-}" in
	"") ;;
	--tree) [ $# -eq 2 ] || { echo "usage: $0 [--tree DIR]" >&2; exit 2; }
		# shellcheck disable=SC2034 # read by the calling test
		build_args=(--tree "$2") ;;
	*) echo "usage: $0 [--tree DIR]" >&2; exit 2 ;;
	esac
}

# log_replay DIR: the checks that follow read an earlier run's logs in DIR
# (a test's RECHECK mode, e.g. T63_RECHECK=DIR): each that passes is
# reported SKIP, never OK, so a re-check cannot make a run green.
log_replay() {
	LOG_REPLAY=$1
}

# skip_unless_full VAR FULL TEST: make check runs a test with VAR unset,
# which means FULL, a space-separated list; a developer can shrink it
# (VAR="a b").  Each item of FULL that VAR leaves out gets a SKIP line
#   TEST: TEST ITEM [SKIP] left out by VAR=...
# so a shrunk run never reads as the full one.  Prints VAR's value (the
# list to run) on stdout: CASES=$(skip_unless_full T61_CASES "vhost fallback" "t61").
# For a switch (VAR=0 leaves out one part), FULL is its one value and
# ITEM the part: skip_unless_full T63_DEBIAN 1 "t63 Debian's guest".
skip_unless_full() {
	local var=$1 full=$2 name=$3 val item
	if [ -z "${!var+x}" ]; then
		echo "$full"
		return 0
	fi
	val=${!var}
	for item in $full; do
		[[ " $val " == *" $item "* ]] && continue
		if [ "$full" = "$item" ] && [[ "$full" != *" "* ]]; then
			# A switch: the whole of NAME is what is left out.
			log_test "$name" SKIP "left out by $var=$val (make check: $var=$full)" >&2
		else
			log_test "$name $item" SKIP "left out by $var='$val' (make check: '$full')" >&2
		fi
	done
	echo "$val"
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

# Checks that run when the script exits, after the cleanup (so that every
# VM has ended): EXIT_CHECKS+=(FUNC).  Each prints its own TEST lines; one
# that fails turns the script's exit status into a failure, whatever it
# was (0, or 4: a skip cannot hide a kernel warning).
EXIT_CHECKS=()
lib_exit() {
	local rc=$? f bad=0
	defer_cleanup
	for f in "${EXIT_CHECKS[@]}"; do
		"$f" || bad=1
	done
	if [ "$bad" = 1 ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]; }; then
		rc=1
	fi
	exit "$rc"
}
trap lib_exit EXIT

# --- namespaces -----------------------------------------------------------
# The run a test belongs to: tests/run.sh exports its own PID; a test run
# on its own (or the demo) is a run of its own.  Exported, so that the
# processes a test starts (QEMU) carry it in their environment.
case "${GSO_RUN_ID:-}" in
''|*[!0-9]*) GSO_RUN_ID=$$ ;;
esac
export GSO_RUN_ID

# setup_ns VAR...: create one namespace per VAR, with a unique name stored
# in VAR; each is deleted (and only its own processes killed) at exit.
# The name carries the run (GSO_RUN_ID) and the PID of the test script
# that owns it,
#   gso-rRUN-VAR-PID-XXXXXX
# so that tests/run.sh can tell a namespace left by a killed test (owner
# gone) from one a running test still uses, and its own run's from
# another run's on the same machine (ns_class).
NS_LIST=()
setup_ns() {
	local var ns
	for var in "$@"; do
		ns="gso-r$GSO_RUN_ID-${var,,}-$$-$(mktemp -u XXXXXX)"
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

# pcap_stop_settled PCAP PID: stop the tcpdump PID writing PCAP once the file
# has stopped growing (tcpdump may still be reading its ring; at most 30
# s), with SIGINT so that it flushes and reports its drops.
pcap_stop_settled() {
	local pcap=$1 pid=$2 i size=-1
	for i in $(seq 30); do
		[ "$(stat -c %s "$pcap")" = "$size" ] && break
		size=$(stat -c %s "$pcap")
		sleep 1
	done
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# start_ready OUT READY CMD...: start a helper process (a stand-in, a tap
# holder) in the background, its output in OUT, killed at cleanup, and wait
# (at most 5 s) for a line matching READY in OUT.  Its pid in READY_PID.  One
# that does not start: its command line and output on stdout, status 1.
start_ready() {
	local out=$1 ready=$2
	shift 2
	"$@" >"$out" 2>&1 &
	READY_PID=$!
	defer "kill $READY_PID"
	slowwait 5 grep -qs -- "$ready" "$out" || {
		echo "$* did not start: $(cat "$out")"; return 1; }
}

# require_command CMD TEST: scripts/setup-deps.sh installs every command a
# test needs, so a missing one is a broken set-up: a failure, not a skip.
require_command() {
	command -v "$1" >/dev/null 2>&1 ||
		{ log_test "$2" FAIL "$1 not installed (run scripts/setup-deps.sh)"; exit $ksft_fail; }
}

# ns_owner_alive NAME: NAME is a setup_ns namespace (gso-rRUN-VAR-PID-XXXXXX,
# or gso-VAR-PID-XXXXXX as setup_ns named them before the run field) whose
# owning test script still runs.  Fails for a dead owner and for names not
# made by setup_ns.
ns_owner_alive() {
	local pid
	pid=$(sed -n -E 's/^gso-(r[0-9]+-)?[a-z0-9_]+-([0-9]+)-[A-Za-z0-9]{6}$/\2/p' <<< "$1")
	[ -n "$pid" ] && [ -d "/proc/$pid" ]
}

# ns_class NAME: whose namespace NAME is, for tests/run.sh and the
# fingerprint, one word:
#   live      its owning test script still runs (any run's): left alone
#   mine      made by a test of this run (GSO_RUN_ID), owner gone
#   other     made by another run that still runs, owner gone: that run
#             counts it against its own test
#   dead      made by another run that is gone, owner gone
#   old       a harness name without the run field, owner gone (or older
#             still, gso-VAR-XXXXXX): some run's, not this one's
#   foreign   not a harness name
ns_class() {
	local run
	if [[ $1 =~ ^gso-r([0-9]+)-[a-z0-9_]+-[0-9]+-[A-Za-z0-9]{6}$ ]]; then
		run=${BASH_REMATCH[1]}
		if ns_owner_alive "$1"; then
			echo live
		elif [ "$run" = "$GSO_RUN_ID" ]; then
			echo mine
		elif [ -d "/proc/$run" ]; then
			echo other
		else
			echo dead
		fi
	elif [[ $1 =~ ^gso-[a-z0-9_]+-([0-9]+-)?[A-Za-z0-9]{6}$ ]]; then
		if ns_owner_alive "$1"; then echo live; else echo old; fi
	else
		echo foreign
	fi
}

# Root-namespace fingerprint: tests compare it before and after to prove
# they left the machine's own interfaces alone.
# Links, addresses, routes of every table and the list of network
# namespaces.  Of the harness's namespaces only this run's whose owner is
# gone are listed (ns_class mine): one a running test owns is in use, and
# another run's (running, or killed during this one) is not this run's
# doing; a namespace this run leaked has a dead owner by the time it is
# compared.  Namespaces not named by setup_ns are all listed.
# Fails (with nothing on stdout) when ip itself fails, so that a broken
# ip cannot make two empty fingerprints equal.
# Policy rules, nexthop objects, the sysctls the tests set in their
# namespaces (were one set in the root namespace by mistake, it shows
# here) and, where nft is installed, the nftables ruleset.
FINGERPRINT_SYSCTLS=(net.ipv4.ip_forward net.ipv6.conf.all.forwarding
	net.ipv6.conf.all.disable_ipv6 net.ipv6.conf.default.disable_ipv6
	net.ipv6.conf.default.accept_dad net.ipv4.tcp_min_tso_segs net.core.gso_split
	net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables
	net.bridge.bridge-nf-call-arptables)
root_ns_fingerprint() {
	local out ns
	out=$({ ip -d link show && ip addr show &&
		ip -4 route show table all && ip -6 route show table all &&
		ip -4 rule show && ip -6 rule show; } 2>&1) ||
		{ echo "root_ns_fingerprint: ip failed: $out" >&2; return 1; }
	sed -E 's/(RX|TX):.*//; /^ +[0-9]+ +[0-9]+ /d' <<< "$out" |
		grep -v -E 'valid_lft|^\s*$'
	# A kernel without nexthop objects answers with an error: that, too,
	# is the same before and after.
	ip nexthop show 2>&1 | sed 's/^/nexthop /'
	sysctl -e "${FINGERPRINT_SYSCTLS[@]}" 2>/dev/null
	if command -v nft >/dev/null; then
		out=$(nft list ruleset 2>&1) ||
			{ echo "root_ns_fingerprint: nft failed: $out" >&2; return 1; }
		printf 'nft %s\n' "${out//$'\n'/$'\n'nft }"
	fi
	out=$(ip netns list 2>&1) ||
		{ echo "root_ns_fingerprint: ip netns list failed: $out" >&2; return 1; }
	while read -r ns _; do
		[ -n "$ns" ] || continue
		case "$(ns_class "$ns")" in mine|foreign) echo "netns $ns" ;; esac
	done <<< "$out" | sort
}
