#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 7: mixed versions.  Every guest {patched kernel, unpatched base
# kernel, Debian's own kernel} on every QEMU {patched with the feature on
# (machine type pc = pc-i440fx-11.0, where it is on by default, with the
# path's values), patched with an old machine type (pc-i440fx-10.2: the
# feature off through hw_compat_10_2, nothing on the command line: old
# machine types are unchanged), unpatched base}, on the r8169 profile.
# Every cell must pass a content-checked stream; only patched guest +
# feature on may change the guest's limits (to the device's 64000/64).
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
vm_init

BYTES=$((4 << 20))
ON="host_gso_max_size=64000,host_gso_max_segs=64"

qemu_base=$("$GSO_TOP/scripts/build-qemu.sh" --unpatched) || {
	log_test "compat: build the unpatched QEMU" FAIL; tests_exit; }
kernel_base=$("$GSO_TOP/scripts/build-kernel.sh" --unpatched) || {
	log_test "compat: build the unpatched kernel" FAIL; tests_exit; }
distro=$("$GSO_TOP/scripts/fetch-distro-kernel.sh") || {
	log_test "compat: fetch Debian's kernel" FAIL; tests_exit; }

# docs/compatibility.md names the Debian kernel of its run; print the one
# this run uses, so that the table can be traced to a run.
# ($distro/version: "Package: linux-image-6.1.0-57-amd64 Version: 6.1.192-3")
debian_version=$(sed -n 's/^Package: linux-image-\([^ ]*\) Version: \([^ ]*\).*/\1 (\2)/p' \
	"$distro/version" 2>/dev/null || true)
# The version is information for the table (compatibility.md), not a
# check: only its absence (a broken fetch) fails.
if [ -n "$debian_version" ]; then
	echo "    Debian's own kernel: $debian_version"
else
	log_test "compat: Debian's own kernel has no package version ($distro/version)" FAIL
fi

declare -A KERNEL=([patched]=$GSO_KERNEL [base]=$kernel_base [debian]=$distro/vmlinuz)
declare -A EXTRA=([patched]="" [base]="" [debian]=$distro/modules.cpio.gz)
declare -A QEMU=([on]=$GSO_QEMU [off]=$GSO_QEMU [base]=$qemu_base)
declare -A PROPS=([on]=$ON [off]="" [base]="")
declare -A MACHINE=([on]=pc [off]=pc-i440fx-10.2 [base]=pc)

results=$TEST_LOG_DIR/compat-matrix.txt
printf '| guest \\ QEMU | patched, feature on (pc-i440fx-11.0) | patched, pc-i440fx-10.2 (feature off) | unpatched |\n|---|---|---|---|\n' > "$results"
for g in patched base debian; do
	row="| $g"
	for q in on off base; do
		topo_tier1 r8169
		want="65536/65535"
		[ "$g$q" = patchedon ] && want="64000/64"
		VM_KERNEL=${KERNEL[$g]} VM_EXTRA_INITRD=${EXTRA[$g]} VM_QEMU=${QEMU[$q]} \
			VM_MACHINE=${MACHINE[$q]} bulk_run "compat-$g-$q" $BYTES 4 "${PROPS[$q]}"
		got="$(link_field "$BULK_GUEST_LINK" tso_max_size)/$(link_field "$BULK_GUEST_LINK" tso_max_segs)"
		check_eq "guest limits" "$got" "$want"
		[ "$BULK_OK" = 1 ] || check_err 1 "the stream was not verified on both ends"
		cell="traffic ok, $got"
		[ "$RET" = 0 ] || cell="FAIL ($got)"
		row="$row | $cell"
		log_test "compat: guest $g on QEMU $q: traffic verified, limits $want"
		defer_cleanup
	done
	echo "$row |" >> "$results"
done
cat "$results"
tests_exit
