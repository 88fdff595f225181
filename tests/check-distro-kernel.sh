#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-distro-kernel (opt-in, long): the backported split on the
# distribution kernels hosts run, proved the way t63 proves it on the main
# base.  For each TARGET (default: linux-6.12.117 linux-7.1.8):
#   - the distribution tree with backports/TARGET/split applied, and the
#     same tree unpatched, each built fully with the project's kernel
#     configuration (configs/kernel.config on tinyconfig +
#     kvm_guest.config; the options a tree does not know are dropped by
#     olddefconfig: that is the adaptation) by scripts/build-kernel.sh;
#   - tests/t63-split-unpatched-guest.sh with the patched kernel as the
#     host VM (GSO_KERNEL) and the unpatched one of the SAME release as
#     the control host VM and as the nested guests
#     (GSO_KERNEL_UNPATCHED): unpatched guests send 65160-byte TSO
#     payloads through a netdevsim port at r8169's limits (64000 / 64);
#     the patched host must send each as the split's pieces (65160 as
#     62264 + 2896 bytes, 43 + 2 segments: tests/harness/split-pieces.jq)
#     and cut 0 bytes to MSS, the control must not.
# T63_DEBIAN=0 (no Debian guest: the nested guest is the release's own
# unpatched kernel) unless CHECK_DISTRO_DEBIAN=1.  Builds go to
# $GSO_CACHE/distro-build/TARGET-{patched,unpatched}-<series hash>.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/../scripts/lib.sh"
cd "$GSO_TOP"

read -ra targets <<< "${CHECK_DISTRO_TARGETS:-linux-6.12.117 linux-7.1.8}"
debian=0
[ "${CHECK_DISTRO_DEBIAN:-0}" != 1 ] || debian=1
rc=0
for t in "${targets[@]}"; do
	[ -d "backports/$t/split" ] || die "no backports/$t/split"
	key=$(files_hash backports/"$t"/split/*.patch)
	p=$GSO_CACHE/distro-build/$t-patched-$key
	u=$GSO_CACHE/distro-build/$t-unpatched
	[ -e "$p/.git" ] || scripts/backport-tree.sh --dev "$p" "$t" >/dev/null
	[ -e "$u/.git" ] || scripts/backport-tree.sh --dev "$u" "$t" --unpatched >/dev/null
	log "$t: building the patched and the unpatched kernel (full builds, nice)"
	pk=$(timed nice -n 5 scripts/build-kernel.sh --tree "$p") || die "$t: patched kernel build failed"
	# The unpatched tree's first build starts from the patched one's
	# products (scripts/build-kernel.sh's sibling seed: same repository,
	# same configuration, complete build): kbuild recompiles what the
	# series touches and what includes it, not the whole kernel.
	uk=$(timed env GSO_KERNEL_SEED=all "GSO_KERNEL_SEED_FROM=$p" \
		nice -n 5 scripts/build-kernel.sh --tree "$u") || die "$t: unpatched kernel build failed"
	log "$t: t63 with host $pk, control and guests $uk"
	GSO_KERNEL=$pk GSO_KERNEL_UNPATCHED=$uk T63_DEBIAN=$debian \
		tests/run.sh tests/t63-split-unpatched-guest.sh || rc=1
done
exit $rc
