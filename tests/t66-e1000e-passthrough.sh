#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# e1000e passed through, as a Proxmox host passes a NIC to a VM: the
# native reference row beside feature off and on.
#
#   nested guest eth0 (its own e1000e driver) = the host VM's e1000e, via
#     vfio-pci in the host VM, under the host VM's emulated Intel vIOMMU
#     (q35, intel-iommu intremap=on caching-mode=on)
#   host VM e1000e ~ tap0 (no vnet header: the e1000e model segments TSO
#     in software, so tap0 carries wire frames) ─ br0 ─ nic0 ~ wire0
#     [PEER_NS]: the wire peer, where the frames are captured
#
# The host VM runs Debian's own kernel (ACPI, INTEL_IOMMU, IRQ_REMAP; vfio,
# vfio-pci and e1000e as its modules: the project's tinyconfig kernel has
# no ACPI, through which the vIOMMU is found); its nested QEMU
# (scripts/build-hostvm-initramfs.sh) is the project's, with vfio-pci and
# intel-iommu (configs/qemu-devices.mak); the nested guest runs the
# project's kernel.
# Checks: the host VM enables the vIOMMU and interrupt remapping, binds
# the e1000e to vfio-pci; the nested guest's eth0 is driven by e1000e,
# its link comes up, the limits it learns are the e1000e driver's own,
# a 4 MiB stream reaches the wire peer; the nested guest's TSO sizes
# (tcpdump in the nested guest, on eth0) and the wire frames (wire0) are
# reduced with gso-hist; every wire segment fits the TSO packet the
# nested guest's driver took (tests/harness/wire.sh: PSH/FIN on the last
# segment only, CWR on the first only, MTU-sized, correct checksums,
# consecutive sequence numbers and IPv4 IDs), a FIN ends the stream, and
# neither capture (the wire's, the nested guest's) dropped a frame.
#
#   tests/t66-e1000e-passthrough.sh
#
# Without a usable /dev/kvm the nested part is a SKIP unless T66_TCG=1
# (nested TCG: 25+ min); T66_RECHECK=LOGDIR re-checks an earlier run's logs
# (passes reported SKIP).  T66_QEMU (default Debian's qemu-system-x86_64):
# the host VM's hypervisor, which emulates the e1000e; T66_QEMU_FIXED=1
# when it carries qemu-test-patches/0001 (PSH kept on a TSO packet's last
# segment): without it the wire check expects Debian's QEMU's PSH bug.
# T66_HOST_KERNEL: a directory like distro_vfio's (vmlinuz, modules.cpio.gz,
# config, version) instead of Debian's.
# Nested TCG: 25+ min on the shared 2-core machine (a KVM host: minutes).
set -euo pipefail
# shellcheck source=tests/harness/vmtest.sh
. "$(dirname "$0")/harness/vmtest.sh"
# shellcheck source=tests/harness/extra-initrd.sh
. "$GSO_TOP/tests/harness/extra-initrd.sh"
# shellcheck source=tests/harness/wire.sh
. "$GSO_TOP/tests/harness/wire.sh"

require_command tcpdump jq
BYTES=$((4 << 20))
PORT=5201
log_dir=$TEST_LOG_DIR/t66
mkdir -p "$log_dir"
vm_init

# --- the host VM's kernel: Debian's, as a Proxmox-like host runs ---------
# The project's kernel is built without ACPI (tinyconfig), and the vIOMMU
# is found through ACPI (DMAR): a kernel with it is a full rebuild (~1200
# objects).  The host VM only passes the NIC on, so it runs Debian's own
# kernel (ACPI, INTEL_IOMMU, IRQ_REMAP built in; e1000e, vfio, vfio-pci
# as Debian's modules, loaded by the guest's /init from /etc/gso-modules).
# The nested guest runs the project's kernel.
VFIO_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
virtio_console e1000e irqbypass vfio vfio_iommu_type1 vfio_virqfd vfio-pci-core vfio-pci"
distro_vfio() {
	local pkg out tmp kver m f
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "cannot resolve linux-image-amd64" >&2; return 1; }
	out=$GSO_CACHE/distro/$pkg-vfio
	if [ -f "$out/modules.cpio.gz" ] && [ -f "$out/vmlinuz" ]; then
		echo "$out"
		return 0
	fi
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download -q "$pkg" > /dev/null 2>&1) || { rm -rf "$tmp"; return 1; }
	dpkg-deb -x "$tmp"/*.deb "$tmp/x"
	kver=$(ls "$tmp/x/lib/modules")
	mkdir -p "$tmp/root/etc" "$tmp/root/lib/modules" "$out"
	for m in $VFIO_MODULES; do
		f=$(find "$tmp/x/lib/modules/$kver" -name "$m.ko*" | head -n 1)
		[ -n "$f" ] || continue
		case "$f" in
		*.ko.xz) xz -dc "$f" > "$tmp/root/lib/modules/$m.ko" ;;
		*.ko.zst) zstd -qdc "$f" > "$tmp/root/lib/modules/$m.ko" ;;
		*) cp "$f" "$tmp/root/lib/modules/$m.ko" ;;
		esac
		echo "/lib/modules/$m.ko" >> "$tmp/root/etc/gso-modules"
	done
	(cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -9n > "$tmp/modules.cpio.gz"
	cp "$tmp/x/boot/vmlinuz-$kver" "$out/vmlinuz"
	grep -E '^CONFIG_(ACPI|INTEL_IOMMU|IRQ_REMAP|VFIO|VFIO_PCI|E1000E)=' "$tmp/x/boot/config-$kver" \
		> "$out/config"
	echo "$pkg $kver" > "$out/version"
	mv "$tmp/modules.cpio.gz" "$out/modules.cpio.gz"
	rm -rf "$tmp"
	echo "$out"
}
if [ -n "${T66_HOST_KERNEL:-}" ]; then
	distro=$T66_HOST_KERNEL
elif ! distro=$(distro_vfio); then
	log_test "e1000e passthrough: Debian's kernel for the host VM" FAIL "apt-get download failed"
	tests_exit
fi
log_test "e1000e passthrough: host VM kernel: Debian's $(cat "$distro/version") ($(tr '\n' ' ' < "$distro/config"))"
# The hypervisor at both levels: Debian's own QEMU (qemu-system-x86, as a
# distribution host runs it; scripts/setup-deps.sh), which has intel-iommu
# and vfio-pci.  The project's QEMU is built without them
# (configs/qemu-devices.mak) and nothing here is about its patches: the
# nested guest's NIC is the e1000e itself, no virtio-net.
PT_QEMU=${T66_QEMU:-/usr/bin/qemu-system-x86_64}
if ! [ -x "$PT_QEMU" ] || ! "$PT_QEMU" -device help 2>/dev/null | grep -q '"vfio-pci"' ||
	! "$PT_QEMU" -device help 2>/dev/null | grep -q '"intel-iommu"'; then
	log_test "e1000e passthrough: a QEMU with vfio-pci and intel-iommu ($PT_QEMU)" FAIL \
		"install qemu-system-x86 (scripts/setup-deps.sh)"
	tests_exit
fi
log_test "e1000e passthrough: $("$PT_QEMU" --version | sed -n 1p) has vfio-pci and intel-iommu"

# The chain under nested TCG works but is slow (measured 2026-12-02 under a
# load of ~20: the nested guest's e1000e came up 15 min after the start,
# its first ping after 16; the host VM's 1500 s bound ended the stream):
# without a usable /dev/kvm the boot is left to T66_TCG=1.
if [ "$GSO_ACCEL" = tcg ] && [ "${T66_TCG:-0}" != 1 ] && [ -z "${T66_RECHECK:-}" ]; then
	log_test "e1000e passthrough: the nested chain (vIOMMU, vfio-pci, the guest's e1000e, the wire)" SKIP \
		"no usable /dev/kvm: nested TCG takes 25+ min here (docs/r8169-model.md); T66_TCG=1 runs it"
	tests_exit
fi

# --- initramfs: QEMU and the nested guest, tcpdump for the nested guest -----
base=$("$GSO_TOP/scripts/build-hostvm-initramfs.sh" --qemu "$PT_QEMU" --kernel "$GSO_KERNEL") ||
	die "host VM initramfs failed"
extra_initrd "$log_dir/nested-tcpdump.cpio.gz" "$(command -v tcpdump):/opt/gso/bin/tcpdump"
extra_initrd "$log_dir/hostvm-extra.cpio.gz" \
	"$log_dir/nested-tcpdump.cpio.gz:/opt/gso/nested-tcpdump.cpio.gz"
cat "$base" "$log_dir/hostvm-extra.cpio.gz" "$distro/modules.cpio.gz" > "$log_dir/hostvm.cpio.gz"

topo_tier1 e1000e
ip -n "$PEER_NS" link set dev wire0 gro off 2>/dev/null || true
ip netns exec "$PEER_NS" ethtool -K wire0 gro off > /dev/null 2>&1 || true
pcap=$log_dir/wire.pcap
ip netns exec "$PEER_NS" timeout 2800 tcpdump -i wire0 -s 0 -U -w "$pcap" tcp port $PORT \
	2> "$log_dir/wire.tcpdump.err" &
tcpdump_pid=$!
defer "kill $tcpdump_pid 2>/dev/null"
slowwait 10 grep -q 'listening on' "$log_dir/wire.tcpdump.err" || true
ip netns exec "$PEER_NS" "$GSO_TOP/tools/build/gso-stream" recv -l "$PEER_IP4" \
	--expect $BYTES --timeout 2700 $PORT > "$log_dir/recv.log" 2>&1 &
recv_pid=$!
defer "kill $recv_pid 2>/dev/null"

# --- the host VM's script (busybox sh) -------------------------------------
script=$log_dir/hostvm.sh
cat > "$script" <<HOSTVM
BYTES=$BYTES
GUEST_IP4=$GUEST_IP4
GUEST_IP6=$GUEST_IP6
PEER_IP4=$PEER_IP4
PORT=$PORT
GUEST_MAC=$GUEST_MAC
HOSTVM
cat >> "$script" <<'HOSTVM'
. /etc/gso-guest.sh
say() { echo "PT: $*"; }
fail() { say "error: $*"; exit 1; }
W=/tmp/pt
mkdir -p $W/root
dmesg | grep -E 'DMAR|IOMMU|[Rr]emapping|vfio|e1000e' | sed 's/^/PT-DMESG: /'
dev=
for d in /sys/bus/pci/devices/*; do
	[ "$(cat $d/vendor):$(cat $d/device)" = 0x8086:0x10d3 ] && dev=${d##*/}
done
[ -n "$dev" ] || fail "no e1000e in the host VM"
D=/sys/bus/pci/devices/$dev
say "e1000e $dev driver $(basename "$(readlink $D/driver)") iommu_group $(basename "$(readlink $D/iommu_group)")"
[ -e $D/iommu_group ] || fail "the e1000e has no IOMMU group"
echo "$dev" > $D/driver/unbind
echo vfio-pci > $D/driver_override
echo "$dev" > /sys/bus/pci/drivers_probe
say "bound $dev $(basename "$(readlink $D/driver)") /dev/vfio: $(ls /dev/vfio | tr '\n' ' ')"
[ "$(basename "$(readlink $D/driver)")" = vfio-pci ] || fail "vfio-pci did not bind"

# The nested guest: its own e1000e driver on the passed-through NIC.
cat > $W/root/test.sh <<NESTED
. /etc/gso-guest.sh
echo "NESTED-DRIVER: \$(basename \$(readlink /sys/class/net/eth0/device/driver))"
dmesg | grep -E 'e1000e' | sed 's/^/NESTED-DMESG: /'
gcheck link_up net_up $GUEST_IP4 $GUEST_IP6 || exit 1
echo "NESTED-LINK: \$(gso-linkinfo eth0)"
gcheck ping ping_until $PEER_IP4 || exit 1
/opt/gso/bin/tcpdump -Z root -i eth0 -n -s 200 -B 8192 --immediate-mode -w /tmp/g.pcap \
	"tcp and dst port $PORT" 2> /tmp/tcpdump.log &
T=\$!
wait_for 120 grep -q 'listening on' /tmp/tcpdump.log || { sed 's/^/NESTED-TCPDUMP: /' /tmp/tcpdump.log; exit 1; }
gcheck stream gso-stream send $PEER_IP4 $PORT $BYTES --timeout 1200 || exit 1
sleep 1
kill -INT \$T
wait \$T
sed 's/^/NESTED-TCPDUMP: /' /tmp/tcpdump.log
for p in /sys/class/virtio-ports/*; do
	[ "\$(cat \$p/name)" = gso.pcap ] && cat /tmp/g.pcap > /dev/\${p##*/}
done
echo "NESTED-DONE"
NESTED
chmod 755 $W/root/test.sh
cp /opt/gso/guest.cpio $W/initrd
cat /opt/gso/nested-tcpdump.cpio.gz >> $W/initrd
(cd $W/root && echo test.sh | cpio -o -H newc -R 0:0 2>/dev/null | gzip) >> $W/initrd
t0=$(ms)
# Progress every 20 s (a run cut short still shows how far the guest got).
(
	while sleep 20; do
		say "progress $(( $(ms) - t0 )) ms: $(tr -d '\r' < $W/console.log 2>/dev/null | grep -v '^$' | tail -n 1 | cut -c1-100)"
	done
) &
PROGRESS=$!
timeout -s KILL 2400 /usr/local/bin/qemu-system-x86_64 -M pc -accel tcg -m 256 -smp 1 \
	-nodefaults -no-user-config -vga none -display none -no-reboot -L /usr/share/qemu \
	-bios qboot.rom -kernel /opt/gso/bzImage -initrd $W/initrd \
	-append "console=ttyS0 panic=-1 oops=panic panic_on_warn=1 no_timer_check loglevel=6 mitigations=off" \
	-chardev file,id=con,path=$W/console.log -serial chardev:con \
	-device virtio-serial-pci,id=vser0 \
	-chardev file,id=ret,path=$W/ret -device virtserialport,bus=vser0.0,chardev=ret,name=gso.ret \
	-chardev file,id=pcap,path=$W/g.pcap -device virtserialport,bus=vser0.0,chardev=pcap,name=gso.pcap \
	-device vfio-pci,host=$dev,rombar=0 > $W/qemu.out 2> $W/qemu.err
say "nested-qemu rc=$? ms=$(( $(ms) - t0 ))"
kill $PROGRESS 2>/dev/null
sed 's/^/PT-QEMU: /' $W/qemu.err | tail -n 20
console_splats $W/console.log PT-SPLAT
tr -d '\r' < $W/console.log | grep -E 'NESTED-|GUEST-CHECK|role=send' | sed 's/^/PT-CON: /'
tr -d '\r' < $W/console.log | tail -n 10 | sed 's/^/PT-CONTAIL: /'
say "nested-exit $(tr -dc '0-9' < $W/ret 2>/dev/null)"
if [ -s $W/g.pcap ]; then
	gso-hist --json guest=$W/g.pcap | tr -d '\n' | sed 's/^/PT-JSON: /'
	echo
	gso-hist --top 8 --plot-data $W/g.plot guest=$W/g.pcap | sed 's/^/PT-HIST: /'
	sed 's/^/PT-PLOT: /' $W/g.plot
	# The TSO packets the nested guest's driver handed the NIC, for the
	# check of each wire segment (tests/harness/tso-wire.awk).
	/opt/gso/bin/tcpdump -Z root -r $W/g.pcap -nn -S 2>/dev/null |
		sed -n 's/.*Flags \[\([^]]*\)\], seq \([0-9]*\):\([0-9]*\),.*/PT-TSO: \2 \3 \1/p'
fi
dmesg | grep -E 'DMAR|vfio' | tail -n 20 | sed 's/^/PT-DMESG2: /'
[ "$(tr -dc '0-9' < $W/ret 2>/dev/null)" = 0 ]
HOSTVM

if [ -n "${T66_RECHECK:-}" ]; then
	# A developer's re-check of an earlier run's logs (its $TEST_LOG_DIR),
	# nothing booted: its passes are reported SKIP (log_replay).
	log_replay "$T66_RECHECK"
	kill "$recv_pid" "$tcpdump_pid" 2>/dev/null || true
	wait "$recv_pid" "$tcpdump_pid" 2>/dev/null || true
	cp "$T66_RECHECK/t66-hostvm.console.log" "$TEST_LOG_DIR/"
	cp "$T66_RECHECK/t66/wire.pcap" "$T66_RECHECK/t66/wire.tcpdump.err" "$T66_RECHECK/t66/recv.log" "$log_dir/"
	rc=$(tr -dc '0-9' < "$T66_RECHECK/t66-hostvm.ret" 2>/dev/null)
	rc=${rc:-255}
else
	GSO_VM_TIMEOUT=2700 VM_QEMU=$PT_QEMU VM_KERNEL=$distro/vmlinuz VM_EXTRA_INITRD=$log_dir/hostvm.cpio.gz \
		VM_MACHINE=q35,kernel-irqchip=split VM_APPEND="intel_iommu=on" \
		vm_start t66-hostvm "$HOST_NS" "$script" -m 1024 \
		-device intel-iommu,intremap=on,caching-mode=on \
		-netdev "tap,id=n0,ifname=tap0,script=no,downscript=no,vhost=off,vnet_hdr=off" \
		-device "e1000e,id=nic,netdev=n0,mac=$GUEST_MAC,romfile="
	rc=0
	vm_wait t66-hostvm || rc=$?
fi
con=$TEST_LOG_DIR/t66-hostvm.console.log
ptcon() { tr -d '\r' < "$con" | sed -n "s/^$1: //p"; }
pcap_stop_settled "$pcap" "$tcpdump_pid"
wait "$recv_pid" || true
ptcon PT | grep -E '^(e1000e|bound|nested)' | sed 's/^/    /' || true
ptcon PT | grep '^error' | sed 's/^/    host VM: /' || true

# 1. the host VM: vIOMMU, interrupt remapping, vfio-pci
{ ptcon PT-DMESG | grep -q 'DMAR: IOMMU enabled' &&
	ptcon PT-DMESG | grep -q 'DMAR-IR: Enabled IRQ remapping'; } ||
	check_err 1 "no 'DMAR: IOMMU enabled' and 'DMAR-IR: Enabled IRQ remapping' in the host VM"
log_test "e1000e passthrough: host VM: vIOMMU (DMAR) and interrupt remapping enabled"
ptcon PT | grep -q '^bound .* vfio-pci /dev/vfio: [0-9]' ||
	check_err 1 "the e1000e was not bound to vfio-pci: $(ptcon PT | grep -E '^(e1000e|bound|error)' | tr '\n' ' ')"
log_test "e1000e passthrough: host VM binds its e1000e to vfio-pci ($(ptcon PT | sed -n 's/^e1000e \([^ ]*\) .*iommu_group \([0-9]*\).*/\1, IOMMU group \2/p'))"

# 2. the nested guest: its own e1000e driver, its limits, the stream
ptcon PT-QEMU | sed 's/^/    nested QEMU: /' | tail -n 5 || true
ptcon PT-CON | grep -q 'NESTED-DRIVER: e1000e' ||
	check_err 1 "the nested guest's eth0 is not driven by e1000e ($(ptcon PT-CON | grep DRIVER))"
ptcon PT-CON | grep -q 'GUEST-CHECK: link_up ok' || check_err 1 "the nested guest's link did not come up"
log_test "e1000e passthrough: nested guest: eth0 is the passed-through NIC under its own e1000e driver, link up"
link=$(ptcon PT-CON | sed -n 's/^NESTED-LINK: //p' | tail -n 1)
echo "    nested guest: $link"
grep -q 'tso_max_size 65536 tso_max_segs 65535' <<< "$link" ||
	check_err 1 "limits: $link"
log_test "e1000e passthrough: nested guest: the limits are the e1000e driver's own (65536/65535)"
ptcon PT-CON | grep -q 'GUEST-CHECK: stream ok' || check_err 1 "the nested guest's stream failed"
grep -q "bytes=$BYTES .*content=ok" "$log_dir/recv.log" ||
	check_err 1 "receiver: $(cat "$log_dir/recv.log")"
check_eq "nested guest exit" "$(ptcon PT | sed -n 's/^nested-exit //p')" 0
check_eq "host VM exit" "$rc" 0
log_test "e1000e passthrough: nested guest: 4 MiB to the wire peer, every byte checked"

# 3. histograms: the guest's TSO sizes (what its driver handed the NIC)
# and the frames the NIC put on the wire
ptcon PT-JSON > "$log_dir/guest.hist.json"
ptcon PT-HIST > "$log_dir/guest.hist.txt"
ptcon PT-PLOT > "$log_dir/guest.plot.dat"
"$GSO_TOP/tools/build/gso-hist" --json "wire=$pcap" > "$log_dir/wire.hist.json" 2> /dev/null || true
"$GSO_TOP/tools/build/gso-hist" --top 8 "wire=$pcap" > "$log_dir/wire.hist.txt" 2> /dev/null || true
gmax=$(jq -r '.files[0].max_payload // 0' "$log_dir/guest.hist.json" 2> /dev/null || echo 0)
gframes=$(jq -r '.files[0].frames // 0' "$log_dir/guest.hist.json" 2> /dev/null || echo 0)
gmss=$(jq -r '.mss // 0' "$log_dir/guest.hist.json" 2> /dev/null || echo 0)
wmax=$(jq -r '.files[0].max_payload // 0' "$log_dir/wire.hist.json" 2> /dev/null || echo 0)
wframes=$(jq -r '.files[0].frames // 0' "$log_dir/wire.hist.json" 2> /dev/null || echo 0)
gmax=${gmax:-0} gframes=${gframes:-0} gmss=${gmss:-0} wmax=${wmax:-0} wframes=${wframes:-0}
echo "    guest TSO packets: $gframes, largest payload $gmax (MSS $gmss); wire frames: $wframes, largest payload $wmax"
sed -n 's/^/    guest: /; 1,12p' "$log_dir/guest.hist.txt"
sed -n 's/^/    wire:  /; 1,12p' "$log_dir/wire.hist.txt"
{ [ "$gmss" -gt 0 ] && [ "$gmax" -gt $((gmss * 32)) ] && [ "$wmax" -le "$gmss" ] &&
	[ "$wframes" -gt "$gframes" ]; } ||
	check_err 1 "guest TSO largest $gmax (want > 32 MSS of $gmss), wire largest $wmax (want <= MSS)"
log_test "e1000e passthrough: histograms: the guest's TSO packets (largest $gmax) leave the NIC as MSS frames ($wframes)"

# 4. the wire: each segment's headers against the guest's TSO packets,
# neither capture having dropped a frame (wire_check)
ptcon PT-TSO > "$log_dir/tso.txt"
ptcon PT-CON | sed -n 's/^NESTED-TCPDUMP: //p' > "$log_dir/guest.tcpdump.log"
wire_check t66 "$log_dir/tso.txt" "$pcap" "src host $GUEST_IP4" 1 "wire=$log_dir/wire.tcpdump.err" \
	"nested guest's eth0 (the TSO packets)=$log_dir/guest.tcpdump.log" || true
echo "    wire: $WIRE"
# The e1000e is emulated by the hypervisor of the host VM, Debian's QEMU:
# its net_tx_pkt clears PSH (and FIN) on every segment of a TSO packet,
# the last one included, the bug qemu-test-patches/0001 fixes in the
# project's QEMU (which has no vfio-pci or intel-iommu to run this test).
# With a QEMU without that fix (T66_QEMU_FIXED=0, the default) the PSH
# checks are replaced by the bug's exact signature: no PSH anywhere on the
# wire, and every TSO packet the guest's driver pushed missing it there;
# anything else (PSH on a wrong segment, some packets keeping it) fails.
# FIN: the guest's FIN leaves alone, not in a TSO packet, so it shows.
pushed=$(awk '$3 ~ /P/' "$log_dir/tso.txt" | wc -l)
psh_bad=$(sed -n 's/.* psh_bad \([0-9]*\) .*/\1/p' <<< "$WIRE")
if [ "${T66_QEMU_FIXED:-0}" = 0 ]; then
	WIRE_BAD=$(grep -v -e "^t66: PSH off a TSO packet's last segment" -e '^t66: no pushed segment$' <<< "$WIRE_BAD" || true)
	{ [ "${WIRE_PSH:-x}" = 0 ] && [ "$pushed" -gt 0 ] && [ "${psh_bad:-x}" = "$pushed" ]; } ||
		check_err 1 "want PSH on no wire segment and missing from all $pushed pushed TSO packets (the bug's signature): wire PSH ${WIRE_PSH:-?}, PSH errors ${psh_bad:-?}"
	log_test "e1000e passthrough: $("$PT_QEMU" --version | sed -n 's/^QEMU emulator version \([^ ]*\).*/\1/p')'s e1000e drops PSH from all $pushed pushed TSO packets (net_tx_pkt, fixed by qemu-test-patches/0001; T66_QEMU_FIXED=1 for a fixed QEMU)"
fi
[ -z "$WIRE_BAD" ] || check_err 1 "${WIRE_BAD//$'\n'/; }"
log_test "e1000e passthrough: wire segments: sequence, IPv4 ID, length, checksums, $([ "${T66_QEMU_FIXED:-0}" = 0 ] || echo 'PSH/')FIN last only, CWR first only, FIN, no capture drop"

tests_exit
