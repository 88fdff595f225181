#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build, at low priority, everything the VM tests will ask for, while the
# cheap tests run in front of them.
#
#   scripts/prebuild.sh            (started in the background by tests/run.sh)
#
# Why: from an empty cache the builds are most of a make check (two
# kernels, two QEMUs: about 35 of 70 minutes on 2 cores), and the tests
# that run first leave a core idle much of the time (checkpatch, the
# spec's xelatex passes and most VM tests use one).  Started under nice 19,
# the builds take what the tests leave; a test that needs a build before
# it is done waits for it on the build's own lock (each build script
# serialises on a per-tree lock and returns at once when its tree state is
# already built), then finds it built.  The order is the order the tests
# ask: the patched QEMU and its qtests (tools-daemon-qemu, qemu-qtest),
# the kernel with both series (t10 and every VM test after it), the
# unpatched kernel, t36's two guest kernels, the unpatched QEMU (t50 on),
# Debian's kernel (t50), then the distribution trees the backports apply
# to (t07, t08, the last tests).
#
# Nothing here decides a result: a build that fails is only logged
# ($GSO_CACHE/logs/prebuild-*.log), and the test that needs it runs the
# same build again in the foreground, where the failure is reported.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

logs=$GSO_CACHE/logs
mkdir -p "$logs"

step() {
	local name=$1 start rc=0
	shift
	start=$(date +%s)
	"$@" > "$logs/prebuild-$name.log" 2>&1 || rc=$?
	printf '%s %s: exit %d after %d s\n' "$(date +%H:%M:%S)" "$name" "$rc" \
		"$(( $(date +%s) - start ))" >> "$logs/prebuild.log"
}

renice -n 19 -p $$ >/dev/null
printf '%s prebuild started (pid %d)\n' "$(date +%H:%M:%S)" $$ >> "$logs/prebuild.log"
step qemu "$GSO_TOP/scripts/build-qemu.sh" -- tests/qtest/qos-test \
	tests/qtest/virtio-net-gso-limits-test
step kernel "$GSO_TOP/scripts/build-kernel.sh"
step kernel-unpatched "$GSO_TOP/scripts/build-kernel.sh" --unpatched
# t36's two guest kernels (the guest series without the split; the same
# without the route generation bump), the series t36 names.
step kernel-alone series_kernel "$GSO_TOP/kernel-event-patches" "$GSO_TOP/kernel-patches"
step kernel-alone-control series_kernel "$GSO_TOP/kernel-event-patches" \
	"$GSO_TOP/kernel-patches" "$GSO_TOP/tests/fixtures/no-route-bump"
step qemu-unpatched "$GSO_TOP/scripts/build-qemu.sh" --unpatched
step distro-kernel "$GSO_TOP/scripts/fetch-distro-kernel.sh"
# The backports' distribution trees (t07, t08: run last for this reason):
# downloaded, imported into git and checked out with each series while
# the VM tests leave a core idle.  From an empty cache that is most of
# t07's time (the import of a Linux tree alone: minutes each).
for d in "$GSO_TOP"/backports/linux-*/; do
	for s in split guest; do
		[ -d "$d$s" ] || continue
		step "tree-$(basename "$d")-$s" "$GSO_TOP/scripts/backport-tree.sh" "$(basename "$d")" "$d$s"
	done
done
for q in qemu-10.2.2 qemu-10.0.13; do
	step "source-$q" "$GSO_TOP/scripts/fetch-distro-source.sh" "$q"
done
printf '%s prebuild done\n' "$(date +%H:%M:%S)" >> "$logs/prebuild.log"
