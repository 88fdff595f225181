#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build the patched QEMU and its qtest binaries, and run the series'
# qtests: the virtio-net GSO limits cases of tests/qtest/virtio-net-test.c
# (qos graph, the pc machine's virtio-net-pci), and
# tests/qtest/virtio-net-gso-limits-test (when the feature is offered:
# machine type, backend, offloads, checked through x-query-virtio-status;
# run-time changes through qom-set host_gso_max, held changes, reset,
# wake-up from S3 behind a PCIe root port, refused values, the refusal on
# virtio-mmio (microvm), and a migration between two QEMUs, accepted and
# refused for a named reason), plus checks of the built binary itself.  The qtests
# run as root in a network namespace of their own (unshare -n): QEMU opens
# taps with a vnet header there.
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

tree_args "$@"

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
for p in host_gso_limits host_gso_max host_gso_max_size host_gso_max_segs \
		x-gso-limits-unchecked; do
	grep -q "^  $p=" <<<"$props"
	check_err $? "virtio-net-pci,help does not list $p"
done
# The v2 names are gone (one state, one naming family).
for p in host-gso-limits host_gso_auto; do
	if grep -q "^  $p=" <<<"$props"; then
		check_err 1 "virtio-net-pci,help still lists $p"
	fi
done
log_test "qemu: virtio-net-pci lists the GSO limits properties (v3 names)"

# The feature is on by default from the 11.0 machine types on, which the
# series carries (patch 2); 10.2 keeps it off through hw_compat_10_2.
machines=$("$qemu" -M help 2>&1) || true
for m in pc-q35-11.0 pc-i440fx-11.0 pc-q35-10.2; do
	grep -q "^$m " <<<"$machines"
	check_err $? "-M help does not list $m"
done
grep -qE '^q35 +.*\(alias of pc-q35-11\.0\)' <<<"$machines"
check_err $? "q35 is not an alias of pc-q35-11.0"
log_test "qemu: machine types 11.0 exist and q35 points at pc-q35-11.0"

# Too small a size must stop QEMU at start, with the valid range.
want="'host_gso_max': the size must be between 1280 and 4294967295, the segments between 1 and 65535"
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

# --- the docs name only what the series has ------------------------------------
# Names and texts the v3 series removed (issue 25): a doc that still shows
# them as current tells a user something QEMU no longer does.  A line that
# names the revision it talks about (v1, v2, "v2's", "renamed from",
# "no longer") is history, not a claim.  Every doc is checked
# (GSO_DOCS_PENDING may list files a developer leaves out for a while).
removed=('host-gso-limits' 'host_gso_auto' 'or 0 for no size limit'
	'start it with host_gso_max_size or host_gso_max_segs set'
	'host_gso_max_segs=65535 to let' 'no hw_compat entry is needed'
	'feature is off by default' 'The feature is offered only when management asks')
: "${GSO_DOCS_PENDING:=}"
docs=()
while IFS= read -r f; do
	case " $GSO_DOCS_PENDING " in *" ${f#"$GSO_TOP"/} "*) continue ;; esac
	docs+=("$f")
done < <(find "$GSO_TOP/docs" -name '*.md' | sort; echo "$GSO_TOP/README.md")
for r in "${removed[@]}"; do
	hits=$(grep -nF -- "$r" "${docs[@]}" | grep -vE "\bv[12]\b|v[12]'s|renamed from|no longer|was removed" || true)
	[ -z "$hits" ] || check_err 1 "a doc still names '$r': ${hits//$'\n'/; }"
done
log_test "docs: no removed QEMU property, message or default named as current"

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
	run_netns "$bin" --tap -k "${pargs[@]}" > "$log_dir/$log.tap" 2> "$log_dir/$log.err" || rc=$?
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

# The qtests that need a tap with a vnet header (the feature requires
# HOST_TSO4/6 or USO) let QEMU open it: root, and a network namespace of
# their own, so that no tap appears in the machine's.
if [ "$(id -u)" -ne 0 ] || ! [ -c /dev/net/tun ]; then
	log_test "qtest: root and /dev/net/tun for the tap cases" FAIL "run as root"
	tests_exit
fi
run_netns() { unshare --net -- "$@"; }

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
