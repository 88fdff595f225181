#!/usr/bin/env bash
# make check-debug (opt-in): the guest and host-VM tests on a debug build
# of the project's kernel (configs/kernel.config + configs/kernel-debug.config:
# KASAN, lockdep with RCU checks, sleep-in-atomic, list debugging, UBSAN
# bounds), so that a report the normal kernel does not make (a lock order,
# a use-after-free in the config-change work or the split) fails the run:
# every VM's console is scanned and every VM runs with panic_on_warn=1
# (tests/harness/vm.sh).
#
#   tests/check-debug.sh [TEST...]
#
# Default: every test of make check that boots a VM, in make check's order:
# the tests in tests/run.sh's ALL_TESTS (tests/run.sh --list, the one list
# of tests) that source tests/harness/vm.sh or tests/harness/vmtest.sh.
#
# The debug kernel is built in a tree of its own (a detached worktree of
# the patched tree, $GSO_CACHE/trees/debug-linux-SHA), never in the shared
# keyed tree: the normal tests keep their kernel.  Under TCG a KASAN and
# lockdep kernel runs several times slower: the per-test bound is raised
# (GSO_TEST_TIMEOUT, default 7200 s) and so is each VM's (GSO_VM_TIMEOUT
# where a test does not set its own).  The fallback host VM of t61, the
# unpatched base of t62/t63 and the nested unpatched guests keep their
# normal kernels: they are the controls.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

DEBUG_TESTS=()
mapfile -t all_tests < <(tests/run.sh --list)
for t in "${all_tests[@]}"; do
	grep -qE '^[[:space:]]*(\.|source)[[:space:]].*harness/(vm|vmtest)\.sh' "$t" && DEBUG_TESTS+=("$t")
done
[ ${#DEBUG_TESTS[@]} -gt 0 ] || die "no VM test in tests/run.sh --list"
[ $# -eq 0 ] || DEBUG_TESTS=("$@")

applied=$(scripts/tree.sh linux-stack)
sha=$(git -C "$applied" rev-parse HEAD)
tree=$GSO_CACHE/trees/debug-linux-${sha:0:12}
# A debug kernel of an earlier commit seeds this one's first build
# (scripts/build-kernel.sh's sibling seed, which checks that its
# configuration was the same and its build complete): kbuild then
# recompiles what changed between the two commits, minutes, where a
# KASAN + lockdep kernel from nothing takes over an hour under load.
seed=()
if [ ! -e "$tree/.git" ]; then
	log "debug kernel tree: $tree (a detached worktree of $applied)"
	git -C "$applied" worktree add -q --detach "$tree" "$sha"
	donor='' newest=0
	for d in "$GSO_CACHE"/trees/debug-linux-*; do
		if [ "$d" = "$tree" ] || [ ! -f "$d/arch/x86/boot/bzImage" ]; then continue; fi
		m=$(stat -c %Y "$d/arch/x86/boot/bzImage")
		if [ "$m" -gt "$newest" ]; then donor=$d newest=$m; fi
	done
	[ -z "$donor" ] || seed=(GSO_KERNEL_SEED=all "GSO_KERNEL_SEED_FROM=$donor")
fi
export GSO_KERNEL
GSO_KERNEL=$(env "${seed[@]}" "GSO_KERNEL_EXTRA_CONFIG=$GSO_TOP/configs/kernel-debug.config" \
	nice -n 5 scripts/build-kernel.sh --tree "$tree") || die "debug kernel build failed"
log "debug kernel: $GSO_KERNEL"
# No 5-level paging in the VMs: identify_cpu() clears the boot CPU's
# capabilities, X86_FEATURE_LA57 among them, with interrupts enabled, and
# pgtable_l5_enabled() is cpu_feature_enabled(X86_FEATURE_LA57); an
# interrupt in that window runs instrumented code while KASAN computes
# its shadow bounds for 4-level paging, and KASAN reports a per-CPU
# address as a wild access (seen once under TCG's -cpu max, which has
# LA57: docs/testing.md).  A bug of the base kernel, not of the series;
# without LA57 the window is harmless.
export GSO_TCG_CPU=${GSO_TCG_CPU:-max,la57=off}
# The debug kernel boots and runs ~4 times slower (t20: 454 s against
# 110 s): t35's 120 s wait for the guest's limits ran out before its
# guest had booted.
export GSO_WAIT_SCALE=${GSO_WAIT_SCALE:-4}
export GSO_TEST_TIMEOUT=${GSO_TEST_TIMEOUT:-7200}
export GSO_VM_TIMEOUT=${GSO_VM_TIMEOUT:-900}
export GSO_PREBUILD=0
exec tests/run.sh "${DEBUG_TESTS[@]}"
