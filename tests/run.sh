#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Run the project's tests and print one closing line:
#   N passed, N failed, N skipped
#
#   tests/run.sh [TEST...]      (default: every test in ALL_TESTS)
#   tests/run.sh --list         ALL_TESTS, one a line, nothing run
#
# Each test is a script speaking the protocol of tests/lib.sh: one
# "TEST: name [ OK ]|[FAIL]|[SKIP]" line per check, exit 0/1/4.  The runner
# adds a line of its own, counted like the test's, when a script
#   - fails without reporting a failed check: one failure (a crash never
#     passes);
#   - exits 0 without a single check: one failure (it proved nothing);
#   - exits 4 (skip) without a SKIP line, after checks or not: one skip;
#   - runs past its bound (test_timeout, below): one failure.
# The root network namespace (links, addresses, routes, rules, nexthops,
# the sysctls the tests use, nftables) is fingerprinted before and after
# the run: any difference is a failure.
#
# A TEST argument must be one of ALL_TESTS (a path or a file name): an
# unknown name stops the run before anything runs.  At the start the
# runner removes what an earlier, killed run left behind (its network
# namespaces and the processes in them) and loads the kernel modules the
# tests use when the kernel has them as modules; those it loaded are
# unloaded when it ends.  Each run is told apart from another on the same
# machine by its PID, GSO_RUN_ID, which every namespace its tests make
# carries (tests/lib.sh, setup_ns): a test is only held to its own run's.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# Cheap tests first, so a broken tree fails fast (the backports' aside).
ALL_TESTS=(
	tests/t00-static.sh
	tests/t06-doc-claims.sh
	tests/t01-series.sh
	tests/t02-spec.sh
	tests/t03-perpatch.sh
	tests/t09-packaging.sh
	tests/tools-analysis.sh
	tests/tools-daemon-admin.sh
	tests/tools-daemon-libvirt.sh
	tests/tools-daemon-paths.sh
	tests/tools-daemon-qemu.sh
	tests/tools-daemon-scale.sh
	tests/tools-daemon-trust.sh
	tests/tools-daemon.sh
	tests/tools-doctor.sh
	tests/tools-fuzz.sh
	tests/tools-hist.sh
	tests/tools-linkinfo.sh
	tests/tools-package.sh
	tests/tools-paths.sh
	tests/tools-probe.sh
	tests/tools-stream.sh
	tests/tools-unit.sh
	tests/qemu-qtest.sh
	tests/t10-smoke.sh
	tests/t15-kunit.sh
	tests/t20-negotiation.sh
	tests/t25-coverage.sh
	tests/t30-scenarios.sh
	tests/t35-runtime.sh
	tests/t36-guest-follow.sh
	tests/t37-vdpa.sh
	tests/t38-uppers-selftest.sh
	tests/t39-failover.sh
	tests/t40-doctor-guest.sh
	tests/t50-compat.sh
	tests/t55-migration.sh
	tests/t61-vhost-qemu.sh
	tests/t62-gso-split.sh
	tests/t63-split-unpatched-guest.sh
	tests/t64-paths-tier2.sh
	tests/t65-r8169-model.sh
	tests/t66-e1000e-passthrough.sh
	# The backports last: from an empty cache they need three Linux and
	# two QEMU distribution trees downloaded and imported into git, which
	# scripts/prebuild.sh does while the VM tests above leave a core idle.
	tests/t07-backports.sh
	tests/t08-backports-qemu.sh
)

# Every ALL_TESTS entry must exist, and every test script in tests/ must be
# an entry: a test that silently disappears from the list, or never
# enters it, is a test that never fails.
for t in "${ALL_TESTS[@]}"; do
	[ -f "$t" ] || { echo "run.sh: ALL_TESTS names $t, which does not exist" >&2; exit 2; }
done
for t in tests/t[0-9]*.sh tests/tools-*.sh tests/qemu-*.sh; do
	[ -f "$t" ] || continue  # an unmatched pattern
	[[ " ${ALL_TESTS[*]} " == *" $t "* ]] ||
		{ echo "run.sh: $t is not in ALL_TESTS: add it (or remove the file)" >&2; exit 2; }
done

[ "${1:-}" != --list ] || { printf '%s\n' "${ALL_TESTS[@]}"; exit 0; }

# Per-test bound, seconds (timeout, then KILL 60 s later), so that only a
# hang reaches it.  A test's time includes waiting for the builds it needs
# (the first VM test waits for the kernel: over 40 min on the shared
# machine under a load of 12-15), so the bound is CI's whole budget, 90
# min; tests that build per patch (t03) or boot nested guests and an
# unpatched kernel besides (t61, t63) get two hours.  GSO_TEST_TIMEOUT
# overrides every bound.
test_timeout() {
	if [ -n "${GSO_TEST_TIMEOUT:-}" ]; then echo "$GSO_TEST_TIMEOUT"; return; fi
	case "$1" in
	t03-perpatch.sh|t61-vhost-qemu.sh|t63-split-unpatched-guest.sh) echo 7200 ;;
	*) echo 5400 ;;
	esac
}
if [ $# -gt 0 ]; then
	tests=()
	for arg in "$@"; do
		found=
		for t in "${ALL_TESTS[@]}"; do
			case "$arg" in "$t"|"./$t"|"${t##*/}"|"${t##*/}"/|"$GSO_TOP/$t") found=$t ;; esac
		done
		if [ -z "$found" ]; then
			echo "run.sh: unknown test '$arg'; known tests:" >&2
			printf '  %s\n' "${ALL_TESTS[@]}" >&2
			exit 2
		fi
		tests+=("$found")
	done
else
	tests=("${ALL_TESTS[@]}")
fi

export GSO_RUN_ID=$$

# ns_classes: "CLASS NAME" for each gso-* namespace (tests/lib.sh, in a
# subshell so that its EXIT trap stays out of the runner).
ns_classes() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns list 2>/dev/null | awk '$1 ~ /^gso-/ { print $1 }' |
		xargs -r bash -c '. tests/lib.sh; trap - EXIT; for n; do echo "$(ns_class "$n") $n"; done' _
}

# remove_leftovers start|test: what killed tests left behind (their EXIT
# traps never ran): namespaces made by setup_ns whose owning test script
# is gone (tests/lib.sh names them gso-rRUN-VAR-PID-XXXXXX), with every
# process inside them (QEMU, tcpdump, receivers: `ip netns pids`, never by
# name); and QEMU processes of the harness (a kernel or initramfs under
# $GSO_CACHE on the command line) outside any namespace whose supervising
# `timeout` was orphaned.  Whose they are decides (tests/lib.sh, ns_class;
# a QEMU's GSO_RUN_ID in its environment):
#   - this run's: removed, printed "netns NAME" or "qemu PID" (after a
#     test: that test's doing);
#   - a run that is gone: removed, printed "other netns NAME" or "other
#     qemu PID" (a killed run's, never blamed on this run's test);
#   - a run that still runs: left alone, that run counts them against its
#     own test; so is everything of a test that still runs;
#   - a name without the run field (older harness names) or a QEMU without
#     GSO_RUN_ID: some run's, removed at the start only ("other ...").
remove_leftovers() {
	local when=$1 class ns tag pid ppid run
	while read -r class ns; do
		case "$class" in
		mine) tag='' ;;
		dead) tag='other ' ;;
		old) [ "$when" = start ] || continue; tag='other ' ;;
		*) continue ;;
		esac
		ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
		ip netns del "$ns" && echo "${tag}netns $ns"
	done < <(ns_classes)
	# (comm is cut at 15 characters: qemu-system-x86_64 is qemu-system-x86.)
	for pid in $(pgrep -x 'qemu-system-x86' 2>/dev/null); do
		tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-kernel $GSO_CACHE/" || continue
		ppid=$(awk '{ print $4 }' "/proc/$pid/stat" 2>/dev/null) || continue
		# The harness runs QEMU as "timeout ... qemu" from the test
		# script: orphaned, timeout belongs to PID 1 (or a subreaper).
		[ "$(cat "/proc/$ppid/comm" 2>/dev/null)" = timeout ] || continue
		ppid=$(awk '{ print $4 }' "/proc/$ppid/stat" 2>/dev/null) || continue
		case "$(cat "/proc/$ppid/comm" 2>/dev/null)" in bash|sh) continue ;; esac
		run=$(tr '\0' '\n' < "/proc/$pid/environ" 2>/dev/null | sed -n 's/^GSO_RUN_ID=//p')
		if [ "$run" = "$GSO_RUN_ID" ]; then
			tag=''
		elif [ -n "$run" ] && [ -d "/proc/$run" ]; then
			continue
		elif [ -n "$run" ] || [ "$when" = start ]; then
			tag='other '
		else
			continue
		fi
		kill -9 "$pid" && echo "${tag}qemu $pid"
	done
}
left=$(remove_leftovers start)
[ -z "$left" ] ||
	echo "removed $(wc -l <<< "$left") leftovers of an earlier run (namespaces, QEMU processes)"

# Kernel features the tests use: built in here, modules on Debian's
# stock kernel (br_netfilter: gso-doctor's fwbr-hop check; macvtap:
# gso-probe's macvtap case).  A module that does not load is reported;
# the tests that need it then fail, they do not skip.
load_kernel_features() {
	local m sym config=
	if [ -r /proc/config.gz ]; then
		config=$(zcat /proc/config.gz)
	elif [ -r "/boot/config-$(uname -r)" ]; then
		config=$(cat "/boot/config-$(uname -r)")
	fi
	for m in tun:TUN bridge:BRIDGE br_netfilter:BRIDGE_NETFILTER veth:VETH \
		macvlan:MACVLAN macvtap:MACVTAP vxlan:VXLAN; do
		sym=CONFIG_${m#*:} m=${m%%:*}
		grep -qx "$sym=y" <<< "$config" && continue
		[ -d "/sys/module/$m" ] && continue
		if modprobe "$m" 2>/dev/null; then
			LOADED_MODULES=("$m" "${LOADED_MODULES[@]}")
		else
			echo "run.sh: kernel module $m does not load: the tests that need it will fail" >&2
		fi
	done
}
# The modules this run loaded, newest first: unloaded when it ends (after
# the closing fingerprint), so the machine is left as it was found.
LOADED_MODULES=()
unload_kernel_features() {
	local m
	for m in "${LOADED_MODULES[@]}"; do
		modprobe -r "$m" 2>/dev/null ||
			echo "run.sh: kernel module $m, loaded by this run, does not unload (in use?)" >&2
	done
	LOADED_MODULES=()
}
load_kernel_features

export TEST_LOG_DIR=${TEST_LOG_DIR:-$GSO_CACHE/logs/run-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$TEST_LOG_DIR"
echo "logs: $TEST_LOG_DIR"

# From an empty cache the builds are half of a full run: start them now,
# at the lowest priority, so they use what the cheap tests in front leave
# of the two cores (scripts/prebuild.sh; a test that needs a build waits
# on that build's lock).  Only for the whole suite, or GSO_PREBUILD=1;
# GSO_PREBUILD=0 turns it off.  Stopped when the run ends, whatever is
# left of it (a build resumes where it stopped next time).
prebuild_pid=
if [ "${GSO_PREBUILD:-$([ $# -eq 0 ] && echo 1 || echo 0)}" = 1 ]; then
	setsid scripts/prebuild.sh < /dev/null > /dev/null 2>&1 &
	prebuild_pid=$!
	echo "prebuild: pid $prebuild_pid, log $GSO_CACHE/logs/prebuild.log"
fi
stop_prebuild() {
	[ -n "$prebuild_pid" ] || return 0
	kill -0 "$prebuild_pid" 2>/dev/null && kill -TERM -- "-$prebuild_pid" 2>/dev/null
	wait "$prebuild_pid" 2>/dev/null
	prebuild_pid=
}
trap 'stop_prebuild; unload_kernel_features' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The fingerprint comes from tests/lib.sh, in a subshell so that its
# EXIT trap stays out of the runner.
fingerprint() { bash -c '. tests/lib.sh; root_ns_fingerprint'; }
before=$(fingerprint) || { echo "run.sh: cannot fingerprint the root network namespace" >&2; exit 1; }

passed=0 failed=0 skipped=0
run_start=$(date +%s)
for t in "${tests[@]}"; do
	name=${t##*/}
	echo "=== $name"
	start=$(date +%s)
	out=$TEST_LOG_DIR/${name%.sh}.out
	limit=$(test_timeout "$name")
	timeout -k 60 "$limit" bash "$t" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^TEST: .*\[ OK \]' "$out")
	f=$(grep -c '^TEST: .*\[FAIL\]' "$out")
	s=$(grep -c '^TEST: .*\[SKIP\]' "$out")
	# The runner's own lines go to the log as well, so that the counts
	# in it add up to the closing line.
	{
	if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ $(( $(date +%s) - start )) -ge "$limit" ]; }; then
		echo "TEST: $name did not end within its bound of $limit s (run.sh, per test) [FAIL]"
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$f" -eq 0 ]; then
		echo "TEST: $name exited with status $rc without reporting a failure [FAIL]"
		f=$((f + 1))
	elif [ "$rc" -eq 0 ] && [ "$p$f$s" = 000 ]; then
		# A test that checked nothing proved nothing.
		echo "TEST: $name exited 0 without a single check [FAIL]"
		f=$((f + 1))
	elif [ "$rc" -eq 4 ] && [ "$s" -eq 0 ]; then
		# Exit 4 skips what the test did not reach: whether it
		# reported checks before or not, the skip is counted.
		echo "TEST: $name skipped (exit 4) after $p passed and $f failed checks [SKIP]"
		s=$((s + 1))
	fi
	# What the test left behind (a test killed at its bound, or one that
	# forgot a cleanup): removed now, so the next test starts clean, and
	# a failure of this one.  What another run killed meanwhile left is
	# removed too, and named, but is not this test's doing.
	left=$(remove_leftovers test)
	mine=$(grep -v '^other ' <<< "$left")
	if [ -n "$mine" ]; then
		echo "TEST: $name left $(wc -l <<< "$mine") namespaces or QEMU processes behind (removed) [FAIL]"
		while read -r l; do echo "    $l"; done <<< "$mine"
	fi
	other=$(grep '^other ' <<< "$left")
	if [ -n "$other" ]; then
		echo "run.sh: removed $(wc -l <<< "$other") leftovers of another run that is gone (not $name's):"
		while read -r l; do echo "    ${l#other }"; done <<< "$other"
	fi
	} | tee -a "$out"
	p=$(grep -c '^TEST: .*\[ OK \]' "$out")
	f=$(grep -c '^TEST: .*\[FAIL\]' "$out")
	s=$(grep -c '^TEST: .*\[SKIP\]' "$out")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "=== $name: $p passed, $f failed, $s skipped ($(( $(date +%s) - start )) s)"
done

stop_prebuild
after=$(fingerprint) || after="(fingerprint failed: ip)"
unload_kernel_features
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
