#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make check-distro-qemu (opt-in, not in make check): build the QEMU
# backport for packagers (backports/qemu-10.2.2, the series off by default
# for releases without the 11.0 machine types) fully, and run the series'
# own qtests on it: the GSO limits cases of tests/qtest/virtio-net-test.c
# (qos-test) and tests/qtest/virtio-net-gso-limits-test, as the backport
# adapted them (every case that expects the feature turns it on; the pc
# and q35 machine types do not offer it by default).  Plus checks of the
# binary: no 11.0 machine types, host_gso_limits off by default.
#
#   tests/check-distro-qemu.sh
#
# The tree is the pinned QEMU 10.2.2 with the backport applied with git am
# (scripts/export-backport-qemu.sh tree); tests/t08-backports-qemu.sh
# checks that Debian's quilt series and pve-qemu's series give the same
# files.  Debian 13's QEMU 10.0.13 gets no backport (t08 checks why).
# From an empty cache this is a full QEMU build (~1500 ninja steps).
# Run as root: the qtests open taps in a network namespace of their own.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
cd "$GSO_TOP"

log_dir=$TEST_LOG_DIR/check-distro-qemu
mkdir -p "$log_dir"

if [ "$(id -u)" -ne 0 ] || ! [ -c /dev/net/tun ]; then
	log_test "check-distro-qemu: root and /dev/net/tun for the tap cases" FAIL "run as root"
	tests_exit
fi

tree=$(scripts/export-backport-qemu.sh tree 2> "$log_dir/tree.err") || {
	log_test "check-distro-qemu: the backport applies with git am" FAIL "$(tail -n 3 "$log_dir/tree.err")"
	tests_exit
}
start=$(date +%s)
if ! qemu=$(nice -n 5 scripts/build-qemu.sh --tree "$tree" -- tests/qtest/qos-test \
		tests/qtest/virtio-net-gso-limits-test 2> "$log_dir/build.err"); then
	tail -n 20 "$log_dir/build.err" >&2
	log_test "check-distro-qemu: build the backport fully (QEMU 10.2.2)" FAIL "see $log_dir/build.err"
	tests_exit
fi
log_test "check-distro-qemu: build the backport fully (QEMU 10.2.2, $(( $(date +%s) - start )) s)"
builddir=$(dirname "$qemu")

machines=$("$qemu" -M help 2>&1) || true
if grep -q -- '-11\.0 ' <<<"$machines"; then
	check_err 1 "-M help lists 11.0 machine types"
fi
grep -qE '^q35 +.*\(alias of pc-q35-10\.2\)' <<<"$machines"
check_err $? "q35 is not an alias of pc-q35-10.2"
props=$("$qemu" -device virtio-net-pci,help 2>&1) || true
grep -qE '^  host_gso_limits=<bool> .*\(default: off\)' <<<"$props"
check_err $? "host_gso_limits is not off by default: $(grep 'host_gso_limits=' <<<"$props")"
log_test "check-distro-qemu: no 11.0 machine types; host_gso_limits off by default"

# run_qtests BINARY NAME PATH-REGEX: BINARY's cases matching PATH-REGEX,
# one TEST line each (a skipped case fails: everything they need is here).
run_qtests() {
	local bin=$1 name=$2 filter=$3 line p rc=0 seen=0 paths=() pargs=()
	mapfile -t paths < <("$bin" -l 2>/dev/null | grep -E "$filter" || true)
	if [ ${#paths[@]} -eq 0 ]; then
		log_test "check-distro-qemu: $name cases" FAIL "${bin##*/} lists none"
		return
	fi
	for p in "${paths[@]}"; do pargs+=(-p "$p"); done
	unshare --net -- "$bin" --tap -k "${pargs[@]}" > "$log_dir/$name.tap" 2> "$log_dir/$name.err" || rc=$?
	while IFS= read -r line; do
		case "$line" in "ok "* | "not ok "*) ;; *) continue ;; esac
		p=$(sed -E 's/^(not )?ok [0-9]+ +//; s/ *#.*$//; s@^.*/virtio-net-pci-tests/@@; s@^/x86_64/@@' <<<"$line")
		seen=$((seen + 1))
		case "$line" in
		"not ok "*) log_test "check-distro-qemu: $p" FAIL "see $log_dir/$name.{tap,err}" ;;
		*"# SKIP"*) log_test "check-distro-qemu: $p" FAIL "skipped:${line##*# SKIP}" ;;
		*) log_test "check-distro-qemu: $p" ;;
		esac
	done < "$log_dir/$name.tap"
	if [ "$seen" -ne ${#paths[@]} ] || [ "$rc" -ne 0 ]; then
		log_test "check-distro-qemu: all ${#paths[@]} $name cases ran" FAIL \
			"$seen reported, exit status $rc; see $log_dir/$name.err"
	fi
}
export QTEST_QEMU_BINARY=$qemu
run_qtests "$builddir/tests/qtest/qos-test" qos-test '/virtio-net-pci-tests/gso_limits/'
run_qtests "$builddir/tests/qtest/virtio-net-gso-limits-test" virtio-net-gso-limits-test \
	'/virtio-net/gso-limits/'
tests_exit
