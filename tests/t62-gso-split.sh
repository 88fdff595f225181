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
# from a local TCP socket, IPv4 and IPv6), routes the 64 KiB packets a
# veth's GRO builds (with a frag_list: not split) to a port at r8169's
# 64000/64, and feeds a netdevsim port whose ndo_features_check() refuses
# RTL8168evl's frag layout (last frag 6 bytes or less) packets whose first
# piece has one; it reads what the port is handed with PACKET_VNET_HDR:
# on the patched kernel every frame is a GSO packet within both limits,
# as few as the limits allow (65160 bytes at 64000 leave as 43 + 2
# segments), with correct headers, TCP flags (ECN), IPv4 IDs, checksums
# and the stream's bytes; a frame of exactly gso_max_size is split, one
# byte under is not; a VLAN-tagged packet's pieces carry its tag, an IPv6
# packet's pieces its hop-by-hop and destination options headers;
# /proc/net/softnet_stat's split column counts them; the netdevsim driver
# never gets a GSO packet its check refuses; a port without TSO still gets
# MSS segments, and UDP_L4 packets from the tap and a TCP stream over VXLAN
# over the limits are still segmented (their controls: the same within
# the limits leave as GSO packets; these cases do not say "split" and
# pass on every kernel).  On the unpatched base every case
# that expects a split must fail, and fail for its frames (the line the
# selftest prints under the failed case names the frames, not a missing
# counter); so on this machine's kernel.  The same split cases as the
# patched run, by name, not a fixed count.
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
tree=${GSO_SPLIT_TREE:-$("$GSO_TOP/scripts/tree.sh" linux-stack)}
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
	-o "$prog" "$sel/gso_split.c" || check_err $? "the selftest helper does not build"
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

# results FILE: the selftest's "TEST: <name> [ OK ]|[FAIL]|[SKIP]" lines
# in FILE (a console log, "KSFT: " prefixes, or the selftest's own
# output), as "RESULT<tab>name<tab>reason", the reason being the line
# log_test prints under a failed case.
results() {
	tr -d '\r' < "$1" | sed 's/^KSFT: //' | awk '
		function flush() { if (name != "") print res "\t" name "\t" why; name = "" }
		/^TEST: / {
			flush()
			line = $0; sub(/^TEST: /, "", line)
			res = line; sub(/^.*\[ */, "", res); sub(/ *\] *$/, "", res)
			name = line; sub(/ *\[ *[A-Z]* *\] *$/, "", name)
			why = ""; next
		}
		name != "" && why == "" && /^\t/ { why = $0; sub(/^\t+/, "", why); next }
		END { flush() }'
}

con=$TEST_LOG_DIR/split.console.log
lines=$(results "$con")
[ -n "$lines" ] || check_err 1 "no selftest results on the console ($con)"
log_test "gso split selftest: results reported by the patched host VM"
while IFS=$'\t' read -r res name why; do
	[ -n "$name" ] || continue
	case $res in
	OK) log_test "gso split selftest: $name" OK ;;
	# Nothing but missing KVM may skip (docs/testing.md, "Skips").
	SKIP) log_test "gso split selftest: $name" FAIL "the selftest skipped it; see $con" ;;
	*) log_test "gso split selftest: $name" FAIL "${why:+$why; }see $con" ;;
	esac
done <<< "$lines"
check_eq "selftest exit code in the patched host VM" "$rc" 0
log_test "gso split selftest: exit code"
# The cases that expect a split (their names say so), as the patched
# kernel ran them: the controls must fail each of them.
split_cases=$(awk -F'\t' '$2 ~ /split/ { print $2 }' <<< "$lines")
n_split=$(grep -c . <<< "$split_cases" || true)

# control_verdict WHERE LINES [ALLOW_SKIP_RE]: every split case of the
# patched run is in LINES and failed there for its frames (the selftest
# checks the frames before any counter, so a kernel without the counter
# fails on the frames first), not because something is missing; a case
# matching ALLOW_SKIP_RE may skip (a module the machine lacks).
control_verdict() {
	local where=$1 ctl_lines=$2 allow=${3:-} name res why bad=
	while IFS= read -r name; do
		[ -n "$name" ] || continue
		res=$(awk -F'\t' -v n="$name" '$2 == n { print $1 "\t" $3; exit }' <<< "$ctl_lines")
		why=${res#*$'\t'} res=${res%%$'\t'*}
		if [ "$res" = SKIP ] && [ -n "$allow" ] && [[ $name =~ $allow ]]; then
			continue
		fi
		if [ "$res" != FAIL ] || [[ $why != frames\ leaving* ]]; then
			bad+="${bad:+; }'$name': ${res:-not run}${why:+ ($why)}"
		fi
	done <<< "$split_cases"
	[ -z "$bad" ] || check_err 1 "$where: split cases not failed by their frames: $bad"
}

# Negative controls: every case that expects a split must fail, for its
# frames, on a kernel without the series.  Here, on this machine's own
# kernel (tier 1: no VM, the selftest in namespaces of its own) ...
if [ "$(awk '{ print NF; exit }' /proc/net/softnet_stat)" -ge 17 ]; then
	log_test "gso split selftest: fails on this machine's kernel" SKIP \
		"$(uname -r) has the series (17 columns in /proc/net/softnet_stat)"
else
	ctl=$TEST_LOG_DIR/gso-split-host
	mkdir -p "$ctl/lib/sh"
	cp "$sel/gso_split.sh" "$sel/lib.sh" "$prog" "$ctl/"
	cp "$sel/lib/sh/defer.sh" "$ctl/lib/sh/"
	(cd "$ctl" && bash ./gso_split.sh) > "$ctl/out" 2>&1 || true
	[ "$n_split" -ge 1 ] || check_err 1 "the patched run reported no split case"
	# No netdevsim on this machine's kernel: the driver case may skip.
	control_verdict "$(uname -r)" "$(results "$ctl/out")" '^driver check'
	log_test "gso split selftest: every split case fails for its frames on this machine's kernel $(uname -r) ($n_split)"
fi

# ... and on the unpatched base booted as the host VM.
if [ "$with_base" = 0 ]; then
	log_test "gso split selftest: fails on the unpatched base" SKIP "T62_BASE=0"
	tests_exit
fi
con=$TEST_LOG_DIR/split-base.console.log
[ "$n_split" -ge 1 ] || check_err 1 "the patched run reported no split case"
control_verdict "the unpatched base" "$(results "$con")"
if [ "$rc_base" -eq 0 ] || [ "$rc_base" -eq 255 ]; then
	check_err 1 "selftest exit code on the unpatched base: $rc_base (want a failure, not a crash)"
fi
log_test "gso split selftest: every split case fails for its frames on the unpatched base ($n_split)"

tests_exit
