#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the patched QEMU and its qtest binaries, and run the series'
# qtests: the virtio-net GSO limits cases of tests/qtest/virtio-net-test.c
# (qos graph, the pc machine's virtio-net-pci), and
# tests/qtest/virtio-net-gso-limits-test (run-time changes through
# qom-set host-gso-limits, held changes, reset, refused values, and a
# migration between two QEMUs, accepted and refused), plus checks of the
# built binary itself.
#
#   tests/qemu-qtest.sh [--tree DIR]
#
# Default: the pinned base with qemu-patches/ applied; --tree DIR: a
# developer tree as it is (scripts/devtree.sh qemu).  Prints one
# "TEST: name [ OK ]|[FAIL]|[SKIP]" line per qtest case (from the
# binaries' TAP output) and per check; exits 0 when all passed, 1 otherwise.
# From a fresh cache this builds QEMU (scripts/build-qemu.sh, ~1400 ninja
# steps; ccache makes a rebuild cheap); warm, it takes a few seconds.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

build_args=()
case "${1:-}" in
"") ;;
--tree) [ $# -eq 2 ] || { echo "usage: $0 [--tree DIR]" >&2; exit 2; }
	build_args=(--tree "$2") ;;
*) echo "usage: $0 [--tree DIR]" >&2; exit 2 ;;
esac

log_dir=$TEST_LOG_DIR/qemu-qtest
mkdir -p "$log_dir"

if ! qemu=$("$GSO_TOP/scripts/build-qemu.sh" "${build_args[@]}" -- tests/qtest/qos-test \
		tests/qtest/virtio-net-gso-limits-test 2> "$log_dir/build.err"); then
	cat "$log_dir/build.err" >&2
	log_test "qemu: build qemu-system-x86_64 and the qtests" FAIL "see $log_dir/build.err"
	tests_exit
fi
builddir=$(dirname "$qemu")
qos_test=$builddir/tests/qtest/qos-test
gso_test=$builddir/tests/qtest/virtio-net-gso-limits-test
log_test "qemu: build qemu-system-x86_64 and the qtests"

# --- the binary itself -------------------------------------------------------
props=$("$qemu" -device virtio-net-pci,help 2>&1) || true
for p in host_gso_max_size host_gso_max_segs host-gso-limits x-gso-limits-unchecked; do
	grep -q "^  $p=" <<<"$props"
	check_err $? "virtio-net-pci,help does not list $p"
done
log_test "qemu: virtio-net-pci lists the GSO limits properties"

# Too small a size must stop QEMU at start, with the valid range.
want="'host_gso_max_size' must be between 1280 and 4294967295, or 0 for no size limit"
for size in 100 1279; do
	rc=0
	out=$("$qemu" -M q35 -accel qtest -nodefaults -display none \
		-netdev user,id=n0 -device "virtio-net-pci,netdev=n0,host_gso_max_size=$size" \
		</dev/null 2>&1) || rc=$?
	check_eq "exit status with host_gso_max_size=$size" "$rc" 1
	grep -qF "$want" <<<"$out"
	check_err $? "host_gso_max_size=$size: message not found in: $out"
done
log_test "qemu: host_gso_max_size=100 and =1279 fail at start"

# q35 + TCG + qboot, as the VM harness boots: it must start and answer.
rc=0
out=$(printf 'info version\nquit\n' | timeout 60 "$qemu" -M q35 -accel tcg \
	-bios qboot.rom -vga none -nodefaults -display none -monitor stdio \
	-netdev user,id=n0 -device virtio-net-pci,netdev=n0,host_gso_max_size=64000 \
	2>&1) || rc=$?
check_eq "exit status of a q35/tcg/qboot start" "$rc" 0
grep -q '10\.2\.' <<<"$out"
check_err $? "no version from the monitor: $out"
log_test "qemu: q35 with TCG and qboot starts and quits"

# --- qtests ------------------------------------------------------------------
# run_qtests BINARY LOG PATH-REGEX NAME-SED: run BINARY's cases whose
# paths match PATH-REGEX (TAP output in $log_dir/LOG.tap), one TEST line
# per case, named by NAME-SED applied to its path.
run_qtests() {
	local bin=$1 log=$2 filter=$3 namesed=$4 line path name seen=0 rc=0 p
	local paths=() pargs=()
	mapfile -t paths < <("$bin" -l 2>/dev/null | grep -E "$filter" || true)
	if [ ${#paths[@]} -eq 0 ]; then
		log_test "qtest: $log cases" FAIL "${bin##*/} lists none (is the series applied?)"
		return
	fi
	for p in "${paths[@]}"; do
		pargs+=(-p "$p")
	done
	"$bin" --tap -k "${pargs[@]}" > "$log_dir/$log.tap" 2> "$log_dir/$log.err" || rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "* | "not ok "*) ;;
		*) continue ;;
		esac
		path=$(sed -E 's/^(not )?ok [0-9]+ +//; s/ *#.*$//' <<<"$line")
		name=$(sed -E "$namesed" <<<"$path")
		seen=$((seen + 1))
		case "$line" in
		"not ok "*) log_test "qtest: $name" FAIL "see $log_dir/$log.{tap,err}" ;;
		# The project's own QEMU builds everything its cases need: a case
		# that skips is a failure here, not a skip (issue 15: no skips).
		*"# SKIP"*) log_test "qtest: $name" FAIL "skipped:${line##*# SKIP}" ;;
		*) log_test "qtest: $name" ;;
		esac
	done < "$log_dir/$log.tap"
	if [ "$seen" -ne ${#paths[@]} ]; then
		log_test "qtest: all ${#paths[@]} listed $log cases reported" FAIL \
			"$seen reported, exit status $rc; see $log_dir/$log.err"
	elif [ "$rc" -ne 0 ]; then
		log_test "qtest: $log exit status" FAIL "$rc; see $log_dir/$log.err"
	fi
}

# qos-test asks the binary for its machines and devices even to list.
export QTEST_QEMU_BINARY=$qemu
# "ok 3 /x86_64/pc/i440FX-pcihost/.../virtio-net-pci-tests/gso_limits/offered/size_only"
# becomes "qtest: x86_64/pc gso_limits/offered/size_only".
run_qtests "$qos_test" qos-test '/virtio-net-pci-tests/gso_limits/' \
	's@^/([^/]+)/([^/]+)/.*/virtio-net-pci-tests/@\1/\2 @'
# "ok 1 /x86_64/virtio-net/gso-limits/runtime" becomes
# "qtest: x86_64 virtio-net/gso-limits/runtime".
run_qtests "$gso_test" virtio-net-gso-limits-test '/virtio-net/gso-limits/' \
	's@^/([^/]+)/@\1 @'
tests_exit
