#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Tier 2, the host splits what an unpatched guest sends: the kernel
# selftest tools/testing/selftests/net/gso_split.sh of
# kernel-split-patches/ runs inside a host VM booting the project's kernel
# (kernel-patches/ + kernel-split-patches/), and, as negative controls,
# inside a second host VM booting the unpatched base at the same time and
# on this machine's own kernel (tier 1, in namespaces, no VM).
#
# The selftest sends GSO packets over a bridge port's gso_max_size or
# gso_max_segs (from a tap with a virtio-net header, as a guest's, and
# from a local TCP socket, IPv4 and IPv6), and routes the 64 KiB packets
# a veth's GRO builds (with a frag_list) to a port at r8169's 64000/64;
# it reads what the port is handed with PACKET_VNET_HDR: on the patched
# kernel every frame is a GSO packet within both limits, as few as the
# limits allow (no one-segment last piece where one segment fewer per
# piece gives as many: 65160 bytes at 64000 leave as 43 + 2 segments),
# with correct headers, IPv4 IDs, checksums and the stream's bytes, and
# TcpExt GSOSplit counts them; a port without TSO still gets MSS
# segments.  On
# the unpatched base every case that expects a split must fail (MSS
# segments, no counter), and so on this machine's kernel: if one passes
# there, the selftest proves nothing.
#
# Environment: GSO_SPLIT_TREE (the kernel tree to take the selftest and
# uapi headers from; default: the tree of the default kernel build),
# GSO_KERNEL (its bzImage), GSO_KERNEL_UNPATCHED (the control's bzImage;
# default scripts/build-kernel.sh --unpatched), T62_BASE=0 (no base VM:
# a developer's quick run before the base is built; make check runs it).
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"

with_base=${T62_BASE:-1}
tree=${GSO_SPLIT_TREE:-$("$GSO_TOP/scripts/tree.sh" linux "$GSO_TOP/kernel-patches" \
	"$GSO_TOP/kernel-split-patches")}
sel=$tree/tools/testing/selftests/net
if [ ! -f "$sel/gso_split.sh" ]; then
	log_test "gso split selftest" FAIL "no gso_split selftest in $tree"
	exit $ksft_fail
fi
require_command gcc "gso split selftest"
require_command bash "gso split selftest"

# The helper, static, against the tree's exported uapi headers.
make -s -C "$tree" ARCH=x86_64 headers >/dev/null
prog=$TEST_LOG_DIR/gso_split
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -isystem "$tree/usr/include" \
	-o "$prog" "$sel/gso_split.c"
check_err $? "the selftest helper does not build"
log_test "gso split selftest: helper builds statically against the tree's uapi"

# The selftest's files and what it runs that busybox lacks (bash for
# lib.sh, GNU date for its millisecond waits, readlink -e, iproute2's ip
# for netns, gso_max_size and veth), as a second initramfs.
extra=$TEST_LOG_DIR/gso-split-ksft.cpio.gz
extra_initrd "$extra" \
	"$sel/gso_split.sh:/opt/ksft/net/gso_split.sh" \
	"$sel/lib.sh:/opt/ksft/net/lib.sh" \
	"$sel/lib/sh/defer.sh:/opt/ksft/net/lib/sh/defer.sh" \
	"$prog:/opt/ksft/net/gso_split" \
	"$(command -v bash):/opt/ksft/bin/bash" \
	"$(command -v date):/opt/ksft/bin/date" \
	"$(command -v readlink):/opt/ksft/bin/readlink" \
	"$(command -v ip):/opt/ksft/bin/ip"

# The host VM's /test.sh (busybox sh): run the selftest, copy its output to
# the console with a prefix the host side reads.
script=$TEST_LOG_DIR/gso-split.guest.sh
cat > "$script" <<'GUEST'
export PATH=/opt/ksft/bin:$PATH
# ip netns keeps its namespaces in /var/run/netns; the initramfs has /run.
[ -e /var/run ] || { mkdir -p /var && ln -s /run /var/run; }
cd /opt/ksft/net || exit 1
bash ./gso_split.sh > /tmp/out 2>&1
rc=$?
sed 's/^/KSFT: /' /tmp/out
exit $rc
GUEST

vm_init
setup_ns VMNS_PATCHED VMNS_BASE
VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" vm_start split "$VMNS_PATCHED" "$script"
if [ "$with_base" = 1 ]; then
	unpatched=${GSO_KERNEL_UNPATCHED:-$("$GSO_TOP/scripts/build-kernel.sh" --unpatched)}
	VM_EXTRA_INITRD=$extra VM_APPEND="loglevel=4" VM_KERNEL=$unpatched \
		vm_start split-base "$VMNS_BASE" "$script"
fi
rc=0
vm_wait split || rc=$?
rc_base=0
[ "$with_base" = 0 ] || vm_wait split-base || rc_base=$?

# results NAME: the selftest's "TEST: <name> [ OK ]|[FAIL]" lines of a VM,
# as "OK|FAIL<tab>name".
results() {
	tr -d '\r' < "$TEST_LOG_DIR/$1.console.log" |
		sed -n 's/^KSFT: TEST: \(.*[^ ]\) *\[ *\([A-Z]*\) *\]$/\2\t\1/p'
}

con=$TEST_LOG_DIR/split.console.log
lines=$(results split)
[ -n "$lines" ]
check_err $? "no selftest results on the console ($con)"
log_test "gso split selftest: results reported by the patched host VM"
while IFS=$'\t' read -r res name; do
	[ -n "$name" ] || continue
	case $res in
	OK) log_test "gso split selftest: $name" OK ;;
	# Nothing but missing KVM may skip (docs/testing.md, "Skips").
	SKIP) log_test "gso split selftest: $name" FAIL "the selftest skipped it; see $con" ;;
	*) log_test "gso split selftest: $name" FAIL "see $con" ;;
	esac
done <<< "$lines"
check_eq "selftest exit code in the patched host VM" "$rc" 0
log_test "gso split selftest: exit code"

# Negative controls: every case that expects a split must fail on a kernel
# without the series.  Here, on this machine's own kernel (tier 1: no VM,
# the selftest in namespaces of its own) ...
if grep -q GSOSplit /proc/net/netstat; then
	log_test "gso split selftest: fails on this machine's kernel" SKIP \
		"$(uname -r) has the series (TcpExt GSOSplit)"
else
	ctl=$TEST_LOG_DIR/gso-split-host
	mkdir -p "$ctl/lib/sh"
	cp "$sel/gso_split.sh" "$sel/lib.sh" "$prog" "$ctl/"
	cp "$sel/lib/sh/defer.sh" "$ctl/lib/sh/"
	(cd "$ctl" && bash ./gso_split.sh) > "$ctl/out" 2>&1 || true
	lines=$(sed -n 's/^TEST: \(.*[^ ]\) *\[ *\([A-Z]*\) *\]$/\2\t\1/p' "$ctl/out")
	n_split=$(grep -c 'split' <<< "$lines" || true)
	[ "$n_split" -ge 6 ]
	check_err $? "this machine's kernel ($(uname -r)) reported $n_split split cases ($ctl/out)"
	passed=$(awk -F'\t' '$1 == "OK" && $2 ~ /split/ { print $2 }' <<< "$lines")
	[ -z "$passed" ]
	check_err $? "split cases that pass on $(uname -r): $passed"
	log_test "gso split selftest: every split case fails on this machine's kernel $(uname -r) ($n_split)"
fi

# ... and on the unpatched base booted as the host VM.
if [ "$with_base" = 0 ]; then
	log_test "gso split selftest: fails on the unpatched base" SKIP "T62_BASE=0"
	tests_exit
fi
con=$TEST_LOG_DIR/split-base.console.log
lines=$(results split-base)
n_split=$(grep -c 'split' <<< "$lines" || true)
[ "$n_split" -ge 6 ]
check_err $? "the unpatched host VM reported $n_split split cases ($con)"
passed=$(awk -F'\t' '$1 == "OK" && $2 ~ /split/ { print $2 }' <<< "$lines")
[ -z "$passed" ]
check_err $? "split cases that pass on the unpatched base: $passed"
[ "$rc_base" -ne 0 ] && [ "$rc_base" -ne 255 ]
check_err $? "selftest exit code on the unpatched base: $rc_base (want a failure, not a crash)"
log_test "gso split selftest: every split case fails on the unpatched base ($n_split)"

tests_exit
