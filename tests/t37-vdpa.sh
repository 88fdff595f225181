#!/usr/bin/env bash
# Issue 26 item 1: the vDPA core reads a net device's config space only as
# far as the device implements it (kernel patch 1), and the series' growth
# of struct virtio_net_config (patches 6-7) does not change what a device
# that implements the whole structure reports.  The short-config side is
# the KUnit suite vdpa_net_config (t15: a device that implements 24 bytes,
# as pds, octeon_ep and eni do, fails on v2); this test is its real-device
# half: vdpa_sim_net (the in-tree simulator, not a stand-in) in the project
# kernel, read with iproute2's vdpa tool the way any local user can
# ('vdpa dev config show' needs no privilege), with panic_on_warn=1 so that
# a WARN from any config read is a failed boot, not a log line.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"
vm_init
require_command vdpa "vdpa: iproute2's vdpa tool"

MAC=02:00:5e:10:20:30
MTU=1400
VM=vdpa
setup_ns VNS

extra=$TEST_LOG_DIR/vdpa-tool.cpio.gz
extra_initrd "$extra" "$(command -v vdpa):/opt/gso/bin/vdpa"

script=$TEST_LOG_DIR/$VM.guest.sh
cat > "$script" <<GUEST
V=/opt/gso/bin/vdpa
echo "VDPA-MGMT: \$(\$V mgmtdev show 2>&1 | tr '\n' ' ')"
\$V dev add mgmtdev vdpasim_net name vdpa0 mac $MAC mtu $MTU 2>&1 || echo "VDPA-ADD: failed"
echo "VDPA-CONFIG: \$(\$V dev config show vdpa0 2>&1 | tr '\n' ' ')"
# A local user's read: the same request from an unprivileged process.
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >> /etc/passwd
echo 'nogroup:x:65534:' >> /etc/group
echo "VDPA-CONFIG-USER: \$(su -s /bin/sh nobody -c "\$V dev config show vdpa0" 2>&1 | tr '\n' ' ')"
\$V dev del vdpa0 2>&1 || echo "VDPA-DEL: failed"
echo "VDPA-DONE: 1"
GUEST

rc=0
VM_EXTRA_INITRD=$extra VM_APPEND="panic_on_warn=1" vm_run "$VM" "$VNS" "$script" || rc=$?
con() { tr -d '\r' < "$TEST_LOG_DIR/$VM.console.log" 2>/dev/null || true; }
gval() { con | sed -n "s/^$1: //p" | tail -n 1; }

check_eq "guest exit code" "$rc" 0
check_eq "the guest script ran to its end" "$(gval VDPA-DONE)" 1
if con | grep -qE 'WARNING:|Call Trace:|Kernel panic'; then
	check_err 1 "a WARN or a panic on the console ($TEST_LOG_DIR/$VM.console.log)"
fi
log_test "vdpa: the kernel boots with panic_on_warn=1 and reads configs without a WARN"

case "$(gval VDPA-MGMT)" in
*vdpasim_net*) ;;
*) check_err 1 "no vdpasim_net management device: $(gval VDPA-MGMT)" ;;
esac
log_test "vdpa: vdpa_sim_net's management device is there"

cfg=$(gval VDPA-CONFIG)
for want in "mac $MAC" "link up" "mtu $MTU"; do
	case "$cfg" in
	*"$want"*) ;;
	*) check_err 1 "'vdpa dev config show' lacks '$want': $cfg" ;;
	esac
done
log_test "vdpa: vdpa_sim_net reports its full config (mac, link, mtu) with the grown struct"

user=$(gval VDPA-CONFIG-USER)
case "$user" in
*"mac $MAC"*) ;;
*) check_err 1 "an unprivileged read did not return the config: $user" ;;
esac
log_test "vdpa: an unprivileged user reads the same config"
tests_exit
