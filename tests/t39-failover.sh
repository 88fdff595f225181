#!/usr/bin/env bash
# Issue 26 (left from session 7): net_failover, in a test.  Userspace cannot
# create a net_failover master; QEMU makes the guest kernel create one: a
# virtio-net-pci standby with failover=on (VIRTIO_NET_F_STANDBY) and an
# e1000e primary with failover_pair_id naming it, each on a PCIe root port
# of a q35 machine (QEMU plugs the primary only on a PCIe bus, and only once
# the guest acked STANDBY; QEMU's own tests/qtest/virtio-net-failover.c pairs
# an e1000 the same way).  The project kernel has no PCIe hotplug driver, so
# the guest rescans the PCI bus to find the plugged primary.  In the guest,
# virtio_net creates the net_failover master, with the virtio-net standby
# and the e1000e primary as its slaves: real drivers on emulated devices.
#
# The series withdrew net_failover (cover letter, docs/design.md: it takes no
# TSO limit from its slaves at all, not even a decrease), so this test
# asserts exactly that, next to what the standby does:
#   - the standby takes the device's limits, 64000/64 at boot and 48000/32
#     after a run-time drop (qom-set host_gso_max) with the master up, as
#     tso_max and gso_max;
#     on a kernel without kernel-patches/ it keeps 65536/65535 (the check
#     fails there);
#   - the master keeps its defaults, 65536/65535, at boot and after the
#     drop: if net_failover starts following, this fails and the docs must
#     change with it (docs/claims.tsv ties docs/design.md's and
#     docs/testing.md's figure to MASTER_KEEPS below: t06 checks the words,
#     this test the kernel);
#   - no patch of the three Linux series the guest kernel is built from
#     touches net_failover (its driver, the failover core or their headers):
#     the withdrawal is in the code, not only in the cover letter.
set -euo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/harness/vm.sh
. "$GSO_TOP/tests/harness/vm.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"
require_command ip "failover: iproute2's ip for the guest"
vm_init

VM=failover
MAC=52:54:00:12:34:66
QOM=/machine/peripheral/net0
setup_ns FNS
ip -n "$FNS" tuntap add dev tap0 mode tap vnet_hdr
ip -n "$FNS" tuntap add dev tap1 mode tap
ip -n "$FNS" link set tap0 up
ip -n "$FNS" link set tap1 up

extra=$TEST_LOG_DIR/$VM.ip.cpio.gz
extra_initrd "$extra" "$(command -v ip):/opt/gso/bin/ip"

script=$TEST_LOG_DIR/$VM.guest.sh
cat > "$script" <<'GUEST'
IP=/opt/gso/bin/ip
# limits DEV: "GSO_SIZE GSO_SEGS TSO_SIZE TSO_SEGS" from ip -d link
limits() {
	$IP -d link show dev "$1" | tr '\n' ' ' |
		sed -n 's/.*gso_max_size \([0-9]*\) gso_max_segs \([0-9]*\) tso_max_size \([0-9]*\) tso_max_segs \([0-9]*\).*/\1 \2 \3 \4/p'
}
drv() { basename "$(readlink "/sys/class/net/$1/device/driver" 2>/dev/null)" 2>/dev/null; }
# The failover master: the device with lower devices; its slaves by driver.
roles() {
	master='' standby='' primary=''
	for d in /sys/class/net/*; do
		ls -d "$d"/lower_* >/dev/null 2>&1 && master=${d##*/}
	done
	[ -n "$master" ] || return 1
	for l in /sys/class/net/"$master"/lower_*; do
		n=${l##*/lower_}
		case "$(drv "$n")" in
		virtio_net) standby=$n ;;
		e1000e) primary=$n ;;
		esac
	done
	[ -n "$standby" ] && [ -n "$primary" ]
}
i=0
while ! roles && [ $i -lt 100 ]; do
	echo 1 > /sys/bus/pci/rescan
	sleep 0.2
	i=$((i + 1))
done
echo "FO-TOPO: master=$master standby=$standby($(drv "$standby")) primary=$primary($(drv "$primary")) master-of-primary=$(basename "$(readlink "/sys/class/net/$primary/master" 2>/dev/null)" 2>/dev/null)"
[ -n "$primary" ] || exit 1
# Up, as in use: opening the master opens both slaves, and virtio_net
# takes configuration changes only while open (virtnet_open() enables
# them).
$IP link set "$master" up
i=0
while ! $IP link show dev "$standby" | grep -q '[<,]UP[,>]' && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "FO-BOOT: $(limits "$master") / $(limits "$standby") / $(limits "$primary")"
echo "FO-STEP-DROP"
# At most ~30 s (each ip call takes a while under TCG): a kernel that
# does not follow (no kernel-patches/) never gets there.
i=0
while [ "$(limits "$standby" | cut -d' ' -f3)" != 48000 ] && [ $i -lt 40 ]; do
	sleep 0.5
	i=$((i + 1))
done
# Time for anything that follows (uppers follow within the same work item).
sleep 1
echo "FO-DROP: $(limits "$master") / $(limits "$standby") / $(limits "$primary")"
exit 0
GUEST

rc=0
VM_EXTRA_INITRD=$extra VM_MACHINE=q35 vm_start "$VM" "$FNS" "$script" \
	-device pcie-root-port,id=rp0,chassis=1,bus=pcie.0,addr=0x4 \
	-device pcie-root-port,id=rp1,chassis=2,bus=pcie.0,addr=0x5 \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no,vhost=off \
	-device "virtio-net-pci,bus=rp0,id=net0,netdev=n0,mac=$MAC,failover=on,host_gso_max_size=64000,host_gso_max_segs=64" \
	-netdev tap,id=n1,ifname=tap1,script=no,downscript=no \
	-device "e1000e,bus=rp1,id=pri0,netdev=n1,mac=$MAC,failover_pair_id=net0"
if vm_console_wait "$VM" '^FO-STEP-DROP' 240; then
	qmp_gso_set "$TEST_LOG_DIR/$VM.qmp.sock" "$QOM" 48000 32 >> "$TEST_LOG_DIR/$VM.qmp.log" ||
		check_err 1 "qom-set host_gso_max 48000/32 failed"
else
	check_err 1 "the guest never reached the drop step"
fi
vm_wait "$VM" || rc=$?
con() { tr -d '\r' < "$TEST_LOG_DIR/$VM.console.log" 2>/dev/null || true; }
gval() { con | sed -n "s/^$1: //p" | tail -n 1; }

check_eq "guest exit code" "$rc" 0
topo=$(gval FO-TOPO)
echo "    $topo"
case "$topo" in
master=eth*" standby="*"(virtio_net) primary="*"(e1000e) master-of-primary="*) ;;
*) check_err 1 "no net_failover master with a virtio_net standby and an e1000e primary: '$topo'" ;;
esac
m=${topo#master=} m=${m%% *}
[ "${topo##*master-of-primary=}" = "$m" ] || check_err 1 "the primary is not enslaved to the master"
log_test "failover: QEMU's standby/primary pair makes the guest create a net_failover master over both"

# "MASTER(gso size segs tso size segs) / STANDBY(...) / PRIMARY(...)"
read -r -a boot <<< "$(gval FO-BOOT | tr -d '/')"
read -r -a drop <<< "$(gval FO-DROP | tr -d '/')"
echo "    boot: master ${boot[*]:0:4}, standby ${boot[*]:4:4}, primary ${boot[*]:8:4}"
echo "    drop: master ${drop[*]:0:4}, standby ${drop[*]:4:4}, primary ${drop[*]:8:4}"
check_eq "standby at boot (gso size/segs, tso size/segs)" "${boot[*]:4:4}" "64000 64 64000 64"
check_eq "standby after the drop" "${drop[*]:4:4}" "48000 32 48000 32"
log_test "failover: the virtio-net standby takes 64000/64, then 48000/32 at run time"

# The kernel's defaults, GSO_MAX_SIZE/GSO_MAX_SEGS: what the master keeps
# (docs/claims.tsv "failover-master" quotes this value).
MASTER_KEEPS=65536/65535
# "GSO_SIZE/GSO_SEGS TSO_SIZE/TSO_SEGS" of the four numbers at $1..$4
pairs() { echo "${1:-}/${2:-} ${3:-}/${4:-}"; }
check_eq "master at boot" "$(pairs "${boot[@]:0:4}")" "$MASTER_KEEPS $MASTER_KEEPS"
check_eq "master after the drop" "$(pairs "${drop[@]:0:4}")" "$MASTER_KEEPS $MASTER_KEEPS"
log_test "failover: the net_failover master keeps its defaults ($MASTER_KEEPS)"

# What the series changes: the files of each patch (its diff headers), none
# of them net_failover's.  A series that makes net_failover follow would
# touch one of them (a failover_ops hook), and the docs would then change.
n=0
for patch in "$GSO_TOP"/kernel-event-patches/0*.patch "$GSO_TOP"/kernel-patches/0*.patch \
	"$GSO_TOP"/kernel-split-patches/0*.patch; do
	[ "${patch##*/}" != 0000-cover-letter.patch ] || continue
	n=$((n + 1))
	hit=$(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$patch" |
		grep -E '^(drivers/net/net_failover\.c|net/core/failover\.c|include/net/(net_)?failover\.h)$' ||
		true)
	[ -z "$hit" ] || check_err 1 "${patch##*/} changes $hit: net_failover is no longer left alone"
done
[ "$n" -ge 10 ] || check_err 1 "only $n patches found in the three Linux series"
log_test "failover: none of the $n patches of the Linux series touches net_failover"

tests_exit
