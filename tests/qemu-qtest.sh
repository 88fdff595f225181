#!/usr/bin/env bash
# Build the patched QEMU and its qos-test binary, and run the series'
# qtests: the virtio-net GSO limits cases of tests/qtest/virtio-net-test.c
# (qos graph, every machine that has virtio-net-pci: pc and q35; the
# gso_limits/offered/auto* cases cover host_gso_auto without a tap), plus
# checks of the built binary itself (host_gso_auto's fallback warning).
#
#   tests/qemu-qtest.sh [--tree DIR]
#
# Default: the pinned base with qemu-patches/ applied; --tree DIR: a
# developer tree as it is (scripts/devtree.sh qemu).  Prints one
# "TEST: name [ OK ]|[FAIL]|[SKIP]" line per qtest case (from qos-test's
# TAP output) and per check; exits 0 when all passed, 1 otherwise.
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
		2> "$log_dir/build.err"); then
	cat "$log_dir/build.err" >&2
	log_test "qemu: build qemu-system-x86_64 and qos-test" FAIL "see $log_dir/build.err"
	tests_exit
fi
builddir=$(dirname "$qemu")
qos_test=$builddir/tests/qtest/qos-test
log_test "qemu: build qemu-system-x86_64 and qos-test"

# --- the binary itself -------------------------------------------------------
props=$("$qemu" -device virtio-net-pci,help 2>&1) || true
for p in host_gso_max_size host_gso_max_segs x-gso-limits-unchecked; do
	grep -q "^  $p=" <<<"$props"
	check_err $? "virtio-net-pci,help does not list $p"
done
log_test "qemu: virtio-net-pci lists the GSO limits properties"

# An out-of-range size must stop QEMU at start, with the valid range.
want="'host_gso_max_size' must be between 1280 and 65536, or 0 for no size limit"
for size in 1000 70000; do
	rc=0
	out=$("$qemu" -M q35 -accel qtest -nodefaults -display none \
		-netdev user,id=n0 -device "virtio-net-pci,netdev=n0,host_gso_max_size=$size" \
		</dev/null 2>&1) || rc=$?
	check_eq "exit status with host_gso_max_size=$size" "$rc" 1
	grep -qF "$want" <<<"$out"
	check_err $? "host_gso_max_size=$size: message not found in: $out"
done
log_test "qemu: host_gso_max_size=1000 and =70000 fail at start"

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

# host_gso_auto on a backend that is not a tap: no limit, one warning.
rc=0
out=$(printf 'quit\n' | timeout 60 "$qemu" -M q35 -accel tcg \
	-bios qboot.rom -vga none -nodefaults -display none -monitor stdio \
	-netdev user,id=n0 -device virtio-net-pci,netdev=n0,host_gso_auto=on \
	2>&1) || rc=$?
check_eq "exit status with host_gso_auto=on on -netdev user" "$rc" 0
check_eq "fallback warnings" "$(grep -c "host_gso_auto: netdev n0 cannot report its host path's GSO limits; offering no limit (65536 bytes, 65535 segments)" <<<"$out")" 1
log_test "qemu: host_gso_auto=on without a tap warns once and starts"

# --- qtests ------------------------------------------------------------------
# qos-test asks the binary for its machines and devices even to list.
export QTEST_QEMU_BINARY=$qemu
mapfile -t paths < <("$qos_test" -l 2>/dev/null | grep '/virtio-net-pci-tests/gso_limits/' || true)
if [ ${#paths[@]} -eq 0 ]; then
	log_test "qtest: virtio-net gso_limits cases" FAIL "qos-test lists none (is the series applied?)"
	tests_exit
fi
pargs=()
for p in "${paths[@]}"; do
	pargs+=(-p "$p")
done
rc=0
"$qos_test" --tap -k "${pargs[@]}" > "$log_dir/qos-test.tap" 2> "$log_dir/qos-test.err" || rc=$?
# "ok 3 /x86_64/pc/i440FX-pcihost/.../virtio-net-pci-tests/gso_limits/range"
# becomes "qtest: x86_64/pc gso_limits/range".
seen=0
while IFS= read -r line; do
	case "$line" in
	"ok "* | "not ok "*) ;;
	*) continue ;;
	esac
	path=$(sed -E 's/^(not )?ok [0-9]+ +//; s/ *#.*$//' <<<"$line")
	name=$(sed -E 's@^/([^/]+)/([^/]+)/.*/virtio-net-pci-tests/@\1/\2 @' <<<"$path")
	seen=$((seen + 1))
	case "$line" in
	"not ok "*) log_test "qtest: $name" FAIL "see $log_dir/qos-test.{tap,err}" ;;
	# The project's own QEMU builds everything its cases need: a case
	# that skips is a failure here, not a skip (issue 15: no skips).
	*"# SKIP"*) log_test "qtest: $name" FAIL "skipped:${line##*# SKIP}" ;;
	*) log_test "qtest: $name" ;;
	esac
done < "$log_dir/qos-test.tap"
if [ "$seen" -ne ${#paths[@]} ]; then
	log_test "qtest: all ${#paths[@]} listed cases reported" FAIL \
		"$seen reported, qos-test exit status $rc; see $log_dir/qos-test.err"
elif [ "$rc" -ne 0 ]; then
	log_test "qtest: qos-test exit status" FAIL "$rc; see $log_dir/qos-test.err"
fi
tests_exit
